"""Email-link sign-in, driven with Google's generated REST client: sendOobCode EMAIL_SIGNIN through the
development sink, signInWithEmailLink creating then signing in the account, single use, the address
check, the second factor still required, tenants, following the link (a redirect into the app),
firebase-admin's generate_sign_in_with_email_link, linking the address to a signed-in user, the
refusals and bad input. Passwordless sign-in is off until a project or tenant enables it."""

import time

import firebase_admin
import firebase_admin.exceptions
import pytest
import requests
from firebase_admin import auth

from mfa_helpers import ADMIN, verified_user
from rest_client import (admin_app, admin_lookup, admin_update, assert_client_error, claims, enroll_totp, failure,
                         finish_totp, follow, identitytoolkit, last_mail, link_query, mail_to, project_config_url, raw,
                         unique_email)
from test_tenants import create_tenant

FINISH = "http://localhost/finish"


LINK_MASK = "signIn.email.passwordRequired"


def allow_links(stack, allowed):
    """Email-link sign-in is off until an operator turns the password requirement off."""
    answer = requests.patch(f"{project_config_url(stack)}?updateMask={LINK_MASK}", headers=ADMIN, timeout=30,
                            json={"signIn": {"email": {"passwordRequired": not allowed}}})
    assert answer.status_code == 200, answer.text
    assert answer.json()["signIn"]["email"]["passwordRequired"] is (not allowed)


@pytest.fixture(scope="module")
def accounts(stack):
    allow_links(stack, True)
    yield identitytoolkit(stack).accounts()
    allow_links(stack, False)


def test_a_project_or_tenant_that_did_not_enable_links_refuses_them(stack, accounts):
    email = unique_email("no-links")
    allow_links(stack, False)
    try:
        send = accounts.sendOobCode(body={"requestType": "EMAIL_SIGNIN", "email": email, "continueUrl": FINISH})
        assert failure(send) == (400, "OPERATION_NOT_ALLOWED")
        code = "A" * 54
        assert failure(accounts.signInWithEmailLink(body={"email": email, "oobCode": code})) == (400, "OPERATION_NOT_ALLOWED")
    finally:
        allow_links(stack, True)
    tenant = create_tenant(stack, "NoLinks", allowPasswordSignup=True)
    send = accounts.sendOobCode(body={"requestType": "EMAIL_SIGNIN", "email": email, "continueUrl": FINISH, "tenantId": tenant})
    assert failure(send) == (400, "OPERATION_NOT_ALLOWED")
    assert mail_to(stack, email, "EMAIL_SIGNIN") == [] and mail_to(stack, email, "EMAIL_SIGNIN", tenant) == []


def test_a_link_used_by_a_signed_in_user_gives_them_the_address(stack, accounts):
    anonymous = accounts.signUp(body={}).execute()
    email = unique_email("upgrade")
    mail = send_link(stack, accounts, email)
    linked = accounts.signInWithEmailLink(
        body={"email": email, "oobCode": mail["oobCode"], "idToken": anonymous["idToken"]}).execute()
    assert linked["localId"] == anonymous["localId"] and linked["isNewUser"] is False
    user = accounts.lookup(body={"idToken": linked["idToken"]}).execute()["users"][0]
    assert user["email"] == email and user["emailVerified"] is True
    # Another account's address is not taken.
    other = accounts.signUp(body={}).execute()
    again = send_link(stack, accounts, email)
    assert failure(accounts.signInWithEmailLink(
        body={"email": email, "oobCode": again["oobCode"], "idToken": other["idToken"]})) == (400, "EMAIL_EXISTS")


def send_link(stack, accounts, email, tenant=None, continue_url=FINISH):
    body = {"requestType": "EMAIL_SIGNIN", "email": email, "continueUrl": continue_url, "canHandleCodeInApp": True,
            **({"tenantId": tenant} if tenant else {})}
    sent = accounts.sendOobCode(body=body).execute()
    assert sent == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": email}
    return last_mail(stack, email, "EMAIL_SIGNIN", tenant)


