"""`mfa-admin`, the operator's command line, against the running stack: tenants, MFA settings,
users and their factors, an operator's withdrawal of a factor, signing keys, the audit trail, and
a TOTP enrollment whose QR code is read back out of the terminal text by zbar."""

import json
import os
import signal
import subprocess
import urllib.parse

import pyotp
import pytest
import requests

from browser import decode_qr
from conftest import another_stack
from mfa_helpers import ADMIN, enroll_totp, verified_user



@pytest.fixture(scope="module")
def stack(stack):
    """A stack of its own: these tests change the project's MFA settings and rotate its keys."""
    with another_stack(stack, "cli") as running:
        yield running


HALF_BLOCKS = {"█": (False, False), "▀": (False, True), "▄": (True, False), " ": (True, True)}


def mfa_admin(stack, *arguments, env=None, input=None, check=True):
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "MFA_GATEWAY_URL": stack.gateway,
                   "MFA_ADMIN_TOKEN": "owner", "MFA_SESSION_TOKEN_OPS_URL": stack.ops("session-token"), **(env or {})}
    done = subprocess.run([str(stack.bin_dir / "mfa-admin"), *arguments], env=environment, input=input,
                          capture_output=True, text=True, timeout=60)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def as_json(stack, *arguments):
    return json.loads(mfa_admin(stack, *arguments, "--json").stdout)


def test_tenants_are_created_listed_shown_and_deleted(stack):
    tenant = mfa_admin(stack, "tenants", "create", "--display-name", "Cli-Acme", "--allow-password-signup",
                       "--enable-mfa").stdout.strip()
    assert tenant
    listed = mfa_admin(stack, "tenants", "list").stdout
    assert listed.splitlines()[0].split() == ["TENANT", "DISPLAY", "NAME", "PASSWORD", "SIGN-IN", "MFA"]
    assert any(line.split()[:4] == [tenant, "Cli-Acme", "true", "ENABLED"] for line in listed.splitlines())
    shown = as_json(stack, "tenants", "show", tenant)
    assert shown["displayName"] == "Cli-Acme" and shown["mfaConfig"]["state"] == "ENABLED"

    assert mfa_admin(stack, "tenants", "delete", tenant).stdout.strip() == f"deleted {tenant}"
    gone = mfa_admin(stack, "tenants", "show", tenant, check=False)
    assert gone.returncode == 1 and "TENANT_NOT_FOUND" in gone.stderr


def test_mfa_settings_change_only_what_is_named(stack):
    tenant = mfa_admin(stack, "tenants", "create", "--display-name", "Cli-Mfa").stdout.strip()
    assert "state               DISABLED" in mfa_admin(stack, "mfa", "show", "--tenant", tenant).stdout
    mfa_admin(stack, "mfa", "set", "--tenant", tenant, "--state", "ENABLED", "--sms", "--totp", "--adjacent-intervals", "2")
    mfa_admin(stack, "mfa", "set", "--tenant", tenant, "--no-sms")
    shown = as_json(stack, "mfa", "show", "--tenant", tenant)
    assert shown["state"] == "ENABLED" and shown.get("enabledProviders", []) == []
    assert shown["providerConfigs"] == [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 2}}]
    text = mfa_admin(stack, "mfa", "show", "--tenant", tenant).stdout
    assert "sms                 off" in text and "totp                enabled" in text

    refused = mfa_admin(stack, "mfa", "set", "--tenant", tenant, "--state", "SOMETIMES", check=False)
    assert refused.returncode != 0 and "--state must be ENABLED, DISABLED or MANDATORY" in refused.stderr
    assert mfa_admin(stack, "mfa", "set", "--tenant", tenant, check=False).returncode != 0


def test_an_operator_finds_a_user_and_withdraws_a_factor_which_ends_its_sessions(stack):
    mfa_admin(stack, "mfa", "set", "--state", "ENABLED", "--totp", "--sms")
    user = verified_user(stack)
    _, enrolled = enroll_totp(stack, user, display_name="phone app")

    found = mfa_admin(stack, "users", "lookup", "--email", user["email"]).stdout
    assert f"uid             {user['localId']}" in found and "email verified  true" in found
    factors = as_json(stack, "factors", "list", user["localId"])
    assert [factor["displayName"] for factor in factors] == ["phone app"] and "totpInfo" in factors[0]
    assert any(line.startswith(user["localId"]) and line.split()[-3:] == ["1", "0", "false"]
               for line in mfa_admin(stack, "users", "list", "--limit", "1000").stdout.splitlines())

    withdrawn = mfa_admin(stack, "factors", "withdraw", user["localId"], factors[0]["mfaEnrollmentId"]).stdout
    assert withdrawn.splitlines() == [f"withdrew {factors[0]['mfaEnrollmentId']}", "no second factors"]
    assert as_json(stack, "factors", "list", user["localId"]) == []
    # The session the factor established ends with it, as with the user's own withdrawal.
    refreshed = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k", timeout=30,
                              data={"grant_type": "refresh_token", "refresh_token": enrolled["refreshToken"]})
    assert refreshed.status_code == 400 and refreshed.json()["error"]["message"] == "TOKEN_EXPIRED"
    # The audit trail names the operator (the first 12 hex digits of the credential's SHA-256).
    events = as_json(stack, "audit", "list", "--user", user["localId"], "--type", "factor.withdrawn")["events"]
    assert len(events) == 1 and events[0]["actor"].startswith("admin:")
    again = mfa_admin(stack, "factors", "withdraw", user["localId"], factors[0]["mfaEnrollmentId"], check=False)
    assert again.returncode == 1 and "MFA_ENROLLMENT_NOT_FOUND" in again.stderr


