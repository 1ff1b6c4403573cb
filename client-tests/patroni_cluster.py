"""A Patroni cluster on loopback for the tests: one etcd and three Patroni members, each managing its
own PostgreSQL, started from deploy/patroni/patroni.yml with only test settings over it.

Real programs throughout (Debian's `patroni` 3.0 and `etcd-server` 3.4, the machine's PostgreSQL),
on 127.0.0.1 and free ports (conftest.free_port), in one temporary directory. Each member's
configuration is a directory, as Patroni allows: the deployment's patroni.yml and a test.yml read
after it; what differs per member comes from PATRONI_* variables, as patroni.env.example sets it in
production. When the tests run as root the members run as the postgres user (initdb refuses root)."""

import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import time
import urllib.parse
from pathlib import Path

import requests
import yaml

from conftest import ROOT, free_port

DEPLOY = ROOT / "deploy" / "patroni"
# The services' roles and databases, made by the deployment's post_bootstrap (init-databases.sh).
SERVICE_DATABASES = {"factor-registry": "factor_registry", "challenge-issuer": "challenge_issuer",
                     "session-token": "session_token"}


def pg_bin() -> Path:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda path: int(path.parent.name))
    assert versions, "PostgreSQL is missing: scripts/pg.sh installs it"
    return versions[-1]


def programs_missing() -> list[str]:
    return [name for name in ("patroni", "etcd") if shutil.which(name) is None]


def _as_postgres() -> dict:
    """Popen options that run a child as the postgres user when we are root."""
    if os.geteuid() != 0:
        return {}
    return {"user": "postgres", "group": "postgres", "extra_groups": []}


def _chown_postgres(path: Path) -> None:
    if os.geteuid() == 0:
        entry = pwd.getpwnam("postgres")
        for directory, _, files in os.walk(path):
            os.chown(directory, entry.pw_uid, entry.pw_gid)
            for name in files:
                os.chown(Path(directory) / name, entry.pw_uid, entry.pw_gid)


