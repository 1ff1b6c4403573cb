"""MFA policy beyond Identity Platform (docs/mfa-policy.md), driven through Google's generated client:
MANDATORY enforced with enrollment-only sessions and a grace period, step-up for sensitive changes, and
recovery codes shown to the SDKs as one TOTP-shaped factor. Each test works in its own tenant, whose
settings are its own."""

import json
import secrets
import time

import pyotp
import pytest
import requests

from mfa_helpers import ADMIN
from rest_client import claims, failure, identitytoolkit, last_mail, link_query, refresh
from test_tenants import admin_app  # noqa: F401 (a fixture: firebase-admin with a service-account key)

TOTP_ON = [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]
RECOVERY_PATH = "/identitytoolkit.googleapis.com/v2/accounts/mfaRecoveryCodes"


def tenant(stack, **mfa):
    """A tenant with password sign-in and the given mfaConfig members over TOTP and SMS enabled."""
    config = {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"], "providerConfigs": TOTP_ON, **mfa}
    answer = requests.post(f"{stack.gateway}/v2/projects/demo-project/tenants", headers=ADMIN, timeout=30, json={
        "displayName": "Policy", "allowPasswordSignup": True, "mfaConfig": config})
    assert answer.status_code == 200, answer.text
    return answer.json()


def patch_tenant(stack, tenant_id, mfa):
    answer = requests.patch(f"{stack.gateway}/v2/projects/demo-project/tenants/{tenant_id}?updateMask=mfaConfig",
                            headers=ADMIN, timeout=30, json={"mfaConfig": mfa})
    assert answer.status_code == 200, answer.text
    return answer.json()


def v1(stack):
    return identitytoolkit(stack, "v1").accounts()


def v2(stack):
    return identitytoolkit(stack, "v2").accounts()


def sign_up(stack, tenant_id, verified=True):
    """A new email/password user of the tenant (email verified by an admin): its sign-up answer."""
    email = f"policy-{secrets.token_hex(5)}@example.com"
    signed_up = v1(stack).signUp(body={"email": email, "password": "secret-pw", "tenantId": tenant_id}).execute()
    if verified:
        answer = requests.post(
            f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/tenants/{tenant_id}/accounts:update",
            json={"localId": signed_up["localId"], "emailVerified": True}, headers=ADMIN, timeout=30)
        assert answer.status_code == 200, answer.text
    return {**signed_up, "email": email, "password": "secret-pw", "tenantId": tenant_id}


def sign_in(stack, user):
    return v1(stack).signInWithPassword(body={
        "email": user["email"], "password": user["password"], "tenantId": user["tenantId"]}).execute()


def enroll_totp(stack, id_token, tenant_id):
    enrollment = v2(stack).mfaEnrollment()
    started = enrollment.start(body={"idToken": id_token, "tenantId": tenant_id, "totpEnrollmentInfo": {}}).execute()
    info = started["totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"])
    finalized = enrollment.finalize(body={
        "idToken": id_token, "tenantId": tenant_id, "displayName": "Phone app",
        "totpVerificationInfo": {"sessionInfo": info["sessionInfo"], "verificationCode": totp.now()}}).execute()
    return totp, finalized


def second_factor(stack, pending, tenant_id, enrollment_id, code):
    return v2(stack).mfaSignIn().finalize(body={
        "mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": enrollment_id, "tenantId": tenant_id,
        "totpVerificationInfo": {"verificationCode": code}})


def recovery(stack, verb, body):
    return requests.post(f"{stack.gateway}{RECOVERY_PATH}:{verb}?key=k", json=body, timeout=30)


def error(answer):
    return answer.json()["error"]["message"]


# MANDATORY

