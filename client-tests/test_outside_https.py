"""Finding 5: calls to services outside the deployment (the SMS provider, reCAPTCHA) trust public
CAs the way any HTTPS client does: the system's store, plus a plugin's own extra roots
(`sms.http.trustRoots`, `appVerification.recaptcha.trustRoots`), which is how these tests trust their
local stand-ins. They used to share the peers' mutual-TLS client, which trusts only the deployment CA:
in production no SMS went out to a public provider. And an endpoint whose certificate the deployment CA
issued is not trusted outside the deployment."""

import datetime
import ipaddress
import ssl
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from conftest import free_port
from production_stack import running
from test_mfa_sms import ProviderAPI

V1 = "/identitytoolkit.googleapis.com/v1/accounts:"
V2 = "/identitytoolkit.googleapis.com/v2/accounts/"


def serve_tls(handler, port, cert, key):
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def issued_by(ca_cert_path: Path, ca_key_path: Path, directory: Path):
    """A certificate for 127.0.0.1 that the deployment CA issued."""
    ca = x509.load_pem_x509_certificate(ca_cert_path.read_bytes())
    ca_key = serialization.load_pem_private_key(ca_key_path.read_bytes(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "sms.internal")]))
            .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    (directory / "internal.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (directory / "internal-key.pem").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return directory / "internal.pem", directory / "internal-key.pem"


@pytest.fixture(scope="module")
def outside():
    """A production stack whose SMS provider and reCAPTCHA are HTTPS stand-ins with their own CA."""
    import outside_stand_ins  # here: it takes serve_tls from this module

    with outside_stand_ins.running() as stand_ins, \
            running(extra_env={"challenge-issuer": stand_ins.challenge_issuer}) as stack:
        stack.work_dir, stack.stand_in_ca = stand_ins.work, stand_ins.ca
        stack.siteverify = stand_ins.challenge_issuer["APP_VERIFICATION_RECAPTCHA_ENDPOINT"]
        yield stack


def verified_user(stack):
    import secrets
    email = f"outside-{secrets.token_hex(5)}@example.com"
    signed_up = requests.post(f"{stack.gateway}{V1}signUp?key={stack.api_key}", json={
        "email": email, "password": "secret-pw", "returnSecureToken": True}, timeout=30).json()
    marked = requests.post(f"{stack.admin_url}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update",
                           json={"localId": signed_up["localId"], "emailVerified": True},
                           headers={"Authorization": f"Bearer {stack.admin_token}"}, timeout=30)
    assert marked.status_code == 200, marked.text
    return requests.post(f"{stack.gateway}{V1}signInWithPassword?key={stack.api_key}", json={
        "email": email, "password": "secret-pw", "returnSecureToken": True}, timeout=30).json()


def start_phone_enrollment(stack, user, number):
    return requests.post(f"{stack.gateway}{V2}mfaEnrollment:start?key={stack.api_key}", timeout=30, json={
        "idToken": user["idToken"], "phoneEnrollmentInfo": {"phoneNumber": number, "recaptchaToken": "good"}})


def test_a_production_sms_goes_out_over_https_to_a_provider_a_public_ca_would_vouch_for(outside):
    before = len(ProviderAPI.received)
    started = start_phone_enrollment(outside, verified_user(outside), "+16505550142")
    assert started.status_code == 200, started.text
    assert len(ProviderAPI.received) == before + 1
    assert ProviderAPI.received[-1]["form"]["To"] == ["+16505550142"]


def test_an_endpoint_certified_by_the_deployment_ca_is_not_trusted_outside_the_deployment(outside):
    """The SMS provider's place taken by a server whose certificate this deployment's CA issued:
    refused, no SMS, and the client hears 503 (the provider is unavailable), not 500."""
    port = free_port()
    with running(extra_env={"challenge-issuer": {
            "SMS_SENDER": "http", "SMS_HTTP_BASE_URL": f"https://127.0.0.1:{port}", "SMS_HTTP_ACCOUNT_ID": "AC1",
            "SMS_HTTP_AUTH_TOKEN": "provider-secret", "SMS_HTTP_FROM": "+15550001111",
            "APP_VERIFICATION_RECAPTCHA_SECRET": "recaptcha-secret", "APP_VERIFICATION_RECAPTCHA_ACTION": "sms",
            "APP_VERIFICATION_RECAPTCHA_ENDPOINT": outside.siteverify,
            "APP_VERIFICATION_RECAPTCHA_TRUST_ROOTS": str(outside.stand_in_ca)}}) as stack:
        # Now that the stack's CA exists, the impostor gets a certificate from it.
        pki = next(path.parent for path in stack.volumes.rglob("ca-key.pem"))
        cert, key = issued_by(pki / "ca.pem", pki / "ca-key.pem", outside.work_dir)
        server = serve_tls(ProviderAPI, port, cert, key)
        try:
            before = len(ProviderAPI.received)
            started = start_phone_enrollment(stack, verified_user(stack), "+16505550143")
            assert started.status_code == 503, started.text
            assert len(ProviderAPI.received) == before
        finally:
            server.shutdown()
