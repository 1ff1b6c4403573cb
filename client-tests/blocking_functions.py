"""The blocking functions of functions/main.py running on loopback (functions_server.py over
functions-framework), and what they heard. In development the SDK's emulator switch
(`FIREBASE_AUTH_EMULATOR_HOST`) skips its signature check; with `jwks` (production) the server checks
every event token against the gateway's published keys first, over HTTPS from a stand-in CA."""

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

import public_certificate
from conftest import free_port

HERE = Path(__file__).parent


class Functions:
    def __init__(self, directory: Path, tls: bool = False, jwks: str | None = None, jwks_ca: Path | None = None):
        self.port = free_port()
        self.events_file = directory / "events.jsonl"
        self.events_file.write_text("")
        self.scheme = "https" if tls else "http"
        self.ca = None
        command = [sys.executable, str(HERE / "functions_server.py"), "--port", str(self.port),
                   "--source", str(HERE / "functions" / "main.py")]
        if tls:
            # A certificate issued before (`issue`, so the gateway could be told its CA first) is kept.
            self.ca = directory / "public-ca.pem" if (directory / "functions.pem").exists() else issue(directory)
            command += ["--certificate", str(directory / "functions.pem"), "--key", str(directory / "functions-key.pem")]
        if jwks:
            command += ["--jwks", jwks] + (["--jwks-ca", str(jwks_ca)] if jwks_ca else [])
        environment = {**os.environ, "BLOCKING_EVENTS_FILE": str(self.events_file), "GCLOUD_PROJECT": "demo-project",
                       "GOOGLE_CLOUD_PROJECT": "demo-project", "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:9"}
        self.log = open(directory / "functions.log", "w")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(command, env=environment, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(self.uri("before_created"), verify=str(self.ca) if self.ca else True, timeout=2)
                break
            except requests.RequestException:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((directory / "functions.log").read_text()) from None
                time.sleep(0.2)

    def uri(self, name: str) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/{name}"

    def events(self, event: str | None = None) -> list[dict]:
        heard = [json.loads(line) for line in self.events_file.read_text().splitlines() if line]
        return [entry for entry in heard if event is None or entry["event"] == event]

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


def issue(directory: Path) -> Path:
    """The functions' certificate for 127.0.0.1 from a stand-in public CA; returns the CA's."""
    return public_certificate.issue(directory, "functions.pem", "functions-key.pem", names=("127.0.0.1", "localhost"))


@contextlib.contextmanager
def running(directory: Path | None = None, **options):
    with tempfile.TemporaryDirectory(prefix="mfa-functions-") as scratch:
        functions = Functions(directory or Path(scratch), **options)
        try:
            yield functions
        finally:
            functions.close()


def triggers(functions: Functions, **names: str) -> dict:
    """`blockingFunctions` naming a function of `functions` per event: triggers(f, beforeCreate="before_created")."""
    return {"triggers": {event: {"functionUri": functions.uri(name)} for event, name in names.items()}}
