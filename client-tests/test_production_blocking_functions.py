"""Issue 44 in production mode: the functions are called over HTTPS only (their certificate from a
stand-in public CA, trusted through `blockingFunctions.trustRoots` as a deployment trusts a public
one), and every event token they receive is checked against the gateway's published keys before the
Firebase Functions SDK's handler runs (functions_server.py `--jwks`): RS256, `aud` the function's own
URL, `iss` `https://securetoken.google.com/demo-project`. The operator's admin credential configures
them; the project's own API key signs users up."""

import secrets
import tempfile
import time
from pathlib import Path

import jwt
import pyotp
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

import blocking_functions
from production_stack import running

V1 = "/identitytoolkit.googleapis.com/v1/accounts:"
V2 = "/identitytoolkit.googleapis.com/v2/accounts/"


def call(stack, prefix, operation, **body):
    return requests.post(f"{stack.gateway}{prefix}{operation}?key={stack.api_key}", json=body, timeout=30)


def verified(stack, token):
    keys = jwt.PyJWKClient(f"{stack.gateway}/.well-known/jwks.json")
    return jwt.decode(token, keys.get_signing_key_from_jwt(token).key, algorithms=["RS256"], audience="demo-project")


def test_blocking_functions_over_https_with_event_tokens_signed_by_the_published_keys():
    with tempfile.TemporaryDirectory(prefix="mfa-functions-") as directory:
        ca = blocking_functions.issue(Path(directory))
        gateway_env = {"BLOCKING_FUNCTIONS_TRUST_ROOTS": str(ca), "BLOCKING_FUNCTIONS_ALLOW_PRIVATE_ADDRESSES": "true"}
        with running(extra_env={"gateway": gateway_env}) as stack, blocking_functions.running(
                Path(directory), tls=True, jwks=f"{stack.gateway}/.well-known/jwks.json") as functions:
            admin = {"Authorization": f"Bearer {stack.admin_token}"}
            config = f"{stack.admin_url}/v2/projects/demo-project/config"
            # Plain HTTP is refused when stored.
            plain = requests.patch(f"{config}?updateMask=blockingFunctions", headers=admin, timeout=30, json={
                "blockingFunctions": {"triggers": {"beforeCreate": {"functionUri": "http://127.0.0.1:1/before_created"}}}})
            assert plain.status_code == 400
            assert plain.json()["error"]["message"] == (
                "INVALID_CONFIG : blockingFunctions.triggers.beforeCreate.functionUri must be an https URL in production")
            mfa = {"state": "ENABLED", "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}
            stored = requests.patch(f"{config}?updateMask=blockingFunctions,mfa", headers=admin, timeout=30, json={
                "mfa": mfa, "blockingFunctions": blocking_functions.triggers(
                    functions, beforeCreate="before_created", beforeSignIn="before_signed_in")})
            assert stored.status_code == 200, stored.text

            # A sign-up the function refuses leaves nothing; one it allows carries its claims.
            refused = call(stack, V1, "signUp", email=f"eve-{secrets.token_hex(4)}@blocked.example", password="Correct-horse-1")
            assert refused.status_code == 400
            assert "Sign-ups from blocked.example are closed" in refused.json()["error"]["message"]
            email, password = f"staff-{secrets.token_hex(5)}@example.com", "Correct-horse-1"
            signed_up = call(stack, V1, "signUp", email=email, password=password)
            assert signed_up.status_code == 200, signed_up.text
            token = verified(stack, signed_up.json()["idToken"])
            assert token["role"] == "staff" and token["name"] == "Staff member" and token["second_factors"] == []

            # After a TOTP second factor: the session's claims name it.
            local_id = signed_up.json()["localId"]
            marked = requests.post(f"{stack.admin_url}/v1/projects/demo-project/accounts:update", headers=admin, timeout=30,
                                   json={"localId": local_id, "emailVerified": True})
            assert marked.status_code == 200, marked.text
            signed_in = call(stack, V1, "signInWithPassword", email=email, password=password).json()
            started = call(stack, V2, "mfaEnrollment:start", idToken=signed_in["idToken"], totpEnrollmentInfo={})
            assert started.status_code == 200, started.text
            info = started.json()["totpSessionInfo"]
            totp = pyotp.TOTP(info["sharedSecretKey"])
            enrolled = call(stack, V2, "mfaEnrollment:finalize", idToken=signed_in["idToken"],
                            totpVerificationInfo={"sessionInfo": info["sessionInfo"], "verificationCode": totp.now()})
            assert enrolled.status_code == 200, enrolled.text
            pending = call(stack, V1, "signInWithPassword", email=email, password=password).json()
            done = call(stack, V2, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                        mfaEnrollmentId=pending["mfaInfo"][0]["mfaEnrollmentId"],
                        totpVerificationInfo={"verificationCode": totp.at(time.time() + 30)})
            assert done.status_code == 200, done.text
            assert verified(stack, done.json()["idToken"])["second_factors"] == ["totp"]
            # Every event reached the SDK's handler only after its token passed the published keys.
            heard = [entry for entry in functions.events() if entry.get("email") in (email,)]
            assert [entry["event"] for entry in heard] == ["beforeCreate", "beforeSignIn", "beforeSignIn", "beforeSignIn"]
            assert heard[-1]["factors"] == ["totp"]
            # And a token signed by any other key never reaches it.
            forged = jwt.encode({"iss": "https://securetoken.google.com/demo-project", "aud": functions.uri("before_created"),
                                 "iat": int(time.time()), "exp": int(time.time()) + 60, "sub": local_id},
                                rsa.generate_private_key(public_exponent=65537, key_size=2048), algorithm="RS256",
                                headers={"kid": jwt.get_unverified_header(done.json()["idToken"])["kid"]})
            answer = requests.post(functions.uri("before_created"), json={"data": {"jwt": forged}}, verify=str(functions.ca),
                                   timeout=30)
            assert answer.status_code == 401 and answer.json()["error"]["status"] == "UNAUTHENTICATED"
