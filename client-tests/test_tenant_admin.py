"""Tenants through the admin REST API (§2.16, decisions 5-6): create with settings, get, list with paging,
patch with updateMask, delete; schemas in every data service exist before create returns and are gone after
delete; tenant settings enforced per request; isolation; hostile ids and names."""

import json
import secrets

import jwt
import pytest
import requests

ADMIN = {"Authorization": "Bearer owner"}
V1 = "/identitytoolkit.googleapis.com/v1/accounts:"


def tenants_url(stack, tenant=None):
    return f"{stack.gateway}/v2/projects/demo-project/tenants" + (f"/{tenant}" if tenant else "")


def create(stack, **body):
    answer = requests.post(tenants_url(stack), json=body, headers=ADMIN, timeout=60)
    assert answer.status_code == 200, answer.text
    return answer.json()


def patch(stack, tenant, body, mask=None):
    url = tenants_url(stack, tenant) + (f"?updateMask={mask}" if mask is not None else "")
    return requests.patch(url, json=body, headers=ADMIN, timeout=30)


def client(stack, operation, **body):
    return requests.post(f"{stack.gateway}{V1}{operation}?key=k", json=body, timeout=30)


def error(response):
    return response.json()["error"]["message"]


def schema_exists(stack, service, tenant):
    return stack.query(service, f"SELECT count(*) FROM pg_namespace WHERE nspname = 't_{tenant}'") == ["1"]


def test_create_returns_the_stored_tenant_with_schemas_everywhere(stack):
    tenant = create(stack, displayName="Acme", allowPasswordSignup=True,
                    mfaConfig={"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]},
                    testPhoneNumbers={"+15555550100": "123456"},
                    smsRegionConfig={"allowByDefault": {"disallowedRegions": ["RU"]}})
    tenant_id = tenant["tenantId"]
    assert len(tenant_id) == 28 and tenant["name"] == f"projects/demo-project/tenants/{tenant_id}"
    assert tenant["displayName"] == "Acme" and tenant["allowPasswordSignup"] is True
    assert tenant["enableEmailLinkSignin"] is False and tenant["enableAnonymousUser"] is False
    assert tenant["disableAuth"] is False
    assert tenant["mfaConfig"] == {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"], "providerConfigs": []}
    assert tenant["testPhoneNumbers"] == {"+15555550100": "123456"}
    assert tenant["smsRegionConfig"] == {"allowByDefault": {"disallowedRegions": ["RU"]}}
    for service in ("factor-registry", "challenge-issuer", "session-token"):
        assert schema_exists(stack, service, tenant_id), service
    assert requests.get(tenants_url(stack, tenant_id), headers=ADMIN, timeout=30).json() == tenant


def test_defaults_are_everything_off(stack):
    tenant = create(stack)
    assert tenant["mfaConfig"] == {"state": "DISABLED", "enabledProviders": [], "providerConfigs": []}
    assert not any(tenant[flag] for flag in ("allowPasswordSignup", "enableEmailLinkSignin", "enableAnonymousUser",
                                             "disableAuth"))
    assert "displayName" not in tenant and "testPhoneNumbers" not in tenant


def test_list_pages_through_tenants_in_id_order(stack):
    created = {create(stack, displayName=f"Page{i}")["tenantId"] for i in range(3)}
    seen, token = [], None
    while True:
        url = tenants_url(stack) + "?pageSize=2" + (f"&pageToken={token}" if token else "")
        page = requests.get(url, headers=ADMIN, timeout=30).json()
        seen += [tenant["tenantId"] for tenant in page.get("tenants", [])]
        token = page.get("nextPageToken")
        if not token:
            break
    assert seen == sorted(seen) and created <= set(seen)
    assert all(len(page) for page in [seen])


def test_patch_with_a_mask_changes_only_masked_fields(stack):
    tenant = create(stack, displayName="Before", allowPasswordSignup=True,
                    testPhoneNumbers={"+15555550100": "123456"})
    tenant_id = tenant["tenantId"]
    answer = patch(stack, tenant_id, {"displayName": "After", "allowPasswordSignup": False,
                                      "mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                                                    "providerConfigs": [{"state": "ENABLED",
                                                                         "totpProviderConfig": {"adjacentIntervals": 2}}]}},
                   mask="displayName,mfaConfig.state,mfaConfig.providerConfigs")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["displayName"] == "After" and body["allowPasswordSignup"] is True
    assert body["mfaConfig"]["state"] == "ENABLED" and body["mfaConfig"]["enabledProviders"] == []
    assert body["mfaConfig"]["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] == 2
    # Node sends {} to clear test numbers; a path into a primitive is skipped.
    cleared = patch(stack, tenant_id, {"testPhoneNumbers": {}, "displayName": "x"}, mask="testPhoneNumbers,displayName.0")
    assert cleared.status_code == 200 and "testPhoneNumbers" not in cleared.json()
    assert cleared.json()["displayName"] == "After"
    replaced = patch(stack, tenant_id, {"displayName": "Replaced"}, mask="")
    assert replaced.json()["allowPasswordSignup"] is False and replaced.json()["displayName"] == "Replaced"
    assert replaced.json()["mfaConfig"]["state"] == "DISABLED"


def test_invalid_patches_change_nothing(stack):
    tenant = create(stack, displayName="Stable")
    tenant_id = tenant["tenantId"]
    for body, mask, message in [
        ({"mfaConfig": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 11}}]}},
         "mfaConfig", "INVALID_CONFIG : adjacentIntervals must be between 0 and 10"),
        ({"testPhoneNumbers": {"+15555550100": "abcdef"}}, "testPhoneNumbers",
         "INVALID_TESTING_PHONE_NUMBER : a test phone number's code must be exactly 6 digits"),
        ({"displayName": "x" * 10_000}, "displayName", None),
    ]:
        answer = patch(stack, tenant_id, body, mask=mask)
        assert answer.status_code == 400, answer.text
        if message:
            assert error(answer) == message
    assert requests.get(tenants_url(stack, tenant_id), headers=ADMIN, timeout=30).json() == tenant


