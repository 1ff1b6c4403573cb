"""Passkeys (issue 59) in production mode: a stack started as docker-compose.yml starts it, the
operator's admin token on the admin listener, the public API over TLS with signed tokens checked
against the published keys. A passkey enrolls and signs in; a forged assertion is refused."""

import secrets

import jwt
import pytest
import requests

from production_stack import running
from soft_authenticator import Authenticator

RP_ID, ORIGIN = "auth.example.com", "https://auth.example.com"
V1 = "/identitytoolkit.googleapis.com/v1/"
V2 = "/identitytoolkit.googleapis.com/v2/"


@pytest.fixture(scope="module")
def production():
    with running() as stack:
        admin = {"Authorization": f"Bearer {stack.admin_token}"}
        configured = requests.patch(f"{stack.admin_url}/v2/projects/demo-project/passkeyConfig", headers=admin, timeout=30,
                                    json={"rpId": RP_ID, "expectedOrigins": [ORIGIN]})
        assert configured.status_code == 200, configured.text
        yield stack


def call(stack, path, **body):
    answer = requests.post(f"{stack.gateway_tls}{path}?key={stack.api_key}", json=body, timeout=30, verify=str(stack.public_ca))
    return answer


def test_a_passkey_enrolls_and_signs_in_and_a_forgery_does_not(production):
    stack = production
    signed_up = call(stack, V1 + "accounts:signUp", email=f"pk-{secrets.token_hex(5)}@example.com", password="Correct-horse-1",
                     returnSecureToken=True).json()
    device = Authenticator(ORIGIN)
    options = call(stack, V2 + "accounts/passkeyEnrollment:start", idToken=signed_up["idToken"]).json()["credentialCreationOptions"]
    assert options["rp"]["id"] == RP_ID
    enrolled = call(stack, V2 + "accounts/passkeyEnrollment:finalize", idToken=signed_up["idToken"], name="Laptop",
                    authenticatorRegistrationResponse=device.create(options, "EdDSA").body)
    assert enrolled.status_code == 200, enrolled.text
    request = call(stack, V2 + "accounts/passkeySignIn:start").json()["credentialRequestOptions"]
    forged = call(stack, V2 + "accounts/passkeySignIn:finalize",
                  authenticatorAuthenticationResponse=device.get(request, spoil_signature=True).body)
    assert forged.json()["error"]["message"] == "INVALID_AUTHENTICATOR_RESPONSE"
    request = call(stack, V2 + "accounts/passkeySignIn:start").json()["credentialRequestOptions"]
    signed_in = call(stack, V2 + "accounts/passkeySignIn:finalize", authenticatorAuthenticationResponse=device.get(request).body)
    assert signed_in.status_code == 200, signed_in.text
    keys = jwt.PyJWKClient(f"{stack.gateway}/.well-known/jwks.json")
    token = signed_in.json()["idToken"]
    claims = jwt.decode(token, keys.get_signing_key_from_jwt(token).key, algorithms=["RS256"], audience="demo-project")
    assert claims["sub"] == signed_up["localId"] and claims["firebase"]["sign_in_provider"] == "passkey"
