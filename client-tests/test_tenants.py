"""Accounts inside tenants: the Admin SDK's auth_for_tenant, tenant sign-in, and isolation (decision 5)."""

import os
import secrets

import firebase_admin
import jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from firebase_admin import auth, credentials, tenant_mgt


@pytest.fixture(scope="module")
def admin_app(stack):
    """An app initialised as a backend would be, with a service-account key. tenant_mgt needs a
    credential to build its (never used here) tenant-management client; user management inside a
    tenant goes to the gateway through FIREBASE_AUTH_EMULATOR_HOST with the emulator credential."""
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = stack.gateway_host
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    service_account = {
        "type": "service_account", "project_id": "demo-project", "private_key_id": secrets.token_hex(8),
        "private_key": pem, "client_email": "tests@demo-project.iam.gserviceaccount.com", "client_id": "1",
        "token_uri": "http://127.0.0.1:9/token",
    }
    app = firebase_admin.initialize_app(credentials.Certificate(service_account), options={"projectId": "demo-project"},
                                        name=f"tenants-{secrets.token_hex(4)}")
    yield app
    firebase_admin.delete_app(app)


def create_tenant(stack, name, **settings):
    """A tenant created through the admin REST API, with password and anonymous sign-in on unless told."""
    body = {"displayName": name, "allowPasswordSignup": True, "enableAnonymousUser": True, **settings}
    answer = requests.post(f"{stack.gateway}/v2/projects/demo-project/tenants", json=body,
                           headers={"authorization": "Bearer owner"}, timeout=30)
    answer.raise_for_status()
    return answer.json()["tenantId"]


@pytest.fixture(scope="module")
def tenants(stack):
    return create_tenant(stack, "Tenant A"), create_tenant(stack, "Tenant B")


def test_admin_sdk_manages_users_inside_a_tenant(stack, admin_app, tenants):
    tenant_a, tenant_b = tenants
    client_a = tenant_mgt.auth_for_tenant(tenant_a, app=admin_app)
    email = f"tenant-{secrets.token_hex(6)}@example.com"
    user = client_a.create_user(email=email, password="tenant-password")
    assert user.tenant_id == tenant_a
    assert client_a.get_user(user.uid).email == email
    assert client_a.get_user_by_email(email).uid == user.uid
    assert user.uid in {u.uid for u in client_a.list_users().iterate_all()}

    # Invisible from the project and from the other tenant.
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(user.uid, app=admin_app)
    with pytest.raises(auth.UserNotFoundError):
        tenant_mgt.auth_for_tenant(tenant_b, app=admin_app).get_user_by_email(email)

    # The tenant's user signs in with tenantId, and the token says which tenant it belongs to.
    signed_in = requests.post(stack.gateway + "/v1/accounts:signInWithPassword?key=k",
                              json={"email": email, "password": "tenant-password", "tenantId": tenant_a}, timeout=30)
    assert signed_in.status_code == 200, signed_in.text
    claims = jwt.decode(signed_in.json()["idToken"], options={"verify_signature": False})
    assert claims["firebase"]["tenant"] == tenant_a
    assert client_a.verify_id_token(signed_in.json()["idToken"], check_revoked=True)["uid"] == user.uid
    with pytest.raises(tenant_mgt.TenantIdMismatchError):
        tenant_mgt.auth_for_tenant(tenant_b, app=admin_app).verify_id_token(signed_in.json()["idToken"])

    # Not in the project, not in the other tenant.
    for body in ({}, {"tenantId": tenant_b}):
        other = requests.post(stack.gateway + "/v1/accounts:signInWithPassword?key=k",
                              json={"email": email, "password": "tenant-password", **body}, timeout=30)
        assert other.json()["error"]["message"] == "EMAIL_NOT_FOUND"

    # The token refreshes within its tenant, and a lookup naming another tenant is refused.
    refreshed = requests.post(stack.gateway + "/securetoken.googleapis.com/v1/token?key=k",
                              data={"grant_type": "refresh_token", "refresh_token": signed_in.json()["refreshToken"]},
                              timeout=30)
    assert refreshed.status_code == 200
    assert jwt.decode(refreshed.json()["id_token"], options={"verify_signature": False})["firebase"]["tenant"] == tenant_a
    mismatch = requests.post(stack.gateway + "/v1/accounts:lookup?key=k",
                             json={"idToken": signed_in.json()["idToken"], "tenantId": tenant_b}, timeout=30)
    assert mismatch.json()["error"]["message"] == "TENANT_ID_MISMATCH"

    client_a.delete_user(user.uid)
    with pytest.raises(auth.UserNotFoundError):
        client_a.get_user(user.uid)


def test_an_unknown_tenant_is_tenant_not_found(stack, admin_app):
    with pytest.raises(Exception) as raised:
        tenant_mgt.auth_for_tenant("NoSuchTenant1", app=admin_app).create_user(email="x@example.com")
    assert "TENANT_NOT_FOUND" in str(raised.value) or isinstance(raised.value, tenant_mgt.TenantNotFoundError)
