"""Issue 42: sign-in with Google, Apple and any OpenID Connect provider, with the second factor. The
provider is a real OpenID Connect provider on loopback (oidc_provider.py: oidc-provider-mock over HTTPS
from its own stand-in public CA, trusted through `identityProviders.trustRoots`); the apps' calls go
through Google's generated REST client, the provider configurations through firebase-admin.
`google.com` and `apple.com` point at the same stand-in (`identityProviders.googleIssuer` /
`.appleIssuer`), as a deployment could point them at a mirror."""

import json
import secrets
import time
import urllib.parse

import firebase_admin
import pyotp
import pytest
import requests
from firebase_admin import auth

import oidc_provider
from conftest import another_stack
from rest_client import ADMIN, admin_app, claims, enroll_totp, failure, finish_totp, identitytoolkit, unique_email

CLIENT = "corp-app"
OIDC = "oidc.corp"


@pytest.fixture(scope="module")
def provider():
    with oidc_provider.running() as running:
        yield running


@pytest.fixture(scope="module")
def idp_stack(stack, provider):
    with another_stack(stack, "idp", extra_env={
            "IDENTITY_PROVIDERS_TRUST_ROOTS": str(provider.ca), "IDENTITY_PROVIDERS_GOOGLE_ISSUER": provider.issuer,
            "IDENTITY_PROVIDERS_APPLE_ISSUER": provider.issuer}) as running:
        yield running


@pytest.fixture(scope="module")
def admin(idp_stack):
    yield from admin_app(idp_stack)


@pytest.fixture(scope="module")
def configured(idp_stack, provider, admin):
    """`oidc.corp` (ID-token flow), `google.com` and `apple.com` enabled for the default project."""
    auth.create_oidc_provider_config(OIDC, client_id=CLIENT, issuer=provider.issuer, display_name="Corp", enabled=True,
                                     app=admin)
    base = f"{idp_stack.gateway}/v2/projects/demo-project/defaultSupportedIdpConfigs"
    for idp, body in (("google.com", {"enabled": True, "clientId": "google-web-client", "clientSecret": "g-secret"}),
                      ("apple.com", {"enabled": True, "clientId": "com.example.service",
                                     "appleSignInConfig": {"bundleIds": ["com.example.app"]}})):
        answer = requests.post(f"{base}?idpId={idp}", json=body, headers=ADMIN, timeout=30)
        assert answer.status_code == 200, answer.text
    return provider


def gmail(prefix):
    """An address Google hosts, so Google's email_verified proves it (issue 56, F-3)."""
    return unique_email(prefix).replace("@example.com", "@gmail.com")


def user(provider, **claims_):
    sub = "u-" + secrets.token_hex(6)
    provider.set_user(sub, **claims_)
    return sub


def sign_in(stack, post_body, **body):
    return identitytoolkit(stack).accounts().signInWithIdp(body={
        "requestUri": "http://localhost", "postBody": post_body, "returnSecureToken": True, **body})


def post_body(token, provider_id=OIDC, nonce=None):
    fields = {"id_token": token, "providerId": provider_id} | ({"nonce": nonce} if nonce else {})
    return urllib.parse.urlencode(fields)


# --- provider configurations ----------------------------------------------------------------------------------------


def test_the_admin_sdk_manages_oidc_provider_configs_and_never_gets_the_secret_back(idp_stack, provider, admin):
    created = auth.create_oidc_provider_config(
        "oidc.managed", client_id="managed-client", issuer=provider.issuer, display_name="Managed", enabled=True,
        client_secret="very-secret-value", code_response_type=True, id_token_response_type=False, app=admin)
    assert (created.provider_id, created.client_id, created.issuer, created.display_name, created.enabled) == (
        "oidc.managed", "managed-client", provider.issuer, "Managed", True)
    assert created.code_response_type is True and created.id_token_response_type is False
    assert created.client_secret is None
    fetched = auth.get_oidc_provider_config("oidc.managed", app=admin)
    assert fetched.client_id == "managed-client" and fetched.client_secret is None
    assert "oidc.managed" in [config.provider_id for config in auth.list_oidc_provider_configs(app=admin).iterate_all()]
    # Sealed at rest: the stored row has no trace of the secret.
    stored = idp_stack.query("factor-registry", """SELECT config::text || encode(sealed_client_secret, 'escape')
                                                   FROM "p_demo-project".idp_configs WHERE provider_id = 'oidc.managed'""")
    assert stored and "very-secret-value" not in stored[0]
    updated = auth.update_oidc_provider_config("oidc.managed", display_name="Renamed", enabled=False, app=admin)
    assert (updated.display_name, updated.enabled, updated.client_id) == ("Renamed", False, "managed-client")
    # The secret survived the update that did not name it: the code flow still has one.
    assert idp_stack.query("factor-registry", """SELECT sealed_client_secret IS NOT NULL FROM "p_demo-project".idp_configs
                                                 WHERE provider_id = 'oidc.managed'""") == ["t"]
    with pytest.raises(auth.ConfigurationNotFoundError):
        auth.get_oidc_provider_config("oidc.absent", app=admin)
    with pytest.raises(Exception) as duplicate:
        auth.create_oidc_provider_config("oidc.managed", client_id="x", issuer=provider.issuer, app=admin)
    assert "CONFIGURATION_EXISTS" in str(duplicate.value)
    auth.delete_oidc_provider_config("oidc.managed", app=admin)
    with pytest.raises(auth.ConfigurationNotFoundError):
        auth.get_oidc_provider_config("oidc.managed", app=admin)