def test_delete_drops_the_schemas_and_the_tenant_is_gone_everywhere(stack):
    tenant_id = create(stack, displayName="Doomed", allowPasswordSignup=True)["tenantId"]
    user = client(stack, "signUp", tenantId=tenant_id, email="doomed@example.com", password="secret-pw").json()
    answer = requests.delete(tenants_url(stack, tenant_id), headers=ADMIN, timeout=60)
    assert answer.status_code == 200 and answer.json() == {}
    for service in ("factor-registry", "challenge-issuer", "session-token"):
        assert not schema_exists(stack, service, tenant_id), service
    assert error(requests.get(tenants_url(stack, tenant_id), headers=ADMIN, timeout=30)) == "TENANT_NOT_FOUND"
    assert error(client(stack, "signInWithPassword", tenantId=tenant_id, email="doomed@example.com",
                        password="secret-pw")) == "TENANT_NOT_FOUND"
    assert error(client(stack, "lookup", idToken=user["idToken"])) == "TENANT_NOT_FOUND"
    refreshed = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                              data={"grant_type": "refresh_token", "refresh_token": user["refreshToken"]}, timeout=30)
    assert refreshed.status_code == 400


@pytest.mark.parametrize("hostile", ["x'; DROP TABLE control.tenants; --", "é" * 40, "a" * 10_000, "..", "t%00x"])
def test_hostile_tenant_ids_are_not_found(stack, hostile):
    for answer in (requests.get(tenants_url(stack, hostile), headers=ADMIN, timeout=30),
                   client(stack, "signUp", tenantId=hostile, email="h@example.com", password="secret-pw")):
        assert answer.status_code in (400, 404), answer.text
    assert requests.get(tenants_url(stack), headers=ADMIN, timeout=30).status_code == 200


@pytest.mark.parametrize("name", ["Robert'); DROP TABLE tenants;--", "名前-テナント", "🙂 emoji"])
def test_unusual_display_names_are_stored_verbatim(stack, name):
    assert create(stack, displayName=name)["displayName"] == name


def test_control_characters_and_oversized_names_are_refused(stack):
    for name in ["bad\nname", "x" * 10_000, ""]:
        answer = requests.post(tenants_url(stack), json={"displayName": name}, headers=ADMIN, timeout=30)
        assert answer.status_code == 400, answer.text
        assert error(answer).startswith("INVALID_ARGUMENT")


