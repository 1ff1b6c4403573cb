"""Issue 56 in production mode: an account belongs to whoever proves it. Each test is an attack that
worked before its fix, against a stack started as docker-compose.yml starts it, whose mail goes out over
SMTP with STARTTLS, whose SMS and reCAPTCHA checks go over HTTPS to stand-ins with their own CA, and
whose identity providers are a real OpenID Connect provider on loopback over HTTPS (as Google, and as an
operator-added `oidc.other` that is not trusted to verify addresses). Every code is read from the
message that was delivered; admin calls carry the deployment's admin token, the app's calls the
project's own API key."""

import re
import secrets
import time
import urllib.parse

import jwt
import pytest
import requests

import oidc_provider
import outside_stand_ins
from conftest import free_port
from production_stack import running
from test_mfa_sms import ProviderAPI
from test_production_sign_in_surface import confirm, mailed_code, mailed_link

V1 = "/identitytoolkit.googleapis.com/v1/accounts:"
# Short enough for a test to outlive it (issue 56, F-12), long enough for the planting steps.
WINDOW = 8
GOOGLE_CLIENT, OTHER_CLIENT = "google-web-client", "other-app"


@pytest.fixture(scope="module")
def owned():
    with outside_stand_ins.running("mfa-py-ownership-") as stand_ins, oidc_provider.running() as provider:
        # Every client here is 127.0.0.1: production's per-address SMS budget (10) would end the file early.
        challenge_issuer = stand_ins.challenge_issuer | {"SMS_RATE_LIMIT_PER_ADDRESS_BURST": "500", "SMS_RATE_LIMIT_PER_ADDRESS_PER_HOUR": "5000"}
        factor_registry = {"IDENTITY_PROVIDERS_TRUST_ROOTS": str(provider.ca), "IDENTITY_PROVIDERS_GOOGLE_ISSUER": provider.issuer,
                           "FIRST_FACTOR_PER_ADDRESS_BURST": "500", "FIRST_FACTOR_PER_ADDRESS_PER_HOUR": "5000"}
        extra_env = {"challenge-issuer": challenge_issuer, "factor-registry": factor_registry,
                     "gateway": {"RECENT_LOGIN_WINDOW_SECONDS": str(WINDOW)}}
        with running(extra_env=extra_env) as stack:
            base = f"{stack.admin_url}/v2/projects/demo-project"
            for url, body in ((f"{base}/oauthIdpConfigs?oauthIdpConfigId=oidc.other",
                               {"clientId": OTHER_CLIENT, "issuer": provider.issuer, "enabled": True}),
                              (f"{base}/defaultSupportedIdpConfigs?idpId=google.com",
                               {"clientId": GOOGLE_CLIENT, "enabled": True})):
                answer = requests.post(url, json=body, headers=admin(stack), timeout=30)
                assert answer.status_code == 200, answer.text
            # Phone sign-in (off by default in production) and email links on.
            answer = requests.patch(f"{base}/config?updateMask=signIn.phoneNumber.enabled,signIn.email.passwordRequired",
                                    headers=admin(stack), timeout=30,
                                    json={"signIn": {"phoneNumber": {"enabled": True}, "email": {"passwordRequired": False}}})
            assert answer.status_code == 200, answer.text
            yield stack, stand_ins.inbox, provider


def call(stack, operation, **body):
    return requests.post(f"{stack.gateway}{V1}{operation}?key={stack.api_key}", json=body, timeout=30)


def ok(answer):
    assert answer.status_code == 200, answer.text
    return answer.json()


def error(answer):
    assert answer.status_code == 400, answer.text
    return answer.json()["error"]["message"]


def admin(stack):
    return {"Authorization": f"Bearer {stack.admin_token}"}


def address(prefix, domain="example.com"):
    return f"{prefix}-{secrets.token_hex(5)}@{domain}"


def looked_up(stack, local_id):
    answer = requests.post(f"{stack.admin_url}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:lookup",
                           headers=admin(stack), json={"localId": [local_id]}, timeout=30)
    return ok(answer)["users"][0]


