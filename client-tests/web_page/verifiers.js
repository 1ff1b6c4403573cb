// The application verifiers docs/sdks.md shows, as a web app writes them: each hands the SDK the
// captcha's token, which reaches the server as `recaptchaToken`. The SDK asks for `type: "recaptcha"`
// and calls `_reset()` after every phone request (firebase-js-sdk phone.ts#L284-L288, #L423-L425).
"use strict";

// reCAPTCHA v3 (script: https://www.google.com/recaptcha/api.js?render=SITE_KEY).
function recaptchaVerifier(siteKey) {
  return {
    type: "recaptcha",
    verify: () => new Promise((resolve) => grecaptcha.ready(() => resolve(grecaptcha.execute(siteKey, {action: "sms"})))),
    _reset() {},
  };
}

// hCaptcha, invisible (script: https://js.hcaptcha.com/1/api.js?render=explicit).
function hcaptchaVerifier(siteKey, container) {
  const widget = hcaptcha.render(container, {sitekey: siteKey, size: "invisible"});
  return {
    type: "recaptcha",
    verify: async () => (await hcaptcha.execute(widget, {async: true})).response,
    _reset: () => hcaptcha.reset(widget),
  };
}

// Cloudflare Turnstile (script: https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit).
function turnstileVerifier(siteKey, container) {
  let solved;
  const next = () => new Promise((resolve) => (solved = resolve));
  let token = next();
  const widget = turnstile.render(container, {sitekey: siteKey, action: "sms", callback: (value) => solved(value)});
  return {
    type: "recaptcha",
    verify: () => token,
    _reset() {
      token = next();
      turnstile.reset(widget);
    },
  };
}
