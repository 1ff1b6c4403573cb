"""v1/accounts:signInWithCustomToken (§2.7): custom tokens signed with the configured service-account key
(RS256, as firebase-admin makes them for a backend), the Admin SDKs' unsigned emulator tokens in
development mode only, the user created on first sign-in, the token's claims in every ID token of the
session, and each refusal."""

import json
import secrets
import time

import jwt
import pytest
import requests

from conftest import another_stack, make_service_account

AUDIENCE = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
URL = "/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken"


def sign_in(stack, token, key="k", **body):
    return requests.post(f"{stack.gateway}{URL}?key={key}", json={"token": token, **body}, timeout=30)


def error(response):
    return response.json()["error"]["message"]


def custom_token(account, uid, private_key=None, **overrides):
    now = int(time.time())
    payload = {"iss": account["client_email"], "sub": account["client_email"], "aud": AUDIENCE, "iat": now,
               "exp": now + 3600, "uid": uid, **overrides}
    payload = {name: value for name, value in payload.items() if value is not None}
    return jwt.encode(payload, private_key or account["private_key"], algorithm="RS256")


def unsigned(payload):
    return jwt.encode(payload, None, algorithm="none")


def claims_of(id_token):
    return jwt.decode(id_token, options={"verify_signature": False})


def test_a_signed_token_signs_in_creates_the_user_once_and_keeps_its_claims(stack):
    uid = f"custom-{secrets.token_hex(6)}"
    first = sign_in(stack, custom_token(stack.service_account, uid, claims={"role": "editor", "level": 3}))
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["kind"] == "identitytoolkit#VerifyCustomTokenResponse" and body["isNewUser"] is True
    assert body["expiresIn"] == "3600" and body["refreshToken"]
    claims = claims_of(body["idToken"])
    assert claims["sub"] == uid and claims["user_id"] == uid
    assert claims["firebase"]["sign_in_provider"] == "custom"
    assert claims["role"] == "editor" and claims["level"] == 3
    assert "provider_id" not in claims

    again = sign_in(stack, custom_token(stack.service_account, uid)).json()
    assert again["isNewUser"] is False and "role" not in claims_of(again["idToken"])

    refreshed = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                              data={"grant_type": "refresh_token", "refresh_token": body["refreshToken"]}, timeout=30)
    assert refreshed.status_code == 200, refreshed.text
    after = claims_of(refreshed.json()["id_token"])
    assert after["role"] == "editor" and after["firebase"]["sign_in_provider"] == "custom"

    looked_up = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k",
                              json={"idToken": body["idToken"]}, timeout=30).json()["users"][0]
    assert looked_up["localId"] == uid and "lastLoginAt" in looked_up


def test_firebase_admin_signs_tokens_the_gateway_accepts(stack, monkeypatch):
    import firebase_admin
    from firebase_admin import auth, credentials

    monkeypatch.delenv("FIREBASE_AUTH_EMULATOR_HOST", raising=False)
    app = firebase_admin.initialize_app(credentials.Certificate(stack.service_account),
                                        options={"projectId": "demo-project"}, name=f"ct-{secrets.token_hex(4)}")
    try:
        uid = f"admin-made-{secrets.token_hex(4)}"
        token = auth.create_custom_token(uid, {"premium": True}, app=app).decode()
        assert jwt.get_unverified_header(token)["alg"] == "RS256"
        answer = sign_in(stack, token)
        assert answer.status_code == 200, answer.text
        claims = claims_of(answer.json()["idToken"])
        assert claims["sub"] == uid and claims["premium"] is True
    finally:
        firebase_admin.delete_app(app)


