"""Orphan TOTP secrets: a secret challenge-issuer keeps for no enrollment, left by a crash or an
unreachable challenge-issuer between an enrollment's two steps (secret, then metadata) or a withdrawal's
(metadata, then secret). factor-registry's sweep deletes them once they are old enough; the secrets of
enrolled factors stay and keep signing their users in, in the project and in tenants alike."""

import time

import pyotp
import pytest

from conftest import another_stack, needs_four_processes
from mfa_helpers import v2, verified_user
from test_mfa_faults import claims, restart, rpc
from test_mfa_totp import enroll_totp, later_code, sign_in_pending

MINIMUM_AGE_SECONDS = 3


@pytest.fixture(scope="module")
def sweeping_stack(stack):
    """The sweep every second, for secrets at least three seconds old."""
    with another_stack(stack, "orphans", extra_env={
        "ORPHAN_SECRETS_SWEEP_SECONDS": "1",
        "ORPHAN_SECRETS_MINIMUM_AGE_SECONDS": str(MINIMUM_AGE_SECONDS),
    }) as running:
        yield running


def stored_secrets(stack, enrollment_id, tenant=None):
    """How many secrets challenge-issuer keeps for this enrollment id ("0" or "1")."""
    schema = f"t_{tenant}" if tenant else "p_demo-project"
    return stack.query("challenge-issuer", f"SELECT count(*) FROM \"{schema}\".totp_factors WHERE enrollment_id = '{enrollment_id}'")


def orphan_secret(stack, user, enrollment_id):
    """The gateway's first step of a TOTP enrollment without the second: challenge-issuer keeps the
    secret as a factor, factor-registry never hears of it (what a gateway crash in between leaves)."""
    scope = {"projectId": "demo-project", **({"tenantId": user["tenant"]} if user["tenant"] else {})}
    started = rpc(stack, "challenge-issuer", "totp.startEnrollment", {**scope, "localId": user["localId"]})
    code = pyotp.TOTP(started["result"]["sharedSecretKey"]).now()
    finalized = rpc(stack, "challenge-issuer", "totp.finalizeEnrollment", {
        **scope, "localId": user["localId"], "sessionInfo": started["result"]["sessionInfo"], "verificationCode": code,
        "adjacentIntervals": 5, "mfaEnrollmentId": enrollment_id})
    assert finalized.get("result") == {}, finalized


def wait_until_gone(stack, enrollment_id, since, tenant=None):
    while stored_secrets(stack, enrollment_id, tenant) != ["0"]:
        assert time.monotonic() - since < MINIMUM_AGE_SECONDS + 10, "the orphan secret was not deleted"
        time.sleep(0.2)
    return time.monotonic() - since


def signs_in(stack, user, totp, enrollment_id):
    pending = sign_in_pending(stack, user)["mfaPendingCredential"]
    answer = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=pending, mfaEnrollmentId=enrollment_id,
                **({"tenantId": user["tenant"]} if user["tenant"] else {}),
                totpVerificationInfo={"verificationCode": later_code(totp)})
    return answer.status_code == 200 and "idToken" in answer.json()


def test_a_secret_without_an_enrollment_is_deleted_once_old_enough_and_enrolled_factors_keep_theirs(sweeping_stack):
    stack = sweeping_stack
    user = verified_user(stack)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    orphan = "OrphanProject" + "x" * 15
    orphan_secret(stack, user, orphan)
    made = time.monotonic()
    # Swept at least once while younger than the minimum age, and kept: it could be an enrollment
    # between its two steps.
    time.sleep(1.5)
    assert stored_secrets(stack, orphan) == ["1"]
    waited = wait_until_gone(stack, orphan, made)
    assert waited >= MINIMUM_AGE_SECONDS - 0.5
    # Several sweeps have passed the enrolled factor's secret by; it still signs its user in.
    assert stored_secrets(stack, enrollment_id) == ["1"]
    assert signs_in(stack, user, totp, enrollment_id)


def test_an_orphan_in_a_tenant_is_deleted_and_the_tenants_enrolled_factor_stays(sweeping_stack):
    from test_tenants import create_tenant

    stack = sweeping_stack
    mfa = {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"], "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}
    tenant = create_tenant(stack, "Orphans", mfaConfig=mfa)
    user = verified_user(stack, tenant=tenant)
    totp, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    orphan = "OrphanTenant" + "x" * 16
    orphan_secret(stack, user, orphan)
    wait_until_gone(stack, orphan, time.monotonic(), tenant)
    assert stored_secrets(stack, enrollment_id, tenant) == ["1"]
    assert signs_in(stack, user, totp, enrollment_id)


@needs_four_processes
def test_a_withdrawal_that_could_not_reach_challenge_issuer_leaves_no_secret_for_long(sweeping_stack):
    stack = sweeping_stack
    user = verified_user(stack)
    _, enrolled = enroll_totp(stack, user)
    enrollment_id = claims(enrolled["idToken"])["firebase"]["second_factor_identifier"]
    stack.kill("challenge-issuer")
    # The withdrawal succeeds (the factor is gone from factor-registry, its sessions end); deleting
    # the secret fails and does not fail the call.
    withdrawn = v2(stack, "mfaEnrollment:withdraw", idToken=enrolled["idToken"], mfaEnrollmentId=enrollment_id)
    assert withdrawn.status_code == 200, withdrawn.text
    assert stored_secrets(stack, enrollment_id) == ["1"]
    restart(stack, "challenge-issuer")
    wait_until_gone(stack, enrollment_id, time.monotonic())
