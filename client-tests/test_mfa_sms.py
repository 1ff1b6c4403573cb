"""SMS second factors end to end (§2.8-§2.12, §3.2, §3.10, decisions 7, 8, 10): enrollment and sign-in
with codes from the development sink, masked hints, app proof, test phone numbers, the region policy,
expiry, attempt and send limits, and a real HTTP SMS provider API receiving the message."""

import base64
import hashlib
import json
import re
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import pytest
import requests

from conftest import another_stack, free_port
from mfa_helpers import RECAPTCHA, error, sms_code, unique_phone, v1, v2, verified_user


def claims(token):
    return jwt.decode(token, options={"verify_signature": False})


def start_enrollment(stack, user, number, proof=None):
    info = {"phoneNumber": number, **(proof if proof is not None else {"recaptchaToken": RECAPTCHA})}
    return v2(stack, "mfaEnrollment:start", idToken=user["idToken"], phoneEnrollmentInfo=info,
              **({"tenantId": user["tenant"]} if user.get("tenant") else {}))


def enroll_phone(stack, user, number):
    started = start_enrollment(stack, user, number)
    assert started.status_code == 200, started.text
    session = started.json()["phoneSessionInfo"]["sessionInfo"]
    code = sms_code(stack, session, user.get("tenant"))
    finalized = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"], displayName="Work phone",
                   phoneVerificationInfo={"sessionInfo": session, "code": code})
    assert finalized.status_code == 200, finalized.text
    return finalized.json()


def pending_sign_in(stack, user):
    answer = v1(stack, "signInWithPassword", email=user["email"], password=user["password"],
                **({"tenantId": user["tenant"]} if user.get("tenant") else {}))
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_enroll_and_sign_in_with_an_sms_code(stack):
    user = verified_user(stack)
    number = unique_phone()
    enrolled = enroll_phone(stack, user, number)
    token = claims(enrolled["idToken"])
    assert token["firebase"]["sign_in_second_factor"] == "phone"
    enrollment_id = token["firebase"]["second_factor_identifier"]
    info = v1(stack, "lookup", idToken=enrolled["idToken"]).json()["users"][0]["mfaInfo"][0]
    assert info["phoneInfo"] == number and info["unobfuscatedPhoneInfo"] == number and info["displayName"] == "Work phone"

    pending = pending_sign_in(stack, user)
    hint = pending["mfaInfo"][0]
    assert hint["mfaEnrollmentId"] == enrollment_id and "unobfuscatedPhoneInfo" not in hint
    assert hint["phoneInfo"] == "+" + "*" * (len(number) - 5) + number[-4:]
    started = v2(stack, "mfaSignIn:start", mfaPendingCredential=pending["mfaPendingCredential"],
                 mfaEnrollmentId=enrollment_id, phoneSignInInfo={"recaptchaToken": RECAPTCHA})
    assert started.status_code == 200, started.text
    session = started.json()["phoneResponseInfo"]["sessionInfo"]
    code = sms_code(stack, session)
    finished = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                  phoneVerificationInfo={"sessionInfo": session, "code": code})
    assert finished.status_code == 200, finished.text
    signed_in = claims(finished.json()["idToken"])
    assert signed_in["firebase"]["sign_in_second_factor"] == "phone"
    assert signed_in["firebase"]["second_factor_identifier"] == enrollment_id
    # A used code leaves the development list; the session cannot be used again.
    listed = requests.get(f"{stack.gateway}/emulator/v1/projects/demo-project/verificationCodes", timeout=30).json()
    assert all(entry["sessionInfo"] != session for entry in listed["verificationCodes"])
    again = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending_sign_in(stack, user)["mfaPendingCredential"],
               phoneVerificationInfo={"sessionInfo": session, "code": code})
    assert error(again) == "INVALID_SESSION_INFO"
    # The same request again is the same sign-in (a retry after a lost answer): the same session.
    retried = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                 phoneVerificationInfo={"sessionInfo": session, "code": code})
    assert retried.status_code == 200 and retried.json()["refreshToken"] == finished.json()["refreshToken"], retried.text
    # The used session is kept, marked used, until it expires (for that retry); a session holds
    # only a salted hash of its code.
    stored = """SELECT encode(code_hash, 'hex') FROM "p_demo-project".verification_sessions WHERE session_id = '{}'"""
    used = """SELECT consumed_at IS NOT NULL FROM "p_demo-project".verification_sessions WHERE session_id = '{}'"""
    assert stack.query("challenge-issuer", used.format(hashlib.sha256(session.encode()).hexdigest())) == ["t"]
    reopened = v2(stack, "mfaSignIn:start", mfaPendingCredential=pending_sign_in(stack, user)["mfaPendingCredential"],
                  mfaEnrollmentId=enrollment_id, phoneSignInInfo={"recaptchaToken": RECAPTCHA})
    open_session = reopened.json()["phoneResponseInfo"]["sessionInfo"]
    open_code = sms_code(stack, open_session)
    rows = stack.query("challenge-issuer", stored.format(hashlib.sha256(open_session.encode()).hexdigest()))
    assert len(rows) == 1 and len(rows[0]) == 64 and open_code not in rows[0]


