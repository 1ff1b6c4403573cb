"""The SMS pumping defence: a bot that texts a block of premium numbers while real users sign in is
stopped within a stated number of messages (the anomaly brake pauses the destination, an operator is
told by metric, log and webhook, and resumes it through the admin API); velocity limits per country
and per number prefix and spend caps hold per tenant; test phone numbers never count."""

import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from conftest import another_stack, free_port
from mfa_helpers import ADMIN, RECAPTCHA, V1, V2, error, unique_phone, verified_user

TENANTS = "/v2/projects/demo-project/tenants"
# The brake's threshold in this stack: the 15th send to one country within an hour (no history) pauses it.
ANOMALY_MINIMUM = 15


class Webhook(BaseHTTPRequestHandler):
    events = []

    def do_POST(self):
        Webhook.events.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def defended_stack(stack):
    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), Webhook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with another_stack(stack, "sms-defense", extra_env={
        "SMS_DEFENSE_PREFIX_HOURLY_LIMIT": "3", "SMS_DEFENSE_ANOMALY_MINIMUM_HOURLY_SENDS": str(ANOMALY_MINIMUM),
        "SMS_DEFENSE_WEBHOOK_URL": f"http://127.0.0.1:{port}/sms-alerts",
    }) as running:
        try:
            yield running
        finally:
            server.shutdown()


def send_code(stack, number):
    """Phone sign-in's first step: the SMS a pumping bot triggers without any account."""
    body = {"phoneNumber": number, "recaptchaToken": RECAPTCHA}
    return requests.post(f"{stack.gateway}{V1}sendVerificationCode?key=k", json=body, timeout=30)


def enrollment_code(stack, user, number):
    """A tenant user's second-factor enrollment SMS."""
    info = {"phoneNumber": number, "recaptchaToken": RECAPTCHA}
    return requests.post(f"{stack.gateway}{V2}mfaEnrollment:start?key=k", timeout=30,
                         json={"idToken": user["idToken"], "tenantId": user["tenant"], "phoneEnrollmentInfo": info})


def sms_code(stack, session_info, tenant=None):
    path = "/emulator/v1/projects/demo-project" + (f"/tenants/{tenant}" if tenant else "") + "/verificationCodes"
    codes = requests.get(stack.gateway + path, timeout=30).json()["verificationCodes"]
    return next(entry["code"] for entry in codes if entry["sessionInfo"] == session_info)


