"""The starting graph under graph/: what it holds, and what it must never claim.

The shipped graph is real content, not a fixture: three targets (the tutorial, one
calibration target, one open problem), each pinned to a real toolchain and Mathlib
commit. Nothing in it may claim a gate run that did not happen (no attestation, proof,
ledger line, merge record or fidelity grade), and the open problem has no invented
steward (Foundation ruling 13, D-6 v3.17).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from network.record import models as m
from network.record.read.loader import Graph, load_graph, sha256_hex

GRAPH = Path(__file__).resolve().parent.parent / "graph"
SHA40 = re.compile(r"^[0-9a-f]{40}$")


@pytest.fixture(scope="module")
def graph() -> Graph:
    return load_graph(GRAPH)


FC_COMMIT = "488aade228ec37880b8fec178c173c07d279bb53"


def test_the_sample_targets(graph: Graph) -> None:
    """Three hand-written targets, and the starting set of real Erdős problems imported
    from the Formal Conjectures snapshot (issue 12): calibration, open and question ones,
    each with its provenance at the snapshot's commit."""
    assert {"erdos-242", "infinite-primes", "tutorial"} <= set(graph.targets)
    assert graph.policy.graph_id == "lemmata"
    imported = {tid: t for tid, t in graph.targets.items()
                if t.record.intake is not None
                and t.record.intake.provenance.source == "formal-conjectures"
                and tid != "erdos-242"}
    assert len(imported) >= 25
    for tid, t in imported.items():
        prov = t.record.intake.provenance  # type: ignore[union-attr]
        assert prov.source == "formal-conjectures" and prov.commit == FC_COMMIT, tid
        assert prov.file is not None and prov.file.startswith("FormalConjectures/ErdosProblems/")
    kinds = {("question" if t.record.answer_question else t.record.target_class)
             for t in imported.values()}
    assert kinds == {"calibration", "open-problem", "question"}
    assert max(len(t.nodes) for t in imported.values()) >= 4  # one with several variants


def test_tutorial_node_is_flagged(graph: Graph) -> None:
    t = graph.targets["tutorial"]
    assert t.record.target_class == "tutorial"
    assert sorted(t.nodes) == ["tutorial"]
    node = t.nodes["tutorial"]
    assert node.meta.tutorial is True
    assert {"Statement", "Witness"} <= set(node.files)
    assert "Proof" not in node.files
    # Only the tutorial node carries the flag.
    for tid, target in graph.targets.items():
        for nid, n in target.nodes.items():
            assert n.meta.tutorial == ((tid, nid) == ("tutorial", "tutorial"))


def test_tutorial_needs_no_mathlib(graph: Graph) -> None:
    text = graph.text("targets/tutorial/nodes/tutorial/Statement.lean")
    assert "import" not in text
    assert "sorry" in text


def test_calibration_target(graph: Graph) -> None:
    t = graph.targets["infinite-primes"]
    assert t.record.calibration is True
    assert t.record.target_class == "calibration"
    assert t.nodes["root"].meta.declaration == "InfinitePrimes.infinite_primes"


def test_open_problem_has_no_steward_and_no_verdicts(graph: Graph) -> None:
    t = graph.targets["erdos-242"]
    assert t.record.target_class == "open-problem"
    assert t.record.calibration is False
    assert t.stewards == []
    assert t.record.fidelity.grade is None
    assert t.record.fidelity.certificate is None
    root = t.nodes["root"]
    assert "Proof" not in root.files
    assert root.closures == []
    assert not [a for a in graph.attestations if a.record.target == "erdos-242"]


def test_nothing_claims_a_gate_run(graph: Graph) -> None:
    assert graph.attestations == []
    assert graph.ledger == []
    assert graph.merges == []
    for target in graph.targets.values():
        assert target.record.fidelity.grade is None
        for node in target.nodes.values():
            assert "Proof" not in node.files
            assert "Context" not in node.files
            assert node.closures == []
            assert node.meta.lemmas == []
    # Products are generated, never hand-written: tests/test_graph_products.py holds them
    # equal to what `lemmata products` derives from the record above.