def test_provider_configs_refuse_what_cannot_work(idp_stack, provider):
    base = f"{idp_stack.gateway}/v2/projects/demo-project"

    def create(collection, parameter, body):
        answer = requests.post(f"{base}/{collection}?{parameter}", json=body, headers=ADMIN, timeout=30)
        assert answer.status_code == 400, answer.text
        return answer.json()["error"]["message"]

    assert create("oauthIdpConfigs", "oauthIdpConfigId=corp", {"clientId": "c", "issuer": provider.issuer}) \
        == "INVALID_PROVIDER_ID"
    assert create("oauthIdpConfigs", "oauthIdpConfigId=oidc.plain", {"clientId": "c", "issuer": "http://insecure.example",
                                                                      "enabled": True}).startswith("INVALID_CONFIG")
    assert create("oauthIdpConfigs", "oauthIdpConfigId=oidc.nocode",
                  {"clientId": "c", "issuer": provider.issuer, "responseType": {"code": True}}).startswith("INVALID_CONFIG")
    assert create("oauthIdpConfigs", "oauthIdpConfigId=oidc.noclient", {"issuer": provider.issuer, "enabled": True}) \
        == "INVALID_OAUTH_CLIENT_ID"
    assert create("defaultSupportedIdpConfigs", "idpId=facebook.com", {"clientId": "c"}) == "INVALID_PROVIDER_ID"
    # Without an admin credential nothing is listed.
    answer = requests.get(f"{base}/oauthIdpConfigs?key=k", timeout=30)
    assert answer.status_code in (401, 403) or answer.json()["error"]["message"].startswith("INSUFFICIENT_PERMISSION"), answer.text
    listed = requests.get(f"{idp_stack.gateway}/v2/defaultSupportedIdps", headers=ADMIN, timeout=30).json()
    assert {entry["idpId"] for entry in listed["defaultSupportedIdps"]} == {"google.com", "apple.com"}


def test_default_supported_configs_keep_the_apple_key_write_only(idp_stack, configured):
    base = f"{idp_stack.gateway}/v2/projects/demo-project/defaultSupportedIdpConfigs"
    answer = requests.patch(f"{base}/apple.com?updateMask=appleSignInConfig.codeFlowConfig", headers=ADMIN, timeout=30,
                            json={"appleSignInConfig": {"codeFlowConfig": {
                                "teamId": "TEAM123", "keyId": "KEY123", "privateKey": "-----BEGIN PRIVATE KEY-----\nx\n"}}})
    assert answer.status_code == 200, answer.text
    document = answer.json()
    assert document["name"] == "projects/demo-project/defaultSupportedIdpConfigs/apple.com"
    assert document["appleSignInConfig"] == {"bundleIds": ["com.example.app"],
                                             "codeFlowConfig": {"teamId": "TEAM123", "keyId": "KEY123"}}
    assert "privateKey" not in answer.text and "clientSecret" not in requests.get(
        f"{base}/google.com", headers=ADMIN, timeout=30).text
    listed = requests.get(base, headers=ADMIN, timeout=30).json()["defaultSupportedIdpConfigs"]
    assert [entry["name"].rsplit("/", 1)[1] for entry in listed] == ["apple.com", "google.com"]


# --- the native path ------------------------------------------------------------------------------------------------


