"""What the services delete, and when (docs/architecture.md, "Retention"): expired verification
sessions and out-of-band codes after a grace period in which they still say they expired, used
verification sessions with them (kept for a retry of the finalize that used them), full rate-limit buckets, rotated refresh tokens and revoked sessions
after their retention. Each check also shows that what is kept still works."""

import hashlib
import os
import time

import pytest
import requests

from conftest import another_stack
from mfa_helpers import RECAPTCHA, error, sms_code, unique_phone, v1, v2, verified_user

LIFETIME = 2  # SMS sessions and out-of-band codes
GRACE = 3  # how long past their expiry they are kept
RETENTION = 3  # rotated refresh tokens and revoked sessions
OUTBOX_RETENTION = 4  # what the development sink kept for the emulator's routes
TOKEN = "/securetoken.googleapis.com/v1/token?key=k"


@pytest.fixture(scope="module")
def retention_stack(stack):
    """Short lifetimes and retentions, every sweep once a second; a full rate bucket takes two seconds."""
    with another_stack(stack, "retention", extra_env={
        "SMS_SESSION_LIFETIME_SECONDS": str(LIFETIME),
        "VERIFICATION_EXPIRED_RETENTION_SECONDS": str(GRACE),
        "VERIFICATION_SWEEP_SECONDS": "1",
        "SMS_RATE_LIMIT_PER_NUMBER_BURST": "2",
        "SMS_RATE_LIMIT_PER_NUMBER_PER_HOUR": "3600",
        "SMS_RATE_LIMIT_PER_ADDRESS_BURST": "20",
        "SMS_RATE_LIMIT_PER_ADDRESS_PER_HOUR": "36000",
        "OOB_CODES_LIFETIME_SECONDS": str(LIFETIME),
        "OOB_CODES_EXPIRED_RETENTION_SECONDS": str(GRACE),
        "OOB_CODES_SWEEP_SECONDS": "1",
        "SESSIONS_ROTATED_TOKEN_RETENTION_SECONDS": str(RETENTION),
        "SESSIONS_REVOKED_RETENTION_SECONDS": str(RETENTION),
        "SESSIONS_SWEEP_SECONDS": "1",
        "DEVELOPMENT_OUTBOX_RETENTION_SECONDS": str(OUTBOX_RETENTION),
    }) as running:
        yield running


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def count(stack, service, sql):
    return int(stack.query(service, sql)[0])


def wait_until_zero(stack, service, sql, since, at_least, what):
    """Polls until `sql` counts nothing; it must take `at_least` seconds from `since` and not much longer."""
    while count(stack, service, sql) != 0:
        assert time.monotonic() - since < at_least + 6, f"{what} was not deleted"
        time.sleep(0.2)
    assert time.monotonic() - since >= at_least - 0.5, f"{what} was deleted too early"


def start_sms_enrollment(stack, user, number):
    started = v2(stack, "mfaEnrollment:start", idToken=user["idToken"],
                 phoneEnrollmentInfo={"phoneNumber": number, "recaptchaToken": RECAPTCHA})
    return started


def finalize_sms_enrollment(stack, user, session, code):
    return v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
              phoneVerificationInfo={"sessionInfo": session, "code": code})


def stored_sessions(session):
    return f"""SELECT count(*) FROM "p_demo-project".verification_sessions WHERE session_id = '{sha256(session)}'"""


def test_an_expired_verification_session_says_so_then_is_forgotten(retention_stack):
    stack = retention_stack
    user = verified_user(stack)
    started = start_sms_enrollment(stack, user, unique_phone())
    assert started.status_code == 200, started.text
    issued = time.monotonic()
    session = started.json()["phoneSessionInfo"]["sessionInfo"]
    code = sms_code(stack, session)
    time.sleep(LIFETIME + 0.3)
    assert error(finalize_sms_enrollment(stack, user, session, code)) == "SESSION_EXPIRED"
    assert count(stack, "challenge-issuer", stored_sessions(session)) == 1
    wait_until_zero(stack, "challenge-issuer", stored_sessions(session), issued, LIFETIME + GRACE, "the expired session")
    assert error(finalize_sms_enrollment(stack, user, session, code)) == "INVALID_SESSION_INFO"


def test_a_used_verification_session_is_kept_for_retries_until_it_expires(retention_stack):
    stack = retention_stack
    user = verified_user(stack)
    started = start_sms_enrollment(stack, user, unique_phone())
    issued = time.monotonic()
    session = started.json()["phoneSessionInfo"]["sessionInfo"]
    assert count(stack, "challenge-issuer", stored_sessions(session)) == 1
    code = sms_code(stack, session)
    finalized = finalize_sms_enrollment(stack, user, session, code)
    assert finalized.status_code == 200, finalized.text
    used = stored_sessions(session) + " AND consumed_at IS NOT NULL AND consumed_by IS NOT NULL"
    assert count(stack, "challenge-issuer", used) == 1
    # Only a retry of that enrollment, with its code, may pass it again; then the sweep forgets it.
    signed_in = {**user, "idToken": finalized.json()["idToken"]}
    wrong = "000000" if code != "000000" else "111111"
    assert error(finalize_sms_enrollment(stack, signed_in, session, wrong)) == "INVALID_SESSION_INFO"
    wait_until_zero(stack, "challenge-issuer", stored_sessions(session), issued, LIFETIME + GRACE, "the used session")
    assert error(finalize_sms_enrollment(stack, signed_in, session, code)) == "INVALID_SESSION_INFO"


