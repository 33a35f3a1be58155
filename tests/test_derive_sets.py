"""Routes, sufficient sets and the selector (D-25 v3.40, v3.44, v3.46, v3.47; D-12 v3.38).

The fixture below is drawn by hand; every expected set was computed on paper from it:

    root ── R  (alice, 2026-01-02): A = root--h1, B = root--h2
         └─ R2 (bob,   2026-01-03): Z = root--h3
    A ──── RA: L = root--h1--h1, X = root--h1--h2
    B ──── RB: Y = root--h2--h1, plus the lemma L (B's META lemmas, D-12 v3.38)
    L ──── RL1: P = root--h1--h1--h1
       └── RL2: Q = root--h1--h1--h2
    variant-neg (refutes, Relation.lean merged) ── RV: W = variant-neg--h1, plus lemma L

One choice of routes per node gives the proves side {P,X,Y}, {Q,X,Y}, {Z} and the refutes
side {W,P}, {W,Q}. The unrolled OR tree would count L's two routes once under A and once
under B and give four sets through R; the enumeration must give two.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from network.record import derive as d
from network.record.read.loader import Graph, load_graph
from tests.graphs import GraphBuilder

T = "shared"
A, B, Z = "root--h1", "root--h2", "root--h3"
L, X, Y = "root--h1--h1", "root--h1--h2", "root--h2--h1"
P, Q = "root--h1--h1--h1", "root--h1--h1--h2"
V, W = "variant-neg", "variant-neg--h1"


@pytest.fixture()
def gdir(tmp_path: Path) -> Path:
    """The graph's root, beside the test HOME the shared conftest makes in tmp_path."""
    return tmp_path / "g"


def build(root: Path) -> tuple[GraphBuilder, dict[str, str]]:
    b = GraphBuilder(root)
    b.base()
    b.target(T)
    b.node(T, "root")
    r = {}
    r["R"] = b.partial(T, "root", "20260102T000000Z", "alice", "-- approach: split in two\n")
    r["R2"] = b.partial(T, "root", "20260103T000000Z", "bob", "-- approach: one big lemma\n")
    b.hole(T, "root", 1, r["R"], name="left", witness=True)
    b.hole(T, "root", 2, r["R"], name="right", witness=True)
    b.hole(T, "root", 3, r["R2"], name="big", witness=True)
    r["RA"] = b.partial(T, A, "20260104T000000Z", "carol", "-- approach: A via L\n")
    b.hole(T, A, 1, r["RA"], name="gap lemma", witness=True)
    b.hole(T, A, 2, r["RA"], name="x", witness=True)
    r["RB"] = b.partial(T, B, "20260105T000000Z", "dave", "-- approach: B via L\n")
    b.hole(T, B, 1, r["RB"], name="y", witness=True)
    r["RL1"] = b.partial(T, L, "20260106T000000Z", "erin", "-- approach: first\n")
    r["RL2"] = b.partial(T, L, "20260107T000000Z", "fred", "-- approach: second\n")
    b.hole(T, L, 1, r["RL1"], name="p", witness=True)
    b.hole(T, L, 2, r["RL2"], name="q", witness=True)
    b.node(T, V, variant={"of": "root", "relation": "refutes"}, relation="-- V → ¬root\n")
    r["RV"] = b.partial(T, V, "20260108T000000Z", "gina", "-- approach: counterexample\n")
    b.hole(T, V, 1, r["RV"], name="w", witness=True)
    # lemma edges: written by the post-merge job on B and on the variant (D-12 v3.38)
    _add_lemma(b, B, L)
    _add_lemma(b, V, L)
    for k in ("R", "R2", "RA", "RB", "RL1", "RL2", "RV"):
        b.merge([r[k]], date="2026-01-10")
    b.merge([f"targets/{T}/nodes/{V}/Relation.lean"], date="2026-01-10")
    return b, r


def _add_lemma(b: GraphBuilder, nid: str, lemma: str) -> None:
    import yaml

    path = f"targets/{T}/nodes/{nid}/META.yaml"
    meta = yaml.safe_load(b.read(path))
    meta["lemmas"] = [*meta.get("lemmas", []), lemma]
    b.write_yaml(path, meta)


def members(g: Graph, side: str | None = None) -> list[list[str]]:
    sets = d.sufficient_sets(g, T)["sets"]
    return [s["members"] for s in sets if side is None or s["side"] == side]


def test_route_holes_include_the_lemma_edge(gdir: Path) -> None:
    _, r = build(gdir)
    g = load_graph(gdir)
    assert d.route_holes(g, T, r["R"]) == [A, B]
    assert d.route_holes(g, T, r["RB"]) == [Y, L]
    assert d.route_holes(g, T, r["RV"]) == [W, L]
    assert d.node_routes(g, T, L) == [r["RL1"], r["RL2"]]


def test_sets_per_choice_of_routes_with_a_shared_hole(gdir: Path) -> None:
    build(gdir)
    g = load_graph(gdir)
    assert members(g, "proves") == [[P, X, Y], [Q, X, Y], [Z]]
    assert members(g, "refutes") == [[W, P], [W, Q]]
    sets = d.sufficient_sets(g, T)
    assert sets["truncated"] is False
    first = sets["sets"][0]
    # choices are the forks: root (R or R2) and L (RL1 or RL2); A and B have one route
    assert first["choices"] == [
        {"node": "root", "route": d.node_routes(g, T, "root")[0]},
        {"node": L, "route": d.node_routes(g, T, L)[0]},
    ]
    assert (first["count"], first["proved"], first["open"]) == (3, 0, 3)
    # joins still needed through root, A, L and B; named only once all members are proved
    assert (first["assemblies_needed"], first["assemblies"]) == (4, [])
    # P is shared with the refutes set {W, P}; X and Y with {Q, X, Y}
    assert first["shared"] == 3
    assert sets["sets"][2]["shared"] == 0
    refute = sets["sets"][3]
    assert refute["choices"][0] == {"node": "root", "route": f"refutes:{V}"}


