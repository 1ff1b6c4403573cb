"""Changing an account's email, driven with Google's generated REST client: sendOobCode
VERIFY_AND_CHANGE_EMAIL mailed to the new address, checkActionCode on it, applying it (sessions end), the
RECOVER_EMAIL mail the old address gets and applying that (the change undone), following both links,
the direct change (accounts:update email) and its recovery mail, email enumeration protection refusing
the direct change, tenants, and the refusals and bad input."""

import pytest
import requests

from rest_client import (ADMIN, admin_lookup, assert_client_error, claims, failure, follow, identitytoolkit, last_mail,
                         link_query, mail_to, project_email_privacy, raw, refresh,
                         set_project_email_privacy, unique_email)
from test_tenants import create_tenant


@pytest.fixture(scope="module")
def accounts(stack):
    return identitytoolkit(stack).accounts()


@pytest.fixture
def user(accounts):
    email = unique_email("old")
    return {"email": email, **accounts.signUp(body={"email": email, "password": "secret-pw"}).execute()}


def request_change(stack, accounts, user, new_email, tenant=None):
    sent = accounts.sendOobCode(body={"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"],
                                      "newEmail": new_email}).execute()
    assert sent == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": user["email"]}
    return last_mail(stack, new_email, "VERIFY_AND_CHANGE_EMAIL", tenant)


def assert_ended(stack, accounts, session):
    assert failure(accounts.lookup(body={"idToken": session["idToken"]})) == (400, "TOKEN_EXPIRED")
    ended = refresh(stack, session["refreshToken"])
    assert ended.status_code == 400 and ended.json()["error"]["message"] == "TOKEN_EXPIRED"


def test_a_change_is_confirmed_from_the_new_address_and_undone_from_the_old(stack, accounts, user):
    old, new = user["email"], unique_email("new")
    mail = request_change(stack, accounts, user, new)
    assert mail["email"] == new and mail["newEmail"] == new and len(mail["oobCode"]) == 54
    assert link_query(mail["oobLink"])["mode"] == "verifyAndChangeEmail"
    assert mail_to(stack, old, "VERIFY_AND_CHANGE_EMAIL") == []
    code = mail["oobCode"]

    checked = accounts.resetPassword(body={"oobCode": code}).execute()
    assert checked == {"kind": "identitytoolkit#ResetPasswordResponse", "requestType": "VERIFY_AND_CHANGE_EMAIL",
                       "email": old, "newEmail": new}
    assert accounts.lookup(body={"idToken": user["idToken"]}).execute()["users"][0]["email"] == old

    applied = accounts.update(body={"oobCode": code}).execute()
    assert applied["email"] == new and applied["emailVerified"] is True and applied["localId"] == user["localId"]
    assert "idToken" not in applied and "refreshToken" not in applied
    assert mail_to(stack, new, "VERIFY_AND_CHANGE_EMAIL") == []
    assert_ended(stack, accounts, user)
    assert failure(accounts.update(body={"oobCode": code})) == (400, "INVALID_OOB_CODE")

    assert failure(accounts.signInWithPassword(body={"email": old, "password": "secret-pw"})) == (400, "EMAIL_NOT_FOUND")
    moved = accounts.signInWithPassword(body={"email": new, "password": "secret-pw"}).execute()
    account = accounts.lookup(body={"idToken": moved["idToken"]}).execute()["users"][0]
    assert account["email"] == new and account["emailVerified"] is True and account["localId"] == user["localId"]
    assert claims(moved["idToken"])["email"] == new

    # The old address is told, with a way back.
    recovery = last_mail(stack, old, "RECOVER_EMAIL")
    assert recovery["newEmail"] == new and link_query(recovery["oobLink"])["mode"] == "recoverEmail"
    assert accounts.resetPassword(body={"oobCode": recovery["oobCode"]}).execute() == \
        {"kind": "identitytoolkit#ResetPasswordResponse", "requestType": "RECOVER_EMAIL", "email": old, "newEmail": new}
    recovered = accounts.update(body={"oobCode": recovery["oobCode"]}).execute()
    assert recovered["email"] == old and recovered["localId"] == user["localId"]
    assert mail_to(stack, old, "RECOVER_EMAIL") == []
    assert_ended(stack, accounts, moved)
    assert failure(accounts.update(body={"oobCode": recovery["oobCode"]})) == (400, "INVALID_OOB_CODE")

    # Whoever changed the address may have set the password too: the recovery removes it (issue 56,
    # F-7), and a password reset is mailed to the restored address at once.
    assert failure(accounts.signInWithPassword(body={"email": old, "password": "secret-pw"}))[1] in (
        "INVALID_PASSWORD", "INVALID_LOGIN_CREDENTIALS")
    accounts.resetPassword(body={"oobCode": last_mail(stack, old, "PASSWORD_RESET")["oobCode"],
                                 "newPassword": "secret-pw"}).execute()
    back = accounts.signInWithPassword(body={"email": old, "password": "secret-pw"}).execute()
    assert back["localId"] == user["localId"]
    assert accounts.lookup(body={"idToken": back["idToken"]}).execute()["users"][0]["email"] == old
    assert failure(accounts.signInWithPassword(body={"email": new, "password": "secret-pw"})) == (400, "EMAIL_NOT_FOUND")
    # The new address is free again.
    assert accounts.signUp(body={"email": new, "password": "secret-pw"}).execute()["localId"] != user["localId"]