def test_mandatory_gives_a_user_without_a_factor_a_session_that_can_only_enroll_one(stack):
    created = tenant(stack, state="MANDATORY", enrollmentGracePeriod="3600s")
    tenant_id = created["tenantId"]
    assert created["mfaConfig"]["enrollmentGracePeriod"] == "3600s"
    assert created["mfaConfig"]["mandatorySince"].endswith("Z")
    user = sign_up(stack, tenant_id)
    signed_in = sign_in(stack, user)
    token = claims(signed_in["idToken"])
    assert token["firebase"]["mfa_enrollment_required"] is True
    deadline = token["firebase"]["mfa_enrollment_deadline"]
    assert 3500 < deadline - time.time() <= 3600
    id_token = signed_in["idToken"]
    # What it may do: look itself up, ask for its email to be verified, refresh, enroll.
    looked_up = v1(stack).lookup(body={"idToken": id_token, "tenantId": tenant_id}).execute()
    assert looked_up["users"][0]["localId"] == user["localId"]
    refreshed = refresh(stack, signed_in["refreshToken"])
    assert refreshed.status_code == 200, refreshed.text
    assert claims(refreshed.json()["id_token"])["firebase"]["mfa_enrollment_required"] is True
    sent = v1(stack).sendOobCode(body={"requestType": "VERIFY_EMAIL", "idToken": id_token, "tenantId": tenant_id}).execute()
    assert sent["email"] == user["email"]
    # Everything else: OPERATION_NOT_ALLOWED, with a detail an app can recognise.
    refused = [
        v1(stack).update(body={"idToken": id_token, "tenantId": tenant_id, "displayName": "Mallory"}),
        v1(stack).update(body={"idToken": id_token, "tenantId": tenant_id, "password": "other-password"}),
        v1(stack).delete(body={"idToken": id_token, "tenantId": tenant_id}),
    ]
    for call in refused:
        status, message = failure(call)
        assert status == 400 and message.startswith("OPERATION_NOT_ALLOWED : MFA_ENROLLMENT_REQUIRED"), message
    # Nor can a backend turn it into a session cookie (the Admin SDKs' create_session_cookie).
    cookie = requests.post(f"{stack.gateway}/v1/projects/demo-project:createSessionCookie", headers=ADMIN, timeout=30,
                           json={"idToken": id_token, "validDuration": "3600"})
    assert cookie.status_code == 400 and "MFA_ENROLLMENT_REQUIRED" in error(cookie), cookie.text
    # Enrolling lifts it: the new session is a full one, and the old enrollment-only one has ended.
    totp, enrolled = enroll_totp(stack, id_token, tenant_id)
    full = claims(enrolled["idToken"])
    assert "mfa_enrollment_required" not in full["firebase"]
    assert full["firebase"]["sign_in_second_factor"] == "totp"
    assert abs(full["firebase"]["second_factor_auth_time"] - time.time()) < 30
    assert refresh(stack, refreshed.json()["refresh_token"]).json()["error"]["message"] == "TOKEN_EXPIRED"
    renamed = v1(stack).update(body={"idToken": enrolled["idToken"], "tenantId": tenant_id, "displayName": "Me"}).execute()
    assert renamed["displayName"] == "Me"
    # From now on the factor is asked for, as under ENABLED.
    pending = sign_in(stack, user)
    assert "mfaPendingCredential" in pending and "idToken" not in pending


def test_mandatory_refuses_sign_in_without_a_factor_once_the_grace_period_has_run_out(stack):
    tenant_id = tenant(stack, state="MANDATORY", enrollmentGracePeriod="3s")["tenantId"]
    user = sign_up(stack, tenant_id)
    signed_in = sign_in(stack, user)
    assert claims(signed_in["idToken"])["firebase"]["mfa_enrollment_required"] is True
    time.sleep(4)
    status, message = failure(v1(stack).signInWithPassword(body={
        "email": user["email"], "password": user["password"], "tenantId": tenant_id}))
    assert status == 400 and message.startswith("OPERATION_NOT_ALLOWED : MFA_ENROLLMENT_REQUIRED"), message
    # The session it had ends too: its refresh is TOKEN_EXPIRED (the SDKs sign the user out), and its
    # ID token can no longer enroll.
    assert refresh(stack, signed_in["refreshToken"]).json()["error"]["message"] == "TOKEN_EXPIRED"
    status, message = failure(v2(stack).mfaEnrollment().start(body={
        "idToken": signed_in["idToken"], "tenantId": tenant_id, "totpEnrollmentInfo": {}}))
    assert message == "TOKEN_EXPIRED"
    # A wrong password is still told as one: the grace period reveals nothing without the password.
    status, message = failure(v1(stack).signInWithPassword(body={
        "email": user["email"], "password": "wrong-password", "tenantId": tenant_id}))
    assert "MFA_ENROLLMENT_REQUIRED" not in message


