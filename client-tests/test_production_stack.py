"""docker-compose.yml's stack as real processes (production_stack.py): the compose file's environment
runs in production mode, which keeps none of development mode's conveniences, and each service holds
only its own keys and can open only its own database."""

import secrets
import stat
import time

import jwt
import pytest
import requests

from conftest import DATABASES, PROCESSES, SERVICES

IDENTITY = "/identitytoolkit.googleapis.com/v1"
AUDIENCE = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
INVALID_KEY = "API key not valid. Please pass a valid API key."


def call(production, method, body, key=None):
    key = production.api_key if key is None else key
    return requests.post(f"{production.gateway}{IDENTITY}/accounts:{method}?key={key}", json=body, timeout=30)


def admin_get(url, token):
    return requests.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=30)


def test_every_service_starts_with_the_compose_environment_and_is_ready(production):
    for service in SERVICES:
        environment = production.environments[production.process_of(service)]
        assert environment["MFA_MODE"] == "production"
        ready = requests.get(production.ops(service) + "/readyz", timeout=30)
        assert ready.status_code == 200, f"{service}: {ready.text}\n{production.log_tail(service)}"
        # The compose files use the current names: no service warns about an old one.
        assert "is an old name" not in production.log_tail(service, lines=400)


def test_the_emulator_routes_are_not_served(production):
    for resource in ("oobCodes", "verificationCodes"):
        listed = requests.get(f"{production.gateway}/emulator/v1/projects/demo-project/{resource}", timeout=30)
        assert listed.status_code == 404, listed.text
    wiped = requests.delete(f"{production.gateway}/emulator/v1/projects/demo-project/accounts", timeout=30)
    assert wiped.status_code == 404, wiped.text


def test_only_the_configured_admin_token_opens_the_admin_apis(production):
    config = f"{production.admin_url}/v2/projects/demo-project/config"
    assert admin_get(config, "owner").status_code == 401
    assert admin_get(config, production.admin_token + "x").status_code == 401
    assert admin_get(config, production.admin_token).status_code == 200
    for service in SERVICES:
        status = production.ops(service) + "/admin/status"
        assert admin_get(status, "owner").status_code == 401, service
        assert admin_get(status, production.admin_token).status_code == 200, service


def test_an_unknown_api_key_is_refused_with_the_contracts_message(production):
    for key in ("dev", "AIza" + "x" * 35):
        refused = call(production, "signUp", {"email": "nobody@example.com", "password": "secret-pw"}, key=key)
        assert refused.status_code == 400
        assert refused.json()["error"]["message"] == INVALID_KEY


def test_sign_up_and_sign_in_with_a_password_work_with_the_projects_key(production):
    email, password = f"prod-{secrets.token_hex(4)}@example.com", "correct horse battery"
    signed_up = call(production, "signUp", {"email": email, "password": password, "returnSecureToken": True})
    assert signed_up.status_code == 200, signed_up.text
    signed_in = call(production, "signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["localId"] == signed_up.json()["localId"]
    wrong = call(production, "signInWithPassword", {"email": email, "password": "wrong horse", "returnSecureToken": True})
    assert wrong.status_code == 400


def test_only_custom_tokens_signed_by_the_configured_service_account_sign_in(production):
    account, now = production.service_account, int(time.time())
    claims = {"iss": account["client_email"], "sub": account["client_email"], "aud": AUDIENCE, "iat": now,
              "exp": now + 3600, "uid": f"custom-{secrets.token_hex(4)}"}
    unsigned = jwt.encode(claims, None, algorithm="none")
    refused = call(production, "signInWithCustomToken", {"token": unsigned})
    assert refused.status_code == 400
    assert refused.json()["error"]["message"].startswith("INVALID_CUSTOM_TOKEN"), refused.text
    signed = call(production, "signInWithCustomToken", {"token": jwt.encode(claims, account["private_key"], algorithm="RS256")})
    assert signed.status_code == 200, signed.text


def test_each_services_role_can_open_its_own_database_and_no_other(production):
    for role in DATABASES:
        assert production.query(role, "SELECT current_user") == [production.databases[role]]
        for database in DATABASES:
            if database == role:
                continue
            opened = production.psql_as(role, database, "SELECT 1")
            assert opened.returncode != 0, f"{role} opened {database}'s database"
            assert "permission denied for database" in opened.stderr, opened.stderr


def test_each_services_role_is_no_superuser_and_cannot_create_roles_or_databases(production):
    for service in DATABASES:
        assert production.query(service, "SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles "
                                         "WHERE rolname = current_user") == ["f|f|f"]


@pytest.mark.skipif(PROCESSES == "one", reason="mfa-all-in-one runs every service, so its directory holds every key")
def test_the_gateways_certificate_directory_holds_its_own_files_and_no_master_key(production):
    assert sorted(path.name for path in production.cert_dirs["gateway"].iterdir()) == \
        ["ca.pem", "gateway-key.pem", "gateway.pem"]
    for service in SERVICES:
        names = {path.name for path in production.cert_dirs[service].iterdir()}
        assert not any(name.endswith("-master.key") and not name.startswith(service) for name in names), names
        assert not any(name.endswith("-key.pem") and name != f"{service}-key.pem" for name in names), names


def test_no_certificate_directory_holds_the_cas_key_or_a_key_others_can_read(production):
    for service in SERVICES:
        for path in production.cert_dirs[service].iterdir():
            assert path.name != "ca-key.pem"
            if path.name.endswith(("-key.pem", ".key")):
                assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, f"{path}: {oct(path.stat().st_mode)}"

