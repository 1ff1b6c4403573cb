"""SMS from a web app in production without Google (issue 58): the web SDK in emulator mode over TLS
(`connectAuthEmulator(auth, "https://…")`, whose RecaptchaVerifier is always the mock) with an
application verifier of the app's own (web_page/verifiers.js, as docs/sdks.md shows it), for each
captcha service the server checks: hCaptcha for the project, Cloudflare Turnstile for one tenant,
reCAPTCHA for another. A real browser runs the page; the captcha services are local stand-ins with a
certificate of their own (captcha_stand_ins.py), trusted by challenge-issuer through
`appVerification.<service>.trustRoots`. Production stays strict: the mock's token, a used token, a
token of another service and no token are refused, and no SMS goes out."""

import re
import secrets

import pytest
import requests

import outside_stand_ins
import web_page
from captcha_stand_ins import Captchas
from conftest import CONFIG_KEY, free_port
from production_stack import running
from test_mfa_sms import ProviderAPI
from test_outside_https import serve_tls

V1 = "/identitytoolkit.googleapis.com/v1/"
V2 = "/identitytoolkit.googleapis.com/v2/"
SITE_KEYS = {"recaptcha": "site-recaptcha", "hcaptcha": "site-hcaptcha", "turnstile": "site-turnstile"}