def test_the_grace_period_counts_from_when_the_scope_became_mandatory_and_enabled_changes_nothing(stack):
    created = tenant(stack, state="ENABLED")
    tenant_id = created["tenantId"]
    assert "mandatorySince" not in created["mfaConfig"]
    user = sign_up(stack, tenant_id)
    assert "mfa_enrollment_required" not in claims(sign_in(stack, user)["idToken"])["firebase"]
    time.sleep(2)
    config = {"state": "MANDATORY", "enabledProviders": ["PHONE_SMS"], "providerConfigs": TOTP_ON,
              "enrollmentGracePeriod": "2s"}
    since = patch_tenant(stack, tenant_id, config)["mfaConfig"]["mandatorySince"]
    # The account is older than the grace period, but the scope became MANDATORY just now.
    assert claims(sign_in(stack, user)["idToken"])["firebase"]["mfa_enrollment_required"] is True
    # Stored again while still MANDATORY: the moment stays.
    assert patch_tenant(stack, tenant_id, {**config, "enrollmentGracePeriod": "3s"})["mfaConfig"]["mandatorySince"] == since
    for bad in ["-1s", "7776001s", "soon"]:
        answer = requests.patch(f"{stack.gateway}/v2/projects/demo-project/tenants/{tenant_id}?updateMask=mfaConfig",
                                headers=ADMIN, timeout=30, json={"mfaConfig": {**config, "enrollmentGracePeriod": bad}})
        assert answer.status_code == 400, answer.text


# Step-up

def test_step_up_refuses_sensitive_changes_without_a_recent_second_factor_until_the_user_passes_one(stack):
    tenant_id = tenant(stack, stepUpMaxAge="60s")["tenantId"]
    user = sign_up(stack, tenant_id)
    totp, enrolled = enroll_totp(stack, sign_in(stack, user)["idToken"], tenant_id)
    enrollment_id = v1(stack).lookup(body={"idToken": enrolled["idToken"], "tenantId": tenant_id}).execute()[
        "users"][0]["mfaInfo"][0]["mfaEnrollmentId"]
    # A session re-issued by a password change has no second factor of its own.
    changed = v1(stack).update(body={"idToken": enrolled["idToken"], "tenantId": tenant_id,
                                     "password": "new-secret-pw"}).execute()
    no_factor = changed["idToken"]
    assert "second_factor_auth_time" not in claims(no_factor)["firebase"]
    too_old = "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    for call in [
        v1(stack).update(body={"idToken": no_factor, "tenantId": tenant_id, "password": "third-secret-pw"}),
        v1(stack).delete(body={"idToken": no_factor, "tenantId": tenant_id}),
        v2(stack).mfaEnrollment().withdraw(body={"idToken": no_factor, "tenantId": tenant_id, "mfaEnrollmentId": enrollment_id}),
        v2(stack).mfaEnrollment().start(body={"idToken": no_factor, "tenantId": tenant_id, "totpEnrollmentInfo": {}}),
    ]:
        assert failure(call) == (400, too_old)
    # Harmless changes go through.
    assert v1(stack).update(body={"idToken": no_factor, "tenantId": tenant_id, "displayName": "X"}).execute()
    # Reauthentication as the SDKs do it: the password, then the resolver's second factor.
    pending = v1(stack).signInWithPassword(body={
        "email": user["email"], "password": "new-secret-pw", "tenantId": tenant_id}).execute()
    passed = second_factor(stack, pending, tenant_id, enrollment_id, totp.at(time.time() + 30)).execute()
    stepped_up = claims(passed["idToken"])
    assert abs(stepped_up["firebase"]["second_factor_auth_time"] - time.time()) < 30
    # A refresh keeps the time (it passed no factor).
    refreshed = refresh(stack, passed["refreshToken"]).json()
    assert claims(refreshed["id_token"])["firebase"]["second_factor_auth_time"] == stepped_up["firebase"]["second_factor_auth_time"]
    withdrawn = v2(stack).mfaEnrollment().withdraw(body={
        "idToken": refreshed["id_token"], "tenantId": tenant_id, "mfaEnrollmentId": enrollment_id}).execute()
    assert withdrawn == {}


