"""Deleting an account deletes what other services hold for it: its sessions and pending sign-ins
(session-token), its TOTP secrets and verification sessions (challenge-issuer). An account created
later with the same uid inherits none of it."""

import secrets
import time

import pytest
import requests

import test_mfa_totp as totp_flow
from mfa_helpers import ADMIN, error, v1, verified_user
from test_mfa_faults import rpc

TOKEN = "/securetoken.googleapis.com/v1/token?key=k"
ADMIN_BASE = "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts"


def refresh(stack, token):
    return requests.post(stack.gateway + TOKEN, data={"grant_type": "refresh_token", "refresh_token": token}, timeout=30)


def create_with_uid(stack, uid, email, password="secret-pw"):
    created = requests.post(stack.gateway + ADMIN_BASE, json={"localId": uid, "email": email, "password": password},
                            headers=ADMIN, timeout=30)
    assert created.status_code == 200, created.text


def signed_in_with_uid(stack, uid):
    email = f"{uid}-{secrets.token_hex(3)}@example.com"
    create_with_uid(stack, uid, email)
    signed_in = v1(stack, "signInWithPassword", email=email, password="secret-pw")
    assert signed_in.status_code == 200, signed_in.text
    return signed_in.json()


def stored(stack, service, table, uid):
    return int(stack.query(service, f"""SELECT count(*) FROM "p_demo-project".{table} WHERE local_id = '{uid}'""")[0])


@pytest.mark.parametrize("how", ["self", "admin", "batch", "batch-of-disabled"])
def test_a_recreated_uid_inherits_no_session_of_the_deleted_account(stack, how):
    uid = f"reused-{secrets.token_hex(4)}"
    old = signed_in_with_uid(stack, uid)
    assert stored(stack, "session-token", "session_families", uid) == 1
    if how == "self":
        answer = v1(stack, "delete", idToken=old["idToken"])
    elif how == "admin":
        answer = requests.post(stack.gateway + ADMIN_BASE + ":delete", json={"localId": uid}, headers=ADMIN, timeout=30)
    elif how == "batch":
        answer = requests.post(stack.gateway + ADMIN_BASE + ":batchDelete", json={"localIds": [uid], "force": True},
                               headers=ADMIN, timeout=30)
    else:
        # Without force only disabled accounts go, and they are forgotten after the deletion.
        disabled = requests.post(stack.gateway + ADMIN_BASE + ":update", json={"localId": uid, "disableUser": True},
                                 headers=ADMIN, timeout=30)
        assert disabled.status_code == 200, disabled.text
        answer = requests.post(stack.gateway + ADMIN_BASE + ":batchDelete", json={"localIds": [uid, "kept-" + uid]},
                               headers=ADMIN, timeout=30)
        assert answer.json() == {}, answer.text
    assert answer.status_code == 200, answer.text
    assert stored(stack, "session-token", "session_families", uid) == 0
    assert stored(stack, "session-token", "refresh_tokens", uid) == 0
    # Someone else gets the uid, in a later second than the old sign-in (tokens count whole seconds);
    # the old sign-in's tokens do not open their account.
    time.sleep(1.05)
    create_with_uid(stack, uid, f"new-owner-{secrets.token_hex(3)}@example.com")
    assert error(refresh(stack, old["refreshToken"])) == "INVALID_REFRESH_TOKEN"
    assert error(v1(stack, "lookup", idToken=old["idToken"])) == "USER_NOT_FOUND"


def test_deleting_an_account_deletes_its_totp_secrets_and_pending_sign_ins(stack):
    user = verified_user(stack)
    uid = user["localId"]
    totp_flow.enroll_totp(stack, user)
    pending = totp_flow.sign_in_pending(stack, user)
    assert stored(stack, "challenge-issuer", "totp_factors", uid) == 1
    assert stored(stack, "session-token", "mfa_pending_credentials", uid) == 1
    deleted = requests.post(stack.gateway + ADMIN_BASE + ":delete", json={"localId": uid}, headers=ADMIN, timeout=30)
    assert deleted.status_code == 200, deleted.text
    assert stored(stack, "challenge-issuer", "totp_factors", uid) == 0
    assert stored(stack, "challenge-issuer", "verification_sessions", uid) == 0
    assert stored(stack, "session-token", "mfa_pending_credentials", uid) == 0
    assert stored(stack, "session-token", "session_families", uid) == 0
    assert pending["mfaPendingCredential"]


def test_a_session_left_behind_does_not_open_a_new_account_with_the_uid(stack):
    """As if a sign-in finished after the deletion's last pass: the account is deleted in factor-registry
    alone (the RPC the gateway sends), so the old session stays stored."""
    uid = f"left-{secrets.token_hex(4)}"
    old = signed_in_with_uid(stack, uid)
    deleted = rpc(stack, "factor-registry", "account.delete", {"projectId": "demo-project", "localId": uid})
    assert "error" not in deleted, deleted
    assert stored(stack, "session-token", "session_families", uid) == 1
    time.sleep(1.05)
    create_with_uid(stack, uid, f"new-owner-{secrets.token_hex(3)}@example.com")
    assert error(refresh(stack, old["refreshToken"])) == "INVALID_REFRESH_TOKEN"
    assert error(v1(stack, "lookup", idToken=old["idToken"])) == "USER_NOT_FOUND"
    # The new owner's own sign-ins work.
    fresh = v1(stack, "signUp", email=f"fresh-{secrets.token_hex(3)}@example.com", password="secret-pw").json()
    assert refresh(stack, fresh["refreshToken"]).status_code == 200
    assert v1(stack, "lookup", idToken=fresh["idToken"]).status_code == 200