def test_enrollment_start_refusals_in_contract_order(stack):
    user = verified_user(stack)
    number = unique_phone()
    assert error(v2(stack, "mfaEnrollment:start", idToken=user["idToken"])) == \
        "INVALID_ARGUMENT : ((Missing phoneEnrollmentInfo.))"
    for bad in ["5555550100", "+1 650 555 0100", "+", "+1234567890123456"]:
        assert error(start_enrollment(stack, user, bad)) == "INVALID_PHONE_NUMBER : Invalid format."
    # App proofs are checked where a deployment checks them: test_app_verification.py (development
    # mode checks none, as the Auth emulator).
    enrolled = enroll_phone(stack, user, number)
    assert error(start_enrollment(stack, {**user, "idToken": enrolled["idToken"]}, number)) == \
        "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account."


def test_finalize_refusals_and_the_attempt_limit(stack):
    user = verified_user(stack)
    started = start_enrollment(stack, user, unique_phone()).json()["phoneSessionInfo"]["sessionInfo"]
    finalize = lambda **info: v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"], phoneVerificationInfo=info)
    assert error(v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"])) == \
        "INVALID_ARGUMENT : ((Missing phoneVerificationInfo.))"
    assert error(finalize(sessionInfo=started)) == "MISSING_CODE"
    assert error(finalize(code="123456")) == "MISSING_SESSION_INFO"
    assert error(finalize(sessionInfo="unknown", code="123456")) == "INVALID_SESSION_INFO"
    android = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                 phoneVerificationInfo={"sessionInfo": started, "code": "1", "androidVerificationProof": "x"})
    assert android.status_code == 501 and error(android) == "androidVerificationProof is unsupported!"
    right = sms_code(stack, started)
    wrong = "000000" if right != "000000" else "111111"
    for _ in range(5):
        assert error(finalize(sessionInfo=started, code=wrong)) == "INVALID_CODE"
    assert error(finalize(sessionInfo=started, code=right)) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    # Another user cannot finish someone else's session.
    mine = start_enrollment(stack, user, unique_phone()).json()["phoneSessionInfo"]["sessionInfo"]
    other = verified_user(stack)
    stolen = v2(stack, "mfaEnrollment:finalize", idToken=other["idToken"],
                phoneVerificationInfo={"sessionInfo": mine, "code": sms_code(stack, mine)})
    assert error(stolen) == "INVALID_SESSION_INFO"


def test_sign_in_start_refusals(stack):
    user = verified_user(stack)
    enrolled = enroll_phone(stack, user, unique_phone())
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    pending = pending_sign_in(stack, user)["mfaPendingCredential"]
    start = lambda **body: v2(stack, "mfaSignIn:start", **body)
    assert error(start(mfaEnrollmentId=enrollment_id)) == \
        "MISSING_MFA_PENDING_CREDENTIAL : Request does not have MFA pending credential."
    assert error(start(mfaPendingCredential=pending)) == \
        "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided."
    assert error(start(mfaPendingCredential="garbage", mfaEnrollmentId=enrollment_id)) == "INVALID_MFA_PENDING_CREDENTIAL"
    assert error(start(mfaPendingCredential=pending, mfaEnrollmentId="unknown",
                       phoneSignInInfo={"recaptchaToken": RECAPTCHA})) == "MFA_ENROLLMENT_NOT_FOUND"
    finish = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending)
    assert error(finish) == "INVALID_ARGUMENT : MFA provider not supported!"


def test_test_phone_numbers_use_their_fixed_code_without_proof_or_sms(stack):
    from test_tenants import create_tenant

    number = "+15555550123"
    tenant = create_tenant(stack, "TestNumbers", mfaConfig={"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]},
                           testPhoneNumbers={number: "654321"})
    user = verified_user(stack, tenant=tenant)
    started = start_enrollment(stack, user, number, proof={})
    assert started.status_code == 200, started.text
    session = started.json()["phoneSessionInfo"]["sessionInfo"]
    listed = requests.get(f"{stack.gateway}/emulator/v1/projects/demo-project/tenants/{tenant}/verificationCodes",
                          timeout=30).json()["verificationCodes"]
    assert all(entry["sessionInfo"] != session for entry in listed)
    finalized = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"], tenantId=tenant,
                   phoneVerificationInfo={"sessionInfo": session, "code": "654321"})
    assert finalized.status_code == 200, finalized.text
    assert claims(finalized.json()["idToken"])["firebase"]["tenant"] == tenant


