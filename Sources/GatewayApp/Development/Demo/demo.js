// The demo page's behaviour: plain JavaScript, no build step, no outside script. Every call goes to
// this gateway's public API with the paths, bodies and answers the Firebase SDKs use, so the page
// doubles as a worked example of the wire contract.
"use strict";

const project = document.querySelector('meta[name="mfa-project"]').content;
const apiKey = "demo";
const session = { idToken: null, refreshToken: null, email: null, pending: null, smsSessionInfo: null, totpSessionInfo: null };

const $ = (id) => document.getElementById(id);

function logCall(label, status, detail) {
  const item = document.createElement("li");
  item.textContent = `${label} → ${status}${detail ? ` (${detail})` : ""}`;
  if (status >= 400 || status === "failed") item.className = "failed";
  $("log").prepend(item);
}

class APIError extends Error {}

// One call to the public API; answers the JSON body or throws with the contract's error message.
async function call(method, path, body, headers = {}) {
  const separator = path.includes("?") ? "&" : "?";
  const url = path.startsWith("/emulator/") || path.startsWith("/v2/projects/") ? path : `${path}${separator}key=${apiKey}`;
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const answer = await response.json().catch(() => ({}));
  const label = `${method} ${path.split("?")[0]}`;
  if (!response.ok) {
    const message = answer.error?.message ?? response.statusText;
    logCall(label, response.status, message);
    throw new APIError(message);
  }
  logCall(label, response.status);
  return answer;
}

const v1 = (operation, body) => call("POST", `/identitytoolkit.googleapis.com/v1/accounts:${operation}`, body);
const v2 = (operation, body) => call("POST", `/identitytoolkit.googleapis.com/v2/accounts/${operation}`, body);
const sink = (resource) => call("GET", `/emulator/v1/projects/${project}/${resource}`);

// Runs a button's action, showing a failure beside the log instead of leaving the page stuck.
function on(id, action) {
  $(id).addEventListener("click", async () => {
    $(id).disabled = true;
    try {
      await action();
    } catch (error) {
      if (!(error instanceof APIError)) logCall(id, "failed", error.message);
    } finally {
      $(id).disabled = false;
      render();
    }
  });
}

function claims(idToken) {
  const payload = idToken.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  const json = decodeURIComponent(atob(payload).split("").map((c) => "%" + c.charCodeAt(0).toString(16).padStart(2, "0")).join(""));
  return JSON.parse(json);
}

function signedIn(answer) {
  session.idToken = answer.idToken;
  session.refreshToken = answer.refreshToken;
  session.pending = null;
}

