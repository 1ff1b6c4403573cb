"""Automatic PostgreSQL failover: the services on a three-member Patroni cluster (deploy/patroni), the
leader lost under load, and nobody promoting anything.

Real programs on loopback (client-tests/patroni_cluster.py): one etcd, three Patroni members each
managing its own PostgreSQL, started from deploy/patroni/patroni.yml (synchronous_mode_strict,
primary_start_timeout 0, use_pg_rewind, ttl 20 s); the post_bootstrap of that file creates the
services' roles and databases. Each data service's `postgres.url` names the three members with
`target_session_attrs=read-write`, as docs/operations.md says to. A few clients run whole flows
(sign-up, email verified by an admin, password sign-in, TOTP enrollment, TOTP sign-in) while:

(a) the leader member dies whole: SIGKILL to its Patroni and its PostgreSQL, as when its machine
    stops. Its leader key in etcd expires ttl seconds after its last renewal; the synchronous standby
    takes the lead. Afterwards the member's Patroni is started again on its old data directory, as
    systemd's Restart= or a rebooted machine would, and must rejoin as a replica of the new leader.
(b) only the leader's PostgreSQL dies (SIGKILL to the postmaster and its backends); its Patroni sees
    it within loop_wait and, with primary_start_timeout 0, hands over instead of restarting it in
    place, then restarts it itself as a replica.
(c) the synchronous standby dies whole: commits wait (strict synchronous mode) until Patroni names the
    other replica; the lead stays where it is.

In (a) and (b): a new leader with no human step; every acknowledged write there afterwards (each
sign-up signs in, each enrolled factor is listed, each TOTP sign-in's refresh token refreshes, the
last TOTP codes used before the crash are refused again); clients see only the API's 503, and only
between the crash and a moment after writes are acknowledged again; the old leader streams from the
new one on its timeline with everything the new one has. The switch time (seconds without an
acknowledged write) and the error count are printed (`pytest -s`); docs/operations.md states the
measured figures.

The cases share one cluster and one stack (in file order, each starting from a healthy cluster
whatever the one before left), which keeps the file under two minutes. MFA_TEST_PATRONI_TIMELINE=1
also prints every call around each crash; MFA_TEST_KEEP_LOGS=1 keeps the members' logs."""

import os
import secrets
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pyotp
import pytest
import requests

from conftest import PROCESSES, ROOT, Stack
from mfa_helpers import ADMIN, V1, V2, enable_project_totp
from patroni_cluster import PatroniCluster, programs_missing

pytestmark = [
    pytest.mark.skipif(PROCESSES == "one", reason="the same code as in four processes; one run is enough"),
    pytest.mark.skipif(bool(programs_missing()), reason="patroni and etcd-server: scripts/test-deps.sh installs them"),
]

CLIENTS = 3
# A client that got an error waits this long before its next flow, as an SDK backs off: the error
# count is then about the switch time times the clients, not however fast a loop can spin.
BACKOFF_SECONDS = 1.0
# From the crash to the first write acknowledged again. (a): the leader key's ttl (20 s) after its
# last renewal, the synchronous standby's promotion, the other replica following it (strict
# synchronous mode acknowledges nothing before), each service finding the new leader (checked every
# second). (b): loop_wait (2 s) to notice, then the same minus the ttl. Room for a 2-core machine
# with a build beside it; docs/operations.md has the measured figures.
SWITCH_BOUND = {"whole member": 40.0, "postgres only": 20.0}
# Calls made up to this long after writes are acknowledged again may still fail: they reach a
# service that has not yet moved to the new leader (each data service finds it on its own).
SETTLE_SECONDS = 3.0


@pytest.fixture(scope="module")
def patroni():
    keep = bool(os.environ.get("MFA_TEST_KEEP_LOGS"))
    work = Path(tempfile.mkdtemp(prefix="mfa-py-patroni-"))
    os.chmod(work, 0o755)  # the members run as the postgres user when the tests run as root
    if keep:
        print(f"Patroni, etcd and service logs in {work}")
    cluster = PatroniCluster(work)
    services = None
    try:
        cluster.start()
        (work / "stack").mkdir()
        bin_dir = Path(os.environ.get("MFA_TEST_BIN_DIR", ROOT / ".build" / "debug"))
        # The stack's own throwaway databases go to the shared test server (Stack makes and drops
        # them); the services are pointed at the Patroni cluster's databases instead.
        shared = os.environ.get("MFA_TEST_POSTGRES_URL", "postgres://mfa:mfa@127.0.0.1:54329")
        services = Stack(work / "stack", bin_dir, shared, start=False)
        for service in services.databases:
            services.environments[service]["POSTGRES_URL"] = cluster.service_url(service)
        for process in services.environments:
            services.start(process)
        services.wait_ready()
        enable_project_totp(services)
        yield cluster, services
    finally:
        if services is not None:
            services.close()
        cluster.close()
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


