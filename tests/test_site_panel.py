"""The target page shows the panel, its motions and its write-ups (D-32 v3.34, D-35
v3.34; issue 13), from the target's row of targets/index.json: the stewards in force, each
motion with its state (open with the date its window closes, passed, failed, void) and its
votes counted, and each write-up with its stage, the one shown first. No script; the pages
validate (Nu Html Checker) where the validator is installed."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

from network.record import panel
from network.record.products import products
from network.record.read.loader import load_graph
from tests.graphs import GraphBuilder, _ts_date
from tests.site_support import build, require_dot, require_tool, vnu_jar
from tests.test_panel import T, merged, motion, vote, writeup


def _graph(root: Path) -> tuple[GraphBuilder, dict[str, str]]:
    """demo with stewards steve, sam and sara: a passed, a failed, a void and an open
    motion; a steward-signed write-up and a drafted one. The record's clock ends on
    2026-03-25."""
    b = GraphBuilder(root).base()
    b.target(T)
    b.steward(T, "sam")
    b.steward(T, "sara")
    b.node(T, "root")
    paths: dict[str, str] = {}
    paths["passed"], _ = motion(b, "20260201T000000Z", "steve", invitee="eve")
    paths["failed"], _ = motion(b, "20260202T000000Z", "sam", invitee="bob")
    paths["void"], _ = motion(b, "20260203T000000Z", "mallory", invitee="mal")
    for key in ("passed", "failed", "void"):
        merged(b, paths[key], _ts_date(Path(paths[key]).name[:16]), "motion")
    for ts, who, on, v in (("20260204T000000Z", "steve", "passed", "yes"),
                           ("20260204T000001Z", "sam", "passed", "yes"),
                           ("20260205T000000Z", "sam", "failed", "yes"),
                           ("20260205T000001Z", "sara", "failed", "no"),
                           ("20260205T000002Z", "steve", "failed", "no")):
        vp, _ = vote(b, ts, who, paths[on], v)
        merged(b, vp, _ts_date(ts), "vote")
    wp, _ = writeup(b, "20260206T000000Z", "alice", "drafted", title="On demo",
                    url="https://example.org/demo.pdf")
    writeup(b, "20260207T000000Z", "steve", "signed", wp)
    notes, _ = writeup(b, "20260208T000000Z", "bob", "drafted", title="Notes on demo")
    paths["writeup"], paths["notes"] = wp, notes
    paths["open"], _ = motion(b, "20260320T000000Z", "sara", kind="verify-writeup",
                              invitee=None, subject=wp)
    merged(b, paths["open"], "2026-03-20T00:00:00Z", "motion")
    b.merge_record([f"targets/{T}/nodes/root/Statement.lean"], "2026-03-25T00:00:00Z")
    return b, paths


def _row(page: str, row_id: str) -> str:
    m = re.search(rf'<tr id="{row_id}"[^>]*>(.*?)</tr>', page, re.DOTALL)
    assert m, row_id
    return html.unescape(re.sub(r"<[^>]+>", "", m.group(1)))


def test_the_target_page_shows_the_panel_motions_and_writeups(tmp_path: Path) -> None:
    require_dot()
    b, paths = _graph(tmp_path / "graph")
    g = load_graph(b.root)
    row = next(r for r in products.index_json(g)["targets"] if r["id"] == T)
    states = {mo["path"]: mo["state"] for mo in row["motions"]}
    assert [states[paths[k]] for k in ("passed", "failed", "void", "open")] == \
        ["passed", "failed", "void", "open"]  # the derivation the page shows
    build(b.root, tmp_path / "site")
    page = (tmp_path / "site" / "targets" / T / "index.html").read_text()
    assert "<script>" not in page and "onclick" not in page
    members = re.search(r'<p id="panel-members">(.*?)</p>', page, re.DOTALL)
    assert members and html.unescape(re.sub(r"<[^>]+>", "", members.group(1))) == \
        "In force: sam self-admitted, sara self-admitted, steve self-admitted."
    assert members.group(1).count('class="self-admitted"') == 3  # the marks stay (v3.33)
    order = [mo["path"] for mo in panel.motions(g, T)]
    cells = {k: _row(page, f"motion-{order.index(paths[k]) + 1}") for k in paths
             if k in ("passed", "failed", "void", "open")}
    assert "passed 2026-02-15" in cells["passed"] and "2 yes, 0 no" in cells["passed"]
    assert "invite eve" in cells["passed"] and "steve yes; sam yes" in cells["passed"]
    assert "failed 2026-02-16" in cells["failed"] and "1 yes, 2 no" in cells["failed"]
    assert "void:" in cells["void"] and "by mallory" in cells["void"]
    assert "open until 2026-04-03" in cells["open"] and "0 yes, 0 no" in cells["open"]
    assert 'datetime="2026-04-03T00:00:00Z"' in page
    shown, other = _row(page, "writeup-1"), _row(page, "writeup-2")
    assert "On demo (shown)" in shown and "steward-signed" in shown
    assert "alice, steve; signed by steve" in shown
    assert "Notes on demo" in other and "drafted" in other and "(shown)" not in other
    assert '<a href="https://example.org/demo.pdf">On demo</a>' in page
    for state in ("open", "passed", "failed", "void"):
        assert page.count(f'class="motion-{state}"') == 1
    assert "more than 50% of the votes counted" in page and "at least 2 votes" in page


def test_a_target_without_panel_records_says_so(tmp_path: Path) -> None:
    require_dot()
    b = GraphBuilder(tmp_path / "graph").base()
    b.target("lonely")
    b.node("lonely", "root")
    build(b.root, tmp_path / "site")
    page = (tmp_path / "site" / "targets" / "lonely" / "index.html").read_text()
    assert "No motion has been opened on this target." in page
    assert "No write-up has been opened on this target." in page


def test_the_panel_section_validates(tmp_path: Path) -> None:
    require_dot()
    jar = vnu_jar()
    require_tool("the Nu Html Checker (vnu.jar)", jar)
    require_tool("java", shutil.which("java"))
    b, _ = _graph(tmp_path / "graph")
    build(b.root, tmp_path / "site", service_url="http://127.0.0.1:8000")
    page = tmp_path / "site" / "targets" / T / "index.html"
    res = subprocess.run(["java", "-jar", str(jar), "--format", "text", str(page)],
                         capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0, res.stdout + res.stderr