class Deployment:
    def __init__(self, stack, captchas, stand_ins):
        self.stack, self.captchas, self.stand_ins = stack, captchas, stand_ins
        self.admin = {"Authorization": f"Bearer {stack.admin_token}"}

    def configure_challenge_issuer(self, settings):
        """Restarts challenge-issuer with `settings` added, as an operator changes its configuration."""
        process = self.stack.process_of("challenge-issuer")
        prefix = f"MFA_{CONFIG_KEY['challenge-issuer']}_" if process != "challenge-issuer" else "MFA_"
        self.stack.environments[process] |= {prefix + key: value for key, value in settings.items()}
        self.stack.kill("challenge-issuer")
        self.stack.start("challenge-issuer")
        self.stack.wait_ready()

    def tenant(self, name):
        created = requests.post(f"{self.stack.admin_url}/v2/projects/demo-project/tenants", headers=self.admin, timeout=30,
                                json={"displayName": name, "allowPasswordSignup": True,
                                      "mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}})
        assert created.status_code == 200, created.text
        return created.json()["name"].rsplit("/", 1)[1]

    def verified_user(self, tenant=None):
        email, password = f"web-{secrets.token_hex(5)}@example.com", "Correct-horse-1"
        scope = {"tenantId": tenant} if tenant else {}
        signed_up = self.call(V1 + "accounts:signUp", email=email, password=password, **scope)
        assert signed_up.status_code == 200, signed_up.text
        path = "/v1/projects/demo-project" + (f"/tenants/{tenant}" if tenant else "") + "/accounts:update"
        marked = requests.post(self.stack.admin_url + path, headers=self.admin, timeout=30,
                               json={"localId": signed_up.json()["localId"], "emailVerified": True})
        assert marked.status_code == 200, marked.text
        signed_in = self.call(V1 + "accounts:signInWithPassword", email=email, password=password, **scope).json()
        return {"email": email, "password": password, **signed_in}

    def call(self, path, **body):
        return requests.post(f"{self.stack.gateway_tls}{path}?key={self.stack.api_key}", json=body, timeout=30,
                             verify=str(self.stack.public_ca))

    def texted_code(self, number):
        text = next(m for m in reversed(ProviderAPI.received) if m["form"]["To"] == [number])["form"]["Body"][0]
        return re.search(r"\d{6}", text).group(0)


@pytest.fixture(scope="module")
def deployment():
    with outside_stand_ins.running("mfa-py-web-sms-") as stand_ins:
        key = stand_ins.work / "apns-key.pem"  # the stand-ins' own certificate's key (app_verification_servers.self_signed)
        port = free_port()
        server = serve_tls(Captchas, port, stand_ins.ca, key)
        origin = f"https://127.0.0.1:{port}"
        Captchas.secrets = {service: {f"{service}-secret": site} for service, site in SITE_KEYS.items()}
        settings = dict(stand_ins.challenge_issuer)
        settings |= {"APP_VERIFICATION_RECAPTCHA_ENDPOINT": f"{origin}/recaptcha/siteverify",
                     "APP_VERIFICATION_HCAPTCHA_PROJECTS": "demo-project=hcaptcha-secret",
                     "APP_VERIFICATION_HCAPTCHA_SITE_KEY": SITE_KEYS["hcaptcha"],
                     "APP_VERIFICATION_HCAPTCHA_ENDPOINT": f"{origin}/hcaptcha/siteverify",
                     "APP_VERIFICATION_HCAPTCHA_TRUST_ROOTS": str(stand_ins.ca),
                     "APP_VERIFICATION_TURNSTILE_ENDPOINT": f"{origin}/turnstile/siteverify",
                     "APP_VERIFICATION_TURNSTILE_ACTION": "sms",
                     "APP_VERIFICATION_TURNSTILE_TRUST_ROOTS": str(stand_ins.ca)}
        try:
            with running(extra_env={"challenge-issuer": settings}) as stack:
                config = f"{stack.admin_url}/v2/projects/demo-project/config?updateMask=mfa"
                enabled = requests.patch(config, headers={"Authorization": f"Bearer {stack.admin_token}"}, timeout=30,
                                         json={"mfa": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}})
                assert enabled.status_code == 200, enabled.text
                deployment = Deployment(stack, origin, stand_ins)
                # Tenants get their ids when created: the operator then names them in the configuration.
                deployment.turnstile_tenant = deployment.tenant("Turnstile")
                deployment.recaptcha_tenant = deployment.tenant("Recaptcha")
                deployment.configure_challenge_issuer({
                    "APP_VERIFICATION_TURNSTILE_PROJECTS": f"demo-project/{deployment.turnstile_tenant}=turnstile-secret",
                    "APP_VERIFICATION_RECAPTCHA_PROJECTS": f"demo-project/{deployment.recaptcha_tenant}=recaptcha-secret",
                })
                yield deployment
        finally:
            server.shutdown()


def enroll_and_sign_in(deployment, page, user, verifier, tenant):
    """The web app's SMS enrollment and sign-in through the SDK's requests, one verifier for both."""
    stack = deployment.stack
    page.call("(origin, key, tenant) => webSdk.connect(origin, key, tenant)", stack.gateway_tls, stack.api_key, tenant)
    page.call(f"() => {{ window.verifier = {verifier}; }}")
    number = "+1650" + str(secrets.randbelow(10**7)).zfill(7)
    session = page.call("(token, number) => webSdk.enrollStart(token, number, window.verifier)", user["idToken"], number)
    enrolled = page.call("(token, session, code) => webSdk.enrollFinalize(token, session, code, 'phone')",
                         user["idToken"], session, deployment.texted_code(number))
    assert enrolled["idToken"]
    pending = page.call("(email, password) => webSdk.signIn(email, password)", user["email"], user["password"])
    session = page.call("(pending, id) => webSdk.signInStart(pending, id, window.verifier)",
                        pending["mfaPendingCredential"], pending["mfaInfo"][0]["mfaEnrollmentId"])
    finished = page.call("(pending, session, code) => webSdk.signInFinalize(pending, session, code)",
                         pending["mfaPendingCredential"], session, deployment.texted_code(number))
    assert finished["idToken"]
    return page.call("() => webSdk.requests")


@pytest.mark.parametrize("service", ["hcaptcha", "turnstile", "recaptcha"])
def test_a_web_app_sends_sms_with_its_own_verifier_for_each_captcha_service(deployment, service):
    tenant = {"hcaptcha": None, "turnstile": deployment.turnstile_tenant, "recaptcha": deployment.recaptcha_tenant}[service]
    verifier = {"hcaptcha": f"hcaptchaVerifier('{SITE_KEYS['hcaptcha']}', 'captcha')",
                "turnstile": f"turnstileVerifier('{SITE_KEYS['turnstile']}', 'captcha')",
                "recaptcha": f"recaptchaVerifier('{SITE_KEYS['recaptcha']}')"}[service]
    stack = deployment.stack
    user = deployment.verified_user(tenant)
    checked = len(Captchas.verified)
    with web_page.opened(trusted_certificates=(stack.public_tls / "fullchain.pem", deployment.stand_ins.ca)) as page:
        page.load_script(f"{deployment.captchas}/{service}/api.js")
        made = enroll_and_sign_in(deployment, page, user, verifier, tenant)
    # Each phone request carried a fresh token of the scope's service, checked by that service only.
    tokens = [request["body"][info]["recaptchaToken"] for request in made
              for info in ("phoneEnrollmentInfo", "phoneSignInInfo") if info in (request["body"] or {})]
    assert len(tokens) == 2 and len(set(tokens)) == 2 and all(token.startswith(service + ".") for token in tokens)
    calls = Captchas.verified[checked:]
    assert [call["service"] for call in calls] == [service, service]
    assert all(call["form"]["secret"] == [f"{service}-secret"] for call in calls)
    if service == "hcaptcha":
        assert all(call["form"]["sitekey"] == [SITE_KEYS["hcaptcha"]] for call in calls)


def test_production_refuses_the_mock_a_used_token_another_services_token_and_none(deployment):
    stack = deployment.stack
    user = deployment.verified_user(deployment.turnstile_tenant)
    sent = len(ProviderAPI.received)

    def start(**proof):
        number = "+1650" + str(secrets.randbelow(10**7)).zfill(7)
        answer = deployment.call(V2 + "accounts/mfaEnrollment:start", idToken=user["idToken"],
                                 tenantId=deployment.turnstile_tenant, phoneEnrollmentInfo={"phoneNumber": number, **proof})
        return answer.json()["error"]["message"]

    web = {"captchaResponse": "NO_RECAPTCHA", "clientType": "CLIENT_TYPE_WEB", "recaptchaVersion": "RECAPTCHA_ENTERPRISE"}
    mock = "".join(secrets.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(50))
    assert start(recaptchaToken=mock, **web) == "CAPTCHA_CHECK_FAILED"
    used = next(token for token, entry in Captchas.issued.items() if entry["service"] == "turnstile" and entry["used"])
    assert start(recaptchaToken=used, **web) == "CAPTCHA_CHECK_FAILED"
    other = requests.get(f"{deployment.captchas}/hcaptcha/token", params={"sitekey": SITE_KEYS["hcaptcha"]},
                         headers={"Origin": "http://localhost"}, verify=str(deployment.stand_ins.ca), timeout=30).json()["token"]
    assert start(recaptchaToken=other, **web) == "CAPTCHA_CHECK_FAILED"
    # The rCE path's literal token (a config that said PHONE_PROVIDER is enforced) is no proof either.
    assert start(captchaResponse="token", clientType="CLIENT_TYPE_WEB", recaptchaVersion="RECAPTCHA_ENTERPRISE") == \
        "CAPTCHA_CHECK_FAILED"
    assert start() == "MISSING_APP_CREDENTIAL"
    assert len(ProviderAPI.received) == sent
    # No development site key in production: none is configured here.
    params = requests.get(f"{stack.gateway_tls}{V1}recaptchaParams?key={stack.api_key}", timeout=30,
                          verify=str(stack.public_ca)).json()
    assert "recaptchaSiteKey" not in params
