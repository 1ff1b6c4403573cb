"""App verification for SMS (decision 10, issue 6) against local stand-ins for Google's and Apple's
endpoints: reCAPTCHA siteverify (success, failure, low score, wrong host, wrong action, timeout), Play
Integrity (genuine, sideloaded, another app, undecodable), and the full iOS flow over HTTP/2 + TLS APNs
(verifyIosClient → silent push → SMS with receipt and secret → code → finalize), with abuse cases. No SMS
is sent when verification fails."""

import os
import secrets
import tempfile
import time
from pathlib import Path

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from app_verification_servers import APNs, Integrity, Siteverify, serve
from conftest import Stack, free_port
from mfa_helpers import error, sms_code, unique_phone, v1, v2, verified_user

KEY_ID, TEAM_ID, BUNDLE = "KEY1234567", "TEAM123456", "com.example.app"


@pytest.fixture(scope="module")
def verified_stack(stack):
    siteverify_port, integrity_port, apns_port = free_port(), free_port(), free_port()
    siteverify = serve(Siteverify, siteverify_port)
    integrity = serve(Integrity, integrity_port)
    with tempfile.TemporaryDirectory(prefix="mfa-py-appv-") as work:
        work = Path(work)
        team_key = ec.generate_private_key(ec.SECP256R1())
        (work / "AuthKey.p8").write_bytes(team_key.private_bytes(serialization.Encoding.PEM,
                                                                 serialization.PrivateFormat.PKCS8,
                                                                 serialization.NoEncryption()))
        apns = APNs(work, apns_port, team_key.public_key(), KEY_ID, TEAM_ID)
        bin_dir = Path(os.environ.get("MFA_TEST_BIN_DIR", Path(__file__).resolve().parents[1] / ".build" / "debug"))
        running = Stack(work / "stack", bin_dir, stack.postgres, extra_env={
            # Development mode checks no proof unless told to (decision 14): this stack checks them all.
            "APP_VERIFICATION_EMULATOR": "false",
            "APP_VERIFICATION_RECAPTCHA_ENDPOINT": f"http://127.0.0.1:{siteverify_port}/recaptcha/api/siteverify",
            "APP_VERIFICATION_RECAPTCHA_SECRET": "recaptcha-secret", "APP_VERIFICATION_RECAPTCHA_ACTION": "sms",
            "APP_VERIFICATION_RECAPTCHA_TIMEOUT_MS": "1000",
            "APP_VERIFICATION_PLAY_INTEGRITY_ENDPOINT": f"http://127.0.0.1:{integrity_port}",
            "APP_VERIFICATION_PLAY_INTEGRITY_CREDENTIAL": "integrity-credential",
            # The deployment-wide package, overridden for this project (per-project configuration).
            "APP_VERIFICATION_PLAY_INTEGRITY_PACKAGE_NAME": "com.example.other",
            "APP_VERIFICATION_PLAY_INTEGRITY_PROJECTS": f"demo-project={BUNDLE}",
            "APP_VERIFICATION_APNS_PROJECTS": "demo-project=com.example.demo",
            "APP_VERIFICATION_APNS_SANDBOX_URL": f"https://127.0.0.1:{apns_port}",
            "APP_VERIFICATION_APNS_PRODUCTION_URL": f"https://127.0.0.1:{apns_port}",
            "APP_VERIFICATION_APNS_KEY_ID": KEY_ID, "APP_VERIFICATION_APNS_TEAM_ID": TEAM_ID,
            "APP_VERIFICATION_APNS_KEY_FILE": str(work / "AuthKey.p8"), "APP_VERIFICATION_APNS_BUNDLE_ID": BUNDLE,
            "APP_VERIFICATION_APNS_TRUST_ROOTS": str(apns.cert),
        }) if (work / "stack").mkdir() is None else None
        running.apns = apns
        try:
            yield running
        finally:
            running.close()
            apns.close()
            siteverify.shutdown()
            integrity.shutdown()


def start(stack, user, proof, number=None):
    return v2(stack, "mfaEnrollment:start", idToken=user["idToken"],
              phoneEnrollmentInfo={"phoneNumber": number or unique_phone(), **proof})


def codes_sent(stack):
    return len(requests.get(f"{stack.gateway}/emulator/v1/projects/demo-project/verificationCodes",
                            timeout=30).json()["verificationCodes"])


