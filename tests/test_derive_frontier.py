"""Frontier entries, labels, approaches, literature, ledger views and proofs (D-25, D-13,
D-3 v3.44, D-25 v3.26/v3.35/v3.45, D-19)."""

from __future__ import annotations

from pathlib import Path

import pytest

from network.record import derive as d
from network.record.read.loader import Graph, load_graph
from tests.graphs import GraphBuilder

T = "demo"
FIELDS = {
    "target", "node", "status", "relation", "deps", "library_tags", "origin", "attempts",
    "refuted_route_classes", "failure_classes", "ready_since", "claim_status",
    "claim_history", "claimable", "claimable_reason", "annex", "bounty", "literature",
    "shelved", "dormant", "speculative", "closable", "question", "label", "claim",
    "label_source",
}


@pytest.fixture()
def b(tmp_path: Path) -> GraphBuilder:
    gb = GraphBuilder(tmp_path / "g")
    gb.base()
    gb.target(T, title="The demo conjecture", bountied_nodes=["root--h1"])
    gb.node(T, "root")
    return gb


def load(b: GraphBuilder) -> Graph:
    return load_graph(b.root)


def test_frontier_entry_fields(b: GraphBuilder) -> None:
    part = b.partial(T, "root", "20260102T000000Z", "alice", "-- approach: halve it\n")
    b.hole(T, "root", 1, part, witness=True, library_tags=["Finset.sum"])
    b.hole(T, "root", 2, part)
    b.merge([part], date="2026-01-02")
    b.postmortem(T, "root--h1", "20260103T000000Z", "bob", route_class="induction")
    b.postmortem(T, "root--h1", "20260104T000000Z", "carl", route_class="case-split",
                 outcome="exhausted", failure_class="missing-library")
    b.postmortem(T, "root--h1", "20260105T000000Z", "dora", route_class="computational",
                 failure_class="missing-library")
    b.annex(T, "root--h1")
    b.node(T, "variant-weak", variant={"of": "root", "relation": "partial"}, deps=["root--h1"])
    b.merge_record([], "2026-02-01")
    g = load(b)
    entries = {e["node"]: e for e in d.frontier(g)}
    # the blocked hole is published (its witness is the work); the variant waits on a dep
    assert list(entries) == ["root", "root--h1", "root--h2"]
    e = entries["root--h1"]
    assert set(e) == FIELDS
    assert e["status"] == "open" and e["origin"] == "compiler-derived"
    assert e["library_tags"] == ["Finset.sum"]
    assert e["attempts"] == 3
    assert e["refuted_route_classes"] == ["computational", "induction"]
    assert e["failure_classes"] == {"missing-library": 2, "route-dead-ends": 1}
    assert e["ready_since"] == "2026-01-02T00:00:00Z"  # a date, never an age
    assert e["claim_status"] is None and e["claim_history"] == []
    assert e["claimable"] is True and e["claimable_reason"] is None
    assert e["annex"] is True and e["bounty"] is True
    assert (e["label"], e["claim"], e["label_source"]) == ("h1", None, "hole")
    assert entries["root--h2"]["claimable_reason"] == "claim-node-blocked"
    assert entries["root--h2"]["ready_since"] is None
    root = entries["root"]
    assert (root["label"], root["label_source"]) == ("The demo conjecture", "target")
    assert root["attempts"] == 1  # its merged partial
    assert root["ready_since"] == "2026-01-01T00:00:00Z"  # listed
    # once the dependency is proved the variant enters, ready since that proof
    b.merge([b.proof(T, "root--h1")], date="2026-02-03")
    v = {e["node"]: e for e in d.frontier(load(b))}["variant-weak"]
    assert v["relation"] == "partial" and v["deps"] == ["root--h1"]
    assert v["ready_since"] == "2026-02-03T00:00:00Z"


def test_labels_from_gloss_chain_and_withdrawal(b: GraphBuilder) -> None:
    first = b.gloss(T, "root", "20260102T000000Z", "alice", label="Sum bound",
                    text="$$\\sum_i f(i) \\le C$$ and some prose.")
    lab = d.node_label(load(b), T, "root")
    assert (lab.label, lab.claim, lab.source) == ("Sum bound", "\\sum_i f(i) \\le C", "gloss")
    b.gloss(T, "root", "20260103T000000Z", "bob", label="Better name", supersedes=first,
            text="No display here.")
    b.gloss(T, "root", "20260104T000000Z", "eve", label="A second chain")
    lab = d.node_label(load(b), T, "root")
    assert (lab.label, lab.claim, lab.source) == ("Better name", None, "gloss")
    b.withdrawal(T, "root", "20260105T000000Z", "curator", first)
    lab = d.node_label(load(b), T, "root")
    assert (lab.label, lab.source) == ("A second chain", "gloss")
    b.node(T, "crux-one", speculative=True)
    assert d.node_label(load(b), T, "crux-one").source == "id"


