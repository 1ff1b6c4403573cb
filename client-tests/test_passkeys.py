"""Passkeys (issue 59) on Identity Platform's preview contract, driven by a software authenticator
(soft_authenticator.py) in both request shapes and both encodings the sources show, for each of the
three algorithms; every accept or refuse decision on the WebAuthn checks is also made by python-fido2's
server (the outside oracle), and the two must agree (except the counter and the user handle, which it
does not check, and a challenge's single use and owner, which only the server can know)."""

import base64
import concurrent.futures
import secrets

import jwt
import pytest
import requests

from conftest import another_stack
from mfa_helpers import ADMIN
from soft_authenticator import FLAGS, Authenticator, b64decode, ios, oracle_authenticates, oracle_registers, web

RP_ID, ORIGIN = "localhost", "http://localhost:5173"
# Seconds a sign-in counts as recent on this stack (adding a passkey needs one).
RECENT = 8
V1 = "/identitytoolkit.googleapis.com/v1/"
V2 = "/identitytoolkit.googleapis.com/v2/"


@pytest.fixture(scope="module")
def pstack(stack):
    with another_stack(stack, "passkeys", extra_env={"PASSKEYS_MAXIMUM_PER_ACCOUNT": "3",
                                                       "RECENT_LOGIN_WINDOW_SECONDS": str(RECENT)}) as running:
        configured = configure(running, {"rpId": RP_ID, "expectedOrigins": [ORIGIN, "https://app.localhost"]})
        assert configured == {"name": "projects/demo-project/passkeyConfig", "rpId": RP_ID,
                              "expectedOrigins": [ORIGIN, "https://app.localhost"]}
        yield running


def configure(stack, config, tenant=None, mask=None):
    path = "/v2/projects/demo-project" + (f"/tenants/{tenant}" if tenant else "") + "/passkeyConfig"
    answer = requests.patch(f"{stack.gateway}{path}", params={"updateMask": mask} if mask else None, json=config, headers=ADMIN,
                            timeout=30)
    return answer.json() if answer.status_code == 200 else answer.json()["error"]["message"]


def call(stack, path, **body):
    return requests.post(f"{stack.gateway}{path}?key=k", json=body, timeout=30)


def ok(answer):
    assert answer.status_code == 200, answer.text
    return answer.json()


def error(answer):
    assert answer.status_code == 400, answer.text
    return answer.json()["error"]["message"]


def user(stack, tenant=None):
    scope = {"tenantId": tenant} if tenant else {}
    return ok(call(stack, V1 + "accounts:signUp", email=f"pk-{secrets.token_hex(5)}@example.com", password="secret-pw",
                   returnSecureToken=True, **scope)) | scope


def enroll_options(stack, signed_up):
    extra = {"tenantId": signed_up["tenantId"]} if "tenantId" in signed_up else {}
    return ok(call(stack, V2 + "accounts/passkeyEnrollment:start", idToken=signed_up["idToken"], **extra))["credentialCreationOptions"]


def finalize_enrollment(stack, signed_up, made, name="My phone"):
    extra = {"tenantId": signed_up["tenantId"]} if "tenantId" in signed_up else {}
    return call(stack, V2 + "accounts/passkeyEnrollment:finalize", idToken=signed_up["idToken"], name=name,
                authenticatorRegistrationResponse=made.body, **extra)


def sign_in_options(stack, tenant=None):
    extra = {"tenantId": tenant} if tenant else {}
    return ok(call(stack, V2 + "accounts/passkeySignIn:start", **extra))["credentialRequestOptions"]


def finalize_sign_in(stack, made, tenant=None):
    extra = {"tenantId": tenant} if tenant else {}
    return call(stack, V2 + "accounts/passkeySignIn:finalize", authenticatorAuthenticationResponse=made.body, **extra)


def enrolled(stack, algorithm="ES256", tenant=None):
    """A new user with one passkey: (the user, their authenticator)."""
    signed_up = user(stack, tenant)
    device = Authenticator(ORIGIN)
    ok(finalize_enrollment(stack, signed_up, device.create(enroll_options(stack, signed_up), algorithm)))
    return signed_up, device


def lookup(stack, id_token):
    return ok(call(stack, V1 + "accounts:lookup", idToken=id_token))["users"][0]


