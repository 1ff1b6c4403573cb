"""The production stack of the client tests: the real service processes, each with the environment
docker-compose.yml gives its container (docker-compose.all-in-one.yml's with MFA_TEST_PROCESSES=one),
its databases made by deploy/postgres/init-databases.sh and its certificate directory filled by the
compose file's own certs job. Secrets are generated for the run, as an operator fills in .env from
deploy/compose.env.example.

Only what must differ on a test machine is rewritten: `0.0.0.0` and compose host names become
127.0.0.1, ports become free loopback ports, a container path becomes the host directory behind its
mount (`/certs`: the service's own volume, here a directory), `/app/proto-json` the repository's,
and the databases and roles get a per-run prefix on the test cluster (MFA_TEST_POSTGRES_URL, a role
with CREATEDB and CREATEROLE: `PGROLE_CREATEROLE=1 scripts/pg.sh start ...`). Two settings are
added, as in conftest.Stack: cheap scrypt parameters for a debug build.
"""

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import urllib.parse
from pathlib import Path

import requests

import public_certificate
from compose_file import ComposeFile, read_env_file
from conftest import ALL_IN_ONE, CONFIG_KEY, DATABASES, PROCESSES, ROOT, SERVICES, Stack, free_port, \
    make_service_account

COMPOSE_FILES = {"four": ROOT / "docker-compose.yml", "one": ROOT / "docker-compose.all-in-one.yml"}
ENV_EXAMPLE = ROOT / "deploy" / "compose.env.example"
# What deploy/Dockerfile puts in every image, and where it is in this checkout.
IMAGE_PATHS = {"/app/proto-json": ROOT / "proto-json"}
# Cheaper scrypt for a debug build under test (production keeps N = 2^14), as conftest.Stack sets.
TEST_ONLY = {"MFA_PASSWORDS_SCRYPT_ROUNDS": "1024", "MFA_PASSWORDS_SCRYPT_PROJECTS": "demo-project=2048:8:1"}


