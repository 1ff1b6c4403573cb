"""What the account record and settings keep, read back through Google's generated REST client, the admin
REST API and firebase-admin: lastLoginAt from the first sign-up on and at every sign-in, photoUrl set,
returned and deleted, MFA enabledProviders exactly as stored (project config and tenant), and an applied
VERIFY_EMAIL code leaving the development outbox."""

import time

import pytest
import requests
from firebase_admin import auth

from rest_client import (ADMIN, admin_app, admin_lookup, failure, identitytoolkit, last_mail, mail_to, unique_email)
from test_tenants import create_tenant


@pytest.fixture(scope="module")
def accounts(stack):
    return identitytoolkit(stack).accounts()


@pytest.fixture(scope="module")
def admin(stack):
    yield from admin_app(stack)


def now_ms():
    return int(time.time() * 1000)


def test_sign_up_records_a_login_and_each_sign_in_moves_it(stack, accounts, admin):
    email = unique_email("login")
    before = now_ms()
    created = accounts.signUp(body={"email": email, "password": "secret-pw"}).execute()
    account = accounts.lookup(body={"idToken": created["idToken"]}).execute()["users"][0]
    first = int(account["lastLoginAt"])
    assert abs(first - int(account["createdAt"])) < 1000 and before - 1000 <= first <= now_ms() + 1000
    assert admin_lookup(stack, created["localId"])["lastLoginAt"] == account["lastLoginAt"]
    assert auth.get_user(created["localId"], app=admin).user_metadata.last_sign_in_timestamp == first

    time.sleep(0.01)
    signed_in = accounts.signInWithPassword(body={"email": email, "password": "secret-pw"}).execute()
    second = int(accounts.lookup(body={"idToken": signed_in["idToken"]}).execute()["users"][0]["lastLoginAt"])
    assert second > first and abs(second - now_ms()) < 5000
    assert int(admin_lookup(stack, created["localId"])["lastLoginAt"]) == second
    metadata = auth.get_user(created["localId"], app=admin).user_metadata
    assert metadata.last_sign_in_timestamp == second and metadata.creation_timestamp == int(account["createdAt"])
    # A refused sign-in is no login.
    failure(accounts.signInWithPassword(body={"email": email, "password": "wrong-pw"}))
    assert int(admin_lookup(stack, created["localId"])["lastLoginAt"]) == second


def test_an_anonymous_sign_up_records_a_login(stack, accounts):
    created = accounts.signUp(body={}).execute()
    account = accounts.lookup(body={"idToken": created["idToken"]}).execute()["users"][0]
    assert account["lastLoginAt"] and abs(int(account["lastLoginAt"]) - int(account["createdAt"])) < 1000


def test_a_photo_url_is_kept_returned_and_deleted(stack, accounts):
    email = unique_email("photo")
    created = accounts.signUp(body={"email": email, "password": "secret-pw"}).execute()
    photo = "https://example.com/photos/me.png?size=64"
    updated = accounts.update(body={"idToken": created["idToken"], "photoUrl": photo}).execute()
    assert updated["photoUrl"] == photo
    assert accounts.lookup(body={"idToken": created["idToken"]}).execute()["users"][0]["photoUrl"] == photo
    assert admin_lookup(stack, created["localId"])["photoUrl"] == photo
    # Other changes keep it.
    renamed = accounts.update(body={"idToken": created["idToken"], "displayName": "Me"}).execute()
    assert renamed["photoUrl"] == photo and renamed["displayName"] == "Me"

    removed = accounts.update(body={"idToken": created["idToken"], "deleteAttribute": ["PHOTO_URL"]}).execute()
    assert "photoUrl" not in removed and removed["displayName"] == "Me"
    account = accounts.lookup(body={"idToken": created["idToken"]}).execute()["users"][0]
    assert "photoUrl" not in account and account["displayName"] == "Me"