@pytest.mark.parametrize("algorithm", ["ES256", "RS256", "EdDSA"])
def test_a_passkey_enrolls_and_signs_in_in_both_shapes_and_encodings(pstack, algorithm):
    for shape in ("sdk", "proto"):
        for encode in (web, ios):
            signed_up = user(pstack)
            device = Authenticator(ORIGIN)
            options = enroll_options(pstack, signed_up)
            made = device.create(options, algorithm, encode=encode, shape=shape)
            assert oracle_registers(RP_ID, [ORIGIN], options, made)
            tokens = ok(finalize_enrollment(pstack, signed_up, made, name=f"{shape} {encode.__name__}"))
            assert tokens["localId"] == signed_up["localId"] and tokens["refreshToken"]
            info = lookup(pstack, tokens["idToken"])
            assert info["passkeyInfo"] == [{"credentialId": web(made.credential_id), "name": f"{shape} {encode.__name__}"}]
            request = sign_in_options(pstack)
            assertion = device.get(request, encode=encode, shape=shape)
            assert oracle_authenticates(RP_ID, [ORIGIN], request, assertion, device.credentials[-1])
            signed_in = ok(finalize_sign_in(pstack, assertion))
            assert signed_in["localId"] == signed_up["localId"]
            claims = jwt.decode(signed_in["idToken"], options={"verify_signature": False})
            assert claims["firebase"]["sign_in_provider"] == "passkey" and claims["sub"] == signed_up["localId"]
            # The session works: its refresh token refreshes.
            refreshed = requests.post(f"{pstack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                                      data={"grant_type": "refresh_token", "refresh_token": signed_in["refreshToken"]}, timeout=30)
            assert refreshed.status_code == 200, refreshed.text


def test_the_options_are_what_the_sdks_read(pstack):
    """Padded standard base64 for every byte string (iOS decodes with Data(base64Encoded:)), W3C
    pubKeyCredParams, rp.id from the config, the user's existing passkeys excluded."""
    signed_up, device = enrolled(pstack)
    options = enroll_options(pstack, signed_up)
    assert options["rp"]["id"] == RP_ID
    for value in (options["challenge"], options["user"]["id"], options["excludeCredentials"][0]["id"]):
        assert len(value) % 4 == 0 and "-" not in value and "_" not in value
    assert len(base64.b64decode(options["challenge"])) == 32 and len(base64.b64decode(options["user"]["id"])) == 32
    assert options["pubKeyCredParams"] == [{"type": "public-key", "alg": -7}, {"type": "public-key", "alg": -8},
                                           {"type": "public-key", "alg": -257}]
    assert options["authenticatorSelection"]["userVerification"] == "required" and options["attestation"] == "none"
    assert base64.b64decode(options["excludeCredentials"][0]["id"]) == device.credentials[0].credential_id
    request = sign_in_options(pstack)
    assert request["rpId"] == RP_ID and request["userVerification"] == "required" and len(base64.b64decode(request["challenge"])) == 32


SPOILED_REGISTRATIONS = {
    "another origin": {"origin": "https://evil.example"},
    "another rp id": {"rp_id": "example.com"},
    "a get for a create": {"kind": "webauthn.get"},
    "no user presence": {"flags": FLAGS.UV | FLAGS.AT},
    "no user verification": {"flags": FLAGS.UP | FLAGS.AT},
    "a challenge nobody issued": {"challenge": b"\1" * 32},
    "another credential id claimed": {"claimed_id": b"\2" * 32},
}


@pytest.mark.parametrize("spoiled", list(SPOILED_REGISTRATIONS))
def test_a_spoiled_registration_is_refused_as_the_oracle_refuses_it(pstack, spoiled):
    signed_up = user(pstack)
    options = enroll_options(pstack, signed_up)
    made = Authenticator(ORIGIN).create(options, **SPOILED_REGISTRATIONS[spoiled])
    assert error(finalize_enrollment(pstack, signed_up, made)) == "INVALID_AUTHENTICATOR_RESPONSE"
    if spoiled != "another credential id claimed":  # the oracle takes the authenticator's id as given
        assert not oracle_registers(RP_ID, [ORIGIN], options, made)
    assert "passkeyInfo" not in lookup(pstack, signed_up["idToken"])


def test_a_registration_challenge_works_once_and_only_for_its_user(pstack):
    alice, mallory = user(pstack), user(pstack)
    options = enroll_options(pstack, alice)
    device = Authenticator(ORIGIN)
    # Mallory's finalize with Alice's challenge is refused, and uses it up.
    assert error(finalize_enrollment(pstack, mallory, device.create(options))) == "INVALID_AUTHENTICATOR_RESPONSE"
    assert error(finalize_enrollment(pstack, alice, device.create(options))) == "INVALID_AUTHENTICATOR_RESPONSE"
    options = enroll_options(pstack, alice)
    made = device.create(options)
    ok(finalize_enrollment(pstack, alice, made))
    assert error(finalize_enrollment(pstack, alice, made)) == "INVALID_AUTHENTICATOR_RESPONSE"


SPOILED_ASSERTIONS = {
    "another origin": ({"origin": "https://evil.example"}, True),
    "another rp id": ({"rp_id": "example.com"}, True),
    "a create for a get": ({"kind": "webauthn.create"}, True),
    "no user presence": ({"flags": FLAGS.UV}, True),
    "no user verification": ({"flags": FLAGS.UP}, True),
    "a bad signature": ({"spoil_signature": True}, True),
    "a challenge nobody issued": ({"challenge": b"\3" * 32}, True),
    "another user's handle": ({"user_handle": b"\4" * 32}, False),
    "a counter that went back": ({"counter": 0}, False),
}


@pytest.mark.parametrize("spoiled", list(SPOILED_ASSERTIONS))
def test_a_spoiled_sign_in_is_refused_as_the_oracle_refuses_it(pstack, spoiled):
    _, device = enrolled(pstack)
    ok(finalize_sign_in(pstack, device.get(sign_in_options(pstack), counter=5)))
    request = sign_in_options(pstack)
    change, judged_by_oracle = SPOILED_ASSERTIONS[spoiled]
    made = device.get(request, **({"counter": 6} | change))
    assert error(finalize_sign_in(pstack, made)) == "INVALID_AUTHENTICATOR_RESPONSE"
    if judged_by_oracle:
        assert not oracle_authenticates(RP_ID, [ORIGIN], request, made, device.credentials[-1])
    # The refused attempt used its challenge up; the passkey itself still works.
    ok(finalize_sign_in(pstack, device.get(sign_in_options(pstack), counter=7)))


def test_an_unknown_passkey_a_replay_and_a_disabled_user_are_refused(pstack):
    signed_up, device = enrolled(pstack)
    stranger = Authenticator(ORIGIN)
    stranger.create(enroll_options(pstack, user(pstack)))  # never finalized: the server does not know it
    assert error(finalize_sign_in(pstack, stranger.get(sign_in_options(pstack)))) == "PASSKEY_ENROLLMENT_NOT_FOUND"
    made = device.get(sign_in_options(pstack))
    ok(finalize_sign_in(pstack, made))
    assert error(finalize_sign_in(pstack, made)) == "INVALID_AUTHENTICATOR_RESPONSE"
    ok(requests.post(f"{pstack.gateway}/v1/projects/demo-project/accounts:update", headers=ADMIN, timeout=30,
                     json={"localId": signed_up["localId"], "disableUser": True}))
    assert error(finalize_sign_in(pstack, device.get(sign_in_options(pstack)))) == "USER_DISABLED"


def test_of_64_sign_ins_with_one_challenge_exactly_one_succeeds(pstack):
    _, device = enrolled(pstack)
    made = device.get(sign_in_options(pstack))
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda _: finalize_sign_in(pstack, made).status_code, range(64)))
    assert answers.count(200) == 1 and answers.count(400) == 63


