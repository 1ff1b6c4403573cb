"""Messages in the user's language: the SDKs' `X-Firebase-Locale` header chooses the built-in text of
every SMS and email (falling back by region, then to the scope's `notification.defaultLocale`, then
to English), and an operator's templates per tenant and per language win in their language. Read
through the development sink's emulator routes, which show each message as it was sent."""

import secrets

import pytest
import requests

from mfa_helpers import ADMIN, RECAPTCHA, V1, V2, error, unique_phone, verified_user
from rest_client import last_mail

TENANTS = "/v2/projects/demo-project/tenants"


def post(stack, url, body, locale=None):
    headers = {"X-Firebase-Locale": locale} if locale else {}
    return requests.post(f"{stack.gateway}{url}?key=k", json=body, headers=headers, timeout=30)


def sent_sms(stack, session_info, tenant=None):
    path = "/emulator/v1/projects/demo-project" + (f"/tenants/{tenant}" if tenant else "") + "/verificationCodes"
    codes = requests.get(stack.gateway + path, timeout=30).json()["verificationCodes"]
    return next(entry for entry in codes if entry["sessionInfo"] == session_info)


def enrollment_sms(stack, user, locale, number=None):
    body = {"idToken": user["idToken"], "phoneEnrollmentInfo": {"phoneNumber": number or unique_phone(), "recaptchaToken": RECAPTCHA}}
    if user.get("tenant"):
        body["tenantId"] = user["tenant"]
    started = post(stack, V2 + "mfaEnrollment:start", body, locale)
    assert started.status_code == 200, started.text
    return sent_sms(stack, started.json()["phoneSessionInfo"]["sessionInfo"], user.get("tenant"))


def tenant_with(stack, notification):
    body = {"displayName": "Locales", "allowPasswordSignup": True,
            "mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}, "notification": notification}
    created = requests.post(stack.gateway + TENANTS, json=body, headers=ADMIN, timeout=60)
    assert created.status_code == 200, created.text
    return created.json()


@pytest.mark.parametrize("header, locale, words", [
    (None, "en", "is your verification code"),
    ("en-GB", "en", "Do not share this code"),
    ("zh-CN", "zh-Hans", "验证码"),
    ("zh-TW", "zh-Hant", "驗證碼"),
    ("zh-HK", "zh-Hant", "驗證碼"),
    ("id", "id", "kode verifikasi"),
    ("pt", "pt-BR", "compartilhe"),
    ("pt-BR", "pt-BR", "compartilhe"),
    ("pt-PT", "pt-PT", "partilhe"),
    ("es", "es", "Caduca"),
    ("es-MX", "es-419", "Vence"),
    ("fr-FR", "en", "is your verification code"),
    ("not a language!", "en", "is your verification code"),
])
def test_an_enrollment_sms_is_written_in_the_client_language(stack, header, locale, words):
    message = enrollment_sms(stack, verified_user(stack), header)
    assert message["locale"] == locale
    assert words in message["text"] and message["code"] in message["text"]
    # One segment: 160 GSM-7 characters, or 70 for the Chinese (UCS-2) texts.
    assert len(message["text"]) <= (70 if locale.startswith("zh") else 160), message["text"]


def test_a_sign_in_sms_and_a_phone_sign_in_sms_follow_the_language_too(stack):
    user = verified_user(stack)
    number = unique_phone()
    first = enrollment_sms(stack, user, "id", number)
    finalized = post(stack, V2 + "mfaEnrollment:finalize", {
        "idToken": user["idToken"], "phoneVerificationInfo": {"sessionInfo": first["sessionInfo"], "code": first["code"]}})
    assert finalized.status_code == 200, finalized.text
    pending = post(stack, V1 + "signInWithPassword", {"email": user["email"], "password": user["password"]}).json()
    started = post(stack, V2 + "mfaSignIn:start", {
        "mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": pending["mfaInfo"][0]["mfaEnrollmentId"],
        "phoneSignInInfo": {"recaptchaToken": RECAPTCHA}}, "es-AR")
    assert started.status_code == 200, started.text
    assert sent_sms(stack, started.json()["phoneResponseInfo"]["sessionInfo"])["locale"] == "es-419"
    phone = post(stack, V1 + "sendVerificationCode", {"phoneNumber": unique_phone(), "recaptchaToken": RECAPTCHA}, "zh-TW")
    assert phone.status_code == 200, phone.text
    assert sent_sms(stack, phone.json()["sessionInfo"])["locale"] == "zh-Hant"


def test_emails_are_written_in_the_client_language(stack):
    user = verified_user(stack)
    sent = post(stack, V1 + "sendOobCode", {"requestType": "PASSWORD_RESET", "email": user["email"]}, "es-MX")
    assert sent.status_code == 200, sent.text
    mail = last_mail(stack, user["email"], "PASSWORD_RESET")
    assert mail["locale"] == "es-419" and "contraseña" in mail["subject"].lower()
    assert mail["oobLink"] in mail["text"] and "html" not in mail
    # The notice of a new factor names it in the same language, by the number's last four digits only.
    number = unique_phone()
    first = enrollment_sms(stack, user, "zh-TW", number)
    finalized = post(stack, V2 + "mfaEnrollment:finalize", {
        "idToken": user["idToken"], "phoneVerificationInfo": {"sessionInfo": first["sessionInfo"], "code": first["code"]}}, "zh-TW")
    assert finalized.status_code == 200, finalized.text
    notice = last_mail(stack, user["email"], "REVERT_SECOND_FACTOR_ADDITION")
    assert notice["locale"] == "zh-Hant" and number[-4:] in notice["text"] and number not in notice["text"]


def test_a_link_carries_the_language_to_the_mail_its_page_sends(stack):
    user = verified_user(stack)
    new_email = f"nuevo-{secrets.token_hex(4)}@example.com"
    sent = post(stack, V1 + "sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"],
                                            "newEmail": new_email}, "pt-PT")
    assert sent.status_code == 200, sent.text
    confirm = last_mail(stack, new_email, "VERIFY_AND_CHANGE_EMAIL")
    assert confirm["locale"] == "pt-PT" and "&lang=pt-PT&" in confirm["oobLink"] and new_email in confirm["text"]
    assert requests.get(confirm["oobLink"], timeout=30).status_code == 200
    notice = last_mail(stack, user["email"], "RECOVER_EMAIL")
    assert notice["locale"] == "pt-PT" and new_email in notice["text"]


