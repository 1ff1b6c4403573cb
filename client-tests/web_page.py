"""The web app page of web_page/ in a real browser: served from http://localhost:<port> (its own origin,
as an app's page is), driven through `webSdk` (the JS SDK's requests) and the verifiers docs/sdks.md
shows. `call` runs one of the page's async functions and returns its result or raises its error."""

import contextlib
import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from browser import chromium
from conftest import free_port

DIRECTORY = Path(__file__).resolve().parent / "web_page"


class Page:
    def __init__(self, driver, url):
        self.driver = driver
        self.url = url

    def call(self, expression: str, *arguments):
        """`expression` is an async function of `arguments` (JSON values), e.g. `(a) => webSdk.signIn(a, b)`."""
        self.driver.set_script_timeout(30)
        outcome = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            f"Promise.resolve(({expression})(...{json.dumps(list(arguments))}))"
            ".then((value) => done({value: value === undefined ? null : value}), (error) => done({error: String(error.message || error)}));")
        if "error" in outcome:
            raise PageError(outcome["error"])
        return outcome["value"]

    def load_script(self, url: str):
        self.call("(url) => new Promise((resolve, reject) => { const s = document.createElement('script');"
                  " s.src = url; s.onload = resolve; s.onerror = () => reject(new Error('script ' + url));"
                  " document.head.appendChild(s); })", url)


class PageError(Exception):
    pass


@contextlib.contextmanager
def opened(trusted_certificates=()):
    port = free_port()
    handler = functools.partial(Quiet, directory=str(DIRECTORY))
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with chromium(trusted_certificates=tuple(trusted_certificates)) as driver:
            url = f"http://localhost:{port}/phone.html"
            driver.get(url)
            yield Page(driver, url)
    finally:
        server.shutdown()


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