def test_a_first_link_creates_a_verified_account(stack, accounts):
    email = unique_email("link")
    mail = send_link(stack, accounts, email)
    query = link_query(mail["oobLink"])
    assert query["mode"] == "signIn" and query["oobCode"] == mail["oobCode"] and len(mail["oobCode"]) == 54
    assert query["continueUrl"] == FINISH and query["apiKey"] == "k" and query["lang"] == "en"

    before = int(time.time() * 1000)
    signed_in = accounts.signInWithEmailLink(body={"email": email, "oobCode": mail["oobCode"]}).execute()
    assert set(signed_in) == {"kind", "idToken", "refreshToken", "expiresIn", "localId", "email", "isNewUser"}
    assert signed_in["kind"] == "identitytoolkit#EmailLinkSigninResponse"
    assert signed_in["isNewUser"] is True and signed_in["email"] == email and signed_in["expiresIn"] == "3600"
    token = claims(signed_in["idToken"])
    assert token["firebase"]["sign_in_provider"] == "password" and token["email_verified"] is True
    assert token["sub"] == signed_in["localId"] and token["email"] == email

    account = accounts.lookup(body={"idToken": signed_in["idToken"]}).execute()["users"][0]
    assert account["emailVerified"] is True and account["email"] == email
    assert before - 1000 <= int(account["lastLoginAt"]) <= int(time.time() * 1000) + 1000
    assert admin_lookup(stack, signed_in["localId"])["lastLoginAt"] == account["lastLoginAt"]

    # Used once: gone from the outbox, refused again.
    assert mail_to(stack, email, "EMAIL_SIGNIN") == []
    assert failure(accounts.signInWithEmailLink(body={"email": email, "oobCode": mail["oobCode"]})) \
        == (400, "INVALID_OOB_CODE")


def test_a_later_link_signs_the_same_account_in(stack, accounts):
    email = unique_email("again")
    first = accounts.signInWithEmailLink(body={"email": email, "oobCode": send_link(stack, accounts, email)["oobCode"]}).execute()
    first_login = accounts.lookup(body={"idToken": first["idToken"]}).execute()["users"][0]["lastLoginAt"]
    time.sleep(0.01)
    second = accounts.signInWithEmailLink(body={"email": email, "oobCode": send_link(stack, accounts, email)["oobCode"]}).execute()
    assert second["isNewUser"] is False and second["localId"] == first["localId"]
    assert "idToken" in second and "refreshToken" in second
    assert int(accounts.lookup(body={"idToken": second["idToken"]}).execute()["users"][0]["lastLoginAt"]) > int(first_login)


def test_a_link_signs_in_an_existing_password_account(stack, accounts):
    email = unique_email("has-password")
    created = accounts.signUp(body={"email": email, "password": "secret-pw"}).execute()
    signed_in = accounts.signInWithEmailLink(body={"email": email, "oobCode": send_link(stack, accounts, email)["oobCode"]}).execute()
    assert signed_in["isNewUser"] is False and signed_in["localId"] == created["localId"]
    assert accounts.lookup(body={"idToken": signed_in["idToken"]}).execute()["users"][0]["emailVerified"] is True


def test_another_address_than_the_mailed_one_is_refused_and_the_code_kept(stack, accounts):
    email = unique_email("mailed")
    code = send_link(stack, accounts, email)["oobCode"]
    assert failure(accounts.signInWithEmailLink(body={"email": unique_email("other"), "oobCode": code})) \
        == (400, "INVALID_EMAIL : The email provided does not match the sign-in email address.")
    assert accounts.signInWithEmailLink(body={"email": email, "oobCode": code}).execute()["email"] == email


def test_the_address_check_ignores_case(stack, accounts):
    email = unique_email("case")
    code = send_link(stack, accounts, email)["oobCode"]
    assert accounts.signInWithEmailLink(body={"email": email.upper(), "oobCode": code}).execute()["isNewUser"] is True


