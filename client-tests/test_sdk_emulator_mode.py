"""The stock SDKs' emulator mode against the development stack (decision 14, issue 58): their phone
requests field for field, as their sources make them, each passing app verification as the Auth
emulator lets them (no proof is checked in development mode). The web SDK's requests are made by a page
in a real browser (web_page/web_sdk_requests.js, which cites the SDK's lines); the iOS SDK's by
requests, citing firebase-ios-sdk at eed63a35; Android's (closed source) as firebase-tools' tests make
them (firebase-tools at a786bda7)."""

import secrets

import requests

import web_page
from mfa_helpers import ADMIN, sms_code, unique_phone, verified_user

IOS_V3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
V2 = "/identitytoolkit.googleapis.com/v2/accounts/"
# FirebaseAuth/Sources/Swift/Backend/AuthBackend.swift#L82-L106: what every iOS request carries.
IOS_HEADERS = {"X-Client-Version": "iOS/FirebaseSDK/12.19.0/FirebaseCore-iOS", "X-Ios-Bundle-Identifier": "com.example.app",
               "X-Firebase-GMPID": "1:12345:ios:0123456789abcdef"}


def test_the_web_sdk_enrolls_and_signs_in_with_sms_through_its_own_recaptcha_verifier(stack):
    user = verified_user(stack)
    number = unique_phone()
    with web_page.opened() as page:
        page.call("(origin) => webSdk.connect(origin, 'AIzaDevelopmentKey')", stack.gateway)
        # A new RecaptchaVerifier per phone call, as the SDK needs (firebase-js-sdk#4126).
        session = page.call("async (token, number) => webSdk.enrollStart(token, number, await webSdk.mockRecaptchaVerifier())",
                            user["idToken"], number)
        enrolled = page.call("(token, session, code) => webSdk.enrollFinalize(token, session, code, 'phone')",
                             user["idToken"], session, sms_code(stack, session))
        assert enrolled["idToken"]
        pending = page.call("(email, password) => webSdk.signIn(email, password)", user["email"], user["password"])
        hint = pending["mfaInfo"][0]
        assert hint["phoneInfo"].endswith(number[-4:]) and hint["phoneInfo"] != number
        session = page.call("async (pending, id) => webSdk.signInStart(pending, id, await webSdk.mockRecaptchaVerifier())",
                            pending["mfaPendingCredential"], hint["mfaEnrollmentId"])
        signed_in = page.call("(pending, session, code) => webSdk.signInFinalize(pending, session, code)",
                              pending["mfaPendingCredential"], session, sms_code(stack, session))
        assert signed_in["idToken"] and signed_in["refreshToken"]
        session = page.call("async (number) => webSdk.sendVerificationCode(number, await webSdk.mockRecaptchaVerifier())",
                            unique_phone())
        assert session
        made = page.call("() => ({requests: webSdk.requests, logged: webSdk.logged})")
    # Each verifier asked for the site key; the reCAPTCHA config was asked once and kept: no warning.
    paths = [request["path"] for request in made["requests"]]
    assert paths.count("v1/recaptchaParams") == 3 and paths.count("v2/recaptchaConfig") == 1
    assert made["logged"] == []
    config = next(request for request in made["requests"] if request["path"] == "v2/recaptchaConfig")
    assert config["query"] == {"clientType": "CLIENT_TYPE_WEB", "version": "RECAPTCHA_ENTERPRISE"}
    start = next(request["body"] for request in made["requests"] if request["path"] == "v2/accounts/mfaEnrollment:start")
    info = start["phoneEnrollmentInfo"]
    assert set(info) == {"phoneNumber", "clientType", "recaptchaVersion", "captchaResponse", "recaptchaToken"}
    assert info["captchaResponse"] == "NO_RECAPTCHA" and len(info["recaptchaToken"]) == 50 and info["recaptchaToken"].isalnum()
    sign_in = next(request["body"] for request in made["requests"] if request["path"] == "v2/accounts/mfaSignIn:start")
    assert set(sign_in["phoneSignInInfo"]) == {"clientType", "recaptchaVersion", "captchaResponse", "recaptchaToken"}


