"""Finalizes that are retried (issue 25, finding 12). A finalize changes several things in turn (the
code's time step, the factor, the account's validSince, the session); when an outage cuts it short
after some of them, or its answer is lost, the client retries the same request, and that retry must
reach the outcome the first would have: signed in, the factor saved once. Only the same attempt may:
another sign-in with the same code is still a replay (and decision 22's other limits are in
test_single_use.py).

The outage is real: the test holds a lock on session-token's session table, so the finalize's last
step waits in PostgreSQL, then ends that backend (as a database restart does) or lets it finish after
the client gave up."""

import subprocess
import threading
import time
import urllib.parse

import pyotp
import pytest
import requests

from conftest import another_stack
from mfa_helpers import RECAPTCHA, V2, error, sms_code, unique_phone, v1, v2, verified_user

SCHEMA = '"p_demo-project"'


@pytest.fixture(scope="module")
def retry_stack(stack):
    with another_stack(stack, "retries") as running:
        yield running


class HeldLock:
    """A transaction of the test's own holding `LOCK TABLE … IN EXCLUSIVE MODE` on a table of a
    service's database: reads go on, every write to the table waits until `release()`."""

    def __init__(self, stack, service, table):
        self.stack, self.service = stack, service
        parts = urllib.parse.urlsplit(stack.postgres)
        self.psql = subprocess.Popen(
            ["psql", "-qtA", "-v", "ON_ERROR_STOP=1", "-h", parts.hostname, "-p", str(parts.port), "-U",
             urllib.parse.unquote(parts.username), "-d", stack.databases[service]],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={"PGPASSWORD": urllib.parse.unquote(parts.password or ""), "PATH": "/usr/bin:/bin"})
        self.psql.stdin.write(f"BEGIN; LOCK TABLE {SCHEMA}.{table} IN EXCLUSIVE MODE; SELECT 'held';\n")
        self.psql.stdin.flush()
        assert self.psql.stdout.readline().strip() == "held"

    def waiting_backends(self):
        return self.stack.query(self.service, "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                              "AND datname = current_database() AND pid <> pg_backend_pid()")

    def wait_for_a_waiter(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if waiting := self.waiting_backends():
                return waiting
            time.sleep(0.05)
        raise AssertionError("nothing came to wait for the lock")

    def end_waiters(self):
        """Ends the waiting backends, as a database restart ends every connection."""
        for pid in self.wait_for_a_waiter():
            self.stack.query(self.service, f"SELECT pg_terminate_backend({pid})")

    def release(self):
        self.psql.stdin.write("ROLLBACK;\n")
        self.psql.stdin.close()
        self.psql.wait(timeout=10)


def in_background(call):
    answer = {}
    worker = threading.Thread(target=lambda: answer.setdefault("response", call()))
    worker.start()
    return worker, answer


def totp_user(stack):
    """A verified user with one TOTP factor; its secret and enrollment id."""
    user = verified_user(stack)
    info = v2(stack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={}).json()["totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"])
    done = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
              totpVerificationInfo={"sessionInfo": info["sessionInfo"], "verificationCode": totp.now()}).json()
    enrollment_id = v1(stack, "lookup", idToken=done["idToken"]).json()["users"][0]["mfaInfo"][0]["mfaEnrollmentId"]
    return user, totp, enrollment_id


def next_code(totp):
    """A code of a time step no earlier request used (the enrollment used the current one)."""
    time.sleep(30 - time.time() % 30 + 0.2)
    return totp.now()


def live_families(stack, local_id):
    return stack.query("session-token", f"SELECT count(*) FROM {SCHEMA}.session_families "
                                        f"WHERE local_id = '{local_id}' AND revoked_at IS NULL")[0]


def test_a_totp_sign_in_cut_short_after_the_code_was_spent_finishes_when_retried(retry_stack):
    stack = retry_stack
    user, totp, enrollment_id = totp_user(stack)
    pending = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    code = next_code(totp)
    finalize = lambda: v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                          mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": code})
    lock = HeldLock(stack, "session-token", "session_families")
    try:
        worker, answer = in_background(finalize)
        lock.end_waiters()
        worker.join(60)
    finally:
        lock.release()
    assert answer["response"].status_code == 503, answer["response"].text
    retried = finalize()
    assert retried.status_code == 200, retried.text
    assert v1(stack, "lookup", idToken=retried.json()["idToken"]).status_code == 200
    # Another sign-in of the same user cannot spend that code again.
    other = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    replay = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=other["mfaPendingCredential"],
                mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": code})
    assert error(replay) == "INVALID_CODE"


