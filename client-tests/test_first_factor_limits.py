"""Decision 20 (issue 25, finding 4): password sign-in, sign-up, out-of-band mail, token refresh and
iOS pushes are limited per client address (an IPv6 client by its /64, behind a trusted load
balancer by the address it forwards), wrong passwords per account and client, sign-ups per project
and mails per account, across instances; the password-hashing queue is bounded. A victim's own
correct password from another client still works."""

import concurrent.futures
import secrets

import pytest
import requests

from conftest import another_stack

V1 = "/identitytoolkit.googleapis.com/v1/accounts:"
TOO_MANY = "TOO_MANY_ATTEMPTS_TRY_LATER"
ADMIN = {"Authorization": "Bearer owner"}


def call(stack, operation, client=None, **body):
    headers = {"X-Forwarded-For": client} if client else {}
    return requests.post(f"{stack.gateway}{V1}{operation}?key=k", json=body, headers=headers, timeout=60)


def error(response):
    return response.json()["error"]["message"]


@pytest.fixture(scope="module")
def limited(stack):
    """Small limits, and the test runner (127.0.0.1) as a trusted load balancer: each test names its
    own client address in X-Forwarded-For."""
    with another_stack(stack, "limits", mode="development", extra_env={
            "PUBLIC_CLIENT_ADDRESS_HEADER": "X-Forwarded-For", "PUBLIC_TRUSTED_PROXIES": "127.0.0.1",
            "FIRST_FACTOR_PER_ADDRESS_BURST": "8", "FIRST_FACTOR_PER_ADDRESS_PER_HOUR": "1",
            "FIRST_FACTOR_FAILURES_BURST": "3", "FIRST_FACTOR_FAILURES_PER_HOUR": "1",
            "OOB_CODES_MAILS_PER_ACCOUNT_BURST": "2", "OOB_CODES_MAILS_PER_ACCOUNT_PER_HOUR": "1",
            "REFRESH_PER_ADDRESS_BURST": "3", "REFRESH_PER_ADDRESS_PER_HOUR": "1"}) as running:
        yield running


_ADDRESSES = iter(range(1, 255))


def address():
    """A client address no other test of this module has used: the limits count per address, so a
    repeated random one could find its budget already spent."""
    return f"198.51.100.{next(_ADDRESSES)}"


def account(stack, client):
    email = f"limits-{secrets.token_hex(5)}@example.com"
    created = call(stack, "signUp", client=client, email=email, password="correct-pw")
    assert created.status_code == 200, created.text
    return email, created.json()


def test_wrong_passwords_lock_out_the_guesser_but_not_the_victim(limited):
    victim, guesser = "203.0.113.7", "203.0.113.66"
    email, _ = account(limited, victim)
    for _ in range(3):
        assert error(call(limited, "signInWithPassword", client=guesser, email=email, password="guess")) == "INVALID_PASSWORD"
    # The guesser's budget for this account is spent: even the right password is refused from there.
    assert error(call(limited, "signInWithPassword", client=guesser, email=email, password="correct-pw")) == TOO_MANY
    # The victim, from their own address, signs in.
    signed_in = call(limited, "signInWithPassword", client=victim, email=email, password="correct-pw")
    assert signed_in.status_code == 200, signed_in.text
    # Guessing at unknown emails spends the budget too (each costs a hash).
    unknown = f"nobody-{secrets.token_hex(4)}@example.com"
    for _ in range(3):
        assert error(call(limited, "signInWithPassword", client=guesser, email=unknown, password="x")) == "EMAIL_NOT_FOUND"
    assert error(call(limited, "signInWithPassword", client=guesser, email=unknown, password="x")) == TOO_MANY


def test_one_address_gets_a_bounded_number_of_first_factor_attempts(limited):
    client, other = address(), "192.0.2.9"
    answers = [call(limited, "signUp", client=client) for _ in range(10)]
    assert [a.status_code for a in answers[:8]] == [200] * 8
    assert all(error(a) == TOO_MANY for a in answers[8:])
    assert call(limited, "signUp", client=other).status_code == 200


def test_an_ipv6_client_counts_by_its_64(limited):
    prefix = f"2001:db8:{secrets.randbelow(0xffff):x}:1"
    answers = [call(limited, "signUp", client=f"{prefix}::{n + 1:x}") for n in range(9)]
    assert [a.status_code for a in answers[:8]] == [200] * 8
    assert error(answers[8]) == TOO_MANY
    assert call(limited, "signUp", client=f"2001:db8:{secrets.randbelow(0xffff):x}:2::1").status_code == 200


def test_a_forwarded_address_from_an_untrusted_peer_is_ignored(stack):
    """The shared stack trusts no proxy: a client cannot choose its bucket with a header."""
    with another_stack(stack, "untrusted", mode="development", extra_env={
            "PUBLIC_CLIENT_ADDRESS_HEADER": "X-Forwarded-For", "PUBLIC_TRUSTED_PROXIES": "10.9.9.9",
            "FIRST_FACTOR_PER_ADDRESS_BURST": "3", "FIRST_FACTOR_PER_ADDRESS_PER_HOUR": "1"}) as running:
        answers = [call(running, "signUp", client=address()) for _ in range(4)]
        assert [a.status_code for a in answers[:3]] == [200] * 3
        assert error(answers[3]) == TOO_MANY


def test_mails_to_one_account_are_limited(limited):
    client = address()
    _, user = account(limited, client)
    answers = [call(limited, "sendOobCode", client=address(), requestType="VERIFY_EMAIL", idToken=user["idToken"])
               for _ in range(3)]
    assert [a.status_code for a in answers[:2]] == [200, 200]
    assert error(answers[2]) == TOO_MANY
    # The audit trail records the tripped limit against the account.
    trail = requests.get(f"{limited.gateway}/v2/projects/demo-project/securityEvents", timeout=30,
                         headers={"Authorization": "Bearer owner"},
                         params={"localId": user["localId"], "eventTypes": "rateLimit.tripped"}).json()["events"]
    assert [event["details"] for event in trail] == [{"limit": "mails per account"}]


def test_refreshes_from_one_address_are_limited(limited):
    client = address()
    _, user = account(limited, client)
    token, answers = user["refreshToken"], []
    for _ in range(4):
        answer = requests.post(f"{limited.gateway}/securetoken.googleapis.com/v1/token?key=k",
                               data={"grant_type": "refresh_token", "refresh_token": token},
                               headers={"X-Forwarded-For": client}, timeout=30)
        answers.append(answer)
        if answer.status_code == 200:
            token = answer.json()["refresh_token"]
    assert [a.status_code for a in answers[:3]] == [200] * 3
    assert error(answers[3]) == TOO_MANY


def test_a_flood_of_sign_ins_meets_a_bounded_hashing_queue(stack):
    """Expensive hashes and a queue of 2: the excess is refused at once, never a 5xx."""
    with another_stack(stack, "queue", mode="development", extra_env={
            "PASSWORDS_MAXIMUM_QUEUED": "2", "PASSWORDS_SCRYPT_ROUNDS": "16384",
            "PASSWORDS_SCRYPT_PROJECTS": "demo-project=16384:8:1"}) as running:
        email, _ = account(running, None)
        with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
            answers = list(pool.map(lambda _: call(running, "signInWithPassword", email=email, password="correct-pw"),
                                    range(16)))
        statuses = [a.status_code for a in answers]
        assert all(status in (200, 400) for status in statuses), statuses
        assert any(status == 200 for status in statuses)
        refused = [error(a) for a in answers if a.status_code == 400]
        assert refused and set(refused) == {TOO_MANY}, refused