def test_a_new_provider_user_gets_an_account_and_signs_in_to_it_again(idp_stack, configured):
    email = unique_email("idp")
    sub = user(configured, email=email, email_verified=True, name="Ada Lovelace", given_name="Ada", family_name="Lovelace")
    first = sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub))).execute()
    assert first["isNewUser"] is True and first["providerId"] == OIDC and first["federatedId"] == sub
    # The provider says the address is verified, but it is not authoritative for it (an OIDC provider
    # the operator has not marked trustEmailVerified): the account keeps it unverified (issue 56, F-3).
    assert (first["email"], first["emailVerified"], first["displayName"], first["firstName"]) == (email, False, "Ada Lovelace",
                                                                                                 "Ada")
    assert first["oauthIdToken"] and first["pendingToken"] and first["rawUserInfo"]
    assert json.loads(first["rawUserInfo"])["email_verified"] is True
    token = claims(first["idToken"])
    assert token["firebase"]["sign_in_provider"] == OIDC
    assert token["firebase"]["identities"][OIDC] == [sub] and token["email_verified"] is False
    again = sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub))).execute()
    assert again["localId"] == first["localId"] and "isNewUser" not in again
    looked_up = identitytoolkit(idp_stack).accounts().lookup(body={"idToken": again["idToken"]}).execute()["users"][0]
    providers = {entry["providerId"]: entry for entry in looked_up["providerUserInfo"]}
    assert set(providers) == {OIDC}
    assert providers[OIDC]["rawId"] == sub and providers[OIDC]["email"] == email
    assert "passwordHash" not in looked_up
    # The refresh token works as any other.
    refreshed = requests.post(f"{idp_stack.gateway}/v1/token?key=k", timeout=30,
                              data={"grant_type": "refresh_token", "refresh_token": again["refreshToken"]})
    assert refreshed.status_code == 200 and claims(refreshed.json()["id_token"])["firebase"]["sign_in_provider"] == OIDC


def test_tokens_the_provider_did_not_issue_for_this_app_are_refused(idp_stack, configured):
    sub = user(configured, email=unique_email("abuse"), email_verified=True)
    now = oidc_provider.now()

    def refused(token, provider_id=OIDC, nonce=None):
        return failure(sign_in(idp_stack, post_body(token, provider_id, nonce)))

    status, message = refused(configured.id_token("another-app", sub))
    assert status == 400 and message.startswith("INVALID_IDP_RESPONSE : The audience in ID Token [another-app]")
    good = configured.id_token(CLIENT, sub)
    header, payload, signature = good.split(".")
    # Re-signed by someone else's key, and "signed" with HMAC (the algorithm-confusion attack).
    for forged in (oidc_provider.resigned({**claims(good), "sub": "admin"}),
                   oidc_provider.resigned({**claims(good), "sub": "admin"}, algorithm="HS256")):
        assert refused(forged) == (400, "INVALID_IDP_RESPONSE : The id_token's signature could not be verified.")
    tampered = header + "." + payload[:-4] + ("AAAA" if not payload.endswith("AAAA") else "BBBB") + "." + signature
    assert refused(tampered)[1].startswith("INVALID_IDP_RESPONSE")
    expired = configured.signed({"iss": configured.issuer, "aud": CLIENT, "sub": sub, "iat": now - 7200, "exp": now - 3600})
    assert refused(expired) == (400, "INVALID_IDP_RESPONSE : The id_token has expired.")
    foreign = configured.signed({"iss": "https://issuer.example", "aud": CLIENT, "sub": sub, "iat": now, "exp": now + 600})
    assert refused(foreign) == (400, f"INVALID_IDP_RESPONSE : The id_token was not issued by {configured.issuer}.")
    assert refused(good, provider_id="oidc.unknown") == (
        400, "OPERATION_NOT_ALLOWED : The identity provider configuration is not found.")
    assert refused("not-a-token")[1].startswith("INVALID_IDP_RESPONSE")
    status, message = failure(identitytoolkit(idp_stack).accounts().signInWithIdp(body={"postBody": post_body(good)}))
    assert (status, message) == (400, "MISSING_REQUEST_URI")
    status, message = failure(sign_in(idp_stack, "id_token=" + good))
    assert message.startswith("INVALID_CREDENTIAL_OR_PROVIDER_ID")
    # An access token alone proves nothing about whom it was issued to.
    assert failure(sign_in(idp_stack, f"access_token=abc&providerId={OIDC}"))[1].startswith("INVALID_IDP_RESPONSE")


def test_a_disabled_provider_signs_nobody_in(idp_stack, configured, admin):
    auth.create_oidc_provider_config("oidc.off", client_id=CLIENT, issuer=configured.issuer, enabled=False, app=admin)
    sub = user(configured, email=unique_email("off"), email_verified=True)
    assert failure(sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub), "oidc.off"))) == (
        400, "OPERATION_NOT_ALLOWED : The identity provider configuration is disabled.")


