"""The MFA policy (docs/mfa-policy.md) in production mode: signed tokens checked against the published
keys, the operator's admin credential, the project's own API key. A MANDATORY tenant's user without a
factor gets an enrollment-only session; enrolling lifts it; recovery codes then sign in once each."""

import secrets
import time

import jwt
import pyotp
import requests

V1 = "/identitytoolkit.googleapis.com/v1/accounts:"
V2 = "/identitytoolkit.googleapis.com/v2/accounts/"


def call(stack, prefix, operation, **body):
    return requests.post(f"{stack.gateway}{prefix}{operation}?key={stack.api_key}", json=body, timeout=30)


def verified(stack, token):
    keys = jwt.PyJWKClient(f"{stack.gateway}/.well-known/jwks.json")
    return jwt.decode(token, keys.get_signing_key_from_jwt(token).key, algorithms=["RS256"], audience="demo-project")


def test_mandatory_step_up_and_recovery_codes_in_production(production):
    stack = production
    admin = {"Authorization": f"Bearer {stack.admin_token}"}
    mfa = {"state": "MANDATORY", "enabledProviders": [], "enrollmentGracePeriod": "600s", "stepUpMaxAge": "120s",
           "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}
    created = requests.post(f"{stack.admin_url}/v2/projects/demo-project/tenants", headers=admin, timeout=30,
                            json={"displayName": "Policy", "allowPasswordSignup": True, "mfaConfig": mfa})
    assert created.status_code == 200, created.text
    tenant_id = created.json()["tenantId"]
    email, password = f"prod-{secrets.token_hex(5)}@example.com", "Correct-horse-1"
    signed_up = call(stack, V1, "signUp", email=email, password=password, tenantId=tenant_id)
    assert signed_up.status_code == 200, signed_up.text
    local_id = signed_up.json()["localId"]
    marked = requests.post(f"{stack.admin_url}/v1/projects/demo-project/tenants/{tenant_id}/accounts:update",
                           json={"localId": local_id, "emailVerified": True}, headers=admin, timeout=30)
    assert marked.status_code == 200, marked.text
    signed_in = call(stack, V1, "signInWithPassword", email=email, password=password, tenantId=tenant_id).json()
    claims = verified(stack, signed_in["idToken"])
    assert claims["firebase"]["mfa_enrollment_required"] is True and claims["firebase"]["tenant"] == tenant_id
    refused = call(stack, V1, "update", idToken=signed_in["idToken"], tenantId=tenant_id, displayName="X")
    assert refused.status_code == 400 and refused.json()["error"]["message"].startswith(
        "OPERATION_NOT_ALLOWED : MFA_ENROLLMENT_REQUIRED"), refused.text
    started = call(stack, V2, "mfaEnrollment:start", idToken=signed_in["idToken"], tenantId=tenant_id, totpEnrollmentInfo={})
    assert started.status_code == 200, started.text
    info = started.json()["totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"])
    enrolled = call(stack, V2, "mfaEnrollment:finalize", idToken=signed_in["idToken"], tenantId=tenant_id,
                    totpVerificationInfo={"sessionInfo": info["sessionInfo"], "verificationCode": totp.now()})
    assert enrolled.status_code == 200, enrolled.text
    full = enrolled.json()
    assert "mfa_enrollment_required" not in verified(stack, full["idToken"])["firebase"]
    generated = call(stack, V2, "mfaRecoveryCodes:generate", idToken=full["idToken"], tenantId=tenant_id)
    assert generated.status_code == 200, generated.text
    codes, set_id = generated.json()["recoveryCodes"], generated.json()["mfaEnrollmentId"]
    pending = call(stack, V1, "signInWithPassword", email=email, password=password, tenantId=tenant_id).json()
    assert {entry["mfaEnrollmentId"] for entry in pending["mfaInfo"]} >= {set_id}
    finish = {"mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": set_id, "tenantId": tenant_id,
              "totpVerificationInfo": {"verificationCode": codes[5]}}
    passed = call(stack, V2, "mfaSignIn:finalize", **finish)
    assert passed.status_code == 200, passed.text
    token = verified(stack, passed.json()["idToken"])
    assert token["firebase"]["sign_in_second_factor"] == "recovery_code"
    assert abs(token["firebase"]["second_factor_auth_time"] - time.time()) < 60
    # The same code with a new pending credential: used up.
    again = call(stack, V1, "signInWithPassword", email=email, password=password, tenantId=tenant_id).json()
    reused = call(stack, V2, "mfaSignIn:finalize", **{**finish, "mfaPendingCredential": again["mfaPendingCredential"]})
    assert reused.status_code == 400 and reused.json()["error"]["message"] == "INVALID_CODE", reused.text
    # The operator sees how many are left; the database holds no code.
    counted = requests.post(f"{stack.admin_url}/v2/projects/demo-project/tenants/{tenant_id}/accounts/mfaRecoveryCodes:lookup",
                            json={"localId": local_id}, headers=admin, timeout=30)
    assert counted.status_code == 200 and counted.json()["remaining"] == 9, counted.text
    stored = "\n".join(stack.query("challenge-issuer", "SELECT encode(code_hash, 'escape') FROM "
                                   f"\"t_{tenant_id}\".recovery_codes"))
    assert all(code.replace("-", "") not in stored for code in codes)
