"""Email verification (§2.4, §2.5, decision 12): sendOobCode VERIFY_EMAIL through the development
sink, the emulator's oobCodes list, applying the code by accounts:update or by following the link,
the admin link generator, and the refusals."""

import secrets
import urllib.parse

import pytest
import requests

BASE = "/identitytoolkit.googleapis.com/v1/accounts:"
ADMIN = {"Authorization": "Bearer owner"}


def call(stack, operation, **body):
    return requests.post(f"{stack.gateway}{BASE}{operation}?key=k", json=body, timeout=30)


def error(response):
    return response.json()["error"]["message"]


def oob_codes(stack, project="demo-project", tenant=None):
    path = f"/emulator/v1/projects/{project}" + (f"/tenants/{tenant}" if tenant else "") + "/oobCodes"
    answer = requests.get(stack.gateway + path, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["oobCodes"]


@pytest.fixture
def user(stack):
    email = f"Verify-{secrets.token_hex(6)}@Example.com"
    return {"email": email, **call(stack, "signUp", email=email, password="secret-pw").json()}


def test_a_verify_email_code_reaches_the_sink_and_verifies_once(stack, user):
    sent = call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=user["idToken"], email="ignored@example.com")
    assert sent.status_code == 200, sent.text
    assert sent.json() == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": user["email"]}
    mine = [entry for entry in oob_codes(stack) if entry["email"] == user["email"]]
    assert len(mine) == 1 and mine[0]["requestType"] == "VERIFY_EMAIL"
    code = mine[0]["oobCode"]
    assert len(code) == 54 and "oobCode=" + code in mine[0]["oobLink"]
    assert "mode=verifyEmail" in mine[0]["oobLink"] and "apiKey=k" in mine[0]["oobLink"]

    # Only a hash is stored.
    stored = stack.query("factor-registry", """SELECT encode(code_hash, 'hex') FROM "p_demo-project".oob_codes""")
    assert code not in "".join(stored) and all(len(row) == 64 for row in stored)

    applied = call(stack, "update", oobCode=code)
    assert applied.status_code == 200, applied.text
    body = applied.json()
    assert body["emailVerified"] is True and body["localId"] == user["localId"] and body["email"] == user["email"]
    assert "idToken" not in body and "refreshToken" not in body
    looked_up = call(stack, "lookup", idToken=user["idToken"]).json()["users"][0]
    assert looked_up["emailVerified"] is True
    assert error(call(stack, "update", oobCode=code)) == "INVALID_OOB_CODE"


def test_following_the_link_verifies_and_a_used_link_says_so(stack, user):
    call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=user["idToken"])
    link = [entry for entry in oob_codes(stack) if entry["email"] == user["email"]][-1]["oobLink"]
    path = urllib.parse.urlsplit(link)
    local = f"{stack.gateway}{path.path}?{path.query}"
    followed = requests.get(local, timeout=30)
    assert followed.status_code == 200, followed.text
    assert followed.json()["authEmulator"] == {"success": "The email has been successfully verified.", "email": user["email"]}
    again = requests.get(local, timeout=30)
    assert again.status_code == 400
    assert again.json()["authEmulator"]["error"] == \
        "Your request to verify your email has expired or the link has already been used."
    missing = requests.get(f"{stack.gateway}/emulator/action?mode=verifyEmail&oobCode=x", timeout=30)
    assert missing.json()["authEmulator"]["error"] == "missing apiKey query parameter"
    missing = requests.get(f"{stack.gateway}/emulator/action?mode=verifyEmail&apiKey=k", timeout=30)
    assert missing.json()["authEmulator"]["error"] == "missing oobCode query parameter"


@pytest.fixture
def app_domain(stack):
    """app.example.com among demo-project's authorized domains, for one test (localhost stays)."""
    config = f"{stack.gateway}/v2/projects/demo-project/config"
    before = requests.get(config, headers=ADMIN, timeout=30).json()["authorizedDomains"]
    patched = requests.patch(f"{config}?updateMask=authorizedDomains", headers=ADMIN, timeout=30,
                             json={"authorizedDomains": before + ["app.example.com"]})
    assert patched.status_code == 200, patched.text
    yield "app.example.com"
    requests.patch(f"{config}?updateMask=authorizedDomains", headers=ADMIN, timeout=30, json={"authorizedDomains": before})


