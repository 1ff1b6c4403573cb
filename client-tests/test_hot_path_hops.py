"""The four-process hot path (issue 26): a second-factor finalize makes at most two calls in sequence
after the gateway has the request (the factor's check beside the account's, then the session beside
the sign-in's record), reading the pending credential's sealed facts itself and the scope's settings
from its own cache. Counted from the outside on each service's /metrics, then the cache's promise:
a change made through the admin API applies to the very next request, one made in the database
within a second, and an altered credential is refused. A refresh whose token names its user makes two
calls: the account, then the rotation that checks it."""

import os
import re
import subprocess
import time
import urllib.parse

import pytest
import requests

from conftest import PROCESSES
from mfa_helpers import RECAPTCHA, error, sms_code, unique_phone, v2, verified_user
from test_mfa_sms import enroll_phone
from test_mfa_totp import enroll_totp, later_code, sign_in_pending
from test_tenants import create_tenant

DATA_SERVICES = ("factor-registry", "challenge-issuer", "session-token")
# Background calls that are no part of a request.
BACKGROUND = {"settings.watch", "service.ping", "service.status", "signingKeys.publish"}

four_processes = pytest.mark.skipif(PROCESSES == "one", reason="counts the calls each process serves")


def served_calls(stack) -> dict[str, float]:
    """JSON-RPC calls served so far, by method, over the data services."""
    total: dict[str, float] = {}
    for service in DATA_SERVICES:
        text = requests.get(stack.ops(service) + "/metrics", timeout=30).text
        for method, value in re.findall(r'^mfa_rpc_requests_total\{[^}]*method="([^"]+)"[^}]*\} (\S+)$', text, re.MULTILINE):
            total[method] = total.get(method, 0.0) + float(value)
    return total


def calls_during(stack, action) -> dict[str, int]:
    before = served_calls(stack)
    result = action()
    after = served_calls(stack)
    delta = {method: int(after[method] - before.get(method, 0.0)) for method in after if method not in BACKGROUND}
    return result, {method: count for method, count in delta.items() if count}


def mfa_totp_user(stack, tenant=None):
    user = verified_user(stack, tenant=tenant)
    totp, enrolled = enroll_totp(stack, user)
    return user, totp, enrolled


def cached_tenant_sign_in(stack, name):
    """A TOTP user in a new tenant after one sign-in (the gateway now holds the tenant's settings),
    and a second sign-in waiting for its code."""
    mfa = {"state": "ENABLED", "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}
    tenant = create_tenant(stack, name, mfaConfig=mfa)
    user, totp, _ = mfa_totp_user(stack, tenant=tenant)
    assert finalize_totp(stack, user, sign_in_pending(stack, user), later_code(totp, 1)).status_code == 200
    return tenant, user, totp, sign_in_pending(stack, user)


def finalize_totp(stack, user, pending, code):
    extra = {"tenantId": user["tenant"]} if user["tenant"] else {}
    return v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
              mfaEnrollmentId=pending["mfaInfo"][0]["mfaEnrollmentId"],
              totpVerificationInfo={"verificationCode": code}, **extra)


@four_processes
def test_a_totp_finalize_reads_neither_the_credential_nor_the_settings_over_rpc(stack):
    user, totp, _ = mfa_totp_user(stack)
    # A first sign-in fills the gateway's settings cache and fetches the seal key.
    assert finalize_totp(stack, user, sign_in_pending(stack, user), later_code(totp, 1)).status_code == 200
    pending = sign_in_pending(stack, user)

    answer, calls = calls_during(stack, lambda: finalize_totp(stack, user, pending, later_code(totp, 2)))

    assert answer.status_code == 200, answer.text
    # Hop 1: the code (challenge-issuer) beside the account check; hop 2: the session beside the record.
    assert calls == {"totp.verify": 1, "account.checkFactor": 1, "account.recordSignIn": 1, "session.issue": 1}


