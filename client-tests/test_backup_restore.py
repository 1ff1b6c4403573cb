"""Backup and restore as docs/operations.md describes it: `pg_dump` of the three databases plus the
key material (the certificates directory: the CA, each service's certificate and key, and the two
master keys that seal TOTP secrets and signing keys), then a disaster (the services stopped, the
databases dropped), then a restore into new databases and a stack started on them. Nothing a user
relies on may be lost: the account, its TOTP factor (its sealed secret opens with the restored
master key), the signing key (same `kid`, tokens issued before the backup still verify) and the
refresh token issued before the backup."""

import os
import shutil
import subprocess
import tempfile
import time
import urllib.parse
from pathlib import Path

import jwt
import requests

from conftest import Stack
from mfa_helpers import enable_project_totp, enroll_totp, v1, v2, verified_user


def pg(tool, postgres, *arguments):
    parts = urllib.parse.urlsplit(postgres)
    env = dict(os.environ, PGPASSWORD=urllib.parse.unquote(parts.password or ""))
    return subprocess.run([tool, "-h", parts.hostname, "-p", str(parts.port or 5432),
                           "-U", urllib.parse.unquote(parts.username), *arguments],
                          check=True, env=env, capture_output=True, text=True, timeout=120)


def key_set(stack):
    return {key["kid"]: key for key in requests.get(f"{stack.gateway}/.well-known/jwks.json", timeout=30).json()["keys"]}


def test_a_restored_deployment_keeps_accounts_factors_signing_keys_and_sessions(stack):
    with tempfile.TemporaryDirectory(prefix="mfa-py-backup-") as work:
        work = Path(work)
        (work / "before").mkdir()
        (work / "after").mkdir()
        before = Stack(work / "before", stack.bin_dir, stack.postgres)
        try:
            enable_project_totp(before)
            user = verified_user(before)
            totp, enrolled = enroll_totp(before, user)
            old_token, old_refresh = enrolled["idToken"], enrolled["refreshToken"]
            kid = jwt.get_unverified_header(old_token)["kid"]
            assert kid in key_set(before)

            # The backup: each database (custom format, no owner: it restores under any role) and the keys.
            for service, database in before.databases.items():
                pg("pg_dump", stack.postgres, "-Fc", "--no-owner", "-f", str(work / f"{service}.dump"), database)
            shutil.copytree(before.certs, work / "keys")
        finally:
            before.close()  # the disaster: services stopped, databases dropped

        after = Stack(work / "after", stack.bin_dir, stack.postgres, start=False)
        try:
            for service, database in after.databases.items():
                pg("pg_restore", stack.postgres, "--no-owner", "-d", database, str(work / f"{service}.dump"))
            for key in (work / "keys").iterdir():
                shutil.copy2(key, after.certs / key.name)
            for process in after.environments:
                after.start(process)
            after.wait_ready()

            # The same signing key, so the token issued before the backup still verifies.
            keys = key_set(after)
            assert kid in keys
            public = jwt.algorithms.RSAAlgorithm.from_jwk(keys[kid])
            assert jwt.decode(old_token, public, algorithms=["RS256"], audience="demo-project",
                              options={"verify_exp": False})["user_id"] == user["localId"]
            # The refresh token of before still works (stored as a hash, restored with the rest).
            refreshed = requests.post(f"{after.gateway}/securetoken.googleapis.com/v1/token?key=k", timeout=30,
                                      data={"grant_type": "refresh_token", "refresh_token": old_refresh})
            assert refreshed.status_code == 200, refreshed.text
            # The TOTP factor: its secret, sealed at rest, opens with the restored master key.
            pending = v1(after, "signInWithPassword", email=user["email"], password=user["password"]).json()
            assert [factor["totpInfo"] for factor in pending["mfaInfo"]] == [{}]
            signed_in = v2(after, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                           mfaEnrollmentId=pending["mfaInfo"][0]["mfaEnrollmentId"],
                           totpVerificationInfo={"verificationCode": totp.at(time.time() + 30)})
            assert signed_in.status_code == 200, signed_in.text
        finally:
            after.close()


def test_a_restore_without_the_master_keys_refuses_to_start_instead_of_losing_secrets(stack):
    """Databases restored but the keys not: the services that seal secrets refuse to start (a wrong
    master key cannot open the stored signing keys), rather than minting new keys over the old."""
    with tempfile.TemporaryDirectory(prefix="mfa-py-nokeys-") as work:
        work = Path(work)
        (work / "before").mkdir()
        (work / "after").mkdir()
        before = Stack(work / "before", stack.bin_dir, stack.postgres)
        try:
            verified_user(before)
            pg("pg_dump", stack.postgres, "-Fc", "--no-owner", "-f", str(work / "session-token.dump"),
               before.databases["session-token"])
        finally:
            before.close()
        after = Stack(work / "after", stack.bin_dir, stack.postgres, start=False)
        try:
            pg("pg_restore", stack.postgres, "--no-owner", "-d", after.databases["session-token"], str(work / "session-token.dump"))
            after.start("session-token")
            process = after.processes[after.process_of("session-token")]
            process.wait(timeout=60)
            assert process.returncode == 1
            assert "master key" in after.log_tail("session-token", lines=50).lower()
        finally:
            after.close()
