"""The sign-in surface of issue 24 in production mode: a stack started as docker-compose.yml starts it,
whose mail goes out over SMTP with STARTTLS and whose SMS and reCAPTCHA checks go over HTTPS, to local
stand-ins with their own CA (trusted through `email.smtp.trustRoots`, `sms.http.trustRoots`,
`appVerification.recaptcha.trustRoots`, as a deployment trusts a public one). No development route
is there: every code is read from the message that was delivered."""

import html
import re
import time
import urllib.parse

import pytest
import requests

import outside_stand_ins
from conftest import free_port
from production_stack import running
from test_mfa_sms import ProviderAPI

V1 = "/identitytoolkit.googleapis.com/v1/accounts:"


@pytest.fixture(scope="module")
def production_surface():
    with outside_stand_ins.running("mfa-py-surface-") as stand_ins, \
            running(extra_env={"challenge-issuer": stand_ins.challenge_issuer}) as stack:
        # Phone sign-in is off in production until an operator turns it on (issue 39, M-3).
        assert set_phone_sign_in(stack, True)["signIn"]["phoneNumber"]["enabled"] is True
        yield stack, stand_ins.inbox


def call(stack, operation, **body):
    return requests.post(f"{stack.gateway}{V1}{operation}?key={stack.api_key}", json=body, timeout=30)


def admin(stack):
    return {"Authorization": f"Bearer {stack.admin_token}"}