class Abandoned(Exception):
    """A step of a flow failed: the flow stops there, its client backs off and starts another."""


class Load:
    """CLIENTS threads, each running whole flows one after another, every answer timed."""

    def __init__(self, services, label):
        self.services = services
        self.label = label
        self.lock = threading.Lock()
        self.acknowledged = []  # (time, step, record): every write the API said was done
        self.failures = []  # (answered, step, status, text, sent); status 0: no answer
        self.durations = []  # (sent, answered, step, status) of every call
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.client, args=(number,), daemon=True) for number in range(CLIENTS)]

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def call(self, step, url, body, headers=None, record=None):
        started = time.monotonic()
        try:
            answer = requests.post(self.services.gateway + url, json=body, headers=headers or {}, timeout=30)
        except requests.RequestException as failure:
            self.fail(started, step, 0, type(failure).__name__)
        if answer.status_code != 200:
            self.fail(started, step, answer.status_code, answer.text[:200])
        payload = answer.json()
        with self.lock:
            self.acknowledged.append((time.monotonic(), step, dict(record or {}, **self.keep(step, payload))))
            self.durations.append((started, time.monotonic(), step, 200))
        return payload

    @staticmethod
    def keep(step, payload):
        if step == "totp sign-in":
            return {"refreshToken": payload["refreshToken"]}
        return {}

    def fail(self, started, step, status, text):
        with self.lock:
            self.failures.append((time.monotonic(), step, status, text, started))
            self.durations.append((started, time.monotonic(), step, status))
        raise Abandoned()

    def client(self, number):
        flows = 0
        while not self.stop.is_set():
            flows += 1
            try:
                self.flow(f"{self.label}-{number}-{flows}-{secrets.token_hex(3)}@example.com")
            except Abandoned:
                self.stop.wait(BACKOFF_SECONDS)

    def flow(self, email):
        password = "secret-pw"
        user = {"email": email, "password": password}
        signed_up = self.call("sign-up", f"{V1}signUp?key=k", user, record=user)
        self.call("email verified", "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update",
                  {"localId": signed_up["localId"], "emailVerified": True}, headers=ADMIN, record=user)
        signed_in = self.call("password sign-in", f"{V1}signInWithPassword?key=k", user, record=user)
        started = self.call("enrollment start", f"{V2}mfaEnrollment:start?key=k",
                            {"idToken": signed_in["idToken"], "totpEnrollmentInfo": {}}, record=user)
        totp = pyotp.TOTP(started["totpSessionInfo"]["sharedSecretKey"])
        self.call("enrollment", f"{V2}mfaEnrollment:finalize?key=k", {
            "idToken": signed_in["idToken"], "displayName": "app",
            "totpVerificationInfo": {"sessionInfo": started["totpSessionInfo"]["sessionInfo"],
                                     "verificationCode": totp.now()}}, record=user)
        pending = self.call("password sign-in", f"{V1}signInWithPassword?key=k", user, record=user)
        # The next step's code: the current one was spent on the enrollment (adjacent steps count).
        code = totp.at(time.time() + 30)
        self.call("totp sign-in", f"{V2}mfaSignIn:finalize?key=k", {
            "mfaPendingCredential": pending["mfaPendingCredential"],
            "mfaEnrollmentId": pending["mfaInfo"][0]["mfaEnrollmentId"],
            "totpVerificationInfo": {"verificationCode": code}},
            record=dict(user, code=code, enrollment=pending["mfaInfo"][0]["mfaEnrollmentId"]))

    def acknowledged_since(self, moment):
        with self.lock:
            return [entry for entry in self.acknowledged if entry[0] > moment]


def wait_for(condition, timeout, what, interval=0.2):
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        assert time.monotonic() < deadline, what()
        time.sleep(interval)
    return result


def logs(cluster, services):
    return "\n".join([f"--- {member.name}\n{member.log_tail(15)}" for member in cluster.members]
                     + [f"--- {service}\n{services.log_tail(service, 8)}" for service in services.databases])


def print_timeline(load, crashed, until):
    """MFA_TEST_PATRONI_TIMELINE=1: every call around the crash, sent and answered (seconds from it)."""
    if os.environ.get("MFA_TEST_PATRONI_TIMELINE"):
        for sent, answered, step, status in sorted(load.durations):
            if crashed - 2 <= answered and sent <= until + 4:
                print(f"  {sent - crashed:+6.1f} .. {answered - crashed:+6.1f}  {status}  {step}")