def test_the_admin_sdks_emulator_tokens_work_in_development_mode(stack, monkeypatch):
    import firebase_admin
    from firebase_admin import auth

    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", stack.gateway_host)
    app = firebase_admin.initialize_app(options={"projectId": "demo-project"}, name=f"ct-{secrets.token_hex(4)}")
    try:
        uid = f"emulated-{secrets.token_hex(4)}"
        token = auth.create_custom_token(uid, app=app).decode()
        assert jwt.get_unverified_header(token)["alg"] == "none"
        answer = sign_in(stack, token)
        assert answer.status_code == 200, answer.text
        assert claims_of(answer.json()["idToken"])["sub"] == uid
    finally:
        firebase_admin.delete_app(app)
    plain = sign_in(stack, '{"uid": "json-claims-user", "claims": {"tier": "gold"}}')
    assert plain.status_code == 200, plain.text
    assert claims_of(plain.json()["idToken"])["tier"] == "gold"


def test_refusals_name_what_is_wrong(stack):
    account = stack.service_account
    uid = f"refused-{secrets.token_hex(4)}"
    now = int(time.time())
    assert error(sign_in(stack, "")) == "MISSING_CUSTOM_TOKEN"
    assert error(requests.post(f"{stack.gateway}{URL}?key=k", json={}, timeout=30)) == "MISSING_CUSTOM_TOKEN"
    assert error(sign_in(stack, "not.a-jwt")) == "INVALID_CUSTOM_TOKEN : Invalid assertion format"
    assert error(sign_in(stack, "{not json")) == \
        "INVALID_CUSTOM_TOKEN : ((Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.))"
    id_token = sign_in(stack, custom_token(account, uid)).json()["idToken"]
    assert error(sign_in(stack, id_token)) == (
        "INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): demo-project Note: Firebase ID Tokens / third-party tokens "
        "cannot be used with signInWithCustomToken.))")
    stranger = make_service_account()
    forged = custom_token(account, uid, private_key=stranger["private_key"])
    assert error(sign_in(stack, forged)).startswith("INVALID_CUSTOM_TOKEN : ((The custom token's signature")
    other_issuer = custom_token(stranger, uid)
    assert error(sign_in(stack, other_issuer)).startswith("INVALID_CUSTOM_TOKEN : ((The custom token's signature")
    expired = custom_token(account, uid, iat=now - 7200, exp=now - 3600)
    assert error(sign_in(stack, expired)).startswith("INVALID_CUSTOM_TOKEN : ((The custom token has expired")
    too_long = custom_token(account, uid, exp=now + 7200)
    assert error(sign_in(stack, too_long)).startswith("INVALID_CUSTOM_TOKEN : ((The custom token has expired")
    assert error(sign_in(stack, custom_token(account, None))) == "MISSING_IDENTIFIER"
    assert error(sign_in(stack, custom_token(account, "x" * 129))).startswith("INVALID_IDENTIFIER")
    assert error(sign_in(stack, custom_token(account, uid, claims={"email": "a@b.c"}))) == "FORBIDDEN_CLAIM : email"
    assert error(sign_in(stack, custom_token(account, uid, claims=["not", "an", "object"]))) == "INVALID_CLAIMS"
    assert error(sign_in(stack, custom_token(account, uid, claims={"big": "x" * 1200}))) == "CLAIMS_TOO_LARGE"
    assert error(sign_in(stack, custom_token(account, uid, tenant_id="some-tenant"), tenantId="other-tenant")) \
        == "TENANT_ID_MISMATCH"
    assert error(sign_in(stack, custom_token(account, uid, tenant_id="nope-not-a-tenant"))) == "TENANT_NOT_FOUND"
    assert error(sign_in(stack, "x" * 20000)).startswith("INVALID_CUSTOM_TOKEN")


def test_a_disabled_user_cannot_sign_in_with_a_custom_token(stack):
    uid = f"disabled-{secrets.token_hex(4)}"
    assert sign_in(stack, custom_token(stack.service_account, uid)).status_code == 200
    admin = {"Authorization": "Bearer owner"}
    disabled = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update",
                             json={"localId": uid, "disableUser": True}, headers=admin, timeout=30)
    assert disabled.status_code == 200, disabled.text
    assert error(sign_in(stack, custom_token(stack.service_account, uid))) == "USER_DISABLED"


