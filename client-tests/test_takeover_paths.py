"""Issue 39's takeover and lockout paths, each written as the attack that worked before its fix, in a
development stack of its own (its mail and SMS sink show the codes an attacker would receive) with a
recent-login window of seconds, the daily guessing odds lowered so a budget runs out in a few checks,
and production's wrong-password budget. The production-mode cases are in
test_production_sign_in_surface.py (phone sign-in off by default, H-1 over SMTP)."""

import concurrent.futures
import time

import pytest
import requests

from conftest import another_stack
from mfa_helpers import ADMIN, RECAPTCHA, error, sms_code, unique_phone, v1, v2, verified_user
from rest_client import (admin_lookup, claims, failure, follow, identitytoolkit, last_mail, project_config_url, refresh,
                         unique_email)
from test_mfa_sms import enroll_phone

WINDOW = 3
TOO_MANY = "TOO_MANY_ATTEMPTS_TRY_LATER"


@pytest.fixture(scope="module")
def attacked(stack):
    with another_stack(stack, "takeover", mode="development", extra_env={
            "RECENT_LOGIN_WINDOW_SECONDS": str(WINDOW), "GUESSING_MAXIMUM_DAILY_ODDS": "0.00001",
            "FIRST_FACTOR_FAILURES_BURST": "10", "FIRST_FACTOR_FAILURES_PER_HOUR": "20",
            "SMS_RATE_LIMIT_PER_NUMBER_BURST": "4", "SMS_RATE_LIMIT_PER_NUMBER_PER_HOUR": "4"}) as running:
        answer = requests.patch(f"{project_config_url(running)}?updateMask=signIn.email.passwordRequired", headers=ADMIN,
                                json={"signIn": {"email": {"passwordRequired": False}}}, timeout=30)
        assert answer.status_code == 200, answer.text
        yield running


def accounts(stack):
    return identitytoolkit(stack).accounts()


def stale_token(stack, refresh_token):
    """What a stolen refresh token gives once the sign-in it came from is older than the window."""
    time.sleep(WINDOW + 1.5)
    refreshed = refresh(stack, refresh_token)
    assert refreshed.status_code == 200, refreshed.text
    return refreshed.json()["id_token"]


def email_link_code(stack, email):
    accounts(stack).sendOobCode(body={"requestType": "EMAIL_SIGNIN", "email": email,
                                      "continueUrl": "http://localhost/finish", "canHandleCodeInApp": True}).execute()
    return last_mail(stack, email, "EMAIL_SIGNIN")["oobCode"]


def phone_session(stack, number):
    sent = accounts(stack).sendVerificationCode(body={"phoneNumber": number, "recaptchaToken": RECAPTCHA}).execute()
    return sent["sessionInfo"], sms_code(stack, sent["sessionInfo"])


def test_h1_a_stolen_refresh_token_cannot_put_the_attackers_address_on_the_account(attacked):
    victim_email = unique_email("victim")
    victim = accounts(attacked).signUp(body={"email": victim_email, "password": "secret-pw"}).execute()
    stolen = stale_token(attacked, victim["refreshToken"])
    attacker_email = unique_email("attacker")
    code = email_link_code(attacked, attacker_email)
    link = {"idToken": stolen, "email": attacker_email, "oobCode": code}
    assert failure(accounts(attacked).signInWithEmailLink(body=link)) == (400, "PROVIDER_ALREADY_LINKED")
    # Not with a fresh sign-in either: a link never replaces an address (that is an email change).
    fresh = v1(attacked, "signInWithPassword", email=victim_email, password="secret-pw").json()
    assert failure(accounts(attacked).signInWithEmailLink(body={**link, "idToken": fresh["idToken"]})) == \
        (400, "PROVIDER_ALREADY_LINKED")
    assert admin_lookup(attacked, victim["localId"])["email"] == victim_email
    # The attacker's code was not used up by the refusals: it still signs the attacker's own address in.
    assert accounts(attacked).signInWithEmailLink(body={"email": attacker_email, "oobCode": code}).execute()["isNewUser"]


