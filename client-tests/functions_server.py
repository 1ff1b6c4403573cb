"""Serves the blocking functions of functions/main.py on loopback, each at its own path
(`/before_created`, …), every one loaded by functions-framework's `create_app` as `functions-framework
--target=<name>` loads it. Over HTTPS with `--certificate/--key` (the gateway trusts the stand-in CA,
as it would a public one). With `--jwks`, each event token is first checked the way the SDK checks
Identity Platform's, against the gateway's published keys instead of Google's: RS256, a known `kid`,
`aud` the function's own URL, `iss` `https://securetoken.google.com/<project>`, not expired; a token
that fails is answered 401 before the function runs (the SDK's own check is the emulator's, which
skips the signature: its key URL is Google's, hard-wired)."""

import argparse
import io
import json
import ssl

import jwt
from functions_framework import create_app
from werkzeug.serving import run_simple

TARGETS = ("before_created", "before_signed_in", "refuse_every_sign_up", "before_sms", "before_email")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--certificate")
    parser.add_argument("--key")
    parser.add_argument("--jwks")
    parser.add_argument("--jwks-ca")
    parser.add_argument("--project", default="demo-project")
    arguments = parser.parse_args()
    apps = {f"/{target}": create_app(target=target, source=arguments.source) for target in TARGETS}
    scheme = "https" if arguments.certificate else "http"
    keys = None
    if arguments.jwks:
        context = ssl.create_default_context(cafile=arguments.jwks_ca) if arguments.jwks_ca else None
        keys = jwt.PyJWKClient(arguments.jwks, ssl_context=context) if context else jwt.PyJWKClient(arguments.jwks)

    def dispatch(environ, start_response):
        path = environ.get("PATH_INFO", "")
        app = apps.get(path)
        if app is None:
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"no such function"]
        if keys is not None:
            body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            environ["wsgi.input"] = io.BytesIO(body)
            own_url = f"{scheme}://{environ['HTTP_HOST']}{path}"
            try:
                token = json.loads(body)["data"]["jwt"]
                key = keys.get_signing_key_from_jwt(token)
                jwt.decode(token, key.key, algorithms=["RS256"], audience=own_url,
                           issuer=f"https://securetoken.google.com/{arguments.project}",
                           options={"require": ["exp", "iat", "iss", "aud"]})
            except Exception as failed:  # noqa: BLE001 - any failure is the same refusal
                start_response("401 Unauthorized", [("Content-Type", "application/json")])
                message = f"event token refused: {type(failed).__name__}"
                return [json.dumps({"error": {"status": "UNAUTHENTICATED", "message": message}}).encode()]
        return app(environ, start_response)

    context = (arguments.certificate, arguments.key) if arguments.certificate else None
    run_simple("127.0.0.1", arguments.port, dispatch, threaded=True, ssl_context=context)


if __name__ == "__main__":
    main()