# Recovery codes

def user_with_codes(stack, tenant_id):
    user = sign_up(stack, tenant_id)
    totp, enrolled = enroll_totp(stack, sign_in(stack, user)["idToken"], tenant_id)
    generated = recovery(stack, "generate", {"idToken": enrolled["idToken"], "tenantId": tenant_id})
    assert generated.status_code == 200, generated.text
    return user, totp, enrolled, generated.json()


def test_recovery_codes_sign_in_through_the_stock_resolver_once_each_in_any_order(stack):
    tenant_id = tenant(stack)["tenantId"]
    user, totp, enrolled, generated = user_with_codes(stack, tenant_id)
    codes = generated["recoveryCodes"]
    assert len(codes) == 10 and len(set(codes)) == 10 and generated["remaining"] == 10
    assert all(len(code) == 19 and code.count("-") == 3 for code in codes)
    set_id = generated["mfaEnrollmentId"]
    # The resolver lists one TOTP-shaped entry named "Recovery codes".
    pending = sign_in(stack, user)
    entry = next(item for item in pending["mfaInfo"] if item["mfaEnrollmentId"] == set_id)
    assert entry == {"mfaEnrollmentId": set_id, "displayName": "Recovery codes", "totpInfo": {},
                     "enrolledAt": entry["enrolledAt"]}
    # The last code first, typed loosely (lower case, spaces for dashes).
    loose = codes[9].lower().replace("-", " ")
    passed = second_factor(stack, pending, tenant_id, set_id, loose).execute()
    token = claims(passed["idToken"])
    assert token["firebase"]["sign_in_second_factor"] == "recovery_code"
    assert token["firebase"]["second_factor_identifier"] == set_id
    # The same code never again; another one does.
    again = sign_in(stack, user)
    assert failure(second_factor(stack, again, tenant_id, set_id, codes[9])) == (400, "INVALID_CODE")
    assert "idToken" in second_factor(stack, again, tenant_id, set_id, codes[0]).execute()
    counted = recovery(stack, "lookup", {"idToken": passed["idToken"], "tenantId": tenant_id}).json()
    assert counted["remaining"] == 8 and counted["mfaEnrollmentId"] == set_id
    # The admin sees the same count.
    admin = requests.post(f"{stack.gateway}/v2/projects/demo-project/tenants/{tenant_id}/accounts/mfaRecoveryCodes:lookup",
                          json={"localId": user["localId"]}, headers=ADMIN, timeout=30)
    assert admin.status_code == 200 and admin.json()["remaining"] == 8, admin.text


def test_regenerating_recovery_codes_kills_the_old_set_and_needs_a_recent_second_factor(stack):
    tenant_id = tenant(stack)["tenantId"]
    user, totp, enrolled, first = user_with_codes(stack, tenant_id)
    second = recovery(stack, "generate", {"idToken": enrolled["idToken"], "tenantId": tenant_id}).json()
    assert second["mfaEnrollmentId"] == first["mfaEnrollmentId"]
    assert not set(first["recoveryCodes"]) & set(second["recoveryCodes"])
    pending = sign_in(stack, user)
    assert failure(second_factor(stack, pending, tenant_id, first["mfaEnrollmentId"], first["recoveryCodes"][0])) == \
        (400, "INVALID_CODE")
    assert "idToken" in second_factor(stack, pending, tenant_id, first["mfaEnrollmentId"], second["recoveryCodes"][0]).execute()
    # A session without a second factor (a user with none, or a password change's) gets no codes.
    changed = v1(stack).update(body={"idToken": enrolled["idToken"], "tenantId": tenant_id, "password": "new-pw-123"}).execute()
    refused = recovery(stack, "generate", {"idToken": changed["idToken"], "tenantId": tenant_id})
    assert refused.status_code == 400 and error(refused) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", refused.text
    plain = sign_up(stack, tenant_id)
    none = recovery(stack, "generate", {"idToken": sign_in(stack, plain)["idToken"], "tenantId": tenant_id})
    assert none.status_code == 400 and error(none).startswith("MFA_ENROLLMENT_NOT_FOUND"), none.text


