"""ID tokens minted by session-token, verified with an independent library (PyJWT) against the key set
the gateway publishes, the way a relying party would."""

import base64
import json
import time

import jwt
import requests

X509_PATH = "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"


def issue(stack, **params):
    """Calls session.issue as the gateway: JSON-RPC over mutual TLS (HTTP/1.1 through ALPN fallback)."""
    rpc, _ = stack.ports["session-token"]
    answer = requests.post(
        f"https://127.0.0.1:{rpc}/rpc",
        json={"jsonrpc": "2.0", "method": "session.issue", "params": params, "id": 1},
        cert=(str(stack.certs / "gateway.pem"), str(stack.certs / "gateway-key.pem")),
        verify=str(stack.certs / "ca.pem"),
        timeout=10,
    )
    assert answer.status_code == 200
    return answer.json()


def decode_segment(segment: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


def test_an_id_token_verifies_with_pyjwt_against_the_published_keys(stack):
    now = int(time.time())
    reply = issue(
        stack, projectId="demo-project", localId="user-123", signInProvider="password", authTime=now - 5,
        user={"email": "ada@example.com", "emailVerified": True, "displayName": "Ada",
              "customClaims": {"role": "admin", "sub": "someone-else", "firebase": {"tenant": "x"}}},
    )
    result = reply["result"]
    assert result["expiresIn"] == "3600"
    token = result["idToken"]

    header = decode_segment(token.split(".")[0])
    assert header["alg"] == "RS256" and header["typ"] == "JWT"
    certificates = requests.get(stack.gateway + X509_PATH, timeout=10).json()
    assert header["kid"] in certificates

    jwks = requests.get(stack.gateway + "/.well-known/jwks.json", timeout=10).json()
    key = jwt.PyJWKSet.from_dict(jwks)[header["kid"]]
    claims = jwt.decode(
        token, key.key, algorithms=["RS256"], audience="demo-project",
        issuer="https://securetoken.google.com/demo-project",
    )
    assert claims["sub"] == claims["user_id"] == "user-123"
    assert claims["exp"] - claims["iat"] == 3600
    assert claims["auth_time"] == now - 5
    assert claims["email"] == "ada@example.com" and claims["email_verified"] is True
    assert claims["name"] == "Ada"
    assert claims["role"] == "admin"
    assert claims["firebase"] == {"identities": {"email": ["ada@example.com"]}, "sign_in_provider": "password"}

    # A token with a byte changed in its payload no longer verifies.
    head, payload, signature = token.split(".")
    forged_claims = dict(decode_segment(payload), sub="attacker")
    forged_payload = base64.urlsafe_b64encode(json.dumps(forged_claims).encode()).rstrip(b"=").decode()
    try:
        jwt.decode(f"{head}.{forged_payload}.{signature}", key.key, algorithms=["RS256"], audience="demo-project")
        raise AssertionError("a forged token verified")
    except jwt.InvalidSignatureError:
        pass


def test_second_factor_and_tenant_claims_and_refresh_tokens(stack):
    reply = issue(
        stack, projectId="demo-project", localId="user-456", signInProvider="password", secondFactor="totp",
        secondFactorIdentifier="enr-1", authTime=int(time.time()), user={"phoneNumber": "+15555550100"},
    )
    result = reply["result"]
    claims = jwt.decode(result["idToken"], options={"verify_signature": False})
    assert claims["firebase"]["sign_in_second_factor"] == "totp"
    assert claims["firebase"]["second_factor_identifier"] == "enr-1"
    assert claims["firebase"]["identities"] == {"phone": ["+15555550100"]}
    assert claims["phone_number"] == "+15555550100"
    assert "tenant" not in claims["firebase"]
    # Opaque, high entropy, and different every time.
    again = issue(stack, projectId="demo-project", localId="user-456", signInProvider="password",
                  authTime=int(time.time()), user={})["result"]
    assert result["refreshToken"] != again["refreshToken"]
    assert len(result["refreshToken"].split(".")[1]) >= 43


def test_an_unknown_tenant_is_an_error_not_a_token(stack):
    reply = issue(stack, projectId="demo-project", tenantId="NoSuchTenant", localId="u", signInProvider="password",
                  authTime=0, user={})
    assert "result" not in reply
    assert reply["error"]["code"] == 901
