"""TOTP second factors end to end (§2.8-§2.12, §3.9, decisions 3, 4, 8, 9) with pyotp as the independent
authenticator: enrollment (secret and otpauth URI as the JS SDK builds them), sign-in through the MFA
branch, windows, replay protection under a race, throttling, withdraw, and every refusal."""

import base64
import hashlib
import http.client
import json
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import jwt
import pyotp
import pytest
import requests

from mfa_helpers import ADMIN, V2, error, v1, v2, verified_user


def claims(token):
    return jwt.decode(token, options={"verify_signature": False})


def enroll_totp(stack, user, name="Authenticator"):
    started = v2(stack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={})
    assert started.status_code == 200, started.text
    info = started.json()["totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"])
    finalized = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"], displayName=name,
                   totpVerificationInfo={"sessionInfo": info["sessionInfo"], "verificationCode": totp.now()})
    assert finalized.status_code == 200, finalized.text
    return totp, finalized.json()


def sign_in_pending(stack, user):
    answer = v1(stack, "signInWithPassword", email=user["email"], password=user["password"],
                **({"tenantId": user["tenant"]} if user["tenant"] else {}))
    assert answer.status_code == 200, answer.text
    return answer.json()


def stored_pending_credentials(stack, credential):
    """How many rows hold this credential's hash (demo-project's schema)."""
    digest = hashlib.sha256(credential.encode()).hexdigest()
    return stack.query("session-token", "SELECT count(*) FROM \"p_demo-project\".mfa_pending_credentials "
                       f"WHERE credential_hash = '\\x{digest}'::bytea")


def later_code(totp, steps=1):
    """A code of a later step inside the window: the enrollment used the current step, and a step is
    accepted once, so a sign-in right after enrolling needs the next one (an app would show it 30 s later)."""
    return totp.at(time.time() + 30 * steps)


def test_enrollment_gives_what_an_authenticator_app_needs(stack):
    user = verified_user(stack)
    started = v2(stack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={})
    assert started.status_code == 200, started.text
    info = started.json()["totpSessionInfo"]
    assert len(info["sharedSecretKey"]) == 32 and set(info["sharedSecretKey"]) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    assert info["verificationCodeLength"] == 6 and info["hashingAlgorithm"] == "SHA1" and info["periodSec"] == 30
    finalize_by = time.mktime(time.strptime(info["finalizeEnrollmentTime"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
    assert 240 < finalize_by - time.time() <= 301
    assert "phoneSessionInfo" not in started.json()
    # The URI exactly as the Firebase JS SDK builds it, read back by an independent implementation.
    uri = (f"otpauth://totp/{urllib.parse.quote('Demo App')}:{urllib.parse.quote(user['email'])}?secret={info['sharedSecretKey']}"
           f"&issuer={urllib.parse.quote('Demo App')}&algorithm={info['hashingAlgorithm']}&digits={info['verificationCodeLength']}")
    from_uri = pyotp.parse_uri(uri)
    finalized = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"], displayName="Phone app",
                   totpVerificationInfo={"sessionInfo": info["sessionInfo"], "verificationCode": from_uri.now()})
    assert finalized.status_code == 200, finalized.text
    body = finalized.json()
    assert set(body) == {"idToken", "refreshToken"}
    token = claims(body["idToken"])
    assert token["firebase"]["sign_in_provider"] == "password"
    assert token["firebase"]["sign_in_second_factor"] == "totp"
    enrollment_id = token["firebase"]["second_factor_identifier"]
    looked_up = v1(stack, "lookup", idToken=body["idToken"]).json()["users"][0]
    assert looked_up["mfaInfo"] == [{"mfaEnrollmentId": enrollment_id, "displayName": "Phone app", "totpInfo": {},
                                     "enrolledAt": looked_up["mfaInfo"][0]["enrolledAt"]}]
    # Decision 3: every other session ended; the new tokens work.
    assert error(v1(stack, "lookup", idToken=user["idToken"])) == "TOKEN_EXPIRED"
    refresh = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                            data={"grant_type": "refresh_token", "refresh_token": user["refreshToken"]}, timeout=30)
    assert error(refresh) == "TOKEN_EXPIRED"
    # The secret is stored sealed: not in the clear, not even in base32.
    rows = stack.query("challenge-issuer", """SELECT encode(secret_sealed, 'hex') FROM "p_demo-project".totp_factors""")
    secret_hex = base64.b32decode(info["sharedSecretKey"]).hex()
    assert rows and all(secret_hex not in row for row in rows)


def test_sign_in_takes_the_mfa_branch_and_finishes_with_a_code(stack):
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    pending = sign_in_pending(stack, user)
    assert set(pending) >= {"mfaPendingCredential", "mfaInfo", "localId", "email"}
    assert "idToken" not in pending and "refreshToken" not in pending and "expiresIn" not in pending
    assert stored_pending_credentials(stack, pending["mfaPendingCredential"]) == ["1"]
    assert pending["mfaInfo"][0]["mfaEnrollmentId"] == enrollment_id and pending["mfaInfo"][0]["totpInfo"] == {}
    finished = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                  mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": later_code(totp)})
    assert finished.status_code == 200, finished.text
    token = claims(finished.json()["idToken"])
    assert token["firebase"]["sign_in_second_factor"] == "totp"
    assert token["firebase"]["second_factor_identifier"] == enrollment_id
    assert abs(token["auth_time"] - time.time()) < 5
    # The sign-in is recorded at the time the token gives, and the factor stays listed.
    looked_up = v1(stack, "lookup", idToken=finished.json()["idToken"]).json()["users"][0]
    assert int(looked_up["lastLoginAt"]) // 1000 == token["auth_time"]
    assert [f["mfaEnrollmentId"] for f in looked_up["mfaInfo"]] == [enrollment_id]
    # The refreshed token keeps the second factor; the pending credential is spent.
    refreshed = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                              data={"grant_type": "refresh_token", "refresh_token": finished.json()["refreshToken"]},
                              timeout=30).json()
    assert claims(refreshed["id_token"])["firebase"]["sign_in_second_factor"] == "totp"
    again = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
               mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": totp.now()})
    assert error(again) == "INVALID_MFA_PENDING_CREDENTIAL"
    # A used credential is not kept, even as its hash.
    assert stored_pending_credentials(stack, pending["mfaPendingCredential"]) == ["0"]


