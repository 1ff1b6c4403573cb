"""Shared steps of the MFA tests: a signed-in user with a verified email, calls to the v2 MFA endpoints,
and the development sink's SMS codes."""

import secrets

import requests

V1 = "/identitytoolkit.googleapis.com/v1/accounts:"
V2 = "/identitytoolkit.googleapis.com/v2/accounts/"
ADMIN = {"Authorization": "Bearer owner"}
RECAPTCHA = "test-recaptcha-token"


def v1(stack, operation, **body):
    return requests.post(f"{stack.gateway}{V1}{operation}?key=k", json=body, timeout=30)


def v2(stack, operation, **body):
    return requests.post(f"{stack.gateway}{V2}{operation}?key=k", json=body, timeout=30)


def error(response):
    return response.json()["error"]["message"]


def verified_user(stack, tenant=None, password="secret-pw"):
    """A new email/password user whose email an admin marked verified, signed in."""
    email = f"mfa-{secrets.token_hex(6)}@example.com"
    extra = {"tenantId": tenant} if tenant else {}
    signed_up = v1(stack, "signUp", email=email, password=password, **extra).json()
    base = f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project" + (f"/tenants/{tenant}" if tenant else "")
    updated = requests.post(f"{base}/accounts:update", json={"localId": signed_up["localId"], "emailVerified": True},
                            headers=ADMIN, timeout=30)
    assert updated.status_code == 200, updated.text
    signed_in = v1(stack, "signInWithPassword", email=email, password=password, **extra).json()
    return {"email": email, "password": password, "tenant": tenant, **signed_in}


def sms_code(stack, session_info, tenant=None):
    path = "/emulator/v1/projects/demo-project" + (f"/tenants/{tenant}" if tenant else "") + "/verificationCodes"
    codes = requests.get(stack.gateway + path, timeout=30).json()["verificationCodes"]
    return next(entry["code"] for entry in codes if entry["sessionInfo"] == session_info)


def unique_phone():
    return "+1650" + str(secrets.randbelow(10**7)).zfill(7)


def enable_project_totp(stack, adjacent_intervals=1):
    """The project's MFA on with TOTP (and SMS), as an admin sets it."""
    mfa = {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
           "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": adjacent_intervals}}]}
    answer = requests.patch(f"{stack.gateway}/v2/projects/demo-project/config?updateMask=mfa", json={"mfa": mfa},
                            headers=ADMIN, timeout=30)
    assert answer.status_code == 200, answer.text


def enroll_totp(stack, user, display_name="Authenticator app"):
    """A TOTP factor for a signed-in user with a verified email: (pyotp.TOTP, the finalize answer)."""
    import pyotp

    started = v2(stack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={}).json()["totpSessionInfo"]
    totp = pyotp.TOTP(started["sharedSecretKey"])
    finalized = v2(stack, "mfaEnrollment:finalize", idToken=user["idToken"], displayName=display_name,
                   totpVerificationInfo={"sessionInfo": started["sessionInfo"], "verificationCode": totp.now()})
    assert finalized.status_code == 200, finalized.text
    return totp, finalized.json()
