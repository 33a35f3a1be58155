"""The operator's sign-in link in Debian's headless Chromium, on ports other than
8000/8001 (issue 40: "a browser test signs in through the printed link on non-default
ports").

``lemmata up`` runs on two free ports with no address variable set; from its ``ready``
hook the operator issues an identity and runs ``lemmata session link --json`` on the data
folder, exactly as printed by the banner. Chromium opens the printed URL, is sent on to
the site that ``up`` serves on its own port, and a credentialed fetch from that page to the
service answers ``GET /session`` signed in as the identity. Nothing in the test names a
port to the CLI: the link's addresses come from ``service.json`` alone.

Marked ``browser`` (``make test`` deselects it; ``make test-all`` runs it) and ``slow``.
"""

from __future__ import annotations

import json
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from network import up
from network.api.people import web_session
from network.cli import main
from tests.graphs import GraphBuilder
from tests.site_support import require_tool

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ENV_NAMES = ("LEMMATA_PUBLIC_URL", "LEMMATA_SITE_ORIGIN", "LEMMATA_GRAPH",
             "LEMMATA_DATA_DIR", "LEMMATA_DATABASE_URL", "LEMMATA_GITHUB_CLIENT_ID")

#: Run in the page once it is on the site: ask the service who is signed in, with the
#: browser's cookies, and hand the answer back to the test.
FETCH_SESSION = """
const [api, done] = arguments;
fetch(api + "/session", {credentials: "include"})
  .then(r => r.json()).then(b => done(JSON.stringify(b)))
  .catch(e => done(JSON.stringify({error: String(e)})));
"""


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture()
def driver() -> Iterator[Any]:
    """Headless Chromium through ChromeDriver (skips locally without them, fails on CI)."""
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
    drv.set_script_timeout(20)
    try:
        yield drv
    finally:
        drv.quit()


def test_the_printed_link_signs_a_browser_in_on_other_ports(tmp_path: Path, driver: Any,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            ) -> None:
    for name in ENV_NAMES:  # the operator sets nothing: service.json says it all
        monkeypatch.delenv(name, raising=False)
    project = tmp_path / "project"
    b = GraphBuilder(project / "graph")
    b.base()
    b.target("demo")
    b.node("demo", "root")
    data = tmp_path / "data"
    stop = threading.Event()
    seen: dict[str, Any] = {}

    def ready(urls: dict[str, str]) -> None:
        try:
            seen["urls"] = urls
            state = ["--data", str(data)]
            runner = CliRunner()
            issued = runner.invoke(main, ["token", "issue", "--pseudonym", "erin", "--dco",
                                          "--operator", "olga", *state])
            seen["issued"] = (issued.exit_code, issued.output)
            out = runner.invoke(main, ["session", "link", "--pseudonym", "erin", "--operator",
                                       "olga", "--json", *state])
            assert out.exit_code == 0, out.output
            link = json.loads(out.output)
            seen["link"] = link
            driver.get(link["url"])
            seen["landed"] = driver.current_url
            seen["session"] = json.loads(driver.execute_async_script(
                FETCH_SESSION, link["url"].split("/auth/")[0]))
            seen["cookies"] = {c["name"]: c for c in driver.get_cookies()}
        except Exception as exc:  # noqa: BLE001 - raised below, once the network has stopped
            seen["error"] = exc
        finally:
            stop.set()

    port, site_port = free_port(), free_port()
    assert {port, site_port}.isdisjoint({8000, 8001})
    assert up.run(data, project / "graph", port=port, site_port=site_port, stop=stop,
                  ready=ready) == 0
    if "error" in seen:
        raise seen["error"]
    assert seen["issued"][0] == 0, seen["issued"]
    api, site = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{site_port}"
    assert seen["link"]["url"].startswith(f"{api}/auth/link?"), seen["link"]
    assert seen["link"]["return_to"] == f"{site}/", seen["link"]
    assert seen["landed"].startswith(f"{site}/"), seen["landed"]
    session = seen["session"]
    assert session.get("signed_in") is True and session.get("pseudonym") == "erin", session
    assert web_session.COOKIE in seen["cookies"], sorted(seen["cookies"])