class ProductionStack(Stack):
    """conftest.Stack's conventions (`gateway`, `gateway_tls`, `ops`, `log_tail`, `kill`, `start`,
    `wait_ready`, `close`), plus `admin_token` (its SHA-256 is configured), `api_key` (the default
    project's own key), `service_account` (its public key configured for custom tokens),
    `cert_dirs` (each service's /certs), `public_ca` (the stand-in public CA that issued the TLS
    listener's certificate, which a client trusts), `databases` and `database_urls` (each data service's own
    role), `query` and `psql_as`. `extra_env` ({service: {KEY: value}}) is set over compose's
    environment; in one process, under the service's own key (MFA_FACTOR_REGISTRY_...)."""

    def __init__(self, work: Path, bin_dir: Path, postgres: str, processes: str = PROCESSES,
                 extra_env: dict[str, dict[str, str]] | None = None):
        # Not Stack.__init__: that one builds a development stack. These are what Stack's methods use.
        self.work, self.bin_dir, self.postgres, self.processes_mode = work, bin_dir, postgres, processes
        # The compose files' names are the current (MFA_) ones already.
        self.old_names = False
        self.processes = {}
        self.suffix = secrets.token_hex(5)
        self.admin_token = secrets.token_urlsafe(32)
        self.service_account = make_service_account()
        self.ports = {service: (free_port(), free_port()) for service in SERVICES}
        public_port, tls_port = free_port(), free_port()
        self.public_ports = {"MFA_PUBLIC_PORT": public_port, "MFA_PUBLIC_TLS_PORT": tls_port,
                             "MFA_ADMIN_LISTENER_PORT": free_port()}
        self.gateway = f"http://127.0.0.1:{public_port}"
        self.gateway_host = f"127.0.0.1:{public_port}"
        self.gateway_tls = f"https://127.0.0.1:{tls_port}"
        self.admin_url = self.gateway
        # This run's names, dropped by close() even when the start fails half-way.
        self.databases = {service: f"py_{self.suffix}_{database}" for service, database in DATABASES.items()}
        self.database_urls = {}
        try:
            self.compose = ComposeFile(COMPOSE_FILES[processes], self.dotenv())
            self.volumes = work / "volumes"
            self.create_databases()
            self.hand_out_certificates()
            process_services = {ALL_IN_ONE: SERVICES} if processes == "one" else {s: [s] for s in SERVICES}
            self.environments = {process: self.environment(process, served, extra_env or {})
                                 for process, served in process_services.items()}
            self.cert_dirs = {service: Path(self.environments[self.process_of(service)]["MFA_TLS_DIRECTORY"])
                              for service in SERVICES}
            self.certs = self.cert_dirs["gateway"]
            # Where admin calls go: the admin listener the compose file configures (the only place an
            # admin token counts; TLS with the gateway's internal identity, whose CA the operator's
            # machine trusts: here, requests' bundle), else the public listener.
            admin_port = self.environments[self.process_of("gateway")].get("MFA_ADMIN_LISTENER_PORT", "0")
            if admin_port not in ("", "0"):
                self.admin_url = f"https://localhost:{admin_port}"
                trust(self.certs / "ca.pem")
            for process in self.environments:
                self.start(process)
            self.wait_ready()
            config = requests.get(f"{self.admin_url}/v2/projects/demo-project/config",
                                  headers={"Authorization": f"Bearer {self.admin_token}"}, timeout=30,
                                  verify=str(self.certs / "ca.pem"))
            config.raise_for_status()
            self.api_key = config.json()["client"]["apiKey"]
        except BaseException:
            self.close()
            raise

    def dotenv(self) -> dict[str, str]:
        """The operator's .env: the example, its empty secrets filled in, one optional setting used."""
        accounts = self.work / "service-accounts"
        accounts.mkdir()
        # The operator's certificate for the public name, from a stand-in public CA (`public_ca`).
        self.public_tls = self.work / "public-tls"
        self.public_ca = public_certificate.issue(self.public_tls)
        # Only the public half, as deploy/service-accounts/README.md advises: nothing secret on the host.
        (accounts / "backend.json").write_text(json.dumps(public_half(self.service_account)))
        self.passwords = {service: secrets.token_hex(16) for service in DATABASES}
        return read_env_file(ENV_EXAMPLE) | {
            "MFA_ADMIN_TOKEN_SHA256": hashlib.sha256(self.admin_token.encode()).hexdigest(),
            "MFA_POSTGRES_PASSWORD": secrets.token_hex(16),
            **{f"MFA_{CONFIG_KEY[service]}_DB_PASSWORD": password for service, password in self.passwords.items()},
            "MFA_OOB_LINK_BASE": f"{self.gateway}/emulator/action",
            "MFA_PUBLIC_TLS_DIRECTORY": str(self.public_tls),
            "MFA_SERVICE_ACCOUNTS_DIR": str(accounts),
            "MFA_CUSTOM_TOKENS_SERVICE_ACCOUNT_FILES": "/run/mfa/service-accounts/backend.json",
        }

    def admin_environment(self) -> dict[str, str]:
        """psql's variables for the test cluster's administrating role."""
        parts = urllib.parse.urlsplit(self.postgres)
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PGHOST": parts.hostname,
                "PGPORT": str(parts.port or 5432), "PGUSER": urllib.parse.unquote(parts.username or ""),
                "PGPASSWORD": urllib.parse.unquote(parts.password or ""), "PGDATABASE": "postgres"}

    def create_databases(self) -> None:
        """The postgres service's init scripts, with its environment but the test cluster's admin role
        instead of the container's superuser, and a prefix that makes this run's names unique."""
        postgres = self.compose.running("postgres")
        environment = {key: value for key, value in self.compose.environment(postgres).items()
                       if not key.startswith("POSTGRES_")}
        environment |= self.admin_environment() | {"MFA_DB_NAME_PREFIX": f"py_{self.suffix}_"}
        can_create = run(["psql", "-tAc", "SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user"],
                         environment).strip()
        if can_create != "t":
            raise RuntimeError("MFA_TEST_POSTGRES_URL's role cannot create roles; start the test cluster with "
                               "PGROLE_CREATEROLE=1 scripts/pg.sh start DATADIR PORT")
        for source, target, _ in self.compose.mounts(postgres):
            if target.startswith("/docker-entrypoint-initdb.d/") and target.endswith(".sh"):
                run(["sh", source], environment)

    def hand_out_certificates(self) -> None:
        """Runs the certs job's own command, a directory here standing in for each of its volumes. The
        copies stay the test user's: CERTS_OWNER (the images' uid 10001) is dropped, as chown needs
        root and would lock a test user out of its own files."""
        job = self.compose.named("mfa-dev-pki")
        script = self.compose.command(job).replace("/usr/local/bin/", f"{self.bin_dir}/")
        for source, target, _ in self.compose.mounts(job):
            script = replace_path(script, target, self.host_path(source))
        environment = {key: value for key, value in self.compose.environment(job).items() if key != "CERTS_OWNER"}
        environment["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
        run(["sh", "-c", script], environment)

    def host_path(self, source: str) -> str:
        """A bind mount's host path, or the directory standing in for a named volume."""
        if source.startswith("/"):
            return source
        path = self.volumes / source
        path.mkdir(parents=True, exist_ok=True)
        return str(path)

    def environment(self, process: str, served: list[str], extra_env: dict[str, dict[str, str]]) -> dict[str, str]:
        name = self.compose.named("mfa-all-in-one" if process == ALL_IN_ONE else process)
        env = self.compose.environment(name)
        paths = {target: self.host_path(source) for source, target, _ in self.compose.mounts(name)}
        paths |= {image: str(local) for image, local in IMAGE_PATHS.items()}
        for key, value in env.items():
            if key.endswith("POSTGRES_URL"):
                env[key] = self.test_database_url(key, value)
                continue
            if value == "0.0.0.0":
                value = "127.0.0.1"
            for target, local in sorted(paths.items(), key=lambda item: -len(item[0])):
                value = replace_path(value, target, local)
            # A peer's address on the compose network (https://factor-registry:7101).
            value = re.sub(r"://([a-z-]+):(\d+)", lambda m: f"://127.0.0.1:{self.peer_port(m[1], m[2])}", value)
            env[key] = value
        if process == ALL_IN_ONE:
            # In one process the compose file leaves RPC and ops listeners on their loopback defaults
            # (7101-7104, 9101-9104); here each needs a free port.
            for service in SERVICES:
                rpc, ops = self.ports[service]
                env |= {f"MFA_{CONFIG_KEY[service]}_RPC_PORT": str(rpc), f"MFA_{CONFIG_KEY[service]}_OPS_PORT": str(ops)}
        else:
            env |= {"MFA_RPC_PORT": str(self.ports[process][0]), "MFA_OPS_PORT": str(self.ports[process][1])}
        # The gateway's published ports (8080, 8443), on this machine.
        env |= {key: str(port) for key, port in self.public_ports.items() if key in env}
        env |= {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **TEST_ONLY}
        for service in served:
            overrides = extra_env.get(service, {})
            # Tests name keys without the MFA_ prefix, as conftest.Stack does.
            env |= {"MFA_" + (f"{CONFIG_KEY[service]}_{key}" if process == ALL_IN_ONE else key).removeprefix("MFA_"): value
                    for key, value in overrides.items()}
        return env

    def peer_port(self, host: str, port: str) -> int:
        """The test port of `host:port` on the compose network: a service's RPC listener."""
        service = (self.compose.services.get(host) or {}).get("build", {}).get("args", {}).get("PRODUCT")
        if service in self.ports and self.compose.environment(host).get("MFA_RPC_PORT") == port:
            return self.ports[service][0]
        raise ValueError(f"{host}:{port} is no service's RPC listener in {self.compose.path.name}")

    def test_database_url(self, key: str, url: str) -> str:
        """The compose URL's role and database, with this run's prefix, on the test cluster."""
        parts = urllib.parse.urlsplit(url)
        service = next(s for s, database in DATABASES.items() if parts.path == f"/{database}")
        cluster = urllib.parse.urlsplit(self.postgres)
        prefixed = f"py_{self.suffix}_{DATABASES[service]}"
        assert parts.username == DATABASES[service], f"{key}: {parts.username} is not {service}'s own role"
        self.database_urls[service] = (f"postgres://{prefixed}:{parts.password}@{cluster.hostname}:"
                                       f"{cluster.port or 5432}/{prefixed}")
        return self.database_urls[service]

    def psql_as(self, role_of: str, database_of: str, sql: str) -> subprocess.CompletedProcess:
        """psql as `role_of`'s role (its own password) in `database_of`'s database."""
        role = urllib.parse.urlsplit(self.database_urls[role_of])
        return subprocess.run(
            ["psql", "-tA", "-v", "ON_ERROR_STOP=1", "-h", role.hostname, "-p", str(role.port), "-U", role.username,
             "-d", self.databases[database_of], "-c", sql],
            env=dict(os.environ, PGPASSWORD=role.password), capture_output=True, text=True)

    def query(self, service: str, sql: str) -> list[str]:
        """SQL in a service's database, as the service's own role (to look, never to change)."""
        done = self.psql_as(service, service, sql)
        if done.returncode != 0:
            raise RuntimeError(done.stderr)
        return [line for line in done.stdout.splitlines() if line]

    def close(self) -> None:
        self.stop_processes()
        statements = [f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)' for name in self.databases.values()]
        statements += [f'DROP ROLE IF EXISTS "{name}"' for name in self.databases.values()]
        for statement in statements:
            run(["psql", "-q", "-c", statement], self.admin_environment())


def run(command: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:2])} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.stdout


