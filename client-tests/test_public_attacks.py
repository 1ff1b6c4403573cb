"""Issue 40's attacks on the gateway, from the internet with nothing but the public API key, against
docker-compose.yml's stack in production mode (the `production` fixture), and against a second
production stack with short listener limits where waiting out the defaults would take minutes. Each
attack took the gateway down, or held its sockets, before its fix."""

import secrets
import socket
import ssl
import time
from concurrent.futures import ThreadPoolExecutor

import h2.config
import h2.connection
import pytest
import requests

from production_stack import running

IDENTITY = "/identitytoolkit.googleapis.com/v1"
HANDSHAKE, HEADER, IDLE, CONNECTIONS = 2, 2, 3, 40


def sign_up(stack):
    answer = requests.post(f"{stack.gateway}{IDENTITY}/accounts:signUp?key={stack.api_key}", timeout=30,
                           json={"email": f"attack-{secrets.token_hex(5)}@example.com", "password": "secret-pw"})
    return answer.status_code


def alive(stack, service="gateway"):
    return stack.processes[stack.process_of(service)].poll() is None


def tls_socket(stack, alpn=("h2",)):
    host, port = stack.gateway_tls.split("//")[1].split(":")
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # an attacker checks nothing
    context.set_alpn_protocols(list(alpn))
    return context.wrap_socket(socket.create_connection((host, int(port)), timeout=15), server_hostname="localhost")


def test_deeply_nested_bodies_are_refused_and_the_gateway_keeps_serving(production):
    """H-2: twelve arrays nested 500 deep (12 KB) cost 1.2-1.6 s of loop time each; one request made the
    watchdog end the gateway. Sixteen at once are now each a 400 parse error, and the gateway lives."""
    nested = ",".join(["[" * 500 + "]" * 500] * 12)
    url = f"{production.gateway}{IDENTITY}/accounts:signInWithPassword?key={production.api_key}"

    def attack(_):
        return requests.post(url, data="[" + nested + "]", headers={"Content-Type": "application/json"}, timeout=30)

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(attack, range(16)))
    for answer in answers:
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["message"].startswith("Invalid JSON payload received.")
    # The same nesting inside an object member, where the schema would look for a field.
    deep_member = requests.post(url, data='{"email": ' + "[" * 200 + "]" * 200 + "}",
                                headers={"Content-Type": "application/json"}, timeout=30)
    assert deep_member.status_code == 400
    assert alive(production)
    assert sign_up(production) == 200


def test_a_burst_of_half_open_streams_cut_off_by_its_client_leaves_the_gateway_serving(production):
    """H-3: over one HTTP/2 connection, 100 requests whose bodies never come, then a closed socket. The
    peer calls those requests had started were cancelled mid-flight, which left the gateway's shared
    connection to factor-registry with no usable stream: every public call answered 503 after 10 s,
    for as long as the process ran. Now abandoned calls run to their answer; sign-ups go on at once."""
    for _ in range(3):
        sock = tls_socket(production)
        assert sock.selected_alpn_protocol() == "h2"
        connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        connection.initiate_connection()
        sock.sendall(connection.data_to_send())
        for _ in range(100):
            stream = connection.get_next_available_stream_id()
            connection.send_headers(stream, [
                (":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                (":path", f"{IDENTITY}/accounts:signInWithPassword?key={production.api_key}"),
                ("content-type", "application/json")], end_stream=False)
            sock.sendall(connection.data_to_send())
        time.sleep(0.3)
        sock.close()
    started = time.monotonic()
    assert [sign_up(production) for _ in range(5)] == [200] * 5
    # Not a timing assertion on speed: a wedged connection answers 503 only after the 10 s RPC deadline.
    assert time.monotonic() - started < 10
    assert requests.get(production.ops("gateway") + "/readyz", timeout=10).status_code == 200
    assert requests.get(production.ops("gateway") + "/healthz", timeout=10).status_code == 200


@pytest.fixture(scope="module")
def short_limits():
    limits = {"HTTP_HANDSHAKE_TIMEOUT_SECONDS": str(HANDSHAKE), "HTTP_HEADER_TIMEOUT_SECONDS": str(HEADER),
              "HTTP_IDLE_TIMEOUT_SECONDS": str(IDLE), "HTTP_MAXIMUM_CONNECTIONS": str(CONNECTIONS)}
    with running(extra_env={"gateway": limits, "factor-registry": limits}) as stack:
        yield stack


def closed_within(sock, limit: float) -> float:
    """Seconds until the server closes `sock` (reading and dropping what it sends), or inf after `limit`."""
    started = time.monotonic()
    sock.settimeout(0.5)
    while time.monotonic() - started < limit:
        try:
            if sock.recv(65536) == b"":
                return time.monotonic() - started
        except (socket.timeout, ssl.SSLWantReadError):
            continue
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError, OSError):
            return time.monotonic() - started
    return float("inf")