def test_a_tenant_token_signs_into_its_tenant(stack):
    from test_tenants import create_tenant

    tenant = create_tenant(stack, "Custom tokens")
    uid = f"tenant-user-{secrets.token_hex(4)}"
    answer = sign_in(stack, custom_token(stack.service_account, uid, tenant_id=tenant))
    assert answer.status_code == 200, answer.text
    assert claims_of(answer.json()["idToken"])["firebase"]["tenant"] == tenant
    named = sign_in(stack, custom_token(stack.service_account, uid, tenant_id=tenant), tenantId=tenant)
    assert named.status_code == 200 and named.json()["isNewUser"] is False



def test_a_project_token_cannot_open_an_account_in_a_tenant(stack):
    """Decision 17: a custom token without tenant_id, sent with a tenant's id, used to sign its uid
    in to that tenant (an app backend's token for the project opened any tenant's account)."""
    from test_tenants import create_tenant

    tenant, other = create_tenant(stack, "Bound tokens"), create_tenant(stack, "Other tokens")
    uid = f"bound-{secrets.token_hex(4)}"
    assert error(sign_in(stack, custom_token(stack.service_account, uid), tenantId=tenant)) == "TENANT_ID_MISMATCH"
    assert error(sign_in(stack, custom_token(stack.service_account, uid, tenant_id=other), tenantId=tenant)) \
        == "TENANT_ID_MISMATCH"
    looked_up = requests.post(
        f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/tenants/{tenant}/accounts:lookup",
        json={"localId": [uid]}, headers={"Authorization": "Bearer owner"}, timeout=30)
    assert looked_up.status_code == 200 and "users" not in looked_up.json(), looked_up.text
    # The project's own token still signs in to the project, and a tenant's token to its tenant.
    assert sign_in(stack, custom_token(stack.service_account, uid)).status_code == 200
    assert sign_in(stack, custom_token(stack.service_account, uid, tenant_id=tenant), tenantId=tenant).status_code == 200

@pytest.fixture(scope="module")
def production_stack(stack):
    with another_stack(stack, "prod", mode="production",
                       extra_env={"API_KEYS": "prod-key=demo-project"}) as running:
        yield running


def test_production_mode_accepts_only_signed_tokens(production_stack):
    account = production_stack.service_account
    now = int(time.time())
    emulator_token = unsigned({"iss": "firebase-auth-emulator@example.com", "sub": "firebase-auth-emulator@example.com",
                               "aud": AUDIENCE, "iat": now, "exp": now + 3600, "uid": "sneaky"})
    assert error(sign_in(production_stack, emulator_token, key="prod-key")) \
        .startswith("INVALID_CUSTOM_TOKEN : ((The custom token's signature")
    assert error(sign_in(production_stack, '{"uid": "sneaky"}', key="prod-key")) == \
        "INVALID_CUSTOM_TOKEN : Invalid assertion format"
    signed = sign_in(production_stack, custom_token(account, "prod-user"), key="prod-key")
    assert signed.status_code == 200, signed.text


def test_a_key_signs_in_only_to_its_own_project(stack, tmp_path):
    """Issue 39, L-4: a service-account key's `project_id` was never read, so another project's backend
    key configured beside ours signed its users into our project."""
    ours, theirs = make_service_account(), make_service_account("backend@other-project.iam.gserviceaccount.com")
    theirs["project_id"] = "other-project"
    files = []
    for name, account in (("ours", ours), ("theirs", theirs)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(account))
        files.append(str(path))
    with another_stack(stack, "key-projects", extra_env={"CUSTOM_TOKENS_SERVICE_ACCOUNT_FILES": ",".join(files)}) as running:
        refused = sign_in(running, custom_token(theirs, "theirs"))
        assert refused.status_code == 400 and error(refused).startswith("CREDENTIAL_MISMATCH"), refused.text
        assert sign_in(running, custom_token(ours, "ours")).status_code == 200
