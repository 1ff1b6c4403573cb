"""Expired pending credentials are deleted by session-token's sweeper; live ones are not."""

import time

import pytest

import test_mfa_totp as totp_flow
from conftest import another_stack
from mfa_helpers import error, v2, verified_user

LIFETIME_SECONDS = 3


@pytest.fixture(scope="module")
def short_lived_stack(stack):
    """Credentials that live three seconds, swept every second."""
    with another_stack(stack, "sweep", extra_env={
        "MFA_PENDING_CREDENTIAL_LIFETIME_SECONDS": str(LIFETIME_SECONDS),
        "MFA_PENDING_CREDENTIAL_SWEEP_SECONDS": "1",
    }) as running:
        yield running


def test_an_abandoned_sign_in_leaves_nothing_behind(short_lived_stack):
    stack = short_lived_stack
    user = verified_user(stack)
    totp, _ = totp_flow.enroll_totp(stack, user)
    credential = totp_flow.sign_in_pending(stack, user)["mfaPendingCredential"]
    issued = time.monotonic()
    # Swept at least once while it is still valid, and kept.
    time.sleep(1.5)
    assert totp_flow.stored_pending_credentials(stack, credential) == ["1"]
    # Gone within a sweep or two of its expiry; it no longer signs anybody in.
    while totp_flow.stored_pending_credentials(stack, credential) != ["0"]:
        assert time.monotonic() - issued < LIFETIME_SECONDS + 5, "the expired credential was not deleted"
        time.sleep(0.2)
    assert time.monotonic() - issued >= LIFETIME_SECONDS - 0.5
    enrollment_id = totp_flow.sign_in_pending(stack, user)["mfaInfo"][0]["mfaEnrollmentId"]
    late = v2(stack, "mfaSignIn:finalize", mfaPendingCredential=credential, mfaEnrollmentId=enrollment_id,
              totpVerificationInfo={"verificationCode": totp_flow.later_code(totp)})
    assert error(late) == "INVALID_MFA_PENDING_CREDENTIAL"