def test_firebase_admin_round_trips_a_photo_url(stack, accounts, admin):
    created = accounts.signUp(body={"email": unique_email("admin-photo"), "password": "secret-pw"}).execute()
    photo = "https://example.com/admin.png"
    assert auth.update_user(created["localId"], photo_url=photo, app=admin).photo_url == photo
    assert auth.get_user(created["localId"], app=admin).photo_url == photo
    assert accounts.lookup(body={"idToken": created["idToken"]}).execute()["users"][0]["photoUrl"] == photo
    auth.update_user(created["localId"], photo_url=auth.DELETE_ATTRIBUTE, app=admin)
    assert auth.get_user(created["localId"], app=admin).photo_url is None
    created_with = auth.create_user(email=unique_email("created-photo"), photo_url=photo, app=admin)
    assert auth.get_user(created_with.uid, app=admin).photo_url == photo


def config_url(stack):
    return f"{stack.gateway}/v2/projects/demo-project/config"


@pytest.fixture
def restore_config(stack):
    before = requests.get(config_url(stack), headers=ADMIN, timeout=30).json()
    yield
    restored = requests.patch(f"{config_url(stack)}?updateMask=mfa", headers=ADMIN, timeout=30, json={"mfa": before["mfa"]})
    assert restored.status_code == 200, restored.text
    assert requests.get(config_url(stack), headers=ADMIN, timeout=30).json()["mfa"] == before["mfa"]


def test_project_mfa_providers_are_returned_as_stored(stack, restore_config):
    patched = requests.patch(f"{config_url(stack)}?updateMask=mfa", headers=ADMIN, timeout=30,
                             json={"mfa": {"state": "ENABLED", "enabledProviders": ["PROVIDER_UNSPECIFIED", "PHONE_SMS"]}})
    assert patched.status_code == 200, patched.text
    assert patched.json()["mfa"]["enabledProviders"] == ["PROVIDER_UNSPECIFIED", "PHONE_SMS"]
    config = requests.get(config_url(stack), headers=ADMIN, timeout=30).json()
    assert config["mfa"]["state"] == "ENABLED"
    assert config["mfa"]["enabledProviders"] == ["PROVIDER_UNSPECIFIED", "PHONE_SMS"]


def test_tenant_mfa_providers_are_returned_as_stored(stack):
    tenant = create_tenant(stack, "Providers", mfaConfig={"state": "ENABLED", "enabledProviders": ["PROVIDER_UNSPECIFIED", "PHONE_SMS"]})
    url = f"{stack.gateway}/v2/projects/demo-project/tenants/{tenant}"
    assert requests.get(url, headers=ADMIN, timeout=30).json()["mfaConfig"]["enabledProviders"] == ["PROVIDER_UNSPECIFIED", "PHONE_SMS"]
    patched = requests.patch(f"{url}?updateMask=mfaConfig", headers=ADMIN, timeout=30,
                             json={"mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS", "PROVIDER_UNSPECIFIED"]}})
    assert patched.status_code == 200, patched.text
    assert requests.get(url, headers=ADMIN, timeout=30).json()["mfaConfig"]["enabledProviders"] == ["PHONE_SMS", "PROVIDER_UNSPECIFIED"]


def test_an_applied_verify_email_code_leaves_the_outbox(stack, accounts):
    email, other = unique_email("verify"), unique_email("other-verify")
    created = accounts.signUp(body={"email": email, "password": "secret-pw"}).execute()
    bystander = accounts.signUp(body={"email": other, "password": "secret-pw"}).execute()
    accounts.sendOobCode(body={"requestType": "VERIFY_EMAIL", "idToken": created["idToken"]}).execute()
    accounts.sendOobCode(body={"requestType": "VERIFY_EMAIL", "idToken": bystander["idToken"]}).execute()
    code = last_mail(stack, email, "VERIFY_EMAIL")["oobCode"]
    assert accounts.update(body={"oobCode": code}).execute()["emailVerified"] is True
    assert mail_to(stack, email, "VERIFY_EMAIL") == []
    assert len(mail_to(stack, other, "VERIFY_EMAIL")) == 1
