"""Issue 25's attacks, run against docker-compose.yml's stack in production mode (the `production`
fixture), and against a second production stack with short windows where waiting out the defaults
would take minutes. Each attack succeeded before its fix."""

import json
import secrets
import socket
import time

import jwt
import pytest
import requests

from production_stack import running

IDENTITY = "/identitytoolkit.googleapis.com/v1"
AUDIENCE = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
WINDOW, HEADER = 3, 2


def call(stack, method, **body):
    return requests.post(f"{stack.gateway}{IDENTITY}/accounts:{method}?key={stack.api_key}", json=body, timeout=30)


def error(response):
    return response.json()["error"]["message"]


def admin(stack):
    return {"Authorization": f"Bearer {stack.admin_token}"}


def custom_token(stack, uid, **claims):
    account, now = stack.service_account, int(time.time())
    payload = {"iss": account["client_email"], "sub": account["client_email"], "aud": AUDIENCE, "iat": now,
               "exp": now + 3600, "uid": uid, **claims}
    return jwt.encode(payload, account["private_key"], algorithm="RS256")


def signed_up(stack):
    email = f"hardening-{secrets.token_hex(5)}@example.com"
    answer = call(stack, "signUp", email=email, password="secret-pw", returnSecureToken=True)
    assert answer.status_code == 200, answer.text
    return {"email": email, **answer.json()}


@pytest.fixture(scope="module")
def short_windows():
    with running(extra_env={"gateway": {"RECENT_LOGIN_WINDOW_SECONDS": str(WINDOW),
                                        "HTTP_HEADER_TIMEOUT_SECONDS": str(HEADER)}}) as stack:
        yield stack


def test_a_project_token_cannot_open_a_tenants_account(production):
    created = requests.post(f"{production.admin_url}/v2/projects/demo-project/tenants", headers=admin(production),
                            json={"displayName": "Bound"}, timeout=30)
    assert created.status_code == 200, created.text
    tenant = created.json()["name"].rsplit("/", 1)[1]
    uid = f"bound-{secrets.token_hex(4)}"
    refused = call(production, "signInWithCustomToken", token=custom_token(production, uid), tenantId=tenant)
    assert error(refused) == "TENANT_ID_MISMATCH"
    allowed = call(production, "signInWithCustomToken", token=custom_token(production, uid, tenant_id=tenant),
                   tenantId=tenant)
    assert allowed.status_code == 200, allowed.text


def test_a_continue_url_off_the_authorized_domains_is_refused(production):
    user = signed_up(production)
    refused = call(production, "sendOobCode", requestType="VERIFY_EMAIL", idToken=user["idToken"],
                   continueUrl="https://evil.example/phish")
    assert refused.status_code == 400 and error(refused) == "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project"


def test_a_call_declaring_development_mode_is_refused_by_a_production_service(production):
    certs = production.cert_dirs["gateway"]
    answer = requests.post(
        f"https://127.0.0.1:{production.ports['session-token'][0]}/rpc", timeout=30,
        headers={"content-type": "application/json", "mfa-deployment-mode": "development"},
        data=json.dumps({"jsonrpc": "2.0", "method": "service.ping", "params": {}, "id": 1}),
        cert=(str(certs / "gateway.pem"), str(certs / "gateway-key.pem")), verify=str(certs / "ca.pem"))
    assert answer.status_code == 403 and answer.headers["mfa-deployment-mode"] == "production", answer.text


def test_a_refreshed_token_of_an_old_sign_in_cannot_change_the_password_or_delete(short_windows):
    user = signed_up(short_windows)
    time.sleep(WINDOW + 1.5)
    refreshed = requests.post(f"{short_windows.gateway}/securetoken.googleapis.com/v1/token?key={short_windows.api_key}",
                              data={"grant_type": "refresh_token", "refresh_token": user["refreshToken"]}, timeout=30)
    assert refreshed.status_code == 200, refreshed.text
    stolen = refreshed.json()["id_token"]
    assert error(call(short_windows, "update", idToken=stolen, password="attacker-pw")) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    assert error(call(short_windows, "delete", idToken=stolen)) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    again = call(short_windows, "signInWithPassword", email=user["email"], password="secret-pw", returnSecureToken=True)
    assert again.status_code == 200, again.text
    assert call(short_windows, "update", idToken=again.json()["idToken"], password="new-secret").status_code == 200