def test_a_nonce_is_checked_against_its_hash_and_signs_in_once(idp_stack, configured):
    sub = user(configured, email=unique_email("nonce"), email_verified=True)
    raw = secrets.token_urlsafe(16)
    token = configured.id_token(CLIENT, sub, nonce=oidc_provider.hashed_nonce(raw))
    assert failure(sign_in(idp_stack, post_body(token))) == (400, "MISSING_OR_INVALID_NONCE : Nonce is missing in the request.")
    assert failure(sign_in(idp_stack, post_body(token, nonce="another")))[1].startswith("MISSING_OR_INVALID_NONCE")
    signed_in = sign_in(idp_stack, post_body(token, nonce=raw)).execute()
    assert signed_in["idToken"]
    # The same token again: a replay.
    assert failure(sign_in(idp_stack, post_body(token, nonce=raw))) == (
        400, "MISSING_OR_INVALID_NONCE : Duplicate credential received. Please try again with a new credential.")


def test_apple_accepts_the_apps_bundle_id_and_its_string_email_verified(idp_stack, configured):
    email = unique_email("apple")
    sub = user(configured, email=email, email_verified="true")
    raw = secrets.token_urlsafe(16)
    answer = sign_in(idp_stack, post_body(configured.id_token("com.example.app", sub, nonce=oidc_provider.hashed_nonce(raw)),
                                          "apple.com", raw)).execute()
    assert answer["providerId"] == "apple.com" and answer["emailVerified"] is True and answer["isNewUser"] is True
    assert claims(answer["idToken"])["firebase"]["identities"]["apple.com"] == [sub]


def test_a_pending_token_signs_the_same_provider_user_in_again(idp_stack, configured):
    sub = user(configured, email=unique_email("pending"), email_verified=True)
    first = sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub))).execute()
    again = identitytoolkit(idp_stack).accounts().signInWithIdp(body={
        "requestUri": "http://localhost", "pendingToken": first["pendingToken"], "returnSecureToken": True}).execute()
    assert again["localId"] == first["localId"]
    assert failure(identitytoolkit(idp_stack).accounts().signInWithIdp(body={
        "requestUri": "http://localhost", "pendingToken": first["pendingToken"][:-3] + "abc"})) == (400, "INVALID_PENDING_TOKEN")


# --- accounts: linking and one account per email --------------------------------------------------------------------


def password_user(stack, email, password="secret-pw"):
    return identitytoolkit(stack).accounts().signUp(body={"email": email, "password": password,
                                                          "returnSecureToken": True}).execute()


def test_a_signed_in_user_links_a_provider_and_the_provider_user_cannot_be_linked_twice(idp_stack, configured):
    email = unique_email("link")
    account = password_user(idp_stack, email)
    sub = user(configured, email=email, email_verified=True)
    linked = sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub)), idToken=account["idToken"]).execute()
    assert linked["localId"] == account["localId"]
    token = claims(linked["idToken"])
    assert token["firebase"]["sign_in_provider"] == OIDC and token["firebase"]["identities"][OIDC] == [sub]
    # Now the provider signs in to that account.
    assert sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub))).execute()["localId"] == account["localId"]
    other = password_user(idp_stack, unique_email("other"))
    assert failure(sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub)), idToken=other["idToken"])) == (
        400, "FEDERATED_USER_ID_ALREADY_LINKED")
    # With returnIdpCredential the SDKs get the credential back instead of an error.
    answer = sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub)), idToken=other["idToken"],
                     returnIdpCredential=True).execute()
    assert answer["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED" and answer["oauthIdToken"] and "idToken" not in answer
    # A second user of the same provider on one account.
    second = user(configured, email=unique_email("second"), email_verified=True)
    assert failure(sign_in(idp_stack, post_body(configured.id_token(CLIENT, second)), idToken=account["idToken"])) == (
        400, "PROVIDER_ALREADY_LINKED")


def test_an_untrusted_providers_email_of_another_account_needs_confirmation(idp_stack, configured):
    email = unique_email("confirm")
    existing = password_user(idp_stack, email)
    sub = user(configured, email=email, email_verified=True)
    answer = sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub))).execute()
    assert answer["needConfirmation"] is True and answer["email"] == email
    assert "idToken" not in answer and "localId" not in answer
    # The account is untouched: its password still signs in.
    assert identitytoolkit(idp_stack).accounts().signInWithPassword(body={
        "email": email, "password": "secret-pw"}).execute()["localId"] == existing["localId"]


