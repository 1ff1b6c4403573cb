"""A real OpenID Connect provider on loopback for the identity-provider tests: PyPI's oidc-provider-mock
(authlib underneath: discovery document, JWKS, authorization and token endpoints, RS256 ID tokens)
served over HTTPS with a certificate from its own stand-in public CA, which the services trust through
`identityProviders.trustRoots` the way a deployment trusts a public one.

`id_token(...)` gets a token the way an app's native sign-in does (an authorization-code flow with the
provider, as Google Sign-In or Sign in with Apple run it for the app); `authorize(...)` is a browser's
consent at the provider in a web sign-in; `signed(...)` signs claims with the provider's own key, for
tokens the provider would not hand out (an expired one)."""

import contextlib
import hashlib
import json
import logging
import ssl
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

import flask
import oidc_provider_mock
import requests
import werkzeug.serving
from joserfc import jwt as jose_jwt
from joserfc.jwk import OctKey, RSAKey

import public_certificate


class Provider:
    def __init__(self, directory: Path):
        self.ca = public_certificate.issue(directory, "provider.pem", "provider-key.pem", names=("127.0.0.1", "localhost"))
        self.app = oidc_provider_mock.app()
        # The provider's access log would fill the test output.
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        # RFC 7009 revocation, which the package lacks (Apple has it): the requests are kept for the
        # tests to read, and the discovery document names the endpoint.
        self.revoked = []
        self.app.add_url_rule("/oauth2/revoke", "revoke", self._revoke, methods=["POST"])
        self.app.after_request(self._advertise_revocation)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(directory / "provider.pem"), str(directory / "provider-key.pem"))
        self.server = werkzeug.serving.make_server("127.0.0.1", 0, self.app, threaded=True, ssl_context=context)
        self.issuer = f"https://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self.thread.start()

    def _revoke(self):
        self.revoked.append(dict(flask.request.form))
        return "", 200

    def _advertise_revocation(self, response):
        if flask.request.path == "/.well-known/openid-configuration" and response.is_json:
            document = response.get_json()
            document["revocation_endpoint"] = flask.request.host_url.rstrip("/") + "/oauth2/revoke"
            response.set_data(json.dumps(document))
        return response

    def close(self):
        self.server.shutdown()
        self.thread.join(5)

    def set_user(self, sub: str, **claims):
        answer = requests.put(f"{self.issuer}/users/{urllib.parse.quote(sub, safe='')}", json=claims, verify=str(self.ca),
                              timeout=30)
        assert answer.status_code == 204, answer.text

    def authorize(self, client_id: str, redirect_uri: str, sub: str, state: str | None = None, nonce: str | None = None,
                  scope: str = "openid email profile", response_type: str = "code", authorization_url: str | None = None):
        """The user's consent at the provider: the URL it sends the browser back to."""
        if authorization_url is None:
            query = {"client_id": client_id, "redirect_uri": redirect_uri, "response_type": response_type, "scope": scope}
            if state:
                query["state"] = state
            if nonce:
                query["nonce"] = nonce
            authorization_url = f"{self.issuer}/oauth2/authorize?{urllib.parse.urlencode(query)}"
        answer = requests.post(authorization_url, data={"sub": sub}, verify=str(self.ca), allow_redirects=False, timeout=30)
        assert answer.status_code in (302, 303), answer.text
        return answer.headers["location"]

    def id_token(self, client_id: str, sub: str, nonce: str | None = None, redirect_uri: str = "https://app.example/cb"):
        """An ID token for `client_id` about `sub` (set its claims with `set_user` first)."""
        location = self.authorize(client_id, redirect_uri, sub, state="native", nonce=nonce)
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
        answer = requests.post(f"{self.issuer}/oauth2/token", verify=str(self.ca), timeout=30, data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "client_id": client_id,
            "client_secret": "app-secret"})
        assert answer.status_code == 200, answer.text
        return answer.json()["id_token"]

    def signed(self, claims: dict) -> str:
        """`claims` signed with the provider's current key, as its tokens are."""
        with self.app.test_request_context("/"):
            self.app.preprocess_request()
            stored = flask.g.oidc_provider_mock_storage.jwk.as_dict(is_private=True)
        key = RSAKey.import_key(stored)
        header = {"alg": "RS256"} | ({"kid": stored["kid"]} if stored.get("kid") else {})
        return jose_jwt.encode(header, claims, key)


def resigned(claims: dict, algorithm: str = "RS256") -> str:
    """`claims` signed by a key that is not the provider's (a forger's)."""
    key = RSAKey.generate_key(2048) if algorithm == "RS256" else OctKey.generate_key(256)
    return jose_jwt.encode({"alg": algorithm}, claims, key, algorithms=[algorithm])


def hashed_nonce(raw: str) -> str:
    """What an app gives the provider for a raw nonce (Sign in with Apple's, Firebase's samples): SHA-256 in hex."""
    return hashlib.sha256(raw.encode()).hexdigest()


@contextlib.contextmanager
def running():
    with tempfile.TemporaryDirectory(prefix="mfa-oidc-") as work:
        provider = Provider(Path(work))
        try:
            yield provider
        finally:
            provider.close()


def now() -> int:
    return int(time.time())
