"""reCAPTCHA, hCaptcha and Cloudflare Turnstile as a web page and a server meet them, on loopback with a
certificate of their own: each service's browser script (`/<service>/api.js`, defining the same global
and the same calls as the real one: `grecaptcha.execute`, `hcaptcha.execute`, `turnstile.render` /
`getResponse` / `reset`), the token those calls hand out (bound to the site key, the page's host and the
action, usable once), and the service's siteverify endpoint answering as the real one does. No
captcha is solved: the widget vouches for whoever asks, as a real one does for a person."""

import json
import secrets
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler

SERVICES = ("recaptcha", "hcaptcha", "turnstile")

# The part of each real script a web app's verifier uses, over a token from this stand-in.
API_JS = {
    "recaptcha": """window.grecaptcha = {
  ready(callback) { callback(); },
  async execute(siteKey, options) { return __standIn("recaptcha", siteKey, options && options.action); },
};""",
    "hcaptcha": """window.hcaptcha = {
  render(container, options) { this._siteKey = options.sitekey; return "widget-1"; },
  async execute(widgetId, options) { return {response: await __standIn("hcaptcha", this._siteKey), key: "ekey"}; },
  reset(widgetId) {},
};""",
    "turnstile": """window.turnstile = {
  render(container, options) { this._options = options; this._run(); return "widget-1"; },
  _run() {
    const options = this._options;
    __standIn("turnstile", options.sitekey, options.action).then((token) => { this._token = token; options.callback(token); });
  },
  getResponse(widgetId) { return this._token; },
  reset(widgetId) { this._token = undefined; this._run(); },
};""",
}

TOKEN_JS = """async function __standIn(service, siteKey, action) {
  const query = new URLSearchParams({sitekey: siteKey, action: action || ""});
  const answer = await fetch(`%(origin)s/${service}/token?${query}`);
  return (await answer.json()).token;
}
"""


class Captchas(BaseHTTPRequestHandler):
    """`secrets`: {service: {secret: site key}} the operator configured; every token issued, by value."""
    secrets: dict = {}
    issued: dict = {}
    verified: list = []
    lock = threading.Lock()

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        service, _, what = url.path.strip("/").partition("/")
        if service not in SERVICES:
            return self.reply(404, {"error": "unknown"})
        if what == "api.js":
            origin = f"https://{self.headers['host']}"
            return self.reply(200, (TOKEN_JS % {"origin": origin}) + API_JS[service], "text/javascript")
        if what == "token":
            query = urllib.parse.parse_qs(url.query)
            page = urllib.parse.urlsplit(self.headers.get("origin") or self.headers.get("referer") or "").hostname
            token = f"{service}.{secrets.token_urlsafe(24)}"
            with Captchas.lock:
                Captchas.issued[token] = {"service": service, "sitekey": query.get("sitekey", [""])[0],
                                          "action": query.get("action", [""])[0], "hostname": page, "used": False}
            return self.reply(200, {"token": token})
        self.reply(404, {"error": "unknown"})

    def do_POST(self):
        service = self.path.strip("/").partition("/")[0]
        form = urllib.parse.parse_qs(self.rfile.read(int(self.headers.get("content-length", 0))).decode())
        secret, token = form.get("secret", [""])[0], form.get("response", [""])[0]
        with Captchas.lock:
            Captchas.verified.append({"service": service, "form": form})
            entry = Captchas.issued.get(token)
            site_key = Captchas.secrets.get(service, {}).get(secret)
            fresh = entry is not None and not entry["used"] and entry["service"] == service
            if fresh:
                entry["used"] = True
        if site_key is None:
            return self.reply(200, {"success": False, "error-codes": ["invalid-input-secret"]})
        if not fresh or entry["sitekey"] != site_key or form.get("sitekey", [site_key])[0] != site_key:
            return self.reply(200, {"success": False, "error-codes": ["invalid-input-response"]})
        answer = {"success": True, "challenge_ts": "2026-11-29T10:00:00Z", "hostname": entry["hostname"]}
        if service == "recaptcha":
            answer |= {"score": 0.9, "action": entry["action"]}
        elif service == "turnstile":
            answer |= {"action": entry["action"], "cdata": ""}
        self.reply(200, answer)

    def reply(self, status, body, content_type="application/json"):
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("access-control-allow-origin", "*")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass
