"""The gateway's /metrics counts and times the public API per contract operation and HTTP status,
and a client cannot make a time series of its own by choosing the path."""

import re
import uuid

import requests

from mfa_helpers import V1, V2


def metrics(stack) -> str:
    answer = requests.get(stack.ops("gateway") + "/metrics", timeout=30)
    assert answer.status_code == 200
    return answer.text


def count(text: str, operation: str, status: int) -> float:
    pattern = (r'^mfa_public_requests_total\{service="gateway",operation="' + re.escape(operation)
               + r'",status="' + str(status) + r'"\} (\S+)$')
    found = re.search(pattern, text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def test_public_requests_are_counted_by_operation_and_status(stack):
    before = metrics(stack)
    email = f"metrics-{uuid.uuid4().hex[:8]}@example.com"
    signed_up = requests.post(f"{stack.gateway}{V1}signUp?key=k", json={"email": email, "password": "secret-pw"},
                              timeout=30)
    assert signed_up.status_code == 200
    refused = requests.post(f"{stack.gateway}{V2}mfaSignIn:finalize?key=k", json={"mfaPendingCredential": "x"},
                            timeout=30)
    assert refused.status_code == 400
    after = metrics(stack)

    assert count(after, "identitytoolkit.accounts.signUp", 200) == count(before, "identitytoolkit.accounts.signUp", 200) + 1
    finalize = "identitytoolkit.accounts.mfaSignIn.finalize"
    assert count(after, finalize, 400) == count(before, finalize, 400) + 1
    assert re.search(r'^mfa_public_request_duration_seconds_bucket\{service="gateway",operation="identitytoolkit\.accounts\.signUp",le="',
                     after, re.MULTILINE)


def test_a_path_of_the_clients_choosing_is_counted_as_unmatched_not_by_its_name(stack):
    marker = f"probe-{uuid.uuid4().hex}"
    before = metrics(stack)
    for _ in range(3):
        answer = requests.post(f"{stack.gateway}/v1/{marker}?key=k", json={}, timeout=30)
        assert answer.status_code == 404
    after = metrics(stack)
    assert marker not in after
    assert count(after, "unmatched", 404) == count(before, "unmatched", 404) + 3