def test_statement_hashes_are_exact(graph: Graph) -> None:
    for tid, target in graph.targets.items():
        for nid, node in target.nodes.items():
            path = f"targets/{tid}/nodes/{nid}/Statement.lean"
            assert node.meta.statement_hash == sha256_hex(graph.source.read(path))
            assert "sorry" in graph.text(path)
            assert "Witness" in node.files


def test_gate_spec_pins_are_full_shas(graph: Graph) -> None:
    for tid, target in graph.targets.items():
        spec = target.gate_spec
        fc = [pkg for pkg in spec.packages if pkg.name == "formal_conjectures"]
        if fc and tid != "erdos-242":  # imported: Formal Conjectures' own pins
            assert spec.lean_toolchain == "leanprover/lean4:v4.27.0", tid
            assert fc[0].rev == FC_COMMIT, tid
        else:
            assert spec.lean_toolchain == "leanprover/lean4:v4.34.0", tid
        assert spec.mathlib is not None, tid
        assert spec.mathlib.url == "https://github.com/leanprover-community/mathlib4"
        assert SHA40.fullmatch(spec.mathlib.rev), tid
        for pkg in spec.packages:
            assert SHA40.fullmatch(pkg.rev), (tid, pkg.name)
        if spec.network_commit is not None:
            assert SHA40.fullmatch(spec.network_commit), tid
        assert spec.axioms == ["propext", "Classical.choice", "Quot.sound"]


def test_erdos_provenance_names_formal_conjectures(graph: Graph) -> None:
    rec = graph.targets["erdos-242"].record
    assert rec.intake is not None
    prov = rec.intake.provenance
    assert prov.source == "formal-conjectures"
    assert prov.repository == "https://github.com/google-deepmind/formal-conjectures"
    assert prov.commit is not None and SHA40.fullmatch(prov.commit)
    assert prov.file == "FormalConjectures/ErdosProblems/242.lean"
    assert prov.declaration == "Erdos242.erdos_242"
    assert graph.targets["erdos-242"].nodes["root"].meta.declaration == "Erdos242.erdos_242"


def _references(rec: m.TargetRecord) -> list[m.Reference]:
    if rec.intake is None:
        return []
    refs = list(rec.intake.prior_art.references)
    if rec.intake.attack_routes is not None:
        refs += rec.intake.attack_routes.references
    return refs


def test_every_reference_is_checkable(graph: Graph) -> None:
    seen = 0
    for target in graph.targets.values():
        for ref in _references(target.record):
            seen += 1
            assert ref.url or ref.doi or ref.arxiv, ref.title
    assert seen >= 8


def test_intake_witness_paths_exist(graph: Graph) -> None:
    for tid, target in graph.targets.items():
        if target.record.intake is None:
            continue
        assert target.record.intake.witness == f"targets/{tid}/nodes/root/Witness.lean"
        assert target.record.intake.witness in graph.files
        assert target.record.intake.curator in {c.pseudonym for c in graph.curators.curators}
        assert target.record.intake.signature is None  # nobody signed; none is pretended


def test_open_problem_has_all_five_intake_artifacts(graph: Graph) -> None:
    intake = graph.targets["erdos-242"].record.intake
    assert intake is not None
    assert intake.prior_art.references
    assert intake.library_coverage.summary and intake.library_coverage.missing
    assert intake.provenance.source
    assert intake.attack_routes is not None and intake.attack_routes.references
    assert intake.witness


def test_agents_md_is_present() -> None:
    text = (GRAPH / "AGENTS.md").read_text(encoding="utf-8")
    for needle in ("claim_ttl", "postmortem", "Skeletonization", "recovery code",
                   "--h<k>", "planned"):
        assert needle in text, needle
