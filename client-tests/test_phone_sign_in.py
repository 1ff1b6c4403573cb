"""The phone as a first factor (contract §2.13, issue 24), through Google's generated REST client:
sendVerificationCode with the same app verification and limits as an MFA SMS, signInWithPhoneNumber
signing a number's account in (created the first time), linking a number to a signed-in user, and a
temporaryProof when the number is another account's. A phone-number user cannot enroll a second
factor, and a user with second factors can never use a phone as the first one."""

import pytest
import requests

from conftest import another_stack
from mfa_helpers import ADMIN, RECAPTCHA, sms_code, unique_phone, v2, verified_user
from rest_client import claims, identitytoolkit
from rest_client import failure as rest_failure

UNSUPPORTED = "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user."


def accounts(stack):
    return identitytoolkit(stack).accounts()


def failure(call):
    """The error message of a call that must fail with a 4xx envelope."""
    status, message = rest_failure(call)
    assert 400 <= status < 500, (status, message)
    return message


def send_code(stack, number, **extra):
    return accounts(stack).sendVerificationCode(body={"phoneNumber": number, "recaptchaToken": RECAPTCHA, **extra})


def sign_in(stack, number, **extra):
    """A code sent to `number` and used: the answer of signInWithPhoneNumber."""
    session = send_code(stack, number).execute()["sessionInfo"]
    return accounts(stack).signInWithPhoneNumber(
        body={"sessionInfo": session, "code": sms_code(stack, session), **extra}).execute()


def test_a_new_number_signs_up_then_signs_in_to_the_same_account(stack):
    number = unique_phone()
    first = sign_in(stack, number)
    assert first["isNewUser"] is True and first["phoneNumber"] == number
    token = claims(first["idToken"])
    assert token["firebase"]["sign_in_provider"] == "phone" and token["phone_number"] == number
    user = accounts(stack).lookup(body={"idToken": first["idToken"]}).execute()["users"][0]
    assert user["phoneNumber"] == number and user["localId"] == first["localId"]
    assert user["lastLoginAt"] and "email" not in user
    again = sign_in(stack, number)
    assert again["isNewUser"] is False and again["localId"] == first["localId"]


def test_a_code_works_once_and_only_when_right(stack):
    number = unique_phone()
    session = send_code(stack, number).execute()["sessionInfo"]
    code = sms_code(stack, session)
    wrong = "000000" if code != "000000" else "111111"
    finish = lambda answer: accounts(stack).signInWithPhoneNumber(body={"sessionInfo": session, "code": answer})
    assert failure(finish(wrong)) == "INVALID_CODE"
    assert finish(code).execute()["phoneNumber"] == number
    assert failure(finish(code)) == "INVALID_SESSION_INFO"
    assert failure(accounts(stack).signInWithPhoneNumber(body={"code": code})) == "MISSING_SESSION_INFO"
    assert failure(accounts(stack).signInWithPhoneNumber(body={"sessionInfo": session})) == "MISSING_CODE"


def test_a_phone_number_user_cannot_enroll_a_second_factor(stack):
    signed_in = sign_in(stack, unique_phone())
    started = v2(stack, "mfaEnrollment:start", idToken=signed_in["idToken"],
                 phoneEnrollmentInfo={"phoneNumber": unique_phone(), "recaptchaToken": RECAPTCHA})
    assert started.json()["error"]["message"] == "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor."


def test_the_number_of_an_account_with_second_factors_gets_no_code(stack):
    number = unique_phone()
    created = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts", headers=ADMIN,
                            json={"phoneNumber": number, "mfaInfo": [{"phoneInfo": unique_phone()}]}, timeout=30)
    assert created.status_code == 200, created.text
    assert failure(send_code(stack, number)) == UNSUPPORTED
    codes = requests.get(f"{stack.gateway}/emulator/v1/projects/demo-project/verificationCodes", timeout=30).json()
    assert all(entry["phoneNumber"] != number for entry in codes["verificationCodes"])


def test_a_number_becomes_a_second_factor_users_first_factor_never(stack):
    """A number verified on its own cannot sign in to an account that has since gained factors."""
    number = unique_phone()
    session = send_code(stack, number).execute()["sessionInfo"]
    first = sign_in(stack, unique_phone())  # another account, unaffected
    assert first["isNewUser"] is True
    created = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts", headers=ADMIN,
                            json={"phoneNumber": number, "mfaInfo": [{"phoneInfo": unique_phone()}]}, timeout=30)
    assert created.status_code == 200, created.text
    finish = accounts(stack).signInWithPhoneNumber(body={"sessionInfo": session, "code": sms_code(stack, session)})
    assert failure(finish) == UNSUPPORTED