def claimed(stack, local_id):
    """The details of the account's `account.claimed` audit records, newest first."""
    answer = requests.get(f"{stack.admin_url}/v2/projects/demo-project/securityEvents", headers=admin(stack), timeout=30,
                          params={"localId": local_id, "eventTypes": "account.claimed"})
    return [event["details"] for event in ok(answer)["events"]]


def refreshes(stack, refresh_token):
    answer = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key={stack.api_key}", timeout=30,
                           data={"grant_type": "refresh_token", "refresh_token": refresh_token})
    return answer.status_code == 200


def provider_token(provider, client, sub, **claims):
    provider.set_user(sub, **claims)
    return provider.id_token(client, sub)


def idp(stack, provider_id, token, **body):
    return call(stack, "signInWithIdp", requestUri="http://localhost", returnSecureToken=True,
                postBody=urllib.parse.urlencode({"id_token": token, "providerId": provider_id}), **body)


def sms_code(number):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for message in reversed(ProviderAPI.received):
            if message["form"]["To"] == [number]:
                return re.match(r"(\d{6}) ", message["form"]["Body"][0]).group(1)
        time.sleep(0.05)
    raise AssertionError(f"no SMS to {number}")


def phone(stack, number, **body):
    """A phone sign-in (or, with `idToken`, a link) through the number's SMS."""
    ProviderAPI.received[:] = [m for m in ProviderAPI.received if m["form"]["To"] != [number]]
    sent = ok(call(stack, "sendVerificationCode", phoneNumber=number, recaptchaToken="good"))
    return call(stack, "signInWithPhoneNumber", sessionInfo=sent["sessionInfo"], code=sms_code(number), **body)


def new_number():
    return f"+1555{free_port():07d}"


def plant(stack, inbox, provider, pre_hijacker, attackers_address):
    """What a pre-hijacker adds to an account whose address they do not own: their own provider user (no
    email at all), their phone number, and an email change to their own address, whose code they keep."""
    sub = "planted-" + secrets.token_hex(5)
    ok(idp(stack, "oidc.other", provider_token(provider, OTHER_CLIENT, sub), idToken=pre_hijacker["idToken"]))
    number = new_number()
    assert ok(phone(stack, number, idToken=pre_hijacker["idToken"]))["phoneNumber"] == number
    ok(call(stack, "sendOobCode", requestType="VERIFY_AND_CHANGE_EMAIL", idToken=pre_hijacker["idToken"],
            newEmail=attackers_address))
    change = mailed_code(inbox, attackers_address, "verifyAndChangeEmail")
    account = looked_up(stack, pre_hijacker["localId"])
    assert account["phoneNumber"] == number and {"oidc.other", "phone"} <= {p["providerId"] for p in account["providerUserInfo"]}
    return sub, number, change


def assert_nothing_planted_leads_back(stack, provider, victim_id, sub, number, change, pre_hijacker):
    # The provider user is on no account any more: it signs in to a new one of its own.
    again = ok(idp(stack, "oidc.other", provider_token(provider, OTHER_CLIENT, sub)))
    assert again["localId"] != victim_id and again.get("isNewUser") is True
    # The number is free: its sign-in makes a new account.
    assert ok(phone(stack, number))["localId"] != victim_id
    # The email change is gone with every other outstanding code.
    assert error(call(stack, "update", oobCode=change)) == "INVALID_OOB_CODE"
    account = looked_up(stack, victim_id)
    assert "phoneNumber" not in account
    assert "oidc.other" not in {p["providerId"] for p in account.get("providerUserInfo", [])}