def status(stack, tenant=None):
    path = "/v2/projects/demo-project" + (f"/tenants/{tenant}" if tenant else "") + "/smsDefense"
    answer = requests.get(stack.gateway + path, headers=ADMIN, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def metric(stack, name, **labels):
    text = requests.get(stack.ops("challenge-issuer") + "/metrics", timeout=30).text
    wanted = {key: str(value) for key, value in labels.items()}
    for line in text.splitlines():
        if line.startswith(name + "{"):
            inside = line.split("{", 1)[1].split("}", 1)[0]
            found = dict(pair.split("=", 1) for pair in inside.split(","))
            if {key: value.strip('"') for key, value in found.items()} == wanted:
                return float(line.rsplit(" ", 1)[1])
    return 0.0


def premium_number(attempt):
    """A block of Indonesian numbers a toll-fraud ring rents: 20 prefixes, cycled."""
    return f"+62855{attempt % 20:03d}{secrets.randbelow(10**5):05d}"


def test_a_pumping_bot_is_stopped_and_real_users_still_get_their_codes(defended_stack):
    stack = defended_stack
    bot_sent, bot_refused, users_signed_in = 0, [], 0
    for attempt in range(60):
        answer = send_code(stack, premium_number(attempt))
        if answer.status_code == 200:
            assert not bot_refused, "a paused destination let a message through"
            bot_sent += 1
        else:
            bot_refused.append(error(answer))
        if attempt % 6 == 0:
            # A real user in the US signs in with the code they were sent.
            number = unique_phone()
            sent = send_code(stack, number)
            assert sent.status_code == 200, sent.text
            session = sent.json()["sessionInfo"]
            signed_in = requests.post(f"{stack.gateway}{V1}signInWithPhoneNumber?key=k", timeout=30,
                                      json={"sessionInfo": session, "code": sms_code(stack, session)})
            assert signed_in.status_code == 200, signed_in.text
            users_signed_in += 1
    # The brake stopped the bot at the stated message: the threshold's send is refused and pauses ID.
    assert bot_sent == ANOMALY_MINIMUM - 1
    assert set(bot_refused) == {"QUOTA_EXCEEDED : Exceeded quota."} and len(bot_refused) == 60 - bot_sent
    assert users_signed_in == 10
    seen = status(stack)
    assert [paused["region"] for paused in seen["pausedRegions"]] == ["ID"]
    by_region = {day["region"]: day for day in seen["today"]}
    assert by_region["ID"]["sends"] == bot_sent and by_region["ID"]["verified"] == 0
    assert by_region["US"]["sends"] >= 10 and by_region["US"]["verified"] >= 10
    assert seen["spendTodayUsd"] > 0 and seen["spendThisMonthUsd"] >= seen["spendTodayUsd"]
    # The operator is told: a metric, and the webhook (the number never leaves the service).
    assert metric(stack, "mfa_sms_region_pauses_total", region="ID") == 1
    assert metric(stack, "mfa_sms_refused_total", region="ID", reason="anomaly") == 1
    assert metric(stack, "mfa_sms_refused_total", region="ID", reason="paused") == len(bot_refused) - 1
    assert metric(stack, "mfa_sms_verified_total", region="US") >= 10
    for _ in range(50):
        if Webhook.events:
            break
        threading.Event().wait(0.1)
    assert [(event["event"], event["region"], event["sendsLastHour"]) for event in Webhook.events] == \
        [("sms.region.paused", "ID", ANOMALY_MINIMUM)]
    log = stack.log_path("challenge-issuer").read_text()
    assert "SMS to a region paused" in log and "+62855" not in log
    # The operator resumes it; the sends before the resume no longer count toward a pause.
    resumed = requests.post(f"{stack.gateway}/v2/projects/demo-project/smsDefense:resume", headers=ADMIN,
                            json={"region": "id"}, timeout=30)
    assert resumed.status_code == 200 and resumed.json() == {"wasPaused": True}, resumed.text
    assert send_code(stack, premium_number(7)).status_code == 200
    assert status(stack)["pausedRegions"] == []


def test_the_state_is_the_admins_alone(defended_stack):
    stack = defended_stack
    url = f"{stack.gateway}/v2/projects/demo-project/smsDefense"
    assert requests.get(url + "?key=k", timeout=30).status_code != 200
    assert requests.get(f"{stack.gateway}{TENANTS}/nosuchtenant-0123/smsDefense", headers=ADMIN, timeout=30).status_code == 400
    bad = requests.post(url + ":resume", headers=ADMIN, json={"region": "Indonesia"}, timeout=30)
    assert bad.status_code == 400 and "region" in error(bad)


def tenant_with(stack, defense, test_numbers=None):
    body = {"displayName": "Defended", "allowPasswordSignup": True, "smsDefenseConfig": defense,
            "mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}, "testPhoneNumbers": test_numbers or {}}
    created = requests.post(stack.gateway + TENANTS, json=body, headers=ADMIN, timeout=60)
    assert created.status_code == 200, created.text
    return created.json()


def test_a_tenant_daily_spend_cap_stops_sends_and_test_numbers_never_count(stack):
    tenant = tenant_with(stack, {"dailySpendCapUsd": 0.3, "segmentPricesUsd": {"US": 0.1}}, {"+15555550123": "123456"})
    assert tenant["smsDefenseConfig"] == {"dailySpendCapUsd": 0.3, "segmentPricesUsd": {"US": 0.1}}
    tenant_id = tenant["tenantId"]
    user = verified_user(stack, tenant=tenant_id)
    for _ in range(3):
        sent = enrollment_code(stack, user, unique_phone())
        assert sent.status_code == 200, sent.text
    capped = enrollment_code(stack, user, unique_phone())
    assert capped.status_code == 400 and error(capped) == "QUOTA_EXCEEDED : Exceeded quota."
    assert enrollment_code(stack, user, "+15555550123").status_code == 200
    assert status(stack, tenant_id)["spendTodayUsd"] == pytest.approx(0.3)
    # Another tenant's spend is its own.
    other = tenant_with(stack, {"dailySpendCapUsd": 0.3})["tenantId"]
    assert enrollment_code(stack, verified_user(stack, tenant=other), unique_phone()).status_code == 200


def test_velocity_limits_hold_per_country_and_per_prefix(stack):
    tenant_id = tenant_with(stack, {"countryHourlyLimit": 3, "prefixHourlyLimit": 2})["tenantId"]
    user = verified_user(stack, tenant=tenant_id)
    same_prefix = "+1650555"
    assert enrollment_code(stack, user, same_prefix + "0001").status_code == 200
    assert enrollment_code(stack, user, same_prefix + "0002").status_code == 200
    refused = enrollment_code(stack, user, same_prefix + "0003")
    assert refused.status_code == 400 and error(refused) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    assert enrollment_code(stack, user, "+14155550100").status_code == 200
    assert error(enrollment_code(stack, user, "+12125550100")) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    assert enrollment_code(stack, user, "+447700900123").status_code == 200


@pytest.mark.parametrize("defense, words", [
    ({"countryHourlyLimit": 0}, "at least 1"),
    ({"dailySpendCapUsd": -1}, "must not be negative"),
    ({"anomalyFactor": 0.5}, "anomalyFactor"),
    ({"segmentPricesUsd": {"XX": 0.1}}, "segmentPricesUsd"),
    ({"countryLimit": 5}, "has no member countryLimit"),
    ({"countryHourlyLimit": "many"}, "numbers"),
])
def test_bad_defence_settings_are_refused(stack, defense, words):
    created = requests.post(stack.gateway + TENANTS, json={"displayName": "Bad", "smsDefenseConfig": defense},
                            headers=ADMIN, timeout=60)
    assert created.status_code == 400 and error(created).startswith("INVALID_CONFIG") and words in error(created), created.text