def test_send_and_sign_in_refusals(stack, accounts):
    email = unique_email("refused")
    assert failure(accounts.sendOobCode(body={"requestType": "EMAIL_SIGNIN", "email": email})) == (400, "MISSING_CONTINUE_URI")
    for target in ["https://evil.example/finish", "http://localhost.evil.example/finish"]:
        assert failure(accounts.sendOobCode(body={"requestType": "EMAIL_SIGNIN", "email": email, "continueUrl": target})) \
            == (400, "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project")
    assert failure(accounts.sendOobCode(body={"requestType": "EMAIL_SIGNIN", "continueUrl": FINISH})) == (400, "MISSING_EMAIL")
    assert failure(accounts.sendOobCode(body={"requestType": "EMAIL_SIGNIN", "email": "not-an-address",
                                              "continueUrl": FINISH})) == (400, "INVALID_EMAIL")
    assert mail_to(stack, email, "EMAIL_SIGNIN") == []
    assert failure(accounts.signInWithEmailLink(body={"email": email})) == (400, "MISSING_OOB_CODE")
    assert failure(accounts.signInWithEmailLink(body={"email": email, "oobCode": "x" * 54})) == (400, "INVALID_OOB_CODE")
    # A code of another kind is no sign-in link.
    created = accounts.signUp(body={"email": email, "password": "secret-pw"}).execute()
    accounts.sendOobCode(body={"requestType": "PASSWORD_RESET", "email": email}).execute()
    reset_code = last_mail(stack, email, "PASSWORD_RESET")["oobCode"]
    assert failure(accounts.signInWithEmailLink(body={"email": email, "oobCode": reset_code})) == (400, "INVALID_OOB_CODE")
    assert accounts.resetPassword(body={"oobCode": reset_code}).execute()["requestType"] == "PASSWORD_RESET"
    # And a sign-in code applies nothing else.
    link_code = send_link(stack, accounts, email)["oobCode"]
    assert failure(accounts.update(body={"oobCode": link_code})) == (400, "INVALID_OOB_CODE")
    assert failure(accounts.resetPassword(body={"oobCode": link_code, "newPassword": "not-this-way"})) \
        == (400, "INVALID_OOB_CODE")
    # checkActionCode describes it without using it.
    assert accounts.resetPassword(body={"oobCode": link_code}).execute() == \
        {"kind": "identitytoolkit#ResetPasswordResponse", "requestType": "EMAIL_SIGNIN", "email": email}
    assert accounts.signInWithEmailLink(body={"email": email, "oobCode": link_code}).execute()["localId"] == created["localId"]


def test_a_disabled_account_cannot_sign_in_with_a_link(stack, accounts):
    email = unique_email("disabled")
    created = accounts.signUp(body={"email": email, "password": "secret-pw"}).execute()
    code = send_link(stack, accounts, email)["oobCode"]
    admin_update(stack, {"localId": created["localId"], "disableUser": True})
    assert failure(accounts.signInWithEmailLink(body={"email": email, "oobCode": code})) == (400, "USER_DISABLED")


def test_a_user_with_a_second_factor_must_finish_with_it(stack, accounts):
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user["idToken"])
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    pending = accounts.signInWithEmailLink(body={"email": user["email"],
                                                 "oobCode": send_link(stack, accounts, user["email"])["oobCode"]}).execute()
    assert pending["mfaPendingCredential"] and pending["localId"] == user["localId"]
    assert [factor["mfaEnrollmentId"] for factor in pending["mfaInfo"]] == [enrollment_id]
    assert "idToken" not in pending and "refreshToken" not in pending
    finished = finish_totp(stack, pending, totp)
    token = claims(finished["idToken"])
    assert token["sub"] == user["localId"] and token["firebase"]["sign_in_provider"] == "password"
    assert token["firebase"]["sign_in_second_factor"] == "totp" and token["firebase"]["second_factor_identifier"] == enrollment_id


