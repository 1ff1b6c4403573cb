"""Issue 42, item 6: a project's or tenant's password policy (`passwordPolicyConfig`), published at
`GET v2/passwordPolicy` in the shape the SDKs' `validatePassword` reads, and enforced where a client
sets a password: sign-up, a password change, a reset (`PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing
password requirements: [...]`), and at sign-in when `forceUpgradeOnSignin` asks for it."""

import pytest
import requests

from rest_client import ADMIN, failure, identitytoolkit, last_mail, link_query, unique_email

POLICY = {"passwordPolicyEnforcementState": "ENFORCE", "passwordPolicyVersions": [{"customStrengthOptions": {
    "minPasswordLength": 10, "containsUppercaseCharacter": True, "containsNumericCharacter": True,
    "containsNonAlphanumericCharacter": True}}]}


@pytest.fixture
def tenant(stack):
    answer = requests.post(f"{stack.gateway}/v2/projects/demo-project/tenants", headers=ADMIN, timeout=30,
                           json={"displayName": "Policy", "allowPasswordSignup": True, "passwordPolicyConfig": POLICY})
    assert answer.status_code == 200, answer.text
    created = answer.json()
    assert created["passwordPolicyConfig"]["passwordPolicyEnforcementState"] == "ENFORCE"
    assert created["passwordPolicyConfig"]["lastUpdateTime"]
    return created["tenantId"]


def sign_up(stack, tenant, email, password):
    return identitytoolkit(stack).accounts().signUp(body={
        "email": email, "password": password, "tenantId": tenant, "returnSecureToken": True})


def test_the_policy_is_published_as_the_sdks_read_it(stack, tenant):
    published = identitytoolkit(stack, "v2").v2().getPasswordPolicy(tenantId=tenant).execute()
    assert published["schemaVersion"] == 1 and published["enforcementState"] == "ENFORCE"
    assert published["customStrengthOptions"] == {
        "minPasswordLength": 10, "containsLowercaseCharacter": False, "containsUppercaseCharacter": True,
        "containsNumericCharacter": True, "containsNonAlphanumericCharacter": True}
    assert "!" in published["allowedNonAlphanumericCharacters"]
    # A scope without a policy publishes the six characters every password needs, not enforced.
    project = identitytoolkit(stack, "v2").v2().getPasswordPolicy().execute()
    assert project["enforcementState"] == "OFF" and project["customStrengthOptions"]["minPasswordLength"] == 6


def test_sign_up_change_and_reset_enforce_the_policy(stack, tenant):
    email = unique_email("policy")
    assert failure(sign_up(stack, tenant, email, "short")) == (
        400, "PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing password requirements: [Password must contain at least 10 "
             "characters, Password must contain an upper case character, Password must contain a numeric character, "
             "Password must contain a non-alphanumeric character]")
    user = sign_up(stack, tenant, email, "Correct-horse-9").execute()
    accounts = identitytoolkit(stack).accounts()
    assert failure(accounts.update(body={"idToken": user["idToken"], "password": "alllowercase", "tenantId": tenant}))[1] \
        .startswith("PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
    assert accounts.update(body={"idToken": user["idToken"], "password": "Battery-staple-7", "tenantId": tenant,
                                 "returnSecureToken": True}).execute()["idToken"]
    accounts.sendOobCode(body={"requestType": "PASSWORD_RESET", "email": email, "tenantId": tenant}).execute()
    code = link_query(last_mail(stack, email, "PASSWORD_RESET", tenant)["oobLink"])["oobCode"]
    assert failure(accounts.resetPassword(body={"oobCode": code, "newPassword": "weak", "tenantId": tenant}))[1] \
        .startswith("PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
    # The refused reset used nothing: the code still works with a good password.
    assert accounts.resetPassword(body={"oobCode": code, "newPassword": "Another-good-1", "tenantId": tenant}).execute()["email"] \
        == email


def test_force_upgrade_on_sign_in_stops_an_old_password_only_once_it_is_right(stack, tenant):
    email = unique_email("upgrade")
    requests.patch(f"{stack.gateway}/v2/projects/demo-project/tenants/{tenant}?updateMask=passwordPolicyConfig",
                   headers=ADMIN, timeout=30, json={"passwordPolicyConfig": {"passwordPolicyEnforcementState": "OFF"}})
    sign_up(stack, tenant, email, "oldpassword").execute()
    answer = requests.patch(f"{stack.gateway}/v2/projects/demo-project/tenants/{tenant}?updateMask=passwordPolicyConfig",
                            headers=ADMIN, timeout=30, json={"passwordPolicyConfig": {**POLICY, "forceUpgradeOnSignin": True}})
    assert answer.status_code == 200, answer.text
    accounts = identitytoolkit(stack).accounts()
    assert failure(accounts.signInWithPassword(body={"email": email, "password": "oldpassword", "tenantId": tenant}))[1] \
        .startswith("PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
    # A wrong password is told as wrong, not as weak.
    assert not failure(accounts.signInWithPassword(body={"email": email, "password": "wrongpassword",
                                                         "tenantId": tenant}))[1].startswith("PASSWORD_DOES_NOT_MEET")


def test_a_policy_that_cannot_be_met_is_refused(stack):
    base = f"{stack.gateway}/v2/projects/demo-project/tenants"
    for options in ({"minPasswordLength": 4}, {"minPasswordLength": 31}, {"minPasswordLength": 12, "maxPasswordLength": 8}):
        answer = requests.post(base, headers=ADMIN, timeout=30, json={"displayName": "Bad", "passwordPolicyConfig": {
            "passwordPolicyEnforcementState": "ENFORCE", "passwordPolicyVersions": [{"customStrengthOptions": options}]}})
        assert answer.status_code == 400, answer.text