def test_the_factor_withdrawal_needs_the_admin_credential(stack):
    user = verified_user(stack)
    path = "/identitytoolkit.googleapis.com/v2/projects/demo-project/accounts:withdrawMfaEnrollment"
    as_app = requests.post(f"{stack.gateway}{path}?key=k", json={"localId": user["localId"], "mfaEnrollmentId": "x"},
                           timeout=30)
    assert as_app.status_code == 400 and as_app.json()["error"]["message"].startswith("INSUFFICIENT_PERMISSION")
    unknown = requests.post(f"{stack.gateway}{path}", headers=ADMIN, json={"localId": user["localId"], "mfaEnrollmentId": "x"},
                            timeout=30)
    assert unknown.status_code == 400 and unknown.json()["error"]["message"] == "MFA_ENROLLMENT_NOT_FOUND"
    missing = requests.post(f"{stack.gateway}{path}", headers=ADMIN, json={"mfaEnrollmentId": "x"}, timeout=30)
    assert missing.status_code == 400 and missing.json()["error"]["message"] == "MISSING_LOCAL_ID"


def test_signing_keys_are_listed_and_rotated(stack):
    before = as_json(stack, "keys", "list")
    rotated = mfa_admin(stack, "keys", "rotate").stdout
    assert rotated.startswith("added ")
    after = as_json(stack, "keys", "list")
    assert len(after) == len(before) + 1
    assert sum(key["signing"] for key in after) == 1


def test_the_audit_tail_prints_new_events_as_they_happen(stack):
    user = verified_user(stack)
    environment = {"PATH": os.environ.get("PATH", ""), "MFA_GATEWAY_URL": stack.gateway, "MFA_ADMIN_TOKEN": "owner"}
    tail = subprocess.Popen([str(stack.bin_dir / "mfa-admin"), "audit", "tail", "--user", user["localId"], "--interval", "0.3"],
                            env=environment, stdout=subprocess.PIPE, text=True)
    try:
        first = tail.stdout.readline()
        assert " signIn.succeeded " in first and f"user={user['localId']}" in first
        requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k", timeout=30,
                      json={"email": user["email"], "password": "wrong password"})
        later = tail.stdout.readline()
        assert " signIn.failed " in later and f"user={user['localId']}" in later
    finally:
        tail.terminate()
        tail.wait(timeout=10)


def terminal_qr_to_pbm(text: str) -> bytes:
    """The half-block drawing back into pixels (dark = 1), 4 pixels a module, as a PBM image."""
    rows = []
    for line in text.splitlines():
        if not line or any(char not in HALF_BLOCKS for char in line):
            continue
        upper = [HALF_BLOCKS[char][0] for char in line]
        lower = [HALF_BLOCKS[char][1] for char in line]
        rows += [upper, lower]
    scale = 4
    width = len(rows[0]) * scale
    body = "\n".join(" ".join("1" if dark else "0" for dark in row for _ in range(scale)) for row in rows for _ in range(scale))
    return f"P1\n{width} {len(rows) * scale}\n{body}\n".encode()


