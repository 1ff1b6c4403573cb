"""v1/accounts:signInWithPassword without second factors (§2.2): tokens, check order, error strings."""

import secrets
import time

import jwt
import pytest
import requests

SIGN_UP = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"
SIGN_IN = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k"
PASSWORD = "Tr0ub4dor&3-" + secrets.token_hex(4)


@pytest.fixture(scope="module")
def account(stack):
    email = f"signin-{secrets.token_hex(6)}@example.com"
    answer = requests.post(stack.gateway + SIGN_UP, json={"email": email, "password": PASSWORD, "displayName": "Grace"},
                           timeout=30)
    answer.raise_for_status()
    return {"email": email, "localId": answer.json()["localId"]}


def sign_in(stack, **body):
    return requests.post(stack.gateway + SIGN_IN, json=body, timeout=30)


def test_correct_credentials_return_tokens(stack, account):
    before = int(time.time())
    answer = sign_in(stack, email=account["email"].upper(), password=PASSWORD, returnSecureToken=True,
                     clientType="CLIENT_TYPE_WEB")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["kind"] == "identitytoolkit#VerifyPasswordResponse"
    assert body["registered"] is True
    assert body["localId"] == account["localId"]
    assert body["email"] == account["email"] and body["displayName"] == "Grace"
    assert body["expiresIn"] == "3600" and body["refreshToken"]
    claims = jwt.decode(body["idToken"], options={"verify_signature": False})
    assert claims["sub"] == account["localId"]
    assert claims["firebase"]["sign_in_provider"] == "password"
    assert before - 1 <= claims["auth_time"] <= int(time.time()) + 1


@pytest.mark.parametrize("body, message", [
    ({"password": "x"}, "MISSING_EMAIL"),
    ({"email": "nope", "password": "x"}, "INVALID_EMAIL"),
    ({"email": "nope"}, "INVALID_EMAIL"),
    ({"email": "someone@example.com"}, "MISSING_PASSWORD"),
    ({"email": "nobody-here@example.com", "password": "whatever1"}, "EMAIL_NOT_FOUND"),
    ({"email": "a@example.com", "password": "whatever1", "tenantId": "NoSuchTenant"}, "TENANT_NOT_FOUND"),
])
def test_each_check_answers_the_contract_error(stack, body, message):
    answer = sign_in(stack, **body)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == message


def test_a_wrong_password_is_invalid_password(stack, account):
    answer = sign_in(stack, email=account["email"], password=PASSWORD + "x")
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == "INVALID_PASSWORD"


def test_no_password_reaches_any_log(stack, account):
    sign_in(stack, email=account["email"], password=PASSWORD)
    sign_in(stack, email=account["email"], password=PASSWORD + "-wrong")
    for service in ["gateway", "factor-registry", "challenge-issuer", "session-token"]:
        log = stack.log_path(service).read_text(errors="replace")
        assert PASSWORD not in log, service
