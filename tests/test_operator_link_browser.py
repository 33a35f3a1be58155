"""The operator's sign-in link in Debian's headless Chromium, on ports other than
8000/8001 (issue 40: "a browser test signs in through the printed link on non-default
ports").

``lemmata up`` runs on two free ports with no address variable set; from its ``ready``
hook the operator issues an identity and runs ``lemmata session link --json`` on the data
folder, exactly as printed by the banner (``tests/test_operator_way_in.py``'s
:func:`up_with_an_operator_link`). Chromium opens the printed URL, is sent on to the site
that ``up`` serves on its own port, and a credentialed fetch from that page to the service
answers ``GET /session`` signed in as the identity. Nothing in the test names a port to the
CLI: the link's addresses come from ``service.json`` alone.

Marked ``browser`` (``make test`` deselects it; ``make test-all`` runs it) and ``slow``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from network.api.people import web_session
from tests.site_support import chromium
from tests.test_operator_way_in import up_with_an_operator_link

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Run in the page once it is on the site: ask the service who is signed in, with the
#: browser's cookies, and hand the answer back to the test.
FETCH_SESSION = """
const [api, done] = arguments;
fetch(api + "/session", {credentials: "include"})
  .then(r => r.json()).then(b => done(JSON.stringify(b)))
  .catch(e => done(JSON.stringify({error: String(e)})));
"""


def test_the_printed_link_signs_a_browser_in_on_other_ports(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            ) -> None:
    with chromium() as d:
        driver: Any = d
        driver.set_script_timeout(20)

        def visit(link: dict[str, Any]) -> dict[str, Any]:
            driver.get(link["url"])
            return {"landed": driver.current_url,
                    "session": json.loads(driver.execute_async_script(
                        FETCH_SESSION, link["url"].split("/auth/")[0])),
                    "cookies": {c["name"]: c for c in driver.get_cookies()}}

        seen, port, site_port = up_with_an_operator_link(tmp_path, monkeypatch, visit)
    assert {port, site_port}.isdisjoint({8000, 8001})
    assert seen["issued"] == 0, seen
    api, site = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{site_port}"
    assert seen["link"]["url"].startswith(f"{api}/auth/link?"), seen["link"]
    assert seen["link"]["return_to"] == f"{site}/", seen["link"]
    got = seen["visited"]
    assert got["landed"].startswith(f"{site}/"), got["landed"]
    session = got["session"]
    assert session.get("signed_in") is True and session.get("pseudonym") == "erin", session
    assert web_session.COOKIE in got["cookies"], sorted(got["cookies"])
