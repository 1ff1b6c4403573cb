"""A real SMTP server (aiosmtpd) for the EmailSMTP tests.

Listens on 127.0.0.1:--port and records, in --dir:
  message-N.json   each accepted message: envelope, headers and body as Python's email parser reads them
  auth-attempts    one line per AUTH the server saw (the login only), to prove credentials were not sent
  ca.pem           with --tls: the CA that issued the server's certificate, for the client to trust
  ready            once the server accepts connections
With --inject-after-starttls it is instead a minimal scripted server that forges a reply across the
STARTTLS boundary. It exits when its parent (the test process) goes away, so a crashed test leaves
no server behind.
"""

import argparse
import datetime
import ipaddress
import json
import os
import signal
import socket
import ssl
import sys
import time
from email import policy
from email.parser import BytesParser

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def write_atomically(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(path + ".tmp", path)


def make_certificate(directory):
    """A self-signed CA (written to ca.pem) and a server certificate it issued for 127.0.0.1 and localhost."""
    now = datetime.datetime.now(datetime.timezone.utc)
    validity = (now - datetime.timedelta(hours=1), now + datetime.timedelta(days=1))
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "EmailSMTP test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(validity[0]).not_valid_after(validity[1])
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(validity[0]).not_valid_after(validity[1])
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    write_atomically(os.path.join(directory, "ca.pem"), ca.public_bytes(pem).decode())
    chain_path = os.path.join(directory, "server-chain.pem")
    key_path = os.path.join(directory, "server-key.pem")
    write_atomically(chain_path, leaf.public_bytes(pem).decode())
    write_atomically(
        key_path,
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(chain_path, key_path)
    return context


class Recorder:
    def __init__(self, directory, reject_recipients):
        self.directory = directory
        self.reject_recipients = reject_recipients
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.reject_recipients:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content
        message = BytesParser(policy=policy.default).parsebytes(raw)
        self.count += 1
        record = {
            "mailFrom": envelope.mail_from,
            "recipients": envelope.rcpt_tos,
            "headers": {name: str(value) for name, value in message.items()},
            "body": message.get_content(),
            "raw": raw.decode("utf-8", errors="replace"),
            # session.ssl is only set by STARTTLS; the transport knows for implicit TLS as well.
            "overTLS": server.transport.get_extra_info("ssl_object") is not None,
            "authenticated": bool(session.authenticated),
        }
        write_atomically(os.path.join(self.directory, f"message-{self.count}.json"), json.dumps(record))
        return "250 OK queued"


def run_injector(port, directory, parent):
    """Not aiosmtpd and not conformant, on purpose: it answers STARTTLS with its 220 and, in the same
    packet, a forged 250 that a vulnerable client would take as the reply to its next command."""
    listener = socket.create_server(("127.0.0.1", port))
    listener.settimeout(0.2)
    write_atomically(os.path.join(directory, "ready"), str(os.getpid()))
    while os.getppid() == parent:
        try:
            connection, _ = listener.accept()
        except socket.timeout:
            continue
        with connection:
            connection.settimeout(5)
            connection.sendall(b"220 injector ESMTP\r\n")
            try:
                for line in connection.makefile("rb"):
                    command = line.strip().upper()
                    if command.startswith(b"EHLO"):
                        connection.sendall(b"250-injector\r\n250-AUTH PLAIN\r\n250 STARTTLS\r\n")
                    elif command == b"STARTTLS":
                        connection.sendall(b"220 go ahead\r\n250-forged\r\n250 AUTH PLAIN\r\n")
                    else:
                        connection.sendall(b"500 unexpected\r\n")
            except OSError:
                pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--tls", choices=["none", "starttls", "implicit"], default="none")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--auth-over-plain", action="store_true", help="offer AUTH without TLS")
    parser.add_argument("--reject-recipients", action="store_true")
    parser.add_argument("--inject-after-starttls", action="store_true", help="run the forging server instead")
    arguments = parser.parse_args()
    parent = os.getppid()
    # The test stops the server with SIGTERM; make sure it is neither ignored nor blocked as inherited.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    if arguments.inject_after_starttls:
        return run_injector(arguments.port, arguments.dir, parent)

    tls_context = make_certificate(arguments.dir) if arguments.tls != "none" else None
    options = {}
    if arguments.tls == "starttls":
        options.update(tls_context=tls_context, require_starttls=True)
    elif arguments.tls == "implicit":
        options.update(ssl_context=tls_context)
    if arguments.user is not None:
        attempts_path = os.path.join(arguments.dir, "auth-attempts")

        def authenticator(server, session, envelope, mechanism, auth_data):
            login = auth_data.login.decode(errors="replace") if isinstance(auth_data, LoginPassword) else "?"
            with open(attempts_path, "a", encoding="utf-8") as file:
                file.write(f"{mechanism} {login}\n")
            valid = (
                isinstance(auth_data, LoginPassword)
                and auth_data.login == arguments.user.encode()
                and auth_data.password == arguments.password.encode()
            )
            # handled=False: aiosmtpd then answers a failure with 535 itself (handled=True means
            # "already answered", and the client would wait for a reply that never comes).
            return AuthResult(success=valid, handled=False)

        # aiosmtpd counts only STARTTLS as TLS: with implicit TLS it would hide AUTH unless told not to.
        require_tls = arguments.tls == "starttls" and not arguments.auth_over_plain
        options.update(authenticator=authenticator, auth_required=True, auth_require_tls=require_tls)

    controller = Controller(
        Recorder(arguments.dir, arguments.reject_recipients), hostname="127.0.0.1", port=arguments.port, **options
    )
    controller.start()
    write_atomically(os.path.join(arguments.dir, "ready"), str(os.getpid()))
    print(f"listening on 127.0.0.1:{arguments.port} ({arguments.tls})", flush=True)
    try:
        while os.getppid() == parent:
            time.sleep(0.2)
    finally:
        controller.stop()


if __name__ == "__main__":
    sys.exit(main())