def test_googles_verified_email_takes_an_unverified_account_from_whoever_signed_up_with_it(idp_stack, configured):
    # A Gmail address: Google is authoritative for the addresses it hosts only (issue 56, F-3).
    email = gmail("squat")
    squatter = password_user(idp_stack, email, "squatters-pw")
    sub = user(configured, email=email, email_verified=True, name="Real Owner")
    owner = sign_in(idp_stack, post_body(configured.id_token("google-web-client", sub), "google.com")).execute()
    assert owner["localId"] == squatter["localId"] and owner["federatedId"] == f"https://accounts.google.com/{sub}"
    token = claims(owner["idToken"])
    assert token["email_verified"] is True and token["firebase"]["sign_in_provider"] == "google.com"
    # The squatter's password is gone, and so are their sessions.
    assert failure(identitytoolkit(idp_stack).accounts().signInWithPassword(body={
        "email": email, "password": "squatters-pw"}))[1] in ("INVALID_PASSWORD", "INVALID_LOGIN_CREDENTIALS")
    refreshed = requests.post(f"{idp_stack.gateway}/v1/token?key=k", timeout=30,
                              data={"grant_type": "refresh_token", "refresh_token": squatter["refreshToken"]})
    assert refreshed.status_code == 400, refreshed.text
    events = requests.get(f"{idp_stack.gateway}/v2/projects/demo-project/securityEvents", headers=ADMIN, timeout=30,
                          params={"localId": owner["localId"], "eventTypes": "provider.linked"})
    assert events.status_code == 200, events.text
    [linked] = events.json()["events"]
    assert linked["details"] == {"provider": "google.com", "replaced": "unverified credentials"}
    # The proof of the address claimed the account: what the squatter held is in the record (issue 56).
    claimed = requests.get(f"{idp_stack.gateway}/v2/projects/demo-project/securityEvents", headers=ADMIN, timeout=30,
                           params={"localId": owner["localId"], "eventTypes": "account.claimed"}).json()["events"]
    assert [event["details"] for event in claimed] == [{"via": "trustedProvider", "password": "removed", "sessions": "ended"}]


# --- the second factor -----------------------------------------------------------------------------------------------


def test_a_provider_user_with_a_second_factor_finishes_with_it(idp_stack, configured):
    config = requests.patch(f"{idp_stack.gateway}/v2/projects/demo-project/config?updateMask=mfa", headers=ADMIN, timeout=30,
                            json={"mfa": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"], "providerConfigs": [
                                {"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}})
    assert config.status_code == 200, config.text
    sub = user(configured, email=unique_email("mfa"), email_verified=True)
    first = sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub))).execute()
    # oidc.corp is not authoritative for the address (issue 56, F-3), and a factor needs a verified
    # one: the operator verifies it.
    assert first["emailVerified"] is False
    verified = requests.post(f"{idp_stack.gateway}/v1/projects/demo-project/accounts:update", headers=ADMIN, timeout=30,
                             json={"localId": first["localId"], "emailVerified": True})
    assert verified.status_code == 200, verified.text
    first = sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub))).execute()
    totp, _ = enroll_totp(idp_stack, first["idToken"])
    pending = sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub))).execute()
    assert pending["mfaPendingCredential"] and "idToken" not in pending and pending["localId"] == first["localId"]
    assert pending["mfaInfo"][0]["totpInfo"] == {} and pending["providerId"] == OIDC
    finished = finish_totp(idp_stack, pending, totp)
    token = claims(finished["idToken"])
    assert token["firebase"]["sign_in_provider"] == OIDC and token["firebase"]["sign_in_second_factor"] == "totp"
    assert token["firebase"]["identities"][OIDC] == [sub]
    # The pending credential is used up.
    assert failure(identitytoolkit(idp_stack, "v2").accounts().mfaSignIn().finalize(body={
        "mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": pending["mfaInfo"][0]["mfaEnrollmentId"],
        "totpVerificationInfo": {"verificationCode": totp.at(time.time() + 60)}}))[1].startswith("INVALID_MFA_PENDING_CREDENTIAL")


# --- the web path ---------------------------------------------------------------------------------------------------