// A fresh ID token from the refresh token, as the SDKs do after the account changes.
async function refresh() {
  const response = await fetch(`/securetoken.googleapis.com/v1/token?key=${apiKey}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: session.refreshToken }),
  });
  const answer = await response.json();
  logCall("POST /securetoken.googleapis.com/v1/token", response.status, answer.error?.message);
  if (!response.ok) throw new APIError(answer.error?.message);
  session.idToken = answer.id_token;
  session.refreshToken = answer.refresh_token;
}

// Recovery codes are a TOTP-shaped factor on the wire (docs/mfa-policy.md); their id says what they are.
const isRecoveryCodes = (factor) => factor.mfaEnrollmentId?.startsWith("recovery-");
const factorKind = (factor) =>
  isRecoveryCodes(factor) ? "recovery codes" : factor.totpInfo ? "authenticator app" : `SMS to ${factor.phoneInfo}`;

async function showRecoveryCodes() {
  if (!session.idToken) {
    $("recovery-remaining").textContent = "";
    return;
  }
  const counted = await v2("mfaRecoveryCodes:lookup", { idToken: session.idToken });
  $("recovery-remaining").textContent = counted.mfaEnrollmentId ? `(${counted.remaining} left)` : "(none made yet)";
}

on("recovery-generate", async () => {
  const answer = await v2("mfaRecoveryCodes:generate", { idToken: session.idToken });
  const list = $("recovery-codes");
  list.replaceChildren(...answer.recoveryCodes.map((code) => {
    const item = document.createElement("li");
    item.textContent = code;
    return item;
  }));
});

async function showFactors() {
  const list = $("factors");
  list.replaceChildren();
  if (!session.idToken) {
    list.innerHTML = "<li>none</li>";
    await showPasskeys(null);
    return;
  }
  const account = (await v1("lookup", { idToken: session.idToken })).users[0];
  await showPasskeys(account);
  const factors = account.mfaInfo ?? [];
  if (factors.length === 0) list.innerHTML = "<li>none</li>";
  for (const factor of factors) {
    const item = document.createElement("li");
    const kind = factorKind(factor);
    item.textContent = `${factor.displayName || "(no name)"} (${kind}) `;
    item.dataset.enrollment = factor.mfaEnrollmentId;
    const withdraw = document.createElement("button");
    withdraw.textContent = "Withdraw";
    withdraw.className = "withdraw";
    withdraw.addEventListener("click", async () => {
      try {
        signedIn(await v2("mfaEnrollment:withdraw", { idToken: session.idToken, mfaEnrollmentId: factor.mfaEnrollmentId }));
      } catch (error) {
        if (!(error instanceof APIError)) logCall("withdraw", "failed", error.message);
      }
      await render();
    });
    item.append(withdraw);
    list.append(item);
  }
  $("email-verified").textContent = account.emailVerified ? "(email verified)" : "(email not verified)";
}

// Passkeys (docs/contract.md, decision 24), as the SDKs' passkey branches call them: the options'
// bytes arrive in standard base64 and go to navigator.credentials as bytes; the credential goes back
// as the W3C PublicKeyCredential JSON, bytes in base64url.
const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const base64url = (buffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function credentialJSON(credential) {
  const response = {};
  for (const name of ["clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle"]) {
    if (credential.response[name]) response[name] = base64url(credential.response[name]);
  }
  return { id: credential.id, rawId: base64url(credential.rawId), type: credential.type, response };
}

async function showPasskeys(account) {
  const list = $("passkeys");
  const passkeys = account?.passkeyInfo ?? [];
  list.replaceChildren();
  if (passkeys.length === 0) list.innerHTML = "<li>none</li>";
  for (const passkey of passkeys) {
    const item = document.createElement("li");
    item.textContent = `${passkey.name} `;
    item.dataset.credential = passkey.credentialId;
    const remove = document.createElement("button");
    remove.textContent = "Delete";
    remove.className = "delete-passkey";
    remove.addEventListener("click", async () => {
      try {
        signedIn(await v1("update", { idToken: session.idToken, deletePasskey: [passkey.credentialId], returnSecureToken: true }));
      } catch (error) {
        if (!(error instanceof APIError)) logCall("deletePasskey", "failed", error.message);
      }
      await render();
    });
    item.append(remove);
    list.append(item);
  }
}

on("passkey-enable", async () => {
  const config = { rpId: location.hostname, expectedOrigins: [location.origin] };
  await call("PATCH", `/v2/projects/${project}/passkeyConfig`, config, { Authorization: "Bearer owner" });
  $("passkey-status").textContent = `passkeys for ${location.origin}`;
  $("passkey-status").className = "status ok";
});

on("passkey-add", async () => {
  const options = (await v2("passkeyEnrollment:start", { idToken: session.idToken })).credentialCreationOptions;
  const publicKey = {
    ...options,
    challenge: bytes(options.challenge),
    user: { ...options.user, id: bytes(options.user.id) },
    excludeCredentials: (options.excludeCredentials ?? []).map((entry) => ({ ...entry, id: bytes(entry.id) })),
  };
  const credential = await navigator.credentials.create({ publicKey });
  signedIn(await v2("passkeyEnrollment:finalize", {
    idToken: session.idToken, name: $("passkey-name").value, authenticatorRegistrationResponse: credentialJSON(credential),
  }));
});

on("passkey-sign-in", async () => {
  const options = (await v2("passkeySignIn:start", {})).credentialRequestOptions;
  const credential = await navigator.credentials.get({ publicKey: { ...options, challenge: bytes(options.challenge) } });
  signedIn(await v2("passkeySignIn:finalize", { authenticatorAuthenticationResponse: credentialJSON(credential) }));
});

async function render() {
  const inSession = Boolean(session.idToken);
  $("signed-in-as").textContent = inSession ? claims(session.idToken).email ?? claims(session.idToken).user_id : "nobody";
  if (!inSession) $("email-verified").textContent = "";
  for (const id of ["sign-out", "verify-email", "totp-start", "sms-start", "recovery-generate", "passkey-add"]) $(id).disabled = !inSession;
  if (!inSession) $("recovery-codes").replaceChildren();
  $("claims").textContent = inSession ? JSON.stringify(claims(session.idToken), null, 2) : "not signed in";
  $("second-factor").hidden = !session.pending;
  if (!session.totpSessionInfo) $("totp-enrollment").hidden = true;
  if (!session.smsSessionInfo) $("sms-enrollment").hidden = true;
  await showFactors().catch(() => {});
  await showRecoveryCodes().catch(() => {});
}

on("mfa-enable", async () => {
  const mfa = {
    state: "ENABLED",
    enabledProviders: ["PHONE_SMS"],
    providerConfigs: [{ state: "ENABLED", totpProviderConfig: { adjacentIntervals: 1 } }],
  };
  await call("PATCH", `/v2/projects/${project}/config?updateMask=mfa`, { mfa }, { Authorization: "Bearer owner" });
  $("mfa-status").textContent = "TOTP and SMS are enabled";
  $("mfa-status").className = "status ok";
});

on("sign-up", async () => {
  signedIn(await v1("signUp", { email: $("email").value, password: $("password").value, returnSecureToken: true }));
});

on("sign-in", async () => {
  const answer = await v1("signInWithPassword", { email: $("email").value, password: $("password").value, returnSecureToken: true });
  if (answer.mfaPendingCredential) {
    session.pending = answer;
    showSecondFactorChoices(answer.mfaInfo);
  } else {
    signedIn(answer);
  }
});

on("sign-out", async () => {
  Object.assign(session, { idToken: null, refreshToken: null, pending: null, smsSessionInfo: null, totpSessionInfo: null });
});

on("verify-email", async () => {
  const email = claims(session.idToken).email;
  await v1("sendOobCode", { requestType: "VERIFY_EMAIL", idToken: session.idToken });
  const mailed = (await sink("oobCodes")).oobCodes.filter((entry) => entry.email === email && entry.requestType === "VERIFY_EMAIL");
  await v1("update", { oobCode: mailed[mailed.length - 1].oobCode });
  await refresh();
});

on("totp-start", async () => {
  const answer = await v2("mfaEnrollment:start", { idToken: session.idToken, totpEnrollmentInfo: {} });
  const info = answer.totpSessionInfo;
  session.totpSessionInfo = info.sessionInfo;
  // The address authenticator apps read, built as the SDKs' TotpSecret.generateQrCodeUrl builds it.
  const account = encodeURIComponent(claims(session.idToken).email);
  const issuer = encodeURIComponent(`mfa-backend ${project}`);
  const uri = `otpauth://totp/${issuer}:${account}?secret=${info.sharedSecretKey}&issuer=${issuer}` +
    `&algorithm=${info.hashingAlgorithm}&digits=${info.verificationCodeLength}&period=${info.periodSec}`;
  const image = await fetch("/demo/qr", { method: "POST", headers: { "content-type": "text/plain" }, body: uri });
  if (!image.ok) throw new Error(`QR code: ${image.status}`);
  $("totp-qr").innerHTML = await image.text();
  $("totp-secret").textContent = info.sharedSecretKey;
  $("totp-uri").textContent = uri;
  $("totp-enrollment").hidden = false;
});