def test_the_web_sdk_reads_the_emulators_site_key_and_a_config_it_keeps(stack):
    params = requests.get(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/recaptchaParams?key=k", timeout=30).json()
    # firebase-tools src/emulator/auth/operations.ts#L752-L768.
    assert params["recaptchaSiteKey"] == "Fake-key__Do-not-send-this-to-Recaptcha_"
    config = requests.get(f"{stack.gateway}/identitytoolkit.googleapis.com/v2/recaptchaConfig",
                          params={"clientType": "CLIENT_TYPE_WEB", "version": "RECAPTCHA_ENTERPRISE", "key": "k"},
                          timeout=30).json()
    # RecaptchaConfig reads the site key as the key's fourth path segment (recaptcha.ts#L93-L100).
    assert config["recaptchaKey"].split("/")[3] == params["recaptchaSiteKey"]
    assert {state["enforcementState"] for state in config["recaptchaEnforcementState"]} == {"OFF"}


def test_the_web_sdk_with_enforcement_sends_no_verifier_token_and_is_let_through(stack):
    """recaptcha_enterprise_verifier.ts#L334-L338: `captchaResponse: "token"` (the emulator mode's mock
    reCAPTCHA Enterprise token) and no recaptchaToken, when a config says PHONE_PROVIDER is enforced."""
    user = verified_user(stack)
    answer = requests.post(f"{stack.gateway}{V2}mfaEnrollment:start?key=k", json={
        "idToken": user["idToken"], "phoneEnrollmentInfo": {
            "phoneNumber": unique_phone(), "captchaResponse": "token", "clientType": "CLIENT_TYPE_WEB",
            "recaptchaVersion": "RECAPTCHA_ENTERPRISE"}}, timeout=30)
    assert answer.status_code == 200, answer.text


def test_the_ios_sdk_in_emulator_mode_signs_up_enrolls_and_signs_in_with_sms(stack):
    """useEmulator turns app verification off (Auth.swift#L1427-L1439), so no phone request carries a
    proof (PhoneAuthProvider.swift#L339-L360, verifyInTestMode); most calls take the legacy v3 paths
    (IdentityToolkitRequest.swift#L76-L101); token refreshes are JSON (SecureTokenRequest.swift#L130-L143)."""
    post = lambda path, body: requests.post(f"{stack.gateway}{path}?key=k", json=body, headers=IOS_HEADERS, timeout=30)
    email, password = f"ios-{secrets.token_hex(5)}@example.com", "secret-pw"
    # SignUpNewUserRequest.swift#L91-L117.
    signed_up = post(IOS_V3 + "signupNewUser", {"email": email, "password": password, "clientType": "CLIENT_TYPE_IOS",
                                                "returnSecureToken": True})
    assert signed_up.status_code == 200, signed_up.text
    local_id = signed_up.json()["localId"]
    verified = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update",
                             json={"localId": local_id, "emailVerified": True}, headers=ADMIN, timeout=30)
    assert verified.status_code == 200, verified.text
    # VerifyPasswordRequest.swift#L80-L105.
    signed_in = post(IOS_V3 + "verifyPassword", {"email": email, "password": password, "returnSecureToken": True,
                                                 "clientType": "CLIENT_TYPE_IOS"}).json()
    looked_up = post(IOS_V3 + "getAccountInfo", {"idToken": signed_in["idToken"]}).json()
    assert looked_up["users"][0]["emailVerified"] is True
    # StartMFAEnrollmentRequest.swift#L78-L92: the number, and nothing else.
    number = unique_phone()
    started = post(V2 + "mfaEnrollment:start", {"idToken": signed_in["idToken"], "phoneEnrollmentInfo": {"phoneNumber": number}})
    assert started.status_code == 200, started.text
    session = started.json()["phoneSessionInfo"]["sessionInfo"]
    enrolled = post(V2 + "mfaEnrollment:finalize", {"idToken": signed_in["idToken"],
                                                   "phoneVerificationInfo": {"sessionInfo": session, "code": sms_code(stack, session)}})
    assert enrolled.status_code == 200, enrolled.text
    pending = post(IOS_V3 + "verifyPassword", {"email": email, "password": password, "returnSecureToken": True,
                                               "clientType": "CLIENT_TYPE_IOS"}).json()
    hint = pending["mfaInfo"][0]
    # StartMFASignInRequest.swift#L43-L58: phoneSignInInfo carries the hint's masked number
    # (PhoneAuthProviderTests.swift#L358-L368), which the server must not take for the number.
    started = post(V2 + "mfaSignIn:start", {"mfaPendingCredential": pending["mfaPendingCredential"],
                                           "mfaEnrollmentId": hint["mfaEnrollmentId"],
                                           "phoneSignInInfo": {"phoneNumber": hint["phoneInfo"]}})
    assert started.status_code == 200, started.text
    session = started.json()["phoneResponseInfo"]["sessionInfo"]
    finished = post(V2 + "mfaSignIn:finalize", {"mfaPendingCredential": pending["mfaPendingCredential"],
                                               "phoneVerificationInfo": {"sessionInfo": session, "code": sms_code(stack, session)}})
    assert finished.status_code == 200, finished.text
    refreshed = requests.post(f"{stack.gateway}/securetoken.googleapis.com/v1/token?key=k", headers=IOS_HEADERS,
                              json={"grantType": "refresh_token", "refreshToken": finished.json()["refreshToken"]}, timeout=30)
    assert refreshed.status_code == 200, refreshed.text
    assert refreshed.json()["id_token"]


