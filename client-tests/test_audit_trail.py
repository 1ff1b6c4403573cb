"""The audit trail: every security event a real flow causes is written by the service that made the
change, in the same transaction, and read back through the admin API (filters, pages), per tenant;
no secret, code, password or whole phone number is in it; a failed event write undoes its change."""

import hashlib
import json
import secrets
import time
from datetime import datetime, timezone

import requests

from mfa_helpers import ADMIN, RECAPTCHA, V1, V2, error, sms_code, unique_phone, v1, v2, verified_user
from rest_client import last_mail
from test_mfa_totp import claims, enroll_totp, later_code, sign_in_pending

TENANTS = "/v2/projects/demo-project/tenants"
OWNER = "admin:" + hashlib.sha256(b"owner").hexdigest()[:12]


def trail(stack, tenant=None, **query):
    path = "/v2/projects/demo-project" + (f"/tenants/{tenant}" if tenant else "") + "/securityEvents"
    answer = requests.get(stack.gateway + path, params=query, headers=ADMIN, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def all_events(stack, tenant=None, **query):
    """Every page, newest first."""
    events, token = [], None
    while True:
        page = trail(stack, tenant, **query, **({"pageToken": token} if token else {}))
        events += page["events"]
        token = page.get("nextPageToken")
        if not token:
            return events


def refresh(stack, token):
    return requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                         data={"grant_type": "refresh_token", "refresh_token": token}, timeout=30)


def test_a_users_security_events_are_recorded_and_read_back(stack):
    started = datetime.now(timezone.utc).isoformat()
    user = verified_user(stack)
    local_id = user["localId"]
    assert error(v1(stack, "signInWithPassword", email=user["email"], password="not-the-password")) == "INVALID_PASSWORD"
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    pending = sign_in_pending(stack, user)
    wrong = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"], mfaEnrollmentId=enrollment_id,
               totpVerificationInfo={"verificationCode": "000000" if totp.now() != "000000" else "111111"})
    assert error(wrong) == "INVALID_CODE"
    finished = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                  mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": later_code(totp)})
    assert finished.status_code == 200, finished.text
    tokens = finished.json()
    changed = v1(stack, "update", idToken=tokens["idToken"], password="brand-new-pw", returnSecureToken=True)
    assert changed.status_code == 200, changed.text
    fresh = changed.json()
    # A refresh token used twice: the family is revoked.
    assert refresh(stack, fresh["refreshToken"]).status_code == 200
    assert refresh(stack, fresh["refreshToken"]).status_code == 400
    relogged = sign_in_pending(stack, {**user, "password": "brand-new-pw"})
    done = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=relogged["mfaPendingCredential"],
              mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": later_code(totp, 2)})
    assert done.status_code == 200, done.text
    withdrawn = v2(stack, "mfaEnrollment:withdraw", idToken=done.json()["idToken"], mfaEnrollmentId=enrollment_id)
    assert withdrawn.status_code == 200, withdrawn.text

    events = all_events(stack, localId=local_id, startTime=started)
    kinds = [event["type"] for event in reversed(events)]
    assert kinds == [
        "signIn.succeeded", "signIn.failed", "factor.enrolled", "signIn.succeeded", "secondFactor.failed",
        "secondFactor.succeeded", "password.changed", "tokenFamily.revoked", "signIn.succeeded", "secondFactor.succeeded",
        "factor.withdrawn",
    ], kinds
    by_type = {event["type"]: event for event in events}
    assert by_type["signIn.failed"]["details"] == {"factor": "password", "reason": "INVALID_PASSWORD"}
    assert by_type["factor.enrolled"]["details"] == {"kind": "totp", "enrollmentId": enrollment_id}
    assert by_type["factor.enrolled"]["source"] == "factor-registry"
    assert by_type["secondFactor.failed"]["source"] == "challenge-issuer"
    assert by_type["tokenFamily.revoked"]["source"] == "session-token"
    for event in events:
        assert event["localId"] == local_id and event["actor"] == "user"
        assert event["clientAddress"] and event["userAgent"].startswith("python-requests/")
    # Nothing secret: no password, no code, no TOTP secret, no token.
    text = json.dumps(events)
    for secret in ["secret-pw", "brand-new-pw", totp.secret, later_code(totp), tokens["refreshToken"], user["email"]]:
        assert secret not in text
    # Filters and pages.
    assert [e["type"] for e in all_events(stack, localId=local_id, eventTypes="factor.enrolled,factor.withdrawn")] == \
        ["factor.withdrawn", "factor.enrolled"]
    paged = all_events(stack, localId=local_id, startTime=started, pageSize=2)
    assert [(e["source"], e["id"]) for e in paged] == [(e["source"], e["id"]) for e in events]
    assert len(trail(stack, localId=local_id, pageSize=3)["events"]) == 3
    # The JSON-lines export holds the same events.
    exported = requests.get(f"{stack.gateway}/v2/projects/demo-project/securityEvents:export", headers=ADMIN, timeout=30,
                            params={"localId": local_id, "startTime": started})
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("application/x-ndjson")
    assert [json.loads(line) for line in exported.text.splitlines()] == events
    assert requests.get(f"{stack.gateway}/v2/projects/demo-project/securityEvents:export?key=k", timeout=30).status_code == 400


