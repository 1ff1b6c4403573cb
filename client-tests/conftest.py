"""A real stack for the Python tests, started the way an operator would start it.

Binaries come from MFA_TEST_BIN_DIR (set by scripts/test.sh), PostgreSQL from MFA_TEST_POSTGRES_URL;
each test session gets its own databases, development certificates (from mfa-dev-pki) and loopback
ports, and everything is removed afterwards. MFA_TEST_PROCESSES=one runs the four services in one
process (mfa-all-in-one) instead of four, each still with its own ports, databases and configuration.
"""

import base64
import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[1]
SERVICES = ["factor-registry", "challenge-issuer", "session-token", "gateway"]
DATABASES = {"factor-registry": "factor_registry", "challenge-issuer": "challenge_issuer", "session-token": "session_token"}
CONFIG_KEY = {"factor-registry": "FACTOR_REGISTRY", "challenge-issuer": "CHALLENGE_ISSUER",
              "session-token": "SESSION_TOKEN", "gateway": "GATEWAY"}


# "four" (one process per service) or "one" (mfa-all-in-one).
PROCESSES = os.environ.get("MFA_TEST_PROCESSES", "four")
ALL_IN_ONE = "all-in-one"
needs_four_processes = pytest.mark.skipif(
    PROCESSES == "one", reason="stops one service while the others run, which needs a process per service")

# The ports this session hands out: 12000-19999, or its share of them when pytest-xdist runs the
# suite in several workers (`-n`), so two workers never hand out the same port before its service binds.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
_SPAN = 8000 // max(_WORKERS, 1)
_FIRST_PORT = 12000 + _WORKER * _SPAN
_LAST_PORT = _FIRST_PORT + _SPAN - 1
_next_port = _FIRST_PORT + (os.getpid() % 200) * 30 % _SPAN


def free_port() -> int:
    """A loopback port below Linux's ephemeral range (32768-60999), so no client socket can take it
    between this check and the service's bind; never the same one twice in this session."""
    global _next_port
    for _ in range(_SPAN):
        port = _next_port
        _next_port = _FIRST_PORT if _next_port >= _LAST_PORT else _next_port + 1
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {_FIRST_PORT}-{_LAST_PORT}")


def make_service_account(email: str = "backend@demo-project.iam.gserviceaccount.com") -> dict:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    return {
        "type": "service_account", "project_id": "demo-project", "private_key_id": secrets.token_hex(8),
        "private_key": pem, "client_email": email, "client_id": "1", "token_uri": "http://127.0.0.1:9/token",
    }


def psql(base_url: str, sql: str) -> None:
    parts = urllib.parse.urlsplit(base_url)
    env = dict(os.environ, PGPASSWORD=urllib.parse.unquote(parts.password or ""))
    subprocess.run(
        ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-h", parts.hostname, "-p", str(parts.port or 5432),
         "-U", urllib.parse.unquote(parts.username), "-d", "postgres", "-c", sql],
        check=True, env=env, capture_output=True,
    )


def current_names(environment: dict, old_names: bool = False) -> dict:
    """The services' configuration under its `MFA_` names (PATH, names already prefixed and
    OpenTelemetry's own `OTEL_` variables stay)."""
    if old_names:
        return dict(environment)
    return {key if key == "PATH" or key.startswith(("MFA_", "OTEL_")) else f"MFA_{key}": value
            for key, value in environment.items()}


