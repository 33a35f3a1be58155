"""Node statuses, flags, root_vouched, target status and claimable() (ruling 1, D-8, D-12,
D-14 v3.47, D-18, D-33, D-6 v3.17)."""

from __future__ import annotations

from pathlib import Path

import pytest

from network.errors import CATALOG, LemmataError
from network.record import derive as d
from network.record.read.loader import Graph, load_graph
from tests.graphs import GraphBuilder, merge_commit_of

T = "demo"


@pytest.fixture()
def gdir(tmp_path: Path) -> Path:
    """The graph's root, beside the test HOME the shared conftest makes in tmp_path."""
    return tmp_path / "g"


@pytest.fixture()
def b(gdir: Path) -> GraphBuilder:
    gb = GraphBuilder(gdir)
    gb.base()
    gb.target(T)
    gb.node(T, "root")
    return gb


def load(b: GraphBuilder) -> Graph:
    return load_graph(b.root)


def split(b: GraphBuilder, parent: str = "root", ts: str = "20260102T000000Z",
          holes: int = 2, witness: bool = True, date: str = "2026-01-02") -> str:
    """A merged partial of ``parent`` with ``holes`` holes numbered from 1."""
    part = b.partial(T, parent, ts, "alice")
    for k in range(1, holes + 1):
        b.hole(T, parent, k, part, witness=witness)
    b.merge([part], date=date)
    return part


# --- "now" and merged --------------------------------------------------------------------


def test_now_is_the_newest_merge_record(b: GraphBuilder) -> None:
    assert d.now(load(b)) is None
    b.merge_record([], "2026-03-04")
    b.merge_record([], "2026-05-06T07:08:09Z")
    assert d.now(load(b)) == "2026-05-06T07:08:09Z"


def test_proof_counts_only_when_attested_pass_with_its_hash(b: GraphBuilder) -> None:
    proof = b.proof(T, "root")
    assert d.node_status(load(b), T, "root") == "open"
    b.attest([proof], verdict="fail")
    assert d.node_status(load(b), T, "root") == "open"
    b.merge([proof])
    assert d.node_status(load(b), T, "root") == "proved"
    b.write(proof, "-- different bytes than the gate saw\n")
    assert d.node_status(load(b), T, "root") == "open"


def test_unknown_node_raises(b: GraphBuilder) -> None:
    with pytest.raises(LemmataError) as exc:
        d.node_status(load(b), T, "nope")
    assert exc.value.code == "unknown-node"


# --- the six statuses -------------------------------------------------------------------


def test_refuted_defective_superseded_blocked(b: GraphBuilder) -> None:
    part = split(b, holes=3, witness=False)
    b.merge([b.proof(T, "root--h1", kind="Refutation")])
    b.merge([b.proof(T, "root--h2", kind="Vacuity")])
    b.node(T, "root--h3@v2", supersedes="root--h3", witness=False, hole={
        "parent": "root", "route": part, "k": 3, "name": "h3"}, origin="compiler-derived")
    g = load(b)
    assert d.node_status(g, T, "root--h1") == "refuted"
    assert d.node_status(g, T, "root--h2") == "defective"
    assert d.node_status(g, T, "root--h3") == "superseded"
    assert d.node_status(g, T, "root--h3@v2") == "blocked"  # the witness slot it inherited
    assert d.node_status(g, T, "root") == "open"  # a decomposition never blocks its node


def test_blocked_hole_opens_with_a_witness_or_a_carried_one(b: GraphBuilder) -> None:
    part = b.partial(T, "root", "20260102T000000Z", "alice")
    b.hole(T, "root", 1, part)
    b.hole(T, "root", 2, part)
    carried = b.carried_witness(T, "root", "20260102T000000Z", "alice", 2)
    b.merge([part, carried])
    g = load(b)
    assert d.node_status(g, T, "root--h1") == "blocked"
    assert d.claimable(g, T, "root--h1") == (False, "claim-node-blocked")
    assert d.node_status(g, T, "root--h2") == "open"
    b.proof(T, "root--h1", kind="Witness")
    assert d.node_status(load(b), T, "root--h1") == "open"


