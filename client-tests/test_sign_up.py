"""v1/accounts:signUp as an app calls it, with the contract's check order and exact error strings (§2.1)."""

import secrets

import jwt
import pytest
import requests

SIGN_UP = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=any-key"


def sign_up(stack, **body):
    return requests.post(stack.gateway + SIGN_UP, json=body, timeout=30)


def verified_claims(stack, token):
    jwks = requests.get(stack.gateway + "/.well-known/jwks.json", timeout=10).json()
    key = jwt.PyJWKSet.from_dict(jwks)[jwt.get_unverified_header(token)["kid"]]
    return jwt.decode(token, key.key, algorithms=["RS256"], audience="demo-project",
                      issuer="https://securetoken.google.com/demo-project")


def unique_email():
    return f"user-{secrets.token_hex(6)}@example.com"


def test_email_password_sign_up_returns_an_account_and_tokens(stack):
    email = unique_email()
    answer = sign_up(stack, email=email, password="correct horse", displayName="Ada", returnSecureToken=True,
                     clientType="CLIENT_TYPE_WEB")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["kind"] == "identitytoolkit#SignupNewUserResponse"
    assert len(body["localId"]) == 28 and body["localId"].isalnum()
    assert body["email"] == email and body["displayName"] == "Ada"
    assert body["expiresIn"] == "3600" and body["refreshToken"]
    claims = verified_claims(stack, body["idToken"])
    assert claims["sub"] == body["localId"]
    assert claims["email"] == email and claims["email_verified"] is False
    assert claims["firebase"] == {"identities": {"email": [email]}, "sign_in_provider": "password"}


def test_the_password_is_stored_only_as_a_firebase_scrypt_verifier(stack):
    email = unique_email()
    sign_up(stack, email=email, password="a very secret password").raise_for_status()
    stored = stack.query("factor-registry",
                         f"SELECT password_hash FROM \"p_demo-project\".accounts WHERE email = '{email}'")
    assert len(stored) == 1
    assert stored[0].startswith("firebase-scrypt$")
    assert "secret" not in stored[0]


def test_anonymous_sign_up(stack):
    body = sign_up(stack, returnSecureToken=True).json()
    assert "email" not in body
    claims = verified_claims(stack, body["idToken"])
    assert claims["provider_id"] == "anonymous"
    assert claims["firebase"] == {"identities": {}, "sign_in_provider": "anonymous"}


def test_an_email_is_taken_whatever_its_case(stack):
    email = unique_email()
    sign_up(stack, email=email, password="first password").raise_for_status()
    answer = sign_up(stack, email=email.upper(), password="second password")
    assert answer.status_code == 400
    assert answer.json()["error"] == {
        "code": 400, "message": "EMAIL_EXISTS",
        "errors": [{"message": "EMAIL_EXISTS", "reason": "invalid", "domain": "global"}],
    }


@pytest.mark.parametrize("body, message", [
    ({"password": "secret123"}, "MISSING_EMAIL"),
    ({"email": "a@example.com"}, "MISSING_PASSWORD"),
    ({"email": "not-an-email", "password": "secret123"}, "INVALID_EMAIL"),
    ({"email": "a b@example.com", "password": "secret123"}, "INVALID_EMAIL"),
    ({"email": "a@example.com", "password": "12345"}, "WEAK_PASSWORD : Password should be at least 6 characters"),
    ({"email": "a@example.com", "password": "secret123", "localId": "chosen"}, "UNEXPECTED_PARAMETER : User ID"),
    ({"email": "a@example.com", "password": "secret123", "tenantId": "NoSuchTenant"}, "TENANT_NOT_FOUND"),
    ({"email": "a@example.com", "password": "secret123", "targetProjectId": "demo-project"},
     "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id."),
])
def test_each_check_answers_the_contract_error(stack, body, message):
    answer = sign_up(stack, **body)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == message
    assert "status" not in answer.json()["error"]


def test_a_missing_check_order_the_email_comes_before_the_password(stack):
    # Both wrong: the email is reported first.
    assert sign_up(stack, email="bad", password="1").json()["error"]["message"] == "INVALID_EMAIL"


def test_passwords_are_hashed_with_the_projects_own_scrypt_parameters(stack):
    email = f"params-{secrets.token_hex(6)}@example.com"
    answer = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                           json={"email": email, "password": "secret-pw"}, timeout=30)
    assert answer.status_code == 200, answer.text
    stored = stack.query("factor-registry",
                         f"""SELECT password_hash FROM "p_demo-project".accounts WHERE email = '{email}'""")
    # The conftest stack sets N = 1024 for all and N = 2048 (memory cost 11) for demo-project.
    assert stored[0].startswith("firebase-scrypt$11$8$") and "secret-pw" not in stored[0]
