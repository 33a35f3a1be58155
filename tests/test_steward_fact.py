"""One steward fact (issue 40): a target page's steward list and its panel come from one
derivation and agree (D-32 v3.33/v3.34, D-36).

On the sample graph's erdos-1094, a steward who joined through the steward form (a
``steward/v4`` act signed by the approval key, merged) was listed under "Stewards" as
self-admitted while the panel said "No steward stands on this target's panel": the panel
read only ``steward/v3`` records. Here both places are read off one built page, with the
steward in force and after the step-down.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from network.record import derive, panel
from network.record import models as m
from network.record.read.loader import Graph, load_graph
from tests.graphs import GraphBuilder
from tests.site_support import REPO, build, require_dot

T = "erdos-1094"
JOINED = "2026-10-20T00:00:00Z"
STEPPED_DOWN = "2026-10-22T00:00:00Z"


def _act(b: GraphBuilder, action: str, date: str) -> str:
    """A steward/v4 act of alice on erdos-1094, signed by the approval key for her (as
    ``POST /stewards`` files it), merged on ``date`` (the merge log dates it, ruling 2)."""
    rec: dict[str, Any] = {"schema": "steward/v4", "pseudonym": "alice", "target": T,
                           "action": action, "date": date}
    if action == "join":
        rec.update(real_name="Alice Verifier", affiliation="Somewhere University",
                   commitment="I will read and write up whatever closes here.",
                   admitted_by="self")
    ts = date.replace("-", "").replace(":", "")
    path = b.write_yaml(f"targets/{T}/steward-acts/{ts}-alice.yaml",
                        b.signed(m.StewardAct, rec, "alice"))
    b.merge([path], date=date, target=T, node="root", artifact_kind="steward-act")
    return path


@pytest.fixture()
def sample(tmp_path: Path) -> GraphBuilder:
    """The repository's graph/, its keys published, alice self-admitted on erdos-1094."""
    root = tmp_path / "graph"
    shutil.copytree(REPO / "graph", root)
    b = GraphBuilder(root)
    b.publish_keys()
    _act(b, "join", JOINED)
    return b


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def _page_places(out: Path) -> tuple[str, str]:
    """(the "Stewards" row, the panel's members paragraph) of erdos-1094's page, as text."""
    page = (out / "targets" / T / "index.html").read_text(encoding="utf-8")
    row = re.search(r'<th scope="row">Stewards</th><td>(.*?)</td>', page, re.DOTALL)
    members = re.search(r'<p id="panel-members">(.*?)</p>', page, re.DOTALL)
    assert row and members, "the target page lost one of its two steward places"
    return _text(row.group(1)), _text(members.group(1))


def _derived(g: Graph) -> tuple[list[str], list[str]]:
    return ([s.pseudonym for s in derive.panel_of(g, T)],
            list(panel.target_panel(g, T)["panel"]["members"]))


def test_a_v4_steward_is_on_the_panel_the_page_and_the_product_show(
        sample: GraphBuilder, tmp_path: Path) -> None:
    require_dot()
    g = load_graph(sample.root)
    assert derive.now(g) == JOINED  # the record has a clock: the panel is read at it
    assert _derived(g) == (["alice"], ["alice"])
    assert panel.panel_at(g, T, JOINED) == ["alice"]  # a v4 join counts for motions too
    assert panel.may_open(g, T, "alice", JOINED)
    build(sample.root, tmp_path / "site")
    stewards, members = _page_places(tmp_path / "site")
    assert "Alice Verifier (alice, Somewhere University)" in stewards
    assert "self-admitted" in stewards
    assert members == "In force: alice self-admitted."


def test_after_the_step_down_both_places_say_none(sample: GraphBuilder,
                                                  tmp_path: Path) -> None:
    require_dot()
    _act(sample, "step-down", STEPPED_DOWN)
    g = load_graph(sample.root)
    assert _derived(g) == ([], [])
    assert panel.panel_at(g, T, JOINED) == ["alice"]  # as it stood on the join's date
    assert panel.panel_at(g, T, STEPPED_DOWN) == []
    build(sample.root, tmp_path / "site")
    stewards, members = _page_places(tmp_path / "site")
    assert stewards == "none"
    assert members == "No steward stands on this target's panel."


def test_the_sample_graph_as_committed_agrees_with_itself() -> None:
    """No steward on any target of graph/ is listed in one place and not the other."""
    g = load_graph(REPO / "graph")
    for tid in g.targets:
        listed = [s.pseudonym for s in derive.panel_of(g, tid)]
        members = list(panel.target_panel(g, tid)["panel"]["members"])
        assert listed == members, tid