def test_f1_a_pre_hijackers_link_number_and_email_change_die_with_the_owners_password_reset(owned):
    """F-1: only the planted password went; the attacker signed back in through the linked provider or
    phone, or applied the planted email change and reset the password of "their" address."""
    stack, inbox, provider = owned
    victim, attackers = address("victim"), address("attacker")
    pre_hijacker = ok(call(stack, "signUp", email=victim, password="planted-pw", returnSecureToken=True))
    sub, number, change = plant(stack, inbox, provider, pre_hijacker, attackers)
    # The app's backend made the pre-hijacker a session cookie (the Admin SDKs' create_session_cookie).
    cookie = ok(requests.post(f"{stack.admin_url}/v1/projects/demo-project:createSessionCookie", headers=admin(stack),
                              json={"idToken": pre_hijacker["idToken"], "validDuration": "3600"}, timeout=30))["sessionCookie"]

    ok(call(stack, "sendOobCode", requestType="PASSWORD_RESET", email=victim))
    ok(call(stack, "resetPassword", oobCode=mailed_code(inbox, victim, "resetPassword"), newPassword="owners-pw"))

    assert not refreshes(stack, pre_hijacker["refreshToken"])
    # The cookie is revoked as the Admin SDKs' verify_session_cookie(check_revoked=True) decides: its
    # iat is before the account's validSince.
    keys = jwt.PyJWKClient(f"{stack.gateway}/v1/sessionCookiePublicKeys")
    cookie_claims = jwt.decode(cookie, keys.get_signing_key_from_jwt(cookie).key, algorithms=["RS256"], audience="demo-project")
    assert cookie_claims["iat"] < int(looked_up(stack, pre_hijacker["localId"])["validSince"])
    assert_nothing_planted_leads_back(stack, provider, pre_hijacker["localId"], sub, number, change, pre_hijacker)
    assert ok(call(stack, "signInWithPassword", email=victim, password="owners-pw"))["localId"] == pre_hijacker["localId"]
    assert error(call(stack, "signInWithPassword", email=victim, password="planted-pw")) == "INVALID_LOGIN_CREDENTIALS"
    # An export shows the account as the proof left it.
    exported, token = [], None
    while True:
        page = ok(requests.get(f"{stack.admin_url}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:batchGet",
                               headers=admin(stack), params={"maxResults": 1000, **({"nextPageToken": token} if token else {})},
                               timeout=30))
        exported += [user for user in page.get("users", []) if user["localId"] == pre_hijacker["localId"]]
        if not (token := page.get("nextPageToken")):
            break
    [user] = exported
    assert "phoneNumber" not in user and {p["providerId"] for p in user.get("providerUserInfo", [])} <= {"password"}
    [details] = claimed(stack, pre_hijacker["localId"])
    assert int(details.pop("oobCodes")) >= 1
    assert details == {"via": "passwordReset", "password": "replaced", "providers": "oidc.other", "phoneNumber": "removed",
                       "sessions": "ended"}


def test_f1_f6_the_owners_email_link_claims_the_account_and_ends_a_session_begun_in_the_same_second(owned):
    """F-1 through an email-link sign-in, and F-6: the proof moved validSince to the current second, so a
    session the pre-hijacker began in that same second kept refreshing."""
    stack, inbox, provider = owned
    victim, attackers = address("linked-victim"), address("linked-attacker")
    pre_hijacker = ok(call(stack, "signUp", email=victim, password="planted-pw", returnSecureToken=True))
    sub, number, change = plant(stack, inbox, provider, pre_hijacker, attackers)
    ok(call(stack, "sendOobCode", requestType="EMAIL_SIGNIN", email=victim, continueUrl="http://localhost/finish",
            canHandleCodeInApp=True))
    link_code = mailed_code(inbox, victim, "signIn")
    # At the start of a second: the pre-hijacker's fresh session, then at once the owner's proof.
    time.sleep(1 - time.time() % 1)
    fresh = ok(call(stack, "signInWithPassword", email=victim, password="planted-pw", returnSecureToken=True))
    owner = ok(call(stack, "signInWithEmailLink", email=victim, oobCode=link_code))
    assert owner["localId"] == pre_hijacker["localId"]
    assert not refreshes(stack, fresh["refreshToken"]) and not refreshes(stack, pre_hijacker["refreshToken"])
    assert error(call(stack, "lookup", idToken=fresh["idToken"])) == "TOKEN_EXPIRED"
    # The owner's own session, minted after the boundary, works.
    assert refreshes(stack, owner["refreshToken"])
    assert ok(call(stack, "lookup", idToken=owner["idToken"]))["users"][0]["emailVerified"] is True
    assert error(call(stack, "signInWithPassword", email=victim, password="planted-pw")) == "INVALID_LOGIN_CREDENTIALS"
    assert_nothing_planted_leads_back(stack, provider, owner["localId"], sub, number, change, pre_hijacker)
    [details] = claimed(stack, owner["localId"])
    assert details["via"] == "emailLink" and details["password"] == "removed" and details["sessions"] == "ended"


