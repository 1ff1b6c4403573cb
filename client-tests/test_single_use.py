"""Decision 22, single use (issue 39, part 1), tried as an attacker would: a pending credential, an
enrollment `sessionInfo` and a phone `sessionInfo` are spent by the finalize that succeeds. Only an exact
retry (the same credential or session and the same code) gets the same answer again, creating nothing;
anything else after success is refused before it changes anything: no TOTP step spent, no SMS sent,
no session, no `auth_time`. Driven through Google's generated client where the call is public, in
development mode and (the last test) in production mode."""

import concurrent.futures
import time

import pyotp
import pytest
import requests

from mfa_helpers import RECAPTCHA, V2, enable_project_totp, error, sms_code, unique_phone, v1, v2, verified_user
from rest_client import claims, failure, identitytoolkit, refresh
from test_mfa_sms import enroll_phone

SCHEMA = '"p_demo-project"'


@pytest.fixture(autouse=True)
def window_of_five_steps(request):
    """The codes below are from up to four steps either side of now: the default window."""
    if "stack" in request.fixturenames:
        enable_project_totp(request.getfixturevalue("stack"), adjacent_intervals=5)


def mfa_sign_in(stack):
    return identitytoolkit(stack, "v2").accounts().mfaSignIn()


def mfa_enrollment(stack):
    return identitytoolkit(stack, "v2").accounts().mfaEnrollment()


def totp_user(stack):
    """A verified user with one TOTP factor (the enrollment spent the current step)."""
    user = verified_user(stack)
    started = mfa_enrollment(stack).start(body={"idToken": user["idToken"], "totpEnrollmentInfo": {}}).execute()
    info = started["totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"])
    mfa_enrollment(stack).finalize(body={
        "idToken": user["idToken"],
        "totpVerificationInfo": {"sessionInfo": info["sessionInfo"], "verificationCode": totp.now()}}).execute()
    return user, totp


def pending_sign_in(stack, user):
    answer = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    assert "mfaPendingCredential" in answer, answer
    return answer["mfaPendingCredential"], answer["mfaInfo"][0]["mfaEnrollmentId"]


def totp_finalize(stack, credential, enrollment_id, code):
    return {"mfaPendingCredential": credential, "mfaEnrollmentId": enrollment_id,
            "totpVerificationInfo": {"verificationCode": code}}


def step_codes(totp, steps):
    """Codes of later time steps, all inside the default window of 5 steps either side."""
    return [totp.at(time.time() + 30 * step) for step in steps]


def live_families(stack, local_id):
    return int(stack.query("session-token", f"SELECT count(*) FROM {SCHEMA}.session_families "
                                            f"WHERE local_id = '{local_id}' AND revoked_at IS NULL")[0])


def test_a_spent_totp_credential_is_refused_with_another_valid_code_and_spends_nothing(stack):
    user, totp = totp_user(stack)
    credential, enrollment_id = pending_sign_in(stack, user)
    first_code, other_code = step_codes(totp, [1, 2])
    signed_in = mfa_sign_in(stack).finalize(body=totp_finalize(stack, credential, enrollment_id, first_code)).execute()
    # The same credential with the next step's code: refused, as a spent credential.
    assert failure(mfa_sign_in(stack).finalize(body=totp_finalize(stack, credential, enrollment_id, other_code))) == \
        (400, "INVALID_MFA_PENDING_CREDENTIAL")
    # ... and that code's step was not spent: a new sign-in still passes with it.
    credential2, _ = pending_sign_in(stack, user)
    assert "idToken" in mfa_sign_in(stack).finalize(body=totp_finalize(stack, credential2, enrollment_id, other_code)).execute()
    # The exact retry of the first request gets the first answer's session again.
    again = mfa_sign_in(stack).finalize(body=totp_finalize(stack, credential, enrollment_id, first_code)).execute()
    assert again["refreshToken"] == signed_in["refreshToken"]
    assert claims(again["idToken"])["auth_time"] == claims(signed_in["idToken"])["auth_time"]
    # A wrong code or another factor's id with the spent credential: refused the same way.
    assert failure(mfa_sign_in(stack).finalize(body=totp_finalize(stack, credential, enrollment_id, "000000"))) == \
        (400, "INVALID_MFA_PENDING_CREDENTIAL")


