"""Decision 18: changing the password or email, deleting the account, and enrolling or withdrawing a
second factor need a recent sign-in. The attack: a stolen refresh token mints fresh ID tokens, but
their auth_time stays that of the old sign-in, so it cannot strip the factors and take the account."""

import time

import pyotp
import pytest
import requests

from conftest import another_stack
from mfa_helpers import error, v1, v2, verified_user

# Per-project window (recentLogin.projects), short enough for a test to outlive it.
WINDOW = 4


@pytest.fixture(scope="module")
def short_window(stack):
    with another_stack(stack, "recent-login", mode="development",
                       extra_env={"RECENT_LOGIN_PROJECTS": f"demo-project={WINDOW}"}) as running:
        yield running


def refreshed(stack, refresh_token):
    answer = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                           data={"grant_type": "refresh_token", "refresh_token": refresh_token}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["id_token"]


def enroll_totp(stack, id_token):
    started = v2(stack, "mfaEnrollment:start", idToken=id_token, totpEnrollmentInfo={})
    assert started.status_code == 200, started.text
    info = started.json()["totpSessionInfo"]
    finalized = v2(stack, "mfaEnrollment:finalize", idToken=id_token, totpVerificationInfo={
        "sessionInfo": info["sessionInfo"], "verificationCode": pyotp.TOTP(info["sharedSecretKey"]).now()})
    assert finalized.status_code == 200, finalized.text
    return finalized.json()


def test_a_refreshed_token_from_an_old_sign_in_cannot_change_what_protects_the_account(short_window):
    user = verified_user(short_window)
    enrolled = enroll_totp(short_window, user["idToken"])
    enrollment_id = v1(short_window, "lookup", idToken=enrolled["idToken"]).json()["users"][0]["mfaInfo"][0]["mfaEnrollmentId"]
    time.sleep(WINDOW + 1.5)
    # What an attacker holding only the refresh token has: a valid, fresh ID token of an old sign-in.
    stolen = refreshed(short_window, enrolled["refreshToken"])
    too_old = "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    assert error(v1(short_window, "update", idToken=stolen, password="attacker-pw")) == too_old
    assert error(v1(short_window, "update", idToken=stolen, email="attacker@example.com")) == too_old
    assert error(v2(short_window, "mfaEnrollment:withdraw", idToken=stolen, mfaEnrollmentId=enrollment_id)) == too_old
    assert error(v2(short_window, "mfaEnrollment:start", idToken=stolen, totpEnrollmentInfo={})) == too_old
    assert error(v1(short_window, "delete", idToken=stolen)) == too_old
    # Nothing changed: the old password still signs in, and the factor is still asked for.
    pending = v1(short_window, "signInWithPassword", email=user["email"], password=user["password"])
    assert pending.status_code == 200 and "mfaPendingCredential" in pending.json(), pending.text
    # Harmless changes still work with the old sign-in.
    renamed = v1(short_window, "update", idToken=stolen, displayName="Still me")
    assert renamed.status_code == 200, renamed.text


def test_a_fresh_sign_in_may_change_the_password_and_delete_the_account(short_window):
    user = verified_user(short_window)
    time.sleep(WINDOW + 1.5)
    old = refreshed(short_window, user["refreshToken"])
    assert error(v1(short_window, "update", idToken=old, password="new-password")) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    again = v1(short_window, "signInWithPassword", email=user["email"], password=user["password"]).json()
    changed = v1(short_window, "update", idToken=again["idToken"], password="new-password")
    assert changed.status_code == 200, changed.text
    # The tokens a change answers with keep the sign-in's time: still recent, so deleting works.
    deleted = v1(short_window, "delete", idToken=changed.json()["idToken"])
    assert deleted.status_code == 200, deleted.text


def test_the_default_window_lets_a_new_sign_in_act_at_once(stack):
    user = verified_user(stack)
    changed = v1(stack, "update", idToken=user["idToken"], password="another-secret")
    assert changed.status_code == 200, changed.text
