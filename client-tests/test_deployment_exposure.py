"""Issue 40, M-8 and L-5: what a deployment shows the internet. The compose files publish the API
over TLS with the operator's certificate and plain HTTP on the host's loopback only; production never
serves the internal identity to the public; an admin listener confines admin tokens to the private
network; /metrics answers a scraper's token or an admin's, nobody else. Against production stacks
started from docker-compose.yml's environment (client-tests/production_stack.py); the Kubernetes
manifests' side is in test_kubernetes_manifests.py."""

import hashlib
import secrets
import socket
import ssl
import subprocess
import sys

import pytest
import requests
import yaml

from conftest import ALL_IN_ONE, ROOT, SERVICES, free_port
from production_stack import running

CONFIG = "/v2/projects/demo-project/config"


def test_the_compose_files_publish_https_beyond_the_host_and_plain_http_on_its_loopback_only():
    for name in ("docker-compose.yml", "docker-compose.all-in-one.yml"):
        services = yaml.safe_load((ROOT / name).read_text())["services"]
        gateway = next(s for s in services.values()
                       if (s.get("build") or {}).get("args", {}).get("PRODUCT") in ("gateway", "mfa-all-in-one"))
        # The admin listener too, on the host's loopback only (issue 57, F-8).
        assert sorted(gateway["ports"]) == ["127.0.0.1:8080:8080", "127.0.0.1:8444:8444", "443:8443"], name
        environment = gateway["environment"]
        assert environment["MFA_ADMIN_LISTENER_PORT"] == "8444", name
        assert environment["MFA_PUBLIC_TLS_CERTIFICATE"] == "/public-tls/fullchain.pem", name
        assert any(volume.endswith(":/public-tls:ro") for volume in gateway["volumes"]), name


def test_the_compose_check_refuses_plain_http_beyond_loopback_and_the_internal_certificate():
    sys.path.insert(0, str(ROOT / "scripts"))
    import check_compose

    def gateway(ports, certificate, admin_port="8444"):
        environment = {"MFA_MODE": "production", "MFA_PUBLIC_TLS_PORT": "8443"}
        if certificate:
            environment["MFA_PUBLIC_TLS_CERTIFICATE"] = certificate
        if admin_port:
            environment["MFA_ADMIN_LISTENER_PORT"] = admin_port
        return {"services": {"gateway": {"build": {"args": {"PRODUCT": "gateway"}}, "ports": ports,
                                         "environment": environment}}}

    def problems(config):
        return [p for p in check_compose.check(config) if "gateway:" in p]

    assert problems(gateway(["443:8443", "127.0.0.1:8080:8080"], "/public-tls/fullchain.pem")) == []
    assert any("plain HTTP" in p for p in problems(gateway(["8080:8080", "443:8443"], "/public-tls/fullchain.pem")))
    assert any("operator's certificate" in p for p in problems(gateway(["443:8443"], None)))
    assert any("operator's certificate" in p for p in problems(gateway(["443:8443"], "/certs/gateway.pem")))
    # Issue 57, F-8: without an admin listener the admin token counted on port 443; and one published
    # beyond the host's loopback is refused.
    assert any("no admin listener" in p for p in problems(gateway(["443:8443"], "/public-tls/fullchain.pem", admin_port=None)))
    assert any("no admin listener" in p for p in problems(gateway(["443:8443"], "/public-tls/fullchain.pem", admin_port="0")))
    assert problems(gateway(["443:8443", "127.0.0.1:8444:8444"], "/public-tls/fullchain.pem")) == []
    assert any("admin listener" in p for p in problems(gateway(["443:8443", "8444:8444"], "/public-tls/fullchain.pem")))


def test_compose_takes_no_admin_token_on_its_public_ports(production):
    """Issue 57, F-8: docker-compose.yml accepted the admin token on the internet-facing port 443. The
    stack runs as compose configures it: the token opens the admin listener only."""
    bearer = {"Authorization": f"Bearer {production.admin_token}"}
    for public in (production.gateway, production.gateway_tls):
        refused = requests.get(public + CONFIG, headers=bearer, timeout=30, verify=False)
        assert refused.status_code == 401, refused.text
    assert production.admin_url.startswith("https://localhost:")
    assert requests.get(production.admin_url + CONFIG, headers=bearer, timeout=30,
                        verify=str(production.certs / "ca.pem")).status_code == 200


