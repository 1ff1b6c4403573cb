"""Issue 44: blocking functions on Identity Platform's contract. The functions are the Python Firebase
Functions SDK's `before_user_created` / `before_user_signed_in` handlers (and the send events' handlers
written as the Node SDK reads them), served by functions-framework on loopback (blocking_functions.py);
the apps' calls go through Google's generated REST client. Development mode: plain HTTP to the
functions, the SDK's emulator switch in place of its signature check (the production suite checks the
signature against the gateway's keys)."""

import secrets
import threading
import time
from http.server import ThreadingHTTPServer

import pyotp
import pytest
import requests

import blocking_functions
from conftest import another_stack, free_port
from mfa_helpers import ADMIN, RECAPTCHA, enable_project_totp, sms_code, v1, v2
from rest_client import admin_lookup, admin_update, claims, failure, identitytoolkit, unique_email
from test_mfa_sms import ProviderAPI

REFUSED = "BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Cloud Function returned an error: "


@pytest.fixture(scope="module")
def functions():
    with blocking_functions.running() as running:
        yield running


class EuropeanProvider(ProviderAPI):
    """The `eu` SMS route's provider: test_mfa_sms's Messages API stand-in, with a record of its own."""
    received = []


@pytest.fixture(scope="module")
def fstack(stack):
    port = free_port()
    provider = ThreadingHTTPServer(("127.0.0.1", port), EuropeanProvider)
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    with another_stack(stack, "functions", extra_env={
            "BLOCKING_FUNCTIONS_ALLOW_PRIVATE_ADDRESSES": "true", "SMS_ROUTE_NAMES": "eu", "SMS_ROUTE_EU_SENDER": "http",
            "SMS_ROUTE_EU_HTTP_BASE_URL": f"http://127.0.0.1:{port}", "SMS_ROUTE_EU_HTTP_ACCOUNT_ID": "AC-EU",
            "SMS_ROUTE_EU_HTTP_AUTH_TOKEN": "eu-secret", "SMS_ROUTE_EU_HTTP_FROM": "+445550001111",
            # Held accounts a crash left behind go after 8 s (past the function's 7 s deadline).
            "ACCOUNTS_HELD_RETENTION_SECONDS": "8", "ACCOUNTS_HELD_SWEEP_SECONDS": "1",
            # App proofs are checked (development mode checks none unless told to), the test token
            # standing in for a solved captcha: the function must hear only of proved requests.
            "APP_VERIFICATION_EMULATOR": "false", "APP_VERIFICATION_TEST_TOKEN_ENABLED": "true"}) as running:
        enable_project_totp(running)
        yield running
    provider.shutdown()