def test_a_credential_is_one_accounts_and_an_account_has_at_most_three(pstack):
    signed_up, device = enrolled(pstack)
    other = user(pstack)
    copied = Authenticator(ORIGIN).create(enroll_options(pstack, other), credential_id=device.credentials[0].credential_id)
    assert error(finalize_enrollment(pstack, other, copied)) == "PASSKEY_EXISTS"
    for _ in range(2):
        ok(finalize_enrollment(pstack, signed_up, device.create(enroll_options(pstack, signed_up))))
    assert error(finalize_enrollment(pstack, signed_up, device.create(enroll_options(pstack, signed_up)))) == "PASSKEY_LIMIT_EXCEEDED"
    assert len(lookup(pstack, signed_up["idToken"])["passkeyInfo"]) == 3


def refreshes(stack, refresh_token):
    answer = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k", timeout=30,
                           data={"grant_type": "refresh_token", "refresh_token": refresh_token})
    return answer.status_code == 200


def test_a_deleted_passkey_signs_nobody_in_and_the_answer_carries_fresh_tokens(pstack):
    signed_up, device = enrolled(pstack)
    credential_id = lookup(pstack, signed_up["idToken"])["passkeyInfo"][0]["credentialId"]
    # A session the passkey started (a stolen phone's, say) ends when the passkey is deleted.
    by_passkey = ok(finalize_sign_in(pstack, device.get(sign_in_options(pstack))))
    assert refreshes(pstack, by_passkey["refreshToken"])
    # Another account cannot delete it: its ids are its own.
    other = user(pstack)
    ok(call(pstack, V1 + "accounts:update", idToken=other["idToken"], deletePasskey=[credential_id], returnSecureToken=True))
    assert lookup(pstack, signed_up["idToken"])["passkeyInfo"][0]["credentialId"] == credential_id
    answer = ok(call(pstack, V1 + "accounts:update", idToken=signed_up["idToken"], deletePasskey=[credential_id],
                     returnSecureToken=True))
    assert answer["idToken"] and answer["refreshToken"]
    assert "passkeyInfo" not in lookup(pstack, answer["idToken"])
    assert not refreshes(pstack, by_passkey["refreshToken"])
    # Its ID token ends too (decision 4's rule for a withdrawn factor), not an hour later.
    assert error(call(pstack, V1 + "accounts:lookup", idToken=by_passkey["idToken"])) == "TOKEN_EXPIRED"
    assert refreshes(pstack, answer["refreshToken"]) and refreshes(pstack, signed_up["refreshToken"])
    assert error(finalize_sign_in(pstack, device.get(sign_in_options(pstack)))) == "PASSKEY_ENROLLMENT_NOT_FOUND"


