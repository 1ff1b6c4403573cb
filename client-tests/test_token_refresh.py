"""securetoken v1/token: rotation on every use, reuse revokes the whole family (decision 2), §2.14 errors."""

import base64
import hashlib
import secrets

import jwt
import pytest
import requests

SIGN_UP = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"
TOKEN = "/securetoken.googleapis.com/v1/token?key=k"


def new_session(stack):
    answer = requests.post(stack.gateway + SIGN_UP, json={"email": f"r-{secrets.token_hex(6)}@example.com",
                                                          "password": "refresh-me"}, timeout=30)
    answer.raise_for_status()
    return answer.json()


def refresh_form(stack, token):
    # The JS SDK sends a form.
    return requests.post(stack.gateway + TOKEN, data={"grant_type": "refresh_token", "refresh_token": token}, timeout=30)


def test_a_refresh_returns_snake_case_tokens_that_keep_the_sign_in(stack):
    session = new_session(stack)
    first = jwt.decode(session["idToken"], options={"verify_signature": False})
    answer = refresh_form(stack, session["refreshToken"])
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body) == {"id_token", "access_token", "expires_in", "refresh_token", "token_type", "user_id", "project_id"}
    assert body["access_token"] == body["id_token"]
    assert body["token_type"] == "Bearer" and body["expires_in"] == "3600"
    assert body["user_id"] == session["localId"] and body["project_id"] == "12345"
    assert body["refresh_token"] != session["refreshToken"]
    jwks = requests.get(stack.gateway + "/.well-known/jwks.json", timeout=10).json()
    key = jwt.PyJWKSet.from_dict(jwks)[jwt.get_unverified_header(body["id_token"])["kid"]]
    claims = jwt.decode(body["id_token"], key.key, algorithms=["RS256"], audience="demo-project")
    assert claims["sub"] == session["localId"]
    assert claims["auth_time"] == first["auth_time"]
    assert claims["firebase"]["sign_in_provider"] == "password"


def test_json_bodies_work_too(stack):
    session = new_session(stack)
    answer = requests.post(stack.gateway + TOKEN, json={"grantType": "refresh_token",
                                                        "refreshToken": session["refreshToken"]}, timeout=30)
    assert answer.status_code == 200, answer.text


def test_reusing_a_rotated_token_revokes_the_whole_family(stack):
    session = new_session(stack)
    rotated = refresh_form(stack, session["refreshToken"]).json()["refresh_token"]
    reused = refresh_form(stack, session["refreshToken"])
    assert reused.status_code == 400
    assert reused.json()["error"]["message"] == "INVALID_REFRESH_TOKEN"
    # The token the legitimate client got is dead too: the family is revoked.
    assert refresh_form(stack, rotated).json()["error"]["message"] == "INVALID_REFRESH_TOKEN"
    # Another sign-in of the same user is not affected.
    assert refresh_form(stack, new_session(stack)["refreshToken"]).status_code == 200


def forged_scope_token():
    scope = base64.urlsafe_b64encode(b"demo-project/SomeOtherTenant").rstrip(b"=").decode()
    return scope + "." + secrets.token_urlsafe(32)


@pytest.mark.parametrize("body, message", [
    ({"refresh_token": "x"}, "MISSING_GRANT_TYPE"),
    ({"grant_type": "authorization_code", "refresh_token": "x"}, "INVALID_GRANT_TYPE"),
    ({"grant_type": "refresh_token"}, "MISSING_REFRESH_TOKEN"),
    ({"grant_type": "refresh_token", "refresh_token": "garbage"}, "INVALID_REFRESH_TOKEN"),
    ({"grant_type": "refresh_token", "refresh_token": "ZGVtby1wcm9qZWN0." + "A" * 43}, "INVALID_REFRESH_TOKEN"),
    ({"grant_type": "refresh_token", "refresh_token": forged_scope_token()}, "INVALID_REFRESH_TOKEN"),
    ({"grant_type": "refresh_token", "refresh_token": "'; DROP TABLE refresh_tokens; --." + "A" * 43},
     "INVALID_REFRESH_TOKEN"),
])
def test_each_check_answers_the_contract_error(stack, body, message):
    answer = requests.post(stack.gateway + TOKEN, data=body, timeout=30)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == message


def test_refresh_tokens_are_stored_only_as_hashes(stack):
    session = new_session(stack)
    token = session["refreshToken"]
    digest = hashlib.sha256(token.encode()).hexdigest()
    stored = stack.query("session-token",
                         f"SELECT count(*) FROM \"p_demo-project\".refresh_tokens WHERE token_hash = '\\x{digest}'::bytea")
    assert stored == ["1"]
    dump = stack.query("session-token", "SELECT string_agg(t::text, ' ') FROM \"p_demo-project\".refresh_tokens t")
    assert token not in dump[0] and token.split(".")[1] not in dump[0]