def test_an_sms_refusal_and_an_admins_changes_are_recorded_in_the_tenant_alone(stack):
    created = requests.post(stack.gateway + TENANTS, headers=ADMIN, timeout=60, json={
        "displayName": "Audited", "allowPasswordSignup": True, "mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]},
        "smsDefenseConfig": {"prefixHourlyLimit": 1}, "testPhoneNumbers": {"+15555550199": "654321"}})
    assert created.status_code == 200, created.text
    tenant = created.json()["tenantId"]
    patched = requests.patch(f"{stack.gateway}{TENANTS}/{tenant}?updateMask=enableAnonymousUser", headers=ADMIN, timeout=30,
                             json={"enableAnonymousUser": True})
    assert patched.status_code == 200, patched.text
    change = all_events(stack, tenant, eventTypes="config.changed")
    assert len(change) == 1 and change[0]["actor"] == OWNER and change[0].get("localId") is None
    before, after = json.loads(change[0]["details"]["before"]), json.loads(change[0]["details"]["after"])
    assert before["enableAnonymousUser"] is False and after["enableAnonymousUser"] is True
    assert "654321" not in change[0]["details"]["before"] + change[0]["details"]["after"]
    # The same PATCH again changes nothing, and nothing is recorded (issue 58).
    again = requests.patch(f"{stack.gateway}{TENANTS}/{tenant}?updateMask=enableAnonymousUser", headers=ADMIN, timeout=30,
                           json={"enableAnonymousUser": True})
    assert again.status_code == 200, again.text
    assert len(all_events(stack, tenant, eventTypes="config.changed")) == 1

    user = verified_user(stack, tenant=tenant)
    number = "+1650555" + str(secrets.randbelow(10**4)).zfill(4)
    body = {"idToken": user["idToken"], "tenantId": tenant, "phoneEnrollmentInfo": {"phoneNumber": number, "recaptchaToken": RECAPTCHA}}
    assert requests.post(f"{stack.gateway}{V2}mfaEnrollment:start?key=k", json=body, timeout=30).status_code == 200
    body["phoneEnrollmentInfo"]["phoneNumber"] = number[:-1] + str((int(number[-1]) + 1) % 10)
    refused = requests.post(f"{stack.gateway}{V2}mfaEnrollment:start?key=k", json=body, timeout=30)
    assert error(refused) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    [sms] = all_events(stack, tenant, eventTypes="sms.refused")
    assert sms["localId"] == user["localId"] and sms["details"] == {"region": "US", "reason": "prefix_velocity"}
    assert number[1:] not in json.dumps(all_events(stack, tenant))
    # Each scope sees its own trail only.
    assert all_events(stack, localId=user["localId"]) == []
    assert all(event["type"] != "config.changed" or event["actor"] == OWNER for event in all_events(stack, tenant))
    metrics = requests.get(stack.ops("factor-registry") + "/metrics", timeout=30).text
    assert f'scope="t_{tenant}"' in metrics and 'type="config.changed"' in metrics