def test_the_sms_region_policy_refuses_before_sending(stack):
    from test_tenants import create_tenant

    tenant = create_tenant(stack, "UsOnly", mfaConfig={"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]},
                           smsRegionConfig={"allowlistOnly": {"allowedRegions": ["US"]}})
    user = verified_user(stack, tenant=tenant)
    refused = start_enrollment(stack, user, "+447700900123")
    assert error(refused) == "OPERATION_NOT_ALLOWED : SMS unable to be sent until this region enabled by the app developer."
    canadian = start_enrollment(stack, user, "+14165550123")
    assert error(canadian) == "OPERATION_NOT_ALLOWED : SMS unable to be sent until this region enabled by the app developer."
    assert start_enrollment(stack, user, unique_phone()).status_code == 200
    listed = requests.get(f"{stack.gateway}/emulator/v1/projects/demo-project/tenants/{tenant}/verificationCodes",
                          timeout=30).json()["verificationCodes"]
    assert not any(entry["phoneNumber"] in ("+447700900123", "+14165550123") for entry in listed)


def test_sms_needs_the_provider_enabled(stack):
    from test_tenants import create_tenant

    tenant = create_tenant(stack, "TotpOnly", mfaConfig={"state": "DISABLED", "providerConfigs": [
        {"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]})
    user = verified_user(stack, tenant=tenant)
    message = "OPERATION_NOT_ALLOWED : SMS based MFA not enabled."
    assert error(start_enrollment(stack, user, unique_phone())) == message
    assert error(v2(stack, "mfaSignIn:start", tenantId=tenant, mfaPendingCredential="x", mfaEnrollmentId="y")) == message


class ProviderAPI(BaseHTTPRequestHandler):
    """A Twilio-style Messages API on loopback: records each message, refuses when told to."""
    received = []
    refuse = False

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        # `type(self)`: a subclass standing in for another provider keeps a record of its own.
        type(self).received.append({"path": self.path, "auth": self.headers.get("authorization"), "form": form})
        status = 503 if type(self).refuse else 201
        body = json.dumps({"sid": "SM123", "status": "queued"}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def provider_stack(stack):
    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), ProviderAPI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with another_stack(stack, "sms", extra_env={
        "SMS_SENDER": "http", "SMS_HTTP_BASE_URL": f"http://127.0.0.1:{port}", "SMS_HTTP_ACCOUNT_ID": "AC123",
        "SMS_HTTP_AUTH_TOKEN": "provider-secret", "SMS_HTTP_FROM": "+15550001111", "SMS_APP_NAME": "Demo App",
        "SMS_SESSION_LIFETIME_SECONDS": "2", "SMS_RATE_LIMIT_PER_NUMBER_BURST": "3",
        "SMS_RATE_LIMIT_PER_NUMBER_PER_HOUR": "1",
    }) as running:
        try:
            yield running
        finally:
            server.shutdown()


def test_a_real_provider_api_receives_the_message(provider_stack):
    stack = provider_stack
    user = verified_user(stack)
    number = unique_phone()
    started = start_enrollment(stack, user, number)
    assert started.status_code == 200, started.text
    message = ProviderAPI.received[-1]
    assert message["path"] == "/2010-04-01/Accounts/AC123/Messages.json"
    assert message["auth"] == "Basic " + base64.b64encode(b"AC123:provider-secret").decode()
    assert message["form"]["To"] == [number] and message["form"]["From"] == ["+15550001111"]
    code = re.match(r"(\d{6}) is your verification code for Demo App\.", message["form"]["Body"][0]).group(1)
    finalized = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                   phoneVerificationInfo={"sessionInfo": started.json()["phoneSessionInfo"]["sessionInfo"], "code": code})
    assert finalized.status_code == 200, finalized.text
    log = stack.log_path("challenge-issuer").read_text()
    assert code not in log and number not in log and "provider-secret" not in log


def test_sessions_expire(provider_stack):
    stack = provider_stack
    user = verified_user(stack)
    started = start_enrollment(stack, user, unique_phone())
    code = re.match(r"(\d{6})", ProviderAPI.received[-1]["form"]["Body"][0]).group(1)
    time.sleep(2.5)
    expired = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                 phoneVerificationInfo={"sessionInfo": started.json()["phoneSessionInfo"]["sessionInfo"], "code": code})
    assert error(expired) == "SESSION_EXPIRED"


def test_sends_to_one_number_are_rate_limited(provider_stack):
    stack = provider_stack
    user = verified_user(stack)
    number = unique_phone()
    outcomes = [start_enrollment(stack, user, number) for _ in range(4)]
    assert [answer.status_code for answer in outcomes[:3]] == [200, 200, 200]
    assert error(outcomes[3]) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    assert start_enrollment(stack, user, unique_phone()).status_code == 200


def test_a_provider_failure_is_a_503(provider_stack):
    stack = provider_stack
    user = verified_user(stack)
    ProviderAPI.refuse = True
    try:
        answer = start_enrollment(stack, user, unique_phone())
    finally:
        ProviderAPI.refuse = False
    assert answer.status_code == 503 and answer.json()["error"]["status"] == "UNAVAILABLE"