def test_the_link_redirects_to_the_continue_url(stack, user, app_domain):
    target = f"https://{app_domain}/done?x=1&y=2"
    sent = call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=user["idToken"], continueUrl=target)
    assert sent.status_code == 200, sent.text
    link = [entry for entry in oob_codes(stack) if entry["email"] == user["email"]][-1]["oobLink"]
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)
    assert query["continueUrl"] == [target]
    path = urllib.parse.urlsplit(link)
    followed = requests.get(f"{stack.gateway}{path.path}?{path.query}", allow_redirects=False, timeout=30)
    assert followed.status_code == 303 and followed.headers["location"] == target


def test_a_code_stops_working_when_the_email_changes(stack, user):
    call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=user["idToken"])
    code = [entry for entry in oob_codes(stack) if entry["email"] == user["email"]][-1]["oobCode"]
    moved = call(stack, "update", idToken=user["idToken"], email=f"moved-{secrets.token_hex(6)}@example.com")
    assert moved.status_code == 200, moved.text
    assert error(call(stack, "update", oobCode=code)) == "INVALID_OOB_CODE"
    assert call(stack, "lookup", idToken=moved.json()["idToken"]).json()["users"][0]["emailVerified"] is False


def test_send_oob_code_refusals_in_contract_order(stack, user):
    assert error(call(stack, "sendOobCode", idToken=user["idToken"])) == "MISSING_REQ_TYPE"
    assert error(call(stack, "sendOobCode", requestType="OOB_REQ_TYPE_UNSPECIFIED", idToken=user["idToken"])) \
        == "MISSING_REQ_TYPE"
    assert error(call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=user["idToken"], continueUrl="not a url")) \
        == "INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))"
    assert error(call(stack, "sendOobCode", requestType="VERIFY_EMAIL")) == "INVALID_ID_TOKEN"
    assert error(call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken="garbage")) == "INVALID_ID_TOKEN"
    assert error(call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=user["idToken"], returnOobLink=True)) \
        == "INSUFFICIENT_PERMISSION"
    anonymous = call(stack, "signUp").json()
    assert error(call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=anonymous["idToken"])) == "MISSING_EMAIL"
    bad_type = call(stack, "sendOobCode", requestType="NOT_A_TYPE", idToken=user["idToken"])
    assert bad_type.status_code == 400 and bad_type.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert error(call(stack, "update", oobCode="x" * 54)) == "INVALID_OOB_CODE"
    assert error(call(stack, "update", oobCode="short")) == "INVALID_OOB_CODE"


def test_an_admin_generates_a_link_without_sending_mail(stack, user):
    url = f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:sendOobCode"
    before = len(oob_codes(stack))
    answer = requests.post(url, json={"requestType": "VERIFY_EMAIL", "email": user["email"].lower(), "returnOobLink": True},
                           headers=ADMIN, timeout=30)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["email"] == user["email"] and len(body["oobCode"]) == 54 and body["oobCode"] in body["oobLink"]
    assert len(oob_codes(stack)) == before
    assert call(stack, "update", oobCode=body["oobCode"]).json()["emailVerified"] is True
    unknown = requests.post(url, json={"requestType": "VERIFY_EMAIL", "email": "nobody@example.com", "returnOobLink": True},
                            headers=ADMIN, timeout=30)
    assert error(unknown) == "USER_NOT_FOUND"
    missing = requests.post(url, json={"requestType": "VERIFY_EMAIL", "returnOobLink": True}, headers=ADMIN, timeout=30)
    assert error(missing) == "MISSING_EMAIL"


def test_firebase_admin_generates_a_working_verification_link(stack, user, monkeypatch):
    import firebase_admin
    from firebase_admin import auth, credentials

    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", stack.gateway_host)
    app = firebase_admin.initialize_app(options={"projectId": "demo-project"}, name=f"oob-{secrets.token_hex(4)}")
    try:
        link = auth.generate_email_verification_link(user["email"], app=app)
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["oobCode"][0]
        assert call(stack, "update", oobCode=code).json()["emailVerified"] is True
        assert auth.get_user(user["localId"], app=app).email_verified is True
    finally:
        firebase_admin.delete_app(app)


