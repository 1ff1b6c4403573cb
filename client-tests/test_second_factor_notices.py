"""The notice a second-factor enrollment mails to the account's address (REVERT_SECOND_FACTOR_ADDITION),
driven with Google's generated REST client: checkActionCode describing the factor, applying it by
accounts:update or by following the link (the factor and its TOTP secret gone, every session ended),
single use, SMS factors, tenants, and bad input."""

import pytest

from mfa_helpers import RECAPTCHA, sms_code, unique_phone, verified_user
from rest_client import (admin_lookup, assert_client_error, claims, enroll_totp, failure, follow, identitytoolkit,
                         last_mail, link_query, mail_to, raw, refresh)
from test_tenants import create_tenant

TOTP_ON = {"state": "ENABLED", "enabledProviders": [],
           "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}


@pytest.fixture(scope="module")
def accounts(stack):
    return identitytoolkit(stack).accounts()


def enrolled(stack, tenant=None):
    """A verified user with a TOTP factor: (user, TOTP, enrollment answer, enrollment id, revert mail)."""
    user = verified_user(stack, tenant)
    assert mail_to(stack, user["email"], "REVERT_SECOND_FACTOR_ADDITION", tenant) == []
    totp, finalized = enroll_totp(stack, user["idToken"], name="Phone app")
    enrollment_id = claims(finalized["idToken"])["firebase"]["second_factor_identifier"]
    return user, totp, finalized, enrollment_id, last_mail(stack, user["email"], "REVERT_SECOND_FACTOR_ADDITION", tenant)


def totp_rows(stack, enrollment_id, schema="p_demo-project"):
    return stack.query("challenge-issuer", f"""SELECT count(*) FROM "{schema}".totp_factors WHERE enrollment_id = '{enrollment_id}'""")


def test_an_enrollment_mails_a_notice_that_describes_the_factor(stack, accounts):
    user, _, _, enrollment_id, mail = enrolled(stack)
    assert mail["email"] == user["email"] and len(mail["oobCode"]) == 54 and "newEmail" not in mail
    query = link_query(mail["oobLink"])
    assert query["mode"] == "revertSecondFactorAddition" and query["oobCode"] == mail["oobCode"] and query["apiKey"] == "k"
    checked = accounts.resetPassword(body={"oobCode": mail["oobCode"]}).execute()
    assert checked["kind"] == "identitytoolkit#ResetPasswordResponse"
    assert checked["requestType"] == "REVERT_SECOND_FACTOR_ADDITION" and checked["email"] == user["email"]
    assert checked["mfaInfo"]["mfaEnrollmentId"] == enrollment_id and checked["mfaInfo"]["totpInfo"] == {}
    assert checked["mfaInfo"]["displayName"] == "Phone app"
    # Only described: the factor is still there.
    assert [factor["mfaEnrollmentId"] for factor in admin_lookup(stack, user["localId"])["mfaInfo"]] == [enrollment_id]
    assert totp_rows(stack, enrollment_id) == ["1"]


def test_applying_the_notice_removes_the_factor_and_ends_every_session(stack, accounts):
    user, _, finalized, enrollment_id, mail = enrolled(stack)
    applied = accounts.update(body={"oobCode": mail["oobCode"]}).execute()
    assert applied["localId"] == user["localId"] and applied["email"] == user["email"]
    assert "idToken" not in applied and "mfaInfo" not in applied

    assert "mfaInfo" not in admin_lookup(stack, user["localId"])
    assert totp_rows(stack, enrollment_id) == ["0"]
    assert failure(accounts.lookup(body={"idToken": finalized["idToken"]})) == (400, "TOKEN_EXPIRED")
    ended = refresh(stack, finalized["refreshToken"])
    assert ended.status_code == 400 and ended.json()["error"]["message"] == "TOKEN_EXPIRED"

    # A password sign-in needs no second factor any more.
    signed_in = accounts.signInWithPassword(body={"email": user["email"], "password": user["password"]}).execute()
    assert signed_in["idToken"] and "mfaPendingCredential" not in signed_in
    assert "mfaInfo" not in accounts.lookup(body={"idToken": signed_in["idToken"]}).execute()["users"][0]

    assert mail_to(stack, user["email"], "REVERT_SECOND_FACTOR_ADDITION") == []
    assert failure(accounts.update(body={"oobCode": mail["oobCode"]})) == (400, "INVALID_OOB_CODE")
    assert failure(accounts.resetPassword(body={"oobCode": mail["oobCode"]})) == (400, "INVALID_OOB_CODE")


def test_following_the_notice_link_removes_the_factor(stack, accounts):
    user, _, finalized, enrollment_id, mail = enrolled(stack)
    followed = follow(stack, mail["oobLink"])
    assert followed.status_code == 200, followed.text
    assert followed.json()["authEmulator"]["email"] == user["email"] and followed.json()["authEmulator"]["success"]
    assert "mfaInfo" not in admin_lookup(stack, user["localId"])
    assert totp_rows(stack, enrollment_id) == ["0"]
    assert failure(accounts.lookup(body={"idToken": finalized["idToken"]})) == (400, "TOKEN_EXPIRED")
    again = follow(stack, mail["oobLink"])
    assert again.status_code == 400 and again.json()["authEmulator"]["error"]


def test_a_notice_removes_only_its_own_factor(stack, accounts):
    user, _, first, first_id, first_mail = enrolled(stack)
    second_totp, second = enroll_totp(stack, first["idToken"], name="Backup app")
    second_id = claims(second["idToken"])["firebase"]["second_factor_identifier"]
    notices = mail_to(stack, user["email"], "REVERT_SECOND_FACTOR_ADDITION")
    assert len(notices) == 2 and notices[0]["oobCode"] == first_mail["oobCode"]
    accounts.update(body={"oobCode": first_mail["oobCode"]}).execute()
    assert [factor["mfaEnrollmentId"] for factor in admin_lookup(stack, user["localId"])["mfaInfo"]] == [second_id]
    assert totp_rows(stack, first_id) == ["0"] and totp_rows(stack, second_id) == ["1"]
    assert accounts.resetPassword(body={"oobCode": notices[1]["oobCode"]}).execute()["mfaInfo"]["mfaEnrollmentId"] == second_id


def test_an_sms_enrollment_mails_a_notice_too(stack, accounts):
    user = verified_user(stack)
    phone = unique_phone()
    enrollment = identitytoolkit(stack, "v2").accounts().mfaEnrollment()
    started = enrollment.start(body={"idToken": user["idToken"],
                                     "phoneEnrollmentInfo": {"phoneNumber": phone, "recaptchaToken": RECAPTCHA}}).execute()
    session = started["phoneSessionInfo"]["sessionInfo"]
    finalized = enrollment.finalize(body={"idToken": user["idToken"],
                                          "phoneVerificationInfo": {"sessionInfo": session, "code": sms_code(stack, session)}}).execute()
    assert finalized["idToken"]
    mail = last_mail(stack, user["email"], "REVERT_SECOND_FACTOR_ADDITION")
    checked = accounts.resetPassword(body={"oobCode": mail["oobCode"]}).execute()
    assert checked["mfaInfo"]["phoneInfo"].endswith(phone[-4:])
    accounts.update(body={"oobCode": mail["oobCode"]}).execute()
    assert "mfaInfo" not in admin_lookup(stack, user["localId"])


def test_a_tenant_notice_works_in_its_tenant(stack, accounts):
    tenant = create_tenant(stack, "Notices", mfaConfig=TOTP_ON)
    user, _, _, enrollment_id, mail = enrolled(stack, tenant)
    assert link_query(mail["oobLink"])["tenantId"] == tenant
    assert mail_to(stack, user["email"], "REVERT_SECOND_FACTOR_ADDITION") == []
    assert failure(accounts.update(body={"oobCode": mail["oobCode"]})) == (400, "INVALID_OOB_CODE")
    accounts.update(body={"oobCode": mail["oobCode"], "tenantId": tenant}).execute()
    assert "mfaInfo" not in admin_lookup(stack, user["localId"], tenant)
    assert totp_rows(stack, enrollment_id, f"t_{tenant}") == ["0"]


def test_bad_input_gets_a_client_error(stack):
    assert assert_client_error(raw(stack, "update", {"oobCode": "z" * 2000})) == "INVALID_OOB_CODE"
    assert_client_error(raw(stack, "update", {"oobCode": 123}))
    assert_client_error(raw(stack, "update", {"oobCode": {"code": "z"}}))
    action = follow(stack, f"{stack.gateway}/emulator/action?mode=revertSecondFactorAddition&lang=en&apiKey=k&oobCode={'z' * 2000}")
    assert action.status_code == 400 and action.json()["authEmulator"]["error"]