# --- closure and closable (D-12 v3.42) ----------------------------------------------------


def test_closable_then_proved_by_closure_and_reopened_by_a_revert(b: GraphBuilder) -> None:
    split(b, parent="root")
    part = split(b, parent="root--h1", ts="20260103T000000Z")
    p1 = b.proof(T, "root--h1--h1")
    b.merge([p1], date="2026-01-04")
    g = load(b)
    assert not d.node_flags(g, T, "root--h1").closable  # root--h1--h2 still open
    p2 = b.proof(T, "root--h1--h2")
    att = b.merge([p2], date="2026-01-05")
    g = load(b)
    assert d.node_status(g, T, "root--h1") == "open"  # closable is never proved
    assert d.node_flags(g, T, "root--h1").closable
    b.closure(T, "root--h1", "route", [("root--h1--h1", p1), ("root--h1--h2", p2)],
              route=part, merge_seq=3)
    g = load(b)
    assert d.node_status(g, T, "root--h1") == "proved"
    flags = d.node_flags(g, T, "root--h1")
    assert flags.proved_by_closure and not flags.closable
    # an input's attestation gone: the closure no longer holds, nothing was rewritten
    b.remove(att)
    g = load(b)
    assert d.node_status(g, T, "root--h1") == "open"
    assert not d.node_flags(g, T, "root--h1").proved_by_closure
    assert [c["holds"] for c in d.target_closures(g, T)] == [False]


def test_root_proved_by_closure_only_when_vouched(b: GraphBuilder) -> None:
    part = split(b, holes=1)
    proof = b.proof(T, "root--h1")
    b.merge([proof], date="2026-01-03")
    b.closure(T, "root", "route", [("root--h1", proof)], route=part)
    g = load(b)
    assert not d.root_vouched(g, T)
    assert d.node_status(g, T, "root") == "open"
    assert not d.node_flags(g, T, "root").closable  # the post-merge job would wait too
    b.target(T, fidelity={"grade": "screened-and-signed"})
    g = load(b)
    assert d.root_vouched(g, T)
    assert d.node_status(g, T, "root") == "proved"
    assert d.target_status(g, T).status == "resolved"


@pytest.mark.parametrize("kwargs,vouched", [
    ({}, False),
    ({"cls": "calibration"}, True),
    ({"calibration": True}, True),
    ({"fidelity": {"grade": "screened"}}, False),
    ({"fidelity": {"grade": "certified"}}, True),
    ({"fidelity": {"catalog_evidence_points": 4}}, False),
    ({"fidelity": {"catalog_evidence_points": 5}}, True),
])
def test_root_vouched_inputs(b: GraphBuilder, kwargs: dict[str, object], vouched: bool) -> None:
    b.target(T, **kwargs)  # type: ignore[arg-type]
    assert d.root_vouched(load(b), T) is vouched


def test_confirmed_defect_reverts_vouching(b: GraphBuilder) -> None:
    b.target(T, fidelity={"grade": "certified"})
    defect = b.defect(T, "root", "20260102T000000Z", "dan")
    b.dispute(T, "root", "20260103T000000Z", "curator", defect)
    assert not d.root_vouched(load(b), T)
    assert not d.completed_review_vouches(load(b), T)


def test_refutes_variant_closes_the_root_as_refuted(b: GraphBuilder) -> None:
    b.target(T, calibration=True)
    b.node(T, "variant-neg", variant={"of": "root", "relation": "refutes"},
           relation="-- rel\n")
    rel = f"targets/{T}/nodes/variant-neg/Relation.lean"
    proof = b.proof(T, "variant-neg")
    b.merge([rel, proof])
    g = load(b)
    assert d.node_flags(g, T, "root").closable
    b.closure(T, "root", "refutes", [("variant-neg", proof)], verdict="refuted")
    g = load(b)
    assert d.node_status(g, T, "root") == "refuted"
    assert d.target_status(g, T).resolution == "refuted"


