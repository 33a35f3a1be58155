"""approach/v2: D-14 mechanism 3's fields (route, outcome in D-13's vocabulary,
pinned_mathlib_sha, model_and_tooling, date) beside approach/v1 records, staleness derived
against the target's pinned Mathlib, and the gate's step 2 taking both versions (D-34)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from network.errors import ValidationFailed
from network.gate.lean.toolchain import MissingToolchain
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.record import derive
from network.record import models as m
from network.record.read.loader import load_graph
from network.record.validate import validate_graph
from tests.graphs import DEFAULT_TOOLCHAIN, GraphBuilder, git_commit

T = "t1"
PIN = "a" * 40
OTHER = "b" * 40


def _v2(who: str = "alice", pinned: str = PIN, **over: Any) -> dict[str, Any]:
    return {"schema": "approach/v2", "target": T, "author": who,
            "date": "2026-02-01T00:00:00Z", "route": "a sieve over the primes",
            "outcome": "blocked", "pinned_mathlib_sha": pinned,
            "model_and_tooling": {"method": "agent", "models": ["some-model 1"],
                                  "framework": "a harness"}, **over}


def _graph(tmp_path: Path, *, pinned: bool = True) -> GraphBuilder:
    b = GraphBuilder(tmp_path / "g").base()
    b.target(T)
    if pinned:
        b.write_json(f"targets/{T}/gate-spec.json", {
            "schema": "gate-spec/v1", "lean_toolchain": DEFAULT_TOOLCHAIN,
            "mathlib": {"name": "mathlib", "url": "https://github.com/leanprover-community/"
                        "mathlib4", "rev": PIN}})
    b.node(T, "root")
    return b


def test_both_versions_load_and_staleness_reads_the_pinned_mathlib(tmp_path: Path) -> None:
    b = _graph(tmp_path)
    b.approach(T, "20260101T000000Z", "carol", "Split by parity", state="abandoned")
    b.write_yaml(f"targets/{T}/approaches/20260201T000000Z-alice.yaml", _v2())
    b.write_yaml(f"targets/{T}/approaches/20260301T000000Z-bob.yaml",
                 _v2("bob", OTHER, date="2026-03-01T00:00:00Z", outcome="refuted-route"))
    assert validate_graph(b.root, check_ssh=False) == []
    g = load_graph(b.root)
    kinds = [type(rf.record) for rf in g.targets[T].approaches]
    assert sorted(k.__name__ for k in kinds) == ["Approach", "ApproachV2", "ApproachV2"]
    views = derive.approach_views(g, T)
    assert [(v["author"], v["schema"], v["stale"]) for v in views] == [
        ("carol", "approach/v1", None), ("alice", "approach/v2", False),
        ("bob", "approach/v2", True)]
    assert views[0]["title"] == "Split by parity" and views[0]["route"] is None
    assert views[2]["outcome"] == "refuted-route" and views[2]["target_mathlib"] == PIN
    assert views[1]["model_and_tooling"]["models"] == ["some-model 1"]
    assert derive.graph_view(g, T)["approaches"] == views


def test_without_a_mathlib_pin_every_v2_record_is_stale(tmp_path: Path) -> None:
    b = _graph(tmp_path, pinned=False)
    b.write_yaml(f"targets/{T}/approaches/20260201T000000Z-alice.yaml", _v2())
    (view,) = derive.approach_views(load_graph(b.root), T)
    assert view["stale"] is True and view["target_mathlib"] is None


def test_a_withdrawn_approach_record_is_not_shown(tmp_path: Path) -> None:
    b = _graph(tmp_path)
    path = b.write_yaml(f"targets/{T}/approaches/20260201T000000Z-alice.yaml", _v2())
    b.withdrawal(T, None, "20260202T000000Z", "curator", path)
    assert derive.approach_views(load_graph(b.root), T) == []


@pytest.mark.parametrize(("obj", "code", "field"), [
    (_v2(outcome="refuted"), "invalid-record", "outcome"),  # not D-13's vocabulary
    ({k: v for k, v in _v2().items() if k != "pinned_mathlib_sha"}, "invalid-record",
     "pinned_mathlib_sha"),
    (_v2(pinned="main"), "invalid-record", "pinned_mathlib_sha"),  # a branch, not a SHA
    (_v2(model_and_tooling={"method": "agent", "secret": 1}), "invalid-record",
     "model_and_tooling.secret"),
    (_v2(schema="approach/v3"), "unknown-schema", "schema"),
    (_v2(schema="d13/v1"), "invalid-record", "schema"),  # another kind at this place
    (_v2(title="v1's field"), "invalid-record", "title"),  # v2 is not v1 plus fields
])
def test_a_bad_v2_record_is_refused(tmp_path: Path, obj: dict[str, Any], code: str,
                                    field: str) -> None:
    b = _graph(tmp_path)
    path = b.write_yaml(f"targets/{T}/approaches/20260201T000000Z-alice.yaml", obj)
    with pytest.raises(ValidationFailed) as exc:
        load_graph(b.root)
    assert (code, path, field) in {(p.code, p.path, p.field) for p in exc.value.problems}


@pytest.mark.parametrize("who", ["alice", "mallory"])
def test_the_gate_takes_a_v2_record_bound_to_its_submitter(tmp_path: Path, who: str) -> None:
    b = _graph(tmp_path)
    base = git_commit(b.root, "base")
    b.write_yaml(f"targets/{T}/approaches/20260201T000000Z-alice.yaml", _v2())
    head = git_commit(b.root, "approach/v2")
    out = run_gate(b.root, base, head, toolchain=MissingToolchain, sandbox=Sandbox(),
                   submitter=who)
    if who == "alice":
        assert out.verdict == "pass", out.to_dict()
        assert out.attestations[0].artifact_kind == "approach"
    else:
        assert out.verdict == "fail"
        codes = {d.code for r in out.runs for s in r.steps for d in s.diagnostics}
        assert "actor-not-submitter" in codes, codes


def test_v1_records_keep_loading_and_v1_is_unchanged() -> None:
    assert m.Approach.SCHEMA_KIND == "approach/v1" and "title" in m.Approach.model_fields
    assert m.SAME_PLACE["approach/v1"] == (m.Approach, m.ApproachV2)
    assert set(m.ApproachV2.model_fields) >= {"route", "outcome", "pinned_mathlib_sha",
                                              "model_and_tooling", "date"}


def test_the_target_page_shows_both_versions_and_the_stale_flag(tmp_path: Path) -> None:
    from tests.site_support import build, require_dot

    require_dot()
    b = _graph(tmp_path)
    b.approach(T, "20260101T000000Z", "carol", "Split by parity", state="abandoned")
    b.write_yaml(f"targets/{T}/approaches/20260201T000000Z-alice.yaml", _v2())
    b.write_yaml(f"targets/{T}/approaches/20260301T000000Z-bob.yaml",
                 _v2("bob", OTHER, date="2026-03-01T00:00:00Z", route="a second moment"))
    sha = git_commit(b.root, "approaches")
    build(b.root, tmp_path / "site", commit=sha)
    page = (tmp_path / "site" / f"targets/{T}/index.html").read_text(encoding="utf-8")
    section = page[page.index('id="approaches-heading"'):]
    section = section[:section.index("</section>")]
    assert "Split by parity" in section and "(no Mathlib pin recorded)" in section
    alice = section[section.index("a sieve over the primes"):]
    assert "stale" not in alice[:alice.index("</li>")]
    bob = section[section.index("a second moment"):]
    assert f"<strong>stale</strong>: recorded against Mathlib <code>{OTHER[:12]}</code>" in bob
