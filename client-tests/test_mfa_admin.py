"""Second factors written by admins (§2.1, §2.4, §2.17): accounts:update `mfa` as the Node Admin SDK sends it,
createUser and importUsers with `mfaInfo`, and the refusals; a factor an admin set works for sign-in."""

import secrets

import requests

import test_mfa_totp as totp_flow
from test_mfa_faults import rpc
from mfa_helpers import ADMIN, RECAPTCHA, error, sms_code, unique_phone, v1, v2, verified_user

BASE = "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts"


def admin(stack, suffix, body):
    return requests.post(f"{stack.gateway}{BASE}{suffix}", json=body, headers=ADMIN, timeout=30)


def lookup(stack, local_id):
    return admin(stack, ":lookup", {"localId": [local_id]}).json()["users"][0]


def test_update_replaces_and_clears_phone_factors(stack):
    user = verified_user(stack)
    first, second = unique_phone(), unique_phone()
    answer = admin(stack, ":update", {"localId": user["localId"], "mfa": {"enrollments": [
        {"mfaEnrollmentId": "admin-1", "phoneInfo": first, "displayName": "Desk", "enrolledAt": "2026-01-02T03:04:05Z"},
        {"mfaEnrollmentId": "admin-2", "phoneInfo": second},
        {"mfaEnrollmentId": "dropped", "phoneInfo": first},
    ]}})
    assert answer.status_code == 200, answer.text
    factors = lookup(stack, user["localId"])["mfaInfo"]
    assert [(f["mfaEnrollmentId"], f["phoneInfo"], f["unobfuscatedPhoneInfo"]) for f in factors] == \
        [("admin-1", first, first), ("admin-2", second, second)]
    assert factors[0]["displayName"] == "Desk" and factors[0]["enrolledAt"].startswith("2026-01-02T03:04:05")
    # The Node SDK's enrolledFactors: [] / null both send {"mfa": {}}.
    assert admin(stack, ":update", {"localId": user["localId"], "mfa": {}}).status_code == 200
    assert "mfaInfo" not in lookup(stack, user["localId"])


def test_update_refusals(stack):
    user = verified_user(stack)
    local_id = user["localId"]
    assert error(admin(stack, ":update", {"localId": local_id, "mfa": {"enrollments": [
        {"mfaEnrollmentId": "a", "phoneInfo": "5555550100"}]}})) == "INVALID_MFA_PHONE_NUMBER : Invalid format."
    assert error(admin(stack, ":update", {"localId": local_id, "mfa": {"enrollments": [
        {"phoneInfo": unique_phone()}]}})) == "INVALID_MFA_ENROLLMENT_ID : mfaEnrollmentId must be defined."
    assert error(admin(stack, ":update", {"localId": local_id, "mfa": {"enrollments": [
        {"mfaEnrollmentId": "same", "phoneInfo": unique_phone()},
        {"mfaEnrollmentId": "same", "phoneInfo": unique_phone()}]}})) == "DUPLICATE_MFA_ENROLLMENT_ID"
    too_many = [{"mfaEnrollmentId": f"id{i}", "phoneInfo": unique_phone()} for i in range(6)]
    assert error(admin(stack, ":update", {"localId": local_id, "mfa": {"enrollments": too_many}})) == \
        "SECOND_FACTOR_LIMIT_EXCEEDED"
    null = admin(stack, ":update", {"localId": local_id, "mfa": {"enrollments": None}})
    assert null.status_code == 400 and null.json()["error"]["message"].startswith("Invalid JSON payload received.")
    assert "mfaInfo" not in lookup(stack, local_id)


def test_an_admin_set_factor_is_used_for_sign_in(stack):
    user = verified_user(stack)
    number = unique_phone()
    assert admin(stack, ":update", {"localId": user["localId"], "mfa": {"enrollments": [
        {"mfaEnrollmentId": "set-by-admin", "phoneInfo": number}]}}).status_code == 200
    pending = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    assert pending["mfaInfo"][0]["mfaEnrollmentId"] == "set-by-admin"
    started = v2(stack, "mfaSignIn:start", mfaPendingCredential=pending["mfaPendingCredential"],
                 mfaEnrollmentId="set-by-admin", phoneSignInInfo={"recaptchaToken": RECAPTCHA}).json()
    session = started["phoneResponseInfo"]["sessionInfo"]
    finished = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                  phoneVerificationInfo={"sessionInfo": session, "code": sms_code(stack, session)})
    assert finished.status_code == 200, finished.text


