"""Finding 7 (slow-loris): a client that trickles its request a byte at a time, or never sends its
body, is cut off after the configured time, on the public listener and on the ops listener, while
other clients are served throughout."""

import socket
import time

import pytest
import requests

from conftest import another_stack

HEADER, BODY = 2, 3


@pytest.fixture(scope="module")
def short_timeouts(stack):
    with another_stack(stack, "slow", mode="development", extra_env={
            "HTTP_HEADER_TIMEOUT_SECONDS": str(HEADER), "HTTP_BODY_TIMEOUT_SECONDS": str(BODY),
            "HTTP_IDLE_TIMEOUT_SECONDS": "5"}) as running:
        yield running


def connect(url):
    host, port = url.split("//")[1].split(":")
    sock = socket.create_connection((host, int(port)), timeout=15)
    return sock


def closed_after(sock, trickle: bytes = b"", interval: float = 0.5, limit: float = 12) -> float:
    """Sends `trickle` a byte per `interval` (then nothing) until the server closes; the seconds taken."""
    started = time.monotonic()
    sent = 0
    while time.monotonic() - started < limit:
        try:
            if sent < len(trickle):
                sock.send(trickle[sent:sent + 1])
                sent += 1
            sock.settimeout(interval)
            if sock.recv(4096) == b"":
                return time.monotonic() - started
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return time.monotonic() - started
    return float("inf")


def served(running):
    return requests.get(running.gateway + "/", timeout=10).status_code == 200


def test_a_request_head_trickled_a_byte_at_a_time_is_cut_off(short_timeouts):
    head = b"POST /identitytoolkit.googleapis.com/v1/accounts:signUp?key=k HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 200
    sock = connect(short_timeouts.gateway)
    took = closed_after(sock, trickle=head)
    assert HEADER - 0.5 <= took <= HEADER + 3, took
    assert served(short_timeouts)


def test_a_body_that_never_comes_is_cut_off(short_timeouts):
    sock = connect(short_timeouts.gateway)
    sock.sendall(b"POST /identitytoolkit.googleapis.com/v1/accounts:signUp?key=k HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
    took = closed_after(sock)
    assert BODY - 0.5 <= took <= BODY + 3, took
    assert served(short_timeouts)


def test_a_connection_that_sends_nothing_is_cut_off_and_others_are_served_meanwhile(short_timeouts):
    idle = [connect(short_timeouts.gateway) for _ in range(20)] + [connect(short_timeouts.ops("factor-registry"))]
    assert served(short_timeouts)
    assert requests.get(short_timeouts.ops("factor-registry") + "/healthz", timeout=10).status_code == 200
    for sock in idle:
        assert closed_after(sock) <= HEADER + 3


def test_a_complete_request_is_answered_however_long_the_answer_takes(short_timeouts):
    """Only the client's sending is timed: a sign-up (scrypt) answers normally."""
    answer = requests.post(f"{short_timeouts.gateway}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                           json={"email": "slow-but-fine@example.com", "password": "secret-pw"}, timeout=30)
    assert answer.status_code == 200, answer.text