def test_a_tenant_template_wins_in_its_language_and_its_default_language_catches_the_rest(stack):
    tenant = tenant_with(stack, {
        "defaultLocale": "id",
        "sendSms": {"localizedTemplates": {"pt_br": {"content": "{{appName}}: PIN {{code}} ({{minutes}} min)"}}},
        "sendEmail": {"localizedTemplates": {"pt-BR": {"verifyEmailTemplate": {
            "subject": "Confirme {{email}}", "bodyFormat": "HTML",
            "body": "<p>Olá {{email}}, <a href=\"{{link}}\">confirme</a> no {{appName}}.</p>"}}}},
    })
    tenant_id = tenant["tenantId"]
    # Stored in canonical form, and read back as stored.
    assert list(tenant["notification"]["sendSms"]["localizedTemplates"]) == ["pt-BR"]
    assert requests.get(f"{stack.gateway}{TENANTS}/{tenant_id}", headers=ADMIN, timeout=30).json() == tenant
    user = verified_user(stack, tenant=tenant_id)
    custom = enrollment_sms(stack, user, "pt-BR")
    # No app name is configured: the project's id names the app.
    assert custom["text"] == f"demo-project: PIN {custom['code']} (10 min)" and custom["locale"] == "pt-BR"
    assert enrollment_sms(stack, user, "fr")["locale"] == "id"
    assert enrollment_sms(stack, user, None)["locale"] == "id"
    assert enrollment_sms(stack, user, "zh-TW")["locale"] == "zh-Hant"
    # An HTML template escapes the values it shows, and goes with the built-in text as its alternative.
    hostile = f"a&b-{secrets.token_hex(3)}@example.com"
    signed_up = post(stack, V1 + "signUp", {"email": hostile, "password": "secret-pw", "tenantId": tenant_id}).json()
    sent = post(stack, V1 + "sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": signed_up["idToken"]}, "pt-BR")
    assert sent.status_code == 200, sent.text
    mail = last_mail(stack, hostile, "VERIFY_EMAIL", tenant=tenant_id)
    assert mail["subject"] == f"Confirme {hostile}"
    assert "<p>Olá a&amp;b-" in mail["html"] and mail["oobLink"].replace("&", "&amp;") in mail["html"]
    assert mail["oobLink"] in mail["text"] and "<p>" not in mail["text"]