def test_recovery_codes_are_throttled_like_totp_guesses_and_bound_to_their_user_and_tenant(stack):
    tenant_id = tenant(stack)["tenantId"]
    user, totp, enrolled, generated = user_with_codes(stack, tenant_id)
    other, _, _, others = user_with_codes(stack, tenant_id)
    set_id = generated["mfaEnrollmentId"]
    # Another user's code, through another user's set id or this one's: nothing.
    pending = sign_in(stack, user)
    assert failure(second_factor(stack, pending, tenant_id, set_id, others["recoveryCodes"][0]))[1] == "INVALID_CODE"
    assert failure(second_factor(stack, pending, tenant_id, others["mfaEnrollmentId"], others["recoveryCodes"][0]))[1] == \
        "MFA_ENROLLMENT_NOT_FOUND"
    # The same user and id in another tenant: no such factor there.
    elsewhere = tenant(stack)["tenantId"]
    stranger = sign_up(stack, elsewhere)
    enroll_totp(stack, sign_in(stack, stranger)["idToken"], elsewhere)
    foreign = sign_in(stack, stranger)
    assert failure(second_factor(stack, foreign, elsewhere, set_id, generated["recoveryCodes"][1]))[1] == \
        "MFA_ENROLLMENT_NOT_FOUND"
    # Wrong guesses run into the same limit as TOTP codes; then even a right code waits.
    messages = []
    for _ in range(12):
        pending = sign_in(stack, user)
        messages.append(failure(second_factor(stack, pending, tenant_id, set_id, "AAAA-BBBB-CCCC-DDDD"))[1])
        if messages[-1] == "TOO_MANY_ATTEMPTS_TRY_LATER":
            break
    assert messages[-1] == "TOO_MANY_ATTEMPTS_TRY_LATER" and set(messages[:-1]) == {"INVALID_CODE"}, messages
    pending = sign_in(stack, user)
    assert failure(second_factor(stack, pending, tenant_id, set_id, generated["recoveryCodes"][2]))[1] == \
        "TOO_MANY_ATTEMPTS_TRY_LATER"


def test_a_recovery_code_use_is_audited_and_withdrawing_the_last_factor_takes_the_codes(stack):
    tenant_id = tenant(stack)["tenantId"]
    user, totp, enrolled, generated = user_with_codes(stack, tenant_id)
    set_id = generated["mfaEnrollmentId"]
    pending = sign_in(stack, user)
    passed = second_factor(stack, pending, tenant_id, set_id, generated["recoveryCodes"][3]).execute()
    # The owner is told, with a way to take the account back (a password reset) in case it was not them.
    notice = last_mail(stack, user["email"], "RECOVERY_CODE_USED", tenant_id)
    assert link_query(notice["oobLink"])["mode"] == "resetPassword"
    events = requests.get(f"{stack.gateway}/v2/projects/demo-project/tenants/{tenant_id}/securityEvents",
                          params={"localId": user["localId"]}, headers=ADMIN, timeout=30).json()["events"]
    kinds = {(event["type"], event["details"].get("kind")) for event in events}
    assert ("secondFactor.succeeded", "recovery_code") in kinds and ("recoveryCodes.generated", None) in kinds
    assert all(code not in str(events) for code in generated["recoveryCodes"])
    totp_id = next(item["mfaEnrollmentId"] for item in pending["mfaInfo"] if item["mfaEnrollmentId"] != set_id)
    # The session a recovery code started ends when the codes go with the last factor.
    withdrawn = v2(stack).mfaEnrollment().withdraw(body={
        "idToken": passed["idToken"], "tenantId": tenant_id, "mfaEnrollmentId": totp_id}).execute()
    assert withdrawn == {}
    account = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/tenants/{tenant_id}"
                            "/accounts:lookup", json={"localId": [user["localId"]]}, headers=ADMIN, timeout=30).json()
    assert "mfaInfo" not in account["users"][0]
    assert refresh(stack, passed["refreshToken"]).json()["error"]["message"] == "TOKEN_EXPIRED"
    # The notice's link resets the password.
    reset = v1(stack).resetPassword(body={"oobCode": notice["oobCode"], "newPassword": "taken-back-pw",
                                          "tenantId": tenant_id}).execute()
    assert reset["requestType"] == "PASSWORD_RESET"


