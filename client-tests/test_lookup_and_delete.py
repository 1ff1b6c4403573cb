"""The ID-token prelude (§2) through v1/accounts:lookup and v1/accounts:delete (§2.3, §2.6)."""

import secrets
import time

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

BASE = "/identitytoolkit.googleapis.com/v1/accounts:"


def call(stack, operation, **body):
    return requests.post(f"{stack.gateway}{BASE}{operation}?key=k", json=body, timeout=30)


@pytest.fixture
def user(stack):
    email = f"lookup-{secrets.token_hex(6)}@example.com"
    signed_up = call(stack, "signUp", email=email, password="look-me-up", displayName="Lin").json()
    signed_in = call(stack, "signInWithPassword", email=email, password="look-me-up").json()
    return {"email": email, **signed_in, "firstRefreshToken": signed_up["refreshToken"]}


def test_lookup_returns_the_signed_in_user(stack, user):
    answer = call(stack, "lookup", idToken=user["idToken"])
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["kind"] == "identitytoolkit#GetAccountInfoResponse"
    (info,) = body["users"]
    assert info["localId"] == user["localId"] and info["email"] == user["email"]
    assert info["emailVerified"] is False and info["disabled"] is False
    assert info["displayName"] == "Lin"
    assert info["passwordHash"] == "UkVEQUNURUQ="
    assert info["providerUserInfo"] == [{"providerId": "password", "federatedId": user["email"], "email": user["email"],
                                         "rawId": user["email"], "displayName": "Lin"}]
    assert info["createdAt"].isdigit()
    assert abs(int(info["lastLoginAt"]) / 1000 - time.time()) < 60


def forged_tokens(token):
    header = jwt.get_unverified_header(token)
    claims = jwt.decode(token, options={"verify_signature": False})
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    head, payload, signature = token.split(".")
    yield "other key, our kid", jwt.encode(claims, other_key, algorithm="RS256", headers={"kid": header["kid"]})
    yield "alg none (emulator style)", jwt.encode(claims, None, algorithm="none")
    changed = jwt.utils.base64url_encode(b'{"sub":"x"}').decode()
    yield "changed payload", f"{head}.{changed}.{signature}"
    yield "garbage", "not-a-token"


def test_tokens_that_are_not_ours_are_invalid(stack, user):
    for name, token in forged_tokens(user["idToken"]):
        answer = call(stack, "lookup", idToken=token)
        assert answer.status_code == 400, name
        assert answer.json()["error"]["message"] == "INVALID_ID_TOKEN", name


def test_missing_token_and_tenant_mismatch(stack, user):
    assert call(stack, "lookup").json()["error"]["message"] == "MISSING_ID_TOKEN"
    mismatch = call(stack, "lookup", idToken=user["idToken"], tenantId="SomeTenant")
    assert mismatch.json()["error"]["message"] == "TENANT_ID_MISMATCH"


def test_delete_removes_the_account_and_its_sessions_stop(stack, user):
    answer = call(stack, "delete", idToken=user["idToken"])
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"kind": "identitytoolkit#DeleteAccountResponse"}
    assert call(stack, "lookup", idToken=user["idToken"]).json()["error"]["message"] == "USER_NOT_FOUND"
    refresh = requests.post(stack.gateway + "/securetoken.googleapis.com/v1/token?key=k",
                            data={"grant_type": "refresh_token", "refresh_token": user["refreshToken"]}, timeout=30)
    assert refresh.json()["error"]["message"] == "INVALID_REFRESH_TOKEN"
    again = call(stack, "signInWithPassword", email=user["email"], password="look-me-up")
    assert again.json()["error"]["message"] == "EMAIL_NOT_FOUND"
