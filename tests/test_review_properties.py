"""Properties of the review's derivation over generated reviews (D-9 v3.39; STYLE.md 16).

Hypothesis draws a review of demo (tests/review_support.py): up to five candidates, some
compiled, some discarded by a screen, some pair directions proved, some screens
attempted, a question answered or not, and signatures by the intent signer, an author or
an outsider. Over every draw:

* clusters are exactly the classes of surviving candidates joined by directions proved
  both ways (never a discarded, returned or uncompiled candidate, each survivor in one);
* complete means one cluster, every survivor screened three ways, no question waiting;
* a counting signature is an accept of exactly that cluster, by the intent signer for
  its role or, for ``independent``, by someone who wrote none of its candidates;
* vouching means held, complete, graded screened-and-signed or higher, and the root's
  statement in the cluster; and
* the same record, read again, derives the same state (nothing rests on read order or
  on memo).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import S_ROOT
from review_support import T, rec_path, review_repo

from network.record import derive
from network.record.read.loader import load_graph
from network.record.review_models import SCREENS

AUTHORS = ("alice", "carol", "dave", "gina", "hugo")
SIGNERS = ("steve", "erin", "carol", "gina")


@st.composite
def reviews(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(1, 5))
    cands = [{"root": k == 0 and draw(st.booleans()), "compiled": draw(st.booleans()),
              "screened": draw(st.sampled_from(["none", "all", "some"])),
              "discarded": draw(st.booleans())} for k in range(n)]
    pairs = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                         max_size=n * n))
    return {"cands": cands, "pairs": {(a, b) for a, b in pairs if a != b},
            "question": draw(st.sampled_from(["none", "waiting", "answered"])),
            "sigs": draw(st.lists(st.tuples(st.sampled_from(["intent", "independent"]),
                                            st.sampled_from(SIGNERS),
                                            st.sampled_from(["accept", "send-back"])),
                                  max_size=3))}


def _build(root: Path, plan: dict[str, Any]) -> tuple[Any, list[str]]:
    r = review_repo(root)
    r.open()
    paths = []
    for k, c in enumerate(plan["cands"]):
        path = rec_path("candidates", f"20260102T00000{k}Z", AUTHORS[k])
        if c["root"]:
            r.candidate(path, S_ROOT, merged=c["compiled"], origin="registry",
                        read_others=None, declaration="Demo.main",
                        registry={"name": "FC", "repository": "https://example.org/fc"})
        else:
            r.candidate(path, f"theorem Demo.p{k} (n : Nat) (h : {k + 2} < n) : n ≠ 0 := by"
                              "\n  sorry\n", merged=c["compiled"], declaration=f"Demo.p{k}")
        paths.append(path)
        if c["discarded"]:
            r.exhibit("negation", path, f"theorem Demo.n{k} : False := sorry\n",
                      f"Demo.n{k}")
        screens = {"none": (), "some": SCREENS[:1], "all": SCREENS}[c["screened"]]
        for s in screens:
            r.b.write_yaml(rec_path("attempts", r.ts(), "bob"), {
                "schema": "review-attempt/v1", "target": T, "screen": s, "candidate": path,
                "tool": "aesop", "budget": "60 s", "by": "bob", "date": "2026-01-05"})
    for a, b in sorted(plan["pairs"]):
        r.exhibit("implies", paths[a], f"theorem Demo.i{a}_{b} : True := trivial\n",
                  f"Demo.i{a}_{b}", other=paths[b])
    if plan["question"] != "none":
        q = r.question()
        if plan["question"] == "answered":
            r.answer(q)
    st0 = derive.review_state(r.graph(), T)
    assert st0 is not None
    cluster = list(st0.clusters[0]) if len(st0.clusters) == 1 else paths[:1]
    for role, who, decision in plan["sigs"]:
        r.sign(role, who, cluster, decision=decision)
    return r, paths


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(plan=reviews())
def test_the_review_derivation_holds_its_rules(tmp_path_factory: Any,
                                                plan: dict[str, Any]) -> None:
    root = tmp_path_factory.mktemp("review")
    r, paths = _build(root / "g", plan)
    state = derive.review_state(r.graph(), T)
    assert state is not None
    by = {c.path: c for c in state.candidates}
    alive = {p for p in paths if by[p].outcome == "surviving"}
    # every survivor in exactly one cluster, nothing else in any
    members = [p for c in state.clusters for p in c]
    assert sorted(members) == sorted(alive)
    proved = {(d.left, d.right) for d in state.directions if d.status == "proved"}
    for a, b in proved:
        if (b, a) in proved:
            assert any(a in c and b in c for c in state.clusters)
    for c in state.clusters:  # a cluster of two or more is joined by proofs both ways
        if len(c) > 1:
            assert all(any((x, y) in proved and (y, x) in proved for y in c if y != x)
                       for x in c)
    for p in paths:
        k = paths.index(p)
        cand = plan["cands"][k]
        if not cand["compiled"]:
            assert by[p].outcome == "uncompiled"
        elif cand["discarded"] and not by[p].is_root:
            assert by[p].outcome == "discarded"
    waiting = plan["question"] == "waiting"
    screened = all(all(st_ != "untried" for st_ in by[p].screens.values()) for p in alive)
    root_screened = not any(by[p].is_root and plan["cands"][paths.index(p)]["discarded"]
                            for p in alive)
    assert state.complete == (bool(alive) and len(state.clusters) == 1 and screened
                              and not waiting and root_screened)
    cluster = set(state.clusters[0]) if len(state.clusters) == 1 else set()
    authors = {by[p].record.by for p in cluster if by[p].record.origin != "registry"}
    for s in state.signatures:
        if s.counts:
            rec = s.record
            assert rec.decision == "accept" and set(rec.cluster) == cluster
            assert state.complete
            assert (rec.by == "steve") if rec.role == "intent" else (
                rec.by != "steve" and rec.by not in authors)
    if state.vouches:
        assert state.held and state.complete and state.grade in derive.REVIEW_VOUCHING
        assert any(by[p].is_root for p in cluster)
    # the same record read again derives the same state
    again = derive.review_state(load_graph(r.b.root), T)
    assert again is not None
    assert (again.clusters, again.grade, again.missing, again.vouches) == (
        state.clusters, state.grade, state.missing, state.vouches)
