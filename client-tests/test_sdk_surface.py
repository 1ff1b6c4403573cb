"""Issue 42, item 6: every call of Google's discovery documents has a route, and what the SDKs ask before
they sign anyone in is answered: `GET v1/projects` (authorized domains), `GET v1/recaptchaParams` (the web
SDK's site key), `GET v2/recaptchaConfig` (no reCAPTCHA Enterprise here). A method the gateway does not
serve answers the contract's 501 naming it, after its request passed Google's schema; the README lists
them."""

import json
import pathlib
import re

import googleapiclient
import requests

from rest_client import ADMIN, identitytoolkit

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCUMENTS = pathlib.Path(googleapiclient.__file__).parent / "discovery_cache/documents"


def discovery_methods():
    for version in ("v1", "v2"):
        document = json.loads((DOCUMENTS / f"identitytoolkit.{version}.json").read_text())

        def walk(resource):
            yield from resource.get("methods", {}).values()
            for child in resource.get("resources", {}).values():
                yield from walk(child)

        yield from walk(document)


def concrete(path):
    """A discovery flat path with its parameters filled in (project, tenant, resource ids)."""
    values = {"projectsId": "demo-project", "targetProjectId": "demo-project", "tenantsId": "nosuchtenant-0000"}
    return re.sub(r"\{([^}]+)\}", lambda match: values.get(match.group(1), "x"), path)


def test_every_discovery_method_has_a_route_and_an_unserved_one_says_so(stack):
    readme = (ROOT / "README.md").read_text()
    unserved = []
    for method in discovery_methods():
        # With the API key only: an admin operation refuses before it changes anything (the shared
        # stack's config must survive an empty PATCH), and an unserved one still says it is not served.
        url = f"{stack.gateway}/{concrete(method.get('flatPath', method['path']))}?key=k"
        answer = requests.request(method["httpMethod"], url, json={} if method["httpMethod"] != "GET" else None, timeout=30)
        assert answer.status_code != 404, (method["id"], answer.text)
        assert answer.status_code < 500 or answer.status_code == 501, (method["id"], answer.status_code, answer.text)
        if answer.status_code == 501:
            assert method["id"] in answer.json()["error"]["message"], answer.text
            unserved.append(method["id"])
    # The README says which ones are not served.
    for method_id in unserved:
        assert f"`{method_id}`" in readme, f"README does not list unserved {method_id}"
    assert "identitytoolkit.accounts.signInWithIdp" not in unserved


def test_a_route_that_is_no_method_is_still_not_found(stack):
    answer = requests.post(f"{stack.gateway}/v1/accounts:nothingLikeThis?key=k", json={}, timeout=30)
    assert answer.status_code == 404


def test_the_web_sdk_reads_its_project_and_recaptcha_settings(stack):
    project = requests.get(f"{stack.gateway}/v1/projects?key=k", timeout=30)
    assert project.status_code == 200, project.text
    assert project.json()["projectId"] == "12345" and "localhost" in project.json()["authorizedDomains"]
    params = identitytoolkit(stack).v1().getRecaptchaParams().execute()
    assert params["kind"] == "identitytoolkit#GetRecaptchaParamResponse"
    config = identitytoolkit(stack, "v2").v2().getRecaptchaConfig(clientType="CLIENT_TYPE_WEB",
                                                                   version="RECAPTCHA_ENTERPRISE").execute()
    assert {entry["provider"]: entry["enforcementState"] for entry in config["recaptchaEnforcementState"]} == {
        "EMAIL_PASSWORD_PROVIDER": "OFF", "PHONE_PROVIDER": "OFF"}
    # A key, or the web SDK keeps no config and asks again before every phone call
    # (test_sdk_emulator_mode.py); development mode's is the Auth emulator's made-up one.
    assert config["recaptchaKey"] == f"projects/12345/keys/{params['recaptchaSiteKey']}"


