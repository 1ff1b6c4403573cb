"""Crashes in the middle of MFA flows (issue 5's fault test): each service is killed (SIGKILL) between two
steps of an enrollment or a sign-in, restarted, and the flow retried. Nothing half-done can be used, and
nothing committed is lost. With MFA_TEST_PROCESSES=one a kill stops the one process, so only the tests
where the whole stack may go down together run there."""

import time

import jwt
import pyotp
import pytest
import requests

from conftest import another_stack, needs_four_processes
from mfa_helpers import ADMIN, error, v1, v2, verified_user


def claims(token):
    return jwt.decode(token, options={"verify_signature": False})


@pytest.fixture(scope="module")
def fault_stack(stack):
    with another_stack(stack, "faults") as running:
        yield running


def restart(stack, service):
    stack.start(service)
    stack.wait_ready()


def rpc(stack, service, method, params):
    """A JSON-RPC call over mutual TLS with the gateway's certificate: exactly what the gateway sends."""
    answer = requests.post(f"https://127.0.0.1:{stack.ports[service][0]}/rpc",
                           json={"jsonrpc": "2.0", "method": method, "params": params, "id": 1},
                           cert=(str(stack.certs / "gateway.pem"), str(stack.certs / "gateway-key.pem")),
                           verify=str(stack.certs / "ca.pem"), timeout=30)
    return answer.json()


def test_a_gateway_crash_between_the_secret_and_the_enrollment_leaves_nothing_usable(fault_stack):
    stack = fault_stack
    user = verified_user(stack)
    # The gateway's first step of a TOTP finalize (challenge-issuer keeps the secret as a factor) ...
    started = rpc(stack, "challenge-issuer", "totp.startEnrollment", {"projectId": "demo-project", "localId": user["localId"]})
    totp = pyotp.TOTP(started["result"]["sharedSecretKey"])
    orphan = "Orphan" + "x" * 22
    finalized = rpc(stack, "challenge-issuer", "totp.finalizeEnrollment", {
        "projectId": "demo-project", "localId": user["localId"], "sessionInfo": started["result"]["sessionInfo"],
        "verificationCode": totp.now(), "adjacentIntervals": 5, "mfaEnrollmentId": orphan})
    assert finalized.get("result") == {}, finalized
    # ... then it dies before factor-registry records the enrollment.
    stack.kill("gateway")
    restart(stack, "gateway")
    signed_in = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    assert "idToken" in signed_in and "mfaPendingCredential" not in signed_in
    assert "mfaInfo" not in v1(stack, "lookup", idToken=signed_in["idToken"]).json()["users"][0]
    # The orphan secret grants nothing, even with a right code.
    enroll_other = v2(stack, "mfaEnrollment:start", idToken=signed_in["idToken"], totpEnrollmentInfo={}).json()
    info = enroll_other["totpSessionInfo"]
    done = v2(stack, "mfaEnrollment:finalize", idToken=signed_in["idToken"],
              totpVerificationInfo={"sessionInfo": info["sessionInfo"],
                                    "verificationCode": pyotp.TOTP(info["sharedSecretKey"]).now()})
    assert done.status_code == 200, done.text
    pending = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    sneaky = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"], mfaEnrollmentId=orphan,
                totpVerificationInfo={"verificationCode": totp.at(time.time() + 30)})
    assert error(sneaky) == "MFA_ENROLLMENT_NOT_FOUND"


@needs_four_processes
def test_factor_registry_dies_and_committed_enrollments_survive(fault_stack):
    stack = fault_stack
    user = verified_user(stack)
    started = v2(stack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={}).json()["totpSessionInfo"]
    totp = pyotp.TOTP(started["sharedSecretKey"])
    stack.kill("factor-registry")
    failed = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                totpVerificationInfo={"sessionInfo": started["sessionInfo"], "verificationCode": totp.now()})
    assert failed.status_code == 503, failed.text
    restart(stack, "factor-registry")
    done = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
              totpVerificationInfo={"sessionInfo": started["sessionInfo"], "verificationCode": totp.now()})
    assert done.status_code == 200, done.text
    enrollment_id = claims(done.json()["idToken"])["firebase"]["second_factor_identifier"]
    stack.kill("factor-registry")
    restart(stack, "factor-registry")
    pending = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    assert pending["mfaInfo"][0]["mfaEnrollmentId"] == enrollment_id


def enrolled_and_pending(stack):
    """A user with a TOTP factor, half-way through a sign-in (password done, pending credential in hand)."""
    user = verified_user(stack)
    started = v2(stack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={}).json()["totpSessionInfo"]
    totp = pyotp.TOTP(started["sharedSecretKey"])
    enrolled = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                  totpVerificationInfo={"sessionInfo": started["sessionInfo"], "verificationCode": totp.now()}).json()
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    pending = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    return totp, enrollment_id, pending


