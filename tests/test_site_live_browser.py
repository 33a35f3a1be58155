"""Who is working on what, and click-to-show, in headless Chromium (issue 15).

A built rich site is served by ``lemmata up``'s site server (``network.up.static_server``)
with the site's policy as a header, beside a stub of ``/live/claims.json`` whose holder's
pseudonym is markup built to run script. The test checks that the frontier's Holders cell
and the node page's "Held by" line show the holders and their since and until as text;
that a site with no service says the live state is unavailable; and that clicking a
statement in the drawing, or Enter or Space on it, opens a panel with its claim, status
and link, that Escape closes it and gives focus back, and that a drag is not a click.

Marked ``browser``: ``make test`` deselects it; run ``pytest -m browser``.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from network import up
from network.site.csp import header_policy
from tests.site_support import build, chromium, require_dot
from tests.sitegraph import build_rich_graph

pytestmark = [pytest.mark.browser, pytest.mark.allow_outside_writes]

EVIL = '<img src=x onerror="window.__pwned=1">mallory</td><b>'
"""A holder's pseudonym built to run script and break the table if written as markup."""
EVIL_LABEL = '<img src=x onerror="window.__pwned=2">Bound'
"""A statement label with the same intent, for the click panel."""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _live() -> bytes:
    return json.dumps({"as_of": "2026-12-01T10:00:00Z", "nodes": {
        "demo/root": {"holders": 2, "since": "2026-11-30T09:00:00Z", "claims": [
            {"pseudonym": EVIL, "claimed_at": "2026-11-30T09:00:00Z",
             "expires_at": "2026-12-01T11:00:00Z"},
            {"pseudonym": "bob", "claimed_at": "2026-12-01T09:30:00Z",
             "expires_at": "2026-12-01T10:30:00Z"}]},
        "demo/root--h2": {"holders": 1, "since": "2026-12-01T08:00:00Z", "claims": [
            {"pseudonym": "carol", "claimed_at": "2026-12-01T08:00:00Z",
             "expires_at": "2026-12-01T12:00:00Z"}]},
        '"]<img src=x onerror="window.__pwned=3">': {"holders": 1, "since": "x", "claims": []},
    }}).encode()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_dot()
    root = tmp_path_factory.mktemp("live-browser")
    b, _ = build_rich_graph(root / "graph", commit=False)
    b.gloss("demo", "variant-upper", "20260110T000000Z", "alice", label=EVIL_LABEL,
            text="$$n < 2^n$$ A bound.")
    out = root / "out"
    build(root / "graph", out)
    return out


@pytest.fixture()
def driver() -> Iterator[Any]:
    with chromium(log=True) as drv:
        yield drv


def _csp_errors(d: Any) -> list[str]:
    return [e["message"] for e in d.get_log("browser")
            if "Content Security Policy" in e["message"] or "Refused" in e["message"]]