on("totp-finish", async () => {
  signedIn(await v2("mfaEnrollment:finalize", {
    idToken: session.idToken, displayName: "Authenticator app",
    totpVerificationInfo: { sessionInfo: session.totpSessionInfo, verificationCode: $("totp-code").value.trim() },
  }));
  session.totpSessionInfo = null;
  $("totp-code").value = "";
});

on("sms-start", async () => {
  const answer = await v2("mfaEnrollment:start", {
    idToken: session.idToken,
    phoneEnrollmentInfo: { phoneNumber: $("phone-number").value.trim(), recaptchaToken: "test-recaptcha-token" },
  });
  session.smsSessionInfo = answer.phoneSessionInfo.sessionInfo;
  $("sms-enrollment").hidden = false;
});

async function sentCode(sessionInfo) {
  const sent = (await sink("verificationCodes")).verificationCodes.find((entry) => entry.sessionInfo === sessionInfo);
  if (!sent) throw new Error("no SMS in the sink for this session");
  return sent.code;
}

on("sms-fill", async () => {
  $("sms-code").value = await sentCode(session.smsSessionInfo);
});

on("sms-finish", async () => {
  signedIn(await v2("mfaEnrollment:finalize", {
    idToken: session.idToken, displayName: "Phone",
    phoneVerificationInfo: { sessionInfo: session.smsSessionInfo, code: $("sms-code").value.trim() },
  }));
  session.smsSessionInfo = null;
  $("sms-code").value = "";
});

function showSecondFactorChoices(factors) {
  const choices = $("second-factor-choices");
  choices.replaceChildren();
  factors.forEach((factor, index) => {
    const label = document.createElement("label");
    const radio = document.createElement("input");
    radio.type = "radio";
    radio.name = "factor";
    radio.value = factor.mfaEnrollmentId;
    radio.dataset.kind = isRecoveryCodes(factor) ? "recovery" : factor.totpInfo ? "totp" : "phone";
    radio.checked = index === 0;
    radio.addEventListener("change", chooseFactor);
    label.append(radio, ` ${factor.displayName || "(no name)"} (${factorKind(factor)})`);
    choices.append(label);
  });
  chooseFactor();
}