def configure(fstack, blocking: dict, tenant: str | None = None) -> dict:
    if tenant:
        url = f"{fstack.gateway}/v2/projects/demo-project/tenants/{tenant}?updateMask=blockingFunctions"
    else:
        url = f"{fstack.gateway}/v2/projects/demo-project/config?updateMask=blockingFunctions"
    answer = requests.patch(url, json={"blockingFunctions": blocking}, headers=ADMIN, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.fixture(scope="module")
def configured(fstack, functions):
    configure(fstack, blocking_functions.triggers(
        functions, beforeCreate="before_created", beforeSignIn="before_signed_in", beforeSendSms="before_sms",
        beforeSendEmail="before_email"))
    return functions


def sign_up(fstack, email, password="secret-pw", **extra):
    return identitytoolkit(fstack).accounts().signUp(body={"email": email, "password": password, **extra})


def sign_in(fstack, email, password="secret-pw", **extra):
    return identitytoolkit(fstack).accounts().signInWithPassword(
        body={"email": email, "password": password, "returnSecureToken": True, **extra})


def test_project_config_keeps_the_triggers_with_their_update_time_and_refuses_an_unknown_event(fstack, configured):
    document = requests.get(f"{fstack.gateway}/v2/projects/demo-project/config", headers=ADMIN, timeout=30).json()
    triggers = document["blockingFunctions"]["triggers"]
    assert triggers["beforeCreate"]["functionUri"] == configured.uri("before_created")
    assert set(triggers) == {"beforeCreate", "beforeSignIn", "beforeSendSms", "beforeSendEmail"}
    assert all(trigger["updateTime"].endswith("Z") for trigger in triggers.values())
    answer = requests.patch(f"{fstack.gateway}/v2/projects/demo-project/config?updateMask=blockingFunctions",
                            json={"blockingFunctions": {"triggers": {"beforeDelete": {"functionUri": "http://127.0.0.1:1/x"}}}},
                            headers=ADMIN, timeout=30)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"].startswith("INVALID_CONFIG : blockingFunctions.triggers has no event beforeDelete")


def test_a_refused_sign_up_creates_nothing_and_the_client_reads_the_functions_error(fstack, configured):
    email = f"eve-{time.time_ns()}@blocked.example"
    status, message = failure(sign_up(fstack, email))
    assert status == 400
    assert message.startswith(REFUSED)
    assert '"message":"Sign-ups from blocked.example are closed"' in message and '"status":"PERMISSION_DENIED"' in message
    heard = [entry for entry in configured.events("beforeCreate") if entry["email"] == email]
    assert len(heard) == 1 and heard[0]["is_new_user"] is True and heard[0]["sign_in_method"] == "password"
    # Nothing was kept: the address is free, and nobody signs in with it.
    status, message = failure(sign_in(fstack, email))
    assert message in ("EMAIL_NOT_FOUND", "INVALID_LOGIN_CREDENTIALS")
    assert not [entry for entry in configured.events("beforeSignIn") if entry["email"] == email]


def test_before_create_sets_the_profile_and_claims_and_before_sign_in_adds_claims_of_the_session(fstack, configured):
    email = unique_email("staff")
    answer = sign_up(fstack, email).execute()
    token = claims(answer["idToken"])
    assert token["role"] == "staff" and token["name"] == "Staff member"
    assert token["second_factors"] == [] and token["signed_in_from"] == "127.0.0.1"
    created = [entry for entry in configured.events("beforeCreate") if entry["email"] == email][0]
    signed_in = [entry for entry in configured.events("beforeSignIn") if entry["email"] == email][0]
    assert created["uid"] == signed_in["uid"] == answer["localId"]
    assert signed_in["custom_claims"] == {"role": "staff"} and signed_in["is_new_user"] is False
    assert created["providers"] == ["password"] and created["ip_address"] == "127.0.0.1"
    stored = admin_lookup(fstack, answer["localId"])
    # The account keeps the function's profile and claims; the session's claims are the session's only.
    assert stored["displayName"] == "Staff member" and stored["customAttributes"] == '{"role":"staff"}'
    # The session's claims stay with its refreshed tokens; a later sign-in gets its own.
    refreshed = requests.post(f"{fstack.gateway}/securetoken.googleapis.com/v1/token?key=k", timeout=30,
                              data={"grant_type": "refresh_token", "refresh_token": answer["refreshToken"]})
    assert refreshed.status_code == 200, refreshed.text
    assert claims(refreshed.json()["id_token"])["signed_in_from"] == "127.0.0.1"
    again = sign_in(fstack, email).execute()
    assert claims(again["idToken"])["role"] == "staff"
    assert len([entry for entry in configured.events("beforeSignIn") if entry["email"] == email]) == 2


def test_before_sign_in_runs_only_after_the_totp_second_factor(fstack, configured):
    email = unique_email("totp")
    user = sign_up(fstack, email).execute()
    admin_update(fstack, {"localId": user["localId"], "emailVerified": True})
    started = v2(fstack, "mfaEnrollment:start", idToken=user["idToken"], totpEnrollmentInfo={}).json()["totpSessionInfo"]
    totp = pyotp.TOTP(started["sharedSecretKey"])
    finalized = v2(fstack, "mfaEnrollment:finalize", idToken=user["idToken"],
                   totpVerificationInfo={"sessionInfo": started["sessionInfo"], "verificationCode": totp.now()})
    assert finalized.status_code == 200, finalized.text
    before = len([entry for entry in configured.events("beforeSignIn") if entry["email"] == email])
    pending = sign_in(fstack, email).execute()
    assert "mfaPendingCredential" in pending and "idToken" not in pending
    assert len([entry for entry in configured.events("beforeSignIn") if entry["email"] == email]) == before
    done = identitytoolkit(fstack, "v2").accounts().mfaSignIn().finalize(body={
        "mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": pending["mfaInfo"][0]["mfaEnrollmentId"],
        "totpVerificationInfo": {"verificationCode": totp.at(time.time() + 30)}}).execute()
    heard = [entry for entry in configured.events("beforeSignIn") if entry["email"] == email]
    assert len(heard) == before + 1 and heard[-1]["factors"] == ["totp"]
    token = claims(done["idToken"])
    assert token["second_factors"] == ["totp"] and token["firebase"]["sign_in_second_factor"] == "totp"


def test_before_sign_in_runs_after_the_sms_second_factor_and_each_sms_is_heard_first(fstack, configured):
    email = unique_email("sms")
    user = sign_up(fstack, email).execute()
    admin_update(fstack, {"localId": user["localId"], "emailVerified": True})
    number = "+1650" + str(time.time_ns() % 10**7).zfill(7)
    started = v2(fstack, "mfaEnrollment:start", idToken=user["idToken"],
                 phoneEnrollmentInfo={"phoneNumber": number, "recaptchaToken": RECAPTCHA})
    assert started.status_code == 200, started.text
    session = started.json()["phoneSessionInfo"]["sessionInfo"]
    finalized = v2(fstack, "mfaEnrollment:finalize", idToken=user["idToken"],
                   phoneVerificationInfo={"sessionInfo": session, "code": sms_code(fstack, session)})
    assert finalized.status_code == 200, finalized.text
    pending = sign_in(fstack, email).execute()
    start = v2(fstack, "mfaSignIn:start", mfaPendingCredential=pending["mfaPendingCredential"],
               mfaEnrollmentId=pending["mfaInfo"][0]["mfaEnrollmentId"], phoneSignInInfo={"recaptchaToken": RECAPTCHA})
    assert start.status_code == 200, start.text
    session = start.json()["phoneResponseInfo"]["sessionInfo"]
    done = v2(fstack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
              phoneVerificationInfo={"sessionInfo": session, "code": sms_code(fstack, session)})
    assert done.status_code == 200, done.text
    assert claims(done.json()["idToken"])["second_factors"] == ["phone"]
    sms = [entry for entry in configured.events("beforeSendSms") if entry["phone_number"] == number]
    assert [entry["sms_type"] for entry in sms] == ["MULTI_FACTOR_ENROLLMENT", "MULTI_FACTOR_SIGN_IN"]
    assert all(entry["sub"] == user["localId"] and entry["event_type"] == "beforeSendSms" for entry in sms)


def test_an_sms_the_function_refuses_is_not_sent(fstack, configured):
    email = unique_email("nosms")
    user = sign_up(fstack, email).execute()
    admin_update(fstack, {"localId": user["localId"], "emailVerified": True})
    number = "+1555" + str(time.time_ns() % 10**7).zfill(7)
    started = v2(fstack, "mfaEnrollment:start", idToken=user["idToken"],
                 phoneEnrollmentInfo={"phoneNumber": number, "recaptchaToken": RECAPTCHA})
    assert started.status_code == 400
    message = started.json()["error"]["message"]
    assert message.startswith(REFUSED) and "No SMS to +1555 numbers" in message
    codes = requests.get(f"{fstack.gateway}/emulator/v1/projects/demo-project/verificationCodes", timeout=30).json()
    assert not [entry for entry in codes["verificationCodes"] if entry.get("phoneNumber") == number]


def enrollment_sms(fstack, number):
    """A new user's SMS enrollment start to `number`: the answer."""
    user = sign_up(fstack, unique_email("route")).execute()
    admin_update(fstack, {"localId": user["localId"], "emailVerified": True})
    return v2(fstack, "mfaEnrollment:start", idToken=user["idToken"],
              phoneEnrollmentInfo={"phoneNumber": number, "recaptchaToken": RECAPTCHA})


def test_the_function_picks_the_sms_route_and_a_route_the_deployment_lacks_is_its_error(fstack, configured):
    number = "+447700" + str(time.time_ns() % 10**6).zfill(6)
    started = enrollment_sms(fstack, number)
    assert started.status_code == 200, started.text
    # Sent by the `eu` provider, not the default (development's sink), with the code the session checks.
    sent = [entry["form"] for entry in EuropeanProvider.received if entry["form"]["To"] == [number]]
    assert len(sent) == 1 and sent[0]["From"] == ["+445550001111"]
    session = started.json()["phoneSessionInfo"]["sessionInfo"]
    assert sms_code(fstack, session) in sent[0]["Body"][0]
    french = "+336" + str(time.time_ns() % 10**8).zfill(8)
    refused = enrollment_sms(fstack, french)
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == (
        "BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Cloud Function named an SMS route this deployment does not have")


def test_the_function_hears_of_an_sms_only_after_the_apps_proof(fstack, configured):
    number = "+1650" + str(time.time_ns() % 10**7).zfill(7)
    user = sign_up(fstack, unique_email("proof")).execute()
    admin_update(fstack, {"localId": user["localId"], "emailVerified": True})
    refused = v2(fstack, "mfaEnrollment:start", idToken=user["idToken"], phoneEnrollmentInfo={"phoneNumber": number})
    assert refused.status_code == 400, refused.text
    assert not [entry for entry in configured.events("beforeSendSms") if entry["phone_number"] == number]


def test_a_gateway_that_dies_during_before_create_leaves_no_way_in(fstack, configured):
    email = unique_email("hang")
    outcome = {}

    def attempt():
        try:
            outcome["answer"] = sign_up(fstack, email).execute()
        except Exception as failed:  # noqa: BLE001 - the connection dies with the gateway
            outcome["error"] = failed

    call = threading.Thread(target=attempt)
    call.start()
    deadline = time.monotonic() + 10
    while not [entry for entry in configured.events("beforeCreate") if entry["email"] == email]:
        assert time.monotonic() < deadline, "the function never heard of the sign-up"
        time.sleep(0.05)
    fstack.kill("gateway")
    call.join(timeout=30)
    assert "answer" not in outcome
    fstack.start("gateway")
    fstack.wait_ready()
    # The account the function never allowed is held (disabled): its password signs nobody in.
    status, message = failure(sign_in(fstack, email))
    assert status == 400 and message in ("USER_DISABLED", "INVALID_LOGIN_CREDENTIALS")
    uid = [entry for entry in configured.events("beforeCreate") if entry["email"] == email][0]["uid"]
    stored = admin_lookup(fstack, uid)
    assert stored["disabled"] is True
    # Nobody released it, so it goes: the email is not kept from its owner's next try.
    base = f"{fstack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project"
    deadline = time.monotonic() + 30
    while requests.post(f"{base}/accounts:lookup", json={"localId": [uid]}, headers=ADMIN, timeout=30).json().get("users"):
        assert time.monotonic() < deadline, "the held account was never removed"
        time.sleep(0.5)
    status, message = failure(sign_in(fstack, email))
    assert status == 400 and message in ("EMAIL_NOT_FOUND", "INVALID_LOGIN_CREDENTIALS")


def test_a_function_that_disables_the_user_refuses_the_sign_in(fstack, configured):
    email = unique_email("off")
    status, message = failure(sign_up(fstack, email))
    assert (status, message) == (400, "USER_DISABLED")
    uid = [entry for entry in configured.events("beforeSignIn") if entry["email"] == email][0]["uid"]
    stored = admin_lookup(fstack, uid)
    assert stored["disabled"] is True


def test_a_function_that_fails_or_times_out_refuses_with_a_clear_error_and_no_5xx(fstack, configured):
    crashed = unique_email("crash")
    status, message = failure(sign_up(fstack, crashed))
    assert status == 400 and message.startswith(REFUSED) and '"status":"INTERNAL"' in message
    slow = unique_email("slow")
    started = time.monotonic()
    status, message = failure(sign_up(fstack, slow))
    assert status == 400
    assert message == "BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Cloud Function did not answer within 7 seconds"
    assert 6.5 < time.monotonic() - started < 9


def test_a_tenant_uses_its_own_function_or_else_its_projects(fstack, configured):
    tenants = f"{fstack.gateway}/v2/projects/demo-project/tenants"
    own = requests.post(tenants, json={"displayName": "invite-only", "allowPasswordSignup": True}, headers=ADMIN, timeout=30)
    plain = requests.post(tenants, json={"displayName": "plain", "allowPasswordSignup": True}, headers=ADMIN, timeout=30)
    assert own.status_code == plain.status_code == 200, own.text + plain.text
    own_id, plain_id = own.json()["tenantId"], plain.json()["tenantId"]
    document = configure(fstack, blocking_functions.triggers(configured, beforeCreate="refuse_every_sign_up"), tenant=own_id)
    assert document["blockingFunctions"]["triggers"]["beforeCreate"]["functionUri"] == configured.uri("refuse_every_sign_up")
    status, message = failure(sign_up(fstack, unique_email("t"), tenantId=own_id))
    assert status == 400 and "This tenant is invite-only" in message
    email = unique_email("staff")
    answer = sign_up(fstack, email, tenantId=plain_id).execute()
    assert claims(answer["idToken"])["role"] == "staff"
    heard = [entry for entry in configured.events("beforeCreate") if entry["email"] == email][0]
    assert heard["tenant_id"] == plain_id


def test_a_password_reset_the_function_blocks_is_refused(fstack, configured):
    email = f"quiet-{time.time_ns()}@quiet.example"
    sign_up(fstack, email).execute()
    answer = v1(fstack, "sendOobCode", requestType="PASSWORD_RESET", email=email)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == (
        "BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Cloud Function returned recaptchaActionOverride BLOCK")
    heard = [entry for entry in configured.events("beforeSendEmail") if entry["email"] == email]
    assert heard == [{"event": "beforeSendEmail", "email": email, "email_type": "PASSWORD_RESET",
                      "event_type": "beforeSendEmail"}]


def test_each_call_is_audited_and_metered(fstack, configured):
    sign_up(fstack, unique_email("audited")).execute()
    events = requests.get(f"{fstack.gateway}/v2/projects/demo-project/securityEvents",
                          params={"eventTypes": "blockingFunction.called", "pageSize": 1000}, headers=ADMIN, timeout=30)
    assert events.status_code == 200, events.text
    entries = events.json()["events"]
    outcomes = {(entry["details"]["event"], entry["details"]["outcome"]) for entry in entries}
    assert {("beforeCreate", "allowed"), ("beforeSignIn", "allowed"), ("beforeCreate", "blocked")} <= outcomes
    assert all(entry["details"]["function"].startswith(configured.uri("")) for entry in entries)
    metrics = requests.get(fstack.ops("gateway") + "/metrics", timeout=30).text
    assert 'mfa_blocking_function_calls_total{event="beforeSignIn",outcome="allowed"}' in metrics


def test_in_development_a_function_on_the_developers_machine_is_called(stack, functions):
    """Issue 58: development mode allows functions on loopback and private addresses by default, as the
    Functions emulator does; production refuses them (test_production_hardening.py)."""
    tenant = requests.post(f"{stack.gateway}/v2/projects/demo-project/tenants",
                           json={"displayName": "private-fn", "allowPasswordSignup": True}, headers=ADMIN, timeout=30).json()
    configure(stack, blocking_functions.triggers(functions, beforeCreate="before_created"), tenant=tenant["tenantId"])
    status, message = failure(sign_up(stack, f"eve-{secrets.token_hex(4)}@blocked.example", tenantId=tenant["tenantId"]))
    assert status == 400 and "Sign-ups from blocked.example are closed" in message
    assert sign_up(stack, unique_email("private"), tenantId=tenant["tenantId"]).execute()["localId"]
    requests.delete(f"{stack.gateway}/v2/projects/demo-project/tenants/{tenant['tenantId']}", headers=ADMIN, timeout=30)


def test_before_sign_in_hears_of_a_passkey_sign_in_and_may_refuse_it(fstack, configured):
    """A passkey is a first factor like any other: the scope's `beforeSignIn` function hears of it
    (`sign_in_method: passkey`), its session claims ride in the session, and its refusal stands."""
    from soft_authenticator import Authenticator
    origin = "http://localhost:5173"
    configured_keys = requests.patch(f"{fstack.gateway}/v2/projects/demo-project/passkeyConfig", headers=ADMIN, timeout=30,
                                     json={"rpId": "localhost", "expectedOrigins": [origin]})
    assert configured_keys.status_code == 200, configured_keys.text
    email = unique_email("passkey")
    user = sign_up(fstack, email).execute()
    device = Authenticator(origin)
    options = v2(fstack, "passkeyEnrollment:start", idToken=user["idToken"]).json()["credentialCreationOptions"]
    enrolled = v2(fstack, "passkeyEnrollment:finalize", idToken=user["idToken"], authenticatorRegistrationResponse=device.create(options).body)
    assert enrolled.status_code == 200, enrolled.text

    def passkey_sign_in():
        request = v2(fstack, "passkeySignIn:start").json()["credentialRequestOptions"]
        return v2(fstack, "passkeySignIn:finalize", authenticatorAuthenticationResponse=device.get(request).body)

    signed_in = passkey_sign_in()
    assert signed_in.status_code == 200, signed_in.text
    assert claims(signed_in.json()["idToken"])["signed_in_from"] == "127.0.0.1"
    heard = [entry for entry in configured.events("beforeSignIn") if entry["uid"] == user["localId"]]
    assert heard[-1]["sign_in_method"] == "passkey"
    # The function disables whoever's address starts with "off-": the passkey signs nobody in then.
    admin_update(fstack, {"localId": user["localId"], "email": "off-" + email})
    refused = passkey_sign_in()
    assert refused.status_code == 400 and refused.json()["error"]["message"] == "USER_DISABLED"