def rpc_address(stack, service):
    return ("127.0.0.1", int(stack.ports[service][0]))


@pytest.mark.parametrize("listener", ["public TLS", "RPC"])
def test_a_connection_that_never_starts_its_tls_handshake_is_closed(short_limits, listener):
    """M-1: no ClientHello at all; the socket used to stay open past 240 s."""
    if listener == "public TLS":
        host, port = short_limits.gateway_tls.split("//")[1].split(":")
        address = (host, int(port))
    else:
        if short_limits.processes_mode == "one":
            pytest.skip("one process: its services call each other in memory, with no RPC listener between them")
        address = rpc_address(short_limits, "factor-registry")
    sock = socket.create_connection(address, timeout=15)
    assert closed_within(sock, HANDSHAKE + 5) <= HANDSHAKE + 3


def test_a_tls_connection_that_says_nothing_after_its_handshake_is_closed(short_limits):
    """M-1: TLS completed, then silence, over HTTP/2 (no preface) and over HTTP/1.1 (no request)."""
    for alpn in (("h2",), ("http/1.1",)):
        sock = tls_socket(short_limits, alpn)
        assert closed_within(sock, IDLE + HEADER + 6) <= IDLE + HEADER + 4, alpn


def test_an_http2_connection_with_its_preface_and_no_stream_is_closed(short_limits):
    """M-1: the preface and SETTINGS, then nothing: sent GOAWAY when idle, then closed, not held."""
    sock = tls_socket(short_limits)
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    connection.initiate_connection()
    sock.sendall(connection.data_to_send())
    assert closed_within(sock, IDLE + HEADER + 6) <= IDLE + HEADER + 4


def test_a_listener_holds_no_more_than_its_connection_limit_and_serves_again_once_they_go(short_limits):
    """M-1: held sockets beyond the limit are closed at once; the listener serves again when they go."""
    host, port = short_limits.gateway.split("//")[1].split(":")
    held = [socket.create_connection((host, int(port)), timeout=15) for _ in range(CONNECTIONS)]
    time.sleep(0.5)
    extra = socket.create_connection((host, int(port)), timeout=15)
    assert closed_within(extra, 3) < 3
    for sock in held:
        sock.close()
    time.sleep(0.5)
    assert sign_up(short_limits) == 200
    assert alive(short_limits)


def test_a_production_preflight_never_opens_a_private_network_to_public_pages(production, stack):
    """L-5: `Access-Control-Allow-Private-Network: true` let any web page reach a production gateway
    inside a private network through its visitors' browsers. Development keeps it, for a hosted page
    calling a gateway on the developer's machine."""
    answer = requests.options(f"{production.gateway}{IDENTITY}/accounts:signUp?key={production.api_key}", timeout=10,
                              headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST",
                                       "Access-Control-Request-Private-Network": "true"})
    assert answer.status_code == 204
    assert "access-control-allow-private-network" not in {name.lower() for name in answer.headers}
    development = requests.options(f"{stack.gateway}{IDENTITY}/accounts:signUp?key=k", timeout=10,
                                   headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST",
                                            "Access-Control-Request-Private-Network": "true"})
    assert development.headers.get("Access-Control-Allow-Private-Network") == "true"