def test_a_change_whose_event_cannot_be_written_does_not_happen(stack):
    created = requests.post(stack.gateway + TENANTS, headers=ADMIN, timeout=60,
                            json={"displayName": "Strict", "allowPasswordSignup": True})
    tenant = created.json()["tenantId"]
    user = verified_user(stack, tenant=tenant)
    table = f'"t_{tenant}".security_events'
    stack.query("factor-registry", f"ALTER TABLE {table} ADD CONSTRAINT refuse_all CHECK (false) NOT VALID")
    try:
        changed = requests.post(f"{stack.gateway}{V1}update?key=k", timeout=30,
                                json={"idToken": user["idToken"], "tenantId": tenant, "password": "changed-pw"})
        assert changed.status_code >= 500, changed.text
    finally:
        stack.query("factor-registry", f"ALTER TABLE {table} DROP CONSTRAINT refuse_all")
    # The password did not change: the old one still signs in, the new one does not.
    old = v1(stack, "signInWithPassword", email=user["email"], password=user["password"], tenantId=tenant)
    assert old.status_code == 200, old.text
    assert error(v1(stack, "signInWithPassword", email=user["email"], password="changed-pw", tenantId=tenant)) == "INVALID_PASSWORD"
    assert all_events(stack, tenant, localId=user["localId"], eventTypes="password.changed") == []


def test_the_trail_is_for_admins_and_answers_bad_filters_with_400(stack):
    url = f"{stack.gateway}/v2/projects/demo-project/securityEvents"
    assert requests.get(url + "?key=k", timeout=30).status_code != 200
    assert requests.get(url, params={"startTime": "yesterday"}, headers=ADMIN, timeout=30).status_code == 400
    assert requests.get(url, params={"pageToken": "not-a-token"}, headers=ADMIN, timeout=30).status_code == 400
    assert requests.get(url, params={"pageSize": "many"}, headers=ADMIN, timeout=30).status_code == 400
    assert requests.get(f"{stack.gateway}{TENANTS}/nosuchtenant-0123/securityEvents", headers=ADMIN, timeout=30).status_code == 400


def test_a_throttled_factor_is_recorded_as_a_tripped_limit(stack):
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    wrong = "000000" if totp.now() != "000000" else "111111"
    answers = []
    for _ in range(6):
        pending = sign_in_pending(stack, user)
        answers.append(error(v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                                mfaEnrollmentId=enrollment_id, totpVerificationInfo={"verificationCode": wrong})))
    assert answers == ["INVALID_CODE"] * 5 + ["TOO_MANY_ATTEMPTS_TRY_LATER"]
    events = all_events(stack, localId=user["localId"], eventTypes="secondFactor.failed,rateLimit.tripped")
    assert [event["type"] for event in events] == ["rateLimit.tripped"] + ["secondFactor.failed"] * 5
    assert events[0]["details"] == {"limit": "TOTP codes per factor", "enrollmentId": enrollment_id}


def test_an_email_link_sign_in_is_recorded(stack):
    email = f"audit-link-{secrets.token_hex(4)}@example.com"
    config = f"{stack.gateway}/v2/projects/demo-project/config?updateMask=signIn.email.passwordRequired"
    assert requests.patch(config, headers=ADMIN, json={"signIn": {"email": {"passwordRequired": False}}}, timeout=30).status_code == 200
    try:
        sent = v1(stack, "sendOobCode", requestType="EMAIL_SIGNIN", email=email, continueUrl="http://localhost/done",
                  canHandleCodeInApp=True)
        assert sent.status_code == 200, sent.text
        code = last_mail(stack, email, "EMAIL_SIGNIN")["oobCode"]
        signed_in = v1(stack, "signInWithEmailLink", email=email, oobCode=code)
        assert signed_in.status_code == 200, signed_in.text
    finally:
        requests.patch(config, headers=ADMIN, json={"signIn": {"email": {"passwordRequired": True}}}, timeout=30)
    [event] = all_events(stack, localId=signed_in.json()["localId"], eventTypes="signIn.succeeded")
    assert event["details"] == {"factor": "emailLink"}
    # The admin's two settings changes are in the project's trail, with the credential that made them.
    changes = trail(stack, eventTypes="config.changed", pageSize=2)["events"]
    assert [json.loads(c["details"]["after"])["enableEmailLinkSignin"] for c in changes] == [False, True]
    assert {c["actor"] for c in changes} == {OWNER}