def test_an_anonymous_user_with_a_passkey_is_anonymous_no_more(pstack):
    anonymous = ok(call(pstack, V1 + "accounts:signUp", returnSecureToken=True))
    device = Authenticator(ORIGIN)
    tokens = ok(finalize_enrollment(pstack, anonymous, device.create(enroll_options(pstack, anonymous))))
    providers = [entry["providerId"] for entry in lookup(pstack, tokens["idToken"])["providerUserInfo"]]
    assert providers == ["passkey"]
    assert ok(finalize_sign_in(pstack, device.get(sign_in_options(pstack))))["localId"] == anonymous["localId"]


def test_passkeys_are_a_scopes_own_and_off_until_configured(pstack):
    tenant = ok(requests.post(f"{pstack.gateway}/v2/projects/demo-project/tenants", headers=ADMIN, timeout=30,
                              json={"displayName": "Keys", "allowPasswordSignup": True}))["tenantId"]
    member = user(pstack, tenant)
    assert error(call(pstack, V2 + "accounts/passkeyEnrollment:start", idToken=member["idToken"], tenantId=tenant)) == \
        "PASSKEY_NOT_ENABLED"
    assert error(call(pstack, V2 + "accounts/passkeySignIn:start", tenantId=tenant)) == "PASSKEY_NOT_ENABLED"
    assert configure(pstack, {"rpId": RP_ID, "expectedOrigins": [ORIGIN]}, tenant)["name"] == \
        f"projects/demo-project/tenants/{tenant}/passkeyConfig"
    # The project's passkey is unknown in the tenant, and the tenant's in the project.
    _, projects = enrolled(pstack)
    assert error(finalize_sign_in(pstack, projects.get(sign_in_options(pstack, tenant)), tenant)) == "PASSKEY_ENROLLMENT_NOT_FOUND"
    _, tenants = enrolled(pstack, tenant=tenant)
    ok(finalize_sign_in(pstack, tenants.get(sign_in_options(pstack, tenant)), tenant))
    assert error(finalize_sign_in(pstack, tenants.get(sign_in_options(pstack)))) == "PASSKEY_ENROLLMENT_NOT_FOUND"
    # A tenant's patch leaves its passkeys on.
    ok(requests.patch(f"{pstack.gateway}/v2/projects/demo-project/tenants/{tenant}?updateMask=displayName", headers=ADMIN,
                      json={"displayName": "Renamed"}, timeout=30))
    assert requests.get(f"{pstack.gateway}/v2/projects/demo-project/tenants/{tenant}/passkeyConfig", headers=ADMIN,
                        timeout=30).json()["rpId"] == RP_ID