def replace_path(text: str, container: str, host: str) -> str:
    """`container` (a whole path, or the start of one) replaced by `host` wherever it occurs."""
    return re.sub(rf"(?<![\w./-]){re.escape(container)}(?=[/\s'\",;]|$)", lambda _: host, text)


def public_half(account: dict) -> dict:
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(account["private_key"].encode(), password=None)
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                          serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return {name: value for name, value in account.items() if name != "private_key"} | {"public_key": public}


@contextlib.contextmanager
def running(extra_env: dict[str, dict[str, str]] | None = None, processes: str = PROCESSES):
    """A production stack for the duration of the block, in a work directory of its own
    (MFA_TEST_KEEP_LOGS=1 keeps it, and says where, for a failure's post-mortem)."""
    bin_dir = Path(os.environ.get("MFA_TEST_BIN_DIR", ROOT / ".build" / "debug"))
    postgres = os.environ.get("MFA_TEST_POSTGRES_URL", "postgres://mfa:mfa@127.0.0.1:54329")
    keep = bool(os.environ.get("MFA_TEST_KEEP_LOGS"))
    work = Path(tempfile.mkdtemp(prefix="mfa-py-production-"))
    if keep:
        print(f"production stack's logs in {work}")
    try:
        stack = ProductionStack(work, bin_dir, postgres, processes=processes, extra_env=extra_env)
        try:
            yield stack
        finally:
            stack.close()
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


_BUNDLE = Path(tempfile.gettempdir()) / f"mfa-py-trusted-{os.getpid()}.pem"


def trust(ca: Path):
    """Adds a deployment's CA to the CA bundle requests verifies with (REQUESTS_CA_BUNDLE, public CAs
    included), as an operator adds it on the machine they administer from."""
    if not _BUNDLE.exists():
        import certifi
        _BUNDLE.write_bytes(Path(certifi.where()).read_bytes())
    with _BUNDLE.open("ab") as bundle:
        bundle.write(b"\n" + ca.read_bytes())
    os.environ["REQUESTS_CA_BUNDLE"] = str(_BUNDLE)