def test_the_public_tls_listener_presents_the_operators_certificate(production):
    """L-5: the public HTTPS port served the gateway's internal identity (the development CA's)."""
    port = production.gateway_tls.rsplit(":", 1)[1]
    answer = requests.get(f"https://localhost:{port}/", timeout=30, verify=str(production.public_ca))
    assert answer.status_code == 200 and answer.json()["mode"] == "production"
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(f"https://localhost:{port}/", timeout=30, verify=str(production.certs / "ca.pem"))


def test_production_does_not_start_a_tls_listener_without_the_operators_certificate(production):
    process = production.process_of("gateway")
    environment = dict(production.environments[process])
    for key in list(environment):
        if key.endswith(("PUBLIC_TLS_CERTIFICATE", "PUBLIC_TLS_PRIVATE_KEY")):
            del environment[key]
        elif key.endswith(("RPC_PORT", "OPS_PORT", "PUBLIC_PORT", "PUBLIC_TLS_PORT")):
            environment[key] = str(free_port())
    binary = "mfa-all-in-one" if process == ALL_IN_ONE else process
    done = subprocess.run([str(production.bin_dir / binary)], env=environment, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0
    assert "public.tls.certificate" in done.stdout + done.stderr


@pytest.fixture(scope="module")
def confined():
    """A production stack with an admin listener, and a metrics token for every service."""
    metrics_token = secrets.token_urlsafe(24)
    digest = hashlib.sha256(metrics_token.encode()).hexdigest()
    extra = {service: {"METRICS_TOKEN_SHA256": digest} for service in SERVICES}
    extra["gateway"]["ADMIN_LISTENER_PORT"] = str(free_port())
    with running(extra_env=extra) as stack:
        stack.metrics_token = metrics_token
        yield stack


def test_an_admin_token_counts_on_the_admin_listener_only(confined):
    """L-5: the admin REST API could not be kept off the internet."""
    bearer = {"Authorization": f"Bearer {confined.admin_token}"}
    ca = str(confined.certs / "ca.pem")
    for public in (confined.gateway, confined.gateway_tls):
        refused = requests.get(public + CONFIG, headers=bearer, timeout=30, verify=False)
        assert refused.status_code == 401, refused.text
        # As any unknown bearer token: nothing tells that this one is an admin's.
        assert refused.json()["error"]["status"] == "UNAUTHENTICATED"
    exported = requests.get(f"{confined.gateway}/v2/projects/demo-project/securityEvents:export", headers=bearer,
                            timeout=30)
    assert exported.status_code in (401, 403)
    config = requests.get(confined.admin_url + CONFIG, headers=bearer, timeout=30, verify=ca)
    assert config.status_code == 200 and config.json()["client"]["apiKey"] == confined.api_key
    # HTTP/2 there too, and the app-facing API keeps working on the public side.
    context = ssl.create_default_context(cafile=ca)
    context.set_alpn_protocols(["h2", "http/1.1"])
    host, port = confined.admin_url.split("//")[1].split(":")
    with context.wrap_socket(socket.create_connection((host, int(port)), timeout=10),
                             server_hostname=host) as tls:
        assert tls.selected_alpn_protocol() == "h2"
    signed_up = requests.post(f"{confined.gateway}/identitytoolkit.googleapis.com/v1/accounts:signUp",
                              params={"key": confined.api_key}, timeout=30,
                              json={"email": f"c-{secrets.token_hex(4)}@example.com", "password": "secret-pw-1"})
    assert signed_up.status_code == 200, signed_up.text


def test_metrics_answer_the_scrapers_token_or_an_admins_only(confined):
    """L-5: /metrics listed tenant ids and SMS spending to anyone on the ops network."""
    for service in SERVICES:
        url = confined.ops(service) + "/metrics"
        anonymous = requests.get(url, timeout=30)
        assert anonymous.status_code == 401 and anonymous.headers["WWW-Authenticate"] == "Bearer"
        assert "mfa_" not in anonymous.text
        wrong = requests.get(url, headers={"Authorization": "Bearer not-the-token"}, timeout=30)
        assert wrong.status_code == 401
        for token in (confined.metrics_token, confined.admin_token):
            scraped = requests.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
            assert scraped.status_code == 200 and "mfa_" in scraped.text, service
        # Probes stay open: the orchestrator has no token.
        assert requests.get(confined.ops(service) + "/readyz", timeout=30).status_code == 200
