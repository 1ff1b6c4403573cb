"""Benchmark (not a test): the latency each app verifier adds to an SMS send, against local endpoints.

    MFA_TEST_BIN_DIR=$(swift build -c release --show-bin-path) MFA_TEST_POSTGRES_URL=postgres://mfa:mfa@127.0.0.1:54339 \\
        .venv-test/bin/python client-tests/bench_app_verification.py [requests per verifier, default 200]

Starts its own stack with every verifier configured (reCAPTCHA and Play Integrity stand-ins on loopback,
an HTTP/2 APNs stand-in) and times `v2/accounts/mfaEnrollment:start` (phone) one request at a time with
each kind of proof, against the same request with a test phone number (no proof, no SMS). The iOS row
times verifyIosClient (push included) and the start separately.
"""

import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from app_verification_servers import APNs, Integrity, Siteverify, serve  # noqa: E402
from conftest import Stack, free_port  # noqa: E402
from mfa_helpers import unique_phone, v1, v2, verified_user  # noqa: E402


def percentiles(samples):
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000
    return f"p50 {pick(0.5):.2f} ms, p90 {pick(0.9):.2f} ms, p99 {pick(0.99):.2f} ms (n={len(samples)})"


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    bin_dir = Path(os.environ.get("MFA_TEST_BIN_DIR", Path(__file__).resolve().parents[1] / ".build" / "release"))
    postgres = os.environ.get("MFA_TEST_POSTGRES_URL", "postgres://mfa:mfa@127.0.0.1:54339")
    siteverify_port, integrity_port, apns_port = free_port(), free_port(), free_port()
    servers = [serve(Siteverify, siteverify_port), serve(Integrity, integrity_port)]
    with tempfile.TemporaryDirectory(prefix="mfa-bench-appv-") as work:
        work = Path(work)
        key = ec.generate_private_key(ec.SECP256R1())
        (work / "AuthKey.p8").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                            serialization.NoEncryption()))
        apns = APNs(work, apns_port, key.public_key(), "KEY1234567", "TEAM123456")
        (work / "stack").mkdir()
        stack = Stack(work / "stack", bin_dir, postgres, extra_env={
            "APP_VERIFICATION_RECAPTCHA_ENDPOINT": f"http://127.0.0.1:{siteverify_port}/siteverify",
            "APP_VERIFICATION_RECAPTCHA_SECRET": "s", "APP_VERIFICATION_PLAY_INTEGRITY_ENDPOINT": f"http://127.0.0.1:{integrity_port}",
            "APP_VERIFICATION_PLAY_INTEGRITY_CREDENTIAL": "c", "APP_VERIFICATION_PLAY_INTEGRITY_PACKAGE_NAME": "com.example.app",
            "APP_VERIFICATION_APNS_SANDBOX_URL": f"https://127.0.0.1:{apns_port}", "APP_VERIFICATION_APNS_KEY_ID": "KEY1234567",
            "APP_VERIFICATION_APNS_TEAM_ID": "TEAM123456", "APP_VERIFICATION_APNS_KEY_FILE": str(work / "AuthKey.p8"),
            "APP_VERIFICATION_APNS_BUNDLE_ID": "com.example.app", "APP_VERIFICATION_APNS_TRUST_ROOTS": str(apns.cert),
            "SMS_RATE_LIMIT_PER_ADDRESS_BURST": "100000", "SMS_RATE_LIMIT_PER_ADDRESS_PER_HOUR": "1000000",
        })
        try:
            requests.patch(f"{stack.gateway}/v2/projects/demo-project/config?updateMask=signIn.phoneNumber.testPhoneNumbers",
                           json={"signIn": {"phoneNumber": {"testPhoneNumbers": {"+15555550199": "123456"}}}},
                           headers={"Authorization": "Bearer owner"}, timeout=30).raise_for_status()
            user = verified_user(stack)

            def timed(proof, number=None):
                started = time.perf_counter()
                answer = v2(stack, "mfaEnrollment:start", idToken=user["idToken"],
                            phoneEnrollmentInfo={"phoneNumber": number or unique_phone(), **proof})
                assert answer.status_code == 200, answer.text
                return time.perf_counter() - started

            rows = {}
            for _ in range(20):
                timed({}, "+15555550199")
            rows["no verification (test number)"] = [timed({}, "+15555550199") for _ in range(count)]
            rows["development test token"] = [timed({"recaptchaToken": "test-recaptcha-token"}) for _ in range(count)]
            rows["reCAPTCHA (siteverify on loopback)"] = [timed({"recaptchaToken": "good"}) for _ in range(count)]
            numbers = [unique_phone() for _ in range(count)]
            rows["Play Integrity (decode on loopback)"] = [
                timed({"playIntegrityToken": f"genuine|{number}"}, number) for number in numbers]
            push_times, start_times = [], []
            for _ in range(count):
                started = time.perf_counter()
                receipt = v1(stack, "verifyIosClient", appToken=secrets.token_hex(32), isSandbox=True).json()["receipt"]
                push_times.append(time.perf_counter() - started)
                secret = apns.pushes[-1]["payload"]["com.google.firebase.auth"]["secret"]
                start_times.append(timed({"iosReceipt": receipt, "iosSecret": secret}))
            rows["iOS: verifyIosClient (HTTP/2 push to APNs stand-in)"] = push_times
            rows["iOS: start with receipt + secret"] = start_times
            baseline = statistics.median(rows["no verification (test number)"])
            for name, samples in rows.items():
                added = (statistics.median(samples) - baseline) * 1000
                print(f"{name}: {percentiles(samples)}; median added vs test number {added:+.2f} ms")
        finally:
            stack.close()
            apns.close()
            for server in servers:
                server.shutdown()


if __name__ == "__main__":
    main()
