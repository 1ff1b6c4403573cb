"""Google's generated REST client (google-api-python-client, static discovery documents) pointed at the
gateway, as an app would drive the public Identity Toolkit API with a client nobody here wrote; plus the
small steps the out-of-band tests share: the development sink's mail, links, tokens and errors."""

import json
import secrets
import time
import urllib.parse

import jwt
import requests
from googleapiclient import discovery
from googleapiclient.errors import HttpError

ADMIN = {"Authorization": "Bearer owner"}


def identitytoolkit(stack, version="v1"):
    """The generated client; it sends `?key=k` and posts to {gateway}/v1/... (no host prefix)."""
    return discovery.build("identitytoolkit", version, static_discovery=True, developerKey="k",
                           client_options={"api_endpoint": stack.gateway}, cache_discovery=False)


def failure(call):
    """Runs a generated-client request that must fail; returns (HTTP status, error message)."""
    try:
        answer = call.execute()
    except HttpError as failed:
        return failed.resp.status, json.loads(failed.content)["error"]["message"]
    raise AssertionError(f"expected an error, got {answer}")


def claims(token):
    return jwt.decode(token, options={"verify_signature": False})


def unique_email(prefix="oob"):
    return f"{prefix}-{secrets.token_hex(6)}@example.com"


def oob_codes(stack, tenant=None):
    """The mail the development sink has "sent" (codes still usable)."""
    path = "/emulator/v1/projects/demo-project" + (f"/tenants/{tenant}" if tenant else "") + "/oobCodes"
    answer = requests.get(stack.gateway + path, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["oobCodes"]


def mail_to(stack, email, request_type, tenant=None):
    """The entries of one type sent to one address, oldest first."""
    return [entry for entry in oob_codes(stack, tenant)
            if entry["email"] == email and entry["requestType"] == request_type]


def last_mail(stack, email, request_type, tenant=None, wait=10):
    """The newest mail of one type to one address; waited for a moment, as a reset's mail under email
    enumeration protection goes out just after the answer."""
    deadline = time.monotonic() + wait
    while not (mails := mail_to(stack, email, request_type, tenant)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert mails, f"no {request_type} mail to {email}"
    return mails[-1]


def link_query(link):
    return {key: values[0] for key, values in urllib.parse.parse_qs(urllib.parse.urlsplit(link).query).items()}


def follow(stack, link, **extra):
    """GET on an action link (at this stack's gateway), extra query parameters appended; no redirects followed."""
    parts = urllib.parse.urlsplit(link)
    query = parts.query + ("&" + urllib.parse.urlencode(extra) if extra else "")
    return requests.get(f"{stack.gateway}{parts.path}?{query}", allow_redirects=False, timeout=30)


def refresh(stack, refresh_token):
    return requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k",
                         data={"grant_type": "refresh_token", "refresh_token": refresh_token}, timeout=30)


def raw(stack, operation, body):
    """A public v1 call through requests, for bodies the generated client would not send as they are."""
    return requests.post(f"{stack.gateway}/v1/accounts:{operation}?key=k", json=body, timeout=30)


def admin_app(stack):
    """A firebase-admin app for demo-project pointed at the gateway (FIREBASE_AUTH_EMULATOR_HOST, restored
    afterwards); a generator for a module fixture: `yield from admin_app(stack)`."""
    import os

    import firebase_admin

    before = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = stack.gateway_host
    app = firebase_admin.initialize_app(options={"projectId": "demo-project"}, name=f"oob-{secrets.token_hex(4)}")
    try:
        yield app
    finally:
        firebase_admin.delete_app(app)
        if before is None:
            os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)
        else:
            os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = before


def enroll_totp(stack, id_token, name="Authenticator"):
    """A TOTP factor enrolled through the generated v2 client; returns (pyotp.TOTP, finalize answer)."""
    import pyotp

    enrollment = identitytoolkit(stack, "v2").accounts().mfaEnrollment()
    started = enrollment.start(body={"idToken": id_token, "totpEnrollmentInfo": {}}).execute()
    info = started["totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"])
    finalized = enrollment.finalize(body={
        "idToken": id_token, "displayName": name,
        "totpVerificationInfo": {"sessionInfo": info["sessionInfo"], "verificationCode": totp.now()}}).execute()
    return totp, finalized


def finish_totp(stack, pending, totp, steps=1):
    """v2 mfaSignIn:finalize with a code of a later step (the enrollment spent the current one)."""
    return identitytoolkit(stack, "v2").accounts().mfaSignIn().finalize(body={
        "mfaPendingCredential": pending["mfaPendingCredential"],
        "mfaEnrollmentId": pending["mfaInfo"][0]["mfaEnrollmentId"],
        "totpVerificationInfo": {"verificationCode": totp.at(time.time() + 30 * steps)}}).execute()


def admin_lookup(stack, local_id, tenant=None):
    base = f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project" + (f"/tenants/{tenant}" if tenant else "")
    answer = requests.post(f"{base}/accounts:lookup", json={"localId": [local_id]}, headers=ADMIN, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["users"][0]


def admin_update(stack, body, tenant=None):
    base = f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project" + (f"/tenants/{tenant}" if tenant else "")
    answer = requests.post(f"{base}/accounts:update", json=body, headers=ADMIN, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


PRIVACY_MASK = "emailPrivacyConfig.enableImprovedEmailPrivacy"


def project_config_url(stack):
    return f"{stack.gateway}/v2/projects/demo-project/config"


def set_project_email_privacy(stack, enabled):
    answer = requests.patch(f"{project_config_url(stack)}?updateMask={PRIVACY_MASK}", headers=ADMIN, timeout=30,
                            json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": enabled}})
    assert answer.status_code == 200, answer.text
    assert answer.json()["emailPrivacyConfig"]["enableImprovedEmailPrivacy"] is enabled


def project_email_privacy(stack):
    """The project's email enumeration protection (off in development unless set)."""
    answer = requests.get(project_config_url(stack), headers=ADMIN, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["emailPrivacyConfig"]["enableImprovedEmailPrivacy"]


def assert_client_error(answer, statuses=range(400, 500)):
    """Bad input gets Identity Toolkit's 4xx error envelope, never a 5xx."""
    assert answer.status_code in statuses, (answer.status_code, answer.text)
    error = answer.json()["error"]
    assert error["code"] == answer.status_code and error["message"], answer.text
    return error["message"]