def test_the_accounts_wipe_removes_one_tenants_accounts_only(stack):
    from test_tenants import create_tenant

    wiped, kept = create_tenant(stack, "Wiped"), create_tenant(stack, "Kept")
    for tenant in (wiped, kept):
        assert call(stack, "signUp", tenantId=tenant, email=f"w-{secrets.token_hex(6)}@example.com",
                    password="secret-pw").status_code == 200
    answer = requests.delete(f"{stack.gateway}/emulator/v1/projects/demo-project/tenants/{wiped}/accounts", timeout=30)
    assert answer.status_code == 200 and answer.json() == {}

    def listed(tenant):
        url = f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/tenants/{tenant}/accounts:batchGet"
        return requests.get(url, headers=ADMIN, timeout=30).json().get("users", [])

    assert listed(wiped) == [] and len(listed(kept)) == 1
    unknown = requests.delete(f"{stack.gateway}/emulator/v1/projects/demo-project/tenants/nope/accounts", timeout=30)
    assert unknown.status_code == 400 and error(unknown) == "TENANT_NOT_FOUND"


def test_phone_numbers_are_stored_found_and_removed_by_admins(stack):
    base = f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts"
    phone = "+1555" + str(secrets.randbelow(10**7)).zfill(7)
    created = requests.post(base, json={"phoneNumber": phone}, headers=ADMIN, timeout=30)
    assert created.status_code == 200, created.text
    local_id = created.json()["localId"]
    assert error(requests.post(base, json={"phoneNumber": phone}, headers=ADMIN, timeout=30)) == "PHONE_NUMBER_EXISTS"
    assert error(requests.post(base, json={"phoneNumber": "+1 555 0100"}, headers=ADMIN, timeout=30)) \
        == "INVALID_PHONE_NUMBER : Invalid format."
    found = requests.post(base + ":lookup", json={"phoneNumber": [phone]}, headers=ADMIN, timeout=30).json()
    assert [user["localId"] for user in found["users"]] == [local_id]
    assert found["users"][0]["phoneNumber"] == phone
    assert {"providerId": "phone", "phoneNumber": phone, "rawId": phone} in found["users"][0]["providerUserInfo"]
    removed = requests.post(base + ":update", json={"localId": local_id, "deleteProvider": ["phone"]}, headers=ADMIN,
                            timeout=30)
    assert removed.status_code == 200, removed.text
    assert "users" not in requests.post(base + ":lookup", json={"phoneNumber": [phone]}, headers=ADMIN, timeout=30).json()


def test_a_continue_url_off_the_authorized_domains_is_refused_before_any_mail(stack, user):
    """Decision 21 (an open redirect): our link must never forward a user to a stranger's site."""
    before = len(oob_codes(stack))
    for target in ["https://evil.example/phish", "https://localhost.evil.example/", "https://app.example.com.evil.example/"]:
        refused = call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=user["idToken"], continueUrl=target)
        assert refused.status_code == 400 and error(refused) == "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project"
    admin = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:sendOobCode",
                          json={"requestType": "VERIFY_EMAIL", "email": user["email"], "returnOobLink": True,
                                "continueUrl": "https://evil.example/"}, headers=ADMIN, timeout=30)
    assert error(admin) == "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project"
    assert len(oob_codes(stack)) == before
    # An authorized domain (localhost is one by default) goes through.
    sent = call(stack, "sendOobCode", requestType="VERIFY_EMAIL", idToken=user["idToken"], continueUrl="http://localhost:3000/x")
    assert sent.status_code == 200, sent.text


def test_the_sinks_listing_stays_bounded_and_shows_the_newest_mail_last(stack, user):
    """Issue 40, item 7: a listing that only grew outgrew an RPC answer's 4 MiB after some thousands of
    mails, and every call answered 503. It now shows the newest 500 mails, oldest first."""
    session = requests.Session()
    for _ in range(510):
        sent = session.post(f"{stack.gateway}{BASE}sendOobCode?key=k", json={"requestType": "VERIFY_EMAIL",
                                                                            "idToken": user["idToken"]}, timeout=30)
        assert sent.status_code == 200, sent.text
    listed = oob_codes(stack)
    assert len(listed) == 500
    mine = [entry for entry in listed if entry["email"] == user["email"]]
    assert len(mine) >= 490 and listed[-1]["email"] == user["email"]