def test_a_totp_sign_in_whose_answer_was_lost_gives_the_same_session_when_retried(retry_stack):
    stack = retry_stack
    user, totp, enrollment_id = totp_user(stack)
    before = int(live_families(stack, user["localId"]))
    pending = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    code = next_code(totp)
    body = dict(mfaPendingCredential=pending["mfaPendingCredential"], mfaEnrollmentId=enrollment_id,
                totpVerificationInfo={"verificationCode": code})
    lock = HeldLock(stack, "session-token", "session_families")
    try:
        # The client gives up while the last step waits; the step then completes unseen.
        with pytest.raises(requests.exceptions.ReadTimeout):
            requests.post(f"{stack.gateway}{V2}mfaSignIn:finalize?key=k", json=body, timeout=1.5)
        lock.wait_for_a_waiter()
    finally:
        lock.release()
    deadline = time.monotonic() + 20
    while int(live_families(stack, user["localId"])) == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert int(live_families(stack, user["localId"])) == before + 1
    retried = v2(stack, "mfaSignIn:finalize", **body)
    assert retried.status_code == 200, retried.text
    again = v2(stack, "mfaSignIn:finalize", **body)
    assert again.json()["refreshToken"] == retried.json()["refreshToken"]
    # Still one session for the one credential, and its token works.
    assert int(live_families(stack, user["localId"])) == before + 1
    refreshed = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k", timeout=30,
                              data={"grant_type": "refresh_token", "refresh_token": retried.json()["refreshToken"]})
    assert refreshed.status_code == 200, refreshed.text
    # Once the token was used, the credential is spent for good.
    assert error(v2(stack, "mfaSignIn:finalize", **body)) == "INVALID_MFA_PENDING_CREDENTIAL"


def test_a_totp_enrollment_cut_short_after_the_factor_was_saved_finishes_when_retried(retry_stack):
    stack = retry_stack
    user = verified_user(stack)
    info = v2(stack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={}).json()["totpSessionInfo"]
    code = pyotp.TOTP(info["sharedSecretKey"]).now()
    finalize = lambda: v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                          totpVerificationInfo={"sessionInfo": info["sessionInfo"], "verificationCode": code})
    lock = HeldLock(stack, "session-token", "session_families")
    try:
        worker, answer = in_background(finalize)
        lock.end_waiters()
        worker.join(60)
    finally:
        lock.release()
    assert answer["response"].status_code == 503, answer["response"].text
    # The factor was saved and the caller's token revoked before the outage.
    assert error(v1(stack, "lookup", idToken=user["idToken"])) == "TOKEN_EXPIRED"
    retried = finalize()
    assert retried.status_code == 200, retried.text
    factors = v1(stack, "lookup", idToken=retried.json()["idToken"]).json()["users"][0]["mfaInfo"]
    assert len(factors) == 1 and "totpInfo" in factors[0]
    # The revoked token finishes only that enrollment: nothing else accepts it.
    assert error(v1(stack, "lookup", idToken=user["idToken"])) == "TOKEN_EXPIRED"
    other = v2(stack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={})
    assert error(other) == "TOKEN_EXPIRED"


def test_a_retried_enrollment_needs_the_right_code_the_same_user_and_no_later_revocation(retry_stack):
    stack = retry_stack
    user = verified_user(stack)
    info = v2(stack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={}).json()["totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"])
    body = {"sessionInfo": info["sessionInfo"], "verificationCode": totp.now()}
    enrolled = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"], totpVerificationInfo=body)
    assert enrolled.status_code == 200, enrolled.text
    enrollment_id = v1(stack, "lookup", idToken=enrolled.json()["idToken"]).json()["users"][0]["mfaInfo"][0]["mfaEnrollmentId"]
    wrong = "000000" if body["verificationCode"] != "000000" else "111111"
    assert error(v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                    totpVerificationInfo={**body, "verificationCode": wrong})) == "INVALID_SESSION_INFO"
    stranger = verified_user(stack)
    assert error(v2(stack, "mfaEnrollment:finalize", idToken=stranger["idToken"], totpVerificationInfo=body)) == \
        "INVALID_SESSION_INFO"
    # A password change after the enrollment revokes the old token for good, for the retry too.
    pending = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    finished = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                  mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": next_code(totp)})
    assert finished.status_code == 200, finished.text
    changed = v1(stack, "update", idToken=finished.json()["idToken"], password="another-secret-pw")
    assert changed.status_code == 200, changed.text
    assert error(v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"], totpVerificationInfo=body)) == "TOKEN_EXPIRED"


def test_an_sms_enrollment_retried_after_its_answer_was_lost_saves_one_factor(retry_stack):
    stack = retry_stack
    user = verified_user(stack)
    number = unique_phone()
    started = v2(stack, "mfaEnrollment:start", idToken=user["idToken"],
                 phoneEnrollmentInfo={"phoneNumber": number, "recaptchaToken": RECAPTCHA})
    assert started.status_code == 200, started.text
    session = started.json()["phoneSessionInfo"]["sessionInfo"]
    body = {"sessionInfo": session, "code": sms_code(stack, session)}
    first = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"], phoneVerificationInfo=body)
    assert first.status_code == 200, first.text
    retried = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"], phoneVerificationInfo=body)
    assert retried.status_code == 200, retried.text
    factors = v1(stack, "lookup", idToken=retried.json()["idToken"]).json()["users"][0]["mfaInfo"]
    assert [factor["phoneInfo"] for factor in factors] == [number]
    # Decision 22: the retry gets the first answer's session, which stays valid; nothing new began.
    assert retried.json()["refreshToken"] == first.json()["refreshToken"]
    assert requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k", timeout=30, data={
        "grant_type": "refresh_token", "refresh_token": first.json()["refreshToken"]}).status_code == 200