def test_f1_the_owners_verification_click_removes_the_plants_and_keeps_the_password(owned):
    """F-1 through VERIFY_EMAIL: the owner may click a verification link the pre-hijacker asked for, after
    which no later proof is the first. The password and its sessions stay (docs/security.md: the account's
    creator may well be its owner, verifying in the same browser); everything else goes."""
    stack, inbox, provider = owned
    victim, attackers = address("verified-victim"), address("verified-attacker")
    pre_hijacker = ok(call(stack, "signUp", email=victim, password="creators-pw", returnSecureToken=True))
    sub, number, change = plant(stack, inbox, provider, pre_hijacker, attackers)
    ok(call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=pre_hijacker["idToken"]))
    page = requests.get(mailed_link(inbox, victim, "verifyEmail"), timeout=30)
    assert page.status_code == 200 and "Verify my email address" in page.text
    assert confirm(page).status_code == 200

    assert_nothing_planted_leads_back(stack, provider, pre_hijacker["localId"], sub, number, change, pre_hijacker)
    assert looked_up(stack, pre_hijacker["localId"])["emailVerified"] is True
    assert ok(call(stack, "signInWithPassword", email=victim, password="creators-pw"))["localId"] == pre_hijacker["localId"]
    [details] = claimed(stack, pre_hijacker["localId"])
    assert details["via"] == "verifyEmail" and details["password"] == "kept" and details["sessions"] == "kept"
    assert details["providers"] == "oidc.other" and details["phoneNumber"] == "removed"


def test_f1_f3_googles_proof_takes_the_account_from_an_untrusted_providers_claim_with_its_planted_code(owned):
    """F-3: an operator-added provider asserted email_verified for an address its user does not own; the
    account was "verified", the owner's Google sign-in linked into it and the attacker kept access. F-1:
    a planted email-change code survived that Google sign-in."""
    stack, inbox, provider = owned
    victim, attackers = address("gmail-victim", "gmail.com"), address("gmail-attacker")
    squat_sub = "squatter-" + secrets.token_hex(5)
    squatted = ok(idp(stack, "oidc.other",
                      provider_token(provider, OTHER_CLIENT, squat_sub, email=victim, email_verified=True)))
    # oidc.other is not authoritative for the address: it is stored unverified.
    assert squatted["isNewUser"] is True and squatted["emailVerified"] is False
    assert jwt.decode(squatted["idToken"], options={"verify_signature": False})["email_verified"] is False
    ok(call(stack, "sendOobCode", requestType="VERIFY_AND_CHANGE_EMAIL", idToken=squatted["idToken"], newEmail=attackers))
    change = mailed_code(inbox, attackers, "verifyAndChangeEmail")

    owner_sub = "owner-" + secrets.token_hex(5)
    owner = ok(idp(stack, "google.com", provider_token(provider, GOOGLE_CLIENT, owner_sub, email=victim, email_verified=True)))
    assert owner["localId"] == squatted["localId"] and owner["emailVerified"] is True

    assert error(call(stack, "update", oobCode=change)) == "INVALID_OOB_CODE"
    assert not refreshes(stack, squatted["refreshToken"])
    again = ok(idp(stack, "oidc.other", provider_token(provider, OTHER_CLIENT, squat_sub, email=victim, email_verified=True)))
    assert again.get("needConfirmation") is True and "idToken" not in again
    assert {p["providerId"] for p in looked_up(stack, owner["localId"])["providerUserInfo"]} == {"google.com"}
    [details] = claimed(stack, owner["localId"])
    assert details["via"] == "trustedProvider" and details["providers"] == "oidc.other"


