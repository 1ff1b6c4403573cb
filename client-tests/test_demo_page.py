"""The development demo page (`/demo`) in a real headless browser: a newcomer's whole first flow,
clicked through as a person would. The TOTP code comes from pyotp with the secret that zbar decodes
out of the QR image the page shows, so the QR code itself is proven, not only the text beside it.

MFA_UPDATE_SCREENSHOTS=1 copies the page's screenshot to docs/demo-page.png."""

import json
import secrets
import os
import shutil
import time
import urllib.parse

import pyotp
import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser import chromium, decode_qr
from conftest import ROOT, another_stack


@pytest.fixture(scope="module")
def demo(stack):
    with another_stack(stack, "demo") as running:
        yield running


def wait_for(driver, condition, timeout=20):
    return WebDriverWait(driver, timeout).until(lambda _: condition())


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def click(driver, element_id):
    driver.find_element(By.ID, element_id).click()


def type_into(driver, element_id, value):
    field = driver.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(value)


def failed_calls(driver):
    return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#log li.failed")]


def signed_up_with_mfa_on(driver, stack):
    """The page's first steps: MFA enabled for the project, a new user signed up with a verified email."""
    driver.get(stack.gateway + "/demo")
    assert text(driver, "project") == "demo-project"
    email = driver.find_element(By.ID, "email").get_attribute("value")
    click(driver, "mfa-enable")
    wait_for(driver, lambda: "enabled" in text(driver, "mfa-status"))
    click(driver, "sign-up")
    wait_for(driver, lambda: text(driver, "signed-in-as") == email)
    click(driver, "verify-email")
    wait_for(driver, lambda: text(driver, "email-verified") == "(email verified)")
    return email


def test_a_newcomer_enrolls_both_factors_signs_in_with_the_scanned_code_and_withdraws_one(demo, tmp_path):
    with chromium() as driver:
        email = signed_up_with_mfa_on(driver, demo)

        # TOTP: the QR code as the browser draws it, decoded by zbar, gives the secret.
        click(driver, "totp-start")
        qr = wait_for(driver, lambda: driver.find_element(By.CSS_SELECTOR, "#totp-qr svg"))
        screenshot = tmp_path / "demo-page.png"
        driver.save_screenshot(str(screenshot))
        address = decode_qr(qr.screenshot_as_png, tmp_path)
        parsed = urllib.parse.urlsplit(address)
        parameters = dict(urllib.parse.parse_qsl(parsed.query))
        assert parsed.scheme == "otpauth" and parsed.netloc == "totp"
        assert urllib.parse.unquote(parsed.path) == f"/mfa-backend demo-project:{email}"
        assert parameters["secret"] == text(driver, "totp-secret")
        assert (parameters["algorithm"], parameters["digits"], parameters["period"]) == ("SHA1", "6", "30")
        totp = pyotp.TOTP(parameters["secret"])
        type_into(driver, "totp-code", totp.now())
        click(driver, "totp-finish")
        wait_for(driver, lambda: "authenticator app" in text(driver, "factors"))

        # SMS: the code the development sink received.
        click(driver, "sms-start")
        wait_for(driver, lambda: driver.find_element(By.ID, "sms-enrollment").is_displayed())
        click(driver, "sms-fill")
        wait_for(driver, lambda: driver.find_element(By.ID, "sms-code").get_attribute("value"))
        click(driver, "sms-finish")
        wait_for(driver, lambda: "(SMS to +1650555" in text(driver, "factors"))

        click(driver, "sign-out")
        wait_for(driver, lambda: text(driver, "signed-in-as") == "nobody")
        click(driver, "sign-in")
        wait_for(driver, lambda: driver.find_element(By.ID, "second-factor").is_displayed())
        driver.find_element(By.CSS_SELECTOR, 'input[name="factor"][data-kind="totp"]').click()
        # The enrollment used this step's code and a step is accepted once: an app would show the next.
        type_into(driver, "mfa-code", totp.at(time.time() + 30))
        click(driver, "mfa-finish")
        wait_for(driver, lambda: text(driver, "signed-in-as") == email)
        claims = json.loads(text(driver, "claims"))
        assert claims["firebase"]["sign_in_second_factor"] == "totp"
        assert claims["email"] == email and claims["email_verified"] is True

        phone = next(item for item in driver.find_elements(By.CSS_SELECTOR, "#factors li") if "SMS to" in item.text)
        phone.find_element(By.CSS_SELECTOR, "button.withdraw").click()
        wait_for(driver, lambda: "SMS to" not in text(driver, "factors"))
        assert "authenticator app" in text(driver, "factors")
        assert failed_calls(driver) == []

    if os.environ.get("MFA_UPDATE_SCREENSHOTS") == "1":
        shutil.copyfile(screenshot, ROOT / "docs" / "demo-page.png")


