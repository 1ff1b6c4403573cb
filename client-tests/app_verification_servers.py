"""Local servers that stand in for Google's and Apple's endpoints in the app-verification tests:
a reCAPTCHA siteverify endpoint, a Play Integrity decode endpoint, and an HTTP/2 TLS APNs endpoint that
checks the provider JWT and records each push."""

import asyncio
import base64
import datetime
import hashlib
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


class Recorder(BaseHTTPRequestHandler):
    """Answers by the token it is asked about; records every request."""
    calls = []

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(length).decode()
        Recorder.calls.append({"path": self.path, "headers": dict(self.headers), "body": raw})
        status, answer = self.answer(raw)
        body = json.dumps(answer).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (the timeout test)

    def log_message(self, *args):
        pass


class Siteverify(Recorder):
    calls = []

    def answer(self, raw):
        form = urllib.parse.parse_qs(raw)
        Siteverify.calls.append(form)
        token = form.get("response", [""])[0]
        if token == "slow":
            time.sleep(3)
        verdicts = {
            "good": {"success": True, "hostname": "localhost", "score": 0.9, "action": "sms"},
            "low-score": {"success": True, "hostname": "localhost", "score": 0.1, "action": "sms"},
            "wrong-host": {"success": True, "hostname": "evil.example", "score": 0.9, "action": "sms"},
            "wrong-action": {"success": True, "hostname": "localhost", "score": 0.9, "action": "login"},
        }
        return 200, verdicts.get(token, {"success": False, "error-codes": ["invalid-input-response"]})


class Integrity(Recorder):
    """A token is `<kind>|<phone number>`: the verdict it decodes to is bound to that number (its
    nonce, or its requestHash for `standard`) and made now (`stale`: ten minutes ago)."""
    calls = []

    def answer(self, raw):
        token = json.loads(raw).get("integrity_token", "")
        Integrity.calls.append({"path": self.path, "auth": self.headers.get("authorization"), "token": token})
        kind, _, number = token.partition("|")
        binding = base64.urlsafe_b64encode(hashlib.sha256(number.encode()).digest()).decode().rstrip("=")
        made = int(time.time() * 1000) - (600_000 if kind == "stale" else 0)
        details = {"requestPackageName": "com.example.app", "nonce": binding, "timestampMillis": str(made)}
        recognised = {"appRecognitionVerdict": "PLAY_RECOGNIZED"}
        device = {"deviceRecognitionVerdict": ["MEETS_DEVICE_INTEGRITY"]}
        payloads = {
            "genuine": {"requestDetails": details, "appIntegrity": recognised, "deviceIntegrity": device},
            "standard": {"requestDetails": {"requestPackageName": "com.example.app", "requestHash": binding,
                                            "timestampMillis": str(made)},
                         "appIntegrity": recognised, "deviceIntegrity": device},
            "stale": {"requestDetails": details, "appIntegrity": recognised, "deviceIntegrity": device},
            "sideloaded": {"requestDetails": details,
                           "appIntegrity": {"appRecognitionVerdict": "UNRECOGNIZED_VERSION"}, "deviceIntegrity": device},
            "other-app": {"requestDetails": {**details, "requestPackageName": "com.evil.app"}, "appIntegrity": recognised,
                          "deviceIntegrity": device},
        }
        if kind not in payloads:
            return 400, {"error": {"code": 400, "message": "Integrity token cannot be decoded"}}
        return 200, {"tokenPayloadExternal": payloads[kind]}


def serve(handler, port):
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def self_signed(directory: Path):
    """A CA-less self-signed certificate for 127.0.0.1 (trusted by the service through trustRoots)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "apns.test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    import ipaddress
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                        x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    (directory / "apns.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (directory / "apns-key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                               serialization.PrivateFormat.PKCS8,
                                                               serialization.NoEncryption()))
    return directory / "apns.pem", directory / "apns-key.pem"


class APNs:
    """An APNs provider API on HTTP/2 + TLS (hypercorn): checks the ES256 provider token against the
    team's key, records pushes, answers 200 or, for unknown devices, 400 BadDeviceToken."""

    def __init__(self, directory: Path, port: int, public_key, key_id: str, team_id: str):
        self.pushes = []
        self.public_key = public_key
        self.key_id = key_id
        self.team_id = team_id
        self.cert, self.key = self_signed(directory)
        self.port = port
        self.shutdown = None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        deadline = time.time() + 10
        while self.shutdown is None and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)

    async def app(self, scope, receive, send):
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {name.decode(): value.decode() for name, value in scope["headers"]}
        token = headers.get("authorization", "").removeprefix("bearer ")
        try:
            header = jwt.get_unverified_header(token)
            claims = jwt.decode(token, self.public_key, algorithms=["ES256"], options={"verify_aud": False})
            valid = header.get("kid") == self.key_id and claims.get("iss") == self.team_id
        except jwt.PyJWTError:
            valid = False
        device = scope["path"].removeprefix("/3/device/")
        self.pushes.append({"http_version": scope["http_version"], "path": scope["path"], "headers": headers,
                            "payload": json.loads(body or b"{}"), "token_valid": valid, "device": device})
        status, answer = (200, b"") if valid else (403, b'{"reason":"InvalidProviderToken"}')
        if valid and device.startswith("bad"):
            status, answer = 400, b'{"reason":"BadDeviceToken"}'
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": answer})

    def run(self):
        from hypercorn.asyncio import serve as hypercorn_serve
        from hypercorn.config import Config

        config = Config()
        config.bind = [f"127.0.0.1:{self.port}"]
        config.certfile = str(self.cert)
        config.keyfile = str(self.key)
        config.alpn_protocols = ["h2"]
        config.loglevel = "WARNING"
        loop = asyncio.new_event_loop()
        stop = asyncio.Event()
        self.shutdown = lambda: loop.call_soon_threadsafe(stop.set)
        loop.run_until_complete(hypercorn_serve(self.app, config, shutdown_trigger=stop.wait))

    def close(self):
        if self.shutdown:
            self.shutdown()
            self.thread.join(timeout=5)