def test_a_full_rate_bucket_is_forgotten_and_the_limit_still_holds(retention_stack):
    stack = retention_stack
    user = verified_user(stack)
    number = unique_phone()
    bucket = f"SELECT count(*) FROM control.rate_buckets WHERE bucket_key = '{sha256('phone:' + number)}'"
    answers = [start_sms_enrollment(stack, user, number) for _ in range(3)]
    assert [answer.status_code for answer in answers[:2]] == [200, 200]
    assert error(answers[2]) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    emptied = time.monotonic()
    assert count(stack, "challenge-issuer", bucket) == 1
    # Two tokens at one a second: full after two seconds, then the same as no bucket.
    wait_until_zero(stack, "challenge-issuer", bucket, emptied, 2, "the full bucket")
    again = [start_sms_enrollment(stack, user, number) for _ in range(3)]
    assert [answer.status_code for answer in again[:2]] == [200, 200]
    assert error(again[2]) == "TOO_MANY_ATTEMPTS_TRY_LATER"


def send_verify_email(stack):
    email = f"kept-{os.urandom(6).hex()}@example.com"
    signed_up = v1(stack, "signUp", email=email, password="secret-pw").json()
    sent = v1(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=signed_up["idToken"])
    assert sent.status_code == 200, sent.text
    listed = requests.get(stack.gateway + "/emulator/v1/projects/demo-project/oobCodes", timeout=30).json()["oobCodes"]
    return next(entry["oobCode"] for entry in listed if entry["email"] == email)


def test_an_expired_oob_code_says_so_then_is_forgotten(retention_stack):
    stack = retention_stack
    early, late = send_verify_email(stack), send_verify_email(stack)
    issued = time.monotonic()
    stored = f"""SELECT count(*) FROM "p_demo-project".oob_codes WHERE code_hash = decode('{sha256(late)}', 'hex')"""
    time.sleep(LIFETIME + 0.3)
    assert error(v1(stack, "update", oobCode=early)) == "EXPIRED_OOB_CODE"
    assert count(stack, "factor-registry", stored) == 1
    wait_until_zero(stack, "factor-registry", stored, issued, LIFETIME + GRACE, "the expired code")
    assert error(v1(stack, "update", oobCode=late)) == "INVALID_OOB_CODE"


def test_the_development_outbox_forgets_its_messages(retention_stack):
    stack = retention_stack
    sent = time.monotonic()
    code = send_verify_email(stack)
    kept = f"""SELECT count(*) FROM "p_demo-project".development_outbox WHERE code = '{code}'"""
    assert count(stack, "challenge-issuer", kept) == 1
    wait_until_zero(stack, "challenge-issuer", kept, sent, OUTBOX_RETENTION, "the outbox message")
    listed = requests.get(stack.gateway + "/emulator/v1/projects/demo-project/oobCodes", timeout=30).json()["oobCodes"]
    assert code not in [entry["oobCode"] for entry in listed]


def refresh(stack, token):
    return requests.post(stack.gateway + TOKEN, data={"grant_type": "refresh_token", "refresh_token": token}, timeout=30)


def new_session(stack):
    answer = v1(stack, "signUp", email=f"r-{os.urandom(6).hex()}@example.com", password="refresh-me")
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_rotated_refresh_token_is_forgotten_and_its_session_lives_on(retention_stack):
    stack = retention_stack
    session = new_session(stack)
    first = session["refreshToken"]
    second = refresh(stack, first).json()["refresh_token"]
    rotated = time.monotonic()
    rotated_rows = f"""SELECT count(*) FROM "p_demo-project".refresh_tokens
                       WHERE local_id = '{session["localId"]}' AND rotated_at IS NOT NULL"""
    assert count(stack, "session-token", rotated_rows) == 1
    wait_until_zero(stack, "session-token", rotated_rows, rotated, RETENTION, "the rotated token")
    # Forgotten: refused as unknown, and the session it belonged to goes on.
    assert error(refresh(stack, first)) == "INVALID_REFRESH_TOKEN"
    assert refresh(stack, second).status_code == 200


def test_a_revoked_session_is_forgotten_with_its_tokens(retention_stack):
    stack = retention_stack
    session = new_session(stack)
    first = session["refreshToken"]
    second = refresh(stack, first).json()["refresh_token"]
    assert error(refresh(stack, first)) == "INVALID_REFRESH_TOKEN"  # reuse: the session is revoked
    revoked = time.monotonic()
    families = f"""SELECT count(*) FROM "p_demo-project".session_families WHERE local_id = '{session["localId"]}'"""
    tokens = f"""SELECT count(*) FROM "p_demo-project".refresh_tokens WHERE local_id = '{session["localId"]}'"""
    assert count(stack, "session-token", families) == 1 and count(stack, "session-token", tokens) == 2
    wait_until_zero(stack, "session-token", families, revoked, RETENTION, "the revoked session")
    assert count(stack, "session-token", tokens) == 0
    assert error(refresh(stack, second)) == "INVALID_REFRESH_TOKEN"
