"""GET|PATCH /v2/projects/{p}/config (§2.15, decision 6): the stored MFA config with updateMask rules, the
/admin/v2 spelling, precise refusals that change nothing, and settings that apply on the next request."""

import secrets

import pytest
import requests

ADMIN = {"Authorization": "Bearer owner"}


def config_url(stack, admin_prefix=False):
    return f"{stack.gateway}/{'admin/' if admin_prefix else ''}v2/projects/demo-project/config"


def get_config(stack):
    answer = requests.get(config_url(stack), headers=ADMIN, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def patch(stack, body, mask=None, admin_prefix=False):
    url = config_url(stack, admin_prefix) + (f"?updateMask={mask}" if mask is not None else "")
    return requests.patch(url, json=body, headers=ADMIN, timeout=30)


def error(response):
    return response.json()["error"]["message"]


@pytest.fixture
def restore_config(stack):
    before = get_config(stack)
    yield
    restored = patch(stack, {key: before[key] for key in ("signIn", "mfa", "authorizedDomains")}, mask="")
    assert restored.status_code == 200, restored.text
    assert get_config(stack)["mfa"] == before["mfa"]


def test_the_default_project_has_sms_and_totp_enabled(stack):
    config = get_config(stack)
    assert config["name"] == "projects/demo-project/config"
    assert config["mfa"]["state"] == "ENABLED"
    assert config["mfa"]["enabledProviders"] == ["PHONE_SMS"]
    assert config["mfa"]["providerConfigs"] == [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]
    assert config["signIn"]["email"]["enabled"] is True and config["signIn"]["anonymous"]["enabled"] is True
    assert requests.get(config_url(stack, admin_prefix=True), headers=ADMIN, timeout=30).json() == config


def test_node_admin_style_mask_updates_only_the_masked_paths(stack, restore_config):
    answer = patch(stack, {"mfa": {"state": "DISABLED", "enabledProviders": [],
                                   "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 3}}]},
                           "signIn": {"email": {"enabled": False}}},
                   mask="mfa.state,mfa.enabledProviders,mfa.providerConfigs")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["mfa"] == {"state": "DISABLED", "enabledProviders": [],
                           "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 3}}]}
    assert body["signIn"]["email"]["enabled"] is True  # not in the mask
    assert get_config(stack)["mfa"] == body["mfa"]


def test_the_documented_rest_example_enables_totp_through_provider_configs(stack, restore_config):
    answer = patch(stack, {"mfa": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}},
                   mask="mfa", admin_prefix=True)
    assert answer.status_code == 200, answer.text
    mfa = answer.json()["mfa"]
    assert "state" in mfa  # always emitted (the Node Admin SDK asserts it)
    assert mfa["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] == 5


def test_an_empty_mask_replaces_the_whole_config(stack, restore_config):
    answer = patch(stack, {"mfa": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}}, mask="")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["mfa"] == {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"], "providerConfigs": []}
    assert body["signIn"]["email"]["enabled"] is False and body["signIn"]["phoneNumber"]["testPhoneNumbers"] == {}


def test_test_phone_numbers_and_sms_regions_are_stored(stack, restore_config):
    numbers = {"+15555550100": "123456", "+447700900123": "654321"}
    answer = patch(stack, {"signIn": {"phoneNumber": {"testPhoneNumbers": numbers}},
                           "smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["us", "GB"]}}},
                   mask="signIn.phoneNumber.testPhoneNumbers,smsRegionConfig")
    assert answer.status_code == 200, answer.text
    config = get_config(stack)
    assert config["signIn"]["phoneNumber"]["testPhoneNumbers"] == numbers
    assert config["smsRegionConfig"] == {"allowlistOnly": {"allowedRegions": ["US", "GB"]}}


@pytest.mark.parametrize("body,mask,message", [
    ({"mfa": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 11}}]}}, "mfa",
     "INVALID_CONFIG : adjacentIntervals must be between 0 and 10"),
    ({"mfa": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": -1}}]}}, "mfa",
     "INVALID_CONFIG : adjacentIntervals must be between 0 and 10"),
    ({"signIn": {"phoneNumber": {"testPhoneNumbers": {"+1 555 0100": "123456"}}}}, "signIn.phoneNumber.testPhoneNumbers",
     "INVALID_TESTING_PHONE_NUMBER : test phone numbers must be E.164 (+ and 1 to 15 digits)"),
    ({"signIn": {"phoneNumber": {"testPhoneNumbers": {"+15555550100": "12345"}}}}, "signIn.phoneNumber.testPhoneNumbers",
     "INVALID_TESTING_PHONE_NUMBER : a test phone number's code must be exactly 6 digits"),
    ({"signIn": {"phoneNumber": {"testPhoneNumbers": {f"+1555555{i:04d}": "123456" for i in range(11)}}}},
     "signIn.phoneNumber.testPhoneNumbers", "MAXIMUM_TEST_PHONE_NUMBER_EXCEEDED : at most 10 test phone numbers"),
    ({"smsRegionConfig": {"allowByDefault": {"disallowedRegions": ["US"]}, "allowlistOnly": {"allowedRegions": ["GB"]}}},
     "smsRegionConfig", "INVALID_CONFIG : smsRegionConfig takes allowByDefault or allowlistOnly, not both"),
    ({"smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["ZZ"]}}}, "smsRegionConfig",
     "INVALID_CONFIG : smsRegionConfig regions must be ISO 3166 alpha-2 codes of countries with phone service"),
])
def test_invalid_values_are_refused_and_change_nothing(stack, body, mask, message):
    before = get_config(stack)
    answer = patch(stack, body, mask=mask)
    assert answer.status_code == 400 and error(answer) == message, answer.text
    assert get_config(stack) == before


def test_schema_violations_are_invalid_argument(stack):
    before = get_config(stack)
    unknown_state = patch(stack, {"mfa": {"state": "SOMETIMES"}}, mask="mfa.state")
    assert unknown_state.status_code == 400
    assert unknown_state.json()["error"]["status"] == "INVALID_ARGUMENT"
    unknown_field = patch(stack, {"mfa": {"state": "ENABLED", "bogus": 1}}, mask="mfa")
    assert error(unknown_field) == 'Invalid JSON payload received. Unknown name "bogus" at \'mfa\': Cannot find field.'
    assert get_config(stack) == before


def test_config_is_admin_only(stack):
    client = requests.get(config_url(stack) + "?key=k", timeout=30)
    assert client.status_code == 400 and error(client).startswith("INSUFFICIENT_PERMISSION")
    anonymous = requests.get(config_url(stack), timeout=30)
    assert anonymous.status_code == 403
    unknown = requests.get(f"{stack.gateway}/v2/projects/no-such-project/config", headers=ADMIN, timeout=30)
    assert unknown.status_code == 400 and error(unknown) == "CONFIGURATION_NOT_FOUND"


def test_a_change_applies_to_the_next_request(stack, restore_config):
    base = f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:"
    email = f"config-{secrets.token_hex(6)}@example.com"
    assert requests.post(base + "signUp?key=k", json={"email": email, "password": "secret-pw"}, timeout=30).status_code == 200
    assert patch(stack, {"signIn": {"email": {"enabled": False}, "anonymous": {"enabled": False}}},
                 mask="signIn.email.enabled,signIn.anonymous.enabled").status_code == 200
    assert error(requests.post(base + "signInWithPassword?key=k", json={"email": email, "password": "secret-pw"},
                               timeout=30)) == "PASSWORD_LOGIN_DISABLED"
    assert error(requests.post(base + "signUp?key=k", json={"email": "x" + email, "password": "secret-pw"},
                               timeout=30)) == "OPERATION_NOT_ALLOWED"
    assert error(requests.post(base + "signUp?key=k", json={}, timeout=30)) == "ADMIN_ONLY_OPERATION"
    assert patch(stack, {"signIn": {"email": {"enabled": True}}}, mask="signIn.email.enabled").status_code == 200
    assert requests.post(base + "signInWithPassword?key=k", json={"email": email, "password": "secret-pw"},
                         timeout=30).status_code == 200


def test_concurrent_patches_of_different_fields_both_land(stack, restore_config):
    from concurrent.futures import ThreadPoolExecutor

    def set_numbers():
        return patch(stack, {"signIn": {"phoneNumber": {"testPhoneNumbers": {"+15555550199": "111111"}}}},
                     mask="signIn.phoneNumber.testPhoneNumbers")

    def set_mfa():
        return patch(stack, {"mfa": {"state": "MANDATORY"}}, mask="mfa.state")

    for _ in range(5):
        with ThreadPoolExecutor(2) as pool:
            results = [pool.submit(set_numbers), pool.submit(set_mfa)]
        assert all(result.result().status_code == 200 for result in results)
        config = get_config(stack)
        assert config["mfa"]["state"] == "MANDATORY"
        assert config["signIn"]["phoneNumber"]["testPhoneNumbers"] == {"+15555550199": "111111"}
        patch(stack, {"mfa": {"state": "ENABLED"}, "signIn": {"phoneNumber": {"testPhoneNumbers": {}}}},
              mask="mfa.state,signIn.phoneNumber.testPhoneNumbers")