class Stack:
    def __init__(self, work: Path, bin_dir: Path, postgres: str, mode: str = "development",
                 extra_env: dict | None = None, processes: str = PROCESSES, start: bool = True,
                 service_env: dict | None = None, old_names: bool = False):
        """`service_env` sets variables for one service only ({"session-token": {...}}, four
        processes); with `start` False nothing runs until the test calls `start(service)`. Keys are
        written without their `MFA_` prefix and get it when a process starts; `old_names` keeps the
        names before the prefix, which the services still read (with a warning) for one release."""
        self.work = work
        self.old_names = old_names
        self.processes_mode = processes
        self.suffix = secrets.token_hex(5)
        self.databases = {service: f"py_{self.suffix}_{name}" for service, name in DATABASES.items()}
        self.postgres = postgres
        for name in self.databases.values():
            psql(postgres, f'CREATE DATABASE "{name}"')
        certs = work / "certs"
        subprocess.run([str(bin_dir / "mfa-dev-pki"), str(certs)], check=True, capture_output=True)
        self.certs = certs
        # The service-account key an app team's backend would sign custom tokens with.
        self.service_account = make_service_account()
        (work / "service-account.json").write_text(json.dumps(self.service_account))
        self.ports = {service: (free_port(), free_port()) for service in SERVICES}
        public_port, tls_port = free_port(), free_port()
        self.gateway = f"http://127.0.0.1:{public_port}"
        self.gateway_host = f"127.0.0.1:{public_port}"
        # The same API over TLS (HTTP/2 or HTTP/1.1), certificate from the development CA.
        self.gateway_tls = f"https://127.0.0.1:{tls_port}"
        self.processes = {}
        self.environments = {}
        self.bin_dir = bin_dir
        for service in SERVICES:
            rpc, ops = self.ports[service]
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "MODE": mode, "LOG_LEVEL": "info",
                "RPC_PORT": str(rpc), "OPS_PORT": str(ops), "PUBLIC_PORT": str(public_port),
                "PUBLIC_TLS_PORT": str(tls_port),
                # Named, as production requires (no fallback on the internal identity there); here the
                # development CA's certificate for localhost is the one the tests trust.
                "PUBLIC_TLS_CERTIFICATE": str(certs / "gateway.pem"), "PUBLIC_TLS_PRIVATE_KEY": str(certs / "gateway-key.pem"),
                "TLS_DIRECTORY": str(certs), "CONTRACTS_DIRECTORY": str(ROOT / "proto-json"),
                "RECONCILE_INTERVAL_MS": "200",
                # Cheaper scrypt for a debug build under test; production keeps N = 2^14.
                "PASSWORDS_SCRYPT_ROUNDS": "1024",
                # The default project's own parameters (per-project override), still cheap for a test.
                "PASSWORDS_SCRYPT_PROJECTS": "demo-project=2048:8:1",
                "CUSTOM_TOKENS_SERVICE_ACCOUNT_FILES": str(work / "service-account.json"),
                # Production wants the operator's link base; here, this gateway's own page.
                "OOB_LINK_BASE": f"http://127.0.0.1:{public_port}/emulator/action",
                **(extra_env or {}),
            }
            for peer in SERVICES:
                if peer != service:
                    env[f"PEERS_{CONFIG_KEY[peer]}_URL"] = f"https://127.0.0.1:{self.ports[peer][0]}"
            if service in self.databases:
                env["POSTGRES_URL"] = f"{postgres}/{self.databases[service]}"
            env.update((service_env or {}).get(service, {}))
            self.environments[service] = env
        if processes == "one":
            # One environment: what differs between the services goes under each one's key.
            combined = {}
            for service, env in self.environments.items():
                for key, value in env.items():
                    if key in ("RPC_PORT", "OPS_PORT", "POSTGRES_URL") or key.startswith("PEERS_"):
                        combined[f"{CONFIG_KEY[service]}_{key}"] = value
                    else:
                        combined[key] = value
            self.environments = {ALL_IN_ONE: combined}
        if start:
            for process in self.environments:
                self.start(process)
            self.wait_ready()

    def process_of(self, service: str) -> str:
        return ALL_IN_ONE if self.processes_mode == "one" else service

    def start(self, service: str) -> None:
        process = self.process_of(service)
        binary = "mfa-all-in-one" if process == ALL_IN_ONE else process
        log = open(self.work / f"{process}.log", "ab")
        self.processes[process] = subprocess.Popen(
            [str(self.bin_dir / binary)], env=current_names(self.environments[process], self.old_names),
            stdout=log, stderr=subprocess.STDOUT, cwd=self.work)

    def kill(self, service: str) -> None:
        """SIGKILL: the process gets no chance to finish anything (a crash, not a shutdown)."""
        process = self.processes[self.process_of(service)]
        process.kill()
        process.wait(timeout=10)

    def query(self, service: str, sql: str) -> list[str]:
        """Runs SQL in a service's database (to look at what is stored, never to change it)."""
        parts = urllib.parse.urlsplit(self.postgres)
        env = dict(os.environ, PGPASSWORD=urllib.parse.unquote(parts.password or ""))
        out = subprocess.run(
            ["psql", "-tA", "-v", "ON_ERROR_STOP=1", "-h", parts.hostname, "-p", str(parts.port or 5432),
             "-U", urllib.parse.unquote(parts.username), "-d", self.databases[service], "-c", sql],
            check=True, env=env, capture_output=True, text=True,
        )
        return [line for line in out.stdout.splitlines() if line]

    def ops(self, service: str) -> str:
        return f"http://127.0.0.1:{self.ports[service][1]}"

    def wait_ready(self, timeout: float = 90, services: list[str] = SERVICES) -> None:
        deadline = time.monotonic() + timeout
        for service in services:
            while True:
                if self.processes[self.process_of(service)].poll() is not None:
                    raise RuntimeError(f"{service} exited:\n{self.log_tail(service)}")
                try:
                    if requests.get(self.ops(service) + "/readyz", timeout=3).status_code == 200:
                        break
                except requests.RequestException:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{service} not ready:\n{self.log_tail(service)}")
                time.sleep(0.1)

    def log_path(self, service: str) -> Path:
        """The log a service writes to (its process's)."""
        return self.work / f"{self.process_of(service)}.log"

    def log_tail(self, service: str, lines: int = 20) -> str:
        path = self.log_path(service)
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    def stop_processes(self) -> None:
        """SIGTERM to every process, SIGKILL to any still running 10 s later."""
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()

    def close(self) -> None:
        self.stop_processes()
        for name in self.databases.values():
            psql(self.postgres, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def another_stack(stack, name: str, **options):
    """A stack of its own beside the session's (its own databases, ports and work directory), for
    settings the shared one must not have: `options` go to `Stack` (`mode`, `extra_env`)."""
    with tempfile.TemporaryDirectory(prefix=f"mfa-py-{name}-") as work:
        running = Stack(Path(work), stack.bin_dir, stack.postgres, **options)
        try:
            yield running
        finally:
            running.close()


@pytest.fixture(scope="session")
def stack():
    bin_dir = Path(os.environ.get("MFA_TEST_BIN_DIR", ROOT / ".build" / "debug"))
    postgres = os.environ.get("MFA_TEST_POSTGRES_URL", "postgres://mfa:mfa@127.0.0.1:54329")
    # MFA_TEST_KEEP_LOGS=1 keeps the services' logs (the directory is printed) for a failure's post-mortem.
    keep = bool(os.environ.get("MFA_TEST_KEEP_LOGS"))
    work = tempfile.mkdtemp(prefix="mfa-py-")
    if keep:
        print(f"service logs in {work}")
    try:
        running = Stack(Path(work), bin_dir, postgres)
        try:
            yield running
        finally:
            running.close()
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def b64url_to_int(text: str) -> int:
    return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")


@pytest.fixture(scope="session")
def production():
    """The services as docker-compose.yml runs them: production mode, its environment and secrets of
    the run's own (client-tests/production_stack.py)."""
    from production_stack import running

    with running() as stack:
        yield stack
