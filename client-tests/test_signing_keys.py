"""The published key set, checked with independent libraries (cryptography, PyJWT)."""

import jwt
import requests
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import rsa

from conftest import b64url_to_int

JWKS_PATHS = [
    "/.well-known/jwks.json",
    "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
]
X509_PATH = "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"


def test_jwk_set_loads_in_pyjwt_and_matches_the_certificates(stack):
    jwks = requests.get(stack.gateway + JWKS_PATHS[0], timeout=10).json()
    key_set = jwt.PyJWKSet.from_dict(jwks)
    assert [key.key_id for key in key_set.keys] == [jwk["kid"] for jwk in jwks["keys"]]
    certificates = requests.get(stack.gateway + X509_PATH, timeout=10).json()
    assert set(certificates) == {jwk["kid"] for jwk in jwks["keys"]}
    for jwk in jwks["keys"]:
        assert jwk["alg"] == "RS256" and jwk["kty"] == "RSA"
        public_key = x509.load_pem_x509_certificate(certificates[jwk["kid"]].encode()).public_key()
        assert isinstance(public_key, rsa.RSAPublicKey)
        numbers = public_key.public_numbers()
        assert numbers.n == b64url_to_int(jwk["n"])
        assert numbers.e == b64url_to_int(jwk["e"])
        assert public_key.key_size == 2048


def test_both_jwk_paths_serve_the_same_set_with_a_cache_lifetime(stack):
    answers = [requests.get(stack.gateway + path, timeout=10) for path in JWKS_PATHS]
    assert all(answer.status_code == 200 for answer in answers)
    assert answers[0].json() == answers[1].json()
    assert answers[0].headers["cache-control"] == "public, max-age=60"


def test_a_firebase_style_client_gets_the_contract_envelope_for_a_missing_api_key(stack):
    answer = requests.post(stack.gateway + "/identitytoolkit.googleapis.com/v1/accounts:signUp", json={}, timeout=10)
    assert answer.status_code == 403
    assert answer.json()["error"]["message"] == "The request is missing a valid API key."
    assert answer.json()["error"]["status"] == "PERMISSION_DENIED"