function chosenFactor() {
  return document.querySelector('input[name="factor"]:checked');
}

function chooseFactor() {
  const phone = chosenFactor()?.dataset.kind === "phone";
  $("mfa-send-sms").hidden = !phone;
  $("mfa-fill-sms").hidden = !phone;
}

on("mfa-send-sms", async () => {
  const answer = await v2("mfaSignIn:start", {
    mfaPendingCredential: session.pending.mfaPendingCredential, mfaEnrollmentId: chosenFactor().value,
    phoneSignInInfo: { recaptchaToken: "test-recaptcha-token" },
  });
  session.smsSessionInfo = answer.phoneResponseInfo.sessionInfo;
});

on("mfa-fill-sms", async () => {
  $("mfa-code").value = await sentCode(session.smsSessionInfo);
});

on("mfa-finish", async () => {
  const factor = chosenFactor();
  const code = $("mfa-code").value.trim();
  // A recovery code goes where an authenticator's code goes.
  const proof = factor.dataset.kind === "phone"
    ? { phoneVerificationInfo: { sessionInfo: session.smsSessionInfo, code } }
    : { totpVerificationInfo: { verificationCode: code } };
  signedIn(await v2("mfaSignIn:finalize", {
    mfaPendingCredential: session.pending.mfaPendingCredential, mfaEnrollmentId: factor.value, ...proof,
  }));
  session.smsSessionInfo = null;
  $("mfa-code").value = "";
});

on("idp-configure", async () => {
  const id = $("idp-id").value.trim();
  const config = {
    issuer: $("idp-issuer").value.trim(), clientId: $("idp-client-id").value.trim(),
    clientSecret: $("idp-client-secret").value, enabled: true, responseType: { code: true },
    // The developer's own provider, trusted to verify its users' addresses (docs/identity-providers.md,
    // "Whose verified email counts"), so its users may enroll a second factor here.
    trustEmailVerified: true,
  };
  const admin = { Authorization: "Bearer owner" };
  try {
    await call("POST", `/v2/projects/${project}/oauthIdpConfigs?oauthIdpConfigId=${encodeURIComponent(id)}`, config, admin);
  } catch (error) {
    if (!(error instanceof APIError) || !error.message.startsWith("CONFIGURATION_EXISTS")) throw error;
    await call("PATCH", `/v2/projects/${project}/oauthIdpConfigs/${encodeURIComponent(id)}`, config, admin);
  }
  $("idp-status").textContent = `${id} is configured`;
  $("idp-status").className = "status ok";
});

// The web sign-in, as the SDKs' redirect flow makes it: createAuthUri with a session id this
// browser keeps, off to the provider, and back here with its answer in the address.
on("idp-sign-in", async () => {
  const providerId = $("idp-id").value.trim();
  const sessionId = crypto.randomUUID();
  const continueUri = `${location.origin}/demo`;
  const answer = await v1("createAuthUri", { providerId, continueUri, sessionId });
  sessionStorage.setItem("mfa-demo-idp", JSON.stringify({ sessionId, providerId }));
  location.assign(answer.authUri);
});

async function finishProviderSignIn() {
  const pending = sessionStorage.getItem("mfa-demo-idp");
  const query = new URLSearchParams(location.search);
  if (!pending || !(query.has("code") || query.has("error")) || !query.has("state")) return;
  sessionStorage.removeItem("mfa-demo-idp");
  const { sessionId, providerId } = JSON.parse(pending);
  const requestUri = location.href;
  history.replaceState(null, "", "/demo");
  $("idp-id").value = providerId;
  try {
    const answer = await v1("signInWithIdp", { requestUri, sessionId, returnSecureToken: true, returnIdpCredential: true });
    if (answer.mfaPendingCredential) {
      session.pending = answer;
      showSecondFactorChoices(answer.mfaInfo);
    } else if (answer.idToken) {
      signedIn(answer);
    } else {
      logCall("signInWithIdp", "failed", answer.errorMessage ?? (answer.needConfirmation ? "sign in the old way, then link" : "no tokens"));
    }
  } catch (error) {
    if (!(error instanceof APIError)) logCall("signInWithIdp", "failed", error.message);
  }
}

$("project").textContent = project;
$("email").value = `ada-${Math.random().toString(36).slice(2, 8)}@example.com`;
$("phone-number").value = `+1650555${String(Math.floor(Math.random() * 10000)).padStart(4, "0")}`;
finishProviderSignIn().finally(render);
