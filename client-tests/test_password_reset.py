"""Password reset by mail, driven with Google's generated REST client: sendOobCode PASSWORD_RESET through
the development sink, resetPassword as checkActionCode (code alone) and as the reset itself (sessions end,
no tokens, the second factor still required), weak passwords, tenants, expiry, email enumeration
protection, following the link, firebase-admin's generate_password_reset_link, and bad input."""

import time

import pytest
from firebase_admin import auth

from conftest import another_stack
from rest_client import (admin_app, admin_update, assert_client_error, claims, enroll_totp, failure, finish_totp,
                         identitytoolkit, last_mail, link_query, mail_to, oob_codes, project_email_privacy, raw,
                         refresh, set_project_email_privacy, unique_email, follow)
from mfa_helpers import verified_user
from test_tenants import create_tenant


@pytest.fixture(scope="module")
def accounts(stack):
    return identitytoolkit(stack).accounts()


@pytest.fixture
def user(accounts):
    email = unique_email("reset")
    return {"email": email, "password": "secret-pw",
            **accounts.signUp(body={"email": email, "password": "secret-pw"}).execute()}


def request_reset(stack, accounts, email, tenant=None, **extra):
    body = {"requestType": "PASSWORD_RESET", "email": email, **({"tenantId": tenant} if tenant else {}), **extra}
    sent = accounts.sendOobCode(body=body).execute()
    assert sent == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": email}
    return last_mail(stack, email, "PASSWORD_RESET", tenant)


def test_a_reset_code_is_mailed_checked_and_sets_the_password_once(stack, accounts, user):
    mail = request_reset(stack, accounts, user["email"])
    code = mail["oobCode"]
    assert len(code) == 54 and "newEmail" not in mail
    query = link_query(mail["oobLink"])
    assert query["mode"] == "resetPassword" and query["oobCode"] == code and query["apiKey"] == "k" and query["lang"] == "en"

    # The code alone only says what it is for (checkActionCode) and stays usable.
    checked = accounts.resetPassword(body={"oobCode": code}).execute()
    assert checked == {"kind": "identitytoolkit#ResetPasswordResponse", "requestType": "PASSWORD_RESET",
                       "email": user["email"]}
    assert [entry["oobCode"] for entry in mail_to(stack, user["email"], "PASSWORD_RESET")] == [code]

    reset = accounts.resetPassword(body={"oobCode": code, "newPassword": "brand-new-pw"}).execute()
    assert reset == {"kind": "identitytoolkit#ResetPasswordResponse", "requestType": "PASSWORD_RESET",
                     "email": user["email"]}
    assert mail_to(stack, user["email"], "PASSWORD_RESET") == []

    # Every earlier session ended.
    assert failure(accounts.lookup(body={"idToken": user["idToken"]})) == (400, "TOKEN_EXPIRED")
    ended = refresh(stack, user["refreshToken"])
    assert ended.status_code == 400 and ended.json()["error"]["message"] == "TOKEN_EXPIRED"

    assert failure(accounts.signInWithPassword(body={"email": user["email"], "password": "secret-pw"})) \
        == (400, "INVALID_PASSWORD")
    signed_in = accounts.signInWithPassword(body={"email": user["email"], "password": "brand-new-pw"}).execute()
    assert signed_in["localId"] == user["localId"]
    # Reading the mail proved the address.
    assert accounts.lookup(body={"idToken": signed_in["idToken"]}).execute()["users"][0]["emailVerified"] is True
    assert claims(signed_in["idToken"])["email_verified"] is True

    assert failure(accounts.resetPassword(body={"oobCode": code, "newPassword": "another-pw"})) == (400, "INVALID_OOB_CODE")
    assert failure(accounts.resetPassword(body={"oobCode": code})) == (400, "INVALID_OOB_CODE")


def test_a_weak_new_password_is_refused_and_leaves_the_code_usable(stack, accounts, user):
    code = request_reset(stack, accounts, user["email"])["oobCode"]
    assert failure(accounts.resetPassword(body={"oobCode": code, "newPassword": "abc"})) \
        == (400, "WEAK_PASSWORD : Password should be at least 6 characters")
    # Nothing happened: the old session and password still work.
    assert accounts.lookup(body={"idToken": user["idToken"]}).execute()["users"][0]["localId"] == user["localId"]
    assert accounts.signInWithPassword(body={"email": user["email"], "password": "secret-pw"}).execute()["localId"] \
        == user["localId"]
    assert accounts.resetPassword(body={"oobCode": code, "newPassword": "strong-enough"}).execute()["email"] == user["email"]
    assert accounts.signInWithPassword(body={"email": user["email"], "password": "strong-enough"}).execute()["localId"] \
        == user["localId"]