def test_an_admin_makes_a_session_cookie_that_verifies_against_the_published_keys(stack):
    import datetime

    import jwt
    from firebase_admin import auth

    from rest_client import admin_app, unique_email

    signed_up = identitytoolkit(stack).accounts().signUp(body={
        "email": unique_email("cookie"), "password": "secret-pw", "returnSecureToken": True}).execute()
    app_generator = admin_app(stack)
    app = next(app_generator)
    try:
        cookie = auth.create_session_cookie(signed_up["idToken"], datetime.timedelta(days=3), app=app)
        assert auth.verify_session_cookie(cookie, app=app)["uid"] == signed_up["localId"]
    finally:
        next(app_generator, None)
    keys = jwt.PyJWKClient(f"{stack.gateway}/v1/sessionCookiePublicKeys")
    claims = jwt.decode(cookie, keys.get_signing_key_from_jwt(cookie).key, algorithms=["RS256"], audience="demo-project",
                        issuer="https://session.firebase.google.com/demo-project")
    assert claims["sub"] == signed_up["localId"] and claims["exp"] - claims["iat"] == 3 * 24 * 3600
    assert claims["firebase"]["sign_in_provider"] == "password"
    # A cookie is no ID token.
    answer = requests.post(f"{stack.gateway}/v1/accounts:lookup?key=k", json={"idToken": cookie}, timeout=30)
    assert answer.json()["error"]["message"] == "INVALID_ID_TOKEN"
    url = f"{stack.gateway}/v1/projects/demo-project:createSessionCookie"
    for body, message in (({"validDuration": 3600}, "MISSING_ID_TOKEN"),
                          ({"idToken": signed_up["idToken"], "validDuration": 60}, "INVALID_DURATION"),
                          ({"idToken": signed_up["idToken"], "validDuration": 1209601}, "INVALID_DURATION"),
                          ({"idToken": "not-a-token"}, "INVALID_ID_TOKEN")):
        answer = requests.post(url, json=body, headers=ADMIN, timeout=30)
        assert (answer.status_code, answer.json()["error"]["message"]) == (400, message)
    # Only an admin makes cookies.
    answer = requests.post(f"{url}?key=k", json={"idToken": signed_up["idToken"]}, timeout=30)
    assert answer.status_code in (400, 401, 403) and "sessionCookie" not in answer.text


def test_an_admin_queries_accounts_by_condition_sorted_and_counted(stack):
    from rest_client import unique_email

    tenant = requests.post(f"{stack.gateway}/v2/projects/demo-project/tenants", headers=ADMIN, timeout=30,
                           json={"displayName": "Query", "allowPasswordSignup": True}).json()["name"].rsplit("/", 1)[1]
    base = f"{stack.gateway}/v1/projects/demo-project/tenants/{tenant}"
    emails = sorted(unique_email(prefix) for prefix in ("qa", "qb", "qc"))
    created = {}
    for index, email in enumerate(emails):
        answer = requests.post(f"{base}/accounts", headers=ADMIN, timeout=30,
                               json={"email": email, "password": "secret-pw", "displayName": f"User {2 - index}"})
        assert answer.status_code == 200, answer.text
        created[email] = answer.json()["localId"]

    def query(**body):
        answer = requests.post(f"{base}/accounts:query", headers=ADMIN, json=body, timeout=30)
        assert answer.status_code == 200, answer.text
        return answer.json()

    assert query(returnUserInfo=False) == {"recordsCount": "3"}
    by_email = query(expression=[{"email": emails[1].upper()}])
    assert by_email["recordsCount"] == "1" and by_email["userInfo"][0]["localId"] == created[emails[1]]
    assert by_email["userInfo"][0]["tenantId"] == tenant
    named = query(sortBy="NAME", order="DESC", limit="2")
    assert [user["displayName"] for user in named["userInfo"]] == ["User 2", "User 1"]
    rest = query(sortBy="USER_EMAIL", offset="1")
    assert [user["email"] for user in rest["userInfo"]] == emails[1:]
    answer = requests.post(f"{base}/accounts:query", headers=ADMIN, json={"limit": "501"}, timeout=30)
    assert answer.status_code == 400 and answer.json()["error"]["message"].startswith("INVALID_ARGUMENT")
    assert requests.post(f"{base}/accounts:query?key=k", json={}, timeout=30).status_code in (400, 401, 403)