def test_a_wrong_code_shows_the_contracts_error_and_enrolls_nothing(demo):
    with chromium() as driver:
        driver.get(demo.gateway + "/demo")
        click(driver, "mfa-enable")
        wait_for(driver, lambda: "enabled" in text(driver, "mfa-status"))
        click(driver, "sign-up")
        wait_for(driver, lambda: text(driver, "signed-in-as") != "nobody")
        click(driver, "verify-email")
        wait_for(driver, lambda: text(driver, "email-verified") == "(email verified)")
        click(driver, "totp-start")
        wait_for(driver, lambda: driver.find_element(By.ID, "totp-enrollment").is_displayed())
        type_into(driver, "totp-code", "000000" if pyotp.TOTP(text(driver, "totp-secret")).now() != "000000" else "111111")
        click(driver, "totp-finish")
        wait_for(driver, lambda: failed_calls(driver))
        assert "INVALID_MFA_PENDING_CREDENTIAL" not in failed_calls(driver)[0]
        assert "mfaEnrollment:finalize → 400 (INVALID_CODE" in failed_calls(driver)[0]
        assert text(driver, "factors") == "none"


def test_the_qr_route_draws_only_enrollment_addresses_of_bounded_size(demo):
    drawn = requests.post(demo.gateway + "/demo/qr", data="otpauth://totp/x:y?secret=JBSWY3DPEHPK3PXP", timeout=10)
    assert drawn.status_code == 200 and drawn.headers["content-type"] == "image/svg+xml"
    assert drawn.text.startswith("<svg ")
    assert requests.post(demo.gateway + "/demo/qr", data="https://example.com", timeout=10).status_code == 400
    assert requests.post(demo.gateway + "/demo/qr", data="otpauth://" + "x" * 5000, timeout=10).status_code == 413
    page = requests.get(demo.gateway + "/demo", timeout=10)
    assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]


def test_production_has_no_demo_page(production):
    for method, path in [("GET", "/demo"), ("GET", "/demo/demo.js"), ("POST", "/demo/qr")]:
        answer = requests.request(method, production.gateway + path, data="otpauth://totp/x", timeout=10)
        assert answer.status_code == 404, (path, answer.status_code)


def test_a_user_signs_in_through_an_openid_connect_provider_on_the_demo_page_then_with_a_second_factor(stack):
    """The redirect flow in a real browser: createAuthUri → the provider's own page (oidc-provider-mock's
    consent form, over HTTPS from its stand-in CA) → back to the demo page → signInWithIdp; then an
    authenticator app enrolled, and the next provider sign-in finished with its code."""
    import oidc_provider

    with oidc_provider.running() as provider, another_stack(stack, "demo-idp", extra_env={
            "IDENTITY_PROVIDERS_TRUST_ROOTS": str(provider.ca)}) as demo_idp, chromium(
            trusted_certificates=(provider.ca.parent / "provider.pem",)) as driver:
        sub = "demo-" + secrets.token_hex(4)
        email = f"{sub}@example.com"
        provider.set_user(sub, email=email, email_verified=True, name="Demo Provider User")
        # localhost: the project's authorized domain, where the provider may send the browser back.
        page = demo_idp.gateway.replace("127.0.0.1", "localhost") + "/demo"
        driver.get(page)
        click(driver, "mfa-enable")
        wait_for(driver, lambda: "enabled" in text(driver, "mfa-status"))
        type_into(driver, "idp-issuer", provider.issuer)
        click(driver, "idp-configure")
        wait_for(driver, lambda: "configured" in text(driver, "idp-status"))

        def through_the_provider():
            click(driver, "idp-sign-in")
            wait_for(driver, lambda: driver.current_url.startswith(provider.issuer))
            driver.find_element(By.CSS_SELECTOR, 'input[name="sub"]').send_keys(sub)
            driver.find_element(By.XPATH, '//button[text()="Authorize"]').click()
            wait_for(driver, lambda: driver.current_url.rstrip("/").endswith("/demo"))

        through_the_provider()
        wait_for(driver, lambda: text(driver, "signed-in-as") == email)
        token = json.loads(text(driver, "claims"))
        assert token["firebase"]["sign_in_provider"] == "oidc.demo" and token["firebase"]["identities"]["oidc.demo"] == [sub]

        click(driver, "totp-start")
        wait_for(driver, lambda: text(driver, "totp-secret"))
        totp = pyotp.TOTP(text(driver, "totp-secret"))
        type_into(driver, "totp-code", totp.now())
        click(driver, "totp-finish")
        wait_for(driver, lambda: "authenticator app" in text(driver, "factors"))
        click(driver, "sign-out")
        wait_for(driver, lambda: text(driver, "signed-in-as") == "nobody")

        through_the_provider()
        wait_for(driver, lambda: driver.find_element(By.ID, "second-factor").is_displayed())
        type_into(driver, "mfa-code", totp.at(time.time() + 30))
        click(driver, "mfa-finish")
        wait_for(driver, lambda: text(driver, "signed-in-as") == email)
        token = json.loads(text(driver, "claims"))
        assert token["firebase"]["sign_in_provider"] == "oidc.demo"
        assert token["firebase"]["sign_in_second_factor"] == "totp"
        assert not failed_calls(driver), failed_calls(driver)