def test_a_code_works_once_even_when_raced(stack):
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    code = later_code(totp)
    pendings = [sign_in_pending(stack, user)["mfaPendingCredential"] for _ in range(8)]

    def finish(credential):
        return v2(stack, "mfaSignIn:finalize", mfaPendingCredential=credential, mfaEnrollmentId=enrollment_id,
                  totpVerificationInfo={"verificationCode": code})

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(finish, pendings))
    assert sum(result.status_code == 200 for result in results) == 1, [r.text for r in results]
    # The losers are replays: INVALID_CODE, and once five failed the factor is throttled.
    assert {error(result) for result in results if result.status_code != 200} <= {"INVALID_CODE", "TOO_MANY_ATTEMPTS_TRY_LATER"}


def test_codes_inside_the_window_work_and_outside_do_not(stack):
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    now = time.time()

    def attempt(offset_steps):
        pending = sign_in_pending(stack, user)["mfaPendingCredential"]
        return v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending, mfaEnrollmentId=enrollment_id,
                  totpVerificationInfo={"verificationCode": totp.at(now + 30 * offset_steps)})

    # Default adjacentIntervals is 5: six steps away is refused, five steps ahead accepted.
    assert error(attempt(-6)) == "INVALID_CODE"
    assert error(attempt(6)) == "INVALID_CODE"
    assert attempt(5).status_code == 200
    # Once a later step was used, earlier steps are replays.
    assert error(attempt(4)) == "INVALID_CODE"


def test_wrong_codes_are_throttled_per_factor(stack):
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    pending = sign_in_pending(stack, user)["mfaPendingCredential"]
    wrong = "000000" if totp.now() != "000000" else "111111"
    for _ in range(5):
        assert error(v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending, mfaEnrollmentId=enrollment_id,
                        totpVerificationInfo={"verificationCode": wrong})) == "INVALID_CODE"
    throttled = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending, mfaEnrollmentId=enrollment_id,
                   totpVerificationInfo={"verificationCode": totp.now()})
    assert error(throttled) == "TOO_MANY_ATTEMPTS_TRY_LATER"