@pytest.mark.parametrize("notification, words", [
    ({"sendSms": {"smsTemplate": {"content": "{{code}} for {{app}}"}}},
     "notification.sendSms.smsTemplate.content has an unknown placeholder {{app}}"),
    ({"sendSms": {"smsTemplate": {"content": "Your code is on its way"}}}, "must contain {{code}}"),
    ({"sendSms": {"localizedTemplates": {"zh-Hant": {"content": "{{code}}" + "驗證碼" * 50}}}}, "3 SMS segments long (UCS-2"),
    ({"sendSms": {"localizedTemplates": {"español": {"content": "{{code}}"}}}}, "BCP 47"),
    ({"sendSms": {"smsTemplate": {"content": "%LOGIN_CODE% is your code"}}}, "%LOGIN_CODE%"),
    ({"sendEmail": {"resetPasswordTemplate": {"body": "Reset it"}}}, "resetPasswordTemplate.body must contain {{link}}"),
    ({"sendEmail": {"resetPasswordTemplate": {"senderDisplayName": "Acme"}}}, "senderDisplayName is not supported"),
    ({"sendEmail": {"localizedTemplates": {"es": {"welcomeTemplate": {"body": "{{link}}"}}}}}, "welcomeTemplate is not a template"),
])
def test_a_bad_template_is_refused_with_a_clear_400_and_changes_nothing(stack, notification, words):
    tenant = tenant_with(stack, {"defaultLocale": "es"})
    url = f"{stack.gateway}{TENANTS}/{tenant['tenantId']}?updateMask=notification"
    refused = requests.patch(url, json={"notification": notification}, headers=ADMIN, timeout=30)
    assert refused.status_code == 400, refused.text
    assert error(refused).startswith("INVALID_CONFIG : ") and words in error(refused), error(refused)
    assert requests.get(f"{stack.gateway}{TENANTS}/{tenant['tenantId']}", headers=ADMIN, timeout=30).json() == tenant


def test_the_project_config_carries_identity_platform_notification_shape(stack):
    url = f"{stack.gateway}/v2/projects/demo-project/config"
    before = requests.get(url, headers=ADMIN, timeout=30).json()
    assert "notification" not in before
    changed = requests.patch(url + "?updateMask=notification", headers=ADMIN, timeout=30, json={"notification": {
        "defaultLocale": "es-419", "sendEmail": {"method": "DEFAULT", "verifyEmailTemplate": {"subject": "{{appName}}", "customized": True}}}})
    try:
        assert changed.status_code == 200, changed.text
        assert changed.json()["notification"] == {"defaultLocale": "es-419", "sendEmail": {"verifyEmailTemplate": {"subject": "{{appName}}"}}}
    finally:
        requests.patch(url + "?updateMask=notification", headers=ADMIN, timeout=30, json={"notification": {}})
    assert "notification" not in requests.get(url, headers=ADMIN, timeout=30).json()


GSM7 = set("@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿"
           "abcdefghijklmnopqrstuvwxyzäöñüà")
GSM7_EXTENSION = set("\f^{}\\[~]|€")


def sms_units(text):
    """(encoding, units) as a network counts them: GSM-7 septets, else UTF-16 code units."""
    if all(c in GSM7 or c in GSM7_EXTENSION for c in text):
        return "GSM-7", sum(2 if c in GSM7_EXTENSION else 1 for c in text)
    return "UCS-2", len(text.encode("utf-16-le")) // 2


def test_the_documented_sms_lengths_are_those_sent(stack):
    """deploy/configuration.md's table of built-in SMS texts: encoding, characters besides the app's
    name (6-digit code, the default 10-minute lifetime), and the longest app name that keeps one segment."""
    from pathlib import Path
    import re
    doc = (Path(__file__).resolve().parent.parent / "deploy" / "configuration.md").read_text()
    table = {row[0]: (row[1], int(row[2]), int(row[3]))
             for row in re.findall(r"^\| `([a-zA-Z0-9-]+)` \| (GSM-7|UCS-2) \| (\d+) \| (\d+) \|", doc, re.M)}
    measured = {}
    for locale in ["en", "zh-Hans", "zh-Hant", "id", "pt-BR", "pt-PT", "es", "es-419"]:
        text = enrollment_sms(stack, verified_user(stack), locale)["text"]
        assert "demo-project" in text  # no app name configured: the project's id
        encoding, units = sms_units(text)
        fixed = units - len("demo-project")
        measured[locale] = (encoding, fixed, (160 if encoding == "GSM-7" else 70) - fixed)
    assert table == measured