def test_the_web_flow_signs_in_through_the_providers_page_with_state_pkce_and_session(idp_stack, configured, admin):
    auth.create_oidc_provider_config("oidc.web", client_id="web-client", issuer=configured.issuer, enabled=True,
                                     client_secret="web-secret", code_response_type=True, id_token_response_type=False,
                                     app=admin)
    sub = user(configured, email=unique_email("web"), email_verified=True, name="Web User")
    session = secrets.token_urlsafe(16)
    started = identitytoolkit(idp_stack).accounts().createAuthUri(body={
        "providerId": "oidc.web", "continueUri": "http://localhost/callback", "sessionId": session,
        "customParameter": {"login_hint": "web@example.com"}}).execute()
    assert started["providerId"] == "oidc.web" and started["sessionId"] == session
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(started["authUri"]).query)
    assert query["client_id"] == ["web-client"] and query["response_type"] == ["code"]
    assert query["redirect_uri"] == ["http://localhost/callback"] and query["code_challenge_method"] == ["S256"]
    assert query["login_hint"] == ["web@example.com"] and query["nonce"] and query["state"]
    assert "web-secret" not in started["authUri"]
    back = configured.authorize("web-client", "", sub, authorization_url=started["authUri"])
    assert back.startswith("http://localhost/callback?")
    # Another browser's session cannot use this response.
    assert failure(identitytoolkit(idp_stack).accounts().signInWithIdp(body={
        "requestUri": back, "sessionId": "someone-else", "returnSecureToken": True})) == (
        400, "INVALID_IDP_RESPONSE : The sign-in's state belongs to another session.")
    signed_in = identitytoolkit(idp_stack).accounts().signInWithIdp(body={
        "requestUri": back, "sessionId": session, "returnSecureToken": True, "returnIdpCredential": True}).execute()
    assert signed_in["isNewUser"] is True and signed_in["providerId"] == "oidc.web" and signed_in["oauthAccessToken"]
    assert claims(signed_in["idToken"])["firebase"]["sign_in_provider"] == "oidc.web"
    # The same response again: the code is spent at the provider (and the nonce here).
    replay = failure(identitytoolkit(idp_stack).accounts().signInWithIdp(body={
        "requestUri": back, "sessionId": session, "returnSecureToken": True}))
    assert replay[0] == 400 and replay[1].split(" ")[0] in ("INVALID_IDP_RESPONSE", "MISSING_OR_INVALID_NONCE")
    # A state made up by someone else.
    forged = back.replace("state=", "state=x")
    assert failure(identitytoolkit(idp_stack).accounts().signInWithIdp(body={
        "requestUri": forged, "sessionId": session}))[1] == "INVALID_IDP_RESPONSE : The sign-in's state is unknown or has expired."


def test_create_auth_uri_refuses_continue_uris_outside_the_authorized_domains(idp_stack, configured):
    status, message = failure(identitytoolkit(idp_stack).accounts().createAuthUri(body={
        "providerId": OIDC, "continueUri": "https://evil.example/cb"}))
    assert (status, message) == (400, "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project")
    assert failure(identitytoolkit(idp_stack).accounts().createAuthUri(body={"providerId": OIDC}))[1] == "MISSING_CONTINUE_URI"
    assert failure(identitytoolkit(idp_stack).accounts().createAuthUri(body={
        "providerId": "oidc.nothing", "continueUri": "http://localhost/cb"}))[1] == (
        "OPERATION_NOT_ALLOWED : The identity provider configuration is not found.")


# --- fetchSignInMethodsForEmail ----------------------------------------------------------------------------------------


def test_create_auth_uri_tells_an_emails_sign_in_methods_unless_enumeration_protection_is_on(idp_stack, configured):
    client = identitytoolkit(idp_stack).accounts()
    email = unique_email("methods")
    password_user(idp_stack, email)
    answer = client.createAuthUri(body={"identifier": email, "continueUri": "http://localhost"}).execute()
    assert (answer["registered"], answer["signinMethods"], answer["allProviders"]) == (True, ["password"], ["password"])
    federated = unique_email("methods-idp")
    sign_in(idp_stack, post_body(configured.id_token(CLIENT, user(configured, email=federated, email_verified=True)))).execute()
    answer = client.createAuthUri(body={"identifier": federated, "continueUri": "http://localhost"}).execute()
    assert answer["signinMethods"] == [OIDC] and answer["allProviders"] == [OIDC]
    nobody = client.createAuthUri(body={"identifier": unique_email("nobody"), "continueUri": "http://localhost"}).execute()
    assert nobody["registered"] is False and nobody.get("signinMethods", []) == [] and nobody["sessionId"]
    assert failure(client.createAuthUri(body={"continueUri": "http://localhost"}))[1] == "MISSING_IDENTIFIER"
    assert failure(client.createAuthUri(body={"identifier": email}))[1] == "MISSING_CONTINUE_URI"
    assert failure(client.createAuthUri(body={"identifier": "not-an-email", "continueUri": "http://localhost"}))[1] \
        == "INVALID_IDENTIFIER"
    privacy = requests.patch(f"{idp_stack.gateway}/v2/projects/demo-project/config"
                             "?updateMask=emailPrivacyConfig.enableImprovedEmailPrivacy", headers=ADMIN, timeout=30,
                             json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}})
    assert privacy.status_code == 200, privacy.text
    try:
        hidden = client.createAuthUri(body={"identifier": email, "continueUri": "http://localhost"}).execute()
        assert set(hidden) == {"kind", "sessionId"}
    finally:
        requests.patch(f"{idp_stack.gateway}/v2/projects/demo-project/config"
                       "?updateMask=emailPrivacyConfig.enableImprovedEmailPrivacy", headers=ADMIN, timeout=30,
                       json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}})


