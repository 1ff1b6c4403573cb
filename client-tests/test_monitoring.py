"""The metrics operators chart: one namespace (`mfa_`), `mfa_build_info`, database connection
gauges, second-factor checks, the calls sent to each peer and the streams that carried them, and the Grafana dashboard and Prometheus configuration of
docker-compose.yml's `monitoring` profile, checked against what a running stack really exposes
after real traffic (so a renamed metric cannot leave a panel silently empty)."""

import json
import re
import subprocess
import sys
import time

import pytest
import requests
import yaml

from conftest import PROCESSES, ROOT, SERVICES, another_stack
from mfa_helpers import ADMIN, RECAPTCHA, error, sms_code, v1, v2, verified_user
from rest_client import enroll_totp

MONITORING = ROOT / "deploy" / "monitoring"
DASHBOARD = json.loads((MONITORING / "grafana" / "dashboards" / "mfa-backend.json").read_text())
# Appears when the anomaly brake first pauses a destination (test_sms_defense.py makes it happen).
ON_FIRST_EVENT = {"mfa_sms_region_pauses_total"}


@pytest.fixture(scope="module")
def busy_stack(stack):
    """A stack after the traffic every panel charts: sign-ups, TOTP sign-ins right and wrong, SMS
    sent, verified and refused (a per-prefix limit of one)."""
    with another_stack(stack, "monitoring", extra_env={"SMS_DEFENSE_PREFIX_HOURLY_LIMIT": "1"}) as running:
        mfa = {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
               "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}
        assert requests.patch(f"{running.gateway}/v2/projects/demo-project/config?updateMask=mfa", json={"mfa": mfa},
                              headers=ADMIN, timeout=30).status_code == 200
        user = verified_user(running)
        totp, _ = enroll_totp(running, user["idToken"])
        pending = v1(running, "signInWithPassword", email=user["email"], password=user["password"]).json()
        finalize = {"mfaPendingCredential": pending["mfaPendingCredential"],
                    "mfaEnrollmentId": pending["mfaInfo"][0]["mfaEnrollmentId"]}
        wrong = "000000" if totp.at(time.time() + 30) != "000000" else "111111"
        assert error(v2(running, "mfaSignIn:finalize", **finalize, totpVerificationInfo={"verificationCode": wrong})) \
            == "INVALID_CODE"
        assert v2(running, "mfaSignIn:finalize", **finalize,
                  totpVerificationInfo={"verificationCode": totp.at(time.time() + 30)}).status_code == 200
        # SMS: one phone sign-in verified, then a second send to the same prefix refused.
        number = "+1650" + "5550123"
        sent = v1(running, "sendVerificationCode", phoneNumber=number, recaptchaToken=RECAPTCHA).json()
        assert v1(running, "signInWithPhoneNumber", sessionInfo=sent["sessionInfo"],
                  code=sms_code(running, sent["sessionInfo"])).status_code == 200
        refused = v1(running, "sendVerificationCode", phoneNumber="+1650" + "5550124", recaptchaToken=RECAPTCHA)
        assert refused.status_code == 400
        yield running


def exposition(stack):
    return {service: requests.get(stack.ops(service) + "/metrics", timeout=30).text for service in SERVICES}


def families(text):
    return set(re.findall(r"^# TYPE (\S+) ", text, re.M))


def test_every_metric_is_under_the_mfa_namespace(busy_stack):
    for service, text in exposition(busy_stack).items():
        assert families(text), service
        assert all(name.startswith("mfa_") for name in families(text)), (service, families(text))


def test_build_info_names_the_version_and_mode_of_each_service(busy_stack):
    version = subprocess.run([str(busy_stack.bin_dir / "gateway"), "--version"], capture_output=True, text=True).stdout.strip()
    for service, text in exposition(busy_stack).items():
        assert f'mfa_build_info{{service="{service}",version="{version}",mode="development"}} 1' in text, service


def test_database_connections_are_sampled_for_each_data_service(busy_stack):
    for service, text in exposition(busy_stack).items():
        if service == "gateway":
            assert "mfa_db_connections" not in text
            continue
        assert f'mfa_db_pool_max_connections{{service="{service}"}} 8' in text
        # The sampler's own query is one active connection at least.
        active = re.search(rf'mfa_db_connections{{service="{service}",state="active"}} (\d+)', text)
        assert active and int(active[1]) >= 1, service


def test_second_factor_checks_are_counted_by_kind_and_outcome(busy_stack):
    text = exposition(busy_stack)["challenge-issuer"]
    for outcome in ("accepted", "rejected"):
        assert f'mfa_second_factor_checks_total{{service="challenge-issuer",kind="totp",outcome="{outcome}"}} 1' in text


@pytest.mark.skipif(PROCESSES == "one", reason="in one process the gateway calls the data services without a network")
def test_the_gateway_counts_the_calls_it_sends_each_peer_and_the_streams_that_carried_them(busy_stack):
    text = exposition(busy_stack)["gateway"]
    for peer in ("factor-registry", "challenge-issuer", "session-token"):
        calls = re.search(rf'mfa_rpc_client_calls_total{{service="gateway",peer="{peer}"}} (\d+)', text)
        streams = re.search(rf'mfa_rpc_client_streams_total{{service="gateway",peer="{peer}"}} (\d+)', text)
        assert calls and streams, peer
        # Calls ready together share a stream (a JSON-RPC batch): never more streams than calls.
        assert 1 <= int(streams[1]) <= int(calls[1]), (peer, calls[1], streams[1])


def test_every_dashboard_query_names_metrics_the_services_expose(busy_stack):
    exposed = set().union(*(families(text) for text in exposition(busy_stack).values()))
    queried = set()
    for panel in DASHBOARD["panels"]:
        assert panel["datasource"]["uid"] == "prometheus"
        for target in panel["targets"]:
            for name in re.findall(r"\bmfa_[a-z_]+", target["expr"]):
                queried.add(re.sub(r"_(bucket|sum|count)$", "", name))
    missing = queried - exposed - ON_FIRST_EVENT
    assert not missing, f"panels query metrics no service exposes: {sorted(missing)}"
    assert len(queried) >= 10


def test_prometheus_scrapes_each_service_ops_port_and_grafana_finds_it():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    ops = {f"{name}:{compose[name]['environment']['MFA_OPS_PORT']}" for name in SERVICES}
    scrape = yaml.safe_load((MONITORING / "prometheus.yml").read_text())["scrape_configs"][0]
    assert set(scrape["static_configs"][0]["targets"]) == ops and scrape["metrics_path"] == "/metrics"
    source = yaml.safe_load((MONITORING / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text())
    assert source["datasources"][0]["uid"] == "prometheus" and source["datasources"][0]["url"] == "http://prometheus:9090"
    for name in ("prometheus", "grafana"):
        assert compose[name]["profiles"] == ["monitoring"]
        assert all(port.startswith("127.0.0.1:") for port in compose[name]["ports"])


def test_the_compose_check_refuses_monitoring_published_beyond_loopback():
    sys.path.insert(0, str(ROOT / "scripts"))
    import check_compose

    exposed = {"services": {"grafana": {"profiles": ["monitoring"], "ports": ["3000:3000"]}}}
    assert any("monitoring stays on loopback" in problem for problem in check_compose.check(exposed))
    loopback = {"services": {"grafana": {"profiles": ["monitoring"], "ports": ["127.0.0.1:3000:3000"]}}}
    assert not any("grafana" in problem for problem in check_compose.check(loopback))
