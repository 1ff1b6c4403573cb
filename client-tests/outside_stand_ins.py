"""The outside services a production stack's sign-in surface talks to, as local programs with a CA of
their own (trusted through each service's `trustRoots`, as a deployment trusts a public one): an SMTP
relay with STARTTLS (aiosmtpd), a Twilio-style Messages API and a reCAPTCHA siteverify endpoint over
HTTPS. `running()` yields them (``StandIns``): challenge-issuer's settings, the relay's inbox, their CA
and the work directory it sits in."""

import contextlib
from dataclasses import dataclass
import ssl
import tempfile
from pathlib import Path

from aiosmtpd.controller import Controller

from app_verification_servers import Siteverify, self_signed
from conftest import free_port
from test_email_over_smtp import Inbox
from test_mfa_sms import ProviderAPI
from test_outside_https import serve_tls


@dataclass
class StandIns:
    challenge_issuer: dict
    inbox: Inbox
    ca: Path
    work: Path


@contextlib.contextmanager
def running(prefix="mfa-py-outside-"):
    with tempfile.TemporaryDirectory(prefix=prefix) as work:
        cert, key = self_signed(Path(work))
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(str(cert), str(key))
        inbox, smtp_port = Inbox(), free_port()
        relay = Controller(inbox, hostname="127.0.0.1", port=smtp_port, tls_context=tls, require_starttls=True)
        relay.start()
        sms_port, siteverify_port = free_port(), free_port()
        servers = [serve_tls(ProviderAPI, sms_port, cert, key), serve_tls(Siteverify, siteverify_port, cert, key)]
        challenge_issuer = {
            "EMAIL_SMTP_HOST": "127.0.0.1", "EMAIL_SMTP_PORT": str(smtp_port), "EMAIL_SMTP_SECURITY": "startTLS",
            "EMAIL_SMTP_FROM": "accounts@example.com", "EMAIL_SMTP_TRUST_ROOTS": str(cert), "EMAIL_APP_NAME": "Demo App",
            "SMS_SENDER": "http", "SMS_HTTP_BASE_URL": f"https://127.0.0.1:{sms_port}", "SMS_HTTP_ACCOUNT_ID": "AC1",
            "SMS_HTTP_AUTH_TOKEN": "provider-secret", "SMS_HTTP_FROM": "+15550001111", "SMS_HTTP_TRUST_ROOTS": str(cert),
            "APP_VERIFICATION_RECAPTCHA_SECRET": "recaptcha-secret", "APP_VERIFICATION_RECAPTCHA_ACTION": "sms",
            "APP_VERIFICATION_RECAPTCHA_ENDPOINT": f"https://127.0.0.1:{siteverify_port}/recaptcha/api/siteverify",
            "APP_VERIFICATION_RECAPTCHA_TRUST_ROOTS": str(cert),
        }
        try:
            yield StandIns(challenge_issuer, inbox, cert, Path(work))
        finally:
            relay.stop()
            for server in servers:
                server.shutdown()