# --- stale (D-8 v3.18) ------------------------------------------------------------------


def test_stale_until_a_pass_run_includes_the_revision(b: GraphBuilder) -> None:
    b.node(T, "lemma-a")
    b.node(T, "uses-a", deps=["lemma-a"])
    b.merge([b.proof(T, "lemma-a")])
    b.merge([b.proof(T, "uses-a")])
    g = load(b)
    assert not d.node_flags(g, T, "uses-a").stale
    b.node(T, "lemma-a@v2", supersedes="lemma-a")
    b.merge_record([f"targets/{T}/nodes/lemma-a@v2/META.yaml"], "2026-02-01")  # seq 3
    g = load(b)
    assert d.node_flags(g, T, "uses-a").stale
    assert d.node_status(g, T, "uses-a") == "proved"
    # a run on an older graph commit lifts nothing; one that included merge 3 does
    b.attest([f"targets/{T}/nodes/uses-a/Proof.lean"], graph_commit=merge_commit_of(2))
    assert d.node_flags(load(b), T, "uses-a").stale
    b.attest([f"targets/{T}/nodes/uses-a/Proof.lean"], graph_commit=merge_commit_of(3))
    assert not d.node_flags(load(b), T, "uses-a").stale


def test_stale_marks_nothing_on_an_unproved_node(b: GraphBuilder) -> None:
    b.node(T, "lemma-a")
    b.node(T, "uses-a", deps=["lemma-a"])
    b.node(T, "lemma-a@v2", supersedes="lemma-a")
    assert not d.node_flags(load(b), T, "uses-a").stale


# --- disputes and withdrawals (D-18 v3.27/v3.28) ------------------------------------------


def test_dispute_takes_the_node_off_the_frontier_until_withdrawn(b: GraphBuilder) -> None:
    b.node(T, "lemma-a")
    b.node(T, "uses-a", deps=["lemma-a"])
    defect = b.defect(T, "lemma-a", "20260102T000000Z", "dan")
    dispute = b.dispute(T, "lemma-a", "20260103T000000Z", "curator", defect)
    g = load(b)
    assert d.node_flags(g, T, "lemma-a").disputed
    assert d.claimable(g, T, "lemma-a") == (False, "claim-node-disputed")
    assert d.claimable(g, T, "uses-a") == (False, "claim-dependency-disputed")
    assert not d.on_frontier(g, T, "lemma-a")
    b.withdrawal(T, "lemma-a", "20260104T000000Z", "curator", dispute)
    g = load(b)
    assert not d.node_flags(g, T, "lemma-a").disputed
    assert d.claimable(g, T, "lemma-a") == (True, None)
    assert d.on_frontier(g, T, "lemma-a")


def test_dispute_by_a_non_curator_and_withdrawn_claims_read_as_absent(b: GraphBuilder) -> None:
    defect = b.defect(T, "root", "20260102T000000Z", "dan")
    b.dispute(T, "root", "20260103T000000Z", "mallory", defect)
    assert not d.node_flags(load(b), T, "root").disputed
    b.dispute(T, "root", "20260103T000000Z", "curator", defect)
    assert d.node_flags(load(b), T, "root").disputed
    b.withdrawal(T, "root", "20260104T000000Z", "curator", defect)  # the claim it rests on
    assert not d.node_flags(load(b), T, "root").disputed


def test_withdrawn_withdrawal_stops_withdrawing(b: GraphBuilder) -> None:
    defect = b.defect(T, "root", "20260102T000000Z", "dan")
    b.dispute(T, "root", "20260103T000000Z", "curator", defect)
    w1 = b.withdrawal(T, "root", "20260104T000000Z", "curator", defect)
    b.withdrawal(T, None, "20260105T000000Z", "curator", w1)
    g = load(b)
    assert d.withdrawn(g) == frozenset({w1})
    assert d.node_flags(g, T, "root").disputed


