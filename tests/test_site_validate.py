"""Every page of a built site is valid HTML, by the Nu Html Checker (vnu.jar, the W3C's
validator, npm package vnu-jar run with Java), and no internal link is broken (D-36)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from network.site.linkcheck import check_links
from tests.site_support import REPO, build, require_dot, require_tool, vnu_jar
from tests.sitegraph import build_rich_graph


def test_html_validates_and_links_resolve(tmp_path: Path) -> None:
    require_dot()
    jar = vnu_jar()
    require_tool("the Nu Html Checker (vnu.jar)", jar)
    require_tool("java", shutil.which("java"))
    graph = tmp_path / "graph"
    build_rich_graph(graph, commit=False)
    build(graph, tmp_path / "rich", service_url="http://127.0.0.1:8000")  # with the controls
    build(REPO / "graph", tmp_path / "real")
    for out in (tmp_path / "rich", tmp_path / "real"):
        assert check_links(out) == []
    res = subprocess.run(["java", "-jar", str(jar), "--skip-non-html", "--format", "text",
                          str(tmp_path / "rich"), str(tmp_path / "real")],
                         capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "error" not in (res.stdout + res.stderr).lower().replace("no errors found", "")


def test_link_checker_finds_broken_links(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="a/missing.html">x</a><a href="#nowhere">y</a><a href="https://x.org/">z</a>'
        '<p id="here"><a href="#here">ok</a></p>', encoding="utf-8")
    broken = check_links(tmp_path)
    assert [(b.link, b.reason) for b in broken] == [
        ("a/missing.html", "no such file"), ("#nowhere", "no such id on the page")]