def test_linking_a_number_to_a_signed_in_user(stack):
    user = verified_user(stack)
    number = unique_phone()
    linked = sign_in(stack, number, idToken=user["idToken"])
    assert linked["localId"] == user["localId"] and linked["isNewUser"] is False
    found = accounts(stack).lookup(body={"idToken": linked["idToken"]}).execute()["users"][0]
    assert found["phoneNumber"] == number and found["email"] == user["email"]
    # The number now signs in to that account.
    assert sign_in(stack, number)["localId"] == user["localId"]


def test_another_accounts_number_is_not_taken_but_given_as_a_temporary_proof(stack):
    owner = sign_in(stack, unique_phone())
    number = claims(owner["idToken"])["phone_number"]
    other = verified_user(stack)
    answer = sign_in(stack, number, idToken=other["idToken"])
    assert set(answer) >= {"temporaryProof", "phoneNumber"} and "idToken" not in answer
    assert answer["phoneNumber"] == number
    # The proof signs in to the number's account, once; the other user kept no number.
    proven = accounts(stack).signInWithPhoneNumber(
        body={"phoneNumber": number, "temporaryProof": answer["temporaryProof"]}).execute()
    assert proven["localId"] == owner["localId"]
    assert failure(accounts(stack).signInWithPhoneNumber(
        body={"phoneNumber": number, "temporaryProof": answer["temporaryProof"]})) == "INVALID_TEMPORARY_PROOF"
    assert "phoneNumber" not in accounts(stack).lookup(body={"idToken": other["idToken"]}).execute()["users"][0]


def test_a_user_with_second_factors_cannot_link_a_phone_as_first_factor(stack):
    user = verified_user(stack)
    number = unique_phone()
    started = v2(stack, "mfaEnrollment:start", idToken=user["idToken"],
                 phoneEnrollmentInfo={"phoneNumber": number, "recaptchaToken": RECAPTCHA}).json()
    session = started["phoneSessionInfo"]["sessionInfo"]
    enrolled = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                  phoneVerificationInfo={"sessionInfo": session, "code": sms_code(stack, session)})
    assert enrolled.status_code == 200, enrolled.text
    link_session = send_code(stack, unique_phone()).execute()["sessionInfo"]
    link = accounts(stack).signInWithPhoneNumber(body={
        "sessionInfo": link_session, "code": sms_code(stack, link_session), "idToken": enrolled.json()["idToken"]})
    assert failure(link) == UNSUPPORTED


@pytest.mark.parametrize("number", [None, "", "12345", "+1 555 0100", "+" + "1" * 16, 15555550100])
def test_a_malformed_number_is_an_invalid_format(stack, number):
    body = {"recaptchaToken": RECAPTCHA} | ({} if number is None else {"phoneNumber": number})
    assert failure(accounts(stack).sendVerificationCode(body=body)) == "INVALID_PHONE_NUMBER : Invalid format."


def test_tenants_are_refused(stack):
    from test_tenants import create_tenant
    tenant = create_tenant(stack, "PhoneFirst")
    assert failure(send_code(stack, unique_phone(), tenantId=tenant)) == "UNSUPPORTED_TENANT_OPERATION"
    assert failure(accounts(stack).signInWithPhoneNumber(
        body={"sessionInfo": "x", "code": "123456", "tenantId": tenant})) == "UNSUPPORTED_TENANT_OPERATION"


@pytest.fixture(scope="module")
def limited_stack(stack):
    with another_stack(stack, "phone-limits", extra_env={
        "SMS_RATE_LIMIT_PER_NUMBER_BURST": "2", "SMS_RATE_LIMIT_PER_NUMBER_PER_HOUR": "1"}) as running:
        yield running


def test_codes_to_one_number_are_limited_like_mfa_codes(limited_stack):
    number = unique_phone()
    assert send_code(limited_stack, number).execute()["sessionInfo"]
    assert send_code(limited_stack, number).execute()["sessionInfo"]
    assert failure(send_code(limited_stack, number)) == "TOO_MANY_ATTEMPTS_TRY_LATER"