@pytest.mark.parametrize("config, refusal", [
    ({"rpId": "https://localhost", "expectedOrigins": [ORIGIN]}, "INVALID_CONFIG"),
    ({"rpId": "example.com", "expectedOrigins": ["http://example.com"]}, "INVALID_CONFIG"),
    ({"rpId": "example.com", "expectedOrigins": ["https://evil.com"]}, "INVALID_CONFIG"),
    ({"rpId": "example.com", "expectedOrigins": ["https://example.com/path"]}, "INVALID_CONFIG"),
    ({"rpId": "example.com"}, "INVALID_CONFIG"),
    ({"rpId": "example.com", "expectedOrigins": []}, "INVALID_CONFIG"),
])
def test_a_passkey_config_is_validated(pstack, config, refusal):
    assert configure(pstack, config).startswith(refusal)
    assert requests.get(f"{pstack.gateway}/v2/projects/demo-project/passkeyConfig", headers=ADMIN, timeout=30).json()["rpId"] == RP_ID


def test_a_config_patched_by_mask_and_read_back(pstack):
    tenant = ok(requests.post(f"{pstack.gateway}/v2/projects/demo-project/tenants", headers=ADMIN, timeout=30,
                              json={"displayName": "Masked"}))["tenantId"]
    assert configure(pstack, {"rpId": "Example.COM", "expectedOrigins": ["https://example.com", "https://app.example.com:8443"]},
                     tenant) == {"name": f"projects/demo-project/tenants/{tenant}/passkeyConfig", "rpId": "example.com",
                                 "expectedOrigins": ["https://example.com", "https://app.example.com:8443"]}
    changed = configure(pstack, {"expectedOrigins": ["https://login.example.com"]}, tenant, mask="expectedOrigins")
    assert changed["rpId"] == "example.com" and changed["expectedOrigins"] == ["https://login.example.com"]
    # Without an admin credential there is no config to read.
    assert requests.get(f"{pstack.gateway}/v2/projects/demo-project/passkeyConfig", timeout=30).status_code in (401, 403)
    # The user-facing half is b64-agnostic: an iOS-encoded id reads back as the browser's.
    assert b64decode(web(b"\xfb\xff")) == b"\xfb\xff"


def test_a_pre_hijackers_passkey_dies_with_the_owners_password_reset(pstack):
    """Issue 56's rule, for passkeys: the first proof of an unverified address removes every way in
    that an earlier, unproven holder planted, a passkey included."""
    victim = f"victim-{secrets.token_hex(5)}@example.com"
    planted = ok(call(pstack, V1 + "accounts:signUp", email=victim, password="planted-pw", returnSecureToken=True))
    attacker = Authenticator(ORIGIN)
    ok(finalize_enrollment(pstack, planted, attacker.create(enroll_options(pstack, planted))))
    ok(call(pstack, V1 + "accounts:sendOobCode", requestType="PASSWORD_RESET", email=victim))
    codes = requests.get(f"{pstack.gateway}/emulator/v1/projects/demo-project/oobCodes", timeout=30).json()["oobCodes"]
    code = [entry for entry in codes if entry["email"] == victim and entry["requestType"] == "PASSWORD_RESET"][-1]["oobCode"]
    ok(call(pstack, V1 + "accounts:resetPassword", oobCode=code, newPassword="owners-pw"))
    assert error(finalize_sign_in(pstack, attacker.get(sign_in_options(pstack)))) == "PASSKEY_ENROLLMENT_NOT_FOUND"
    events = requests.get(f"{pstack.gateway}/v2/projects/demo-project/securityEvents", headers=ADMIN, timeout=30,
                          params={"localId": planted["localId"]}).json()["events"]
    claimed = [event for event in events if event["type"] == "account.claimed"]
    assert claimed and claimed[0]["details"]["passkeys"] == "1"