# What firebase-admin sees

def test_firebase_admin_sees_the_enrollment_only_claim_and_the_time_of_the_second_factor(stack, admin_app):
    from firebase_admin import tenant_mgt

    tenant_id = tenant(stack, state="MANDATORY")["tenantId"]
    scoped = tenant_mgt.auth_for_tenant(tenant_id, app=admin_app)
    user = sign_up(stack, tenant_id)
    # A backend verifying the token with the Admin SDK sees that it may only enroll.
    decoded = scoped.verify_id_token(sign_in(stack, user)["idToken"])
    assert decoded["firebase"]["mfa_enrollment_required"] is True
    assert decoded["firebase"]["mfa_enrollment_deadline"] > time.time()
    # Enrolled: a full session, with the time its second factor was passed; a recovery code's
    # sign-in says so.
    _, enrolled = enroll_totp(stack, sign_in(stack, user)["idToken"], tenant_id)
    full = scoped.verify_id_token(enrolled["idToken"])
    assert "mfa_enrollment_required" not in full["firebase"] and full["firebase"]["second_factor_auth_time"] > 0
    generated = recovery(stack, "generate", {"idToken": enrolled["idToken"], "tenantId": tenant_id}).json()
    pending = sign_in(stack, user)
    passed = second_factor(stack, pending, tenant_id, generated["mfaEnrollmentId"], generated["recoveryCodes"][0]).execute()
    assert scoped.verify_id_token(passed["idToken"])["firebase"]["sign_in_second_factor"] == "recovery_code"
    # The Admin SDK's user management keeps working for such a user (the set is one more factor).
    assert scoped.get_user(user["localId"]).email == user["email"]


# What an operator sees

def test_an_operator_sees_who_has_no_factor_yet_and_how_many_recovery_codes_are_left(stack):
    from test_mfa_admin_cli import mfa_admin

    tenant_id = tenant(stack, state="MANDATORY", enrollmentGracePeriod="3600s")["tenantId"]
    waiting = sign_up(stack, tenant_id)
    sign_in(stack, waiting)
    listed = json.loads(mfa_admin(stack, "users", "unenrolled", "--tenant", tenant_id, "--json").stdout)
    entry = next(item for item in listed if item["localId"] == waiting["localId"])
    assert entry["email"] == waiting["email"] and entry["graceEndsAt"].endswith("Z")
    assert waiting["localId"] in mfa_admin(stack, "users", "unenrolled", "--tenant", tenant_id).stdout
    # The enrollment-only sessions are counted per scope.
    metrics = requests.get(stack.ops("session-token") + "/metrics", timeout=30).text
    assert f'mfa_enrollment_only_sessions_total{{scope="t_{tenant_id}"}}' in metrics
    # Recovery codes: how many are left, never which.
    user, _, _, generated = user_with_codes(stack, tenant_id)
    assert user["localId"] not in mfa_admin(stack, "users", "unenrolled", "--tenant", tenant_id).stdout
    shown = mfa_admin(stack, "factors", "recovery-codes", "--tenant", tenant_id, user["localId"]).stdout
    assert shown.startswith("10 recovery codes left") and generated["recoveryCodes"][0] not in shown
    assert "recovery codes" in mfa_admin(stack, "factors", "list", "--tenant", tenant_id, user["localId"]).stdout
    # The policy is set from the command line too.
    mfa_admin(stack, "mfa", "set", "--tenant", tenant_id, "--grace-period", "600", "--step-up", "120")
    shown = mfa_admin(stack, "mfa", "show", "--tenant", tenant_id).stdout
    assert "600s" in shown and "120s" in shown and "MANDATORY" in shown
