#!/usr/bin/env python3
"""Provider sign-in beside password sign-in, side by side in one run (issue 42): a development stack of
the built binaries (MFA_TEST_BIN_DIR, default .build/release) on a private PostgreSQL
(MFA_TEST_POSTGRES_URL), an OpenID Connect provider on loopback (client-tests/oidc_provider.py), and
`--requests` sign-ins of each kind from `--concurrency` threads: signInWithIdp with a fresh ID token
each (no nonce), and signInWithPassword. Prints requests/s, p50 and p99 per kind, and how many times
factor-registry fetched the provider's discovery document and key set (cached: once each).

    .venv-test/bin/python scripts/bench-idp.py --requests 400 --concurrency 8
"""

import argparse
import concurrent.futures
import os
import pathlib
import statistics
import sys
import tempfile
import time
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "client-tests"))

import requests  # noqa: E402

import conftest  # noqa: E402
import oidc_provider  # noqa: E402


def timed(call, count, concurrency):
    latencies = []

    def one(index):
        started = time.perf_counter()
        answer = call(index)
        assert answer.status_code == 200, answer.text
        return time.perf_counter() - started

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        latencies = list(pool.map(one, range(count)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    return count / elapsed, statistics.median(latencies) * 1000, latencies[int(len(latencies) * 0.99) - 1] * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8)
    arguments = parser.parse_args()
    bin_dir = pathlib.Path(os.environ.get("MFA_TEST_BIN_DIR", ROOT / ".build" / "release"))
    postgres = os.environ.get("MFA_TEST_POSTGRES_URL", "postgres://mfa:mfa@127.0.0.1:54329")
    fetches = {"/.well-known/openid-configuration": 0, "/jwks": 0}
    with oidc_provider.running() as provider, tempfile.TemporaryDirectory(prefix="mfa-bench-idp-") as work:

        @provider.app.before_request
        def count():
            import flask

            if flask.request.path in fetches:
                fetches[flask.request.path] += 1

        stack = conftest.Stack(pathlib.Path(work), bin_dir, postgres, extra_env={
            "IDENTITY_PROVIDERS_TRUST_ROOTS": str(provider.ca)})
        try:
            admin = {"Authorization": "Bearer owner"}
            answer = requests.post(f"{stack.gateway}/v2/projects/demo-project/oauthIdpConfigs?oauthIdpConfigId=oidc.bench",
                                   json={"clientId": "bench", "issuer": provider.issuer, "enabled": True}, headers=admin,
                                   timeout=30)
            assert answer.status_code == 200, answer.text
            provider.set_user("bench-user", email="bench@example.com", email_verified=True)
            tokens = [provider.id_token("bench", "bench-user") for _ in range(arguments.requests)]
            requests.post(f"{stack.gateway}/v1/accounts:signUp?key=k", timeout=30,
                          json={"email": "bench-password@example.com", "password": "bench-password"})
            with requests.Session() as session:
                def provider_sign_in(index):
                    body = urllib.parse.urlencode({"id_token": tokens[index], "providerId": "oidc.bench"})
                    return session.post(f"{stack.gateway}/v1/accounts:signInWithIdp?key=k", timeout=60, json={
                        "requestUri": "http://localhost", "postBody": body, "returnSecureToken": True})

                def password_sign_in(_):
                    return session.post(f"{stack.gateway}/v1/accounts:signInWithPassword?key=k", timeout=60, json={
                        "email": "bench-password@example.com", "password": "bench-password", "returnSecureToken": True})

                provider_sign_in(0)  # the first one fetches the provider's documents
                for name, call in (("signInWithIdp", provider_sign_in), ("signInWithPassword", password_sign_in)):
                    rate, p50, p99 = timed(call, arguments.requests, arguments.concurrency)
                    print(f"{name:20} {rate:8.1f}/s  p50 {p50:7.1f} ms  p99 {p99:7.1f} ms")
            print(f"provider fetches: discovery {fetches['/.well-known/openid-configuration']}, key set {fetches['/jwks']}")
        finally:
            stack.close()


if __name__ == "__main__":
    main()
