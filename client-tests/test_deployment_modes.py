"""Decision 16: a deployment is production unless told otherwise, and its services never work
together across modes. The attack this closes: a gateway in production beside a session-token left
in development, which accepts unsigned custom tokens (sign-in as anyone, no second factor)."""

import json
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import requests

from conftest import ROOT, Stack, free_port, needs_four_processes


def rpc(stack, service, method, params, mode=None, identity="gateway"):
    """A JSON-RPC call over mutual TLS as `identity` (HTTP/1.1: the listener offers both)."""
    headers = {"content-type": "application/json", **({"mfa-deployment-mode": mode} if mode else {})}
    return requests.post(
        f"https://127.0.0.1:{stack.ports[service][0]}/rpc", headers=headers, timeout=30,
        data=json.dumps({"jsonrpc": "2.0", "method": method, "params": params, "id": 1}),
        cert=(str(stack.certs / f"{identity}.pem"), str(stack.certs / f"{identity}-key.pem")),
        verify=str(stack.certs / "ca.pem"))


def wait_exit(process, timeout=30):
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


@pytest.fixture
def mixed(stack):
    """Production everywhere except session-token, which is told development; nothing started."""
    with tempfile.TemporaryDirectory(prefix="mfa-py-modes-") as work:
        running = Stack(Path(work), stack.bin_dir, stack.postgres, mode="production", processes="four", start=False,
                        service_env={"session-token": {"MODE": "development"}})
        try:
            yield running
        finally:
            running.close()


@needs_four_processes
def test_a_production_service_refuses_to_start_beside_a_development_peer(mixed):
    mixed.start("session-token")
    mixed.wait_ready(services=["session-token"])
    mixed.start("factor-registry")
    assert wait_exit(mixed.processes["factor-registry"]) == 1
    log = mixed.log_tail("factor-registry", 40)
    assert "session-token runs in development mode" in log and "same mode" in log, log
    # The other way round: the development service refuses to start beside a production peer.
    mixed.kill("session-token")
    mixed.start("challenge-issuer")
    mixed.wait_ready(services=["challenge-issuer"])
    mixed.start("session-token")
    assert wait_exit(mixed.processes["session-token"]) == 1
    assert "challenge-issuer runs in production mode" in mixed.log_tail("session-token", 40)


@needs_four_processes
def test_a_call_that_declares_another_mode_is_refused_and_every_answer_states_the_mode(mixed):
    mixed.start("session-token")
    mixed.wait_ready(services=["session-token"])
    unsigned = {"projectId": "demo-project", "token": '{"uid": "anyone"}'}
    # What a production gateway would send: refused before the token is looked at.
    refused = rpc(mixed, "session-token", "customToken.verify", unsigned, mode="production")
    assert refused.status_code == 403, refused.text
    assert refused.headers["mfa-deployment-mode"] == "development"
    assert "development mode" in refused.json()["error"]["message"]
    # A development caller is served, and so is a tool that declares nothing (curl, rpc.discover).
    served = rpc(mixed, "session-token", "customToken.verify", unsigned, mode="development")
    assert served.status_code == 200 and served.json()["result"]["localId"] == "anyone", served.text
    assert rpc(mixed, "session-token", "service.ping", {}).json()["result"] == {}


def test_a_service_told_nothing_runs_in_production(stack):
    """No MODE at all: `Bearer owner` and the emulator routes are refused, and the gateway says so."""
    with tempfile.TemporaryDirectory(prefix="mfa-py-default-") as work:
        running = Stack(Path(work), stack.bin_dir, stack.postgres, mode="development", start=False)
        for env in running.environments.values():
            del env["MODE"]
            env.pop("CUSTOM_TOKENS_SERVICE_ACCOUNT_FILES", None)
        try:
            for process in running.environments:
                running.start(process)
            running.wait_ready()
            assert requests.get(running.gateway + "/", timeout=30).json()["mode"] == "production"
            config = requests.get(f"{running.gateway}/v2/projects/demo-project/config",
                                  headers={"Authorization": "Bearer owner"}, timeout=30)
            assert config.status_code == 401, config.text
            codes = requests.get(f"{running.gateway}/emulator/v1/projects/demo-project/verificationCodes", timeout=30)
            assert codes.status_code == 404
            signed_up = requests.post(f"{running.gateway}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=any",
                                      json={"email": "x@example.com", "password": "secret-pw"}, timeout=30)
            assert signed_up.json()["error"]["message"] == "API key not valid. Please pass a valid API key."
        finally:
            running.close()


def run_all_in_one(stack, extra):
    bin_dir = Path(os.environ.get("MFA_TEST_BIN_DIR", ROOT / ".build" / "debug"))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TLS_DIRECTORY": str(stack.certs), "CONTRACTS_DIRECTORY": str(ROOT / "proto-json"),
        "PUBLIC_PORT": str(free_port()), "PUBLIC_TLS_PORT": "0",
        **{f"{key}_{kind}_PORT": str(free_port())
           for key in ("FACTOR_REGISTRY", "CHALLENGE_ISSUER", "SESSION_TOKEN", "GATEWAY") for kind in ("RPC", "OPS")},
        **{f"{key}_POSTGRES_URL": f"{stack.postgres}/absent_{key.lower()}"
           for key in ("FACTOR_REGISTRY", "CHALLENGE_ISSUER", "SESSION_TOKEN")},
        **extra,
    }
    return subprocess.run([str(bin_dir / "mfa-all-in-one")], env=env, capture_output=True, text=True, timeout=30)


def test_one_process_refuses_services_in_different_modes(stack):
    done = run_all_in_one(stack, {"MODE": "production", "SESSION_TOKEN_MODE": "development"})
    assert done.returncode == 1
    assert "sessionToken.mode" in done.stderr and "same mode" in done.stderr, done.stderr


def test_a_misspelt_mode_stops_the_service_naming_the_key(stack):
    done = run_all_in_one(stack, {"MODE": "developmnet"})
    assert done.returncode == 1
    assert "configuration key mode" in done.stderr and "developmnet" in done.stderr, done.stderr


def test_development_mode_does_not_listen_beyond_loopback_unless_told(stack):
    done = run_all_in_one(stack, {"MODE": "development", "PUBLIC_HOST": "0.0.0.0"})
    assert done.returncode == 1
    assert "public.host" in done.stderr and "loopback" in done.stderr, done.stderr
