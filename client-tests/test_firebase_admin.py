"""The unmodified firebase-admin Python package, pointed at the gateway with FIREBASE_AUTH_EMULATOR_HOST,
as an app team's backend would use it (contract §1.7)."""

import os
import secrets

import firebase_admin
import pytest
import requests
from firebase_admin import auth


@pytest.fixture(scope="module")
def admin_app(stack):
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = stack.gateway_host
    app = firebase_admin.initialize_app(options={"projectId": "demo-project"}, name=f"test-{secrets.token_hex(4)}")
    yield app
    firebase_admin.delete_app(app)


def test_create_get_by_id_and_email_then_delete(admin_app):
    email = f"admin-{secrets.token_hex(6)}@example.com"
    created = auth.create_user(email=email, password="created-by-admin", display_name="Created", app=admin_app)
    assert created.uid and created.email == email and created.display_name == "Created"
    assert created.email_verified is False and created.disabled is False

    by_id = auth.get_user(created.uid, app=admin_app)
    assert by_id.uid == created.uid and by_id.email == email
    assert [provider.provider_id for provider in by_id.provider_data] == ["password"]
    assert by_id.user_metadata.creation_timestamp > 0

    by_email = auth.get_user_by_email(email.upper(), app=admin_app)
    assert by_email.uid == created.uid

    auth.delete_user(created.uid, app=admin_app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(created.uid, app=admin_app)


def test_create_with_a_chosen_uid_and_duplicate_errors(admin_app):
    uid = f"chosen-{secrets.token_hex(4)}"
    user = auth.create_user(uid=uid, email=f"{uid}@example.com", email_verified=True, app=admin_app)
    assert user.uid == uid and user.email_verified is True
    with pytest.raises(auth.UidAlreadyExistsError):
        auth.create_user(uid=uid, app=admin_app)
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.create_user(email=f"{uid}@example.com", app=admin_app)
    auth.delete_user(uid, app=admin_app)


def test_a_user_created_by_the_admin_signs_in_with_the_client_api(stack, admin_app):
    email = f"both-{secrets.token_hex(6)}@example.com"
    user = auth.create_user(email=email, password="admin-set-password", app=admin_app)
    answer = requests.post(stack.gateway + "/v1/accounts:signInWithPassword?key=k",
                           json={"email": email, "password": "admin-set-password"}, timeout=30)
    assert answer.status_code == 200, answer.text
    assert answer.json()["localId"] == user.uid


def test_admin_paths_refuse_api_key_callers(stack):
    answer = requests.post(stack.gateway + "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:lookup?key=k",
                           json={"localId": ["x"]}, timeout=30)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == \
        "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id."