def fail_over(cluster, services, case, crash, restart=None):
    """Load, the crash, the switch measured, the old leader back as a replica, everything checked.
    `restart`, if any, brings the crashed member's Patroni back once another member leads."""
    old = cluster.wait_healthy(timeout=120)
    with Load(services, case.split()[0]) as load:
        wait_for(lambda: len(load.acknowledged_since(time.monotonic() - 1)) >= 5, 30,
                 lambda: f"no load before the crash: {load.failures[-3:]}")
        time.sleep(2.0)
        log_before = old.log_path.stat().st_size
        crashed = time.monotonic()
        crash(old)
        new = wait_for(lambda: (leader := cluster.leader()) not in (None, old) and leader, SWITCH_BOUND[case] + 30,
                       lambda: f"no new leader\n{cluster.state_text()}\n{logs(cluster, services)}")
        elected = time.monotonic()
        if restart:
            restart(old)
        # Writes acknowledged just after the crash are commits made before it whose answers were
        # still on their way; nothing commits with no leader, so the switch ends after the election.
        wait_for(lambda: load.acknowledged_since(elected), SWITCH_BOUND[case] + 30,
                 lambda: f"no write acknowledged after the election: {load.failures[-3:]}\n{logs(cluster, services)}")
        time.sleep(SETTLE_SECONDS + 2.0)  # steady again: flows succeed on the new leader
    # The switch: the longest time without an acknowledged write around the crash (the load
    # acknowledges several writes a second otherwise).
    times = sorted(at for at, _, _ in load.acknowledged if at >= crashed - 5)
    without, stopped, first_after = max((later - earlier, earlier, later) for earlier, later in zip(times, times[1:]))
    print_timeline(load, crashed, first_after)
    failures = load.failures
    statuses = sorted({status for _, _, status, _, _ in failures})
    last_failure = max((at for at, *_ in failures), default=crashed)
    print(f"\n{case}: {old.name} lost, {new.name} elected {elected - crashed:.1f} s after the crash; "
          f"writes acknowledged again {first_after - crashed:.1f} s after it ({without:.1f} s without one, "
          f"the last before {stopped - crashed:+.1f} s from the crash); {len(failures)} failed calls "
          f"(statuses {statuses}, the last {last_failure - first_after:+.1f} s from writes acknowledged again); "
          f"{len(load.acknowledged)} writes acknowledged, {sum(1 for _, step, _ in load.acknowledged if step == 'totp sign-in')} TOTP sign-ins")

    # No human step, and writes back within the bound, after the election.
    # (The election is seen by polling Patroni's API, up to a few tenths of a second late.)
    assert first_after >= elected - 1.0, "the longest pause in writes ended before the election"
    assert first_after - crashed <= SWITCH_BOUND[case], f"{first_after - crashed:.1f} s without a write"
    # Clients saw the API's 503 and nothing else, and only around the switch.
    assert all(status == 503 for _, _, status, _, _ in failures), [f[1:4] for f in failures if f[2] != 503][:3]
    # A failed call was made during the switch: a call waiting for the database answers once its
    # service moves, or at its deadline (rpc.timeoutMs, 10 s) at the latest.
    assert all(at >= crashed and sent <= first_after + SETTLE_SECONDS for at, _, _, _, sent in failures), (
        f"calls failed that were made after the switch: "
        f"{[(round(sent - crashed, 1), round(at - crashed, 1), step) for at, step, _, _, sent in failures][-5:]}")

    # The codes used just before the crash are still refused: the record of their use was acknowledged
    # with the sign-in, so it is on the new leader (checked first: the codes are still in their window).
    recent = [record for at, step, record in load.acknowledged if step == "totp sign-in" and at <= crashed][-2:]
    assert recent, "no TOTP sign-in before the crash"
    for record in recent:
        pending = requests.post(f"{services.gateway}{V1}signInWithPassword?key=k", timeout=30,
                                json={"email": record["email"], "password": record["password"]}).json()
        replayed = requests.post(f"{services.gateway}{V2}mfaSignIn:finalize?key=k", timeout=30, json={
            "mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": record["enrollment"],
            "totpVerificationInfo": {"verificationCode": record["code"]}})
        assert replayed.status_code == 400 and replayed.json()["error"]["message"].startswith("INVALID_CODE"), replayed.text

    # The old leader rejoins as a replica of the new one, with no human step but its Patroni running.
    rejoined = wait_for(lambda: cluster.is_streaming_replica(old, new), 90,
                        lambda: f"{old.name} never streamed from {new.name}\n{cluster.state_text()}\n{old.log_tail(40)}")
    assert rejoined
    cluster.wait_healthy(timeout=60)
    assert cluster.leader() is new, "the lead moved again"
    position = new.sql("SELECT pg_current_wal_lsn()")
    wait_for(lambda: old.sql(f"SELECT pg_last_wal_replay_lsn() >= '{position}'::pg_lsn") == "t", 30,
             lambda: f"{old.name} never replayed up to {position}")
    with open(old.log_path, "rb") as log:
        log.seek(log_before)
        rewound = b"running pg_rewind" in log.read()
    print(f"{case}: {old.name} streams from {new.name} on its timeline"
          + (" after pg_rewind" if rewound else " (nothing to rewind)"))

    # Every acknowledged write is there.
    users = {record["email"]: record for _, step, record in load.acknowledged if step == "sign-up"}
    enrolled = {record["email"] for _, step, record in load.acknowledged if step == "enrollment"}
    for email, user in users.items():
        answer = requests.post(f"{services.gateway}{V1}signInWithPassword?key=k", timeout=30,
                               json={"email": email, "password": user["password"]})
        assert answer.status_code == 200, (email, answer.text)
        if email in enrolled:
            assert [factor["mfaEnrollmentId"] for factor in answer.json()["mfaInfo"]], (email, answer.text)
    for _, step, record in load.acknowledged:
        if step == "totp sign-in":
            refreshed = requests.post(f"{services.gateway}/securetoken.googleapis.com/v1/token?key=k", timeout=30,
                                      data={"grant_type": "refresh_token", "refresh_token": record["refreshToken"]})
            assert refreshed.status_code == 200, refreshed.text
    # Each data service followed the lead by itself.
    for service in services.databases:
        assert "database server changed" in services.log_path(service).read_text(errors="replace"), service


