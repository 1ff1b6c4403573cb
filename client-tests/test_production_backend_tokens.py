"""A backend checks our ID tokens and session cookies without an Admin SDK (issue 58, docs/sdks.md): the
Python block of docs/sdks.md, run as written against a production stack (only its four constants are
this stack's), accepts what the gateway issued and refuses a forged, tampered, foreign or expired
token; `revoked` sees a password change, a disabled user and a deleted one."""

import base64
import datetime
import json
import os
import re
import secrets
from pathlib import Path

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

from production_stack import running, trust

DOC = Path(__file__).resolve().parent.parent / "docs" / "sdks.md"
V1 = "/identitytoolkit.googleapis.com/v1/accounts:"


def documented_verifier(stack):
    """The doc's block as a module, with this stack's gateway, admin listener, project and token."""
    block = re.search(r"<!-- tested: client-tests/test_production_backend_tokens.py runs this block -->\n```python\n(.*?)```",
                      DOC.read_text(), re.S).group(1)
    constants = {"GATEWAY": stack.gateway_tls, "ADMIN": stack.admin_url, "PROJECT": "demo-project",
                 "ADMIN_TOKEN": stack.admin_token}
    for name, value in constants.items():
        block, count = re.subn(rf"^{name} = .*$", f"{name} = {value!r}", block, flags=re.M)
        assert count == 1, name
    module = {}
    exec(compile(block, str(DOC), "exec"), module)
    return module


@pytest.fixture(scope="module")
def backend():
    with running() as stack:
        # The backend's machine trusts the public CA that issued the listener's certificate (PyJWT
        # fetches with urllib, which reads the machine's bundle: SSL_CERT_FILE here).
        trust(stack.public_ca)
        before = os.environ.get("SSL_CERT_FILE")
        os.environ["SSL_CERT_FILE"] = os.environ["REQUESTS_CA_BUNDLE"]
        try:
            yield stack, documented_verifier(stack)
        finally:
            if before is None:
                os.environ.pop("SSL_CERT_FILE", None)
            else:
                os.environ["SSL_CERT_FILE"] = before


def call(stack, operation, **body):
    answer = requests.post(f"{stack.gateway_tls}{V1}{operation}?key={stack.api_key}", json=body, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def admin(stack, path, **body):
    answer = requests.post(f"{stack.admin_url}/v1/projects/demo-project{path}", json=body, timeout=30,
                           headers={"Authorization": f"Bearer {stack.admin_token}"})
    assert answer.status_code == 200, answer.text
    return answer.json()


def user(stack):
    email = f"backend-{secrets.token_hex(5)}@example.com"
    return call(stack, "signUp", email=email, password="Correct-horse-1", returnSecureToken=True) | {"email": email}


def forged(claims, kid):
    """The same claims signed by a key nobody published, under a published key's id."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": kid})


def test_a_backend_accepts_the_gateways_id_tokens_and_cookies_and_refuses_forgeries(backend):
    stack, verifier = backend
    signed_up = user(stack)
    claims = verifier["verify_id_token"](signed_up["idToken"])
    assert claims["sub"] == signed_up["localId"] and claims["aud"] == "demo-project"
    assert verifier["revoked"](claims) is False
    cookie = admin(stack, ":createSessionCookie", idToken=signed_up["idToken"], validDuration="3600")["sessionCookie"]
    assert verifier["verify_session_cookie"](cookie)["sub"] == signed_up["localId"]
    # An ID token is no session cookie, and a cookie no ID token: their issuers differ.
    with pytest.raises(jwt.InvalidIssuerError):
        verifier["verify_session_cookie"](signed_up["idToken"])
    with pytest.raises(jwt.InvalidIssuerError):
        verifier["verify_id_token"](cookie)

    kid = jwt.get_unverified_header(signed_up["idToken"])["kid"]
    with pytest.raises(jwt.InvalidSignatureError):
        verifier["verify_id_token"](forged(claims, kid))
    header, payload, signature = signed_up["idToken"].split(".")
    raised = base64.urlsafe_b64encode(json.dumps({**claims, "sub": "someone-else"}).encode()).decode().rstrip("=")
    with pytest.raises(jwt.InvalidSignatureError):
        verifier["verify_id_token"](f"{header}.{raised}.{signature}")
    with pytest.raises(jwt.PyJWTError):  # no kid: no published key to check it with
        verifier["verify_id_token"](jwt.encode(claims, None, algorithm="none"))
    with pytest.raises(jwt.PyJWKClientError):
        verifier["verify_id_token"](forged(claims, "unknown-kid"))


def test_a_backend_refuses_an_expired_id_token(backend, monkeypatch):
    stack, verifier = backend
    token = user(stack)["idToken"]
    assert verifier["verify_id_token"](token)

    class TwoHoursLater(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.datetime.now(tz) + datetime.timedelta(hours=2)

    # PyJWT reads the time as `datetime.now(tz=timezone.utc)` in jwt.api_jwt.
    monkeypatch.setattr(jwt.api_jwt, "datetime", TwoHoursLater)
    with pytest.raises(jwt.ExpiredSignatureError):
        verifier["verify_id_token"](token)


def test_revoked_sees_a_password_change_a_disabled_user_and_a_deleted_one(backend):
    stack, verifier = backend
    changed, disabled, deleted = user(stack), user(stack), user(stack)
    old = verifier["verify_id_token"](changed["idToken"])
    call(stack, "update", idToken=changed["idToken"], password="Another-horse-2")
    assert verifier["revoked"](old) is True
    admin(stack, "/accounts:update", localId=disabled["localId"], disableUser=True)
    assert verifier["revoked"](verifier["verify_id_token"](disabled["idToken"])) is True
    gone = verifier["verify_id_token"](deleted["idToken"])
    call(stack, "delete", idToken=deleted["idToken"])
    assert verifier["revoked"](gone) is True