def test_enrolling_a_passkey_needs_a_recent_sign_in(pstack):
    """A stolen refresh token's fresh ID token still carries the old auth_time: adding a way in with
    it is refused (the SDKs reauthenticate on CREDENTIAL_TOO_OLD_LOGIN_AGAIN)."""
    stale = user(pstack)
    import time
    time.sleep(RECENT + 1)
    refreshed = requests.post(f"{pstack.gateway}/securetoken.googleapis.com/v1/token?key=k", timeout=30,
                              data={"grant_type": "refresh_token", "refresh_token": stale["refreshToken"]}).json()
    assert error(call(pstack, V2 + "accounts/passkeyEnrollment:start", idToken=refreshed["id_token"])) == \
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"


def test_an_admin_sees_a_users_passkeys_in_lookup_and_export(pstack):
    signed_up, device = enrolled(pstack)
    credential_id = web(device.credentials[0].credential_id)
    looked_up = ok(requests.post(f"{pstack.gateway}/v1/projects/demo-project/accounts:lookup", headers=ADMIN, timeout=30,
                                 json={"localId": [signed_up["localId"]]}))["users"][0]
    assert looked_up["passkeyInfo"] == [{"credentialId": credential_id, "name": "My phone"}]
    exported, token = None, None
    while exported is None:
        page = ok(requests.get(f"{pstack.gateway}/v1/projects/demo-project/accounts:batchGet", headers=ADMIN, timeout=30,
                               params={"maxResults": 1000, **({"nextPageToken": token} if token else {})}))
        exported = next((entry for entry in page.get("users", []) if entry["localId"] == signed_up["localId"]), None)
        token = page.get("nextPageToken")
        assert exported or token
    assert exported["passkeyInfo"] == looked_up["passkeyInfo"]


def test_a_passkey_sign_in_counts_for_step_up(pstack):
    """Under `stepUpMaxAge` a user with a second factor must have passed one recently to change the
    password; a passkey sign-in (user verification, possession) passes that bar, so a user who signs
    in with a passkey instead of password and code is not locked out of their own settings."""
    from rest_client import claims
    from test_mfa_policy import enroll_totp, sign_in, sign_up, tenant
    tenant_id = tenant(pstack, stepUpMaxAge="60s")["tenantId"]
    assert configure(pstack, {"rpId": RP_ID, "expectedOrigins": [ORIGIN]}, tenant_id)["rpId"] == RP_ID
    member = sign_up(pstack, tenant_id)
    _, enrolled_totp = enroll_totp(pstack, sign_in(pstack, member)["idToken"], tenant_id)
    device = Authenticator(ORIGIN)
    holder = {"idToken": enrolled_totp["idToken"], "tenantId": tenant_id}
    ok(finalize_enrollment(pstack, holder, device.create(enroll_options(pstack, holder))))
    signed_in = ok(finalize_sign_in(pstack, device.get(sign_in_options(pstack, tenant_id)), tenant_id))
    assert abs(claims(signed_in["idToken"])["firebase"]["second_factor_auth_time"] - __import__("time").time()) < 30
    changed = call(pstack, V1 + "accounts:update", idToken=signed_in["idToken"], tenantId=tenant_id, password="stepped-up-pw")
    assert changed.status_code == 200, changed.text


def test_an_operator_lists_and_deletes_a_lost_phones_passkey_with_mfa_admin(pstack):
    from test_mfa_admin_cli import mfa_admin
    signed_up, device = enrolled(pstack)
    by_passkey = ok(finalize_sign_in(pstack, device.get(sign_in_options(pstack))))
    credential_id = web(device.credentials[0].credential_id)
    listed = mfa_admin(pstack, "factors", "list", signed_up["localId"]).stdout.splitlines()
    assert listed[0] == "no second factors" and listed[1].split() == ["PASSKEY", "NAME"]
    assert listed[2].split() == [credential_id, "My", "phone"]
    users = mfa_admin(pstack, "users", "list", "--limit", "1000").stdout.splitlines()
    assert users[0].split()[-3:] == ["FACTORS", "PASSKEYS", "DISABLED"]
    assert any(line.startswith(signed_up["localId"]) and line.split()[-3:] == ["0", "1", "false"] for line in users)
    found = mfa_admin(pstack, "users", "lookup", "--uid", signed_up["localId"]).stdout
    assert "no second factors" in found and credential_id in found
    deleted = mfa_admin(pstack, "factors", "delete-passkey", signed_up["localId"], credential_id).stdout
    assert deleted.strip() == f"deleted passkey {credential_id}"
    assert not refreshes(pstack, by_passkey["refreshToken"])
    assert error(finalize_sign_in(pstack, device.get(sign_in_options(pstack)))) == "PASSKEY_ENROLLMENT_NOT_FOUND"