def test_a_proved_node_ends_the_cut(gdir: Path) -> None:
    b, _ = build(gdir)
    b.merge([b.proof(T, L)], date="2026-01-11")
    g = load_graph(gdir)
    assert d.node_status(g, T, L) == "proved"
    assert members(g, "proves") == [[L, X, Y], [Z]]
    first = d.sufficient_sets(g, T)["sets"][0]
    assert (first["proved"], first["open"]) == (1, 2)
    assert members(g, "refutes") == [[W, L]]
    for x in (X, Y):
        b.merge([b.proof(T, x)], date="2026-01-12")
    first = d.sufficient_sets(load_graph(gdir), T)["sets"][0]
    assert (first["members"], first["open"]) == ([L, X, Y], 0)
    assert first["assemblies"] == [
        {"node": "root", "route": d.node_routes(g, T, "root")[0]},
        {"node": A, "route": d.node_routes(g, T, A)[0]},
        {"node": B, "route": d.node_routes(g, T, B)[0]},
    ]


def test_a_dead_route_is_not_expanded(gdir: Path) -> None:
    b, _ = build(gdir)
    b.merge([b.proof(T, P, kind="Refutation")], date="2026-01-11")
    g = load_graph(gdir)
    assert d.node_status(g, T, P) == "refuted"
    # RL1 is dead: only RL2 remains for L; a false member never refutes the root
    assert members(g, "proves") == [[Q, X, Y], [Z]]
    assert d.node_status(g, T, "root") == "open"
    facts = {f["route"]: f for f in d.target_routes(g, T)}
    rl1 = d.node_routes(g, T, L)[0]
    assert facts[rl1]["alive"] is False and facts[rl1]["dead"] == 1


def test_shelving_omits_sets_but_keeps_proved_members(gdir: Path) -> None:
    b, _ = build(gdir)
    b.shelving(T, X, "20260112T000000Z", "steve")
    g = load_graph(gdir)
    assert d.node_flags(g, T, X).shelved
    assert members(g, "proves") == [[Z]]
    # once X is proved, the sets resting on it are kept (v3.47)
    b.merge([b.proof(T, X)], date="2026-01-13")
    g = load_graph(gdir)
    assert members(g, "proves") == [[P, X, Y], [Q, X, Y], [Z]]


def test_retired_route_drops_its_sets(gdir: Path) -> None:
    b, r = build(gdir)
    b.shelving(T, L, "20260112T000000Z", "curator", subject=r["RL1"])
    g = load_graph(gdir)
    assert d.node_flags(g, T, P).shelved
    assert members(g, "proves") == [[Q, X, Y], [Z]]
    assert members(g, "refutes") == [[W, Q]]


def test_selector_forks_sides_then_routes(gdir: Path) -> None:
    _, r = build(gdir)
    g = load_graph(gdir)
    sel = d.selector(g, T)
    assert sel["fork"] == "side"
    proves, refutes = sel["branches"]
    assert proves["side"] == "proves" and refutes["side"] == "refutes"
    tree = proves["tree"]
    assert tree["node"] == "root"
    assert [br["route"] for br in tree["branches"]] == [r["R"], r["R2"]]
    assert [br["approach"] for br in tree["branches"]] == ["split in two", "one big lemma"]
    via_r = tree["branches"][0]["tree"]
    assert via_r["node"] == L and via_r["label"] == "gap lemma"
    assert [br["tree"] for br in via_r["branches"]] == [{"set": 0}, {"set": 1}]
    assert tree["branches"][1]["tree"] == {"set": 2}
    assert refutes["tree"]["node"] == L
    assert [br["tree"] for br in refutes["tree"]["branches"]] == [{"set": 3}, {"set": 4}]


def test_enumeration_cap_is_reported(gdir: Path) -> None:
    build(gdir)
    g = load_graph(gdir)
    sets = d.sufficient_sets(g, T, cap=1)
    assert sets["truncated"] is True
    assert sets["cap"] == 1
    assert [s["members"] for s in sets["sets"] if s["side"] == "proves"] == [[P, X, Y]]


def test_route_facts(gdir: Path) -> None:
    b, r = build(gdir)
    b.merge([b.proof(T, X)], date="2026-01-11")
    b.postmortem(T, L, "20260112T000000Z", "hank", route_class="probabilistic")
    b.postmortem(T, L, "20260112T010000Z", "ivan", outcome="exhausted",
                 failure_class="missing-library")
    b.merge_record([], "2026-01-20")
    g = load_graph(gdir)
    f = d.route_facts(g, T, r["RA"])
    assert f["node"] == A and f["kind"] == "partial"
    assert f["approach"] == "A via L" and f["approach_source"] == "partial"
    assert f["holes"] == [L, X]
    assert (f["count"], f["proved"], f["open"], f["dead"]) == (2, 1, 1, 0)
    # L: two postmortems and its two merged routes
    assert f["attempts"] == 4
    assert f["refuted_route_classes"] == ["probabilistic"]
    # L's statement entered with the merge of RA (2026-01-10); the witness came with it
    assert f["oldest_ready_since"] == "2026-01-10T00:00:00Z"
    assert f["alive"] is True and f["closure"] is None
