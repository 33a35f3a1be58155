"""D-33's K/N evidence gate on dormancy declarations and D-13's missing-library threshold
(issue 18), on real git repositories through ``lemmata gate run``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from network.record import dormancy
from network.record.read.loader import load_graph
from tests.graphs import GraphBuilder, git_commit
from tests.test_gate_actors import gate

T = "demo"


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[GraphBuilder, str]:
    """demo (curator ``curator``) with root and lemma, its first merge on 2026-01-02 and
    a refuted-route postmortem on lemma dated 2026-02-01 (a progress artifact)."""
    b = GraphBuilder(tmp_path / "g").base()
    b.target(T)
    b.node(T, "root")
    b.node(T, "lemma")
    gloss = b.gloss(T, "root", "20260102T000000Z", "alice")
    b.merge([gloss], date="2026-01-02", node="root", artifact_kind="gloss")
    pm = b.postmortem(T, "lemma", "20260201T000000Z", "alice")
    b.merge([pm], date="2026-02-01", node="lemma", artifact_kind="postmortem")
    return b, git_commit(b.root, "base")


def _series(b: GraphBuilder, date: str) -> dict[str, Any]:
    return {k: v for k, v in dormancy.dormancy_series(load_graph(b.root), T, date).items()
            if k != "meets"}


def test_the_series_reads_policy_and_progress(repo: tuple[GraphBuilder, str]) -> None:
    b, _ = repo
    s = dormancy.dormancy_series(load_graph(b.root), T, "2026-03-01")
    assert s["k_attempts"] == 3 and s["n_days"] == 90  # policy.json's pilot defaults
    assert s["last_progress"] == "2026-02-01"  # the refuted-route postmortem
    assert s["days_since_progress"] == 28
    assert s["ready"] == 2 and s["ready_below_k"] == 2 and s["meets"] is False
    later = dormancy.dormancy_series(load_graph(b.root), T, "2026-05-02")
    assert later["days_since_progress"] == 90 and later["meets"] is True
    before = dormancy.dormancy_series(load_graph(b.root), T, "2026-01-20")
    assert before["last_progress"] is None and before["days_since_progress"] == 18


def test_a_declaration_without_its_series_is_refused(repo: tuple[GraphBuilder, str],
                                                     tmp_path: Path) -> None:
    b, base = repo
    b.target_status(T, "dormant", "2026-06-01")
    assert gate(b, base, "curator", tmp_path / "a") == (1, ["dormancy-series-missing"])


def test_a_declaration_within_n_days_and_below_k_is_refused(
        repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    b, base = repo
    b.target_status(T, "dormant", "2026-03-01", starvation_series=_series(b, "2026-03-01"))
    assert gate(b, base, "curator", tmp_path / "a") == (1, ["dormancy-evidence-insufficient"])


def test_a_series_that_lies_is_refused(repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    """The attack: name a series that would pass (long idle, nothing below K) on a target
    that had progress last month; the gate derives the series itself."""
    b, base = repo
    lie = {**_series(b, "2026-03-01"), "days_since_progress": 400, "ready_below_k": 0,
           "last_progress": None}
    b.target_status(T, "dormant", "2026-03-01", starvation_series=lie)
    code, codes = gate(b, base, "curator", tmp_path / "a")
    assert code == 1
    assert sorted(codes) == ["dormancy-evidence-insufficient", "dormancy-series-mismatch"]
    partial = {k: v for k, v in _series(b, "2026-06-01").items() if k != "ready"}
    b.target_status(T, "dormant", "2026-06-01", starvation_series=partial)
    b.remove(f"targets/{T}/status/2026-03-01-1.yaml")
    assert gate(b, base, "curator", tmp_path / "b") == (1, ["dormancy-series-missing"])


def test_no_reasoning_is_refused(repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    b, base = repo
    b.target_status(T, "dormant", "2026-06-01", starvation_series=_series(b, "2026-06-01"),
                    reasoning="   ")
    assert gate(b, base, "curator", tmp_path / "a") == (1, ["dormancy-reasoning-empty"])


def test_n_days_without_progress_with_the_series_passes(
        repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    b, base = repo
    b.target_status(T, "dormant", "2026-06-01", starvation_series=_series(b, "2026-06-01"))
    assert gate(b, base, "curator", tmp_path / "a") == (0, [])


def test_k_attempts_on_every_ready_node_passes_despite_recent_progress(
        tmp_path: Path) -> None:
    """(a)'s other branch: every ready node carries K attempts (postmortems that refute
    nothing are attempts, not progress), so recent progress does not block it."""
    b = GraphBuilder(tmp_path / "g").base(dormancy_k_attempts=2)
    b.target(T)
    b.node(T, "root")
    paths = [b.postmortem(T, "root", f"2026020{i}T000000Z", "alice", outcome="exhausted",
                          failure_class="timeout-blowup") for i in (1, 2)]
    b.merge(paths, date="2026-02-03", node="root", artifact_kind="postmortem")
    base = git_commit(b.root, "base")
    s = _series(b, "2026-02-10")
    assert s["k_attempts"] == 2 and s["ready_below_k"] == 0
    b.target_status(T, "dormant", "2026-02-10", starvation_series=s)
    assert gate(b, base, "curator", tmp_path / "a") == (0, [])


def test_active_declarations_need_no_series(repo: tuple[GraphBuilder, str],
                                            tmp_path: Path) -> None:
    b, base = repo
    b.target_status(T, "active", "2026-03-01")
    assert gate(b, base, "curator", tmp_path / "a") == (0, [])


# --- D-13's missing-library threshold -----------------------------------------------------


def test_missing_library_threshold_surfaces_a_curator_item(tmp_path: Path) -> None:
    b = GraphBuilder(tmp_path / "g").base(missing_library_threshold=2)
    b.target(T)
    b.node(T, "root")
    b.node(T, "lemma")
    one = b.postmortem(T, "root", "20260201T000000Z", "alice", failure_class="missing-library",
                       outcome="blocked")
    b.merge([one], date="2026-02-01", node="root", artifact_kind="postmortem")
    git_commit(b.root, "one")
    assert dormancy.missing_library_items(load_graph(b.root)) == []  # below threshold
    two = b.postmortem(T, "root", "20260202T000000Z", "bob", failure_class="missing-library",
                       outcome="blocked")
    b.merge([two], date="2026-02-02", node="root", artifact_kind="postmortem")
    git_commit(b.root, "two")
    items = dormancy.missing_library_items(load_graph(b.root))
    assert items == [{"target": T, "node": "root", "count": 2, "threshold": 2,
                      "curators": ["curator"]}]


def test_the_index_and_me_carry_the_curator_items(tmp_path: Path) -> None:
    """The product a curator's page reads: the index row names the D-33 series at "now"
    and the D-13 items; GET /me lists the items to a curator of the target only."""
    from network.api.people import me
    from network.record.products.products import index_json

    b = GraphBuilder(tmp_path / "g").base(missing_library_threshold=1)
    b.target(T)
    b.node(T, "root")
    pm = b.postmortem(T, "root", "20260201T000000Z", "alice", failure_class="missing-library",
                      outcome="blocked")
    b.merge([pm], date="2026-02-01", node="root", artifact_kind="postmortem")
    git_commit(b.root, "one")
    g = load_graph(b.root)
    [row] = index_json(g)["targets"]
    assert row["missing_library"] == [{"node": "root", "count": 1, "threshold": 1,
                                       "curators": ["curator"]}]
    assert row["dormancy"]["k_attempts"] == 3 and row["dormancy"]["ready"] == 1
    assert row["dormancy"]["meets"] is False
    [item] = me._missing_library(g, {"curator": ["*"], "steward": []})
    assert (item["target"], item["node"], item["count"]) == (T, "root", 1)
    assert me._missing_library(g, {"curator": [], "steward": [T]}) == []


def test_a_back_dated_or_future_declaration_is_refused(repo: tuple[GraphBuilder, str],
                                                       tmp_path: Path) -> None:
    """The attacks on the date the series is read at: dated before the last merge (it
    would read the series before progress that has landed since), or after its own commit
    (it would count days that have not passed)."""
    b, base = repo
    b.target_status(T, "dormant", "2026-01-15", starvation_series=_series(b, "2026-01-15"))
    assert gate(b, base, "curator", tmp_path / "a") == (1, ["dormancy-date-out-of-range"])
    b.remove(f"targets/{T}/status/2026-01-15-1.yaml")
    b.target_status(T, "dormant", "2099-01-01", starvation_series=_series(b, "2099-01-01"))
    assert gate(b, base, "curator", tmp_path / "b") == (1, ["dormancy-date-out-of-range"])