def test_a_tenant_link_works_in_its_tenant_only(stack, accounts):
    tenant = create_tenant(stack, "LinkTenant", enableEmailLinkSignin=True)
    email = unique_email("tenant-link")
    mail = send_link(stack, accounts, email, tenant)
    assert link_query(mail["oobLink"])["tenantId"] == tenant and mail_to(stack, email, "EMAIL_SIGNIN") == []
    assert failure(accounts.signInWithEmailLink(body={"email": email, "oobCode": mail["oobCode"]})) == (400, "INVALID_OOB_CODE")
    signed_in = accounts.signInWithEmailLink(body={"email": email, "oobCode": mail["oobCode"], "tenantId": tenant}).execute()
    assert signed_in["isNewUser"] is True and claims(signed_in["idToken"])["firebase"]["tenant"] == tenant
    assert admin_lookup(stack, signed_in["localId"], tenant)["email"] == email


def test_following_the_link_redirects_into_the_app_with_the_code(stack, accounts):
    email = unique_email("follow")
    mail = send_link(stack, accounts, email, continue_url="http://localhost/finish?step=2")
    followed = follow(stack, mail["oobLink"])
    assert followed.status_code == 303, followed.text
    location = followed.headers["location"]
    assert location.startswith("http://localhost/finish?")
    carried = link_query(location)
    assert carried == {"step": "2", "apiKey": "k", "oobCode": mail["oobCode"], "mode": "signIn", "lang": "en"}
    # The app finishes the sign-in with the code it was handed.
    assert accounts.signInWithEmailLink(body={"email": email, "oobCode": carried["oobCode"]}).execute()["isNewUser"] is True


@pytest.fixture(scope="module")
def admin(stack):
    yield from admin_app(stack)


def test_firebase_admin_generates_a_working_sign_in_link(stack, accounts, admin):
    email = unique_email("admin-link")
    link = auth.generate_sign_in_with_email_link(email, auth.ActionCodeSettings(url=FINISH, handle_code_in_app=True),
                                                 app=admin)
    query = link_query(link)
    assert query["mode"] == "signIn" and query["continueUrl"] == FINISH and len(query["oobCode"]) == 54
    assert mail_to(stack, email, "EMAIL_SIGNIN") == []
    signed_in = accounts.signInWithEmailLink(body={"email": email, "oobCode": query["oobCode"]}).execute()
    assert signed_in["isNewUser"] is True
    assert auth.get_user(signed_in["localId"], app=admin).email_verified is True
    with pytest.raises(firebase_admin.exceptions.InvalidArgumentError, match="UNAUTHORIZED_DOMAIN"):
        auth.generate_sign_in_with_email_link(email, auth.ActionCodeSettings(url="https://evil.example/"), app=admin)


def test_bad_input_gets_a_client_error(stack):
    email = unique_email("bad")
    assert assert_client_error(raw(stack, "signInWithEmailLink", {"email": email, "oobCode": "x" * 2000})) \
        == "INVALID_OOB_CODE"
    assert_client_error(raw(stack, "signInWithEmailLink", {"email": email, "oobCode": 123}))
    assert_client_error(raw(stack, "signInWithEmailLink", {"email": email, "oobCode": ["x" * 54]}))
    assert_client_error(raw(stack, "signInWithEmailLink", {"email": ["a@example.com"], "oobCode": "x" * 54}))
    assert_client_error(raw(stack, "signInWithEmailLink", {"email": "x" * 3000, "oobCode": "x" * 54}))
    assert_client_error(raw(stack, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email, "continueUrl": 3}))
    assert_client_error(raw(stack, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email,
                                                   "continueUrl": ["http://localhost/"]}))
    action = follow(stack, f"{stack.gateway}/emulator/action?mode=signIn&lang=en&apiKey=k&oobCode={'x' * 2000}"
                           f"&continueUrl=http%3A%2F%2Flocalhost%2F")
    assert 300 <= action.status_code < 500, action.text