def test_words_may_be_withdrawn_by_author_or_steward_but_defects_only_by_curators(
        b: GraphBuilder) -> None:
    g1 = b.gloss(T, "root", "20260102T000000Z", "ann", label="first")
    g2 = b.gloss(T, "root", "20260102T000001Z", "bob", label="second")
    g3 = b.gloss(T, "root", "20260102T000002Z", "cat", label="third")
    defect = b.defect(T, "root", "20260102T000003Z", "dan")
    b.withdrawal(T, "root", "20260104T000000Z", "ann", g1)    # its author: counts
    b.withdrawal(T, "root", "20260104T000001Z", "steve", g2)  # a steward: counts
    b.withdrawal(T, "root", "20260104T000002Z", "eve", g3)    # a stranger: does not
    b.withdrawal(T, "root", "20260104T000003Z", "dan", defect)  # D-18: curators only
    g = load(b)
    assert d.withdrawn(g) == frozenset({g1, g2})


def test_the_tutorial_node_stays_open_and_claimable_after_a_rehearsal_merges(
        b: GraphBuilder) -> None:
    b.target("tut", cls="tutorial", steward=None)
    b.node("tut", "tutorial", tutorial=True, proof="-- rehearsal\n")
    b.merge(["targets/tut/nodes/tutorial/Proof.lean"])
    g = load(b)
    assert d.node_status(g, "tut", "tutorial") == "open"
    assert d.claimable(g, "tut", "tutorial")[0] is True


# --- shelving (D-14 v3.47) ---------------------------------------------------------------


def test_shelving_reaches_hole_children_but_not_the_root(b: GraphBuilder) -> None:
    split(b)
    split(b, parent="root--h1", ts="20260103T000000Z")
    b.shelving(T, "root", "20260104T000000Z", "steve")
    shelf = b.shelving(T, "root--h1", "20260104T000000Z", "steve")
    g = load(b)
    assert not d.node_flags(g, T, "root").shelved
    assert d.node_flags(g, T, "root--h1").shelved
    assert d.node_flags(g, T, "root--h1--h2").shelved
    assert not d.node_flags(g, T, "root--h2").shelved
    assert d.claimable(g, T, "root--h1--h1") == (False, "claim-node-shelved")
    assert not d.on_frontier(g, T, "root--h1--h1")
    assert d.node_status(g, T, "root--h1") == "open"  # shelving is not a status
    # a lift by the same roles restores it; the child's own lift decides for the child
    b.shelving(T, "root--h1--h2", "20260105T000000Z", "curator", lifts=shelf)
    g = load(b)
    assert d.node_flags(g, T, "root--h1").shelved
    assert not d.node_flags(g, T, "root--h1--h2").shelved
    assert d.node_flags(g, T, "root--h1--h1").shelved
    b.shelving(T, "root--h1", "20260106T000000Z", "curator", lifts=shelf)
    assert not d.node_flags(load(b), T, "root--h1--h1").shelved


def test_shelving_by_others_and_lemma_needed_holes(b: GraphBuilder) -> None:
    split(b)
    split(b, parent="root--h1", ts="20260103T000000Z")
    b.shelving(T, "root--h2", "20260104T000000Z", "mallory")
    assert not d.node_flags(load(b), T, "root--h2").shelved
    # root--h2 needs root--h1--h1 as a lemma: shelving root--h1 leaves that hole alone
    b.node(T, "root--h2", witness=True, origin="compiler-derived", lemmas=["root--h1--h1"],
           hole={"parent": "root", "route": f"targets/{T}/nodes/root/attempts/"
                 "20260102T000000Z-alice-partial.lean", "k": 2, "name": "h2"})
    b.shelving(T, "root--h1", "20260104T000000Z", "steve")
    g = load(b)
    assert d.node_flags(g, T, "root--h1--h2").shelved
    assert not d.node_flags(g, T, "root--h1--h1").shelved


# --- target status (D-33) ----------------------------------------------------------------