def test_a_flood_of_guesses_learns_at_most_five_answers(stack):
    # Guesses that arrive together must each be counted before anyone learns whether they were
    # right; otherwise a burst gets more than five tries at the code per window.
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    pending = sign_in_pending(stack, user)["mfaPendingCredential"]
    now = time.time()
    valid = {totp.at(now + 30 * offset) for offset in range(-8, 9)}
    guesses = [code for code in (f"{n:06d}" for n in range(123457, 999999, 7919)) if code not in valid][:48]

    # Each guess on its own connection, opened beforehand, all sent at the same moment.
    connections = [http.client.HTTPConnection(stack.gateway_host, timeout=30) for _ in guesses]
    for connection in connections:
        connection.connect()
    start = threading.Barrier(len(guesses))

    def guess(connection, code):
        body = json.dumps({"mfaPendingCredential": pending, "mfaEnrollmentId": enrollment_id,
                           "totpVerificationInfo": {"verificationCode": code}})
        start.wait()
        connection.request("POST", f"{V2}mfaSignIn:finalize?key=k", body, {"Content-Type": "application/json"})
        answer = connection.getresponse()
        return json.loads(answer.read())["error"]["message"]

    with ThreadPoolExecutor(len(guesses)) as pool:
        answers = list(pool.map(guess, connections, guesses))
    for connection in connections:
        connection.close()
    assert answers.count("INVALID_CODE") <= 5, answers
    assert set(answers) <= {"INVALID_CODE", "TOO_MANY_ATTEMPTS_TRY_LATER"}, answers
    assert "TOO_MANY_ATTEMPTS_TRY_LATER" in answers


def test_enrollment_refusals_in_contract_order(stack):
    user = verified_user(stack)
    assert error(v2(stack, "mfaEnrollment:start", totpEnrollmentInfo={})) == "MISSING_ID_TOKEN"
    assert error(v2(stack, "mfaEnrollment:start", idToken="garbage", totpEnrollmentInfo={})) == "INVALID_ID_TOKEN"
    anonymous = v1(stack, "signUp").json()
    assert error(v2(stack, "mfaEnrollment:start", idToken=anonymous["idToken"], totpEnrollmentInfo={})) == \
        "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor."
    custom = v1(stack, "signInWithCustomToken", token='{"uid": "custom-mfa-user"}').json()
    assert error(v2(stack, "mfaEnrollment:start", idToken=custom["idToken"], totpEnrollmentInfo={})) == \
        "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor."
    unverified = v1(stack, "signUp", email=f"u-{time.time_ns()}@example.com", password="secret-pw").json()
    assert error(v2(stack, "mfaEnrollment:start", idToken=unverified["idToken"], totpEnrollmentInfo={})) == \
        "UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors."
    info = v2(stack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={}).json()["totpSessionInfo"]
    finalize = lambda **verification: v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                                         totpVerificationInfo=verification)
    assert error(finalize(sessionInfo=info["sessionInfo"])) == "MISSING_CODE"
    assert error(finalize(verificationCode="123456")) == "MISSING_SESSION_INFO"
    assert error(finalize(sessionInfo="nope", verificationCode="123456")) == "INVALID_SESSION_INFO"
    right = pyotp.TOTP(info["sharedSecretKey"]).now()
    wrong = "000000" if right != "000000" else "111111"
    assert error(finalize(sessionInfo=info["sessionInfo"], verificationCode=wrong)) == "INVALID_CODE"
    other = verified_user(stack)
    stolen = v2(stack, "mfaEnrollment:finalize", idToken=other["idToken"],
                totpVerificationInfo={"sessionInfo": info["sessionInfo"], "verificationCode": right})
    assert error(stolen) == "INVALID_SESSION_INFO"
    assert finalize(sessionInfo=info["sessionInfo"], verificationCode=right).status_code == 200
    # The same request again is the same enrollment (a retry after a lost answer): one factor, signed in.
    again = finalize(sessionInfo=info["sessionInfo"], verificationCode=right)
    assert again.status_code == 200, again.text
    assert len(v1(stack, "lookup", idToken=again.json()["idToken"]).json()["users"][0]["mfaInfo"]) == 1
    # Decision 22: any other use of the finished session (here a wrong code) finds it unknown.
    assert error(finalize(sessionInfo=info["sessionInfo"], verificationCode=wrong)) == "INVALID_SESSION_INFO"


