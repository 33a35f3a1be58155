"""The web session in Debian's headless Chromium (issue 13): the cookie's attributes hold
in a real browser on plain ``http://127.0.0.1``.

The service runs under uvicorn on one port, a test page standing in for the site on
another (the site is the "site" helper's; this page only calls the contract), and the
GitHub stand-in on a third. Chromium keeps the ``Secure`` cookie on ``http://127.0.0.1``
(a potentially trustworthy origin), sends the ``SameSite=Strict`` session cookie with the
page's credentialed fetches to the service on another port (the same site), and the
service's CORS lets the page read the answers.

Marked ``browser``: ``make test`` deselects it; run ``pytest -m browser``.
"""

from __future__ import annotations

import http.server
import json
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from network.api.app import create_app
from network.api.people import web_session
from network.api.settings import ServiceSettings
from network.up import serve_in_thread
from tests.api_support import build_graph, github_verifier
from tests.github_standin import GitHubStandin
from tests.graphs import BUILDER_APPROVAL_KEY, BUILDER_APPROVAL_KEY_ID
from tests.site_support import require_tool

pytestmark = [pytest.mark.browser]

#: The test page: on load it asks GET /session, then (signed in, unless ``?hold``) ends
#: the session with its CSRF token, and writes every answer into <pre id=out> as JSON.
PAGE = """<!doctype html><html><body><pre id="out">pending</pre><script>
const api = %(api)s;
(async () => {
  const out = [];
  try {
    const s = await (await fetch(api + "/session", {credentials: "include"})).json();
    out.push(s);
    if (s.signed_in && !location.search.includes("hold")) {
      const r = await fetch(api + "/session/end", {method: "POST", credentials: "include",
        headers: {"X-CSRF-Token": s.csrf_token}});
      out.push({status: r.status, body: await r.json()});
      out.push(await (await fetch(api + "/session", {credentials: "include"})).json());
    }
  } catch (e) { out.push({error: String(e)}); }
  document.getElementById("out").textContent = JSON.stringify(out);
})();
</script></body></html>"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture()
def driver() -> Iterator[Any]:
    require_tool("chromium", shutil.which("chromium") or Path("/usr/bin/chromium").exists())
    require_tool("chromedriver", shutil.which("chromedriver"))
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        yield drv
    finally:
        drv.quit()


def _page_server(html: str) -> tuple[http.server.ThreadingHTTPServer, str]:
    body = html.encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_a: object) -> None:
            return

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


def _answers(d: Any) -> list[dict[str, Any]]:
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        text = d.find_element(By.ID, "out").text
        if text != "pending":
            return json.loads(text)  # type: ignore[no-any-return]
        time.sleep(0.1)
    raise AssertionError("the page never answered")


def test_chromium_keeps_the_secure_strict_cookie_on_loopback(tmp_path: Path,
                                                             driver: Any) -> None:
    port = _free_port()
    api = f"http://127.0.0.1:{port}"
    gh = GitHubStandin(callback=f"{api}/auth/github/callback", person="alice")
    gh.start()
    page_srv, site = _page_server(PAGE % {"api": json.dumps(api)})
    try:
        build_graph(tmp_path / "graph")
        st = ServiceSettings(data_dir=tmp_path / "data", graph=tmp_path / "graph", port=port,
                             public_url=api, site_origin=site, github_client_id=gh.client_id,
                             github_client_secret=gh.client_secret,
                             github_oauth_url=gh.oauth_url, github_api_url=gh.base)
        app = create_app(st, github_verifier=github_verifier,
                         keys={"approval": (BUILDER_APPROVAL_KEY_ID, BUILDER_APPROVAL_KEY)})
        svc = app.state.svc
        with serve_in_thread(app, port=port):
            # 1. GitHub sign-in through the stand-in, in the browser
            driver.get(f"{api}/auth/github/start?return_to={site}/page.html")
            first = _answers(driver)
            assert driver.current_url == f"{site}/page.html"
            assert first[0]["signed_in"] and first[0]["login"] == "alice", first
            assert first[0]["needs_pseudonym"] is True
            assert first[1] == {"status": 200, "body": {"signed_in": False}}, first
            assert first[2] == {"signed_in": False}
            # 2. an operator's link for an existing identity
            from network.api.identity import identity

            identity.issue_operator_token(svc, pseudonym="erin", dco="1.1", operator="olga")
            link = web_session.issue_sign_in_link(svc, pseudonym="erin", operator="olga",
                                                  return_to=f"{site}/page.html?hold")
            driver.get(link["url"])
            held = _answers(driver)
            assert held[0]["signed_in"] and held[0]["pseudonym"] == "erin", held
            assert len(held) == 1
            cookie = {c["name"]: c for c in driver.get_cookies()}[web_session.COOKIE]
            assert cookie["secure"] and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            assert cookie["domain"] == "127.0.0.1" and cookie["path"] == "/"
            driver.get(f"{site}/page.html")  # the page ends the session
            second = _answers(driver)
            assert second[0]["pseudonym"] == "erin", second
            assert second[1]["status"] == 200 and second[2] == {"signed_in": False}
            names = {c["name"] for c in driver.get_cookies()}
            assert web_session.COOKIE not in names  # POST /session/end deleted it
    finally:
        page_srv.shutdown()
        page_srv.server_close()
        gh.stop()
