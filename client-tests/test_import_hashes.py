"""Issue 41: a Firebase project's users move in with their password hashes. Each of the algorithms of
v1 accounts:batchCreate is imported through firebase-admin's `import_users` with the `UserImportHash`
an app team would use, from hashes computed here by Python's hashlib, hmac, bcrypt and cryptography;
each user then signs in with the old password, and that first sign-in replaces the stored hash with
the project's own scrypt (the foreign one and its parameters gone). Firebase's modified scrypt is also
checked against the vector its own utility publishes. One case runs in production mode."""

import base64
import hashlib
import hmac
import json
import re
import secrets

import bcrypt
import pytest
import requests
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from production_stack import running

V1 = "/identitytoolkit.googleapis.com/v1"
# Firebase's scrypt utility's README (github.com/firebase/scrypt): the project's parameters and one user.
README_KEY = base64.b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")
README_SALT = base64.b64decode("42xEC+ixf3L2lw==")
README_HASH = base64.b64decode("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")
SEPARATOR = b"\x07"
KEY = secrets.token_bytes(64)


def firebase_scrypt(password, salt, separator=SEPARATOR, rounds=8, memory_cost=14, key=KEY):
    """Firebase's modified scrypt, as its utility computes it."""
    derived = hashlib.scrypt(password, salt=salt + separator, n=2 ** memory_cost, r=rounds, p=1, dklen=64)
    encryptor = Cipher(algorithms.AES(derived[:32]), modes.CTR(b"\0" * 16)).encryptor()
    return encryptor.update(key) + encryptor.finalize()


def digest_rounds(name, data, rounds):
    value = hashlib.new(name, data).digest()
    for _ in range(rounds - 1):
        value = hashlib.new(name, value).digest()
    return value


def cases():
    from firebase_admin import auth

    H = auth.UserImportHash
    return {
        "SCRYPT": (lambda pw, salt: firebase_scrypt(pw, salt), H.scrypt(key=KEY, rounds=8, memory_cost=14, salt_separator=SEPARATOR)),
        "STANDARD_SCRYPT": (lambda pw, salt: hashlib.scrypt(pw, salt=salt, n=1024, r=8, p=1, dklen=64),
                            H.standard_scrypt(memory_cost=1024, parallelization=1, block_size=8, derived_key_length=64)),
        "BCRYPT": (lambda pw, salt: bcrypt.hashpw(pw, bcrypt.gensalt(rounds=4)), H.bcrypt()),
        "PBKDF_SHA1": (lambda pw, salt: hashlib.pbkdf2_hmac("sha1", pw, salt, 1000, 32), H.pbkdf_sha1(rounds=1000)),
        "PBKDF2_SHA256": (lambda pw, salt: hashlib.pbkdf2_hmac("sha256", pw, salt, 1000, 64), H.pbkdf2_sha256(rounds=1000)),
        "HMAC_SHA512": (lambda pw, salt: hmac.new(KEY, pw + salt, hashlib.sha512).digest(), H.hmac_sha512(key=KEY)),
        "HMAC_SHA256": (lambda pw, salt: hmac.new(KEY, pw + salt, hashlib.sha256).digest(), H.hmac_sha256(key=KEY)),
        "HMAC_SHA1": (lambda pw, salt: hmac.new(KEY, pw + salt, hashlib.sha1).digest(), H.hmac_sha1(key=KEY)),
        "HMAC_MD5": (lambda pw, salt: hmac.new(KEY, pw + salt, hashlib.md5).digest(), H.hmac_md5(key=KEY)),
        "MD5": (lambda pw, salt: hashlib.md5(salt + pw).hexdigest().encode(), H.md5(rounds=0)),
        "SHA1": (lambda pw, salt: digest_rounds("sha1", salt + pw, 1), H.sha1(rounds=1)),
        "SHA256": (lambda pw, salt: digest_rounds("sha256", salt + pw, 3), H.sha256(rounds=3)),
        "SHA512": (lambda pw, salt: digest_rounds("sha512", salt + pw, 2), H.sha512(rounds=2)),
    }


@pytest.fixture(scope="module")
def admin_app(stack):
    import os

    import firebase_admin

    before = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = stack.gateway_host
    app = firebase_admin.initialize_app(options={"projectId": "demo-project"}, name=f"hashes-{secrets.token_hex(4)}")
    yield app
    firebase_admin.delete_app(app)
    if before is None:
        os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)
    else:
        os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = before


