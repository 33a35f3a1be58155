"""The gate's cold run judges on the scoped base graph (network/record/read/scoped.py, issue 17)
and gives what the whole graph gives: the same GateOutcome and the same attestation
bytes, over every gate scenario, with a second target beside the scenario's own.

A scoped run that reaches a record the scope left out judges again on the whole graph
(``ScopeExceeded``); these tests also hold that the proof, partial and postmortem runs do
not need to, and rule on what a scoped run does with a broken record elsewhere.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from network.errors import ValidationFailed
from network.gate.run import GateOutcome, commit_date, run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.gate.steps.outcome import attestation_files
from network.record import derive
from network.record.read.loader import load_graph
from network.record.read.scoped import ScopeExceeded, load_scoped, paths_under, scope_of

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import T, base_repo, precheck_raw, scenarios
from standin import RecordedToolchain

from tests.graphs import BUILDER_GATE_KEY, GraphBuilder, git_commit

OTHER = "other"
FALLBACK = "judging on the whole graph"


def _other_target(b: GraphBuilder) -> None:
    """A second target whose records are read across targets (its steward, the clock of
    its merges, its attestations) but whose nodes no judgment of ``demo`` reads."""
    b.target(OTHER)
    b.steward(OTHER, "steve")
    b.node(OTHER, "root", statement="theorem Other.main : True := by\n  sorry\n",
           declaration="Other.main")
    b.node(OTHER, "lemma", statement="theorem Other.lemma : True := by\n  sorry\n",
           declaration="Other.lemma", proof="theorem Other.lemma : True := trivial\n")
    b.merge([f"targets/{OTHER}/nodes/lemma/Proof.lean"], date="2026-03-01",
            artifact_kind="proof")


def _build(root: Path, name: str, *, other: bool = True) -> tuple[GraphBuilder, str, str]:
    sc = scenarios()[name]
    b, base = base_repo(root, **sc.base)
    if other:
        _other_target(b)
        base = git_commit(b.root, "base with another target")
    for path, data in sc.files.items():
        if data is None:
            b.remove(path)
        else:
            b.write(path, data)
    return b, base, git_commit(b.root, f"pull request: {name}")


def _both(root: Path, name: str, caplog: pytest.LogCaptureFixture
          ) -> tuple[GateOutcome, GateOutcome, bool]:
    """(whole-graph outcome, cold scoped outcome, whether the cold run fell back)."""
    sc = scenarios()[name]
    b, base, head = _build(root / "g", name)
    raw = precheck_raw(b.root, base, head)
    kw: dict[str, Any] = {"toolchain": RecordedToolchain, "precheck_raw": raw,
                          "submitter": sc.submitter, "review": sc.review,
                          "gate_key": BUILDER_GATE_KEY}
    full = run_gate(b.root, base, head, sandbox=Sandbox(),
                    base_graph=load_graph(b.root, commit=base), **kw)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="network.gate.run"):
        cold = run_gate(b.root, base, head, sandbox=Sandbox(), **kw)
    return full, cold, any(FALLBACK in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("name", sorted(scenarios()))
def test_the_scoped_cold_run_gives_the_whole_graphs_outcome(
        tmp_path: Path, name: str, caplog: pytest.LogCaptureFixture) -> None:
    full, cold, _fell_back = _both(tmp_path, name, caplog)
    assert cold == full
    assert attestation_files(cold) == attestation_files(full)


@pytest.mark.parametrize("name", ["proof-ok", "partial-ok", "postmortem", "sorry",
                                  "undeclared", "root-proof", "close-p"])
def test_proofs_partials_and_postmortems_stay_in_scope(
        tmp_path: Path, name: str, caplog: pytest.LogCaptureFixture) -> None:
    full, cold, fell_back = _both(tmp_path, name, caplog)
    assert not fell_back, "the scoped graph should hold everything this run reads"
    assert cold == full


def test_the_scoped_graph_leaves_other_nodes_unread(tmp_path: Path) -> None:
    b, base, _head = _build(tmp_path / "g", "proof-ok")
    g = load_scoped(b.root, base, frozenset({T}))
    assert g is not None and g.scope is not None
    whole = load_graph(b.root, commit=base)
    assert sorted(g.targets) == sorted(whole.targets)
    assert g.targets[T].nodes == whole.targets[T].nodes
    assert g.targets[OTHER].stewards == whole.targets[OTHER].stewards
    with pytest.raises(ScopeExceeded):
        len(g.targets[OTHER].nodes)
    with pytest.raises(ScopeExceeded):
        list(g.files)
    # one path at a time, the listing is the whole one
    for p in whole.files:
        assert p in g.files and g.files[p] == whole.files[p]
    assert f"targets/{OTHER}/nodes/nope/META.yaml" not in g.files
    assert paths_under(g, f"targets/{T}/nodes/root/") == paths_under(
        whole, f"targets/{T}/nodes/root/")
    with pytest.raises(ScopeExceeded):
        paths_under(g, f"targets/{OTHER}/nodes/root/")
    # the clock and the judgments of demo read as on the whole graph
    assert derive.now(g) == derive.now(whole)
    for nid in whole.targets[T].nodes:
        assert derive.node_status(g, T, nid) == derive.node_status(whole, T, nid)
    assert derive.stewards_of(g, OTHER) == derive.stewards_of(whole, OTHER)
    # the attestations of the other target's nodes were not read
    assert len(g.attestations) < len(whole.attestations)
    assert g.scope.skipped_logs


def test_a_role_signed_record_in_another_targets_nodes_loads_the_whole_graph(
        tmp_path: Path) -> None:
    b, base = base_repo(tmp_path / "g")
    _other_target(b)
    b.write(f"targets/{OTHER}/nodes/root/shelving/20260301T000000Z-curator.yaml",
            b"schema: shelving/v1\n")
    base = git_commit(b.root, "a shelving record in other")
    assert load_scoped(b.root, base, frozenset({T})) is None


def test_scope_of_names_the_targets_or_none() -> None:
    assert scope_of([f"targets/{T}/nodes/root/Proof.lean", "targets/x/target.yaml"]) == {
        T, "x"}
    assert scope_of([f"targets/{T}/nodes/root/Proof.lean", "identities/a.yaml"]) is None
    assert scope_of(["targets/index.json"]) is None
    assert scope_of([]) is None


def test_a_broken_record_in_an_untouched_target_does_not_refuse_the_pull_request(
        tmp_path: Path) -> None:
    """The ruling (network/record/read/scoped.py, run_gate's docstring): main is validated
    whole by the post-merge job; a pull request is judged against its own targets and the
    shared records, so an invalid META in another target's nodes is not read."""
    sc = scenarios()["proof-ok"]
    b, broken_base = base_repo(tmp_path / "g")
    _other_target(b)
    b.write(f"targets/{OTHER}/nodes/root/META.yaml", b"schema: meta/v1\nid: 7\n")
    broken_base = git_commit(b.root, "base with a broken META in other")
    for path, data in sc.files.items():
        assert data is not None
        b.write(path, data)
    head = git_commit(b.root, "pull request on the broken base")
    with pytest.raises(ValidationFailed):
        load_graph(b.root, commit=broken_base)
    # the same artifact's precheck, made on an intact copy (the helper reads it whole)
    intact, base, first_head = _build(tmp_path / "intact", "proof-ok")
    raw = precheck_raw(intact.root, base, first_head, date=commit_date(b.root, head))
    out = run_gate(b.root, broken_base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=raw, submitter=sc.submitter, gate_key=BUILDER_GATE_KEY)
    assert out.verdict == "pass"


def test_a_broken_record_in_the_scope_is_validation_failed_as_before(tmp_path: Path) -> None:
    sc = scenarios()["proof-ok"]
    b, _base, _head = _build(tmp_path / "g", "proof-ok")
    b.write(f"targets/{T}/nodes/mid/META.yaml", b"schema: meta/v1\nid: 7\n")
    broken_base = git_commit(b.root, "break demo")
    for path, data in sc.files.items():
        assert data is not None
        b.write(path, data)
    head = git_commit(b.root, "pull request on the broken base")
    with pytest.raises(ValidationFailed) as whole:
        load_graph(b.root, commit=broken_base)
    with pytest.raises(ValidationFailed) as scoped:
        load_scoped(b.root, broken_base, frozenset({T}))
    assert scoped.value.problems == whole.value.problems
    with pytest.raises(ValidationFailed):
        run_gate(b.root, broken_base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                 precheck_raw=None, submitter=sc.submitter)


def test_the_record_cache_gives_the_same_scoped_graph_without_reading_the_logs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from network.record.read import source as S

    b, base, _head = _build(tmp_path / "g", "proof-ok")
    plain = load_scoped(b.root, base, frozenset({T}))
    cold = load_scoped(b.root, base, frozenset({T}), cache=tmp_path / "cache")
    reads: list[str] = []
    real = S.CommitSource.read

    def counting(self: S.CommitSource, path: str) -> bytes:
        reads.append(path)
        return real(self, path)
    monkeypatch.setattr(S.CommitSource, "read", counting)
    warm = load_scoped(b.root, base, frozenset({T}), cache=tmp_path / "cache")
    assert plain is not None and cold is not None and warm is not None
    for g in (cold, warm):
        assert g.attestations == plain.attestations and g.merges == plain.merges
        assert g.targets[T] == plain.targets[T] and g.scope == plain.scope
    assert not [p for p in reads if p.startswith(("attestations/", "log/"))]


@pytest.mark.parametrize(("path", "text"), [
    ("attestations/999999.json", b'{"schema": "attestation/v1", "target": ["demo"]}'),
    ("log/merges/999999.json", (b'{"schema": "merge/v1", "seq": 999999, "merge_commit": {},'
                               b' "attestation": [1], "artifacts": [{"a": 1}, 7]}')),
    ("attestations/999998.json", b"[1, 2]"),
    ("attestations/999997.json", b"not json"),
])
def test_a_hostile_log_file_is_read_and_refused_as_the_whole_load_refuses_it(
        tmp_path: Path, path: str, text: bytes) -> None:
    b, _base, _head = _build(tmp_path / "g", "proof-ok")
    b.write(path, text)
    base = git_commit(b.root, "a hostile log file")
    with pytest.raises(ValidationFailed) as whole:
        load_graph(b.root, commit=base)
    for cache in (None, tmp_path / "cache", tmp_path / "cache"):
        with pytest.raises(ValidationFailed) as scoped:
            load_scoped(b.root, base, frozenset({T}), cache=cache)
        assert [p for p in scoped.value.problems if p.path == path] == [
            p for p in whole.value.problems if p.path == path]
