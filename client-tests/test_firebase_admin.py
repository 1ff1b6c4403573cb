"""The unmodified firebase-admin Python package, pointed at the gateway with FIREBASE_AUTH_EMULATOR_HOST,
as an app team's backend would use it (contract §1.7)."""

import os
import secrets
import time

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


def sign_in(stack, email, password):
    return requests.post(stack.gateway + "/v1/accounts:signInWithPassword?key=k",
                         json={"email": email, "password": password}, timeout=30)


def refresh(stack, token):
    return requests.post(stack.gateway + "/securetoken.googleapis.com/v1/token?key=k",
                         data={"grant_type": "refresh_token", "refresh_token": token}, timeout=30)


def test_update_user_marks_the_email_verified_and_disables(stack, admin_app):
    email = f"upd-{secrets.token_hex(6)}@example.com"
    user = auth.create_user(email=email, password="updatable1", app=admin_app)
    session = sign_in(stack, email, "updatable1").json()
    updated = auth.update_user(user.uid, email_verified=True, display_name="Verified", app=admin_app)
    assert updated.email_verified is True and updated.display_name == "Verified"

    auth.update_user(user.uid, disabled=True, app=admin_app)
    assert auth.get_user(user.uid, app=admin_app).disabled is True
    assert sign_in(stack, email, "updatable1").json()["error"]["message"] == "USER_DISABLED"
    assert refresh(stack, session["refreshToken"]).json()["error"]["message"] == "USER_DISABLED"
    lookup = requests.post(stack.gateway + "/v1/accounts:lookup?key=k", json={"idToken": session["idToken"]}, timeout=30)
    assert lookup.json()["error"]["message"] == "USER_DISABLED"
    with pytest.raises(auth.UserDisabledError):
        auth.verify_id_token(session["idToken"], check_revoked=True, app=admin_app)

    auth.update_user(user.uid, disabled=False, app=admin_app)
    assert sign_in(stack, email, "updatable1").status_code == 200


def test_revoke_refresh_tokens_ends_earlier_sessions(stack, admin_app):
    email = f"rev-{secrets.token_hex(6)}@example.com"
    user = auth.create_user(email=email, password="revocable1", app=admin_app)
    session = sign_in(stack, email, "revocable1").json()
    assert auth.verify_id_token(session["idToken"], check_revoked=True, app=admin_app)["uid"] == user.uid
    time.sleep(1.1)  # validSince has one-second resolution, as in Identity Toolkit
    auth.revoke_refresh_tokens(user.uid, app=admin_app)

    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(session["idToken"], check_revoked=True, app=admin_app)
    assert refresh(stack, session["refreshToken"]).json()["error"]["message"] == "TOKEN_EXPIRED"
    lookup = requests.post(stack.gateway + "/v1/accounts:lookup?key=k", json={"idToken": session["idToken"]}, timeout=30)
    assert lookup.json()["error"]["message"] == "TOKEN_EXPIRED"
    # A new sign-in works.
    fresh = sign_in(stack, email, "revocable1").json()
    assert auth.verify_id_token(fresh["idToken"], check_revoked=True, app=admin_app)["uid"] == user.uid


def test_an_admin_password_change_ends_sessions_and_takes_effect(stack, admin_app):
    email = f"pw-{secrets.token_hex(6)}@example.com"
    user = auth.create_user(email=email, password="old-password", app=admin_app)
    session = sign_in(stack, email, "old-password").json()
    time.sleep(1.1)
    auth.update_user(user.uid, password="new-password", app=admin_app)
    assert sign_in(stack, email, "old-password").json()["error"]["message"] == "INVALID_PASSWORD"
    assert sign_in(stack, email, "new-password").status_code == 200
    assert refresh(stack, session["refreshToken"]).json()["error"]["message"] == "TOKEN_EXPIRED"


def test_list_users_pages_through_everyone(admin_app):
    created = {auth.create_user(email=f"list-{secrets.token_hex(6)}@example.com", app=admin_app).uid for _ in range(5)}
    first_page = auth.list_users(max_results=2, app=admin_app)
    assert len(first_page.users) == 2 and first_page.has_next_page
    listed = [user.uid for user in auth.list_users(max_results=2, app=admin_app).iterate_all()]
    assert created <= set(listed)
    assert listed == sorted(listed) and len(listed) == len(set(listed))


