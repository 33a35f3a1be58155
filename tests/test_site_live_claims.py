"""The site's frontier shows how many hold a node and since when (issue 11, ruling 14).

Claims are the service's state, not the record's, so the static site never bakes them in:
each frontier row carries an empty Holders cell keyed ``<target>/<node>``, and the site
server of ``lemmata up`` answers ``/live/claims.json`` from the service's registry on the
same origin, which the page's script reads when it loads.
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from network import up
from tests.api_support import Api, auth, make_api
from tests.site_support import build, require_dot


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    """An :class:`Api` over a fresh graph and a fresh SQLite database."""
    yield from make_api(tmp_path)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b""


def test_the_site_server_answers_live_holders_beside_the_frontier_page(
        api: Api, tmp_path: Path) -> None:
    require_dot()
    out = tmp_path / "site"
    build(tmp_path / "graph", out)
    page = (out / "frontier" / "index.html").read_text(encoding="utf-8")
    assert 'class="holders" data-node="demo/root"' in page and "<th scope=\"col\">Holders" in page
    assert "Claims are advisory" in page
    alice, bob = api.token("alice")["token"], api.token("bob")["token"]
    first = api.client.post("/claims", json={"target": "demo", "node": "root"},
                            headers=auth(alice)).json()
    api.clock.advance(30)
    answer = api.client.post("/claims", json={"target": "demo", "node": "root"},
                             headers=auth(bob))
    assert answer.status_code == 201
    second = answer.json()
    port = _port()
    with up.static_server(out, "127.0.0.1", port, partial(up.live_claims_json, api.svc)):
        status, body = _get(f"http://127.0.0.1:{port}/live/claims.json")
        assert status == 200
        live = json.loads(body)
        assert live["nodes"] == {"demo/root": {
            "holders": 2, "since": first["claimed_at"],
            "claims": [{"pseudonym": first["pseudonym"], "claimed_at": first["claimed_at"],
                        "expires_at": first["expires_at"]},
                       {"pseudonym": second["pseudonym"], "claimed_at": second["claimed_at"],
                        "expires_at": second["expires_at"]}]}}
        assert "claim_id" not in body.decode()  # a holder's receipt is never published
        assert live["as_of"] == "2026-09-21T14:13:50Z"
        assert _get(f"http://127.0.0.1:{port}/frontier/index.html")[0] == 200
        api.clock.advance(3590)  # alice's hour is over, bob's is not
        live = json.loads(_get(f"http://127.0.0.1:{port}/live/claims.json")[1])
        assert live["nodes"]["demo/root"]["holders"] == 1
        assert [c["pseudonym"] for c in live["nodes"]["demo/root"]["claims"]] == [
            second["pseudonym"]]
    port = _port()
    with up.static_server(out, "127.0.0.1", port):  # a site with no service beside it
        assert _get(f"http://127.0.0.1:{port}/live/claims.json")[0] == 404

    def broken() -> bytes:
        raise RuntimeError("database gone")

    port = _port()
    with up.static_server(out, "127.0.0.1", port, broken):
        assert _get(f"http://127.0.0.1:{port}/live/claims.json")[0] == 503


@pytest.mark.browser
@pytest.mark.allow_outside_writes
def test_the_frontier_page_fills_its_holders_in_chromium(api: Api, tmp_path: Path) -> None:
    """The page's script reads /live/claims.json from the site server beside it and writes
    each row's holders and since when; a row nobody holds reads 0."""
    import shutil

    from tests.site_support import require_tool

    require_dot()
    require_tool("chromium", shutil.which("chromium") or Path("/usr/bin/chromium").exists())
    require_tool("chromedriver", shutil.which("chromedriver"))
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    out = tmp_path / "site"
    build(tmp_path / "graph", out)
    alice, bob = api.token("alice")["token"], api.token("bob")["token"]
    first = api.client.post("/claims", json={"target": "demo", "node": "root"},
                            headers=auth(alice)).json()
    assert api.client.post("/claims", json={"target": "demo", "node": "root"},
                           headers=auth(bob)).status_code == 201
    opts = Options()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    port = _port()
    try:
        with up.static_server(out, "127.0.0.1", port, partial(up.live_claims_json, api.svc)):
            drv.get(f"http://127.0.0.1:{port}/frontier/index.html")
            cell = drv.find_element(By.CSS_SELECTOR, 'td.holders[data-node="demo/root"]')
            WebDriverWait(drv, 20).until(lambda _: cell.text != "—")
            assert cell.text.splitlines()[0] == f"2 since {first['claimed_at']}"
            assert f"{first['pseudonym']}, since {first['claimed_at']}, until " \
                f"{first['expires_at']}" in cell.text
            others = drv.find_elements(By.CSS_SELECTOR, "td.holders[data-node]")
            assert len(others) > 1
            assert {c.text for c in others if c != cell} == {"0"}
            assert drv.find_element(By.ID, "claims-as-of").text.startswith("as of 2026-")
    finally:
        drv.quit()