def test_a_request_trickled_a_byte_at_a_time_is_cut_off(short_windows):
    port = int(short_windows.gateway.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=15)
    started, head = time.monotonic(), b"POST /v1/accounts:signUp HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
    closed = None
    for byte in head:
        try:
            sock.send(bytes([byte]))
            sock.settimeout(0.5)
            if sock.recv(4096) == b"":
                closed = time.monotonic() - started
                break
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            closed = time.monotonic() - started
            break
    assert closed is not None and closed <= HEADER + 3, closed
    assert requests.get(short_windows.gateway + "/", timeout=10).status_code == 200


def test_sign_in_failures_do_not_tell_which_emails_exist(production):
    """Decision 19: email enumeration protection, on by default in production."""
    config = f"{production.admin_url}/v2/projects/demo-project/config"
    assert requests.get(config, headers=admin(production), timeout=30).json()["emailPrivacyConfig"] == \
        {"enableImprovedEmailPrivacy": True}
    user = signed_up(production)
    wrong = call(production, "signInWithPassword", email=user["email"], password="wrong-pw")
    unknown = call(production, "signInWithPassword", email=f"nobody-{secrets.token_hex(4)}@example.com", password="x")
    assert error(wrong) == error(unknown) == "INVALID_LOGIN_CREDENTIALS"
    # An operator may switch it off, as in Identity Platform; the emulator's answers come back.
    patched = requests.patch(f"{config}?updateMask=emailPrivacyConfig.enableImprovedEmailPrivacy", headers=admin(production),
                             json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}}, timeout=30)
    assert patched.status_code == 200 and patched.json()["emailPrivacyConfig"]["enableImprovedEmailPrivacy"] is False
    try:
        assert error(call(production, "signInWithPassword", email=user["email"], password="wrong-pw")) == "INVALID_PASSWORD"
    finally:
        requests.patch(f"{config}?updateMask=emailPrivacyConfig.enableImprovedEmailPrivacy", headers=admin(production),
                       json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, timeout=30)


def test_a_password_guesser_is_stopped_after_ten_failures_by_default(production):
    user = signed_up(production)
    answers = [call(production, "signInWithPassword", email=user["email"], password=f"guess-{n}") for n in range(11)]
    assert [error(a) for a in answers[:10]] == ["INVALID_LOGIN_CREDENTIALS"] * 10
    assert error(answers[10]) == "TOO_MANY_ATTEMPTS_TRY_LATER"


def test_a_production_project_starts_without_anonymous_sign_up(production):
    """Issue 39, L-6: anonymous sign-up minted accounts and sessions for anyone with the public key."""
    config = requests.get(f"{production.admin_url}/v2/projects/demo-project/config", headers=admin(production), timeout=30)
    assert config.json()["signIn"]["anonymous"]["enabled"] is False
    refused = call(production, "signUp", returnSecureToken=True)
    assert refused.status_code == 400 and error(refused).startswith("ADMIN_ONLY_OPERATION"), refused.text


def test_a_blocking_function_on_a_private_address_is_refused_in_production(production):
    """Development calls functions on the developer's own machine (issue 58); production never posts to
    a loopback or private address unless the operator allows it (blockingFunctions.allowPrivateAddresses),
    so an admin's URL cannot make the gateway post to the deployment's own ports."""
    created = requests.post(f"{production.admin_url}/v2/projects/demo-project/tenants", headers=admin(production),
                            json={"displayName": "Private function", "allowPasswordSignup": True}, timeout=30)
    assert created.status_code == 200, created.text
    tenant = created.json()["name"].rsplit("/", 1)[1]
    stored = requests.patch(f"{production.admin_url}/v2/projects/demo-project/tenants/{tenant}?updateMask=blockingFunctions",
                            headers=admin(production), timeout=30, json={"blockingFunctions": {"triggers": {
                                "beforeCreate": {"functionUri": "https://127.0.0.1:9/before_created"}}}})
    assert stored.status_code == 200, stored.text
    refused = call(production, "signUp", email=f"private-{secrets.token_hex(4)}@example.com", password="secret-pw",
                   tenantId=tenant)
    assert refused.status_code == 400
    assert error(refused) == ("BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Cloud Function URL is not allowed: its host has a "
                              "private address (blockingFunctions.allowPrivateAddresses is off)")