def test_a_user_makes_recovery_codes_on_the_demo_page_and_signs_in_with_one(demo):
    with chromium() as driver:
        email = signed_up_with_mfa_on(driver, demo)
        click(driver, "totp-start")
        wait_for(driver, lambda: text(driver, "totp-secret"))
        type_into(driver, "totp-code", pyotp.TOTP(text(driver, "totp-secret")).now())
        click(driver, "totp-finish")
        wait_for(driver, lambda: "authenticator app" in text(driver, "factors"))

        click(driver, "recovery-generate")
        wait_for(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, "#recovery-codes li")) == 10)
        codes = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#recovery-codes li")]
        wait_for(driver, lambda: "(10 left)" in text(driver, "recovery-remaining"))
        assert "Recovery codes (recovery codes)" in text(driver, "factors")

        click(driver, "sign-out")
        wait_for(driver, lambda: text(driver, "signed-in-as") == "nobody")
        assert codes[0] not in driver.page_source
        click(driver, "sign-in")
        wait_for(driver, lambda: driver.find_element(By.ID, "second-factor").is_displayed())
        driver.find_element(By.CSS_SELECTOR, 'input[name="factor"][data-kind="recovery"]').click()
        type_into(driver, "mfa-code", codes[4].lower())
        click(driver, "mfa-finish")
        wait_for(driver, lambda: text(driver, "signed-in-as") == email)
        assert json.loads(text(driver, "claims"))["firebase"]["sign_in_second_factor"] == "recovery_code"
        wait_for(driver, lambda: "(9 left)" in text(driver, "recovery-remaining"))
        assert failed_calls(driver) == []


def test_a_user_adds_a_passkey_signs_out_and_signs_in_with_it_and_a_forged_one_is_refused(demo):
    """The demo page's passkey steps in Chromium with its virtual authenticator (CDP WebAuthn: a
    resident key, user verification), as a phone's would answer; the page is opened as `localhost`,
    its rp id. A bogus signature or a failed user verification is refused."""
    with chromium() as driver:
        driver.get(demo.gateway.replace("127.0.0.1", "localhost") + "/demo")
        driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
        authenticator = driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True}})["authenticatorId"]
        click(driver, "passkey-enable")
        wait_for(driver, lambda: "passkeys for" in text(driver, "passkey-status"))
        email = driver.find_element(By.ID, "email").get_attribute("value")
        click(driver, "sign-up")
        wait_for(driver, lambda: text(driver, "signed-in-as") == email)
        type_into(driver, "passkey-name", "Virtual authenticator")
        click(driver, "passkey-add")
        wait_for(driver, lambda: "Virtual authenticator" in text(driver, "passkeys"))
        stored = driver.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
        assert len(stored) == 1 and stored[0]["isResidentCredential"]
        click(driver, "sign-out")
        wait_for(driver, lambda: text(driver, "signed-in-as") == "nobody")
        click(driver, "passkey-sign-in")
        wait_for(driver, lambda: text(driver, "signed-in-as") == email)
        assert '"sign_in_provider": "passkey"' in text(driver, "claims")
        assert failed_calls(driver) == []

        for override in ({"isBogusSignature": True}, {"isBadUV": True}):
            click(driver, "sign-out")
            wait_for(driver, lambda: text(driver, "signed-in-as") == "nobody")
            driver.execute_cdp_cmd("WebAuthn.setResponseOverrideBits", {"authenticatorId": authenticator, **override})
            click(driver, "passkey-sign-in")
            wait_for(driver, lambda: any("INVALID_AUTHENTICATOR_RESPONSE" in call for call in failed_calls(driver)))
            assert text(driver, "signed-in-as") == "nobody"
            driver.execute_cdp_cmd("WebAuthn.setResponseOverrideBits", {"authenticatorId": authenticator})
            driver.execute_script("document.getElementById('log').replaceChildren()")
