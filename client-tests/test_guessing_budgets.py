"""Finding 8: the chance of guessing a factor's code within a day stays below
guessing.maximumDailyOdds (1 in 10^4 in production), across sessions. TOTP: a daily budget of wrong
codes per factor, spent in the statement that decides the check, however many guesses race. SMS: a
daily budget of checks per phone number and per account, whichever session they come through.
The arithmetic is in docs/security.md."""

import time
from concurrent.futures import ThreadPoolExecutor

import pyotp
import pytest

from conftest import another_stack
from mfa_helpers import RECAPTCHA, error, sms_code, unique_phone, v1, v2, verified_user
from test_mfa_sms import enroll_phone, pending_sign_in
from test_mfa_totp import enroll_totp, later_code

TOO_MANY = "TOO_MANY_ATTEMPTS_TRY_LATER"


@pytest.fixture(scope="module")
def production_odds(stack):
    """Development conveniences, production's odds (1 in 10^4); the 5-per-5-minutes window widened so
    that only the daily budget counts."""
    with another_stack(stack, "odds", mode="development", extra_env={
            "GUESSING_MAXIMUM_DAILY_ODDS": "0.0001", "TOTP_MAXIMUM_FAILURES": "100"}) as running:
        yield running


def wrong(code):
    return f"{(int(code) + 500_000) % 1_000_000:06d}"


def test_a_totp_factor_gets_four_wrong_codes_a_day_at_the_default_window(production_odds):
    """adjacentIntervals 5 accepts 11 codes a check: 4 a day, at most 8 in any 24 h, is 8.8 in 10^5."""
    user = verified_user(production_odds)
    totp, enrolled = enroll_totp(production_odds, user)
    factor = v1(production_odds, "lookup", idToken=enrolled["idToken"]).json()["users"][0]["mfaInfo"][0]["mfaEnrollmentId"]
    answers = []
    for _ in range(5):
        pending = pending_sign_in(production_odds, user)  # a new sign-in each time: the budget is the factor's
        answers.append(v2(production_odds, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                          mfaEnrollmentId=factor, totpVerificationInfo={"verificationCode": wrong(totp.now())}))
    assert [error(a) for a in answers] == ["INVALID_CODE"] * 4 + [TOO_MANY]
    # Spent: even the right code is not looked at until the budget refills (a quarter a day).
    pending = pending_sign_in(production_odds, user)
    right = v2(production_odds, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
               mfaEnrollmentId=factor, totpVerificationInfo={"verificationCode": later_code(totp)})
    assert error(right) == TOO_MANY


def test_racing_totp_guesses_learn_no_more_than_the_budget(production_odds):
    user = verified_user(production_odds)
    totp, enrolled = enroll_totp(production_odds, user)
    factor = v1(production_odds, "lookup", idToken=enrolled["idToken"]).json()["users"][0]["mfaInfo"][0]["mfaEnrollmentId"]
    pendings = [pending_sign_in(production_odds, user)["mfaPendingCredential"] for _ in range(20)]
    guess = wrong(totp.now())
    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(lambda credential: v2(
            production_odds, "mfaSignIn:finalize", mfaPendingCredential=credential, mfaEnrollmentId=factor,
            totpVerificationInfo={"verificationCode": guess}), pendings))
    messages = [error(a) for a in answers]
    assert messages.count("INVALID_CODE") <= 4 and set(messages) <= {"INVALID_CODE", TOO_MANY}, messages


def test_sms_checks_are_budgeted_per_number_across_sessions(production_odds):
    """One accepted code per check: 49 checks per number and per account a day, for each purpose
    (sign-in, enrollment, phone sign-in). Here the odds are lowered to 1 in 10^5 (4 checks a day) so
    the test stays short."""
    with another_stack(production_odds, "sms-odds", mode="development",
                       extra_env={"GUESSING_MAXIMUM_DAILY_ODDS": "0.00001"}) as running:
        user = verified_user(running)
        number = unique_phone()
        enroll_phone(running, user, number)  # the enrollment's code counts in the enrollment's budget only
        answers = []
        for guesses in (2, 3):  # two sign-ins, two sessions
            pending = pending_sign_in(running, user)
            started = v2(running, "mfaSignIn:start", mfaPendingCredential=pending["mfaPendingCredential"],
                         mfaEnrollmentId=pending["mfaInfo"][0]["mfaEnrollmentId"], phoneSignInInfo={"recaptchaToken": RECAPTCHA})
            assert started.status_code == 200, started.text
            session = started.json()["phoneResponseInfo"]["sessionInfo"]
            code = sms_code(running, session)
            for _ in range(guesses):
                answers.append(v2(running, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                                  phoneVerificationInfo={"sessionInfo": session, "code": wrong(code)}))
        assert [error(a) for a in answers] == ["INVALID_CODE"] * 4 + [TOO_MANY]
        # The right code of the open session is refused too: the budget, not the session, decides.
        right = v2(running, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                   phoneVerificationInfo={"sessionInfo": session, "code": code})
        assert error(right) == TOO_MANY