def test_an_imported_users_google_link_signs_them_in_to_their_imported_account(idp_stack, configured, admin):
    """A Firebase project moved in (issue 41 with 42): the Admin SDK imports a user with their Google
    link (`provider_data`), and the Google sign-in lands in that account, not a new one."""
    sub = user(configured, email=unique_email("imported"), email_verified=True)
    uid = "imported-" + secrets.token_hex(4)
    record = auth.ImportUserRecord(uid, email=unique_email("imported-own"), email_verified=True, provider_data=[
        auth.UserProvider(sub, "google.com", email=f"{sub}@gmail.com", display_name="Imported")])
    result = auth.import_users([record], app=admin)
    assert result.success_count == 1, [error.reason for error in result.errors]
    signed_in = sign_in(idp_stack, post_body(configured.id_token("google-web-client", sub), "google.com")).execute()
    assert signed_in["localId"] == uid and "isNewUser" not in signed_in
    # Two accounts may not claim one provider user.
    clash = auth.import_users([auth.ImportUserRecord("clash-" + secrets.token_hex(4), provider_data=[
        auth.UserProvider(sub, "google.com")])], app=admin)
    assert clash.failure_count == 1 and "already linked" in clash.errors[0].reason


def configure_apple_key(stack):
    """Apple's code flow for the project: the team's signing key (P-256), sealed, never answered."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    base = f"{stack.gateway}/v2/projects/demo-project/defaultSupportedIdpConfigs/apple.com"
    answer = requests.patch(f"{base}?updateMask=appleSignInConfig", headers=ADMIN, timeout=30, json={"appleSignInConfig": {
        "bundleIds": ["com.example.app"], "codeFlowConfig": {"teamId": "TEAM123456", "keyId": "KEY1234567", "privateKey": key}}})
    assert answer.status_code == 200, answer.text
    assert "PRIVATE KEY" not in answer.text


def test_apples_web_flow_trades_the_code_with_a_client_secret_its_key_signs(idp_stack, configured):
    """Sign in with Apple on the web: the code flow, whose client secret is a short-lived ES256 JWT that
    the team's key (sealed in the configuration) signs for each exchange."""
    configure_apple_key(idp_stack)
    sub = user(configured, email=unique_email("apple-web"), email_verified="true")
    session = secrets.token_urlsafe(16)
    started = identitytoolkit(idp_stack).accounts().createAuthUri(body={
        "providerId": "apple.com", "continueUri": "http://localhost/apple", "sessionId": session}).execute()
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(started["authUri"]).query)
    assert query["client_id"] == ["com.example.service"] and query["response_type"] == ["code"]
    # The stand-in advertises no `name` scope and no form_post: only what it knows is asked for.
    assert query["scope"] == ["openid email"] and "response_mode" not in query
    back = configured.authorize("com.example.service", "", sub, authorization_url=started["authUri"])
    signed_in = identitytoolkit(idp_stack).accounts().signInWithIdp(body={
        "requestUri": back, "sessionId": session, "returnSecureToken": True}).execute()
    assert signed_in["providerId"] == "apple.com" and signed_in["isNewUser"] is True and signed_in["emailVerified"] is True


@pytest.mark.parametrize("body", [
    {"requestUri": "http://localhost", "postBody": "%%%%&&&==="},
    {"requestUri": "http://localhost", "postBody": f"providerId={OIDC}&id_token=" + "A" * 20000},
    {"requestUri": "http://localhost", "postBody": f"providerId={OIDC}&id_token=a.b.c"},
    {"requestUri": "http://localhost", "postBody": f"providerId={OIDC}&id_token=eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."},
    {"requestUri": "x" * 20000, "postBody": "providerId=google.com"},
    {"requestUri": "http://localhost/?state=" + "B" * 5000 + "&code=c", "sessionId": "s"},
    {"requestUri": "http://localhost/?state=abc&code=c"},
    {"requestUri": "http://localhost", "pendingToken": "not-sealed"},
    {"requestUri": "http://localhost", "postBody": "providerId=" + "p" * 300 + "&id_token=a.b.c"},
    {"requestUri": "\u0000\u0001", "postBody": "providerId=google.com"},
    {"requestUri": "http://localhost", "postBody": "providerId=google.com&id_token=a.b.c", "idToken": "not-a-token"},
    {"requestUri": "http://localhost", "postBody": "providerId=google.com&id_token=a.b.c", "pendingIdToken": "x"},
])
def test_hostile_sign_in_requests_get_a_4xx_and_the_gateway_keeps_serving(idp_stack, configured, body):
    answer = requests.post(f"{idp_stack.gateway}/v1/accounts:signInWithIdp?key=k", json=body, timeout=30)
    assert 400 <= answer.status_code < 500 or answer.status_code == 501, (answer.status_code, answer.text)
    assert answer.json()["error"]["message"], answer.text
    assert requests.get(f"{idp_stack.gateway}/", timeout=30).status_code == 200