def test_live_claims_overlay_the_frontier_and_node_pages_as_text(site: Path, driver: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    d = driver
    port = _port()
    with up.static_server(site, "127.0.0.1", port, _live,
                          csp=header_policy("http://127.0.0.1:9")):
        base = f"http://127.0.0.1:{port}/"
        d.get(base + "frontier/index.html")
        cell = d.find_element(By.CSS_SELECTOR, 'td.holders[data-node="demo/root"]')
        WebDriverWait(d, 20).until(lambda _: cell.text != "—")
        lines = cell.text.splitlines()
        assert lines[0] == "2 since 2026-11-30T09:00:00Z"
        assert lines[1] == f"{EVIL}, since 2026-11-30T09:00:00Z, until 2026-12-01T11:00:00Z"
        assert lines[2] == "bob, since 2026-12-01T09:30:00Z, until 2026-12-01T10:30:00Z"
        assert cell.find_elements(By.TAG_NAME, "img") == []
        assert cell.find_elements(By.TAG_NAME, "b") == []
        assert d.find_elements(By.CSS_SELECTOR, "table.frontier img") == []
        assert d.execute_script("return window.__pwned === undefined")
        cells = {c.get_attribute("data-node"): c.text
                 for c in d.find_elements(By.CSS_SELECTOR, "td.holders[data-node]")}
        assert cells["demo/root--h2"].splitlines()[0] == "1 since 2026-12-01T08:00:00Z"
        nobody = {k: v for k, v in cells.items() if k not in ("demo/root", "demo/root--h2")}
        assert nobody and set(nobody.values()) == {"0"}
        assert d.find_element(By.ID, "claims-as-of").text == "as of 2026-12-01T10:00:00Z"

        d.get(base + "targets/demo/nodes/root.html")
        held = d.find_element(By.ID, "live-claims")
        WebDriverWait(d, 20).until(lambda _: "unavailable" not in held.text)
        assert held.text.startswith("Held by: 2 holders, as of 2026-12-01T10:00:00Z:")
        assert EVIL in held.text and "bob, since 2026-12-01T09:30:00Z" in held.text
        assert held.find_elements(By.TAG_NAME, "img") == []
        d.get(base + "targets/demo/nodes/root--h1.html")
        held = d.find_element(By.ID, "live-claims")
        WebDriverWait(d, 20).until(lambda _: "unavailable" not in held.text)
        assert held.text == "Held by: nobody, as of 2026-12-01T10:00:00Z"
        assert d.execute_script("return window.__pwned === undefined")
        assert _csp_errors(d) == []

    port = _port()
    with up.static_server(site, "127.0.0.1", port):  # no service beside the site: a 404
        base = f"http://127.0.0.1:{port}/"
        d.get(base + "targets/demo/nodes/root.html")
        held = d.find_element(By.ID, "live-claims")
        WebDriverWait(d, 20).until(lambda _: "no service answered" in held.text)
        assert "live state unavailable" in held.text
        d.get(base + "frontier/index.html")
        asof = d.find_element(By.ID, "claims-as-of")
        WebDriverWait(d, 20).until(lambda _: "no service answered" in asof.text)
        cells = d.find_elements(By.CSS_SELECTOR, "td.holders[data-node]")
        assert cells and {c.text for c in cells} == {"—"}


def _panel(d: Any) -> Any:
    from selenium.webdriver.common.by import By

    found = d.find_elements(By.ID, "node-panel")
    return found[0] if found else None


def test_clicking_a_statement_opens_its_panel(site: Path, driver: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    d = driver
    port = _port()
    with up.static_server(site, "127.0.0.1", port, _live,
                          csp=header_policy("http://127.0.0.1:9")):
        page = f"http://127.0.0.1:{port}/targets/demo/index.html"
        d.get(page)
        WebDriverWait(d, 20).until(lambda _: d.find_elements(By.CSS_SELECTOR, ".zoom-bar"))
        d.execute_script("window.lemmataDrawing.resize(); window.lemmataDrawing.fit();"
                         " window.lemmataDrawing.center();")
        node = d.find_element(By.CSS_SELECTOR, 'svg.dag a.node[data-node="root"]')
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", node)
        # a drag that starts on the statement pans the drawing and opens nothing
        before = d.execute_script("return window.lemmataDrawing.getPan()")
        rect = node.find_element(By.TAG_NAME, "rect")
        ActionChains(d).click_and_hold(rect).move_by_offset(40, 25).release().perform()
        after = d.execute_script("return window.lemmataDrawing.getPan()")
        assert (after["x"], after["y"]) != (before["x"], before["y"])
        assert _panel(d) is None or not _panel(d).is_displayed()
        assert d.current_url == page
        # a click opens the panel: heading, the typeset claim, status in words, the link
        ActionChains(d).move_to_element(rect).click().perform()
        panel = _panel(d)
        assert panel is not None and panel.is_displayed()
        assert d.current_url == page
        assert panel.get_attribute("role") == "region"
        assert panel.get_attribute("aria-labelledby") == "node-panel-title"
        assert d.find_element(By.ID, "node-panel-title").text == "Main theorem"
        assert d.execute_script("return document.activeElement.id") == "node-panel"
        claim = panel.find_element(By.CLASS_NAME, "node-panel-claim")
        assert claim.find_elements(By.CSS_SELECTOR, ".katex, .claim")
        assert panel.find_element(By.CLASS_NAME, "node-panel-status").text == "Status: open"
        link = panel.find_element(By.CSS_SELECTOR, ".node-panel-link a")
        assert link.get_attribute("href").endswith("/targets/demo/nodes/root.html")
        # Escape closes it and focus goes back to the statement
        d.switch_to.active_element.send_keys(Keys.ESCAPE)
        assert not panel.is_displayed()
        assert d.execute_script("return document.activeElement.getAttribute('data-node')") == "root"
        # the keyboard: Enter and Space on a focused statement open it too
        for key, nid in ((Keys.ENTER, "root--h1"), (Keys.SPACE, "variant-upper")):
            target = d.find_element(By.CSS_SELECTOR, f'svg.dag a.node[data-node="{nid}"]')
            d.execute_script("arguments[0].focus()", target)
            d.switch_to.active_element.send_keys(key)
            assert panel.is_displayed(), nid
            assert d.current_url == page
            assert d.execute_script("return document.activeElement.id") == "node-panel"
            panel.find_element(By.CLASS_NAME, "node-panel-close").click()
            assert not panel.is_displayed()
            assert d.execute_script(
                "return document.activeElement.getAttribute('data-node')") == nid
        # the hostile label is the panel's heading, as text
        target = d.find_element(By.CSS_SELECTOR, 'svg.dag a.node[data-node="variant-upper"]')
        d.execute_script("arguments[0].focus()", target)
        d.switch_to.active_element.send_keys(Keys.ENTER)
        assert d.find_element(By.ID, "node-panel-title").text == EVIL_LABEL
        assert panel.find_elements(By.TAG_NAME, "img") == []
        assert d.execute_script("return window.__pwned === undefined")
        # the link in the panel goes to the statement's page
        panel.find_element(By.CSS_SELECTOR, ".node-panel-link a").click()
        WebDriverWait(d, 20).until(lambda _: d.current_url.endswith("nodes/variant-upper.html"))
        assert _csp_errors(d) == []


def test_a_tap_on_a_statement_opens_its_panel(site: Path, driver: Any) -> None:
    """svg-pan-zoom cancels touchstart, so a tap raises no click: the script opens the
    panel on a touch released where it began, and a touch that moves pans instead."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    d = driver
    port = _port()
    with up.static_server(site, "127.0.0.1", port, _live,
                          csp=header_policy("http://127.0.0.1:9")):
        d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True,
                                                                 "maxTouchPoints": 1})
        page = f"http://127.0.0.1:{port}/targets/demo/index.html"
        d.get(page)
        WebDriverWait(d, 20).until(lambda _: d.find_elements(By.CSS_SELECTOR, ".zoom-bar"))
        d.execute_script("window.lemmataDrawing.resize(); window.lemmataDrawing.fit();"
                         " window.lemmataDrawing.center();")
        node = d.find_element(By.CSS_SELECTOR, 'svg.dag a.node[data-node="root--h1"] rect')
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", node)

        def touch(x: float, y: float, dx: float = 0.0) -> None:
            d.execute_cdp_cmd("Input.dispatchTouchEvent", {
                "type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
            if dx:
                for step in range(1, 6):
                    d.execute_cdp_cmd("Input.dispatchTouchEvent", {
                        "type": "touchMove", "touchPoints": [{"x": x + dx * step / 5, "y": y}]})
            d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd",
                                                           "touchPoints": []})

        box = d.execute_script("const r = arguments[0].getBoundingClientRect();"
                               " return [r.left + r.width / 2, r.top + r.height / 2];", node)
        touch(box[0], box[1], dx=40)
        assert _panel(d) is None or not _panel(d).is_displayed()
        box = d.execute_script("const r = arguments[0].getBoundingClientRect();"
                               " return [r.left + r.width / 2, r.top + r.height / 2];", node)
        touch(box[0], box[1])
        WebDriverWait(d, 10).until(lambda _: _panel(d) is not None and _panel(d).is_displayed())
        assert d.find_element(By.ID, "node-panel-title").text == "Even numbers have P"
        assert d.current_url == page