def test_m6_a_stolen_refresh_token_cannot_link_a_phone_or_upgrade_a_phone_account(attacked):
    victim = accounts(attacked).signUp(body={"email": unique_email("victim"), "password": "secret-pw"}).execute()
    number = unique_phone()
    session, code = phone_session(attacked, number)
    phone_user = accounts(attacked).signInWithPhoneNumber(body={"sessionInfo": session, "code": code}).execute()
    stolen = stale_token(attacked, victim["refreshToken"])
    stolen_phone_user = refresh(attacked, phone_user["refreshToken"]).json()["id_token"]
    attacker_number = unique_phone()
    session, code = phone_session(attacked, attacker_number)
    linked = {"idToken": stolen, "sessionInfo": session, "code": code}
    assert failure(accounts(attacked).signInWithPhoneNumber(body=linked)) == (400, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
    assert "phoneNumber" not in admin_lookup(attacked, victim["localId"])
    upgrade = {"idToken": stolen_phone_user, "email": unique_email("attacker"), "password": "attacker-pw"}
    assert failure(accounts(attacked).signUp(body=upgrade)) == (400, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
    assert "email" not in admin_lookup(attacked, phone_user["localId"])
    # The owner, just signed in, links a number; the trail says so.
    fresh = v1(attacked, "signInWithPassword", email=admin_lookup(attacked, victim["localId"])["email"],
               password="secret-pw").json()
    session, code = phone_session(attacked, unique_phone())
    assert "idToken" in accounts(attacked).signInWithPhoneNumber(
        body={"idToken": fresh["idToken"], "sessionInfo": session, "code": code}).execute()
    events = requests.get(f"{attacked.gateway}/v2/projects/demo-project/securityEvents", headers=ADMIN, timeout=30,
                          params={"localId": victim["localId"], "eventTypes": "phoneNumber.changed"}).json()
    assert len(events["events"]) == 1, events


def test_m6_a_linked_number_is_mailed_to_the_address_with_a_link_that_removes_it(attacked):
    """A number linked with a stolen but recent session (or by anyone at the owner's unlocked phone) stays a
    way in, through every password change. The owner hears of it, in their language, with a way to undo it."""
    email = unique_email("linked")
    owner = accounts(attacked).signUp(body={"email": email, "password": "secret-pw"}).execute()
    number = unique_phone()
    session, code = phone_session(attacked, number)
    linked = requests.post(f"{attacked.gateway}/v1/accounts:signInWithPhoneNumber?key=k", timeout=30,
                           headers={"X-Firebase-Locale": "es"},
                           json={"idToken": owner["idToken"], "sessionInfo": session, "code": code})
    assert linked.status_code == 200, linked.text
    notice = last_mail(attacked, email, "REVERT_PHONE_NUMBER_ADDITION")
    assert notice["locale"] == "es" and "teléfono" in notice["subject"]
    assert number[-4:] in notice["text"] and number not in notice["text"] and notice["oobLink"] in notice["text"]
    assert "mode=revertPhoneNumberAddition" in notice["oobLink"]
    checked = accounts(attacked).resetPassword(body={"oobCode": notice["oobCode"]}).execute()
    assert checked["requestType"] == "REVERT_PHONE_NUMBER_ADDITION" and checked["email"] == email
    # Linking the number it already has tells nothing new.
    session, code = phone_session(attacked, number)
    accounts(attacked).signInWithPhoneNumber(body={"idToken": linked.json()["idToken"], "sessionInfo": session,
                                                   "code": code}).execute()
    assert len([m for m in oob_codes_to(attacked, email) if m["requestType"] == "REVERT_PHONE_NUMBER_ADDITION"]) == 1
    # The owner follows the link: the number is gone, every session ends, the number signs in to nothing of theirs.
    followed = follow(attacked, notice["oobLink"])
    assert followed.status_code == 200 and followed.json()["authEmulator"]["success"], followed.text
    assert "phoneNumber" not in admin_lookup(attacked, owner["localId"])
    for token in (owner["refreshToken"], linked.json()["refreshToken"]):
        assert error(refresh(attacked, token)) == "TOKEN_EXPIRED"
    session, code = phone_session(attacked, number)
    stranger = accounts(attacked).signInWithPhoneNumber(body={"sessionInfo": session, "code": code}).execute()
    assert stranger["isNewUser"] and stranger["localId"] != owner["localId"]
    assert follow(attacked, notice["oobLink"]).status_code == 400
    events = requests.get(f"{attacked.gateway}/v2/projects/demo-project/securityEvents", headers=ADMIN, timeout=30,
                          params={"localId": owner["localId"], "eventTypes": "phoneNumber.changed"}).json()
    assert [e.get("details", {}).get("via") for e in events["events"]] == ["REVERT_PHONE_NUMBER_ADDITION", None], events


def oob_codes_to(stack, email):
    return [entry for entry in requests.get(f"{stack.gateway}/emulator/v1/projects/demo-project/oobCodes",
                                            timeout=30).json()["oobCodes"] if entry["email"] == email]


def test_m6_an_anonymous_account_is_still_upgraded_with_its_only_credential(attacked):
    anonymous = accounts(attacked).signUp(body={}).execute()
    old = stale_token(attacked, anonymous["refreshToken"])
    assert claims(old)["firebase"]["sign_in_provider"] == "anonymous"
    upgraded = accounts(attacked).signUp(body={"idToken": old, "email": unique_email("upgrade"), "password": "secret-pw"})
    assert upgraded.execute()["localId"] == anonymous["localId"]


def test_m7_the_owners_email_link_ends_a_pre_hijackers_password_and_sessions(attacked):
    email = unique_email("prehijack")
    hijacker = accounts(attacked).signUp(body={"email": email, "password": "hijacker-pw"}).execute()
    # No pause: a session begun in the proof's own second ends too (issue 56, F-6).
    owner = accounts(attacked).signInWithEmailLink(body={"email": email, "oobCode": email_link_code(attacked, email)})
    owner = owner.execute()
    assert owner["localId"] == hijacker["localId"] and owner["isNewUser"] is False
    assert error(v1(attacked, "signInWithPassword", email=email, password="hijacker-pw")) in \
        {"INVALID_PASSWORD", "INVALID_LOGIN_CREDENTIALS"}
    assert error(refresh(attacked, hijacker["refreshToken"])) == "TOKEN_EXPIRED"
    assert v1(attacked, "lookup", idToken=owner["idToken"]).status_code == 200
    # A link to an address already proved keeps its password: nobody could have planted it.
    again = accounts(attacked).signInWithEmailLink(body={"email": email, "oobCode": email_link_code(attacked, email)})
    assert again.execute()["localId"] == owner["localId"]
    assert refresh(attacked, owner["refreshToken"]).status_code == 200


def test_f1_a_planted_number_and_email_change_code_die_with_the_owners_password_reset(attacked):
    """Issue 56, F-1 on the development stack: after the owner's password reset, the pre-hijacker's linked
    number still signed in to the account and their email-change code still moved it to their address."""
    email, attackers = unique_email("planted"), unique_email("planter")
    hijacker = accounts(attacked).signUp(body={"email": email, "password": "hijacker-pw"}).execute()
    number = unique_phone()
    session, code = phone_session(attacked, number)
    accounts(attacked).signInWithPhoneNumber(body={"idToken": hijacker["idToken"], "sessionInfo": session,
                                                   "code": code}).execute()
    accounts(attacked).sendOobCode(body={"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": hijacker["idToken"],
                                         "newEmail": attackers}).execute()
    change = last_mail(attacked, attackers, "VERIFY_AND_CHANGE_EMAIL")["oobCode"]
    accounts(attacked).sendOobCode(body={"requestType": "PASSWORD_RESET", "email": email}).execute()
    accounts(attacked).resetPassword(body={"oobCode": last_mail(attacked, email, "PASSWORD_RESET")["oobCode"],
                                           "newPassword": "owners-pw"}).execute()
    session, code = phone_session(attacked, number)
    assert accounts(attacked).signInWithPhoneNumber(body={"sessionInfo": session, "code": code}).execute()["localId"] \
        != hijacker["localId"]
    assert failure(accounts(attacked).update(body={"oobCode": change})) == (400, "INVALID_OOB_CODE")
    assert admin_lookup(attacked, hijacker["localId"])["email"] == email


def test_h4_wrong_phone_sign_in_codes_for_other_numbers_never_lock_a_stranger_out(attacked):
    """Four checks a day per number here. Before the fix every first-factor phone check of the project
    also spent one shared 'account' budget, so these six wrong codes locked everyone's phone sign-in."""
    for _ in range(3):
        number = unique_phone()
        for _ in range(2):
            session, code = phone_session(attacked, number)
            wrong = f"{(int(code) + 1) % 1_000_000:06d}"
            assert failure(accounts(attacked).signInWithPhoneNumber(body={"sessionInfo": session, "code": wrong})) == \
                (400, "INVALID_CODE")
    victim = unique_phone()
    session, code = phone_session(attacked, victim)
    assert accounts(attacked).signInWithPhoneNumber(body={"sessionInfo": session, "code": code}).execute()["isNewUser"]


def test_l1_forty_parallel_wrong_passwords_get_no_more_checks_than_the_budget(attacked):
    email = unique_email("guessed")
    accounts(attacked).signUp(body={"email": email, "password": "secret-pw"}).execute()
    with concurrent.futures.ThreadPoolExecutor(40) as pool:
        answers = list(pool.map(lambda n: error(v1(attacked, "signInWithPassword", email=email, password=f"guess-{n}")),
                                range(40)))
    assert answers.count("INVALID_PASSWORD") <= 10, answers
    assert set(answers) <= {"INVALID_PASSWORD", TOO_MANY} and answers.count(TOO_MANY) >= 30, answers


def test_m4_a_continue_url_a_browser_would_read_otherwise_is_refused(attacked):
    """`https://evil.example\\@localhost/` was Foundation's `localhost` and a browser's evil.example; other
    schemes than http(s) ran script from the link."""
    email = unique_email("continue")
    for hostile in ("https://evil.example\\@localhost/finish", "https://evil.example%40@localhost/", "javascript://localhost/%0Aalert(1)",
                    "data:text/html,<script>alert(1)</script>//localhost", "https://user@localhost/", " https://localhost/",
                    "https:/localhost/", "https://localhost\t.evil.example/"):
        answer = v1(attacked, "sendOobCode", requestType="EMAIL_SIGNIN", email=email, continueUrl=hostile,
                    canHandleCodeInApp=True)
        assert answer.status_code == 400 and error(answer).startswith("INVALID_CONTINUE_URI"), (hostile, answer.text)
    assert error(v1(attacked, "sendOobCode", requestType="EMAIL_SIGNIN", email=email, continueUrl="https://evil.example/")) == \
        "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project"
    assert v1(attacked, "sendOobCode", requestType="EMAIL_SIGNIN", email=email, continueUrl="HTTPS://LOCALHOST:8443/finish?x=1",
              canHandleCodeInApp=True).status_code == 200


def test_m2_strangers_sends_to_a_number_and_its_prefix_do_not_deny_its_owners_factor(attacked):
    """Four sends an hour per number here, and the project's prefix hour lowered to three sends. A
    stranger with app proofs used both up, and the owner's enrolled SMS factor was refused with them."""
    config = f"{project_config_url(attacked)}?updateMask=smsDefenseConfig"
    lowered = requests.patch(config, headers=ADMIN, json={"smsDefenseConfig": {"prefixHourlyLimit": 3}}, timeout=30)
    assert lowered.status_code == 200, lowered.text
    try:
        owner, number = verified_user(attacked), unique_phone()
        enroll_phone(attacked, owner, number)
        refusals = []
        for _ in range(6):
            sent = v1(attacked, "sendVerificationCode", phoneNumber=number, recaptchaToken=RECAPTCHA)
            if sent.status_code != 200:
                refusals.append(error(sent))
        assert refusals and set(refusals) <= {TOO_MANY, "QUOTA_EXCEEDED"}, refusals
        # The owner's sign-in still gets its code, and finishes with it.
        pending = v1(attacked, "signInWithPassword", email=owner["email"], password=owner["password"]).json()
        start = v2(attacked, "mfaSignIn:start", mfaPendingCredential=pending["mfaPendingCredential"],
                   mfaEnrollmentId=pending["mfaInfo"][0]["mfaEnrollmentId"], phoneSignInInfo={"recaptchaToken": RECAPTCHA})
        assert start.status_code == 200, start.text
        session = start.json()["phoneResponseInfo"]["sessionInfo"]
        finished = v2(attacked, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                      phoneVerificationInfo={"sessionInfo": session, "code": sms_code(attacked, session)})
        assert finished.status_code == 200, finished.text
    finally:
        requests.patch(config, headers=ADMIN, json={"smsDefenseConfig": {}}, timeout=30)


def test_m5_the_development_page_follows_only_an_authorized_continue_url(attacked):
    """The emulator's page (development) still applies a code on GET, but no longer sends the browser
    to whatever `continueUrl` a link was given."""
    email = unique_email("page")
    user = accounts(attacked).signUp(body={"email": email, "password": "secret-pw"}).execute()
    accounts(attacked).sendOobCode(body={"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]}).execute()
    link = last_mail(attacked, email, "VERIFY_EMAIL")["oobLink"]
    answer = follow(attacked, link, continueUrl="https://evil.example/")
    assert answer.status_code == 200 and "location" not in answer.headers, answer.text
    assert answer.json()["authEmulator"]["success"] == "The email has been successfully verified."
