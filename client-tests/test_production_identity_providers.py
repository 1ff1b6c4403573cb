"""Issue 42 in production mode: a stack started as docker-compose.yml starts it, whose identity provider
is a real OpenID Connect provider on loopback over HTTPS from its own stand-in public CA (trusted through
`identityProviders.trustRoots`, as a deployment trusts a public one). Admin calls carry the deployment's
admin token, the app's calls the project's own API key; ID tokens are checked against the published keys."""

import secrets
import time
import urllib.parse

import jwt
import pyotp
import pytest
import requests

import oidc_provider
from production_stack import running

V1 = "/identitytoolkit.googleapis.com/v1/accounts:"
V2 = "/identitytoolkit.googleapis.com/v2/accounts/"


@pytest.fixture(scope="module")
def production_idp():
    with oidc_provider.running() as provider:
        factor_registry = {"IDENTITY_PROVIDERS_TRUST_ROOTS": str(provider.ca),
                           "IDENTITY_PROVIDERS_GOOGLE_ISSUER": provider.issuer}
        with running(extra_env={"factor-registry": factor_registry}) as stack:
            admin = {"Authorization": f"Bearer {stack.admin_token}"}
            base = f"{stack.admin_url}/v2/projects/demo-project"
            for url, body in ((f"{base}/oauthIdpConfigs?oauthIdpConfigId=oidc.corp",
                               # The company's own provider, which the operator trusts to verify its
                               # users' addresses (issue 56, F-3): its accounts may enroll a factor.
                               {"clientId": "corp-app", "issuer": provider.issuer, "enabled": True,
                                "clientSecret": "corp-secret", "responseType": {"code": True}, "trustEmailVerified": True}),
                              (f"{base}/defaultSupportedIdpConfigs?idpId=google.com",
                               {"clientId": "google-web-client", "enabled": True})):
                answer = requests.post(url, json=body, headers=admin, timeout=30)
                assert answer.status_code == 200, answer.text
                assert "corp-secret" not in answer.text
                assert answer.json().get("trustEmailVerified", True) is True
            yield stack, provider


def call(stack, operation, prefix=V1, **body):
    return requests.post(f"{stack.gateway}{prefix}{operation}?key={stack.api_key}", json=body, timeout=30)


def verified(stack, token):
    """The ID token's claims, its signature checked against the gateway's published keys."""
    keys = jwt.PyJWKClient(f"{stack.gateway}/.well-known/jwks.json")
    return jwt.decode(token, keys.get_signing_key_from_jwt(token).key, algorithms=["RS256"], audience="demo-project")


def test_a_google_user_signs_in_with_a_verified_token_and_gets_signed_tokens(production_idp):
    stack, provider = production_idp
    sub = "g-" + secrets.token_hex(6)
    provider.set_user(sub, email=f"{sub}@example.com", email_verified=True, name="Grace")
    raw = secrets.token_urlsafe(16)
    token = provider.id_token("google-web-client", sub, nonce=oidc_provider.hashed_nonce(raw))
    body = urllib.parse.urlencode({"id_token": token, "providerId": "google.com", "nonce": raw})
    answer = call(stack, "signInWithIdp", requestUri="http://localhost", postBody=body, returnSecureToken=True)
    assert answer.status_code == 200, answer.text
    signed_in = answer.json()
    assert signed_in["isNewUser"] is True and signed_in["federatedId"] == f"https://accounts.google.com/{sub}"
    claims = verified(stack, signed_in["idToken"])
    assert claims["firebase"]["sign_in_provider"] == "google.com" and claims["firebase"]["identities"]["google.com"] == [sub]
    # The same credential again is a replay; a token for another app, or forged, is refused.
    assert call(stack, "signInWithIdp", requestUri="http://localhost", postBody=body).json()["error"]["message"] \
        .startswith("MISSING_OR_INVALID_NONCE")
    other = provider.id_token("someone-elses-app", sub)
    refused = call(stack, "signInWithIdp", requestUri="http://localhost",
                   postBody=urllib.parse.urlencode({"id_token": other, "providerId": "google.com"}))
    assert refused.status_code == 400 and refused.json()["error"]["message"].startswith("INVALID_IDP_RESPONSE")
    forged = oidc_provider.resigned(jwt.decode(token, options={"verify_signature": False}) | {"sub": "admin"})
    refused = call(stack, "signInWithIdp", requestUri="http://localhost",
                   postBody=urllib.parse.urlencode({"id_token": forged, "providerId": "google.com"}))
    assert refused.json()["error"]["message"] == "INVALID_IDP_RESPONSE : The id_token's signature could not be verified."


def test_the_web_code_flow_and_the_second_factor_in_production(production_idp):
    stack, provider = production_idp
    admin = {"Authorization": f"Bearer {stack.admin_token}"}
    config = requests.patch(f"{stack.admin_url}/v2/projects/demo-project/config?updateMask=mfa", headers=admin, timeout=30,
                            json={"mfa": {"state": "ENABLED", "providerConfigs": [
                                {"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}})
    assert config.status_code == 200, config.text
    sub = "w-" + secrets.token_hex(6)
    provider.set_user(sub, email=f"{sub}@example.com", email_verified=True)

    def web_sign_in():
        session = secrets.token_urlsafe(16)
        started = call(stack, "createAuthUri", providerId="oidc.corp", continueUri="https://localhost/finish", sessionId=session)
        assert started.status_code == 200, started.text
        back = provider.authorize("corp-app", "", sub, authorization_url=started.json()["authUri"])
        answer = call(stack, "signInWithIdp", requestUri=back, sessionId=session, returnSecureToken=True)
        assert answer.status_code == 200, answer.text
        return answer.json()

    first = web_sign_in()
    assert first["isNewUser"] is True and first["oauthAccessToken"]
    started = call(stack, "mfaEnrollment:start", V2, idToken=first["idToken"], totpEnrollmentInfo={}).json()["totpSessionInfo"]
    totp = pyotp.TOTP(started["sharedSecretKey"])
    finalized = call(stack, "mfaEnrollment:finalize", V2, idToken=first["idToken"], totpVerificationInfo={
        "sessionInfo": started["sessionInfo"], "verificationCode": totp.now()})
    assert finalized.status_code == 200, finalized.text
    pending = web_sign_in()
    assert pending["mfaPendingCredential"] and "idToken" not in pending
    finished = call(stack, "mfaSignIn:finalize", V2, mfaPendingCredential=pending["mfaPendingCredential"],
                    mfaEnrollmentId=pending["mfaInfo"][0]["mfaEnrollmentId"],
                    totpVerificationInfo={"verificationCode": totp.at(time.time() + 30)})
    assert finished.status_code == 200, finished.text
    claims = verified(stack, finished.json()["idToken"])
    assert claims["firebase"]["sign_in_provider"] == "oidc.corp" and claims["firebase"]["sign_in_second_factor"] == "totp"
    # Email enumeration protection is on in production: an email's methods are not told.
    methods = call(stack, "createAuthUri", identifier=f"{sub}@example.com", continueUri="https://localhost/")
    assert set(methods.json()) == {"kind", "sessionId"}
