"""deploy/kubernetes, checked without a cluster: every object against Kubernetes' own schemas
(kubernetes-validate, strict), the security properties the manifests promise (each pod mounts only
its own Secrets, the RPC ports admit exactly the services whose code calls them, probes on the ops
port, only the gateway public), every MFA_ variable a real configuration key, and the four services
started on this machine with exactly the manifests' configuration (loopback stand-ins for cluster
names, the test cluster for PostgreSQL) answering a sign-up."""

import hashlib
import re
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import requests
import yaml

import public_certificate
from conftest import DATABASES, ROOT, SERVICES, free_port, psql

MANIFESTS = ROOT / "deploy" / "kubernetes"
FILES = sorted(MANIFESTS.glob("*.yaml"))
OBJECTS = [(path.name, document) for path in FILES for document in yaml.safe_load_all(path.read_text()) if document]
APPLIED = [(name, o) for name, o in OBJECTS if name not in ("secrets.example.yaml", "kustomization.yaml")]


def objects(kind):
    return {o["metadata"]["name"]: o for _, o in APPLIED if o["kind"] == kind}


def container(deployment):
    return deployment["spec"]["template"]["spec"]["containers"][0]


def callers_in_the_code():
    """Which service calls which, from the sources (`host.peer(FactorRegistryAPI.self)`, or the untyped
    `host.client(for: .factorRegistry)`)."""
    names = {"factorRegistry": "factor-registry", "challengeIssuer": "challenge-issuer", "sessionToken": "session-token",
             "gateway": "gateway", "FactorRegistryAPI": "factor-registry", "ChallengeIssuerAPI": "challenge-issuer",
             "SessionTokenAPI": "session-token"}
    libraries = {"factor-registry": "FactorRegistryApp", "challenge-issuer": "ChallengeIssuerApp",
                 "session-token": "SessionTokenApp", "gateway": "GatewayApp"}
    callers = {service: set() for service in SERVICES}
    for caller, library in libraries.items():
        for source in (ROOT / "Sources" / library).rglob("*.swift"):
            text = source.read_text()
            for peer in re.findall(r"client\(for: \.(\w+)\)", text) + re.findall(r"host\.peer\((\w+)\.self\)", text):
                callers[names[peer]].add(caller)
    return callers


@pytest.mark.parametrize("version", ["1.30.0", "1.37.0"])
def test_every_object_passes_kubernetes_strict_schema_validation(version):
    tool = Path(sys.executable).parent / "kubernetes-validate"
    done = subprocess.run([str(tool), "--strict", "--quiet", "-k", version, *[str(p) for p in FILES if p.name != "kustomization.yaml"]],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_kustomization_applies_everything_but_the_secrets_example():
    listed = yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text())["resources"]
    assert sorted(listed) == sorted(p.name for p in FILES if p.name not in ("kustomization.yaml", "secrets.example.yaml"))


def test_each_pod_mounts_only_its_own_secrets_and_runs_unprivileged():
    deployments = objects("Deployment")
    assert sorted(deployments) == sorted(SERVICES)
    for name, deployment in deployments.items():
        pod = deployment["spec"]["template"]["spec"]
        mounted = {v["secret"]["secretName"] for v in pod["volumes"] if "secret" in v}
        referenced = {e["valueFrom"]["secretKeyRef"]["name"] for e in container(deployment)["env"] if "valueFrom" in e}
        own = {f"{name}-tls", f"{name}-database", *({"gateway-api-keys", "gateway-public-tls"} if name == "gateway" else set())}
        assert mounted | referenced <= own and f"{name}-tls" in mounted, name
        context = container(deployment)["securityContext"]
        assert context["runAsNonRoot"] and context["readOnlyRootFilesystem"] and not context["allowPrivilegeEscalation"]
        assert pod["automountServiceAccountToken"] is False