def test_demo_enroll_totp_draws_a_qr_code_that_scans_in_the_terminal(stack, tmp_path):
    mfa_admin(stack, "mfa", "set", "--state", "ENABLED", "--totp")
    email = f"cli-{os.urandom(4).hex()}@example.com"
    process = subprocess.Popen(
        [str(stack.bin_dir / "mfa-admin"), "demo", "enroll-totp", "--sign-up", "--email", email],
        env={"PATH": os.environ.get("PATH", ""), "MFA_GATEWAY_URL": stack.gateway, "MFA_ADMIN_TOKEN": "owner",
             "MFA_DEMO_PASSWORD": "correct horse battery"},
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        drawn = []
        while not (line := process.stdout.readline()).startswith("Address: "):
            assert line, process.stderr.read()
            drawn.append(line.rstrip("\n"))
        address = decode_qr(terminal_qr_to_pbm("\n".join(drawn)), tmp_path)
        assert address == line.removeprefix("Address: ").strip()
        secret = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(address).query))["secret"]
        out, err = process.communicate(pyotp.TOTP(secret).now() + "\n", timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert out.strip().endswith(f"Enrolled: {email} now signs in with a password and a code from the app.")
    signed_in = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                              json={"email": email, "password": "correct horse battery"}, timeout=30).json()
    assert [factor["displayName"] for factor in signed_in["mfaInfo"]] == ["Authenticator app"]


def test_missing_or_wrong_credentials_and_bad_input_say_what_is_wrong(stack):
    no_token = mfa_admin(stack, "tenants", "list", env={"MFA_ADMIN_TOKEN": ""}, check=False)
    assert no_token.returncode == 1 and "no admin credential: set MFA_ADMIN_TOKEN or MFA_ADMIN_TOKEN_FILE, or pass --token-file" in no_token.stderr
    wrong = mfa_admin(stack, "tenants", "list", "--token", "not-the-token", check=False)
    assert wrong.returncode == 1 and "401" in wrong.stderr
    unreachable = mfa_admin(stack, "tenants", "list", "--gateway", "http://127.0.0.1:9", check=False)
    assert unreachable.returncode == 1 and "cannot reach http://127.0.0.1:9" in unreachable.stderr
    ambiguous = mfa_admin(stack, "users", "lookup", "--uid", "a", "--email", "b@example.com", check=False)
    assert ambiguous.returncode != 0 and "exactly one of --uid, --email, --phone" in ambiguous.stderr


def test_help_and_version(stack):
    helped = mfa_admin(stack, "--help").stdout
    for command in ("tenants", "mfa", "users", "factors", "keys", "audit", "demo"):
        assert f"\n  {command} " in helped
    assert "MFA_GATEWAY_URL" in helped
    assert mfa_admin(stack, "--version").stdout.strip()


def test_a_reader_that_goes_away_ends_the_tool_quietly(stack):
    """Issue 40, item 6: `mfa-admin users list | head -5` ended in `Fatal error: 'try!' … Broken pipe` and a
    backtrace. Like `ls`, the tool now stops without a word: killed by SIGPIPE, or exiting 141 where the
    networking libraries ignore that signal."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "MFA_GATEWAY_URL": stack.gateway,
                       "MFA_ADMIN_TOKEN": "owner"}
        done = subprocess.run([str(stack.bin_dir / "mfa-admin"), "tenants", "list"], env=environment, stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write_end)
    assert done.returncode in (141, -signal.SIGPIPE), (done.returncode, done.stderr)
    assert done.stderr == ""


def test_the_admin_credential_goes_over_tls_or_loopback_only_and_can_stay_out_of_the_process_list(stack, tmp_path):
    """Issue 40, L-5: `mfa-admin --gateway http://remote --token …` sent the token in clear and showed it
    to every user of the machine in the process list."""
    remote = mfa_admin(stack, "tenants", "list", "--gateway", "http://gateway.invalid:8080", check=False)
    assert remote.returncode == 1
    assert "refusing to send the admin credential to http://gateway.invalid:8080 over plain HTTP" in remote.stderr
    # Refused before any lookup or connection: the message is not a resolver's or a socket's.
    assert "cannot reach" not in remote.stderr
    ops = mfa_admin(stack, "keys", "list", env={"MFA_SESSION_TOKEN_OPS_URL": "http://ops.invalid:9103"}, check=False)
    assert ops.returncode == 1 and "over plain HTTP" in ops.stderr
    token_file = tmp_path / "admin-token"
    token_file.write_text("owner\n")
    from_file = mfa_admin(stack, "tenants", "list", "--token-file", str(token_file), env={"MFA_ADMIN_TOKEN": ""})
    assert "warning" not in from_file.stderr
    from_environment = mfa_admin(stack, "tenants", "list", env={"MFA_ADMIN_TOKEN": "", "MFA_ADMIN_TOKEN_FILE": str(token_file)})
    assert from_environment.stdout == from_file.stdout
    on_the_command_line = mfa_admin(stack, "tenants", "list", "--token", "owner", env={"MFA_ADMIN_TOKEN": ""})
    assert "--token is visible in the process list" in on_the_command_line.stderr
    missing = mfa_admin(stack, "tenants", "list", "--token-file", str(tmp_path / "none"), check=False)
    assert missing.returncode == 1 and "cannot read the admin credential file" in missing.stderr