def test_missing_and_unverifiable_proofs_are_refused_in_contract_order(verified_stack):
    stack = verified_stack
    user = verified_user(stack)
    before = codes_sent(stack)
    assert error(start(stack, user, {})) == "MISSING_APP_CREDENTIAL"
    assert error(start(stack, user, {"recaptchaToken": "forged"})) == "CAPTCHA_CHECK_FAILED"
    assert error(start(stack, user, {"playIntegrityToken": "unverifiable"})) == "INVALID_APP_CREDENTIAL"
    assert error(v1(stack, "sendVerificationCode", phoneNumber=unique_phone())) == "MISSING_APP_CREDENTIAL"
    assert codes_sent(stack) == before
    session = start(stack, user, {"recaptchaToken": "good"}).json()["phoneSessionInfo"]["sessionInfo"]
    enrolled = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                  phoneVerificationInfo={"sessionInfo": session, "code": sms_code(stack, session)}).json()
    assert "idToken" in enrolled
    pending = v1(stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    assert error(v2(stack, "mfaSignIn:start", mfaPendingCredential=pending["mfaPendingCredential"],
                    mfaEnrollmentId=pending["mfaInfo"][0]["mfaEnrollmentId"])) == "MISSING_APP_CREDENTIAL"
    assert codes_sent(stack) == before


def test_recaptcha_tokens_are_checked_by_siteverify(verified_stack):
    stack = verified_stack
    user = verified_user(stack)
    before = codes_sent(stack)
    for token in ["bogus", "low-score", "wrong-host", "wrong-action", "test-recaptcha-token"]:
        assert error(start(stack, user, {"recaptchaToken": token})) == "CAPTCHA_CHECK_FAILED", token
    assert codes_sent(stack) == before
    assert Siteverify.calls[-1]["secret"] == ["recaptcha-secret"]
    assert start(stack, user, {"recaptchaToken": "good"}).status_code == 200
    assert codes_sent(stack) == before + 1
    assert error(start(stack, user, {"captchaResponse": "bogus"})) == "CAPTCHA_CHECK_FAILED"
    assert start(stack, user, {"captchaResponse": "good"}).status_code == 200
    assert error(start(stack, user, {})) == "MISSING_APP_CREDENTIAL"


def test_a_hanging_siteverify_is_a_bounded_503(verified_stack):
    stack = verified_stack
    user = verified_user(stack)
    started = time.monotonic()
    answer = start(stack, user, {"recaptchaToken": "slow"})
    elapsed = time.monotonic() - started
    assert answer.status_code == 503 and answer.json()["error"]["status"] == "UNAVAILABLE"
    assert elapsed < 2.5, elapsed


def test_play_integrity_tokens_are_decoded_and_judged(verified_stack):
    stack = verified_stack
    user = verified_user(stack)
    before = codes_sent(stack)
    number = unique_phone()
    for kind in ["sideloaded", "other-app", "garbage"]:
        token = f"{kind}|{number}"
        assert error(start(stack, user, {"playIntegrityToken": token}, number)) == "INVALID_APP_CREDENTIAL", token
    assert error(start(stack, user, {"safetyNetToken": "garbage"}, number)) == "INVALID_APP_CREDENTIAL"
    assert codes_sent(stack) == before
    assert start(stack, user, {"playIntegrityToken": f"genuine|{number}"}, number).status_code == 200
    assert Integrity.calls[-1]["path"] == f"/v1/{BUNDLE}:decodeIntegrityToken"
    assert Integrity.calls[-1]["auth"] == "Bearer integrity-credential"


def test_a_play_integrity_verdict_works_once_for_its_own_number_while_fresh(verified_stack):
    """Finding 9: a verdict used to be replayable, for any number, at any time."""
    stack = verified_stack
    user = verified_user(stack)
    number, other = unique_phone(), unique_phone()
    before = codes_sent(stack)
    # Bound to another number, or made ten minutes ago: refused, and no SMS goes out.
    assert error(start(stack, user, {"playIntegrityToken": f"genuine|{other}"}, number)) == "INVALID_APP_CREDENTIAL"
    assert error(start(stack, user, {"playIntegrityToken": f"stale|{number}"}, number)) == "INVALID_APP_CREDENTIAL"
    assert codes_sent(stack) == before
    # A standard request's requestHash binds as a classic request's nonce does; each token works once.
    token = f"standard|{number}"
    assert start(stack, user, {"playIntegrityToken": token}, number).status_code == 200
    assert error(start(stack, user, {"playIntegrityToken": token}, number)) == "INVALID_APP_CREDENTIAL"
    assert codes_sent(stack) == before + 1


def test_the_ios_flow_end_to_end(verified_stack):
    stack = verified_stack
    user = verified_user(stack)
    device = secrets.token_hex(32)
    answer = v1(stack, "verifyIosClient", appToken=device, isSandbox=True)
    assert answer.status_code == 200, answer.text
    receipt = answer.json()["receipt"]
    assert answer.json()["suggestedTimeout"] == "5"
    push = stack.apns.pushes[-1]
    assert push["http_version"] == "2" and push["token_valid"] and push["device"] == device
    assert push["headers"]["apns-push-type"] == "background" and push["headers"]["apns-priority"] == "5"
    assert push["headers"]["apns-topic"] == "com.example.demo"  # the project's own bundle id
    auth = push["payload"]["com.google.firebase.auth"]
    assert push["payload"]["aps"] == {"content-available": 1} and auth["receipt"] == receipt
    number = unique_phone()
    started = start(stack, user, {"iosReceipt": receipt, "iosSecret": auth["secret"]}, number=number)
    assert started.status_code == 200, started.text
    session = started.json()["phoneSessionInfo"]["sessionInfo"]
    finalized = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"],
                   phoneVerificationInfo={"sessionInfo": session, "code": sms_code(stack, session)})
    assert finalized.status_code == 200, finalized.text
    # The receipt worked once.
    replay = start(stack, {**user, "idToken": finalized.json()["idToken"]}, {"iosReceipt": receipt, "iosSecret": auth["secret"]})
    assert error(replay) == "INVALID_APP_CREDENTIAL"