def test_probes_are_on_the_ops_port_and_resources_are_set():
    for name, deployment in objects("Deployment").items():
        spec = container(deployment)
        assert spec["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "ops"}
        assert spec["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "ops"}
        assert spec["startupProbe"]["httpGet"]["port"] == "ops"
        requests_ = spec["resources"]["requests"]
        assert requests_["cpu"] and requests_["memory"] and spec["resources"]["limits"]["memory"]
        # docs/performance.md measured 50-63 MiB per service, up to 117 MiB while scrypt peaks.
        assert int(spec["resources"]["limits"]["memory"].removesuffix("Mi")) >= 128


def test_rpc_ports_admit_exactly_the_services_whose_code_calls_them():
    callers = callers_in_the_code()
    policies = objects("NetworkPolicy")
    assert policies["default-deny-ingress"]["spec"] == {"podSelector": {}, "policyTypes": ["Ingress"]}
    for name, deployment in objects("Deployment").items():
        ports = {p["name"]: p["containerPort"] for p in container(deployment)["ports"]}
        admitted = set()
        for rule in policies[name]["spec"]["ingress"]:
            if {"protocol": "TCP", "port": ports["rpc"]} in rule.get("ports", []):
                admitted |= {peer["podSelector"]["matchLabels"]["app.kubernetes.io/name"] for peer in rule["from"]}
            if "from" not in rule:
                # Open to anyone: only the gateway's HTTPS port.
                assert name == "gateway" and {p["port"] for p in rule["ports"]} == {8443}
        assert admitted == callers[name], name


def test_the_public_load_balancer_serves_https_only_and_keeps_client_addresses():
    """M-8: port 80 carried the whole API (the admin token too) in clear, and the cluster's source NAT
    made every client a node address, so ten wrong passwords from anywhere locked an account for all."""
    public = objects("Service")["gateway-public"]["spec"]
    assert public["externalTrafficPolicy"] == "Local"
    assert public["ports"] == [{"name": "https", "port": 443, "targetPort": "https"}]
    gateway = container(objects("Deployment")["gateway"])
    assert [p["name"] for p in gateway["ports"] if p["name"] in ("http", "https")] == ["https"]
    environment = manifest_environment("gateway")
    assert environment["MFA_PUBLIC_PORT"] == "0"
    # The public name's certificate from its own kubernetes.io/tls Secret, not the internal identity.
    assert environment["MFA_PUBLIC_TLS_CERTIFICATE"] == "/public-tls/tls.crt"
    assert environment["MFA_PUBLIC_TLS_PRIVATE_KEY"] == "/public-tls/tls.key"
    pod = objects("Deployment")["gateway"]["spec"]["template"]["spec"]
    mounted = {m["mountPath"]: m["name"] for m in gateway["volumeMounts"]}
    volume = next(v for v in pod["volumes"] if v["name"] == mounted["/public-tls"])
    assert volume["secret"]["secretName"] == "gateway-public-tls"
    example = next(o for name, o in OBJECTS if name == "secrets.example.yaml" and o["metadata"]["name"] == "gateway-public-tls")
    assert example["type"] == "kubernetes.io/tls" and set(example["stringData"]) == {"tls.crt", "tls.key"}


def test_admin_and_metrics_are_reachable_only_from_inside():
    """L-5: Prometheus pods of any namespace could read /metrics, and the admin API was public."""
    for name, policy in objects("NetworkPolicy").items():
        for rule in policy["spec"].get("ingress", []):
            for peer in rule.get("from", []):
                if "namespaceSelector" in peer:
                    assert peer["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}, name
    environment = manifest_environment("gateway")
    assert environment["MFA_ADMIN_LISTENER_PORT"] == "8444"
    admin_rules = [r for r in objects("NetworkPolicy")["gateway"]["spec"]["ingress"]
                   if {"protocol": "TCP", "port": 8444} in r.get("ports", [])]
    assert admin_rules and all("from" in rule for rule in admin_rules)
    assert "MFA_METRICS_TOKEN_SHA256" in objects("ConfigMap")["mfa-config"]["data"]


def test_only_the_gateway_is_public_and_it_scales_on_cpu_with_disruption_budgets_for_all():
    public = [o for o in objects("Service").values() if o["spec"].get("type") in ("LoadBalancer", "NodePort")]
    assert [o["metadata"]["name"] for o in public] == ["gateway-public"]
    hpa = objects("HorizontalPodAutoscaler")["gateway"]["spec"]
    assert hpa["scaleTargetRef"]["name"] == "gateway" and hpa["minReplicas"] >= 2
    assert hpa["metrics"][0]["resource"]["name"] == "cpu"
    budgets = objects("PodDisruptionBudget")
    for name, deployment in objects("Deployment").items():
        assert budgets[name]["spec"]["selector"] == deployment["spec"]["selector"] and deployment["spec"]["replicas"] >= 2


def configuration_keys():
    """Every key of deploy/configuration.md, spelt as its environment variable."""
    text = (ROOT / "deploy" / "configuration.md").read_text()
    keys = set()
    for cell in re.findall(r"^\| ([^|]*`[^|]*) \|", text, re.M):
        for key in re.findall(r"`([a-zA-Z][\w.]*)`", cell):
            keys.add(re.sub(r"([A-Z])", r"_\1", key).replace(".", "_").upper())
    # `peers.factorRegistry.url` … `peers.gateway.url`: one row for the four.
    keys |= {f"PEERS_{name.upper().replace('-', '_')}_URL" for name in SERVICES}
    return keys


def manifest_environment(name):
    environment = dict(objects("ConfigMap")["mfa-config"]["data"])
    for entry in container(objects("Deployment")[name])["env"]:
        environment[entry["name"]] = entry.get("value")
    return environment


def test_every_variable_is_a_configuration_key():
    keys = configuration_keys()
    for name in SERVICES:
        for variable in manifest_environment(name):
            assert variable.startswith("MFA_") and variable.removeprefix("MFA_") in keys, variable


def test_the_manifests_configuration_starts_the_four_services_and_serves_a_sign_up(stack):
    """Each pod's environment as the manifests give it; only what names the cluster is rewritten:
    Service names and 0.0.0.0 become loopback, ports become free ones, /certs and /app their files
    here, and each Secret gets a value of this run's."""
    with tempfile.TemporaryDirectory(prefix="mfa-py-k8s-") as work:
        work = Path(work)
        subprocess.run([str(stack.bin_dir / "mfa-dev-pki"), str(work / "certs")], check=True, capture_output=True)
        # The gateway-public-tls Secret (kubernetes.io/tls): a stand-in public CA's certificate.
        public_ca = public_certificate.issue(work / "public-tls", certificate="tls.crt", key="tls.key")
        suffix = secrets.token_hex(4)
        ports = {name: (free_port(), free_port()) for name in SERVICES}
        public, admin = free_port(), free_port()
        token = secrets.token_urlsafe(24)
        secret_values = {"url": None, "apiKeys": f"k8s-key-{suffix}=demo-project"}
        processes = {}
        try:
            for service, database in DATABASES.items():
                psql(stack.postgres, f'CREATE DATABASE "k8s_{suffix}_{database}"')
            for name in SERVICES:
                environment = {"PATH": "/usr/bin:/bin"}
                for key, value in manifest_environment(name).items():
                    if value is None:
                        secret = next(e for e in container(objects("Deployment")[name])["env"] if e["name"] == key)
                        reference = secret["valueFrom"]["secretKeyRef"]
                        value = (f"{stack.postgres}/k8s_{suffix}_{DATABASES[name]}" if reference["key"] == "url"
                                 else secret_values[reference["key"]])
                    value = value.replace("0.0.0.0", "127.0.0.1").replace("/certs", str(work / "certs"))
                    value = value.replace("/public-tls", str(work / "public-tls"))
                    value = value.replace("/app/proto-json", str(ROOT / "proto-json"))
                    value = value.replace("/app/sms-prices.json", str(ROOT / "deploy" / "sms-prices.json"))
                    for peer in SERVICES:
                        value = re.sub(rf"https://{peer}:\d+", f"https://127.0.0.1:{ports[peer][0]}", value)
                    environment[key] = value
                environment |= {"MFA_RPC_PORT": str(ports[name][0]), "MFA_OPS_PORT": str(ports[name][1]),
                                "MFA_ADMIN_TOKEN_SHA256": hashlib.sha256(token.encode()).hexdigest(),
                                "MFA_PASSWORDS_SCRYPT_ROUNDS": "1024"}
                if name == "gateway":
                    # The manifest's own ports, moved to free ones; MFA_PUBLIC_PORT stays 0 (no plain HTTP).
                    assert environment["MFA_PUBLIC_PORT"] == "0"
                    environment |= {"MFA_PUBLIC_TLS_PORT": str(public), "MFA_ADMIN_LISTENER_PORT": str(admin)}
                log = open(work / f"{name}.log", "ab")
                processes[name] = subprocess.Popen([str(stack.bin_dir / name)], env=environment, stdout=log,
                                                   stderr=subprocess.STDOUT, cwd=work)
            deadline = time.monotonic() + 90
            for name in SERVICES:
                while True:
                    assert processes[name].poll() is None, (work / f"{name}.log").read_text()[-2000:]
                    try:
                        if requests.get(f"http://127.0.0.1:{ports[name][1]}/readyz", timeout=3).status_code == 200:
                            break
                    except requests.RequestException:
                        pass
                    assert time.monotonic() < deadline, (work / f"{name}.log").read_text()[-2000:]
                    time.sleep(0.2)
            # HTTPS only, with the public name's certificate, which a client checks against its public CA.
            gateway = f"https://localhost:{public}"
            assert requests.get(gateway + "/", timeout=10, verify=str(public_ca)).json()["mode"] == "production"
            signed_up = requests.post(f"{gateway}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k8s-key-{suffix}",
                                      json={"email": "k8s@example.com", "password": "secret-pw-123"}, timeout=30,
                                      verify=str(public_ca))
            assert signed_up.status_code == 200, signed_up.text
            # The admin token opens nothing on the public port; on the admin listener (the deployment's CA) it does.
            config = "/v2/projects/demo-project/config"
            bearer = {"Authorization": f"Bearer {token}"}
            assert requests.get(gateway + config, headers=bearer, timeout=30, verify=str(public_ca)).status_code == 401
            internal = requests.get(f"https://localhost:{admin}{config}", headers=bearer, timeout=30,
                                    verify=str(work / "certs" / "ca.pem"))
            assert internal.status_code == 200, internal.text
            # JSON logs, as the ConfigMap asks.
            line = (work / "gateway.log").read_text().splitlines()[0]
            assert line.startswith("{") and '"service":"gateway"' in line
        finally:
            for process in processes.values():
                process.terminate()
            for process in processes.values():
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
            for database in DATABASES.values():
                psql(stack.postgres, f'DROP DATABASE IF EXISTS "k8s_{suffix}_{database}" WITH (FORCE)')