def test_create_user_with_factors_gets_fresh_ids_and_clients_cannot(stack):
    number = unique_phone()
    created = admin(stack, "", {"email": f"c-{secrets.token_hex(4)}@example.com", "emailVerified": True,
                                "mfaInfo": [{"phoneInfo": number, "displayName": "First"}, {"phoneInfo": number}]})
    assert created.status_code == 200, created.text
    factors = lookup(stack, created.json()["localId"])["mfaInfo"]
    assert len(factors) == 1 and factors[0]["phoneInfo"] == number
    assert factors[0]["displayName"] == "First" and len(factors[0]["mfaEnrollmentId"]) == 28
    client = v1(stack, "signUp", email=f"x-{secrets.token_hex(4)}@example.com", password="secret-pw",
                mfaInfo=[{"phoneInfo": number}])
    assert error(client).startswith("INSUFFICIENT_PERMISSION")


def test_import_with_factors_checks_each_account(stack):
    email = lambda: f"i-{secrets.token_hex(4)}@example.com"
    number = unique_phone()
    answer = admin(stack, ":batchCreate", {"users": [
        {"localId": f"imp-{secrets.token_hex(4)}", "email": email(), "emailVerified": True,
         "mfaInfo": [{"mfaEnrollmentId": "kept-id", "phoneInfo": number, "enrolledAt": "2025-05-06T07:08:09Z"}]},
        {"localId": f"imp-{secrets.token_hex(4)}", "mfaInfo": [{"phoneInfo": number}]},
        {"localId": f"imp-{secrets.token_hex(4)}", "email": email(), "mfaInfo": [{"phoneInfo": number}]},
        {"localId": f"imp-{secrets.token_hex(4)}", "email": email(), "emailVerified": True, "mfaInfo": [{"totpInfo": {}}]},
        {"localId": f"imp-{secrets.token_hex(4)}", "email": email(), "emailVerified": True,
         "mfaInfo": [{"phoneInfo": "555"}]},
        {"localId": f"imp-{secrets.token_hex(4)}", "email": email(), "emailVerified": True,
         "mfaInfo": [{"mfaEnrollmentId": "x", "phoneInfo": number}, {"mfaEnrollmentId": "x", "phoneInfo": unique_phone()}]},
    ]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["error"] == [
        {"index": 1, "message": "Second factor account requires email to be presented."},
        {"index": 2, "message": "Second factor account requires email to be verified."},
        {"index": 3, "message": "Second factor not supported."},
        {"index": 4, "message": "Phone number format is invalid"},
        {"index": 5, "message": "Enrollment id already exists."},
    ]


def test_factors_an_admin_removes_end_their_sessions_and_lose_their_secrets(stack):
    """Decision 4 for the Admin SDK's replace: as after a withdraw, sessions made with a removed factor end
    (TOKEN_EXPIRED) and a removed TOTP factor's secret is deleted; other sessions go on."""
    user = verified_user(stack)
    totp, enrolled = totp_flow.enroll_totp(stack, user)
    enrollment_id = totp_flow.claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    pending = totp_flow.sign_in_pending(stack, user)
    with_factor = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                     mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": totp_flow.later_code(totp)})
    assert with_factor.status_code == 200, with_factor.text
    secrets_stored = f"""SELECT count(*) FROM "p_demo-project".totp_factors WHERE enrollment_id = '{enrollment_id}'"""
    assert stack.query("challenge-issuer", secrets_stored) == ["1"]

    assert admin(stack, ":update", {"localId": user["localId"], "mfa": {}}).status_code == 200
    refreshed = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                              data={"grant_type": "refresh_token", "refresh_token": with_factor.json()["refreshToken"]},
                              timeout=30)
    assert error(refreshed) == "TOKEN_EXPIRED"
    assert error(v1(stack, "lookup", idToken=with_factor.json()["idToken"])) == "TOKEN_EXPIRED"
    assert stack.query("challenge-issuer", secrets_stored) == ["0"]
    # Without a second factor the user now signs in with the password alone, and that session works.
    signed_in = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    again = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                          data={"grant_type": "refresh_token", "refresh_token": signed_in["refreshToken"]}, timeout=30)
    assert again.status_code == 200, again.text


def test_a_session_whose_factor_is_gone_by_any_path_is_over_at_the_token_endpoint(stack):
    """The factor is removed in factor-registry alone (as if the revocation that follows had failed):
    the token endpoint still ends the session, as the ID-token prelude does."""
    user = verified_user(stack)
    totp, enrolled = totp_flow.enroll_totp(stack, user)
    enrollment_id = totp_flow.claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    removed = rpc(stack, "factor-registry", "enrollment.remove",
                  {"projectId": "demo-project", "localId": user["localId"], "mfaEnrollmentId": enrollment_id})
    assert "error" not in removed, removed
    refreshed = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                              data={"grant_type": "refresh_token", "refresh_token": enrolled["refreshToken"]}, timeout=30)
    assert error(refreshed) == "TOKEN_EXPIRED"