@four_processes
def test_an_sms_sign_in_starts_in_two_calls_and_finishes_in_four(stack):
    user = verified_user(stack)
    enroll_phone(stack, user, unique_phone())
    # A first start fetches the seal key if this gateway has not opened a pending credential yet
    # (which depends on what ran before it in this worker): not one of the hops measured.
    warm = sign_in_pending(stack, user)
    assert v2(stack, "mfaSignIn:start", mfaPendingCredential=warm["mfaPendingCredential"],
              mfaEnrollmentId=warm["mfaInfo"][0]["mfaEnrollmentId"],
              phoneSignInInfo={"recaptchaToken": RECAPTCHA}).status_code == 200
    pending = sign_in_pending(stack, user)
    enrollment_id = pending["mfaInfo"][0]["mfaEnrollmentId"]

    begun, start_calls = calls_during(stack, lambda: v2(
        stack, "mfaSignIn:start", mfaPendingCredential=pending["mfaPendingCredential"], mfaEnrollmentId=enrollment_id,
        phoneSignInInfo={"recaptchaToken": RECAPTCHA}))
    assert begun.status_code == 200, begun.text
    session_info = begun.json()["phoneResponseInfo"]["sessionInfo"]
    # The credential still unused beside the account (hop 1), then the code sent (hop 2).
    assert start_calls == {"pendingCredential.inspect": 1, "account.get": 1, "sms.start": 1}

    code = sms_code(stack, session_info)
    done, finish_calls = calls_during(stack, lambda: v2(
        stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
        phoneVerificationInfo={"sessionInfo": session_info, "code": code}))
    assert done.status_code == 200, done.text
    assert finish_calls == {"sms.verify": 1, "account.get": 1, "account.recordSignIn": 1, "session.issue": 1}


def test_a_settings_change_through_the_admin_api_applies_to_the_next_finalize(stack):
    tenant, user, totp, pending = cached_tenant_sign_in(stack, "CacheAdmin")

    patched = requests.patch(f"{stack.gateway}/v2/projects/demo-project/tenants/{tenant}?updateMask=mfaConfig",
                             json={"mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"], "providerConfigs": []}},
                             headers={"authorization": "Bearer owner"}, timeout=30)
    assert patched.status_code == 200, patched.text

    assert error(finalize_totp(stack, user, pending, later_code(totp, 2))) == \
        "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled."


def test_a_settings_change_made_in_the_database_reaches_the_gateway_within_a_second(stack):
    tenant, user, totp, pending = cached_tenant_sign_in(stack, "CacheDatabase")

    # By hand, as an operator in psql would: the trigger's notification is all the gateway hears.
    parts = urllib.parse.urlsplit(stack.postgres)
    subprocess.run(
        ["psql", "-tA", "-v", "ON_ERROR_STOP=1", "-h", parts.hostname, "-p", str(parts.port),
         "-U", urllib.parse.unquote(parts.username), "-d", stack.databases["factor-registry"], "-c",
         "UPDATE control.tenants SET settings = jsonb_set(settings, '{disableAuth}', 'true') "
         f"WHERE tenant_id = '{tenant}'"],
        check=True, capture_output=True, env=dict(os.environ, PGPASSWORD=urllib.parse.unquote(parts.password or "")))
    time.sleep(1)

    assert error(finalize_totp(stack, user, pending, later_code(totp, 2))) == "PROJECT_DISABLED"


def test_an_altered_sealed_credential_is_refused_and_spends_no_code(stack):
    user, totp, _ = mfa_totp_user(stack)
    pending = sign_in_pending(stack, user)
    scope, sealed = pending["mfaPendingCredential"].split(".")
    flipped = sealed[:30] + ("A" if sealed[30] != "A" else "B") + sealed[31:]
    code = later_code(totp, 1)

    altered = dict(pending, mfaPendingCredential=f"{scope}.{flipped}")
    assert error(finalize_totp(stack, user, altered, code)) == "INVALID_MFA_PENDING_CREDENTIAL"
    # The refused request spent nothing: the same code still finishes the real sign-in.
    assert finalize_totp(stack, user, pending, code).status_code == 200