class Member:
    def __init__(self, cluster: "PatroniCluster", name: str):
        self.cluster = cluster
        self.name = name
        self.directory = cluster.work / name
        self.data_dir = self.directory / "data"
        self.config_dir = self.directory / "config"
        self.api_port, self.pg_port = free_port(), free_port()
        self.process: subprocess.Popen | None = None
        self.log_path = self.directory / "patroni.log"

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    def write_configuration(self) -> None:
        self.config_dir.mkdir(parents=True)
        # The deployment's file as it is; test.yml (read after it) changes only what a test must.
        shutil.copy(DEPLOY / "patroni.yml", self.config_dir / "patroni.yml")
        test = {
            "bootstrap": {
                "dcs": {"postgresql": {"parameters": {
                    # A process killed with SIGKILL loses nothing the kernel already has; fsync would
                    # guard against the machine itself failing, which no test here does. Kept: the
                    # full_page_writes pg_rewind needs.
                    "fsync": "off",
                    "max_connections": 100,
                }}},
                "post_bootstrap": str(DEPLOY / "post-bootstrap.sh"),
            },
            # No /dev/watchdog here, and arming the machine's own would reset it when a test kills
            # a member's Patroni.
            "watchdog": {"mode": "off"},
            "postgresql": {"parameters": {"unix_socket_directories": str(self.directory)}},
            "log": {"level": "INFO"},
        }
        (self.config_dir / "test.yml").write_text(yaml.safe_dump(test))
        _chown_postgres(self.directory)

    def environment(self) -> dict:
        cluster = self.cluster
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(self.directory),
            "PATRONI_NAME": self.name,
            "PATRONI_RESTAPI_LISTEN": f"127.0.0.1:{self.api_port}",
            "PATRONI_RESTAPI_CONNECT_ADDRESS": f"127.0.0.1:{self.api_port}",
            "PATRONI_POSTGRESQL_LISTEN": f"127.0.0.1:{self.pg_port}",
            "PATRONI_POSTGRESQL_CONNECT_ADDRESS": f"127.0.0.1:{self.pg_port}",
            "PATRONI_POSTGRESQL_DATA_DIR": str(self.data_dir),
            "PATRONI_POSTGRESQL_BIN_DIR": str(pg_bin()),
            "PATRONI_POSTGRESQL_PGPASS": str(self.directory / "pgpass"),
            "PATRONI_ETCD3_HOSTS": f"127.0.0.1:{cluster.etcd_client_port}",
            "PATRONI_SUPERUSER_PASSWORD": cluster.passwords["superuser"],
            "PATRONI_REPLICATION_PASSWORD": cluster.passwords["replication"],
            "PATRONI_REWIND_PASSWORD": cluster.passwords["rewind"],
            **{f"{database.upper()}_DB_PASSWORD": cluster.passwords[database]
               for database in SERVICE_DATABASES.values()},
        }

    def start(self) -> None:
        if not self.config_dir.exists():
            self.write_configuration()
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(["patroni", str(self.config_dir)], env=self.environment(), stdout=log,
                                        stderr=subprocess.STDOUT, cwd=self.directory, start_new_session=True,
                                        **_as_postgres())
        log.close()

    def postmaster_pid(self) -> int | None:
        try:
            pid = int((self.data_dir / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        return pid

    def kill_postgres(self) -> None:
        """SIGKILL to the postmaster and every backend at once: Patroni starts PostgreSQL in a process
        group of its own (setsid), which holds exactly those."""
        pid = self.postmaster_pid()
        assert pid is not None, f"{self.name} has no PostgreSQL running"
        os.killpg(os.getpgid(pid), signal.SIGKILL)

    def kill(self) -> None:
        """The whole member at once: its Patroni and its PostgreSQL, as when its machine dies."""
        pid = self.postmaster_pid()
        group = os.getpgid(pid) if pid else None
        # Patroni's own group: Patroni and whatever it runs at the moment (pg_basebackup, pg_rewind).
        os.killpg(self.process.pid, signal.SIGKILL)
        if group:
            os.killpg(group, signal.SIGKILL)
        self.process.wait(timeout=10)

    def sql(self, statement: str, timeout: float = 10) -> str:
        """As the superuser over the member's Unix socket (peer authentication, as Patroni connects)."""
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        done = subprocess.run([*prefix, str(pg_bin() / "psql"), "-tAq", "-X", "-h", str(self.directory),
                               "-p", str(self.pg_port), "-U", "postgres", "-d", "postgres", "-c", statement],
                              capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"psql on {self.name}: {done.stderr.strip()}")
        return done.stdout.strip()

    def log_tail(self, lines: int = 30) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


class PatroniCluster:
    def __init__(self, work: Path, size: int = 3):
        self.work = work
        self.etcd_client_port, self.etcd_peer_port = free_port(), free_port()
        self.etcd: subprocess.Popen | None = None
        # Hex: they go into postgres:// URLs as they are. Never printed.
        self.passwords = {name: secrets.token_hex(16)
                          for name in ("superuser", "replication", "rewind", *SERVICE_DATABASES.values())}
        self.members = [Member(self, f"pg{number}") for number in range(size)]

    # -- starting and stopping -------------------------------------------------------------------

    def start(self, timeout: float = 120) -> None:
        self.start_etcd()
        for member in self.members:
            member.start()
        self.wait_healthy(timeout=timeout)

    def start_etcd(self) -> None:
        data = self.work / "etcd"
        client = f"http://127.0.0.1:{self.etcd_client_port}"
        peer = f"http://127.0.0.1:{self.etcd_peer_port}"
        log = open(self.work / "etcd.log", "ab")
        # Its own data directory and loopback ports: never the system's etcd (2379) if one runs.
        self.etcd = subprocess.Popen(
            ["etcd", "--name", "etcd0", "--data-dir", str(data),
             "--listen-client-urls", client, "--advertise-client-urls", client,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", f"etcd0={peer}", "--initial-cluster-state", "new",
             "--initial-cluster-token", f"mfa-test-{secrets.token_hex(4)}"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 30
        while True:
            assert self.etcd.poll() is None, "etcd exited:\n" + (self.work / "etcd.log").read_text()[-3000:]
            try:
                if requests.get(f"{client}/health", timeout=1).json().get("health") == "true":
                    return
            except (requests.RequestException, ValueError):
                pass
            assert time.monotonic() < deadline, "etcd never became healthy"
            time.sleep(0.1)

    def close(self) -> None:
        # Killed, not stopped: the data is thrown away, and a graceful stop of each member waits for
        # the others (a synchronous standby asks its leader to let it go first), 10-20 s for nothing.
        for member in self.members:
            try:
                if member.process and member.process.poll() is None:
                    member.kill()
            except (OSError, subprocess.TimeoutExpired):
                pass
        # And any PostgreSQL left without its Patroni (one a test killed and did not start again).
        for member in self.members:
            try:
                if (pid := member.postmaster_pid()) is not None:
                    os.killpg(os.getpgid(pid), signal.SIGKILL)
            except OSError:
                pass
        if self.etcd and self.etcd.poll() is None:
            self.etcd.terminate()
            try:
                self.etcd.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.etcd.kill()

    # -- what the cluster says -------------------------------------------------------------------

    def cluster_state(self) -> dict | None:
        """Patroni's /cluster from the first member that answers: each member's role and state."""
        for member in self.members:
            if member.process is None or member.process.poll() is not None:
                continue
            try:
                return requests.get(f"{member.api}/cluster", timeout=1).json()
            except (requests.RequestException, ValueError):
                continue
        return None

    def leader(self) -> Member | None:
        state = self.cluster_state() or {"members": []}
        names = [entry["name"] for entry in state["members"]
                 if entry["role"] == "leader" and entry["state"] == "running"]
        return next((member for member in self.members if member.name in names), None)

    def healthy(self) -> str | None:
        """None when one member leads and both others stream from it, one of them synchronously;
        else what is missing."""
        state = self.cluster_state() or {"members": []}
        leader = self.leader()
        if leader is None:
            return "no leader"
        # Patroni's view first: while a replica is still being copied (pg_basebackup), its WAL
        # stream already shows in pg_stat_replication under the member's name.
        roles = {entry["name"]: (entry["role"], entry["state"]) for entry in state["members"]}
        if sorted(roles.values()) != [("leader", "running"), ("replica", "running"), ("sync_standby", "running")]:
            return f"members: {roles}"
        try:
            rows = leader.sql("SELECT application_name || ':' || state || ':' || sync_state FROM pg_stat_replication")
        except (RuntimeError, subprocess.TimeoutExpired) as failure:
            return str(failure)
        streaming = {row.split(":")[0]: row.split(":")[2] for row in rows.splitlines() if ":streaming:" in row}
        others = {member.name for member in self.members if member is not leader}
        if set(streaming) != others:
            return f"streaming from {leader.name}: {sorted(streaming)}"
        if "sync" not in streaming.values():
            return f"no synchronous standby: {streaming}"
        return None

    def wait_healthy(self, timeout: float = 90) -> Member:
        deadline = time.monotonic() + timeout
        while (problem := self.healthy()) is not None:
            if time.monotonic() > deadline:
                raise AssertionError(f"the cluster is not healthy: {problem}\n{self.state_text()}\n" + "\n".join(
                    f"--- {member.name}\n{member.log_tail()}" for member in self.members))
            time.sleep(0.3)
        return self.leader()

    def state_text(self) -> str:
        return json.dumps(self.cluster_state(), indent=1)

    def is_streaming_replica(self, member: Member, leader: Member) -> bool:
        """In recovery, streaming from `leader`, on its timeline."""
        try:
            if member.sql("SELECT pg_is_in_recovery()") != "t":
                return False
            receiver = member.sql("SELECT status || ':' || received_tli || ':' || sender_port FROM pg_stat_wal_receiver")
            # The timeline the leader writes on: the first 8 hex digits of its current WAL file's name.
            timeline = leader.sql("SELECT ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int")
        except (RuntimeError, subprocess.TimeoutExpired):
            return False
        status, received, port = (receiver.split(":") + ["", "", ""])[:3]
        return status == "streaming" and port == str(leader.pg_port) and received == timeline

    # -- what the services are given -----------------------------------------------------------

    def service_url(self, service: str) -> str:
        """Every member, libpq-style, and the kind of server the service needs: the leader."""
        database = SERVICE_DATABASES[service]
        hosts = ",".join(f"127.0.0.1:{member.pg_port}" for member in self.members)
        password = urllib.parse.quote(self.passwords[database])
        return f"postgres://{database}:{password}@{hosts}/{database}?target_session_attrs=read-write"
