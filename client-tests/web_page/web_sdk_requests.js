// The requests the Firebase JS SDK makes for an SMS second factor, field for field, in the order it
// makes them. Read from firebase-js-sdk 12.18.0 (@firebase/auth 1.13.5, commit 6f865964):
//   packages/auth/src/platform_browser/strategies/phone.ts#L227-L426   _verifyPhoneNumber
//   packages/auth/src/platform_browser/recaptcha/recaptcha_enterprise_verifier.ts#L328-L413
//   packages/auth/src/platform_browser/recaptcha/recaptcha.ts#L93-L154  RecaptchaConfig
//   packages/auth/src/platform_browser/recaptcha/recaptcha_verifier.ts#L255-L271  render → recaptchaParams
//   packages/auth/src/platform_browser/recaptcha/recaptcha_mock.ts#L164-L212  the emulator's mock token
//   packages/auth/src/api/index.ts#L147-L162, #L280-L291  URLs in emulator mode, GET parameters
"use strict";

const webSdk = {
  origin: null, // what connectAuthEmulator was given
  apiKey: null,
  tenantId: null,
  recaptchaConfig: null, // cached only when the answer names a key (RecaptchaConfig's constructor)
  requests: [], // every request made: {method, path, query, body}
  logged: [], // what the SDK would console.log

  connect(origin, apiKey, tenantId) {
    Object.assign(this, {origin, apiKey, tenantId: tenantId || null, recaptchaConfig: null, requests: [], logged: []});
  },

  async call(method, path, body, query) {
    const params = new URLSearchParams({...(query || {}), key: this.apiKey});
    this.requests.push({method, path, query: query || {}, body: body || null});
    const answer = await fetch(`${this.origin}/identitytoolkit.googleapis.com/${path}?${params}`, {
      method,
      headers: {
        "Content-Type": "application/json",
        "X-Client-Version": "Chrome/JsCore/12.18.0/FirebaseCore-web",
        "X-Firebase-gmpid": "1:12345:web:0123456789abcdef",
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await answer.json();
    if (!answer.ok) throw new Error(json.error.message);
    return json;
  },

  withTenant(body) {
    return this.tenantId ? {...body, tenantId: this.tenantId} : body;
  },

  // RecaptchaVerifier in emulator mode: render() asks for the site key and refuses to go on without
  // one (auth/internal-error); the mock widget's token is 50 random letters and digits.
  async mockRecaptchaVerifier() {
    const params = await this.call("GET", "v1/recaptchaParams");
    if (!params.recaptchaSiteKey) throw new Error("auth/internal-error");
    const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    return {
      type: "recaptcha",
      async verify() {
        await new Promise((resolve) => setTimeout(resolve, 500));
        return Array.from(crypto.getRandomValues(new Uint8Array(50)), (b) => letters[b % letters.length]).join("");
      },
      _reset() {},
    };
  },

  phoneEnforced() {
    const state = (this.recaptchaConfig.recaptchaEnforcementState || []).find((s) => s.provider === "PHONE_PROVIDER");
    return state !== undefined && (state.enforcementState === "ENFORCE" || state.enforcementState === "AUDIT");
  },

  // _verifyPhoneNumber: the reCAPTCHA config first (kept only with a key), then the verifier's token
  // as `recaptchaToken` beside captchaResponse NO_RECAPTCHA, and the verifier reset in a finally.
  async phoneRequest(verifier, send) {
    if (!this.recaptchaConfig) {
      try {
        const query = {clientType: "CLIENT_TYPE_WEB", version: "RECAPTCHA_ENTERPRISE"};
        if (this.tenantId) query.tenantId = this.tenantId;
        const config = await this.call("GET", "v2/recaptchaConfig", null, query);
        if (config.recaptchaKey === undefined) throw new Error("auth/internal-error");
        this.recaptchaConfig = config;
      } catch (error) {
        this.logged.push("Failed to initialize reCAPTCHA Enterprise config. Triggering the reCAPTCHA v2 verification.");
      }
    }
    try {
      const fields = {clientType: "CLIENT_TYPE_WEB", recaptchaVersion: "RECAPTCHA_ENTERPRISE"};
      if (this.recaptchaConfig && this.phoneEnforced()) return await send({...fields, captchaResponse: "token"});
      if (!verifier || verifier.type !== "recaptcha") throw new Error("auth/argument-error");
      const token = await verifier.verify();
      if (typeof token !== "string") throw new Error("auth/argument-error");
      return await send({...fields, captchaResponse: "NO_RECAPTCHA", recaptchaToken: token});
    } finally {
      verifier?._reset();
    }
  },

  async signIn(email, password) {
    try {
      return await this.call("POST", "v1/accounts:signInWithPassword",
        this.withTenant({returnSecureToken: true, email, password, clientType: "CLIENT_TYPE_WEB"}));
    } catch (error) {
      return {error: error.message};
    }
  },

  // multiFactor(user).getSession() + PhoneAuthProvider.verifyPhoneNumber({phoneNumber, session}).
  async enrollStart(idToken, phoneNumber, verifier) {
    return this.phoneRequest(verifier, (fields) =>
      this.call("POST", "v2/accounts/mfaEnrollment:start",
        this.withTenant({idToken, phoneEnrollmentInfo: {phoneNumber, ...fields}}))
    ).then((answer) => answer.phoneSessionInfo.sessionInfo);
  },

  async enrollFinalize(idToken, sessionInfo, code, displayName) {
    return this.call("POST", "v2/accounts/mfaEnrollment:finalize",
      this.withTenant({idToken, phoneVerificationInfo: {sessionInfo, code}, displayName}));
  },

  // resolver.hints[0] + PhoneAuthProvider.verifyPhoneNumber({multiFactorHint, session}).
  async signInStart(mfaPendingCredential, mfaEnrollmentId, verifier) {
    return this.phoneRequest(verifier, (fields) =>
      this.call("POST", "v2/accounts/mfaSignIn:start",
        this.withTenant({mfaPendingCredential, mfaEnrollmentId, phoneSignInInfo: fields}))
    ).then((answer) => answer.phoneResponseInfo.sessionInfo);
  },

  async signInFinalize(mfaPendingCredential, sessionInfo, code) {
    return this.call("POST", "v2/accounts/mfaSignIn:finalize",
      this.withTenant({mfaPendingCredential, phoneVerificationInfo: {sessionInfo, code}}));
  },

  // signInWithPhoneNumber(auth, phoneNumber, verifier): the phone as a first factor.
  async sendVerificationCode(phoneNumber, verifier) {
    return this.phoneRequest(verifier, (fields) =>
      this.call("POST", "v1/accounts:sendVerificationCode", this.withTenant({phoneNumber, ...fields}))
    ).then((answer) => answer.sessionInfo);
  },
};