def test_custom_claims_reach_every_token_and_can_be_cleared(stack, admin_app):
    email = f"claims-{secrets.token_hex(6)}@example.com"
    user = auth.create_user(email=email, password="claims-pw1", app=admin_app)
    auth.set_custom_user_claims(user.uid, {"role": "admin", "level": 3}, app=admin_app)
    assert auth.get_user(user.uid, app=admin_app).custom_claims == {"role": "admin", "level": 3}

    session = sign_in(stack, email, "claims-pw1").json()
    verified = auth.verify_id_token(session["idToken"], app=admin_app)
    assert verified["role"] == "admin" and verified["level"] == 3
    refreshed = refresh(stack, session["refreshToken"]).json()
    assert auth.verify_id_token(refreshed["id_token"], app=admin_app)["role"] == "admin"

    auth.set_custom_user_claims(user.uid, None, app=admin_app)
    assert not auth.get_user(user.uid, app=admin_app).custom_claims
    assert "role" not in auth.verify_id_token(sign_in(stack, email, "claims-pw1").json()["idToken"], app=admin_app)


@pytest.mark.parametrize("claims, message", [
    ('{"sub":"someone-else"}', "FORBIDDEN_CLAIM : sub"),
    ('{"firebase":{}}', "FORBIDDEN_CLAIM : firebase"),
    ("[1,2]", "INVALID_CLAIMS"),
    ("not json", "INVALID_CLAIMS"),
    ('{"big":"' + "x" * 1000 + '"}', "CLAIMS_TOO_LARGE"),
])
def test_the_server_refuses_bad_custom_claims(stack, admin_app, claims, message):
    user = auth.create_user(app=admin_app)
    answer = requests.post(stack.gateway + "/v1/projects/demo-project/accounts:update",
                           json={"localId": user.uid, "customAttributes": claims},
                           headers={"authorization": "Bearer owner"}, timeout=30)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == message


def test_the_short_paths_with_an_admin_credential_act_as_the_admin_forms(stack):
    owner = {"authorization": "Bearer owner"}
    email = f"short-{secrets.token_hex(6)}@example.com"
    created = requests.post(stack.gateway + "/v1/accounts:signUp", json={"email": email, "emailVerified": True},
                            headers=owner, timeout=30).json()
    assert created["kind"] == "identitytoolkit#SignupNewUserResponse" and "idToken" not in created
    found = requests.post(stack.gateway + "/v1/accounts:lookup", json={"email": [email]}, headers=owner, timeout=30).json()
    assert found["users"][0]["localId"] == created["localId"] and found["users"][0]["emailVerified"] is True
    deleted = requests.post(stack.gateway + "/v1/accounts:delete", json={"localId": created["localId"]},
                            headers=owner, timeout=30).json()
    assert deleted == {"kind": "identitytoolkit#DeleteAccountResponse"}
    gone = requests.post(stack.gateway + "/v1/accounts:lookup", json={"localId": [created["localId"]]},
                         headers=owner, timeout=30).json()
    assert "users" not in gone


def test_delete_users_removes_many_at_once(admin_app):
    uids = [auth.create_user(app=admin_app).uid for _ in range(3)]
    result = auth.delete_users(uids + ["never-existed"], app=admin_app)
    assert result.success_count == 4 and result.failure_count == 0
    for uid in uids:
        with pytest.raises(auth.UserNotFoundError):
            auth.get_user(uid, app=admin_app)


def test_batch_delete_without_force_keeps_enabled_accounts(stack, admin_app):
    enabled = auth.create_user(app=admin_app).uid
    disabled = auth.create_user(disabled=True, app=admin_app).uid
    answer = requests.post(stack.gateway + "/v1/projects/demo-project/accounts:batchDelete",
                           json={"localIds": [disabled, enabled]}, headers={"authorization": "Bearer owner"}, timeout=30)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"errors": [{"index": 1, "localId": enabled,
                                         "message": "NOT_DISABLED : Disable the account before batch deletion."}]}
    assert auth.get_user(enabled, app=admin_app).uid == enabled
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(disabled, app=admin_app)