def sign_in(gateway, email, password, key="k"):
    return requests.post(f"{gateway}{V1}/accounts:signInWithPassword?key={key}", json={"email": email, "password": password},
                         timeout=30)


def stored_hash(stack, uid, schema="p_demo-project"):
    return stack.query("factor-registry", f"""SELECT password_hash FROM "{schema}".accounts WHERE local_id = '{uid}'""")[0]


@pytest.mark.parametrize("algorithm", [
    "SCRYPT", "STANDARD_SCRYPT", "BCRYPT", "PBKDF_SHA1", "PBKDF2_SHA256", "HMAC_SHA512", "HMAC_SHA256", "HMAC_SHA1", "HMAC_MD5",
    "MD5", "SHA1", "SHA256", "SHA512"])
def test_a_user_imported_with_each_algorithm_signs_in_with_the_old_password_and_gets_our_hash(stack, admin_app, algorithm):
    from firebase_admin import auth

    compute, hash_alg = cases()[algorithm]
    password, salt = f"old-{algorithm}-password".encode(), secrets.token_bytes(12)
    uid = f"h-{algorithm.lower()}-{secrets.token_hex(4)}"
    email = f"{uid}@example.com"
    user = auth.ImportUserRecord(uid=uid, email=email, password_hash=compute(password, salt), password_salt=salt)
    result = auth.import_users([user], hash_alg=hash_alg, app=admin_app)
    assert result.success_count == 1, [error.reason for error in result.errors]
    before = stored_hash(stack, uid)
    assert not before.startswith("firebase-scrypt$11$8$")
    assert sign_in(stack.gateway, email, "not-the-password").json()["error"]["message"] == "INVALID_PASSWORD"
    assert stored_hash(stack, uid) == before
    assert sign_in(stack.gateway, email, password.decode()).status_code == 200
    after = stored_hash(stack, uid)
    # The project's own form and parameters (the test stacks give demo-project N = 2048, r = 8: memory cost 11).
    assert after.startswith("firebase-scrypt$11$8$") and after != before
    assert sign_in(stack.gateway, email, password.decode()).status_code == 200
    assert stored_hash(stack, uid) == after


def test_firebase_scrypt_matches_the_vector_of_firebases_own_utility(stack, admin_app):
    """The README of github.com/firebase/scrypt: its parameters, salt and hash; the password user1password."""
    from firebase_admin import auth

    assert firebase_scrypt(b"user1password", README_SALT, separator=b"\x07", key=README_KEY) == README_HASH
    uid = f"readme-{secrets.token_hex(4)}"
    user = auth.ImportUserRecord(uid=uid, email=f"{uid}@example.com", password_hash=README_HASH, password_salt=README_SALT)
    result = auth.import_users([user], hash_alg=auth.UserImportHash.scrypt(
        key=README_KEY, rounds=8, memory_cost=14, salt_separator=b"\x07"), app=admin_app)
    assert result.success_count == 1, [error.reason for error in result.errors]
    assert sign_in(stack.gateway, f"{uid}@example.com", "user1password").status_code == 200


def test_what_is_stored_holds_no_signer_key_no_hmac_key_and_no_fast_digest(stack, admin_app):
    from firebase_admin import auth

    imported = {}
    for algorithm in ("SCRYPT", "HMAC_SHA256", "MD5", "SHA1"):
        compute, hash_alg = cases()[algorithm]
        uid, salt = f"kept-{algorithm.lower()}-{secrets.token_hex(4)}", secrets.token_bytes(8)
        digest = compute(b"kept-password", salt)
        result = auth.import_users([auth.ImportUserRecord(uid=uid, email=f"{uid}@example.com", password_hash=digest,
                                                          password_salt=salt)], hash_alg=hash_alg, app=admin_app)
        assert result.success_count == 1
        imported[uid] = digest
    for uid, digest in imported.items():
        stored = stored_hash(stack, uid)
        for secret in (KEY, digest):
            assert base64.b64encode(secret).decode() not in stored and secret.hex() not in stored
            assert base64.urlsafe_b64encode(secret).decode().rstrip("=") not in stored
        assert "$firebase-scrypt$" in stored or stored.startswith("firebase-scrypt$")


