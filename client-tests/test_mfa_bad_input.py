"""Malformed, mistyped, unknown, oversized and hostile input on every MFA endpoint: always the contract's 4xx
envelope, never a 5xx, and the stack keeps working."""

import pytest
import requests

from mfa_helpers import V2, verified_user

ENDPOINTS = ["mfaEnrollment:start", "mfaEnrollment:finalize", "mfaEnrollment:withdraw", "mfaSignIn:start",
             "mfaSignIn:finalize"]

HOSTILE_BODIES = [
    {"idToken": 12},
    {"idToken": ["x"]},
    {"mfaPendingCredential": {"a": 1}},
    {"phoneEnrollmentInfo": "not an object"},
    {"totpVerificationInfo": {"verificationCode": 123456, "sessionInfo": None}},
    {"phoneVerificationInfo": {"sessionInfo": "x" * 10_000, "code": "1" * 10_000}},
    {"mfaEnrollmentId": "' OR 1=1 --"},
    {"bogusField": True},
    {"idToken": "a.b.c", "tenantId": "x'; DROP TABLE control.tenants; --"},
    {"mfaPendingCredential": "ZGVtby1wcm9qZWN0L3gnOyBEUk9QIFRBQkxF.secret", "mfaEnrollmentId": "x"},
    {"idToken": "eyJhbGciOiJub25lIn0.eyJmaXJlYmFzZSI6eyJ0ZW5hbnQiOiIuLi8uLiJ9fQ."},
    # PostgreSQL's text cannot hold U+0000.
    {"mfaPendingCredential": "a\u0000b", "mfaEnrollmentId": "x\u0000", "tenantId": "\u0000"},
    {"idToken": "a\u0000", "totpVerificationInfo": {"verificationCode": "12\u00003456", "sessionInfo": "\u0000"}},
]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_hostile_bodies_get_a_4xx_envelope(stack, endpoint):
    for body in HOSTILE_BODIES:
        answer = requests.post(f"{stack.gateway}{V2}{endpoint}?key=k", json=body, timeout=30)
        assert 400 <= answer.status_code < 500, (endpoint, body, answer.status_code, answer.text[:200])
        envelope = answer.json()["error"]
        assert envelope["code"] == answer.status_code and envelope["message"] and envelope["errors"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_malformed_and_oversized_payloads(stack, endpoint):
    url = f"{stack.gateway}{V2}{endpoint}?key=k"
    malformed = requests.post(url, data=b'{"idToken": ', headers={"content-type": "application/json"}, timeout=30)
    assert malformed.status_code == 400 and malformed.json()["error"]["status"] == "INVALID_ARGUMENT"
    oversized = requests.post(url, data=b'{"idToken": "' + b"a" * (2 << 20) + b'"}',
                              headers={"content-type": "application/json"}, timeout=30)
    assert oversized.status_code == 413
    no_key = requests.post(f"{stack.gateway}{V2}{endpoint}", json={}, timeout=30)
    assert no_key.status_code == 403


def test_the_stack_still_works_afterwards(stack):
    user = verified_user(stack)
    started = requests.post(f"{stack.gateway}{V2}mfaEnrollment:start?key=k",
                            json={"idToken": user["idToken"], "totpEnrollmentInfo": {}}, timeout=30)
    assert started.status_code == 200, started.text