def test_f7_an_email_recovery_takes_back_the_takers_password_and_number(owned):
    """F-7: RECOVER_EMAIL restored the address, but the password the taker set still signed in."""
    stack, inbox, provider = owned
    owners, takers = address("recovering-owner"), address("taker")
    owner = ok(call(stack, "signUp", email=owners, password="owners-pw", returnSecureToken=True))
    # The taker, with the owner's fresh session, moves the address to theirs and sets a password by it.
    ok(call(stack, "sendOobCode", requestType="VERIFY_AND_CHANGE_EMAIL", idToken=owner["idToken"], newEmail=takers))
    ok(call(stack, "update", oobCode=mailed_code(inbox, takers, "verifyAndChangeEmail")))
    ok(call(stack, "sendOobCode", requestType="PASSWORD_RESET", email=takers))
    ok(call(stack, "resetPassword", oobCode=mailed_code(inbox, takers, "resetPassword"), newPassword="takers-pw"))
    taker = ok(call(stack, "signInWithPassword", email=takers, password="takers-pw", returnSecureToken=True))
    number = new_number()
    ok(phone(stack, number, idToken=taker["idToken"]))

    page = requests.get(mailed_link(inbox, owners, "recoverEmail"), timeout=30)
    assert page.status_code == 200 and "Restore my email address and sign out everywhere" in page.text
    restored = confirm(page)
    assert restored.status_code == 200 and "a link to choose a new one is on its way" in restored.text

    for email in (owners, takers):
        assert error(call(stack, "signInWithPassword", email=email, password="takers-pw")) == "INVALID_LOGIN_CREDENTIALS"
    assert not refreshes(stack, taker["refreshToken"])
    account = looked_up(stack, owner["localId"])
    assert account["email"] == owners and "phoneNumber" not in account
    # The password reset is mailed to the restored address right away.
    ok(call(stack, "resetPassword", oobCode=mailed_code(inbox, owners, "resetPassword"), newPassword="owners-new-pw"))
    assert ok(call(stack, "signInWithPassword", email=owners, password="owners-new-pw"))["localId"] == owner["localId"]


def test_f10_an_id_token_with_a_nonce_signs_in_once_in_the_whole_deployment(owned):
    """F-10: the used-nonce store was per schema, so a "once" token signed in once more in every tenant
    that shares the provider's client id."""
    stack, _, provider = owned
    tenant = ok(requests.post(f"{stack.admin_url}/v2/projects/demo-project/tenants", headers=admin(stack), timeout=30,
                              json={"displayName": "Nonce"}))["name"].rsplit("/", 1)[1]
    ok(requests.post(f"{stack.admin_url}/v2/projects/demo-project/tenants/{tenant}/defaultSupportedIdpConfigs?idpId=google.com",
                     headers=admin(stack), json={"clientId": GOOGLE_CLIENT, "enabled": True}, timeout=30))
    sub, raw = "nonce-" + secrets.token_hex(5), secrets.token_urlsafe(16)
    provider.set_user(sub, email=address("nonce", "gmail.com"), email_verified=True)
    token = provider.id_token(GOOGLE_CLIENT, sub, nonce=oidc_provider.hashed_nonce(raw))
    body = urllib.parse.urlencode({"id_token": token, "providerId": "google.com", "nonce": raw})
    ok(call(stack, "signInWithIdp", requestUri="http://localhost", postBody=body, returnSecureToken=True))
    replayed = call(stack, "signInWithIdp", requestUri="http://localhost", postBody=body, tenantId=tenant, returnSecureToken=True)
    assert error(replayed).startswith("MISSING_OR_INVALID_NONCE")