def test_a_passkey_session_is_phishing_resistant_and_stays_its_passkeys_when_renewed(pstack):
    """A passkey sign-in's tokens say `acr: phr` and name the passkey; a session it renewed (adding a
    second passkey answers the caller's session renewed) still ends when that passkey is deleted."""
    signed_up, device = enrolled(pstack)
    first = web(device.credentials[0].credential_id)
    by_passkey = ok(finalize_sign_in(pstack, device.get(sign_in_options(pstack))))
    token = jwt.decode(by_passkey["idToken"], options={"verify_signature": False})
    assert token["acr"] == "phr" and token["firebase"]["first_factor_identifier"] == f"passkey:{first}"
    assert "sign_in_second_factor" not in token["firebase"]
    password = jwt.decode(signed_up["idToken"], options={"verify_signature": False})
    assert "acr" not in password and "first_factor_identifier" not in password["firebase"]
    renewed = ok(finalize_enrollment(pstack, by_passkey, Authenticator(ORIGIN).create(enroll_options(pstack, by_passkey)),
                                     name="Laptop"))
    assert jwt.decode(renewed["idToken"], options={"verify_signature": False})["firebase"]["first_factor_identifier"] == \
        f"passkey:{first}"
    refreshed = requests.post(f"{pstack.gateway}/securetoken.googleapis.com/v1/token?key=k", timeout=30,
                              data={"grant_type": "refresh_token", "refresh_token": renewed["refreshToken"]}).json()
    assert jwt.decode(refreshed["id_token"], options={"verify_signature": False})["acr"] == "phr"
    ok(call(pstack, V1 + "accounts:update", idToken=signed_up["idToken"], deletePasskey=[first], returnSecureToken=True))
    assert not refreshes(pstack, renewed["refreshToken"]) and not refreshes(pstack, refreshed["refresh_token"])
    assert error(call(pstack, V1 + "accounts:lookup", idToken=refreshed["id_token"])) == "TOKEN_EXPIRED"
    assert [entry["name"] for entry in lookup(pstack, signed_up["idToken"])["passkeyInfo"]] == ["Laptop"]


def test_a_new_passkey_mails_a_notice_whose_link_removes_it_and_ends_every_session(pstack):
    from mfa_helpers import verified_user
    from rest_client import last_mail, mail_to
    owner = verified_user(pstack)
    device = Authenticator(ORIGIN)
    assert mail_to(pstack, owner["email"], "REVERT_SECOND_FACTOR_ADDITION") == []
    added = ok(finalize_enrollment(pstack, owner, device.create(enroll_options(pstack, owner))))
    mail = last_mail(pstack, owner["email"], "REVERT_SECOND_FACTOR_ADDITION")
    checked = ok(call(pstack, V1 + "accounts:resetPassword", oobCode=mail["oobCode"]))
    assert checked["requestType"] == "REVERT_SECOND_FACTOR_ADDITION" and checked["email"] == owner["email"]
    assert "mfaInfo" not in checked
    by_passkey = ok(finalize_sign_in(pstack, device.get(sign_in_options(pstack))))
    # The owner says it was not them: the passkey goes, and every session with it.
    applied = ok(call(pstack, V1 + "accounts:update", oobCode=mail["oobCode"]))
    assert applied["email"] == owner["email"] and "idToken" not in applied
    assert error(finalize_sign_in(pstack, device.get(sign_in_options(pstack)))) == "PASSKEY_ENROLLMENT_NOT_FOUND"
    for session in (added, by_passkey):
        assert error(call(pstack, V1 + "accounts:lookup", idToken=session["idToken"])) == "TOKEN_EXPIRED"
        assert not refreshes(pstack, session["refreshToken"])
    signed_in = ok(call(pstack, V1 + "accounts:signInWithPassword", email=owner["email"], password=owner["password"],
                        returnSecureToken=True))
    assert "passkeyInfo" not in lookup(pstack, signed_in["idToken"])
    assert error(call(pstack, V1 + "accounts:update", oobCode=mail["oobCode"])) == "INVALID_OOB_CODE"
    events = requests.get(f"{pstack.gateway}/v2/projects/demo-project/securityEvents", headers=ADMIN, timeout=30,
                          params={"localId": owner["localId"]}).json()["events"]
    withdrawn = [event for event in events if event["type"] == "factor.withdrawn"]
    assert withdrawn and withdrawn[0]["details"]["kind"] == "passkey"
    assert withdrawn[0]["details"]["via"] == "REVERT_SECOND_FACTOR_ADDITION"
    # An unverified address gets no notice (nobody proved it is the owner's).
    unverified = user(pstack)
    ok(finalize_enrollment(pstack, unverified, Authenticator(ORIGIN).create(enroll_options(pstack, unverified))))
    assert mail_to(pstack, unverified["email"], "REVERT_SECOND_FACTOR_ADDITION") == []