def test_a_spent_credential_gets_no_sms_and_cannot_finish_with_another_session(stack):
    user = verified_user(stack)
    enroll_phone(stack, user, unique_phone())
    credential, enrollment_id = pending_sign_in(stack, user)
    start = {"mfaPendingCredential": credential, "mfaEnrollmentId": enrollment_id,
             "phoneSignInInfo": {"recaptchaToken": RECAPTCHA}}
    sign_in_session = mfa_sign_in(stack).start(body=start).execute()["phoneResponseInfo"]["sessionInfo"]
    code = sms_code(stack, sign_in_session)
    finalize = {"mfaPendingCredential": credential, "phoneVerificationInfo": {"sessionInfo": sign_in_session, "code": code}}
    signed_in = mfa_sign_in(stack).finalize(body=finalize).execute()
    sent = requests.get(f"{stack.gateway}/emulator/v1/projects/demo-project/verificationCodes", timeout=30).json()
    # No second SMS for a spent credential.
    assert failure(mfa_sign_in(stack).start(body=start)) == (400, "INVALID_MFA_PENDING_CREDENTIAL")
    after = requests.get(f"{stack.gateway}/emulator/v1/projects/demo-project/verificationCodes", timeout=30).json()
    assert len(after["verificationCodes"]) == len(sent["verificationCodes"])
    # Another sign-in's SMS session cannot finish the spent credential, and stays its own sign-in's.
    credential2, _ = pending_sign_in(stack, user)
    session2 = mfa_sign_in(stack).start(body={**start, "mfaPendingCredential": credential2}).execute()[
        "phoneResponseInfo"]["sessionInfo"]
    code2 = sms_code(stack, session2)
    stolen = {"mfaPendingCredential": credential, "phoneVerificationInfo": {"sessionInfo": session2, "code": code2}}
    assert failure(mfa_sign_in(stack).finalize(body=stolen)) == (400, "INVALID_MFA_PENDING_CREDENTIAL")
    own = {"mfaPendingCredential": credential2, "phoneVerificationInfo": {"sessionInfo": session2, "code": code2}}
    assert "idToken" in mfa_sign_in(stack).finalize(body=own).execute()
    # The exact retry of the first finalize: the same session, nothing new.
    again = mfa_sign_in(stack).finalize(body=finalize).execute()
    assert again["refreshToken"] == signed_in["refreshToken"]


def test_a_finished_totp_enrollment_session_passes_only_its_exact_retry(stack):
    user = verified_user(stack)
    started = mfa_enrollment(stack).start(body={"idToken": user["idToken"], "totpEnrollmentInfo": {}}).execute()
    info = started["totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"])
    body = {"idToken": user["idToken"], "totpVerificationInfo": {"sessionInfo": info["sessionInfo"],
                                                                  "verificationCode": totp.now()}}
    enrolled = mfa_enrollment(stack).finalize(body=body).execute()
    families = live_families(stack, user["localId"])
    # The same session with another valid code (the next step), with the new token or the revoked one.
    for id_token in (enrolled["idToken"], user["idToken"]):
        other = {"idToken": id_token, "totpVerificationInfo": {
            "sessionInfo": info["sessionInfo"], "verificationCode": step_codes(totp, [1])[0]}}
        assert failure(mfa_enrollment(stack).finalize(body=other)) == (400, "INVALID_SESSION_INFO")
    # The exact retry: the first answer's session, which still works; no session ended or begun.
    again = mfa_enrollment(stack).finalize(body=body).execute()
    assert again["refreshToken"] == enrolled["refreshToken"]
    assert claims(again["idToken"])["auth_time"] == claims(enrolled["idToken"])["auth_time"]
    assert live_families(stack, user["localId"]) == families
    assert refresh(stack, enrolled["refreshToken"]).status_code == 200
    # Once that session's token was used, even the exact retry is refused.
    assert failure(mfa_enrollment(stack).finalize(body=body)) == (400, "INVALID_SESSION_INFO")
    lookup = v1(stack, "lookup", idToken=again["idToken"]).json()["users"][0]
    assert len(lookup["mfaInfo"]) == 1


def test_a_finished_sms_enrollment_session_passes_only_its_exact_retry(stack):
    user = verified_user(stack)
    started = v2(stack, "mfaEnrollment:start", idToken=user["idToken"],
                 phoneEnrollmentInfo={"phoneNumber": unique_phone(), "recaptchaToken": RECAPTCHA}).json()
    session = started["phoneSessionInfo"]["sessionInfo"]
    code = sms_code(stack, session)
    body = {"idToken": user["idToken"], "phoneVerificationInfo": {"sessionInfo": session, "code": code}}
    enrolled = mfa_enrollment(stack).finalize(body=body).execute()
    wrong = "000000" if code != "000000" else "111111"
    refused = {"idToken": enrolled["idToken"], "phoneVerificationInfo": {"sessionInfo": session, "code": wrong}}
    assert failure(mfa_enrollment(stack).finalize(body=refused)) == (400, "INVALID_SESSION_INFO")
    again = mfa_enrollment(stack).finalize(body=body).execute()
    assert again["refreshToken"] == enrolled["refreshToken"]
    assert refresh(stack, enrolled["refreshToken"]).status_code == 200


def parallel(count, call):
    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        return list(pool.map(lambda index: call(index), range(count)))