def test_an_email_change_an_sms_second_factor_and_a_custom_token_are_recorded(stack):
    user = verified_user(stack)
    new_email = f"audit-new-{secrets.token_hex(4)}@example.com"
    sent = v1(stack, "sendOobCode", requestType="VERIFY_AND_CHANGE_EMAIL", idToken=user["idToken"], newEmail=new_email)
    assert sent.status_code == 200, sent.text
    applied = v1(stack, "update", oobCode=last_mail(stack, new_email, "VERIFY_AND_CHANGE_EMAIL")["oobCode"])
    assert applied.status_code == 200, applied.text
    [changed] = all_events(stack, localId=user["localId"], eventTypes="email.changed")
    assert changed["details"] == {"via": "VERIFY_AND_CHANGE_EMAIL"} and new_email not in json.dumps(changed)
    # An SMS second factor: enrolled, then a wrong and a right code at sign-in.
    signed_in = v1(stack, "signInWithPassword", email=new_email, password=user["password"]).json()
    number = unique_phone()
    start = v2(stack, "mfaEnrollment:start", idToken=signed_in["idToken"],
               phoneEnrollmentInfo={"phoneNumber": number, "recaptchaToken": RECAPTCHA})
    session = start.json()["phoneSessionInfo"]["sessionInfo"]
    enrolled = v2(stack, "mfaEnrollment:finalize", idToken=signed_in["idToken"],
                  phoneVerificationInfo={"sessionInfo": session, "code": sms_code(stack, session)})
    assert enrolled.status_code == 200, enrolled.text
    pending = v1(stack, "signInWithPassword", email=new_email, password=user["password"]).json()
    begun = v2(stack, "mfaSignIn:start", mfaPendingCredential=pending["mfaPendingCredential"],
               mfaEnrollmentId=pending["mfaInfo"][0]["mfaEnrollmentId"], phoneSignInInfo={"recaptchaToken": RECAPTCHA})
    session = begun.json()["phoneResponseInfo"]["sessionInfo"]
    code = sms_code(stack, session)
    wrong = str((int(code) + 1) % 10**6).zfill(6)
    finish = dict(mfaPendingCredential=pending["mfaPendingCredential"])
    assert error(v2(stack, "mfaSignIn:finalize", **finish, phoneVerificationInfo={"sessionInfo": session, "code": wrong})) == "INVALID_CODE"
    assert v2(stack, "mfaSignIn:finalize", **finish, phoneVerificationInfo={"sessionInfo": session, "code": code}).status_code == 200
    second = all_events(stack, localId=user["localId"], eventTypes="secondFactor.succeeded,secondFactor.failed,factor.enrolled")
    assert [(e["type"], e["details"].get("kind")) for e in second] == [
        ("secondFactor.succeeded", "phone"), ("secondFactor.failed", "phone"), ("factor.enrolled", "phone")]
    assert second[2]["details"]["phoneEnding"] == number[-2:] and number not in json.dumps(second)
    # A custom token (the emulator's unsigned form, development mode).
    uid = f"audit-custom-{secrets.token_hex(4)}"
    custom = requests.post(f"{stack.gateway}{V1}signInWithCustomToken?key=k", timeout=30,
                           json={"token": json.dumps({"uid": uid})})
    assert custom.status_code == 200, custom.text
    assert [e["details"] for e in all_events(stack, localId=uid)] == [{"factor": "customToken"}]
