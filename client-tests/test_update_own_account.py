"""v1/accounts:update by the signed-in user (§2.4): profile changes, password and email changes that end
earlier sessions and return fresh tokens, and the refusals."""

import secrets
import time

import jwt
import pytest
import requests

BASE = "/identitytoolkit.googleapis.com/v1/accounts:"


def call(stack, operation, **body):
    return requests.post(f"{stack.gateway}{BASE}{operation}?key=k", json=body, timeout=30)


@pytest.fixture
def session(stack):
    email = f"self-{secrets.token_hex(6)}@example.com"
    signed_up = call(stack, "signUp", email=email, password="original-pw").json()
    return {"email": email, **signed_up}


def test_display_name_changes_without_new_tokens(stack, session):
    answer = call(stack, "update", idToken=session["idToken"], displayName="New Name", returnSecureToken=True)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["kind"] == "identitytoolkit#SetAccountInfoResponse"
    assert body["displayName"] == "New Name" and "idToken" not in body
    removed = call(stack, "update", idToken=session["idToken"], deleteAttribute=["DISPLAY_NAME"]).json()
    assert "displayName" not in removed


def test_a_password_change_returns_tokens_and_ends_older_sessions(stack, session):
    time.sleep(1.1)  # validSince has one-second resolution
    answer = call(stack, "update", idToken=session["idToken"], password="changed-pw", returnSecureToken=True)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["idToken"] and body["refreshToken"] and body["expiresIn"] == "3600"
    claims = jwt.decode(body["idToken"], options={"verify_signature": False})
    assert claims["firebase"]["sign_in_provider"] == "password"
    # The old ID token and refresh token are revoked; the new ones work.
    assert call(stack, "lookup", idToken=session["idToken"]).json()["error"]["message"] == "TOKEN_EXPIRED"
    old_refresh = requests.post(stack.gateway + "/securetoken.googleapis.com/v1/token?key=k",
                                data={"grant_type": "refresh_token", "refresh_token": session["refreshToken"]}, timeout=30)
    assert old_refresh.json()["error"]["message"] == "TOKEN_EXPIRED"
    assert call(stack, "lookup", idToken=body["idToken"]).status_code == 200
    assert call(stack, "signInWithPassword", email=session["email"], password="changed-pw").status_code == 200
    assert call(stack, "signInWithPassword", email=session["email"], password="original-pw").json()["error"]["message"] \
        == "INVALID_PASSWORD"


def test_an_email_change_unverifies_and_refuses_a_taken_address(stack, session):
    other = call(stack, "signUp", email=f"taken-{secrets.token_hex(6)}@example.com", password="whatever1").json()
    taken = call(stack, "update", idToken=session["idToken"], email=other["email"])
    assert taken.json()["error"]["message"] == "EMAIL_EXISTS"
    assert call(stack, "update", idToken=session["idToken"], email="bad").json()["error"]["message"] == "INVALID_EMAIL"
    new_email = f"moved-{secrets.token_hex(6)}@example.com"
    moved = call(stack, "update", idToken=session["idToken"], email=new_email).json()
    assert moved["email"] == new_email and moved["emailVerified"] is False and moved["idToken"]


@pytest.mark.parametrize("body, message", [
    ({"displayName": "x"}, "INVALID_REQ_TYPE : Unsupported request parameters."),
    ({"oobCode": "never-issued"}, "INVALID_OOB_CODE"),
])
def test_requests_without_a_credential_are_refused(stack, body, message):
    assert call(stack, "update", **body).json()["error"]["message"] == message


def test_users_cannot_disable_themselves_or_set_claims(stack, session):
    assert call(stack, "update", idToken=session["idToken"], disableUser=True).json()["error"]["message"] \
        == "OPERATION_NOT_ALLOWED"
    assert call(stack, "update", idToken=session["idToken"], customAttributes='{"admin":true}').json()["error"]["message"] \
        == "INSUFFICIENT_PERMISSION"
    assert call(stack, "update", idToken=session["idToken"], password="12345").json()["error"]["message"] \
        == "WEAK_PASSWORD : Password should be at least 6 characters"
