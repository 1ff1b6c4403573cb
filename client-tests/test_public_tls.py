"""The gateway's HTTPS listener (public.tls.port): the same API over TLS, HTTP/2 negotiated by ALPN or
HTTP/1.1, driven by httpx (an independent HTTP/2 client). A whole TOTP sign-in runs over HTTP/2."""

import secrets
import ssl
import time

import httpx
import pyotp
import pytest

from mfa_helpers import ADMIN, V1, V2


@pytest.fixture(scope="module")
def h2(stack):
    with httpx.Client(http2=True, verify=trusting(stack), timeout=30) as client:
        yield client


def trusting(stack):
    """Trusts the stack's development CA, nothing else."""
    return ssl.create_default_context(cafile=str(stack.certs / "ca.pem"))


def post(client, stack, path, **body):
    return client.post(f"{stack.gateway_tls}{path}?key=k", json=body)


def test_http2_is_negotiated_and_the_api_answers(stack, h2):
    status = h2.get(f"{stack.gateway_tls}/")
    assert status.status_code == 200 and status.http_version == "HTTP/2"
    assert status.json()["service"] == "gateway"
    keys = h2.get(f"{stack.gateway_tls}/.well-known/jwks.json")
    assert keys.http_version == "HTTP/2" and keys.json()["keys"]


def test_http1_over_tls_still_works(stack):
    with httpx.Client(http2=False, verify=trusting(stack), timeout=30) as client:
        answer = client.get(f"{stack.gateway_tls}/")
    assert answer.status_code == 200 and answer.http_version == "HTTP/1.1"


def test_a_client_that_does_not_trust_the_ca_is_refused_by_its_own_tls(stack):
    with httpx.Client(http2=True, timeout=10) as client, pytest.raises(httpx.ConnectError):
        client.get(f"{stack.gateway_tls}/")


def test_bad_input_over_http2_gets_the_error_envelope(stack, h2):
    answer = h2.post(f"{stack.gateway_tls}{V1}signUp?key=k", content=b"{not json",
                     headers={"content-type": "application/json"})
    assert answer.status_code == 400 and answer.http_version == "HTTP/2"
    assert answer.json()["error"]["code"] == 400
    missing = post(h2, stack, f"{V2}mfaSignIn:finalize", totpVerificationInfo={"verificationCode": "123456"})
    assert missing.status_code == 400
    assert missing.json()["error"]["message"] == "MISSING_CREDENTIAL : Please set MFA Pending Credential."


def test_a_totp_sign_in_runs_entirely_over_http2(stack, h2):
    email, password = f"h2-{secrets.token_hex(6)}@example.com", "secret-pw"
    signed_up = post(h2, stack, f"{V1}signUp", email=email, password=password).json()
    verified = h2.post(f"{stack.gateway_tls}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update",
                       json={"localId": signed_up["localId"], "emailVerified": True}, headers=ADMIN)
    assert verified.status_code == 200, verified.text
    id_token = post(h2, stack, f"{V1}signInWithPassword", email=email, password=password).json()["idToken"]
    started = post(h2, stack, f"{V2}mfaEnrollment:start", idToken=id_token, totpEnrollmentInfo={}).json()
    info = started["totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"])
    enrolled = post(h2, stack, f"{V2}mfaEnrollment:finalize", idToken=id_token,
                    totpVerificationInfo={"sessionInfo": info["sessionInfo"], "verificationCode": totp.now()})
    assert enrolled.status_code == 200, enrolled.text
    first = post(h2, stack, f"{V1}signInWithPassword", email=email, password=password)
    assert first.http_version == "HTTP/2"
    pending = first.json()["mfaPendingCredential"]
    enrollment_id = first.json()["mfaInfo"][0]["mfaEnrollmentId"]
    # The enrollment used the current step; a sign-in needs a later one (each step is accepted once).
    finished = post(h2, stack, f"{V2}mfaSignIn:finalize", mfaPendingCredential=pending, mfaEnrollmentId=enrollment_id,
                    totpVerificationInfo={"verificationCode": totp.at(time.time() + 30)})
    assert finished.status_code == 200, finished.text
    assert finished.http_version == "HTTP/2"
    assert finished.json()["idToken"] and finished.json()["refreshToken"]