def test_send_and_reset_refusals(stack, accounts):
    unknown = unique_email("nobody")
    assert failure(accounts.sendOobCode(body={"requestType": "PASSWORD_RESET", "email": unknown})) == (400, "EMAIL_NOT_FOUND")
    assert mail_to(stack, unknown, "PASSWORD_RESET") == []
    assert failure(accounts.sendOobCode(body={"requestType": "PASSWORD_RESET"})) == (400, "MISSING_EMAIL")
    assert failure(accounts.sendOobCode(body={"requestType": "PASSWORD_RESET", "email": "not-an-address"})) \
        == (400, "INVALID_EMAIL")
    assert failure(accounts.resetPassword(body={})) == (400, "MISSING_OOB_CODE")
    assert failure(accounts.resetPassword(body={"newPassword": "long-enough"})) == (400, "MISSING_OOB_CODE")
    assert failure(accounts.resetPassword(body={"oobCode": "x" * 54, "newPassword": "long-enough"})) \
        == (400, "INVALID_OOB_CODE")
    assert failure(accounts.resetPassword(body={"oobCode": "x" * 54})) == (400, "INVALID_OOB_CODE")


@pytest.fixture
def email_privacy_on(stack):
    """demo-project with email enumeration protection on, for one test."""
    before = project_email_privacy(stack)
    set_project_email_privacy(stack, True)
    yield
    set_project_email_privacy(stack, before)


def test_with_email_privacy_an_unknown_address_is_answered_alike_and_mailed_nothing(stack, accounts, email_privacy_on):
    unknown = unique_email("nobody")
    sent = accounts.sendOobCode(body={"requestType": "PASSWORD_RESET", "email": unknown}).execute()
    assert sent == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": unknown}
    assert mail_to(stack, unknown, "PASSWORD_RESET") == []
    # A known address still gets its mail.
    known = unique_email("known")
    accounts.signUp(body={"email": known, "password": "secret-pw"}).execute()
    assert request_reset(stack, accounts, known)["email"] == known


def test_a_tenant_with_email_privacy_answers_an_unknown_address_alike_and_mails_nothing(stack, accounts):
    tenant = create_tenant(stack, "ResetPrivacy", emailPrivacyConfig={"enableImprovedEmailPrivacy": True})
    unknown = unique_email("nobody")
    sent = accounts.sendOobCode(body={"requestType": "PASSWORD_RESET", "email": unknown, "tenantId": tenant}).execute()
    assert sent == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": unknown}
    assert oob_codes(stack, tenant) == []


def test_a_code_works_only_where_it_was_issued(stack, accounts):
    tenant = create_tenant(stack, "Reset")
    email = unique_email("tenant-reset")
    accounts.signUp(body={"email": email, "password": "secret-pw", "tenantId": tenant}).execute()
    mail = request_reset(stack, accounts, email, tenant)
    assert link_query(mail["oobLink"])["tenantId"] == tenant
    assert mail_to(stack, email, "PASSWORD_RESET") == []  # not in the project's outbox
    code = mail["oobCode"]
    assert failure(accounts.resetPassword(body={"oobCode": code})) == (400, "INVALID_OOB_CODE")
    assert failure(accounts.resetPassword(body={"oobCode": code, "newPassword": "tenant-new-pw"})) == (400, "INVALID_OOB_CODE")

    project_user = unique_email("project-reset")
    accounts.signUp(body={"email": project_user, "password": "secret-pw"}).execute()
    project_code = request_reset(stack, accounts, project_user)["oobCode"]
    assert failure(accounts.resetPassword(body={"oobCode": project_code, "tenantId": tenant,
                                                "newPassword": "tenant-new-pw"})) == (400, "INVALID_OOB_CODE")

    done = accounts.resetPassword(body={"oobCode": code, "tenantId": tenant, "newPassword": "tenant-new-pw"}).execute()
    assert done["email"] == email and done["requestType"] == "PASSWORD_RESET"
    signed_in = accounts.signInWithPassword(body={"email": email, "password": "tenant-new-pw", "tenantId": tenant}).execute()
    assert claims(signed_in["idToken"])["firebase"]["tenant"] == tenant
    # The project's code was left alone.
    assert accounts.resetPassword(body={"oobCode": project_code}).execute()["email"] == project_user


def test_an_expired_code_is_refused(stack):
    with another_stack(stack, "reset-expiry", extra_env={"OOB_CODES_PASSWORD_RESET_LIFETIME_SECONDS": "1"}) as short:
        accounts = identitytoolkit(short).accounts()
        email = unique_email("expiring")
        accounts.signUp(body={"email": email, "password": "secret-pw"}).execute()
        code = request_reset(short, accounts, email)["oobCode"]
        time.sleep(1.5)
        assert failure(accounts.resetPassword(body={"oobCode": code})) == (400, "EXPIRED_OOB_CODE")
        assert failure(accounts.resetPassword(body={"oobCode": code, "newPassword": "too-late-pw"})) \
            == (400, "EXPIRED_OOB_CODE")
        assert accounts.signInWithPassword(body={"email": email, "password": "secret-pw"}).execute()["email"] == email