def test_f11_a_pending_token_is_used_once_and_never_relinks_a_provider_unlinked_since(owned):
    """F-11: a pendingToken was reusable for an hour and re-linked a provider just unlinked."""
    stack, _, provider = owned
    email = address("pending", "gmail.com")
    first = ok(idp(stack, "google.com", provider_token(provider, GOOGLE_CLIENT, "p-" + secrets.token_hex(5), email=email,
                                                      email_verified=True)))
    assert ok(call(stack, "signInWithIdp", requestUri="http://localhost", pendingToken=first["pendingToken"],
                   returnSecureToken=True))["localId"] == first["localId"]
    assert error(call(stack, "signInWithIdp", requestUri="http://localhost", pendingToken=first["pendingToken"],
                      returnSecureToken=True)) == "INVALID_PENDING_TOKEN"
    # A fresh sign-in's token, then the provider unlinked (the account keeps its verified address).
    second = ok(idp(stack, "google.com", provider_token(provider, GOOGLE_CLIENT, "p-" + secrets.token_hex(5),
                                                       email=address("pending2", "gmail.com"), email_verified=True)))
    ok(call(stack, "update", idToken=second["idToken"], deleteProvider=["google.com"]))
    relinked = call(stack, "signInWithIdp", requestUri="http://localhost", pendingToken=second["pendingToken"],
                    idToken=second["idToken"], returnSecureToken=True)
    assert relinked.status_code == 400
    assert "google.com" not in {p["providerId"] for p in looked_up(stack, second["localId"]).get("providerUserInfo", [])}


def test_f12_an_unlink_needs_a_recent_sign_in_and_never_removes_the_last_way_in(owned):
    """F-12: a stolen refresh token unlinked the owner's provider or phone, and an unlink could leave an
    account nobody can sign in to."""
    stack, _, provider = owned
    email = address("unlink")
    owner = ok(call(stack, "signUp", email=email, password="owners-pw", returnSecureToken=True))
    ok(phone(stack, new_number(), idToken=owner["idToken"]))
    time.sleep(WINDOW + 1.5)
    stale = ok(requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key={stack.api_key}", timeout=30,
                             data={"grant_type": "refresh_token", "refresh_token": owner["refreshToken"]}))["id_token"]
    assert error(call(stack, "update", idToken=stale, deleteProvider=["phone"])) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    assert "phoneNumber" in looked_up(stack, owner["localId"])
    # A provider user without an address (an untrusted provider's) has nothing else to sign in with.
    lone = ok(idp(stack, "oidc.other", provider_token(provider, OTHER_CLIENT, "lone-" + secrets.token_hex(5))))
    assert error(call(stack, "update", idToken=lone["idToken"], deleteProvider=["oidc.other"])) == \
        "OPERATION_NOT_ALLOWED : The account's last way to sign in cannot be removed."
    # Nor does a phone account without its number.
    number_only = ok(phone(stack, new_number()))
    assert error(call(stack, "update", idToken=number_only["idToken"], deleteProvider=["phone"])).startswith(
        "OPERATION_NOT_ALLOWED")
    assert looked_up(stack, number_only["localId"])["phoneNumber"]


def test_f13_a_token_issued_to_another_app_that_also_names_us_is_refused(owned):
    """F-13: a token whose aud named us and another app, with azp the other app, signed in."""
    stack, _, provider = owned
    now = int(time.time())
    claims = {"iss": provider.issuer, "sub": "azp-" + secrets.token_hex(5), "iat": now, "exp": now + 600}
    other = provider.signed(claims | {"aud": [OTHER_CLIENT, "someone-elses-app"], "azp": "someone-elses-app"})
    assert error(idp(stack, "oidc.other", other)) == "INVALID_IDP_RESPONSE : The id_token was issued to another party (azp)."
    several = provider.signed(claims | {"aud": [OTHER_CLIENT, "someone-elses-app"]})
    assert error(idp(stack, "oidc.other", several)).startswith("INVALID_IDP_RESPONSE")
    # Google's Android sign-in: the web client as aud, the Android app's client as azp (documented).
    android = provider.signed(claims | {"aud": GOOGLE_CLIENT, "azp": "android-client.apps.googleusercontent.com"})
    assert ok(idp(stack, "google.com", android))["localId"]


def test_f14_a_photo_url_is_a_web_address_only(owned):
    """F-14: `javascript:…` was stored as the photo URL that apps put in a link or an image."""
    stack, _, provider = owned
    user = ok(call(stack, "signUp", email=address("photo"), password="secret-pw", returnSecureToken=True))
    for hostile in ("javascript:alert(document.cookie)", "data:text/html,<script>alert(1)</script>"):
        assert error(call(stack, "update", idToken=user["idToken"], photoUrl=hostile)).startswith("INVALID_PHOTO_URL")
    assert ok(call(stack, "update", idToken=user["idToken"], photoUrl="https://cdn.example/me.png"))["photoUrl"] == \
        "https://cdn.example/me.png"
    # A provider's picture that is no web address is not kept either.
    signed_in = ok(idp(stack, "oidc.other", provider_token(provider, OTHER_CLIENT, "pic-" + secrets.token_hex(5),
                                                          picture="javascript:alert(1)")))
    assert "photoUrl" not in looked_up(stack, signed_in["localId"])