def test_ios_abuse_sends_no_sms(verified_stack):
    from test_tenants import create_tenant

    stack = verified_stack
    user = verified_user(stack)
    before = codes_sent(stack)
    v1(stack, "verifyIosClient", appToken=secrets.token_hex(32), isSandbox=False)
    push = stack.apns.pushes[-1]["payload"]["com.google.firebase.auth"]
    assert error(start(stack, user, {"iosReceipt": push["receipt"], "iosSecret": "guessed"})) == "INVALID_APP_CREDENTIAL"
    # A wrong secret used the receipt up: the right one no longer works either.
    assert error(start(stack, user, {"iosReceipt": push["receipt"], "iosSecret": push["secret"]})) == "INVALID_APP_CREDENTIAL"
    assert error(start(stack, user, {"iosReceipt": "forged", "iosSecret": "forged"})) == "INVALID_APP_CREDENTIAL"
    assert error(start(stack, user, {"iosReceipt": "no-secret"})) == "INVALID_APP_CREDENTIAL"
    assert codes_sent(stack) == before
    # Receipts belong to the project (an iOS app is a project's), so a tenant's users can use them.
    tenant = create_tenant(stack, "Ios", mfaConfig={"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]})
    tenant_user = verified_user(stack, tenant=tenant)
    receipt = v1(stack, "verifyIosClient", appToken=secrets.token_hex(32), isSandbox=True).json()["receipt"]
    secret = stack.apns.pushes[-1]["payload"]["com.google.firebase.auth"]["secret"]
    assert v2(stack, "mfaEnrollment:start", idToken=tenant_user["idToken"], tenantId=tenant,
              phoneEnrollmentInfo={"phoneNumber": unique_phone(), "iosReceipt": receipt, "iosSecret": secret}).status_code == 200
    assert error(v1(stack, "verifyIosClient", isSandbox=True)) == "MISSING_APP_TOKEN"
    refused = v1(stack, "verifyIosClient", appToken="bad" + secrets.token_hex(8), isSandbox=True)
    assert refused.status_code in (400, 503)


def test_test_numbers_skip_app_verification(verified_stack):
    from test_tenants import create_tenant

    stack = verified_stack
    tenant = create_tenant(stack, "TestNoProof", mfaConfig={"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]},
                           testPhoneNumbers={"+15555550177": "111222"})
    user = verified_user(stack, tenant=tenant)
    started = v2(stack, "mfaEnrollment:start", idToken=user["idToken"], tenantId=tenant,
                 phoneEnrollmentInfo={"phoneNumber": "+15555550177"})
    assert started.status_code == 200, started.text


def test_a_tenant_without_domains_is_checked_against_its_projects(verified_stack):
    from test_tenants import create_tenant

    stack = verified_stack
    tenant = create_tenant(stack, "NoDomains", mfaConfig={"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]})
    user = verified_user(stack, tenant=tenant)
    attempt = lambda token: v2(stack, "mfaEnrollment:start", idToken=user["idToken"], tenantId=tenant,
                               phoneEnrollmentInfo={"phoneNumber": unique_phone(), "recaptchaToken": token})
    assert error(attempt("wrong-host")) == "CAPTCHA_CHECK_FAILED"
    assert attempt("good").status_code == 200