def test_a_reset_is_no_way_around_the_second_factor(stack, accounts):
    user = verified_user(stack)
    totp, _ = enroll_totp(stack, user["idToken"])
    code = request_reset(stack, accounts, user["email"])["oobCode"]
    reset = accounts.resetPassword(body={"oobCode": code, "newPassword": "after-reset-pw"}).execute()
    assert "idToken" not in reset and "refreshToken" not in reset and "mfaPendingCredential" not in reset
    pending = accounts.signInWithPassword(body={"email": user["email"], "password": "after-reset-pw"}).execute()
    assert pending["mfaPendingCredential"] and pending["mfaInfo"][0]["totpInfo"] == {}
    assert "idToken" not in pending and "refreshToken" not in pending
    finished = finish_totp(stack, pending, totp)
    assert claims(finished["idToken"])["firebase"]["sign_in_second_factor"] == "totp"


def test_a_disabled_account_cannot_reset_its_password(stack, accounts, user):
    code = request_reset(stack, accounts, user["email"])["oobCode"]
    admin_update(stack, {"localId": user["localId"], "disableUser": True})
    assert failure(accounts.resetPassword(body={"oobCode": code, "newPassword": "while-disabled"})) == (400, "USER_DISABLED")


def test_following_the_link_sets_the_password(stack, accounts, user):
    mail = request_reset(stack, accounts, user["email"])
    missing = follow(stack, mail["oobLink"])
    assert missing.status_code == 400 and missing.json() == {"authEmulator": {"error": "missing newPassword query parameter"}}
    followed = follow(stack, mail["oobLink"], newPassword="from-the-link")
    assert followed.status_code == 200, followed.text
    assert followed.json()["authEmulator"]["email"] == user["email"] and followed.json()["authEmulator"]["success"]
    assert accounts.signInWithPassword(body={"email": user["email"], "password": "from-the-link"}).execute()["localId"] \
        == user["localId"]
    again = follow(stack, mail["oobLink"], newPassword="second-time")
    assert again.status_code == 400 and again.json()["authEmulator"]["error"]
    assert failure(accounts.signInWithPassword(body={"email": user["email"], "password": "second-time"})) \
        == (400, "INVALID_PASSWORD")


def test_following_a_link_with_a_continue_url_redirects_there(stack, accounts, user):
    mail = request_reset(stack, accounts, user["email"], continueUrl="http://localhost/after-reset")
    assert link_query(mail["oobLink"])["continueUrl"] == "http://localhost/after-reset"
    followed = follow(stack, mail["oobLink"], newPassword="redirected-pw")
    assert followed.status_code == 303 and followed.headers["location"] == "http://localhost/after-reset"
    assert accounts.signInWithPassword(body={"email": user["email"], "password": "redirected-pw"}).execute()["localId"] \
        == user["localId"]


@pytest.fixture(scope="module")
def admin(stack):
    yield from admin_app(stack)


def test_firebase_admin_generates_a_working_reset_link(stack, accounts, user, admin):
    before = len(oob_codes(stack))
    link = auth.generate_password_reset_link(user["email"], app=admin)
    query = link_query(link)
    assert query["mode"] == "resetPassword" and len(query["oobCode"]) == 54
    assert len(oob_codes(stack)) == before  # the admin delivers it, nothing is mailed
    assert accounts.resetPassword(body={"oobCode": query["oobCode"]}).execute()["email"] == user["email"]
    accounts.resetPassword(body={"oobCode": query["oobCode"], "newPassword": "admin-made-pw"}).execute()
    assert accounts.signInWithPassword(body={"email": user["email"], "password": "admin-made-pw"}).execute()["localId"] \
        == user["localId"]
    with pytest.raises(auth.EmailNotFoundError):
        auth.generate_password_reset_link(unique_email("nobody"), app=admin)


def test_bad_input_gets_a_client_error(stack, user):
    assert assert_client_error(raw(stack, "resetPassword", {"oobCode": "x" * 2000, "newPassword": "long-enough"})) \
        == "INVALID_OOB_CODE"
    assert_client_error(raw(stack, "resetPassword", {"oobCode": 123}))
    assert_client_error(raw(stack, "resetPassword", {"oobCode": {"nested": True}}))
    assert_client_error(raw(stack, "resetPassword", {"oobCode": "x" * 54, "newPassword": ["a", "list"]}))
    assert_client_error(raw(stack, "resetPassword", {"oobCode": "x" * 54, "newPassword": "p" * 5000}))
    assert_client_error(raw(stack, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": ["a@example.com"]}))
    assert_client_error(raw(stack, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": "a" * 3000 + "@example.com"}))
    assert_client_error(raw(stack, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": user["email"],
                                                   "continueUrl": "http://localhost/" + "a" * 5000}))