@four_processes
def test_a_refresh_makes_two_calls_and_reads_no_settings(stack):
    user = verified_user(stack)
    first = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                          json={"grantType": "refresh_token", "refreshToken": user["refreshToken"]}, timeout=30)
    assert first.status_code == 200, first.text

    answer, calls = calls_during(stack, lambda: requests.post(
        f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
        json={"grantType": "refresh_token", "refreshToken": first.json()["refresh_token"]}, timeout=30))

    assert answer.status_code == 200, answer.text
    # The refresh token names its user: the account, then session-token's checked rotation.
    assert calls == {"account.get": 1, "session.refresh": 1}


@four_processes
def test_in_production_a_projects_own_api_key_costs_no_call_once_known(production):
    """Production resolves a project's own API key at factor-registry (development takes any key):
    the gateway keeps known keys beside the settings, under the same change notifications, so the hot
    path makes the same calls as above, and none for the key."""
    import pyotp

    stack, admin = production, {"Authorization": f"Bearer {production.admin_token}"}

    def call(version, operation, **body):
        prefix = f"/identitytoolkit.googleapis.com/{version}/accounts" + (":" if version == "v1" else "/")
        return requests.post(f"{stack.gateway}{prefix}{operation}?key={stack.api_key}", json=body, timeout=30)

    def served():
        total: dict[str, float] = {}
        for service in DATA_SERVICES:
            text = requests.get(stack.ops(service) + "/metrics", headers=admin, timeout=30).text
            for method, value in re.findall(r'^mfa_rpc_requests_total\{[^}]*method="([^"]+)"[^}]*\} (\S+)$', text, re.MULTILINE):
                total[method] = total.get(method, 0.0) + float(value)
        return total

    email, password = f"hops-{os.urandom(5).hex()}@example.com", "Correct-horse-9"
    local_id = call("v1", "signUp", email=email, password=password).json()["localId"]
    assert requests.post(f"{stack.admin_url}/v1/projects/demo-project/accounts:update", headers=admin, timeout=30,
                         json={"localId": local_id, "emailVerified": True}).status_code == 200
    id_token = call("v1", "signInWithPassword", email=email, password=password).json()["idToken"]
    info = call("v2", "mfaEnrollment:start", idToken=id_token, totpEnrollmentInfo={}).json()["totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"])
    assert call("v2", "mfaEnrollment:finalize", idToken=id_token, totpVerificationInfo={
        "sessionInfo": info["sessionInfo"], "verificationCode": totp.now()}).status_code == 200

    def finalize(steps):
        pending = call("v1", "signInWithPassword", email=email, password=password).json()
        before = served()
        answer = call("v2", "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                      mfaEnrollmentId=pending["mfaInfo"][0]["mfaEnrollmentId"],
                      totpVerificationInfo={"verificationCode": totp.at(time.time() + 30 * steps)})
        after = served()
        assert answer.status_code == 200, answer.text
        return {method: int(after[method] - before.get(method, 0.0)) for method in after
                if method not in BACKGROUND and after[method] - before.get(method, 0.0)}

    finalize(1)
    assert finalize(2) == {"totp.verify": 1, "account.checkFactor": 1, "account.recordSignIn": 1, "session.issue": 1}
    # A key nobody has is still refused, and asked each time (unknown keys are never kept).
    unknown = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=AIzaNotOurs",
                            json={}, timeout=30)
    assert unknown.status_code == 400 and "API key not valid" in unknown.text, unknown.text
    # A key taken from its project (here by hand, as an operator in psql would) stops working within
    # a second: the row's change notification empties the gateway's cache.
    old_key = stack.api_key
    changed = stack.psql_as("factor-registry", "factor-registry",
                            f"UPDATE control.projects SET api_key = 'rotated-{os.urandom(4).hex()}' WHERE api_key = '{old_key}'")
    assert changed.returncode == 0, changed.stderr
    try:
        time.sleep(1.2)
        refused = call("v1", "signInWithPassword", email=email, password=password)
        assert refused.status_code == 400 and "API key not valid" in refused.text, refused.text
    finally:
        stack.psql_as("factor-registry", "factor-registry",
                      f"UPDATE control.projects SET api_key = '{old_key}' WHERE project_id = 'demo-project'")
    time.sleep(1.2)
    assert call("v1", "signInWithPassword", email=email, password=password).status_code == 200