def test_at_most_five_factors(stack):
    user = verified_user(stack)
    token = user["idToken"]
    for index in range(5):
        _, enrolled = enroll_totp(stack, {**user, "idToken": token}, name=f"App {index}")
        token = enrolled["idToken"]
    started = v2(stack, "mfaEnrollment:start", idToken=token, totpEnrollmentInfo={}).json()["totpSessionInfo"]
    sixth = v2(stack, "mfaEnrollment:finalize", idToken=token,
               totpVerificationInfo={"sessionInfo": started["sessionInfo"],
                                     "verificationCode": pyotp.TOTP(started["sharedSecretKey"]).now()})
    assert error(sixth) == "SECOND_FACTOR_LIMIT_EXCEEDED"


def test_sign_in_finalize_refusals_in_contract_order(stack):
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    pending = sign_in_pending(stack, user)["mfaPendingCredential"]
    finish = lambda **body: v2(stack, "mfaSignIn:finalize", **body)
    assert error(finish(mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": "123456"})) == \
        "MISSING_CREDENTIAL : Please set MFA Pending Credential."
    assert error(finish(mfaPendingCredential=pending, totpVerificationInfo={"verificationCode": "123456"})) == \
        "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided."
    assert error(finish(mfaPendingCredential=pending, mfaEnrollmentId=enrollment_id, totpVerificationInfo={})) == \
        "MISSING_CODE"
    assert error(finish(mfaPendingCredential="garbage", mfaEnrollmentId=enrollment_id,
                        totpVerificationInfo={"verificationCode": "123456"})) == "INVALID_MFA_PENDING_CREDENTIAL"
    assert error(finish(mfaPendingCredential=pending, mfaEnrollmentId="unknown",
                        totpVerificationInfo={"verificationCode": "123456"})) == "MFA_ENROLLMENT_NOT_FOUND"


def test_withdrawing_the_factor_of_the_calling_session_signs_it_out(stack):
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    assert error(v2(stack, "mfaEnrollment:withdraw", idToken=enrolled["idToken"], mfaEnrollmentId="nope")) == \
        "MFA_ENROLLMENT_NOT_FOUND"
    withdrawn = v2(stack, "mfaEnrollment:withdraw", idToken=enrolled["idToken"], mfaEnrollmentId=enrollment_id)
    assert withdrawn.status_code == 200 and withdrawn.json() == {}
    assert error(v1(stack, "lookup", idToken=enrolled["idToken"])) == "TOKEN_EXPIRED"
    refresh = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                            data={"grant_type": "refresh_token", "refresh_token": enrolled["refreshToken"]}, timeout=30)
    assert error(refresh) == "TOKEN_EXPIRED"
    # Without factors, the password alone signs in again.
    again = sign_in_pending(stack, user)
    assert "idToken" in again and "mfaPendingCredential" not in again


def test_withdrawing_from_another_session_returns_fresh_tokens(stack):
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    # A session established without the factor (custom first factor cannot be used; so enroll a second
    # factor, sign in with it, and withdraw the first).
    second, with_second = enroll_totp(stack, {**user, "idToken": enrolled["idToken"]}, name="Second")
    second_id = claims(with_second["idToken"])["firebase"]["second_factor_identifier"]
    withdrawn = v2(stack, "mfaEnrollment:withdraw", idToken=with_second["idToken"], mfaEnrollmentId=enrollment_id)
    assert withdrawn.status_code == 200, withdrawn.text
    body = withdrawn.json()
    assert set(body) == {"idToken", "refreshToken", "expiresIn"}
    token = claims(body["idToken"])
    assert "sign_in_second_factor" not in token["firebase"]
    remaining = v1(stack, "lookup", idToken=body["idToken"]).json()["users"][0]["mfaInfo"]
    assert [entry["mfaEnrollmentId"] for entry in remaining] == [second_id]


def test_totp_needs_the_provider_enabled(stack):
    from test_tenants import create_tenant

    tenant = create_tenant(stack, "NoTotp", mfaConfig={"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]})
    user = verified_user(stack, tenant=tenant)
    assert error(v2(stack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={})) == \
        "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled."
    assert error(v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                    totpVerificationInfo={"sessionInfo": "x", "verificationCode": "123456"})) == \
        "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled."


def test_a_tenant_factor_stays_in_its_tenant(stack):
    from test_tenants import create_tenant

    mfa = {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
           "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}
    tenant_a = create_tenant(stack, "MfaA", mfaConfig=mfa)
    tenant_b = create_tenant(stack, "MfaB", mfaConfig=mfa)
    user = verified_user(stack, tenant=tenant_a)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    assert claims(enrolled["idToken"])["firebase"]["tenant"] == tenant_a
    pending = sign_in_pending(stack, user)["mfaPendingCredential"]
    other = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending, mfaEnrollmentId=enrollment_id, tenantId=tenant_b,
               totpVerificationInfo={"verificationCode": totp.now()})
    assert error(other) == "TENANT_ID_MISMATCH"
    admin_b = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/tenants/{tenant_b}"
                            f"/accounts:lookup", json={"localId": [user["localId"]]}, headers=ADMIN, timeout=30).json()
    assert "users" not in admin_b


def test_a_complete_finalize_still_answers_in_contract_order(stack):
    """A finalize whose input is complete reads the credential before the settings (one call fewer);
    the answers must not change: settings errors first, then the credential's, then the factor's."""
    from test_tenant_admin import patch
    from test_tenants import create_tenant

    mfa = {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
           "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}
    tenant = create_tenant(stack, "Ordered", mfaConfig=mfa)
    user = verified_user(stack, tenant=tenant)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    pending = sign_in_pending(stack, user)["mfaPendingCredential"]

    def finalize(**extra):
        return v2(stack, "mfaSignIn:finalize", **{"mfaPendingCredential": pending, "mfaEnrollmentId": enrollment_id,
                                                  "totpVerificationInfo": {"verificationCode": later_code(totp)}, **extra})

    assert patch(stack, tenant, {"mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}},
                 mask="mfaConfig").status_code == 200
    assert error(finalize()) == "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled."
    assert patch(stack, tenant, {"disableAuth": True, "mfaConfig": mfa}, mask="disableAuth,mfaConfig").status_code == 200
    assert error(finalize()) == "PROJECT_DISABLED"
    assert patch(stack, tenant, {"disableAuth": False}, mask="disableAuth").status_code == 200
    # The body names another tenant: its settings apply first, then the mismatch.
    other = create_tenant(stack, "OrderedOther", mfaConfig=mfa)
    assert error(finalize(tenantId=other)) == "TENANT_ID_MISMATCH"
    assert error(finalize(mfaEnrollmentId="no-such-factor")) == "MFA_ENROLLMENT_NOT_FOUND"
    # None of the refusals used the credential or the step up.
    finished = finalize()
    assert finished.status_code == 200, finished.text
    # The same request again is a retry: the same session, not a second one.
    assert finalize().json()["refreshToken"] == finished.json()["refreshToken"]


def test_a_totp_code_does_not_pass_for_a_phone_factor_that_took_over_its_id(stack):
    """Finding 11: an admin's accounts:update that keeps a TOTP factor's id but makes it a phone
    factor left the TOTP secret behind, and a code from the old authenticator still signed in
    through the (now phone) factor."""
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    replaced = requests.post(
        f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update",
        json={"localId": user["localId"], "mfa": {"enrollments": [
            {"mfaEnrollmentId": enrollment_id, "phoneInfo": "+16505550199", "displayName": "Phone"}]}},
        headers=ADMIN, timeout=30)
    assert replaced.status_code == 200, replaced.text
    pending = sign_in_pending(stack, user)
    factor = pending["mfaInfo"][0]
    assert "phoneInfo" in factor
    finished = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                  mfaEnrollmentId=factor["mfaEnrollmentId"],
                  totpVerificationInfo={"verificationCode": later_code(totp)})
    assert finished.status_code == 400 and error(finished) == "MFA_ENROLLMENT_NOT_FOUND", finished.text
    # The replaced factor's secret is gone at once, not at the next orphan sweep.
    assert stack.query("challenge-issuer", "SELECT count(*) FROM \"p_demo-project\".totp_factors "
                       f"WHERE local_id = '{user['localId']}'") == ["0"]
