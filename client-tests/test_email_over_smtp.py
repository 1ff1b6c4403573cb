"""VERIFY_EMAIL delivered over SMTP to a real SMTP server (aiosmtpd on loopback): the message challenge-issuer
sends carries a link that verifies the address; a relay that refuses the message gives the client a 503,
never a 4xx or a silent success."""

import email
import email.policy
import re
import secrets
import urllib.parse

import pytest
import requests
from aiosmtpd.controller import Controller

from conftest import another_stack, free_port


class Inbox:
    def __init__(self):
        self.messages = []
        self.refuse = False

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse:
            return "550 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(email.message_from_bytes(envelope.content, policy=email.policy.default))
        return "250 Message accepted"


@pytest.fixture(scope="module")
def smtp_stack(stack):
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    with another_stack(stack, "smtp", extra_env={
        "EMAIL_SENDER": "smtp", "EMAIL_SMTP_HOST": "127.0.0.1", "EMAIL_SMTP_PORT": str(port),
        "EMAIL_SMTP_SECURITY": "plain", "EMAIL_SMTP_FROM": "accounts@example.com", "EMAIL_APP_NAME": "Demo App",
    }) as running:
        try:
            yield running, inbox
        finally:
            controller.stop()


def test_the_verification_email_arrives_and_its_link_verifies(smtp_stack):
    stack, inbox = smtp_stack
    address = f"smtp-{secrets.token_hex(6)}@example.com"
    user = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                         json={"email": address, "password": "secret-pw"}, timeout=30).json()
    sent = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:sendOobCode?key=k",
                         json={"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]}, timeout=30)
    assert sent.status_code == 200, sent.text
    message = [m for m in inbox.messages if m["To"] == address][-1]
    assert message["From"] == "accounts@example.com"
    assert message["Subject"] == "Verify your email for Demo App"
    body = message.get_body(preferencelist=("plain",)).get_content()
    link = re.search(r"http://\S+", body).group(0)
    parsed = urllib.parse.urlsplit(link)
    followed = requests.get(f"{stack.gateway}{parsed.path}?{parsed.query}", timeout=30)
    assert followed.status_code == 200, followed.text
    looked_up = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k",
                              json={"idToken": user["idToken"]}, timeout=30).json()
    assert looked_up["users"][0]["emailVerified"] is True
    log = stack.log_path("challenge-issuer").read_text()
    assert address not in log and parse_code(link) not in log


def parse_code(link):
    return urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["oobCode"][0]


def test_a_refusing_relay_is_a_503_for_the_client(smtp_stack):
    stack, inbox = smtp_stack
    address = f"refused-{secrets.token_hex(6)}@example.com"
    user = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                         json={"email": address, "password": "secret-pw"}, timeout=30).json()
    inbox.refuse = True
    try:
        sent = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:sendOobCode?key=k",
                             json={"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]}, timeout=30)
    finally:
        inbox.refuse = False
    assert sent.status_code == 503, sent.text
    assert sent.json()["error"]["status"] == "UNAVAILABLE"