def set_phone_sign_in(stack, enabled):
    config = f"{stack.admin_url}/v2/projects/demo-project/config?updateMask=signIn.phoneNumber.enabled"
    answer = requests.patch(config, headers=admin(stack), json={"signIn": {"phoneNumber": {"enabled": enabled}}}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


# Links the helpers below have handed out: each call waits for a mail it has not seen yet.
HANDED_OUT = set()


def mailed_link(inbox, recipient, mode, wait=10):
    """The link of the newest mail to `recipient` of `mode` not handed out before, waited for: a reset's
    mail goes out just after the answer (issue 39, L-2)."""
    deadline = time.monotonic() + wait
    while True:
        for message in reversed(list(inbox.messages)):
            if message["To"] == recipient:
                link = re.search(r"https?://\S+", message.get_body(("plain",)).get_content()).group(0)
                if urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["mode"] == [mode] and link not in HANDED_OUT:
                    HANDED_OUT.add(link)
                    return link
        if time.monotonic() > deadline:
            raise AssertionError(f"no new {mode} mail to {recipient}")
        time.sleep(0.05)


def newest_mail(inbox, recipient, count, wait=10):
    """The newest mail to `recipient` once there are `count` of them (waited for, as mailed_link)."""
    deadline = time.monotonic() + wait
    while len(mails := [m for m in list(inbox.messages) if m["To"] == recipient]) < count:
        assert time.monotonic() < deadline, f"fewer than {count} mails to {recipient}"
        time.sleep(0.05)
    return mails[-1]


def mailed_code(inbox, recipient, mode):
    """The code of the newest mail to `recipient` of `mode` (see mailed_link)."""
    return urllib.parse.parse_qs(urllib.parse.urlsplit(mailed_link(inbox, recipient, mode)).query)["oobCode"][0]


def test_a_password_reset_is_mailed_over_tls_and_ends_every_session(production_surface):
    stack, inbox = production_surface
    email = f"reset-{free_port()}-{len(inbox.messages)}@example.com"
    signed_up = call(stack, "signUp", email=email, password="secret-pw", returnSecureToken=True).json()
    assert call(stack, "sendOobCode", requestType="PASSWORD_RESET", email=email).status_code == 200
    code = mailed_code(inbox, email, "resetPassword")
    assert call(stack, "resetPassword", oobCode=code).json()["requestType"] == "PASSWORD_RESET"
    assert call(stack, "resetPassword", oobCode=code, newPassword="brand-new-pw").status_code == 200
    assert call(stack, "lookup", idToken=signed_up["idToken"]).json()["error"]["message"] == "TOKEN_EXPIRED"
    assert "idToken" in call(stack, "signInWithPassword", email=email, password="brand-new-pw").json()
    # Production's email enumeration protection: an unknown address is answered alike and mailed nothing.
    before = len(inbox.messages)
    unknown = call(stack, "sendOobCode", requestType="PASSWORD_RESET", email=f"nobody-{before}@example.com")
    assert unknown.status_code == 200
    time.sleep(0.5)
    assert len(inbox.messages) == before


def test_a_direct_email_change_is_refused_and_a_verified_one_works(production_surface):
    stack, inbox = production_surface
    email, new_email = f"change-{free_port()}@example.com", f"changed-{free_port()}@example.com"
    signed_up = call(stack, "signUp", email=email, password="secret-pw", returnSecureToken=True).json()
    direct = call(stack, "update", idToken=signed_up["idToken"], email=new_email)
    assert direct.json()["error"]["message"] == "OPERATION_NOT_ALLOWED : Please verify the new email before changing email."
    sent = call(stack, "sendOobCode", requestType="VERIFY_AND_CHANGE_EMAIL", idToken=signed_up["idToken"], newEmail=new_email)
    assert sent.status_code == 200, sent.text
    applied = call(stack, "update", oobCode=mailed_code(inbox, new_email, "verifyAndChangeEmail"))
    assert applied.json()["email"] == new_email
    # The old address was told, with the way back.
    restored = call(stack, "update", oobCode=mailed_code(inbox, email, "recoverEmail"))
    assert restored.json()["email"] == email


def test_phone_sign_in_sends_nothing_and_creates_nothing_while_the_project_has_it_off(production_surface):
    stack, _ = production_surface
    number = f"+1555{free_port():07d}"
    assert set_phone_sign_in(stack, False)["signIn"]["phoneNumber"]["enabled"] is False
    try:
        sends = len(ProviderAPI.received)
        refused = call(stack, "sendVerificationCode", phoneNumber=number, recaptchaToken="good")
        assert refused.status_code == 400 and refused.json()["error"]["message"] == "OPERATION_NOT_ALLOWED"
        assert call(stack, "signInWithPhoneNumber", sessionInfo="x" * 40, code="123456").json()["error"]["message"] == \
            "OPERATION_NOT_ALLOWED"
        assert len(ProviderAPI.received) == sends
    finally:
        assert set_phone_sign_in(stack, True)["signIn"]["phoneNumber"]["enabled"] is True


def test_phone_sign_in_sends_its_sms_over_https_after_a_recaptcha_check(production_surface):
    stack, _ = production_surface
    number = f"+1555{free_port():07d}"
    sent = call(stack, "sendVerificationCode", phoneNumber=number, recaptchaToken="good")
    assert sent.status_code == 200, sent.text
    text = next(m for m in reversed(ProviderAPI.received) if m["form"]["To"] == [number])["form"]["Body"][0]
    code = re.match(r"(\d{6}) ", text).group(1)
    signed_in = call(stack, "signInWithPhoneNumber", sessionInfo=sent.json()["sessionInfo"], code=code).json()
    assert signed_in["isNewUser"] is True and signed_in["phoneNumber"] == number
    refused = call(stack, "sendVerificationCode", phoneNumber=number, recaptchaToken="forged")
    assert refused.status_code == 400


def test_a_linked_number_is_mailed_over_smtp_and_its_link_removes_it_after_confirmation(production_surface):
    """Issue 39, M-6 in production: the notice goes out over SMTP; the link's page shows first and the
    confirming POST removes the number and ends every session."""
    stack, inbox = production_surface
    email = f"linker-{free_port()}@example.com"
    owner = call(stack, "signUp", email=email, password="secret-pw", returnSecureToken=True).json()
    number = f"+1555{free_port():07d}"
    sent = call(stack, "sendVerificationCode", phoneNumber=number, recaptchaToken="good")
    assert sent.status_code == 200, sent.text
    text = next(m for m in reversed(ProviderAPI.received) if m["form"]["To"] == [number])["form"]["Body"][0]
    code = re.match(r"(\d{6}) ", text).group(1)
    linked = call(stack, "signInWithPhoneNumber", idToken=owner["idToken"], sessionInfo=sent.json()["sessionInfo"], code=code)
    assert linked.status_code == 200 and linked.json()["phoneNumber"] == number, linked.text
    page = requests.get(mailed_link(inbox, email, "revertPhoneNumberAddition"), timeout=30)
    assert page.status_code == 200 and "Remove the phone number and sign out everywhere" in page.text
    assert call(stack, "lookup", idToken=linked.json()["idToken"]).json()["users"][0]["phoneNumber"] == number
    assert confirm(page).status_code == 200
    assert call(stack, "lookup", idToken=linked.json()["idToken"]).json()["error"]["message"] == "TOKEN_EXPIRED"
    fresh = call(stack, "signInWithPassword", email=email, password="secret-pw").json()
    assert "phoneNumber" not in call(stack, "lookup", idToken=fresh["idToken"]).json()["users"][0]


def test_email_link_sign_in_works_once_the_project_enables_it(production_surface):
    stack, inbox = production_surface
    email = f"link-{free_port()}@example.com"
    body = dict(requestType="EMAIL_SIGNIN", email=email, continueUrl="http://localhost/finish", canHandleCodeInApp=True)
    assert call(stack, "sendOobCode", **body).json()["error"]["message"] == "OPERATION_NOT_ALLOWED"
    config = f"{stack.admin_url}/v2/projects/demo-project/config?updateMask=signIn.email.passwordRequired"
    enabled = requests.patch(config, headers=admin(stack), json={"signIn": {"email": {"passwordRequired": False}}}, timeout=30)
    assert enabled.status_code == 200, enabled.text
    try:
        assert call(stack, "sendOobCode", **body).status_code == 200
        signed_in = call(stack, "signInWithEmailLink", email=email, oobCode=mailed_code(inbox, email, "signIn")).json()
        assert signed_in["isNewUser"] is True and "idToken" in signed_in
    finally:
        requests.patch(config, headers=admin(stack), json={"signIn": {"email": {"passwordRequired": True}}}, timeout=30)


def test_a_signed_in_email_link_never_replaces_the_accounts_address(production_surface):
    """Issue 39, H-1: a stolen session plus a sign-in link mailed to the attacker's own address took
    the account (its address replaced, verified, with no recent login and no notice)."""
    stack, inbox = production_surface
    victim_email, attacker_email = f"victim-{free_port()}@example.com", f"attacker-{free_port()}@example.com"
    victim = call(stack, "signUp", email=victim_email, password="secret-pw", returnSecureToken=True).json()
    config = f"{stack.admin_url}/v2/projects/demo-project/config?updateMask=signIn.email.passwordRequired"
    enabled = requests.patch(config, headers=admin(stack), json={"signIn": {"email": {"passwordRequired": False}}}, timeout=30)
    assert enabled.status_code == 200, enabled.text
    try:
        assert call(stack, "sendOobCode", requestType="EMAIL_SIGNIN", email=attacker_email,
                    continueUrl="http://localhost/finish", canHandleCodeInApp=True).status_code == 200
        code = mailed_code(inbox, attacker_email, "signIn")
        taken = call(stack, "signInWithEmailLink", idToken=victim["idToken"], email=attacker_email, oobCode=code)
        assert taken.status_code == 400 and taken.json()["error"]["message"] == "PROVIDER_ALREADY_LINKED"
        looked_up = requests.post(f"{stack.admin_url}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:lookup",
                                  headers=admin(stack), json={"localId": [victim["localId"]]}, timeout=30)
        assert looked_up.json()["users"][0]["email"] == victim_email
    finally:
        requests.patch(config, headers=admin(stack), json={"signIn": {"email": {"passwordRequired": True}}}, timeout=30)


def confirm(page, **extra):
    """Submits the action page's form as a browser would: its hidden fields (and `extra`), posted back."""
    fields = {name: html.unescape(value)
              for name, value in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', page.text)}
    return requests.post(page.url, data={**fields, **extra}, allow_redirects=False, timeout=30)


def test_the_action_page_applies_a_code_only_when_the_user_confirms(production_surface):
    """Issue 39, M-5: the page mailed links open applied codes on a plain GET (a mail scanner's fetch of the
    new-factor notice removed the factor), took `newPassword` in the query string and redirected to
    any `continueUrl`."""
    stack, inbox = production_surface
    email = f"action-{free_port()}@example.com"
    user = call(stack, "signUp", email=email, password="secret-pw", returnSecureToken=True).json()
    assert call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=user["idToken"]).status_code == 200
    link = mailed_link(inbox, email, "verifyEmail")
    assert link.startswith(f"{stack.gateway}/emulator/action?")
    scanned = requests.get(link, timeout=30)
    assert scanned.status_code == 200 and scanned.headers["content-type"].startswith("text/html")
    assert "Verify my email address" in scanned.text and 'method="post"' in scanned.text
    assert call(stack, "lookup", idToken=user["idToken"]).json()["users"][0]["emailVerified"] is False
    confirmed = confirm(scanned)
    assert confirmed.status_code == 200, confirmed.text
    assert call(stack, "lookup", idToken=user["idToken"]).json()["users"][0]["emailVerified"] is True

    # A new password never rides in a URL: one in the query is ignored; the form's body sets it.
    assert call(stack, "sendOobCode", requestType="PASSWORD_RESET", email=email).status_code == 200
    reset = mailed_link(inbox, email, "resetPassword")
    page = requests.get(reset + "&newPassword=from-the-url", timeout=30)
    assert page.status_code == 200 and 'name="newPassword"' in page.text and "from-the-url" not in page.text
    assert call(stack, "signInWithPassword", email=email, password="secret-pw").status_code == 200
    assert confirm(page, newPassword="from-the-form").status_code == 200
    assert call(stack, "signInWithPassword", email=email, password="from-the-url").status_code == 400
    assert call(stack, "signInWithPassword", email=email, password="from-the-form").status_code == 200

    # A continueUrl is followed only to the scope's authorized domains, whatever the link says.
    assert call(stack, "sendOobCode", requestType="PASSWORD_RESET", email=email).status_code == 200
    tampered = mailed_link(inbox, email, "resetPassword") + "&continueUrl=" + urllib.parse.quote("https://evil.example/")
    done = confirm(requests.get(tampered, timeout=30), newPassword="third-password")
    assert done.status_code == 200 and "location" not in done.headers
    assert call(stack, "sendOobCode", requestType="PASSWORD_RESET", email=email).status_code == 200
    allowed = mailed_link(inbox, email, "resetPassword") + "&continueUrl=" + urllib.parse.quote("http://localhost/finish")
    redirected = confirm(requests.get(allowed, timeout=30), newPassword="fourth-password")
    assert redirected.status_code == 303 and redirected.headers["location"] == "http://localhost/finish"


def test_messages_go_out_in_the_client_language_with_the_project_templates(production_surface):
    """Spanish mail over SMTP, an operator's HTML template for Brazilian Portuguese, and a Traditional
    Chinese SMS (UCS-2) that reaches the provider intact over HTTPS."""
    stack, inbox = production_surface
    config = f"{stack.admin_url}/v2/projects/demo-project/config?updateMask=notification"
    template = {"subject": "Nova senha: {{appName}}", "bodyFormat": "HTML",
                "body": "<p>{{email}}: <a href=\"{{link}}\">redefinir</a></p>"}
    changed = requests.patch(config, headers=admin(stack), timeout=30, json={"notification": {
        "defaultLocale": "es", "sendEmail": {"localizedTemplates": {"pt-BR": {"resetPasswordTemplate": template}}}}})
    assert changed.status_code == 200, changed.text
    try:
        email = f"idioma-{free_port()}@example.com"
        assert call(stack, "signUp", email=email, password="secret-pw").status_code == 200
        assert call(stack, "sendOobCode", requestType="PASSWORD_RESET", email=email).status_code == 200
        spanish = newest_mail(inbox, email, count=1)
        assert spanish["Subject"] == "Restablece tu contraseña de Demo App"
        assert "contraseña" in spanish.get_body(("plain",)).get_content()
        sent = requests.post(f"{stack.gateway}{V1}sendOobCode?key={stack.api_key}", timeout=30,
                             headers={"X-Firebase-Locale": "pt-BR"}, json={"requestType": "PASSWORD_RESET", "email": email})
        assert sent.status_code == 200, sent.text
        portuguese = newest_mail(inbox, email, count=2)
        assert portuguese["Subject"] == "Nova senha: Demo App"
        html = portuguese.get_body(("html",)).get_content()
        assert html.startswith(f"<p>{email}: <a href=\"http") and "&amp;oobCode=" in html
        assert "redefinir" in portuguese.get_body(("plain",)).get_content().lower()
        number = f"+1555{free_port():07d}"
        phone = requests.post(f"{stack.gateway}{V1}sendVerificationCode?key={stack.api_key}", timeout=30,
                              headers={"X-Firebase-Locale": "zh-TW"}, json={"phoneNumber": number, "recaptchaToken": "good"})
        assert phone.status_code == 200, phone.text
        text = next(m for m in reversed(ProviderAPI.received) if m["form"]["To"] == [number])["form"]["Body"][0]
        assert "驗證碼" in text and "Demo App" in text and re.search(r"\d{6}", text) and len(text) <= 70
    finally:
        requests.patch(config, headers=admin(stack), timeout=30, json={"notification": {}})


def test_password_reset_limits_answer_alike_for_known_and_unknown_addresses(production_surface):
    """Issue 39, L-2: the mails-per-account limit tripped only for addresses with an account (an unknown
    one was never counted), so its answer told which addresses exist despite enumeration protection."""
    stack, _ = production_surface
    known = f"known-{free_port()}@example.com"
    assert call(stack, "signUp", email=known, password="secret-pw").status_code == 200
    unknown = f"unknown-{free_port()}@example.com"
    answers = {address: [call(stack, "sendOobCode", requestType="PASSWORD_RESET", email=address).status_code
                         for _ in range(7)] for address in (known, unknown)}
    assert answers[known] == answers[unknown] and answers[known][0] == 200 and answers[known][-1] == 400, answers


def test_a_password_reset_answers_alike_for_known_and_unknown_addresses_while_mail_is_down(production):
    """Issue 39, L-2: a known address's reset mail was sent before the answer, so the answer came later
    (the mail server's round trip) and, with the mail server down, was a 503 where an unknown address got
    a 200. This stack has no mail server at all: both answer 200, with the address as it was written."""
    known = f"Known-{free_port()}@Example.com"
    assert call(production, "signUp", email=known.lower(), password="secret-pw").status_code == 200
    unknown = f"Unknown-{free_port()}@Example.com"
    answers = [call(production, "sendOobCode", requestType="PASSWORD_RESET", email=address) for address in (known, unknown)]
    assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
    assert [a.json()["email"] for a in answers] == [known, unknown]
    assert answers[0].json().keys() == answers[1].json().keys()