def test_the_first_addresss_recovery_link_restores_it_after_two_changes(stack, accounts, user):
    """Issue 39, L-3: after A→B→C the recovery link mailed to A was refused, so whoever changed it twice
    kept the account."""
    first, second, third = user["email"], unique_email("second"), unique_email("third")
    accounts.update(body={"oobCode": request_change(stack, accounts, user, second)["oobCode"]}).execute()
    moved = accounts.signInWithPassword(body={"email": second, "password": "secret-pw"}).execute()
    accounts.update(body={"oobCode": request_change(stack, accounts, {**user, **moved, "email": second}, third)["oobCode"]}).execute()
    recovered = accounts.update(body={"oobCode": last_mail(stack, first, "RECOVER_EMAIL")["oobCode"]}).execute()
    assert recovered["email"] == first and recovered["localId"] == user["localId"]
    assert admin_lookup(stack, user["localId"])["email"] == first
    # B's link (mailed to the address the taker chose) died with the recovery: it cannot take it again.
    assert failure(accounts.update(body={"oobCode": last_mail(stack, second, "RECOVER_EMAIL")["oobCode"]})) == \
        (400, "INVALID_OOB_CODE")


def test_change_refusals(stack, accounts, user):
    other = accounts.signUp(body={"email": unique_email("taken"), "password": "secret-pw"}).execute()
    change = {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"]}
    assert failure(accounts.sendOobCode(body=change)) == (400, "MISSING_NEW_EMAIL")
    assert failure(accounts.sendOobCode(body={**change, "newEmail": other["email"]})) == (400, "EMAIL_EXISTS")
    assert failure(accounts.sendOobCode(body={**change, "newEmail": other["email"].upper()})) == (400, "EMAIL_EXISTS")
    assert failure(accounts.sendOobCode(body={**change, "newEmail": "not-an-address"})) == (400, "INVALID_NEW_EMAIL")
    assert failure(accounts.sendOobCode(body={"requestType": "VERIFY_AND_CHANGE_EMAIL", "newEmail": unique_email()})) \
        == (400, "INVALID_ID_TOKEN")
    assert mail_to(stack, other["email"], "VERIFY_AND_CHANGE_EMAIL") == []
    assert failure(accounts.update(body={"oobCode": "x" * 54})) == (400, "INVALID_OOB_CODE")


def test_an_address_taken_before_the_change_is_confirmed_is_refused(stack, accounts, user):
    new = unique_email("raced")
    code = request_change(stack, accounts, user, new)["oobCode"]
    accounts.signUp(body={"email": new, "password": "secret-pw"}).execute()
    assert failure(accounts.update(body={"oobCode": code})) == (400, "EMAIL_EXISTS")
    assert admin_lookup(stack, user["localId"])["email"] == user["email"]
    assert accounts.lookup(body={"idToken": user["idToken"]}).execute()["users"][0]["email"] == user["email"]


def test_following_the_links_changes_and_recovers_the_address(stack, accounts, user):
    old, new = user["email"], unique_email("followed")
    mail = request_change(stack, accounts, user, new)
    followed = follow(stack, mail["oobLink"])
    assert followed.status_code == 200, followed.text
    assert followed.json()["authEmulator"]["success"] and followed.json()["authEmulator"]["email"] == new
    assert admin_lookup(stack, user["localId"])["email"] == new
    assert_ended(stack, accounts, user)
    assert follow(stack, mail["oobLink"]).status_code == 400

    recovery = last_mail(stack, old, "RECOVER_EMAIL")
    recovered = follow(stack, recovery["oobLink"])
    assert recovered.status_code == 200, recovered.text
    assert recovered.json()["authEmulator"]["success"] and recovered.json()["authEmulator"]["email"] == old
    assert admin_lookup(stack, user["localId"])["email"] == old
    assert follow(stack, recovery["oobLink"]).status_code == 400


def test_a_direct_change_mails_the_old_address_a_way_back(stack, accounts, user):
    old, new = user["email"], unique_email("direct")
    changed = accounts.update(body={"idToken": user["idToken"], "email": new, "returnSecureToken": True}).execute()
    assert changed["email"] == new and changed["emailVerified"] is False and changed["idToken"]
    assert mail_to(stack, new, "VERIFY_AND_CHANGE_EMAIL") == []
    recovery = last_mail(stack, old, "RECOVER_EMAIL")
    assert recovery["newEmail"] == new
    recovered = accounts.update(body={"oobCode": recovery["oobCode"]}).execute()
    assert recovered["email"] == old
    assert_ended(stack, accounts, changed)
    # The password goes with the recovery (issue 56, F-7); the reset mailed at once sets the owner's.
    assert failure(accounts.signInWithPassword(body={"email": old, "password": "secret-pw"}))[1] in (
        "INVALID_PASSWORD", "INVALID_LOGIN_CREDENTIALS")
    accounts.resetPassword(body={"oobCode": last_mail(stack, old, "PASSWORD_RESET")["oobCode"],
                                 "newPassword": "owners-pw"}).execute()
    assert accounts.signInWithPassword(body={"email": old, "password": "owners-pw"}).execute()["localId"] == user["localId"]


@pytest.fixture
def email_privacy_on(stack):
    """demo-project with email enumeration protection on, for one test."""
    before = project_email_privacy(stack)
    set_project_email_privacy(stack, True)
    yield
    set_project_email_privacy(stack, before)


def test_with_email_privacy_a_new_address_must_be_verified_first(stack, accounts, user, email_privacy_on):
    new = unique_email("unverified")
    assert failure(accounts.update(body={"idToken": user["idToken"], "email": new})) \
        == (400, "OPERATION_NOT_ALLOWED : Please verify the new email before changing email.")
    assert admin_lookup(stack, user["localId"])["email"] == user["email"]
    # The verified way still works.
    accounts.update(body={"oobCode": request_change(stack, accounts, user, new)["oobCode"]}).execute()
    assert admin_lookup(stack, user["localId"])["email"] == new


def test_a_tenant_with_email_privacy_refuses_a_direct_change(stack, accounts):
    tenant = create_tenant(stack, "ChangePrivacy", emailPrivacyConfig={"enableImprovedEmailPrivacy": True})
    created = accounts.signUp(body={"email": unique_email("tenant-old"), "password": "secret-pw", "tenantId": tenant}).execute()
    assert failure(accounts.update(body={"idToken": created["idToken"], "email": unique_email("tenant-new")})) \
        == (400, "OPERATION_NOT_ALLOWED : Please verify the new email before changing email.")


def test_a_tenant_change_is_mailed_and_applied_in_its_tenant(stack, accounts):
    tenant = create_tenant(stack, "ChangeTenant")
    old, new = unique_email("tenant-old"), unique_email("tenant-new")
    user = {"email": old, **accounts.signUp(body={"email": old, "password": "secret-pw", "tenantId": tenant}).execute()}
    mail = request_change(stack, accounts, user, new, tenant)
    assert link_query(mail["oobLink"])["tenantId"] == tenant and mail_to(stack, new, "VERIFY_AND_CHANGE_EMAIL") == []
    assert failure(accounts.update(body={"oobCode": mail["oobCode"]})) == (400, "INVALID_OOB_CODE")
    applied = accounts.update(body={"oobCode": mail["oobCode"], "tenantId": tenant}).execute()
    assert applied["email"] == new
    assert admin_lookup(stack, user["localId"], tenant)["email"] == new
    recovery = last_mail(stack, old, "RECOVER_EMAIL", tenant)
    assert recovery["newEmail"] == new
    assert accounts.update(body={"oobCode": recovery["oobCode"], "tenantId": tenant}).execute()["email"] == old


def test_an_admin_generated_change_link_works(stack, accounts, user):
    new = unique_email("admin-change")
    answer = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:sendOobCode",
                           json={"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"], "newEmail": new,
                                 "returnOobLink": True}, headers=ADMIN, timeout=30)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["email"] == user["email"] and body["oobCode"] in body["oobLink"]
    assert mail_to(stack, new, "VERIFY_AND_CHANGE_EMAIL") == []
    assert accounts.update(body={"oobCode": body["oobCode"]}).execute()["email"] == new


def test_bad_input_gets_a_client_error(stack, user):
    change = {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"]}
    assert_client_error(raw(stack, "sendOobCode", {**change, "newEmail": ["a@example.com"]}))
    assert_client_error(raw(stack, "sendOobCode", {**change, "newEmail": 42}))
    assert_client_error(raw(stack, "sendOobCode", {**change, "newEmail": "a" * 3000 + "@example.com"}))
    assert assert_client_error(raw(stack, "update", {"oobCode": "y" * 2000})) == "INVALID_OOB_CODE"
    assert_client_error(raw(stack, "update", {"oobCode": 123}))
    assert_client_error(raw(stack, "update", {"oobCode": ["y" * 54]}))