def test_the_ios_sdk_in_emulator_mode_signs_in_with_a_phone_number(stack):
    """SendVerificationTokenRequest.swift#L77-L99 in test mode: the number and the client type, no
    proof; VerifyPhoneNumberRequest.swift#L136-L156: the code, with the operation as a string."""
    post = lambda path, body: requests.post(f"{stack.gateway}{path}?key=k", json=body, headers=IOS_HEADERS, timeout=30)
    number = unique_phone()
    sent = post(IOS_V3 + "sendVerificationCode", {"phoneNumber": number, "clientType": "CLIENT_TYPE_IOS"})
    assert sent.status_code == 200, sent.text
    session = sent.json()["sessionInfo"]
    signed_in = post(IOS_V3 + "verifyPhoneNumber", {"sessionInfo": session, "code": sms_code(stack, session),
                                                    "operation": "SIGN_UP_OR_IN"})
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["phoneNumber"] == number


def test_the_android_sdks_requests_as_the_emulators_tests_make_them(stack):
    """firebase-tools src/emulator/auth/phone.spec.ts#L40-L58 and mfa.spec.ts#L39, #L284-L290: a
    placeholder token, or none; mfaSignIn:start without phoneSignInInfo."""
    number = unique_phone()
    sent = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=k",
                         json={"phoneNumber": number, "recaptchaToken": "ignored"}, timeout=30)
    assert sent.status_code == 200, sent.text
    user = verified_user(stack)
    started = requests.post(f"{stack.gateway}{V2}mfaEnrollment:start?key=k",
                            json={"idToken": user["idToken"], "phoneEnrollmentInfo": {"phoneNumber": number}}, timeout=30)
    session = started.json()["phoneSessionInfo"]["sessionInfo"]
    enrolled = requests.post(f"{stack.gateway}{V2}mfaEnrollment:finalize?key=k", json={
        "idToken": user["idToken"], "phoneVerificationInfo": {"sessionInfo": session, "code": sms_code(stack, session)}},
        timeout=30)
    assert enrolled.status_code == 200, enrolled.text
    pending = requests.post(f"{stack.gateway}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                            json={"email": user["email"], "password": user["password"]}, timeout=30).json()
    started = requests.post(f"{stack.gateway}{V2}mfaSignIn:start?key=k", json={
        "mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": pending["mfaInfo"][0]["mfaEnrollmentId"]},
        timeout=30)
    assert started.status_code == 200, started.text
