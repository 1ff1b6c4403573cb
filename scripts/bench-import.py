#!/usr/bin/env python3
"""Import rate of accounts:batchCreate (issue 41, item 7), against a running development stack on
loopback (scripts/stack.sh up): USERS users in batches of BATCH, with hashes in ALGORITHM's shape
(random bytes of the right length: an import does not check a hash against a password, so the
cost measured is the server's, whatever the passwords were). Prints users/s and the per-call
latencies. Run `mfa-bench accounts --scenario signin` beside it to see what sign-ins pay meanwhile.

    scripts/bench-import.py [--gateway http://127.0.0.1:8080] [--users 100000] [--batch 1000] [--algorithm SCRYPT]

SCRYPT (Firebase's) and STANDARD_SCRYPT cost no hashing at import; MD5, SHA*, HMAC_* cost one scrypt
per user at the project's parameters (they are kept only under scrypt); BCRYPT and PBKDF* none.
Loopback only.
"""

import argparse
import base64
import secrets
import statistics
import time
import urllib.parse

import requests

PARAMETERS = {
    "SCRYPT": ({"signerKey": base64.b64encode(secrets.token_bytes(64)).decode(), "saltSeparator": "Bw==", "rounds": 8,
                "memoryCost": 14}, 64),
    "STANDARD_SCRYPT": ({"cpuMemCost": 16384, "blockSize": 8, "parallelization": 1, "dkLen": 32}, 32),
    "MD5": ({"rounds": 0}, None),
    "HMAC_SHA256": ({"signerKey": base64.b64encode(secrets.token_bytes(32)).decode()}, 32),
    "PBKDF2_SHA256": ({"rounds": 10000}, 32),
}


def user(run, index, algorithm, length):
    digest = secrets.token_hex(16).encode() if algorithm == "MD5" else secrets.token_bytes(length)
    return {"localId": f"bench-{run}-{index}", "email": f"bench-{run}-{index}@example.com",
            "passwordHash": base64.urlsafe_b64encode(digest).decode(),
            "salt": base64.urlsafe_b64encode(secrets.token_bytes(12)).decode()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gateway", default="http://127.0.0.1:8080")
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--algorithm", default="SCRYPT", choices=sorted(PARAMETERS))
    parser.add_argument("--token", default="owner", help="the admin credential (development: owner)")
    arguments = parser.parse_args()
    host = urllib.parse.urlsplit(arguments.gateway).hostname
    if not (host == "localhost" or host == "::1" or host.startswith("127.")):
        parser.error("loopback only")
    members, length = PARAMETERS[arguments.algorithm]
    run = secrets.token_hex(4)
    url = f"{arguments.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:batchCreate"
    session = requests.Session()
    latencies, refused = [], 0
    started = time.monotonic()
    for first in range(0, arguments.users, arguments.batch):
        users = [user(run, index, arguments.algorithm, length)
                 for index in range(first, min(first + arguments.batch, arguments.users))]
        sent = time.monotonic()
        answer = session.post(url, headers={"Authorization": f"Bearer {arguments.token}"}, timeout=600,
                              json={"hashAlgorithm": arguments.algorithm, **members, "users": users})
        latencies.append(time.monotonic() - sent)
        answer.raise_for_status()
        refused += len(answer.json().get("error", []))
    elapsed = time.monotonic() - started
    latencies.sort()
    print(f"{arguments.algorithm}: {arguments.users} users in {elapsed:.1f} s = {arguments.users / elapsed:.0f} users/s "
          f"({refused} refused); per call of {arguments.batch}: p50 {statistics.median(latencies):.2f} s, "
          f"max {latencies[-1]:.2f} s")


if __name__ == "__main__":
    main()
