"""OpenTelemetry traces across the four services: with `tracing.otlpEndpoint` set, a second-factor
sign-in is one trace from the gateway's public request through each RPC (a client span in the
caller, a server span in the callee, joined by W3C `traceparent`), exported as OTLP/HTTP JSON to a
collector (here a real HTTP server on loopback that keeps what it receives). Off by default."""

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from conftest import PROCESSES, another_stack, free_port
from mfa_helpers import enable_project_totp, enroll_totp, v1, v2, verified_user

SERVER, CLIENT = {2, "SPAN_KIND_SERVER"}, {3, "SPAN_KIND_CLIENT"}


class Collector(BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.path == "/v1/traces":
            Collector.received.append((self.headers.get("content-type"), json.loads(body)))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


def hex_id(value: str) -> str:
    """OTLP/JSON ids: hex by the specification; base64 from encoders that treat them as bytes."""
    if all(c in "0123456789abcdef" for c in value) and len(value) in (16, 32):
        return value
    return base64.b64decode(value).hex()


def spans():
    found = []
    for _, document in Collector.received:
        for resource in document.get("resourceSpans", []):
            attributes = {a["key"]: a["value"].get("stringValue") for a in resource.get("resource", {}).get("attributes", [])}
            for scope in resource.get("scopeSpans", []):
                for span in scope.get("spans", []):
                    found.append({"service": attributes.get("service.name"), "name": span["name"], "kind": span.get("kind"),
                                  "trace": hex_id(span["traceId"]), "id": hex_id(span["spanId"]),
                                  "parent": hex_id(span["parentSpanId"]) if span.get("parentSpanId") else None,
                                  "attributes": {a["key"]: a["value"] for a in span.get("attributes", [])}})
    return found


@pytest.fixture(scope="module")
def traced_stack(stack):
    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with another_stack(stack, "traces", extra_env={
            "TRACING_OTLP_ENDPOINT": f"http://127.0.0.1:{port}/v1/traces", "OTEL_BSP_SCHEDULE_DELAY": "200",
        }) as running:
            yield running
    finally:
        server.shutdown()


def wait_for(condition, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (result := condition()):
            return result
        time.sleep(0.2)
    raise AssertionError("not within the time allowed")


def test_a_second_factor_sign_in_is_one_trace_across_the_services(traced_stack):
    enable_project_totp(traced_stack)
    user = verified_user(traced_stack)
    totp, _ = enroll_totp(traced_stack, user)
    pending = v1(traced_stack, "signInWithPassword", email=user["email"], password=user["password"]).json()
    finalized = v2(traced_stack, "mfaSignIn:finalize", mfaPendingCredential=pending["mfaPendingCredential"],
                   mfaEnrollmentId=pending["mfaInfo"][0]["mfaEnrollmentId"],
                   totpVerificationInfo={"verificationCode": totp.at(time.time() + 30)})
    assert finalized.status_code == 200

    def the_finalize():
        roots = [s for s in spans() if s["name"] == "identitytoolkit.accounts.mfaSignIn.finalize"]
        return roots[-1] if roots else None

    root = wait_for(the_finalize)
    assert root["parent"] is None and root["kind"] in SERVER
    assert root["attributes"]["http.response.status_code"] in ({"intValue": "200"}, {"intValue": 200})

    def whole_trace():
        trace = [s for s in spans() if s["trace"] == root["trace"]]
        served = {s["service"] for s in trace if s["kind"] in SERVER and s["parent"]}
        wanted = {"challenge-issuer", "session-token"} if PROCESSES == "four" else {"mfa-all-in-one"}
        return trace if wanted <= served else None

    trace = wait_for(whole_trace)
    by_id = {s["id"]: s for s in trace}
    for span in trace:
        if span["id"] == root["id"]:
            continue
        # Every span hangs off another span of the same trace, up to the public request.
        assert span["parent"] in by_id, span
    if PROCESSES == "four":
        calls = [s for s in trace if s["kind"] in CLIENT]
        assert calls and all(s["service"] == "gateway" and s["parent"] == root["id"] for s in calls)
        for served in (s for s in trace if s["kind"] in SERVER and s["id"] != root["id"]):
            client = by_id[served["parent"]]
            assert client["kind"] in CLIENT and client["name"] == served["name"], (client, served)
    # The collector got JSON (OTLP/HTTP JSON), and the services named themselves.
    assert {content for content, _ in Collector.received} == {"application/json"}


def test_a_clients_traceparent_is_continued(traced_stack):
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    answer = requests.post(f"{traced_stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                           json={"email": f"trace-{time.time_ns()}@example.com", "password": "secret-pw-123"},
                           headers={"traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"}, timeout=30)
    assert answer.status_code == 200
    continued = wait_for(lambda: [s for s in spans() if s["trace"] == trace_id and s["name"] == "identitytoolkit.accounts.signUp"])
    assert continued[0]["parent"] == "00f067aa0ba902b7"


def test_tracing_is_off_by_default(stack):
    """The shared stack sets no endpoint: it exports nothing and says nothing about it."""
    assert "otel" not in stack.log_tail("gateway", lines=200).lower()