def test_under_mandatory_a_passkey_sign_in_is_a_full_session_and_a_password_one_is_not(pstack):
    """Decision 24: a passkey verified with user verification satisfies MFA, so under MANDATORY its
    session is a full one with no mfaPendingCredential; a password sign-in without a second factor
    still gets an enrollment-only session, which cannot add a passkey to escape the policy."""
    from rest_client import claims
    from test_mfa_policy import TOTP_ON, patch_tenant, sign_in, sign_up, tenant
    tenant_id = tenant(pstack)["tenantId"]
    assert configure(pstack, {"rpId": RP_ID, "expectedOrigins": [ORIGIN]}, tenant_id)["rpId"] == RP_ID
    member = sign_up(pstack, tenant_id)
    device = Authenticator(ORIGIN)
    holder = {"idToken": sign_in(pstack, member)["idToken"], "tenantId": tenant_id}
    ok(finalize_enrollment(pstack, holder, device.create(enroll_options(pstack, holder))))
    patch_tenant(pstack, tenant_id, {"state": "MANDATORY", "enrollmentGracePeriod": "3600s", "enabledProviders": ["PHONE_SMS"],
                                     "providerConfigs": TOTP_ON})
    by_password = sign_in(pstack, member)
    assert claims(by_password["idToken"])["firebase"]["mfa_enrollment_required"] is True
    limited = {"idToken": by_password["idToken"], "tenantId": tenant_id}
    refused = call(pstack, V2 + "accounts/passkeyEnrollment:start", **limited)
    assert refused.status_code == 400 and "MFA_ENROLLMENT_REQUIRED" in refused.json()["error"]["message"]
    by_passkey = ok(finalize_sign_in(pstack, device.get(sign_in_options(pstack, tenant_id)), tenant_id))
    assert "mfaPendingCredential" not in by_passkey
    token = claims(by_passkey["idToken"])
    assert "mfa_enrollment_required" not in token["firebase"] and "sign_in_second_factor" not in token["firebase"]
    assert token["acr"] == "phr" and token["firebase"]["sign_in_provider"] == "passkey"
    renamed = call(pstack, V1 + "accounts:update", idToken=by_passkey["idToken"], tenantId=tenant_id, displayName="Me")
    assert renamed.status_code == 200, renamed.text


def test_a_passkey_session_that_deletes_its_own_passkey_gets_tokens_that_work_whatever_the_ids_spelling(pstack):
    """iOS names a passkey in standard base64: the answer's tokens, the caller's session renewed,
    no longer name the passkey just deleted, so they work; the session the passkey started does not."""
    signed_up, device = enrolled(pstack)
    by_passkey = ok(finalize_sign_in(pstack, device.get(sign_in_options(pstack))))
    answer = ok(call(pstack, V1 + "accounts:update", idToken=by_passkey["idToken"],
                     deletePasskey=[ios(device.credentials[0].credential_id)], returnSecureToken=True))
    assert "first_factor_identifier" not in jwt.decode(answer["idToken"], options={"verify_signature": False})["firebase"]
    assert lookup(pstack, answer["idToken"])["localId"] == signed_up["localId"]
    assert refreshes(pstack, answer["refreshToken"])
    assert not refreshes(pstack, by_passkey["refreshToken"])