@needs_four_processes
def test_challenge_issuer_dies_during_a_sign_in(fault_stack):
    stack = fault_stack
    totp, enrollment_id, pending = enrolled_and_pending(stack)
    stack.kill("challenge-issuer")
    code = totp.at(time.time() + 30)
    failed = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": code})
    assert failed.status_code == 503, failed.text
    restart(stack, "challenge-issuer")
    # The pending credential was not used up and the code was not spent: the retry succeeds.
    retried = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                 mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": code})
    assert retried.status_code == 200, retried.text


@needs_four_processes
def test_session_token_dies_after_the_code_was_checked(fault_stack):
    stack = fault_stack
    totp, enrollment_id, pending = enrolled_and_pending(stack)
    stack.kill("session-token")
    code = totp.at(time.time() + 30)
    failed = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": code})
    assert failed.status_code == 503, failed.text
    restart(stack, "session-token")
    # No session was issued. The code was spent or not, depending on where the crash fell; either way
    # the same code never grants a second session, and the next code signs in.
    retried = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                 mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": code})
    if retried.status_code != 200:
        assert error(retried) == "INVALID_CODE"
        retried = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                     mfaEnrollmentId=enrollment_id,
                     totpVerificationInfo={"verificationCode": totp.at(time.time() + 60)})
    assert retried.status_code == 200, retried.text
    assert claims(retried.json()["idToken"])["firebase"]["second_factor_identifier"] == enrollment_id


@needs_four_processes
def test_a_factor_withdrawn_while_challenge_issuer_was_down_signs_nobody_in(fault_stack):
    stack = fault_stack
    user = verified_user(stack)
    factors = {}
    token = user["idToken"]
    for name in ("Kept", "Withdrawn"):
        started = v2(stack, "mfaEnrollment:start", idToken=token, totpEnrollmentInfo={}).json()["totpSessionInfo"]
        totp = pyotp.TOTP(started["sharedSecretKey"])
        enrolled = v2(stack, "mfaEnrollment:finalize", idToken=token, displayName=name,
                      totpVerificationInfo={"sessionInfo": started["sessionInfo"], "verificationCode": totp.now()})
        assert enrolled.status_code == 200, enrolled.text
        token = enrolled.json()["idToken"]
        factors[name] = (totp, claims(token)["firebase"]["second_factor_identifier"])
    # The withdrawal reaches factor-registry; challenge-issuer, down, keeps the secret (an orphan).
    stack.kill("challenge-issuer")
    withdrawn = v2(stack, "mfaEnrollment:withdraw", idToken=token, mfaEnrollmentId=factors["Withdrawn"][1])
    assert withdrawn.status_code == 200, withdrawn.text
    restart(stack, "challenge-issuer")
    pending = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    assert [info["mfaEnrollmentId"] for info in pending["mfaInfo"]] == [factors["Kept"][1]]
    # The orphan's right code grants nothing; the kept factor still signs in. (A credential whose code
    # passed challenge-issuer's check is spent even when the sign-in is then refused: a new one starts
    # over, docs/security.md "What a retry may do".)
    totp, orphan = factors["Withdrawn"]
    sneaky = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"], mfaEnrollmentId=orphan,
                totpVerificationInfo={"verificationCode": totp.at(time.time() + 30)})
    assert error(sneaky) == "MFA_ENROLLMENT_NOT_FOUND"
    pending = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    totp, kept = factors["Kept"]
    signed_in = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"], mfaEnrollmentId=kept,
                   totpVerificationInfo={"verificationCode": totp.at(time.time() + 30)})
    assert signed_in.status_code == 200, signed_in.text


@needs_four_processes
def test_an_account_deletion_while_session_token_is_down_keeps_the_account_until_retried(fault_stack):
    stack = fault_stack
    user = verified_user(stack)
    admin_delete = f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:delete"
    stack.kill("session-token")
    failed = requests.post(admin_delete, json={"localId": user["localId"]}, headers=ADMIN, timeout=30)
    assert failed.status_code == 503, failed.text
    restart(stack, "session-token")
    # Nothing was deleted: the sessions are forgotten before the account goes, so a retry finishes.
    assert v1(stack, "lookup", idToken=user["idToken"]).status_code == 200
    retried = requests.post(admin_delete, json={"localId": user["localId"]}, headers=ADMIN, timeout=30)
    assert retried.status_code == 200, retried.text
    assert error(v1(stack, "lookup", idToken=user["idToken"])) == "USER_NOT_FOUND"
    families = stack.query("session-token", "SELECT count(*) FROM \"p_demo-project\".session_families "
                           f"WHERE local_id = '{user['localId']}'")
    assert families == ["0"]