def test_approach_fallbacks(b: GraphBuilder) -> None:
    own = b.partial(T, "root", "20260102T000000Z", "a", "-- licence: CC-BY\n-- approach: own line\n")
    comment = b.partial(T, "root", "20260103T000000Z", "b",
                        "import Mathlib\n\n-- We split on parity.\n-- Then induct.\n\n"
                        "theorem x : True := sorry\n")
    annex = b.annex(T, "root", "First sentence here. Second one.\n")
    h = annex.rsplit("/", 1)[1][:-3]
    cites = b.partial(T, "root", "20260104T000000Z", "c", f"theorem y : True := sorry -- {h}\n")
    glossed = b.partial(T, "root", "20260105T000000Z", "d", "theorem z : True := sorry\n")
    b.gloss(T, "root", "20260106T000000Z", "d", describes=glossed,
            text="Reads the route. More words.")
    bare = b.partial(T, "root", "20260107T000000Z", "e", "theorem w : True := sorry\n")
    g = load(b)
    assert d.route_approach(g, T, own) == ("own line", "partial")
    assert d.route_approach(g, T, comment) == ("We split on parity. Then induct.", "comment")
    assert d.route_approach(g, T, cites) == ("First sentence here.", "annex")
    assert d.route_approach(g, T, glossed) == ("Reads the route.", "gloss")
    assert d.route_approach(g, T, bare) == (None, None)


def test_literature_status_v345(b: GraphBuilder) -> None:
    assert d.literature_status(load(b), T, "root") is None
    prop = b.literature(T, "root", "20260102T000000Z", "alice", "known-true")
    lit = d.literature_status(load(b), T, "root")
    assert lit is not None
    assert (lit["status"], lit["source"], lit["by"]) == ("known-true", "proposed", "alice")
    disp = b.literature(T, "root", "20260103T000000Z", "steve", "open", disputes=prop)
    lit = d.literature_status(load(b), T, "root")
    assert lit == {"status": "open", "source": "confirmed", "record": disp, "by": "steve",
                   "disputes": {"status": "known-true", "record": prop, "contributor": "alice"},
                   "awaiting": None}
    prop2 = b.literature(T, "root", "20260104T000000Z", "bob", "partial-results")
    lit = d.literature_status(load(b), T, "root")
    assert lit is not None and lit["status"] == "open"
    assert lit["awaiting"] == {"status": "partial-results", "record": prop2, "contributor": "bob"}
    conf = b.literature(T, "root", "20260105T000000Z", "curator", "partial-results",
                        confirms=prop2, supersedes=disp)
    lit = d.literature_status(load(b), T, "root")
    assert lit is not None
    assert (lit["status"], lit["record"], lit["awaiting"], lit["disputes"]) == (
        "partial-results", conf, None, None)


def test_ledger_views_show_revoked_lines(b: GraphBuilder) -> None:
    part = b.partial(T, "root", "20260102T000000Z", "alice")
    pm = b.postmortem(T, "root", "20260102T000000Z", "bob")
    line1 = b.ledger_line(1, 1, "attempts", "bob", T, pm, node="root")
    b.ledger_line(1, 2, "proof", "alice", T, part, node="root")
    b.ledger_line(2, 1, "attempts", "bob", T, pm, node="root")
    rev = b.revocation(3, 1, line1)
    views = d.ledger_views(load(b))
    assert list(views) == ["alice", "bob"]
    assert [(x["merge_seq"], x["k"], x["revoked"]) for x in views["bob"]] == [
        (1, 1, True), (2, 1, False)]
    assert views["bob"][0]["revoked_by"] == rev
    assert views["alice"][0]["line"] == "proof" and not views["alice"][0]["revoked"]


def test_target_proofs_list(b: GraphBuilder) -> None:
    b.node(T, "lemma-a")
    b.node(T, "root", deps=["lemma-a"])
    b.merge([b.proof(T, "lemma-a")])
    b.merge([b.proof(T, "root")])
    alt = b.partial(T, "root", "20260110T000000Z", "zed", kind="alternate")
    b.merge([alt])
    b.node(T, "variant-strong", variant={"of": "root", "relation": "resolves"},
           relation="-- rel\n")
    b.merge([f"targets/{T}/nodes/variant-strong/Relation.lean",
             b.proof(T, "variant-strong")])
    g = load(b)
    assert d.target_proofs(g, T) == [
        {"node": "root", "kind": "proof", "path": f"targets/{T}/nodes/root/Proof.lean",
         "rests_on": ["lemma-a"]},
        {"node": "root", "kind": "alternate", "path": alt, "rests_on": ["lemma-a"]},
        {"node": "variant-strong", "kind": "proof",
         "path": f"targets/{T}/nodes/variant-strong/Proof.lean", "rests_on": []},
    ]


def test_graph_view_edges_and_nodes(b: GraphBuilder) -> None:
    part = b.partial(T, "root", "20260102T000000Z", "alice")
    b.hole(T, "root", 1, part, witness=True)
    b.merge([part])
    b.node(T, "root--h1@v2", supersedes="root--h1", hole={
        "parent": "root", "route": part, "k": 1, "name": "h1"}, origin="compiler-derived")
    view = d.graph_view(load(b), T)
    assert view["schema"] == "graph/v1" and view["target"] == T
    assert [n["id"] for n in view["nodes"]] == ["root", "root--h1", "root--h1@v2"]
    assert view["nodes"][1]["superseded_by"] == "root--h1@v2"
    assert {"from": "root--h1", "to": "root--h1@v2", "kind": "supersedes"} in view["edges"]
    # the route reads through the revision
    assert view["routes"][0]["holes"] == ["root--h1@v2"]
    assert view["sufficient_sets"]["sets"][0]["members"] == ["root--h1@v2"]