def test_bad_hashes_are_refused_per_user_and_bad_parameters_for_the_request(stack):
    admin = {"Authorization": "Bearer owner"}
    url = f"{stack.gateway}{V1}/projects/demo-project/accounts:batchCreate"
    salt = base64.urlsafe_b64encode(b"salt").decode()
    good = base64.urlsafe_b64encode(hmac.new(KEY, b"pw-123456" + b"salt", hashlib.sha256).digest()).decode()
    key = base64.urlsafe_b64encode(KEY).decode()
    uids = [f"batch-{i}-{secrets.token_hex(3)}" for i in range(3)]
    answer = requests.post(url, headers=admin, timeout=30, json={"hashAlgorithm": "HMAC_SHA256", "signerKey": key, "users": [
        {"localId": uids[0], "email": f"{uids[0]}@example.com", "passwordHash": good, "salt": salt},
        {"localId": uids[1], "email": f"{uids[1]}@example.com", "passwordHash": base64.urlsafe_b64encode(b"short").decode(),
         "salt": salt},
        {"localId": uids[2], "email": f"{uids[2]}@example.com", "passwordHash": "not base64 !", "salt": salt},
    ]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["error"] == [{"index": 1, "message": "passwordHash is invalid"},
                                      {"index": 2, "message": "passwordHash is invalid"}]
    assert sign_in(stack.gateway, f"{uids[0]}@example.com", "pw-123456").status_code == 200
    lookup = requests.post(f"{stack.gateway}{V1}/projects/demo-project/accounts:lookup", headers=admin, timeout=30,
                           json={"localId": uids}).json()
    assert [user["localId"] for user in lookup["users"]] == [uids[0]]  # never half a user
    hashed = {"localId": "refused", "passwordHash": good}
    for body, message in [
        ({"hashAlgorithm": "ARGON3"}, "INVALID_HASH_ALGORITHM : ARGON3 is not supported"),
        ({"hashAlgorithm": "HMAC_SHA256"}, "INVALID_HASH_PARAMETER"),
        ({"hashAlgorithm": "SHA256", "rounds": 9000}, "INVALID_HASH_ROUNDS"),
        ({"hashAlgorithm": "SCRYPT", "signerKey": key, "rounds": 8, "memoryCost": 20}, "INVALID_HASH_PARAMETER"),
        ({"hashAlgorithm": "PBKDF2_SHA256", "rounds": 0}, "INVALID_HASH_ROUNDS"),
    ]:
        refused = requests.post(url, headers=admin, timeout=30, json={"users": [hashed], **body})
        assert refused.status_code == 400 and refused.json()["error"]["message"].startswith(message), (body, refused.text)


def test_in_production_an_imported_firebase_user_signs_in_and_keeps_no_foreign_hash():
    with running() as stack:
        admin = {"Authorization": f"Bearer {stack.admin_token}"}
        uid, salt = f"prod-{secrets.token_hex(4)}", secrets.token_bytes(12)
        email = f"{uid}@example.com"
        answer = requests.post(f"{stack.admin_url}{V1}/projects/demo-project/accounts:batchCreate", headers=admin, timeout=60, json={
            "hashAlgorithm": "SCRYPT", "signerKey": base64.urlsafe_b64encode(KEY).decode(), "rounds": 8, "memoryCost": 14,
            "saltSeparator": base64.urlsafe_b64encode(SEPARATOR).decode(),
            "users": [{"localId": uid, "email": email, "emailVerified": True, "displayName": "Moved In",
                       "passwordHash": base64.urlsafe_b64encode(firebase_scrypt(b"moved-in-pw", salt)).decode(),
                       "salt": base64.urlsafe_b64encode(salt).decode(), "createdAt": "1600000000000"}]})
        assert answer.status_code == 200 and answer.json().get("error", []) == [], answer.text
        before = stack.query("factor-registry", f"""SELECT password_hash FROM "p_demo-project".accounts
                                                    WHERE local_id = '{uid}'""")[0]
        assert before.startswith("firebase-scrypt$14$8$")
        signed_in = sign_in(stack.gateway, email, "moved-in-pw", key=stack.api_key)
        assert signed_in.status_code == 200, signed_in.text
        after = stack.query("factor-registry", f"""SELECT password_hash FROM "p_demo-project".accounts
                                                   WHERE local_id = '{uid}'""")[0]
        # Replaced by the project's own (the test stacks give demo-project N = 2048: memory cost 11).
        assert after.startswith("firebase-scrypt$11$8$") and after != before
        user = requests.post(f"{stack.gateway}{V1}/accounts:lookup?key={stack.api_key}", timeout=30,
                             json={"idToken": signed_in.json()["idToken"]}).json()["users"][0]
        assert user["displayName"] == "Moved In" and user["emailVerified"] and user["createdAt"] == "1600000000000"


def mfa_admin(stack, *arguments):
    import os
    import subprocess

    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "MFA_GATEWAY_URL": stack.gateway, "MFA_ADMIN_TOKEN": "owner"}
    return subprocess.run([str(stack.bin_dir / "mfa-admin"), *arguments], env=environment, capture_output=True, text=True,
                          timeout=120)


SCRYPT_FLAGS = ["--hash-algo", "SCRYPT", "--hash-key", base64.b64encode(KEY).decode(), "--salt-separator",
                base64.b64encode(SEPARATOR).decode(), "--rounds", "8", "--mem-cost", "14"]


def exported_user(uid, password, **extra):
    """One user as `firebase auth:export` writes it (standard base64 hash and salt)."""
    salt = secrets.token_bytes(12)
    return {"localId": uid, "email": f"{uid}@example.com", "emailVerified": True,
            "passwordHash": base64.b64encode(firebase_scrypt(password.encode(), salt)).decode(),
            "salt": base64.b64encode(salt).decode(), "createdAt": "1600000000000", **extra}


def lookup(stack, uid):
    answer = requests.post(f"{stack.gateway}{V1}/projects/demo-project/accounts:lookup", json={"localId": [uid]},
                           headers={"Authorization": "Bearer owner"}, timeout=30).json()
    return answer["users"][0]


def test_mfa_admin_imports_a_firebase_json_export_and_resumes_after_a_refusal(stack, tmp_path):
    uids = [f"json-{i}-{secrets.token_hex(3)}" for i in range(4)]
    users = [
        exported_user(uids[0], "first-password", displayName="Ada", photoUrl="https://example.com/ada.png",
                      lastSignedInAt="1650000000000",
                      providerUserInfo=[{"providerId": "google.com", "rawId": "123", "email": f"{uids[0]}@gmail.com"}]),
        exported_user(uids[1], "second-password", customAttributes='{"plan":"pro"}'),
        {**exported_user(uids[2], "third-password"), "email": f"{uids[1]}@example.com"},  # the address of user 1
        exported_user(uids[3], "fourth-password", disabled=False),
    ]
    path = tmp_path / "users.json"
    path.write_text(json.dumps({"users": users}))
    first = mfa_admin(stack, "users", "import", str(path), "--batch-size", "2", *SCRYPT_FLAGS)
    assert first.returncode == 1, first.stderr
    assert f"user 2 ({uids[2]}): email is already in use by another account." in first.stderr
    assert "imported 3 of 4 (1 refused; next: 4)" in first.stderr
    assert "Imported 3 users; 1 refused." in first.stdout
    assert "provider links" not in first.stdout
    for uid, password in [(uids[0], "first-password"), (uids[1], "second-password"), (uids[3], "fourth-password")]:
        assert sign_in(stack.gateway, f"{uid}@example.com", password).status_code == 200, uid
    ada = lookup(stack, uids[0])
    assert ada["displayName"] == "Ada" and ada["photoUrl"] == "https://example.com/ada.png"
    # The Google link came along (issue 42): Ada keeps signing in with Google once it is configured.
    google = [entry for entry in ada["providerUserInfo"] if entry["providerId"] == "google.com"]
    assert google and google[0]["rawId"] == "123" and google[0]["federatedId"] == "https://accounts.google.com/123"
    assert ada["createdAt"] == "1600000000000"
    assert json.loads(lookup(stack, uids[1])["customAttributes"]) == {"plan": "pro"}
    # The refused user fixed in the file, the import goes on from there.
    users[2]["email"] = f"{uids[2]}@example.com"
    path.write_text(json.dumps({"users": users}))
    resumed = mfa_admin(stack, "users", "import", str(path), "--resume-from", "2", "--batch-size", "1", *SCRYPT_FLAGS)
    assert resumed.returncode == 1 and "user 3" in resumed.stderr  # user 3 is there already
    assert sign_in(stack.gateway, f"{uids[2]}@example.com", "third-password").status_code == 200
    missing = mfa_admin(stack, "users", "import", str(path))
    assert missing.returncode == 1 and "--hash-algo" in missing.stderr


def test_mfa_admin_imports_a_firebase_csv_export(stack, tmp_path):
    uid = f"csv-{secrets.token_hex(4)}"
    user = exported_user(uid, "csv-password")
    claims = '{"role":"admin","quote":"a \\"b\\""}'
    row = [uid, user["email"], "true", user["passwordHash"], user["salt"], "Csv User", "", *[""] * 16, "1600000000000",
           "1650000000000", "", "false", '"' + claims.replace('"', '""') + '"', *[""] * 24]
    path = tmp_path / "users.csv"
    path.write_text(",".join(row) + ",\n")
    done = mfa_admin(stack, "users", "import", str(path), *SCRYPT_FLAGS)
    assert done.returncode == 0, done.stderr
    assert "Imported 1 users; 0 refused." in done.stdout
    assert sign_in(stack.gateway, user["email"], "csv-password").status_code == 200
    imported = lookup(stack, uid)
    assert imported["displayName"] == "Csv User" and imported["emailVerified"] is True
    assert json.loads(imported["customAttributes"]) == {"role": "admin", "quote": 'a "b"'}


def test_passwords_leave_with_the_projects_hash_config_and_sign_in_where_they_are_imported(stack, admin_app):
    """Item 5: an admin lists the users with their hashes (firebase-admin's list_users), the config
    publishes the parameters (signIn.hashConfig, Identity Platform's shape), and with exactly those the
    users import elsewhere (here a tenant; Firebase and Identity Platform take the same) and sign in."""
    from firebase_admin import auth

    email, password = f"leaver-{secrets.token_hex(4)}@example.com", "leaving-password"
    signed_up = requests.post(f"{stack.gateway}{V1}/accounts:signUp?key=k", json={"email": email, "password": password},
                              timeout=30).json()
    config = requests.get(f"{stack.gateway}/v2/projects/demo-project/config", headers={"Authorization": "Bearer owner"},
                          timeout=30).json()["signIn"]["hashConfig"]
    assert config["algorithm"] == "SCRYPT" and config["saltSeparator"] == "Bw==" and config["rounds"] == 8
    assert config["memoryCost"] == 11  # the test stack's N = 2048 for demo-project
    key = base64.b64decode(config["signerKey"])
    assert len(key) == 64
    exported = next(user for user in auth.list_users(app=admin_app).iterate_all() if user.uid == signed_up["localId"])
    assert exported.password_hash and exported.password_salt
    hash_bytes = base64.urlsafe_b64decode(exported.password_hash)
    salt = base64.urlsafe_b64decode(exported.password_salt)
    # Computed here, as Firebase's own utility does: the exported hash is the password's.
    assert firebase_scrypt(password.encode(), salt, separator=b"\x07", rounds=8, memory_cost=11, key=key) == hash_bytes
    # The same key next time: one per project.
    again = requests.get(f"{stack.gateway}/v2/projects/demo-project/config", headers={"Authorization": "Bearer owner"},
                         timeout=30).json()["signIn"]["hashConfig"]
    assert again == config
    # Imported with exactly those parameters into a tenant, the user signs in there with the same password.
    admin = {"Authorization": "Bearer owner"}
    tenant = requests.post(f"{stack.gateway}/v2/projects/demo-project/tenants", headers=admin, timeout=30,
                           json={"displayName": "Arrivals", "allowPasswordSignup": True}).json()["tenantId"]
    imported = requests.post(f"{stack.gateway}{V1}/projects/demo-project/tenants/{tenant}/accounts:batchCreate", headers=admin,
                             timeout=30, json={
                                 "hashAlgorithm": config["algorithm"], "signerKey": config["signerKey"],
                                 "saltSeparator": config["saltSeparator"], "rounds": config["rounds"],
                                 "memoryCost": config["memoryCost"],
                                 "users": [{"localId": exported.uid, "email": email, "passwordHash": exported.password_hash,
                                            "salt": exported.password_salt}]})
    assert imported.status_code == 200 and imported.json().get("error", []) == [], imported.text
    arrived = requests.post(f"{stack.gateway}{V1}/accounts:signInWithPassword?key=k", timeout=30,
                            json={"email": email, "password": password, "tenantId": tenant})
    assert arrived.status_code == 200, arrived.text
    # Output only: a PATCH that sends the document back as read changes nothing and is not refused.
    patched = requests.patch(f"{stack.gateway}/v2/projects/demo-project/config?updateMask=signIn.hashConfig",
                             headers={"Authorization": "Bearer owner"}, timeout=30,
                             json={"signIn": {"hashConfig": {**config, "signerKey": "AAAA"}}})
    assert patched.status_code in (200, 400)
    assert requests.get(f"{stack.gateway}/v2/projects/demo-project/config", headers={"Authorization": "Bearer owner"},
                        timeout=30).json()["signIn"]["hashConfig"] == config


def test_an_imported_hash_is_not_handed_out_until_a_sign_in_replaces_it(stack, admin_app):
    from firebase_admin import auth

    compute, hash_alg = cases()["MD5"]
    uid, salt = f"pending-{secrets.token_hex(4)}", secrets.token_bytes(8)
    result = auth.import_users([auth.ImportUserRecord(uid=uid, email=f"{uid}@example.com",
                                                      password_hash=compute(b"pending-pw", salt), password_salt=salt)],
                               hash_alg=hash_alg, app=admin_app)
    assert result.success_count == 1
    listed = next(user for user in auth.list_users(app=admin_app).iterate_all() if user.uid == uid)
    assert listed.password_hash in (None, "UkVEQUNURUQ=")  # redacted: only the project's own form is handed out
    assert sign_in(stack.gateway, f"{uid}@example.com", "pending-pw").status_code == 200
    listed = next(user for user in auth.list_users(app=admin_app).iterate_all() if user.uid == uid)
    assert listed.password_hash and listed.password_salt


@pytest.mark.parametrize("extension", ["json", "csv"])
def test_mfa_admin_exports_a_tenant_and_the_file_imports_into_another_with_the_printed_parameters(stack, tmp_path,
                                                                                                  extension):
    admin = {"Authorization": "Bearer owner"}

    def tenant(name):
        return requests.post(f"{stack.gateway}/v2/projects/demo-project/tenants", headers=admin, timeout=30,
                             json={"displayName": name, "allowPasswordSignup": True}).json()["tenantId"]

    source, target = tenant("Leaving"), tenant("Arriving")
    people = {f"out-{i}-{secrets.token_hex(3)}@example.com": f"password-{i}-{secrets.token_hex(3)}" for i in range(3)}
    for email, password in people.items():
        assert requests.post(f"{stack.gateway}{V1}/accounts:signUp?key=k", timeout=30,
                             json={"email": email, "password": password, "tenantId": source}).status_code == 200
    path = tmp_path / f"export.{extension}"
    exported = mfa_admin(stack, "users", "export", str(path), "--tenant", source)
    assert exported.returncode == 0, exported.stderr
    assert "Exported 3 users" in exported.stdout
    flags = re.search(r"--hash-algo=(\S+) --hash-key=(\S+) --salt-separator=(\S+) --rounds=(\d+) --mem-cost=(\d+)",
                      exported.stdout)
    assert flags and flags[1] == "SCRYPT"
    if extension == "json":
        document = json.loads(path.read_text())
        assert sorted(user["email"] for user in document["users"]) == sorted(people)
        assert all(user["passwordHash"] and user["salt"] for user in document["users"])
    else:
        rows = [line.split(",") for line in path.read_text().splitlines() if line]
        assert sorted(row[1] for row in rows) == sorted(people) and all(len(row) == 53 and row[3] and row[4] for row in rows)
    assert oct(path.stat().st_mode & 0o777) == "0o600"  # hashes are secrets of a kind
    imported = mfa_admin(stack, "users", "import", str(path), "--tenant", target, "--hash-algo", flags[1], "--hash-key", flags[2],
                         "--salt-separator", flags[3], "--rounds", flags[4], "--mem-cost", flags[5])
    assert imported.returncode == 0, imported.stderr
    for email, password in people.items():
        arrived = requests.post(f"{stack.gateway}{V1}/accounts:signInWithPassword?key=k", timeout=30,
                                json={"email": email, "password": password, "tenantId": target})
        assert arrived.status_code == 200, arrived.text