def test_a_user_unlinks_a_provider_and_an_admin_can_too(idp_stack, configured, admin):
    email = unique_email("unlink")
    account = password_user(idp_stack, email)
    sub = user(configured, email=email, email_verified=True)
    linked = sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub)), idToken=account["idToken"]).execute()
    # The SDKs' unlink: accounts:update with deleteProvider.
    updated = identitytoolkit(idp_stack).accounts().update(body={
        "idToken": linked["idToken"], "deleteProvider": [OIDC]}).execute()
    assert OIDC not in [entry["providerId"] for entry in updated.get("providerUserInfo", [])]
    # The provider user is nobody's now: with the address taken, the provider must be linked again.
    assert sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub))).execute()["needConfirmation"] is True
    events = requests.get(f"{idp_stack.gateway}/v2/projects/demo-project/securityEvents", headers=ADMIN, timeout=30,
                          params={"localId": account["localId"], "eventTypes": "provider.unlinked"}).json()["events"]
    assert [event["details"] for event in events] == [{"provider": OIDC}]
    # An admin, through firebase-admin's update_user.
    sign_in(idp_stack, post_body(configured.id_token(CLIENT, sub)), idToken=linked["idToken"]).execute()
    assert OIDC in [entry.provider_id for entry in auth.get_user(account["localId"], app=admin).provider_data]
    auth.update_user(account["localId"], providers_to_delete=[OIDC], app=admin)
    assert OIDC not in [entry.provider_id for entry in auth.get_user(account["localId"], app=admin).provider_data]


def test_a_sign_in_with_apple_users_token_is_revoked_at_the_provider_with_the_apps_secret(idp_stack, configured):
    """What an app does when a Sign in with Apple user deletes their account (v2/accounts:revokeToken):
    the token revoked at the provider's RFC 7009 endpoint, with the client secret Apple's key signs."""
    import jwt as pyjwt

    configure_apple_key(idp_stack)
    sub = user(configured, email=unique_email("revoke"), email_verified="true")
    signed_in = sign_in(idp_stack, post_body(configured.id_token("com.example.app", sub), "apple.com")).execute()
    revoke = identitytoolkit(idp_stack, "v2").accounts().revokeToken
    assert revoke(body={"idToken": signed_in["idToken"], "providerId": "apple.com", "tokenType": "ACCESS_TOKEN",
                        "token": "apple-access-token-1"}).execute() == {}
    request = configured.revoked[-1]
    assert (request["token"], request["token_type_hint"], request["client_id"]) == (
        "apple-access-token-1", "access_token", "com.example.service")
    secret = pyjwt.decode(request["client_secret"], options={"verify_signature": False})
    assert (secret["iss"], secret["sub"], pyjwt.get_unverified_header(request["client_secret"])["alg"]) == (
        "TEAM123456", "com.example.service", "ES256")
    # iOS sends a code, its token type as a number in a string: the code is traded, then revoked.
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(configured.authorize(
        "com.example.service", "https://app.example/cb", sub, state="s")).query)["code"][0]
    assert requests.post(f"{idp_stack.gateway}/v2/accounts:revokeToken?key=k", timeout=30, json={
        "idToken": signed_in["idToken"], "providerId": "apple.com", "tokenType": "3", "token": code,
        "redirectUri": "https://app.example/cb"}).status_code == 200
    assert configured.revoked[-1]["token_type_hint"] == "refresh_token"
    # Only the user's own link's tokens; and only a signed-in user's.
    other = password_user(idp_stack, unique_email("no-apple"))
    assert failure(revoke(body={"idToken": other["idToken"], "providerId": "apple.com", "tokenType": "ACCESS_TOKEN",
                                "token": "x"})) == (400, "INVALID_PROVIDER_ID : The user has no apple.com link.")
    assert failure(revoke(body={"providerId": "apple.com", "tokenType": "ACCESS_TOKEN", "token": "x"}))[1] == "MISSING_ID_TOKEN"


def test_a_disabled_account_is_not_taken_over_by_a_providers_verified_email(idp_stack, configured, admin):
    email = gmail("disabled")  # Google is authoritative for it (issue 56, F-3)
    record = auth.create_user(email=email, password="keeps-this-pw", disabled=True, app=admin)
    sub = user(configured, email=email, email_verified=True)
    assert failure(sign_in(idp_stack, post_body(configured.id_token("google-web-client", sub), "google.com"))) == (
        400, "USER_DISABLED")
    providers = [entry.provider_id for entry in auth.get_user(record.uid, app=admin).provider_data]
    assert "google.com" not in providers and "password" in providers