def test_sixty_four_racers_with_fresh_codes_and_a_spent_credential_all_fail(stack):
    user, totp = totp_user(stack)
    credential, enrollment_id = pending_sign_in(stack, user)
    first = step_codes(totp, [1])[0]
    assert mfa_sign_in(stack).finalize(body=totp_finalize(stack, credential, enrollment_id, first)).execute()
    fresh = [code for code in step_codes(totp, [-4, -3, -2, -1, 2, 3, 4]) if code != first]
    answers = parallel(64, lambda index: requests.post(
        f"{stack.gateway}{V2}mfaSignIn:finalize?key=k", timeout=60,
        json=totp_finalize(stack, credential, enrollment_id, fresh[index % len(fresh)])))
    assert [answer.status_code for answer in answers] == [400] * 64
    assert {error(answer) for answer in answers} == {"INVALID_MFA_PENDING_CREDENTIAL"}
    # Nothing was spent or counted: the factor is not throttled and each step still passes once.
    credential2, _ = pending_sign_in(stack, user)
    assert "idToken" in mfa_sign_in(stack).finalize(body=totp_finalize(stack, credential2, enrollment_id, fresh[-1])).execute()


def test_sixty_four_exact_retries_in_parallel_reach_one_outcome(stack):
    user, totp = totp_user(stack)
    before = live_families(stack, user["localId"])
    credential, enrollment_id = pending_sign_in(stack, user)
    body = totp_finalize(stack, credential, enrollment_id, step_codes(totp, [1])[0])
    answers = parallel(64, lambda index: requests.post(f"{stack.gateway}{V2}mfaSignIn:finalize?key=k", json=body,
                                                       timeout=60))
    assert [answer.status_code for answer in answers] == [200] * 64, {answer.text for answer in answers}
    assert len({answer.json()["refreshToken"] for answer in answers}) == 1
    assert live_families(stack, user["localId"]) == before + 1
    # One `secondFactor.succeeded` in the audit trail, none failed.
    counted = stack.query("challenge-issuer", f"SELECT type, count(*) FROM {SCHEMA}.security_events "
                                              f"WHERE local_id = '{user['localId']}' AND type LIKE 'secondFactor.%' "
                                              f"GROUP BY type")
    assert counted == ["secondFactor.succeeded|1"], counted


def test_a_spent_credential_is_refused_in_production_mode(production):
    stack, key = production, production.api_key
    admin = {"Authorization": f"Bearer {stack.admin_token}"}
    v1_url = f"{stack.gateway}/identitytoolkit.googleapis.com/v1"
    email = f"single-use-{time.time_ns()}@example.com"
    signed_up = requests.post(f"{v1_url}/accounts:signUp?key={key}", json={"email": email, "password": "secret-pw"},
                              timeout=30).json()
    assert requests.post(f"{stack.admin_url}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update",
                         headers=admin, timeout=30,
                         json={"localId": signed_up["localId"], "emailVerified": True}).status_code == 200
    user = requests.post(f"{v1_url}/accounts:signInWithPassword?key={key}", json={"email": email, "password": "secret-pw"},
                         timeout=30).json()
    client = identitytoolkit_for(stack)
    info = client.accounts().mfaEnrollment().start(body={"idToken": user["idToken"], "totpEnrollmentInfo": {}}).execute()[
        "totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"])
    enrollment = {"idToken": user["idToken"], "totpVerificationInfo": {"sessionInfo": info["sessionInfo"],
                                                                        "verificationCode": totp.now()}}
    client.accounts().mfaEnrollment().finalize(body=enrollment).execute()
    other = {**enrollment, "totpVerificationInfo": {**enrollment["totpVerificationInfo"],
                                                     "verificationCode": step_codes(totp, [1])[0]}}
    assert failure(client.accounts().mfaEnrollment().finalize(body=other)) == (400, "INVALID_SESSION_INFO")
    pending = requests.post(f"{v1_url}/accounts:signInWithPassword?key={key}", timeout=30,
                            json={"email": email, "password": "secret-pw"}).json()
    body = {"mfaPendingCredential": pending["mfaPendingCredential"],
            "mfaEnrollmentId": pending["mfaInfo"][0]["mfaEnrollmentId"],
            "totpVerificationInfo": {"verificationCode": step_codes(totp, [2])[0]}}
    signed_in = client.accounts().mfaSignIn().finalize(body=body).execute()
    again = {**body, "totpVerificationInfo": {"verificationCode": step_codes(totp, [3])[0]}}
    assert failure(client.accounts().mfaSignIn().finalize(body=again)) == (400, "INVALID_MFA_PENDING_CREDENTIAL")
    assert client.accounts().mfaSignIn().finalize(body=body).execute()["refreshToken"] == signed_in["refreshToken"]


def identitytoolkit_for(stack):
    """The generated v2 client with the production stack's own API key."""
    from googleapiclient import discovery

    return discovery.build("identitytoolkit", "v2", static_discovery=True, developerKey=stack.api_key,
                           client_options={"api_endpoint": stack.gateway}, cache_discovery=False)