def test_f7_a_recovery_to_an_address_never_proved_is_its_first_proof(owned):
    """F-1 through F-7's link: a pre-hijacker who planted a provider user and a number on the victim's
    unproven address, then moved the account to their own address, kept both through the victim's
    recovery, which removed only what was added after the change."""
    stack, inbox, provider = owned
    victim, attackers = address("moved-victim"), address("moved-attacker")
    pre_hijacker = ok(call(stack, "signUp", email=victim, password="planted-pw", returnSecureToken=True))
    sub = "moved-" + secrets.token_hex(5)
    ok(idp(stack, "oidc.other", provider_token(provider, OTHER_CLIENT, sub), idToken=pre_hijacker["idToken"]))
    number = new_number()
    ok(phone(stack, number, idToken=pre_hijacker["idToken"]))
    ok(call(stack, "sendOobCode", requestType="VERIFY_AND_CHANGE_EMAIL", idToken=pre_hijacker["idToken"], newEmail=attackers))
    ok(call(stack, "update", oobCode=mailed_code(inbox, attackers, "verifyAndChangeEmail")))

    restored = confirm(requests.get(mailed_link(inbox, victim, "recoverEmail"), timeout=30))
    assert restored.status_code == 200, restored.text
    again = ok(idp(stack, "oidc.other", provider_token(provider, OTHER_CLIENT, sub)))
    assert again["localId"] != pre_hijacker["localId"]
    assert ok(phone(stack, number))["localId"] != pre_hijacker["localId"]
    account = looked_up(stack, pre_hijacker["localId"])
    assert account["email"] == victim and account["emailVerified"] is True and "phoneNumber" not in account
    events = requests.get(f"{stack.admin_url}/v2/projects/demo-project/securityEvents", headers=admin(stack), timeout=30,
                          params={"localId": pre_hijacker["localId"], "eventTypes": "email.changed"})
    recovered = [event["details"] for event in ok(events)["events"] if event["details"].get("via") == "RECOVER_EMAIL"]
    assert recovered and recovered[0]["firstProof"] == "true" and recovered[0]["providers"] == "oidc.other"


def test_an_imported_unproven_account_is_claimed_by_its_first_proof(owned):
    """An import is trusted as the operator's, but an address it brings unverified is as unproven as any
    other: its first proof removes the links and number it came with, like a sign-up's."""
    stack, inbox, provider = owned
    uid, email, sub = "imported-" + secrets.token_hex(5), address("imported"), "imported-" + secrets.token_hex(5)
    number = new_number()
    answer = ok(requests.post(
        f"{stack.admin_url}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:batchCreate", headers=admin(stack),
        timeout=60, json={"users": [
            {"localId": uid, "email": email, "emailVerified": False, "phoneNumber": number,
             "providerUserInfo": [{"providerId": "oidc.other", "rawId": sub}]},
            {"localId": uid + "-photo", "email": address("imported-photo"), "photoUrl": "javascript:alert(1)"}]}))
    assert [entry["index"] for entry in answer["error"]] == [1]
    assert "oidc.other" in {p["providerId"] for p in looked_up(stack, uid)["providerUserInfo"]}
    ok(call(stack, "sendOobCode", requestType="PASSWORD_RESET", email=email))
    ok(call(stack, "resetPassword", oobCode=mailed_code(inbox, email, "resetPassword"), newPassword="owners-pw"))
    assert ok(idp(stack, "oidc.other", provider_token(provider, OTHER_CLIENT, sub)))["localId"] != uid
    assert ok(phone(stack, number))["localId"] != uid
    [details] = claimed(stack, uid)
    assert details["providers"] == "oidc.other" and details["phoneNumber"] == "removed"
