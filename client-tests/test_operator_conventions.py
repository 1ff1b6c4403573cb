"""What operators expect of every executable: `--help` and `--version` (the version the build
wrote: VERSION and the commit), configuration under one prefix (`MFA_…`) with the old names still
read for one release and warned about, and a value that cannot be read stopping the service with
its key named instead of a silent default."""

import json
import re
import subprocess
import tempfile
from pathlib import Path

import pytest
import requests

from conftest import ROOT, SERVICES, Stack

EXECUTABLES = [*SERVICES, "mfa-all-in-one", "mfa-admin", "mfa-dev-pki", "mfa-bench"]
RELEASE = (ROOT / "VERSION").read_text().strip()


@pytest.mark.parametrize("executable", EXECUTABLES)
def test_every_executable_answers_help_and_version_from_the_build(stack, executable):
    version = subprocess.run([str(stack.bin_dir / executable), "--version"], capture_output=True, text=True, timeout=30)
    assert version.returncode == 0, version.stderr
    assert re.fullmatch(rf"{re.escape(RELEASE)}(\+[0-9a-f]{{12}}(\.dirty)?)?", version.stdout.strip()), version.stdout
    helped = subprocess.run([str(stack.bin_dir / executable), "--help"], capture_output=True, text=True, timeout=30)
    assert helped.returncode == 0 and f"USAGE: {executable}" in helped.stdout, helped.stdout + helped.stderr
    if executable in SERVICES or executable == "mfa-all-in-one":
        assert "MFA_CONFIG_FILE" in helped.stdout and "deploy/configuration.md" in helped.stdout


def test_the_gateway_reports_the_built_version(stack):
    version = subprocess.run([str(stack.bin_dir / "gateway"), "--version"], capture_output=True, text=True, timeout=30)
    assert requests.get(stack.gateway + "/", timeout=30).json()["version"] == version.stdout.strip()


def test_a_service_refuses_an_unknown_argument(stack):
    refused = subprocess.run([str(stack.bin_dir / "gateway"), "--port", "80"], capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0 and "Unknown option '--port'" in refused.stderr


@pytest.mark.parametrize(("service", "variable", "key"), [
    ("session-token", "MFA_RPC_PORT", "rpc.port"),
    ("gateway", "MFA_SHUTDOWN_GRACE_SECONDS", "shutdown.graceSeconds"),
    ("factor-registry", "MFA_RPC_MAX_BODY_BYTES", "rpc.maxBodyBytes"),
])
def test_a_value_that_cannot_be_read_stops_the_service_naming_its_key(stack, service, variable, key):
    environment = {"PATH": "/usr/bin:/bin", "MFA_MODE": "development", variable: "twelve"}
    done = subprocess.run([str(stack.bin_dir / service)], env=environment, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert f"configuration key {key}: the value set (environment variable {variable} or its old name" in done.stderr
    assert "is not a valid int; fix or remove it (deploy/configuration.md)" in done.stderr
    assert "twelve" not in done.stderr


def test_the_old_names_still_work_for_one_release_with_a_warning_each(stack):
    with tempfile.TemporaryDirectory(prefix="mfa-py-old-names-") as work:
        running = Stack(Path(work), stack.bin_dir, stack.postgres, old_names=True)
        try:
            assert requests.get(running.gateway + "/", timeout=30).json()["mode"] == "development"
            log = running.log_path("gateway").read_text()
            assert "environment variable MODE is an old name: rename it MFA_MODE" in log
            assert "environment variable PUBLIC_PORT is an old name: rename it MFA_PUBLIC_PORT" in log
            assert log.count("environment variable MODE is an old name") == 1
        finally:
            running.close()
    # The stacks of every other test use the new names: no warning there.
    assert "is an old name" not in stack.log_path("gateway").read_text()


def test_json_logs_are_one_object_per_line_with_the_request_id_across_services(stack):
    with tempfile.TemporaryDirectory(prefix="mfa-py-json-logs-") as work:
        running = Stack(Path(work), stack.bin_dir, stack.postgres, extra_env={"LOG_FORMAT": "json", "LOG_LEVEL": "debug"})
        try:
            tenant = requests.post(f"{running.gateway}/v2/projects/demo-project/tenants", timeout=30,
                                   headers={"Authorization": "Bearer owner"},
                                   json={"displayName": "Logs", "allowPasswordSignup": True}).json()["name"].split("/")[-1]
            signed_up = requests.post(f"{running.gateway}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                                      json={"email": "json-logs@example.com", "password": "secret-pw-123", "tenantId": tenant},
                                      timeout=30)
            assert signed_up.status_code == 200
            lines = {service: running.log_path(service).read_text().splitlines() for service in SERVICES}
        finally:
            running.close()
    records = {service: [json.loads(line) for line in text] for service, text in lines.items()}
    for service, entries in records.items():
        assert entries, service
        for entry in entries:
            assert {"time", "level", "service", "message"} <= entry.keys()
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", entry["time"])
    # (One process writes the four services' lines to one log: each line names its service.)
    starting = next(entry for entry in records["gateway"] if entry["message"] == "starting" and entry["service"] == "gateway")
    assert starting["mode"] == "development" and starting["level"] == "info" and starting["service"] == "gateway"
    # The access lines (debug): the sign-up's request id is on the gateway's line and on the lines of
    # the calls it made to factor-registry and session-token.
    served = next(entry for entry in records["gateway"]
                  if entry["message"] == "public request served" and entry["operation"] == "identitytoolkit.accounts.signUp")
    assert served["status"] == "200" and float(served["duration.ms"]) > 0 and served["tenant"] == tenant
    for service in ("factor-registry", "session-token"):
        calls = [entry for entry in records[service]
                 if entry["message"] == "rpc call served" and entry.get("request.id") == served["request.id"]]
        assert calls and all(call["rpc.caller"] == "gateway" for call in calls), service
    # Never the password.
    assert all("secret-pw-123" not in line for text in lines.values() for line in text)
