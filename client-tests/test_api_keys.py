"""API keys per project (decision 11): each project has its own key (`client.apiKey` in its config), which
production mode accepts; unknown keys get the contract's message; development mode maps any key."""

import hashlib
import re
import secrets

import pytest
import requests

from conftest import another_stack

ADMIN_TOKEN = "production-admin-" + secrets.token_hex(8)


@pytest.fixture(scope="module")
def production(stack):
    with another_stack(stack, "keys", mode="production",
                       extra_env={"ADMIN_TOKEN_SHA256": hashlib.sha256(ADMIN_TOKEN.encode()).hexdigest()}) as running:
        yield running


def test_every_project_has_a_key_in_its_config(stack):
    config = requests.get(f"{stack.gateway}/v2/projects/demo-project/config", headers={"Authorization": "Bearer owner"},
                          timeout=30).json()
    assert re.fullmatch(r"AIza[A-Za-z0-9_-]{35}", config["client"]["apiKey"])


def test_production_accepts_the_projects_key_and_refuses_others(production):
    config = requests.get(f"{production.gateway}/v2/projects/demo-project/config",
                          headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=30)
    assert config.status_code == 200, config.text
    key = config.json()["client"]["apiKey"]
    url = f"{production.gateway}/identitytoolkit.googleapis.com/v1/accounts:signUp"
    signed_up = requests.post(f"{url}?key={key}", json={"email": f"k-{secrets.token_hex(4)}@example.com",
                                                        "password": "secret-pw"}, timeout=30)
    assert signed_up.status_code == 200, signed_up.text
    by_header = requests.post(url, json={"email": f"h-{secrets.token_hex(4)}@example.com", "password": "secret-pw"},
                              headers={"x-goog-api-key": key}, timeout=30)
    assert by_header.status_code == 200, by_header.text
    for wrong in ["AIza" + "x" * 35, "k", "x" * 5000, "AIza%00x", "%F0%9F%98%80", "a%20b"]:
        refused = requests.post(f"{url}?key={wrong}", json={}, timeout=30)
        assert refused.status_code == 400
        assert refused.json()["error"]["message"] == "API key not valid. Please pass a valid API key."
        assert refused.json()["error"]["status"] == "INVALID_ARGUMENT"
    owner = requests.get(f"{production.gateway}/v2/projects/demo-project/config", headers={"Authorization": "Bearer owner"},
                         timeout=30)
    assert owner.status_code == 401