def test_tenant_settings_apply_on_the_next_request(stack):
    tenant_id = create(stack, displayName="Gated", allowPasswordSignup=True, enableAnonymousUser=False)["tenantId"]
    email = f"gated-{secrets.token_hex(4)}@example.com"
    user = client(stack, "signUp", tenantId=tenant_id, email=email, password="secret-pw").json()
    assert error(client(stack, "signUp", tenantId=tenant_id)) == "ADMIN_ONLY_OPERATION"
    assert patch(stack, tenant_id, {"allowPasswordSignup": False}, mask="allowPasswordSignup").status_code == 200
    assert error(client(stack, "signInWithPassword", tenantId=tenant_id, email=email, password="secret-pw")) \
        == "PASSWORD_LOGIN_DISABLED"
    assert error(client(stack, "signUp", tenantId=tenant_id, email="y" + email, password="secret-pw")) \
        == "OPERATION_NOT_ALLOWED"
    assert patch(stack, tenant_id, {"disableAuth": True}, mask="disableAuth").status_code == 200
    assert error(client(stack, "signUp", tenantId=tenant_id, email="z" + email)) == "PROJECT_DISABLED"
    assert error(client(stack, "lookup", idToken=user["idToken"])) == "PROJECT_DISABLED"
    refreshed = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                              data={"grant_type": "refresh_token", "refresh_token": user["refreshToken"]}, timeout=30)
    assert error(refreshed) == "PROJECT_DISABLED"
    assert patch(stack, tenant_id, {"disableAuth": False, "allowPasswordSignup": True},
                 mask="disableAuth,allowPasswordSignup").status_code == 200
    assert client(stack, "signInWithPassword", tenantId=tenant_id, email=email, password="secret-pw").status_code == 200


def test_users_and_tokens_stay_inside_their_tenant(stack):
    tenant_a = create(stack, displayName="IsoA", allowPasswordSignup=True)["tenantId"]
    tenant_b = create(stack, displayName="IsoB", allowPasswordSignup=True)["tenantId"]
    email = f"iso-{secrets.token_hex(4)}@example.com"
    user = client(stack, "signUp", tenantId=tenant_a, email=email, password="secret-pw").json()
    assert jwt.decode(user["idToken"], options={"verify_signature": False})["firebase"]["tenant"] == tenant_a
    assert error(client(stack, "signInWithPassword", tenantId=tenant_b, email=email, password="secret-pw")) \
        == "EMAIL_NOT_FOUND"
    assert error(client(stack, "signInWithPassword", email=email, password="secret-pw")) == "EMAIL_NOT_FOUND"
    assert error(client(stack, "lookup", idToken=user["idToken"], tenantId=tenant_b)) == "TENANT_ID_MISMATCH"
    admin_b = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/tenants/"
                            f"{tenant_b}/accounts:lookup", json={"email": [email]}, headers=ADMIN, timeout=30).json()
    assert "users" not in admin_b
    mismatch = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/tenants/"
                             f"{tenant_b}/accounts:lookup", json={"email": [email], "tenantId": tenant_a},
                             headers=ADMIN, timeout=30)
    assert error(mismatch) == "TENANT_ID_MISMATCH"


def test_tenant_routes_are_admin_only(stack):
    assert error(requests.get(tenants_url(stack) + "?key=k", timeout=30)).startswith("INSUFFICIENT_PERMISSION")
    assert requests.post(tenants_url(stack) + "?key=k", json={}, timeout=30).status_code == 400
    assert requests.get(tenants_url(stack), timeout=30).status_code == 403


def test_the_readmes_curl_examples_work_as_pasted(stack):
    """`curl -d '{…}'` sends JSON as a form (curl's default content type): the README's first admin
    examples, run with curl itself, must not answer `Unknown name "{…"`."""
    import subprocess

    def curl(*arguments):
        out = subprocess.run(["curl", "-s", "-H", "Authorization: Bearer owner", *arguments],
                             check=True, capture_output=True, text=True, timeout=30).stdout
        return json.loads(out)

    created = curl("-X", "POST", "-d", '{"displayName":"Acme","allowPasswordSignup":true}',
                   f"{stack.gateway}/v2/projects/demo-project/tenants")
    assert created["displayName"] == "Acme" and created["allowPasswordSignup"] is True, created
    patched = curl("-X", "PATCH", "-d", '{"mfa":{"state":"ENABLED","enabledProviders":["PHONE_SMS"]}}',
                   f"{stack.gateway}/v2/projects/demo-project/config?updateMask=mfa.state,mfa.enabledProviders")
    assert patched["mfa"]["state"] == "ENABLED", patched