def test_target_status_listed_active_dormant_and_mechanical_reactivation(b: GraphBuilder) -> None:
    g = load(b)
    assert d.target_status(g, T).status == "listed"
    b.merge_record([], "2026-01-02")
    active = b.target_status(T, "active", "2026-01-02")
    b.merge_record([active], "2026-01-02")
    assert d.target_status(load(b), T).status == "active"
    dormant = b.target_status(T, "dormant", "2026-03-01")
    b.merge_record([dormant], "2026-03-01")
    g = load(b)
    assert d.target_status(g, T).status == "dormant"
    assert d.node_flags(g, T, "root").dormant
    assert d.claimable(g, T, "root") == (False, "claim-target-dormant")
    assert d.on_frontier(g, T, "root")  # nothing is removed from the frontier
    pm = b.postmortem(T, "root", "20260302T000000Z", "bob", outcome="exhausted")
    b.merge_record([pm], "2026-03-02")
    assert d.target_status(load(b), T).status == "dormant"  # not a progress artifact
    part = b.partial(T, "root", "20260303T000000Z", "alice")
    b.merge([part], date="2026-03-03")
    st = d.target_status(load(b), T)
    assert (st.status, st.reactivated_by, st.declaration) == ("active", part, dormant)


def test_dormant_suspends_bounty_and_known_result(b: GraphBuilder) -> None:
    b.target(T, bountied_nodes=["root"])
    assert d.node_flags(load(b), T, "root").bountied
    b.target_status(T, "dormant", "2026-03-01")
    assert not d.node_flags(load(b), T, "root").bountied
    b.target_status(T, "known-result", "2026-03-02", n=2)
    assert d.target_status(load(b), T).status == "known-result"
    b.target_status(T, "active", "2026-03-03", curator="mallory")  # not a curator
    assert d.target_status(load(b), T).status == "known-result"


def test_resolved_digestion(b: GraphBuilder) -> None:
    proof = b.proof(T, "root")
    b.merge([proof])
    g = load(b)
    assert d.target_status(g, T).to_dict() == {
        "status": "resolved", "digestion": "undigested", "resolution": "proved",
        "declaration": None, "reactivated_by": None}
    path = b.gloss(T, "root", "20260105T000000Z", "steve", describes=proof, kind="explainer")
    import yaml
    rec = yaml.safe_load(b.read(path))
    rec["approvals"] = [{"kind": "ssh", "key_id": "k", "signer": "steve", "value": "c2ln"}]
    b.write_yaml(path, rec)
    assert d.target_status(load(b), T).digestion == "undigested"  # a forged approval
    b.remove(path)
    b.gloss(T, "root", "20260105T000000Z", "steve", describes=proof, kind="explainer",
            approved_by=["steve"])
    assert d.target_status(load(b), T).digestion == "explained"


# --- claimable ---------------------------------------------------------------------------


def test_claimable_refusals_are_catalog_codes(b: GraphBuilder) -> None:
    b.target("lonely", steward=None)
    b.node("lonely", "root")
    b.target("calib", cls="calibration", steward=None)
    b.node("calib", "root")
    b.node(T, "needs", deps=["root"])
    b.node(T, "spec", speculative=True)
    b.merge([b.proof(T, "spec")])
    g = load(b)
    assert d.claimable(g, "lonely", "root") == (False, "claim-no-steward")
    assert d.claimable(g, "calib", "root") == (True, None)
    assert d.claimable(g, T, "needs") == (False, "claim-not-ready")
    assert d.claimable(g, T, "spec") == (False, "claim-node-closed")
    assert not d.node_flags(g, T, "spec").speculative  # settled: the label is history
    for code in ("claim-node-closed", "claim-node-superseded", "claim-node-disputed",
                 "claim-node-shelved", "claim-target-dormant", "claim-no-steward",
                 "claim-node-blocked", "claim-not-ready", "claim-dependency-disputed"):
        assert code in CATALOG
    b.node(T, "root@v2", supersedes="root")
    assert d.claimable(load(b), T, "root") == (False, "claim-node-superseded")
