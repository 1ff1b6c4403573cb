"""Finding 12: an outage is always a 503. When PostgreSQL ends the services' connections under load
(what a restart or a failover does: 57P01 "terminating connection due to administrator command"),
requests whose statement was in flight used to answer 500 INTERNAL_ERROR; now they answer 503, and
the services carry on once new connections are made."""

import secrets
import threading
import time

import requests

from conftest import another_stack, psql

V1 = "/identitytoolkit.googleapis.com/v1/accounts:"


def test_connections_ended_by_the_server_under_load_are_503s_never_500s(stack):
    with another_stack(stack, "pg-restarts") as running:
        databases = ", ".join(f"'{name}'" for name in running.databases.values())
        # The services' own connections (not an autovacuum worker's, which only a superuser may end).
        end_connections = ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           f"WHERE datname IN ({databases}) AND usename = current_user AND pid <> pg_backend_pid()")
        statuses, stop = [], threading.Event()

        # The accounts exist before the first connection is ended.
        emails = [f"restart-{secrets.token_hex(5)}@example.com" for _ in range(4)]
        for email in emails:
            created = requests.post(f"{running.gateway}{V1}signUp?key=k", json={"email": email, "password": "secret-pw"},
                                    timeout=30)
            assert created.status_code == 200, created.text

        def load(email):
            while not stop.is_set():
                for operation, body in (("signInWithPassword", {"email": email, "password": "secret-pw"}),
                                        ("signUp", {})):
                    try:
                        answer = requests.post(f"{running.gateway}{V1}{operation}?key=k", json=body, timeout=30)
                        statuses.append((answer.status_code, answer.text[:200]))
                    except requests.RequestException as failure:
                        statuses.append((0, str(failure)))

        workers = [threading.Thread(target=load, args=(email,)) for email in emails]
        for worker in workers:
            worker.start()
        for _ in range(25):
            psql(running.postgres, end_connections)
            time.sleep(0.15)
        stop.set()
        for worker in workers:
            worker.join(timeout=60)
        codes = [code for code, _ in statuses]
        assert all(code in (200, 503) for code in codes), [entry for entry in statuses if entry[0] not in (200, 503)][:5]
        assert codes.count(200) > 0
        # Afterwards everything works again.
        time.sleep(1)
        assert requests.post(f"{running.gateway}{V1}signUp?key=k", json={}, timeout=30).status_code == 200