def test_the_leader_member_dies_whole_and_the_synchronous_standby_takes_over(patroni):
    cluster, services = patroni

    # Its Patroni back on the same data directory once another member leads, as a rebooted machine's
    # would be: it must follow the new leader, rewinding whatever it wrote alone. (Back within the
    # ttl, it would find the leader key still its own and simply carry on as the leader.)
    fail_over(cluster, services, "whole member", lambda leader: leader.kill(), restart=lambda member: member.start())


def test_the_leaders_postgres_dies_and_patroni_hands_over_instead_of_restarting_it(patroni):
    cluster, services = patroni
    fail_over(cluster, services, "postgres only", lambda leader: leader.kill_postgres())


def test_without_its_synchronous_standby_the_leader_waits_until_patroni_names_the_other_replica(patroni):
    """Strict synchronous mode's cost when the synchronous standby's machine dies: commits wait (none
    is acknowledged by the leader alone) until Patroni names the other replica, within loop_wait of
    PostgreSQL seeing the standby gone (at once here, where the kernel closes the connection; within
    wal_sender_timeout, 10 s, when a machine vanishes without a word)."""
    cluster, services = patroni
    leader = cluster.wait_healthy(timeout=120)
    standby = next(member for member in cluster.members if member is not leader
                   and leader.sql(f"SELECT sync_state FROM pg_stat_replication WHERE application_name = '{member.name}'") == "sync")
    with Load(services, "standby") as load:
        wait_for(lambda: len(load.acknowledged_since(time.monotonic() - 1)) >= 5, 30,
                 lambda: f"no load before the crash: {load.failures[-3:]}")
        time.sleep(2.0)
        crashed = time.monotonic()
        standby.kill()
        wait_for(lambda: load.acknowledged_since(crashed + 2.0), 40,
                 lambda: f"no write acknowledged without the standby: {load.failures[-3:]}\n{logs(cluster, services)}")
        time.sleep(3.0)
    times = sorted(at for at, _, _ in load.acknowledged)
    around = [at for at in times if at >= crashed - 5]
    longest = max(later - earlier for earlier, later in zip(around, around[1:]))
    slowest = max(answered - sent for sent, answered, _, _ in load.durations if sent <= crashed + 5 and answered >= crashed)
    print_timeline(load, crashed, crashed + longest)
    print(f"\nsynchronous standby lost: {standby.name}; the longest time without an acknowledged write "
          f"{longest:.1f} s, the slowest call across the loss {slowest:.1f} s; {len(load.failures)} failed calls; "
          f"{cluster.leader().name} still leads")
    assert cluster.leader() is leader, "a lost standby must not move the lead"
    assert longest <= 15.0, f"{longest:.1f} s without a write"
    assert all(status == 503 for _, _, status, _, _ in load.failures), [f[1:4] for f in load.failures][:3]
    # Back, it streams again and the cluster has its two replicas.
    standby.start()
    cluster.wait_healthy(timeout=90)
