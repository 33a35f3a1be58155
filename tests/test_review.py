"""The formalization review (D-9 v3.39; issue 27): what the record derives, what step 2
admits, what the gate checks in Lean, and step 9 waiting on a held review.

The review is tests/review_support.py's: demo's root (``∀ n, 2 < n → n ≠ 0``), three
candidates (the registry's, carol's equivalent one, a model's wrong one), a negation
exhibit discarding the wrong one and both directions between the other two.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, PROOF_ROOT, S_ROOT, RecordingToolchain, Scenario, T, identities
from review_support import (
    C1,
    C1_C2,
    C2,
    C2_LEAN,
    C3,
    C3_NEGATION,
    DATE,
    Review,
    lean_of,
    rec_path,
    review_repo,
)
from standin import RecordedToolchain

from network.gate.lean.toolchain import MissingToolchain
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.gate.steps.context import Review as ForgeReview
from network.record import derive
from network.record import models as m


def _state(r: Review) -> derive.ReviewState:
    st = derive.review_state(r.graph(), T)
    assert st is not None
    return st


# --- what the record derives ----------------------------------------------------------


def test_no_review_until_an_opening_counts(tmp_path: Path) -> None:
    """An unsigned opening is no review (a steward's opening is a signed role act)."""
    r = review_repo(tmp_path / "g")
    assert derive.review_state(r.graph(), T) is None
    r.open(signed=False)
    assert derive.review_state(r.graph(), T) is None
    r.open()
    st = _state(r)
    assert st.held and st.intent_signer == "steve" and st.grade == "mechanical-only"
    assert st.missing == ("no candidate survives stage 3",)


def test_a_kernel_checked_screen_discards_and_the_equivalents_cluster(tmp_path: Path) -> None:
    """D-9 v3.39 stages 3 and 4: the negation exhibit discards c3 with itself as the
    reason; c1 and c2, each direction proved, are one cluster; c1 is the root's statement;
    every survivor screened three ways and no question: the automated stages complete."""
    r = review_repo(tmp_path / "g")
    r.complete()
    st = _state(r)
    by = {c.path: c for c in st.candidates}
    assert by[C3].outcome == "discarded" and by[C3].discarded_by is not None
    assert by[C3].screens["negation"] == "succeeded"
    assert by[C1].outcome == by[C2].outcome == "surviving"
    assert by[C1].is_root and not by[C2].is_root
    assert st.clusters == ((C1, C2),)
    assert {(d.left, d.right, d.status) for d in st.directions} == {
        (C1, C2, "proved"), (C2, C1, "proved")}
    assert st.complete and st.missing == ()
    assert st.summary == "3 candidates, 1 cluster, 0 questions waiting"
    assert st.grade == "mechanical-only" and not st.vouches  # no signature yet


def test_an_exhibit_the_gate_did_not_pass_discards_nothing(tmp_path: Path) -> None:
    """Only a merged (gate-attested) exhibit is evidence: the same files without a pass
    attestation leave c3 surviving, and an uncompiled candidate never survives."""
    r = review_repo(tmp_path / "g")
    r.open()
    r.three_candidates()
    r.exhibit("negation", C3, C3_NEGATION, "Demo.c3.negation", merged=False)
    r.candidate(rec_path("candidates", "20260102T000009Z", "erin"),
                "theorem Demo.c9 : True := by\n  sorry\n", merged=False,
                declaration="Demo.c9")
    by = {c.path: c for c in _state(r).candidates}
    assert by[C3].outcome == "surviving"
    assert by[rec_path("candidates", "20260102T000009Z", "erin")].outcome == "uncompiled"


def test_one_direction_is_no_cluster_and_a_failed_attempt_is_never_refuted(
        tmp_path: Path) -> None:
    """A cluster is derived from both directions proved, never claimed: with c1 → c2 only,
    two clusters stand and the stages are not complete; an attempt at c2 → c1 leaves the
    direction open, not refuted."""
    r = review_repo(tmp_path / "g")
    r.open()
    r.three_candidates()
    r.exhibit("negation", C3, C3_NEGATION, "Demo.c3.negation")
    r.exhibit("implies", C1, C1_C2, "Demo.c1_c2", other=C2)
    r.b.write_yaml(rec_path("attempts", r.ts(), "bob"), {
        "schema": "review-attempt/v1", "target": T, "candidate": C2, "other": C1,
        "tool": "aesop", "budget": "60 s", "by": "bob", "date": DATE})
    r.screens_tried(C1)
    r.screens_tried(C2)
    st = _state(r)
    assert st.clusters == ((C1,), (C2,))
    back = next(d for d in st.directions if d.left == C2)
    assert back.status == "open" and len(back.attempts) == 1
    assert not st.complete and any("2 clusters" in x for x in st.missing)


def test_the_format_rule_returns_a_candidate_and_an_unscreened_one_holds_the_stages(
        tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.open(concepts=["big"])
    r.candidate(C2, C2_LEAN, declaration="Demo.c2")
    r.candidate(rec_path("candidates", "20260102T000005Z", "erin"),
                "def Demo.c5.big (n : Nat) : Prop := 2 < n\n\n"
                "theorem Demo.c5 (n : Nat) (h : Demo.c5.big n) : 0 < n := by\n  sorry\n",
                declaration="Demo.c5", concepts={"big": "Demo.c5.big"})
    st = _state(r)
    by = {c.path: c.outcome for c in st.candidates}
    assert by[C2] == "returned"
    assert any("screen 'proves' not attempted" in x for x in st.missing)


def test_questions_wait_for_the_intent_signers_signed_answer(tmp_path: Path) -> None:
    """An answer counts only when the intent signer gives it, signed; until then the
    question waits and the stages are not complete. An answer without a source is
    flagged."""
    r = review_repo(tmp_path / "g")
    r.complete()
    q = r.question()
    st = _state(r)
    assert not st.complete and st.summary.endswith("1 question waiting")
    r.answer(q, by="erin")  # not the intent signer
    r.answer(q, signed=False)  # the intent signer, unsigned
    assert not _state(r).complete
    r.answer(q, source=None)
    st = _state(r)
    assert st.complete and st.questions[0].flagged


def test_the_ladder_rises_with_the_signatures(tmp_path: Path) -> None:
    """D-9 v3.39's ladder: one counting signature by a non-author is screened-and-signed
    (and vouches for the root: held, complete, the root's statement in the cluster); the
    intent signer's makes it author-attested; both, with a person-written candidate (c2)
    in the cluster, expert-attested."""
    r = review_repo(tmp_path / "g")
    r.complete()
    r.sign("independent", "erin")
    st = _state(r)
    assert st.grade == "screened-and-signed" and st.vouches
    assert derive.root_vouched(r.graph(), T)
    r.sign("intent", "steve")
    st = _state(r)
    assert st.grade == "expert-attested" and not st.capped


def test_signatures_that_do_not_count_say_why(tmp_path: Path) -> None:
    """The independent signer wrote no candidate in the cluster and is not the intent
    signer; a signature of another set of candidates, an unsigned one, a send-back and a
    second one in a role count for nothing."""
    r = review_repo(tmp_path / "g")
    r.complete()
    r.sign("independent", "carol")  # wrote c2
    r.sign("independent", "steve")  # the intent signer
    r.sign("independent", "erin", [C1])  # not the surviving cluster
    r.sign("independent", "erin", signed=False)
    r.sign("independent", "erin", decision="send-back")
    r.sign("intent", "erin")  # not the intent signer
    st = _state(r)
    assert [s.counts for s in st.signatures] == [False] * 6
    assert st.grade == "mechanical-only"
    r.sign("independent", "erin")
    r.sign("independent", "frank")
    st = _state(r)
    assert [s.counts for s in st.signatures][-2:] == [True, False]
    assert "given already" in (st.signatures[-1].why_not or "")


def test_a_cluster_without_a_person_written_candidate_caps(tmp_path: Path) -> None:
    """Both signatures over a cluster of the registry's statement alone: expert-attested
    needs a person-written candidate in the cluster, so the grade caps at
    screened-and-signed and the cap is shown."""
    r = review_repo(tmp_path / "g")
    r.open()
    r.three_candidates()
    r.exhibit("negation", C3, C3_NEGATION, "Demo.c3.negation")
    # c2 discarded too: proved outright (it is true), which the proves screen finds
    r.exhibit("proves", C2, "theorem Demo.c2 (n : Nat) (h : 3 ≤ n) : n ≠ 0 := by\n  omega\n",
              "Demo.c2")
    r.screens_tried(C1)
    r.sign("independent", "erin", [C1])
    r.sign("intent", "steve", [C1])
    st = _state(r)
    assert st.clusters == ((C1,),) and st.grade == "screened-and-signed" and st.capped


def test_a_background_review_never_vouches(tmp_path: Path) -> None:
    """The owner's ruling of 2026-10-12: a background review informs and never holds
    step 9, so it never vouches either."""
    r = review_repo(tmp_path / "g")
    r.complete()
    opening = next(p for p in r.b.root.joinpath(f"targets/{T}/review/openings").iterdir())
    opening.unlink()
    r.open(role="background")
    r.sign("independent", "erin")
    r.sign("intent", "steve")
    st = _state(r)
    assert not st.held and st.grade == "expert-attested" and not st.vouches
    assert not derive.root_vouched(r.graph(), T)


def test_graph_json_carries_the_review(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.complete()
    view = derive.graph_view(r.graph(), T)["review"]
    assert view["summary"] == "3 candidates, 1 cluster, 0 questions waiting"
    assert [c["outcome"] for c in view["candidates"]] == ["surviving", "surviving",
                                                          "discarded"]
    assert view["candidates"][0]["registry"]["name"] == "Formal Conjectures"


# --- step 2 -----------------------------------------------------------------------------


def _gate(tmp_path: Path, r: Review, base: str, head: str, submitter: str,
          toolchain: Any = MissingToolchain) -> Any:
    return run_gate(r.b.root, base, head, toolchain=toolchain, sandbox=Sandbox(),
                    submitter=submitter, work_dir=tmp_path / "wd")


def _codes(out: Any) -> set[str]:
    return {d.code for run in out.runs for st in run.steps if not st.ok
            for d in st.diagnostics}


def _pr(tmp_path: Path, r: Review, submitter: str, act: Any) -> Any:
    """Commit the review as built, then ``act(r)`` as the pull request, and judge it."""
    base = r.commit("base")
    act(r)
    head = r.commit("pull request")
    return _gate(tmp_path, r, base, head, submitter)


def test_a_stewards_signed_opening_passes_step_2(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    out = _pr(tmp_path, r, "steve", lambda r: r.open())
    assert out.verdict == "pass", _codes(out)
    (run,) = out.runs
    assert run.artifact.kind.value == "review-opening" and [s.step for s in run.steps] == [2]


@pytest.mark.parametrize(("submitter", "act", "code"), [
    ("alice", lambda r: r.open(by="alice", intent_signer="steve"), "role-not-permitted"),
    ("steve", lambda r: r.open(intent_signer="alice"), "review-intent-signer-not-steward"),
    ("steve", lambda r: r.open(signed=False), "role-act-unsigned"),
    ("steve", lambda r: r.open(role="proposer"), "review-opener-role"),
])
def test_an_opening_outside_the_rules_is_refused(tmp_path: Path, submitter: str, act: Any,
                                                 code: str) -> None:
    r = review_repo(tmp_path / "g")
    assert code in _codes(_pr(tmp_path, r, submitter, act))


def test_a_second_held_opening_is_refused(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.open()
    assert "review-already-open" in _codes(_pr(tmp_path, r, "curator",
                                               lambda r: r.open(role="curator",
                                                                by="curator")))


def test_acts_before_an_opening_are_refused(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    assert "review-not-open" in _codes(_pr(tmp_path, r, "bob", lambda r: r.question()))


def test_a_question_passes_and_two_acts_in_one_pull_request_do_not(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.complete()
    assert _pr(tmp_path, r, "bob", lambda r: r.question()).verdict == "pass"
    r2 = review_repo(tmp_path / "g2")
    r2.complete()
    out = _pr(tmp_path / "2", r2, "bob", lambda r: (r.question(), r.question()))
    assert "review-acts-batched" in _codes(out)


def test_only_the_intent_signer_answers_and_only_once(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.complete()
    q = r.question()
    assert "review-answer-not-intent-signer" in _codes(
        _pr(tmp_path, r, "erin", lambda r: r.answer(q, by="erin")))
    r2 = review_repo(tmp_path / "g2")
    r2.complete()
    q2 = r2.question()
    assert _pr(tmp_path / "a", r2, "steve", lambda r: r.answer(q2)).verdict == "pass"
    assert "review-question-answered" in _codes(
        _pr(tmp_path / "b", r2, "steve", lambda r: r.answer(q2)))
    assert "review-question-unknown" in _codes(
        _pr(tmp_path / "c", r2, "steve", lambda r: r.answer(C1)))


def test_a_signature_before_the_stages_complete_is_refused(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.open()
    r.three_candidates()
    assert "review-not-complete" in _codes(
        _pr(tmp_path, r, "erin", lambda r: r.sign("independent", "erin")))


@pytest.mark.parametrize(("who", "act", "code"), [
    ("steve", lambda r: r.sign("independent", "steve"), "review-signer-role"),
    ("erin", lambda r: r.sign("intent", "erin"), "review-signer-role"),
    ("carol", lambda r: r.sign("independent", "carol"), "review-signer-authored"),
    ("erin", lambda r: r.sign("independent", "erin", [C1]), "review-cluster-not-surviving"),
    ("erin", lambda r: r.sign("independent", "erin", signed=False), "role-act-unsigned"),
])
def test_signatures_outside_the_rules_are_refused(tmp_path: Path, who: str, act: Any,
                                                  code: str) -> None:
    """Self-signing as the independent signer, signing as the intent signer without
    being it, a signer who wrote a surviving candidate, a signature of another cluster
    and an unsigned one are refused at step 2."""
    r = review_repo(tmp_path / "g")
    r.complete()
    assert code in _codes(_pr(tmp_path, r, who, act))


def test_a_replayed_signature_is_refused(tmp_path: Path) -> None:
    """The same signature record filed again (a replay) adds nothing and is refused."""
    r = review_repo(tmp_path / "g")
    r.complete()
    first = r.sign("independent", "erin")
    replay = r.b.read(first)
    out = _pr(tmp_path, r, "erin",
              lambda r: r.b.write(rec_path("signatures", "20260109T000000Z", "erin"), replay))
    assert "review-signature-repeated" in _codes(out)


def test_a_candidate_smuggling_commands_is_refused_before_any_build(tmp_path: Path) -> None:
    """The import-time screen and D-3 v3.28's statement commands apply to a candidate as
    to a Statement.lean: an #eval or an initializer never reaches Lean; and without Lean
    the run fails closed (toolchain-missing) after listing what needs none."""
    r = review_repo(tmp_path / "g")
    r.open()
    smuggled = ("theorem Demo.s (n : Nat) : n = n := by\n  sorry\n"
                "#eval IO.println \"hi\"\n")
    out = _pr(tmp_path, r, "erin", lambda r: r.candidate(
        rec_path("candidates", "20260104T000000Z", "erin"), smuggled, merged=False,
        declaration="Demo.s"))
    codes = _codes(out)
    assert "statement-command-refused" in codes and out.verdict != "pass"
    r2 = review_repo(tmp_path / "g2")
    r2.open()
    out = _pr(tmp_path / "2", r2, "erin", lambda r: r.candidate(
        rec_path("candidates", "20260104T000000Z", "erin"), C2_LEAN, merged=False,
        declaration="Demo.c2"))
    assert _codes(out) == {"toolchain-missing"}
    assert [s.step for s in out.runs[0].steps] == [2, 1]


_REGISTRY = {"name": "FC", "repository": "https://example.org/fc"}


@pytest.mark.parametrize(("lean", "over", "code"), [
    ("theorem Demo.r : True := by\n  sorry\n",
     {"origin": "registry", "read_others": None, "declaration": "Demo.r",
      "registry": _REGISTRY}, "review-registry-not-root"),
    (C2_LEAN, {"declaration": "Demo.c9"}, "review-candidate-copy"),
    ("theorem Demo.c2 : True := by\n  sorry\n", {"declaration": "Demo.c2"},
     "review-declaration-taken"),
    ("theorem Demo.c4 : True := by\n  sorry\n",
     {"declaration": "Demo.c4", "lean_sha256": "0" * 64}, "review-lean-hash-mismatch"),
    ("theorem Demo.c6 (n : Nat) (h : 2 < n) : n ≠ 0 := by\n  sorry\n",
     {"declaration": "Demo.c6", "concepts": {"big": "Demo.c6.Big"}},
     "review-concept-undeclared"),
    ("-- my own\n" + S_ROOT, {"declaration": "Demo.main"}, "review-root-not-registry"),
    ("theorem Demo.c7 (n : Nat) (h : 2 < n) : n ≠ 0 := by\n  sorry\n",
     {"declaration": "Demo.c7", "concepts": {"big": "Demo.c7"}},
     "review-concept-not-predicate"),
])
def test_candidate_rules(tmp_path: Path, lean: str, over: dict[str, Any], code: str) -> None:
    """A registry candidate is the root's bytes; no candidate repeats another's bytes or
    declaration; a record names its Lean's hash."""
    r = review_repo(tmp_path / "g")
    r.open()
    r.candidate(C2, C2_LEAN, declaration="Demo.c2")
    path = rec_path("candidates", "20260104T000000Z", "erin")
    out = _pr(tmp_path, r, "erin", lambda r: r.candidate(path, lean, merged=False, **over))
    assert code in _codes(out)


def test_a_candidate_is_its_record_and_its_lean(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.open()
    path = rec_path("candidates", "20260104T000000Z", "erin")

    def only_record(r: Review) -> None:
        r.candidate(path, "theorem Demo.c5 : True := by\n  sorry\n", merged=False,
                    declaration="Demo.c5")
        r.b.remove(lean_of(path))

    assert "missing-file" in _codes(_pr(tmp_path, r, "erin", only_record))


@pytest.mark.parametrize(("act", "code"), [
    (lambda r: r.exhibit("negation", rec_path("candidates", "20260101T000000Z", "x"),
                         C3_NEGATION, "Demo.neg", merged=False), "review-candidate-unknown"),
    (lambda r: r.exhibit("proves", C2, "theorem Demo.other : True := trivial\n",
                         "Demo.other", merged=False), "review-exhibit-theorem"),
    (lambda r: r.exhibit("negation", C3, C3_NEGATION, "Demo.c3", merged=False),
     "review-exhibit-theorem"),
])
def test_exhibit_rules(tmp_path: Path, act: Any, code: str) -> None:
    """An exhibit names compiled candidates of the review; a proves exhibit restates the
    candidate's theorem under its name, and the other kinds name a theorem of their own."""
    r = review_repo(tmp_path / "g")
    r.open()
    r.three_candidates()
    assert code in _codes(_pr(tmp_path, r, "bob", act))


# --- the gate's Lean ----------------------------------------------------------------------


def _recorded(tmp_path: Path, r: Review, base: str, head: str, submitter: str,
              answers: dict[str, Any]) -> Any:
    """Judge once with the recorder (answers declared as Lean gives them for these bytes),
    then again on the recorded stand-in, which must agree."""
    from gate_scenarios import merge_recordings
    store: dict[str, dict[str, Any]] = {}
    sc = Scenario("review", {}, answers, submitter=submitter)
    first = _gate(tmp_path / "rec", r, base, head, submitter,
                  lambda spec: RecordingToolchain(spec, sc, store))
    merge_recordings(store, tmp_path / "recordings")
    again = _gate(tmp_path / "replay", r, base, head, submitter,
                  lambda spec: RecordedToolchain(spec, fixtures=tmp_path / "recordings"))
    assert again.verdict == first.verdict
    return again


def _rows(name: str, axioms: list[str]) -> dict[str, Any]:
    return {"ok": True, "code": None, "theorems": [
        {"name": name, "found": True, "type_equal": True, "axioms": axioms,
         "axiom_identities": identities(axioms)}]}


def test_a_candidate_is_built_and_its_declaration_found(tmp_path: Path) -> None:
    """Stage 3's compile: the gate builds the candidate (defs, then its module) and finds
    its declaration; Lean reports sorryAx for a statement stated with sorry, which a
    candidate is. Steps [2, 1, 3, 4]."""
    r = review_repo(tmp_path / "g")
    r.open()
    base = r.commit("base")
    path = rec_path("candidates", "20260104T000000Z", "erin")
    r.candidate(path, C2_LEAN, merged=False, declaration="Demo.c2")
    head = r.commit("candidate")
    out = _recorded(tmp_path, r, base, head, "erin", {
        "check_statement": lambda a: _rows(a["theorems"][0], ["sorryAx"])})
    assert out.verdict == "pass", _codes(out)
    assert [s.step for s in out.runs[0].steps] == [2, 1, 3, 4]
    missing = _recorded(tmp_path / "m", r, base, head, "erin", {
        "check_statement": {"ok": False, "code": "declaration-missing", "theorems": [
            {"name": "Demo.c2", "found": False, "type_equal": False, "axioms": [],
             "axiom_identities": []}]}})
    assert "declaration-missing" in _codes(missing)


def test_a_negation_exhibit_is_checked_against_the_candidate_and_its_axioms(
        tmp_path: Path) -> None:
    """A negation exhibit passes with its theorem's type the one Lean builds from the
    candidate (check_relation) and its axioms allowed; one whose proof used sorry is
    refused at step 5 (sorry-used): an exhibit is a proof."""
    r = review_repo(tmp_path / "g")
    r.open()
    r.three_candidates()
    base = r.commit("base")
    r.exhibit("negation", C3, C3_NEGATION, "Demo.c3.negation", merged=False)
    head = r.commit("exhibit")
    calls: list[dict[str, Any]] = []

    def relation(a: dict[str, Any]) -> dict[str, Any]:
        calls.append(a)
        return _rows(a["theorem"], [])  # decide needs no axiom

    out = _recorded(tmp_path, r, base, head, "bob", {"check_relation": relation})
    assert out.verdict == "pass", _codes(out)
    assert [s.step for s in out.runs[0].steps] == [2, 1, 3, 4, 5]
    assert calls[0]["kind"] == "negation" and calls[0]["left"][1] == "Demo.c3"
    r2 = review_repo(tmp_path / "g2")
    r2.open()
    r2.three_candidates()
    base = r2.commit("base")
    cheat = "theorem Demo.c3.negation : ¬ ∀ (n : Nat) (h : 2 < n), n = 0 := by\n  sorry\n"
    r2.exhibit("negation", C3, cheat, "Demo.c3.negation", merged=False)
    head = r2.commit("exhibit")
    out = _recorded(tmp_path / "s", r2, base, head, "bob", {
        "check_relation": lambda a: _rows(a["theorem"], ["sorryAx"])})
    assert "sorry-used" in _codes(out)


def test_an_implies_exhibit_names_both_candidates(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.open()
    r.three_candidates()
    base = r.commit("base")
    r.exhibit("implies", C1, C1_C2, "Demo.c1_c2", other=C2, merged=False)
    head = r.commit("exhibit")
    seen: list[dict[str, Any]] = []

    def relation(a: dict[str, Any]) -> dict[str, Any]:
        seen.append(a)
        return _rows(a["theorem"], [])

    out = _recorded(tmp_path, r, base, head, "bob", {"check_relation": relation})
    assert out.verdict == "pass", _codes(out)
    assert seen[0]["kind"] == "implies"
    assert (seen[0]["left"][1], seen[0]["right"][1]) == ("Demo.main", "Demo.c2")


# --- step 9 -------------------------------------------------------------------------------


def _proof_pr(tmp_path: Path, r: Review, review: ForgeReview | None = None) -> Any:
    from gate_scenarios import merge_recordings, precheck_raw
    base = r.commit("base")
    r.b.write(f"{ND}/root/Proof.lean", PROOF_ROOT)
    head = r.commit("proof")
    store: dict[str, dict[str, Any]] = {}
    sc = Scenario("proof", {}, {}, submitter="alice")
    raw = precheck_raw(r.b.root, base, head)
    run_gate(r.b.root, base, head, toolchain=lambda s: RecordingToolchain(s, sc, store),
             sandbox=Sandbox(), submitter="alice", review=review, precheck_raw=raw,
             work_dir=tmp_path / "rec")
    merge_recordings(store, tmp_path / "recordings")
    return run_gate(r.b.root, base, head,
                    toolchain=lambda s: RecordedToolchain(s, fixtures=tmp_path / "recordings"),
                    sandbox=Sandbox(), submitter="alice", review=review, precheck_raw=raw,
                    work_dir=tmp_path / "wd")


def test_a_held_review_holds_the_root_until_complete_and_signed(tmp_path: Path) -> None:
    """D-4 step 9 with D-9 v3.39: while a steward's review is incomplete, a proof of the
    root waits on it even with a steward's approving review of the proof; once the review
    is complete and signed by a non-author it passes, the review's opening recorded as
    its certificate."""
    r = review_repo(tmp_path / "g")
    r.complete()
    r.question()  # one question waits
    approving = ForgeReview("steve", True, ())
    out = _proof_pr(tmp_path / "1", r, approving)
    assert out.verdict == "held", _codes(out)
    att = out.runs[0].attestation
    assert att is not None and att.step9 == m.Step9(basis="awaiting-review")
    r = review_repo(tmp_path / "g2")
    r.complete()
    r.sign("independent", "erin")
    out = _proof_pr(tmp_path / "2", r)
    assert out.verdict == "pass", _codes(out)
    att = out.runs[0].attestation
    assert att is not None and att.step9.basis == "certificate"
    assert att.step9.certificate is not None and "/review/openings/" in att.step9.certificate


def test_without_a_review_step_9_is_what_it_was(tmp_path: Path) -> None:
    """No review (or a background one): the proof is held for a non-author's review of
    it, and that review passes it (basis review), as before v3.39."""
    r = review_repo(tmp_path / "g")
    out = _proof_pr(tmp_path / "1", r)
    assert out.verdict == "held"
    r = review_repo(tmp_path / "g2")
    r.open(role="background")
    out = _proof_pr(tmp_path / "2", r, ForgeReview("steve", True, ()))
    assert out.verdict == "pass", _codes(out)
    assert out.runs[0].attestation.step9.basis == "review"


def test_a_review_on_the_record_validates_and_a_dangling_reference_does_not(
        tmp_path: Path) -> None:
    """``lemmata validate`` reads every review record against its schema and its
    references: a whole review validates clean; an answer naming no question is
    ``dangling-reference``."""
    from network.record.validate import validate_graph

    r = review_repo(tmp_path / "g")
    r.complete()
    r.answer(r.question())
    r.sign("independent", "erin")
    assert validate_graph(r.b.root) == []
    r.answer(rec_path("questions", "20260101T000000Z", "nobody"))
    codes = {p.code for p in validate_graph(r.b.root)}
    assert "dangling-reference" in codes


# --- intent tests and their probes ---------------------------------------------------------


def test_candidates_that_read_a_case_differently_make_a_question_then_the_answer_discards(
        tmp_path: Path) -> None:
    """D-9 v3.39: "is 2 greater than 2?" computed by both candidates' predicates: one
    says no, one says yes, so no expected value is written and the stages wait on a
    question; the intent signer answers, an intent test sourced to the answer is filed,
    and the candidate whose probe proved the opposite is discarded with that probe as
    the reason."""
    from review_support import CA, CB, probe_lean, two_readings

    r = review_repo(tmp_path / "g")
    two_readings(r)
    t2 = r.intent_test("big", ["2"], "computation")
    r.probe(t2, CA, False, probe_lean(CA, "Demo.a.Big", "2", "Demo.a.p2", False), "Demo.a.p2")
    r.probe(t2, CB, True, probe_lean(CB, "Demo.b.Big", "2", "Demo.b.p2", True), "Demo.b.p2")
    st = _state(r)
    (tv,) = st.tests
    assert tv.disagree and tv.expected is None
    assert {c: res for c, (res, _e) in tv.results.items()} == {CA: "fails", CB: "holds"}
    assert any("answer it differently" in x for x in st.missing)
    q = r.question()
    ans = r.answer(q, source="the problem's page: n > 2 is strict")
    t2b = r.intent_test("big", ["2"], "answer", expected="fails", answer=ans, by="steve")
    r.probe(t2b, CA, False, probe_lean(CA, "Demo.a.Big", "2", "Demo.a.q2", False), "Demo.a.q2")
    wrong = r.probe(t2b, CB, True, probe_lean(CB, "Demo.b.Big", "2", "Demo.b.q2", True),
                    "Demo.b.q2")
    st = _state(r)
    by = {c.path: c for c in st.candidates}
    assert by[CB].outcome == "discarded" and by[CB].discarded_by == wrong
    assert by[CA].outcome == "surviving"
    # the computation now has one survivor, who agrees with itself
    assert st.tests[0].expected == "fails" and not st.tests[0].disagree


def test_a_computation_every_survivor_agrees_on_is_the_weakest_expected_value(
        tmp_path: Path) -> None:
    from review_support import CA, CB, probe_lean, two_readings

    r = review_repo(tmp_path / "g")
    two_readings(r)
    t3 = r.intent_test("big", ["3"], "computation")
    r.probe(t3, CA, True, probe_lean(CA, "Demo.a.Big", "3", "Demo.a.p3", True), "Demo.a.p3")
    st = _state(r)
    assert st.tests[0].expected is None  # CB has not answered
    assert any("no probe of" in x and CB in x for x in st.missing)
    r.probe(t3, CB, True, probe_lean(CB, "Demo.b.Big", "3", "Demo.b.p3", True), "Demo.b.p3")
    st = _state(r)
    assert st.tests[0].expected == "holds" and not st.tests[0].disagree
    view = derive.graph_view(r.graph(), T)["review"]
    assert view["tests"][0]["results"][CA]["result"] == "holds"
    assert view["concepts"] == ["big"]


def test_a_test_sourced_to_an_answer_that_does_not_count_counts_for_nothing(
        tmp_path: Path) -> None:
    from review_support import CB, probe_lean, two_readings

    r = review_repo(tmp_path / "g")
    two_readings(r)
    q = r.question()
    forged = r.answer(q, by="erin")  # not the intent signer
    t = r.intent_test("big", ["2"], "answer", expected="fails", answer=forged)
    r.probe(t, CB, True, probe_lean(CB, "Demo.b.Big", "2", "Demo.b.p2", True), "Demo.b.p2")
    st = _state(r)
    assert st.tests == () and {c.path: c.outcome for c in st.candidates}[CB] == "surviving"


@pytest.mark.parametrize(("args", "code"), [
    (["2) ∨ (True"], "invalid-record"),  # outside the term alphabet: the schema refuses
    (["(by decide)"], "review-test-term"),
    (["sorry"], "review-test-term"),
    (["(2"], "review-test-term"),
    (["2) (3"], "review-test-term"),
])
def test_an_intent_tests_arguments_are_plain_values(tmp_path: Path, args: list[str],
                                                    code: str) -> None:
    """The gate writes a test's arguments into the probe's statement, so each is a value:
    no tactic block, no sorry, parentheses that cannot close the probe's own."""
    from review_support import two_readings

    r = review_repo(tmp_path / "g")
    two_readings(r)
    out = _pr(tmp_path, r, "bob", lambda r: r.intent_test("big", args, "computation"))
    assert code in _codes(out)


def test_intent_test_rules(tmp_path: Path) -> None:
    """A test names a concept of the opening; sourced to an answer, a counting one; a
    probe names a test of the review."""
    from review_support import CA, probe_lean, two_readings

    r = review_repo(tmp_path / "g")
    two_readings(r)
    assert "review-test-concept" in _codes(_pr(
        tmp_path / "1", r, "bob", lambda r: r.intent_test("prime", ["2"], "computation")))
    assert "review-test-source" in _codes(_pr(
        tmp_path / "2", r, "bob", lambda r: r.intent_test(
            "big", ["2"], "answer", expected="fails",
            answer=rec_path("answers", "20260101T000000Z", "steve"))))
    assert "review-test-unknown" in _codes(_pr(
        tmp_path / "3", r, "bob", lambda r: r.probe(
            rec_path("tests", "20260101T000000Z", "bob"), CA, True,
            probe_lean(CA, "Demo.a.Big", "3", "Demo.a.p3", True), "Demo.a.p3", merged=False)))


def test_a_probe_is_checked_against_the_statement_the_gate_writes(tmp_path: Path) -> None:
    """The gate writes the probe's statement from the base's test and candidate (the
    candidate's predicate for the concept at the test's arguments) and checks the
    exhibit's theorem states exactly it; the exhibit never writes what it is checked
    against."""
    from review_support import CA, module_of, probe_lean, two_readings

    from network.gate.review_judge import probe_statement

    r = review_repo(tmp_path / "g")
    two_readings(r)
    t3 = r.intent_test("big", ["3"], "computation")
    base = r.commit("base")
    r.probe(t3, CA, True, probe_lean(CA, "Demo.a.Big", "3", "Demo.a.p3", True), "Demo.a.p3",
            merged=False)
    head = r.commit("probe")
    seen: list[dict[str, Any]] = []

    def check(a: dict[str, Any]) -> dict[str, Any]:
        seen.append(a)
        return _rows(a["theorems"][0], [])

    out = _recorded(tmp_path, r, base, head, "bob", {"check_statement": check})
    assert out.verdict == "pass", _codes(out)
    assert seen[0]["statement_module"].startswith("Lemmata.demo.Review.Probes.")
    assert probe_statement(module_of(CA), "Demo.a.Big", ["3"], "Demo.a.p3", True) == (
        f"import {module_of(CA)}\n\ntheorem Demo.a.p3 : Demo.a.Big (3) := by\n  sorry\n"
        .encode())
    assert b"\xc2\xac (Demo.a.Big (2))" in probe_statement("M", "Demo.a.Big", ["2"], "t",
                                                            False)


def test_mutants_measure_the_tests_and_one_they_all_pass_is_a_question(
        tmp_path: Path) -> None:
    """D-9 v3.39 stage 6: a mutant that reads "greater than 2" as "greater than 3"
    (strength drift) is caught by the test at 3; one that also bounds n (wrong domain)
    passes every test, so the stages wait until a question names it. Mutants never
    survive or join a cluster; the page reports how many the tests catch."""
    from review_support import CA, CA_LEAN, probe_lean

    r = review_repo(tmp_path / "g")
    r.open(concepts=["big"])
    r.candidate(CA, CA_LEAN, declaration="Demo.a", concepts={"big": "Demo.a.Big"})
    r.screens_tried(CA)
    t3 = r.intent_test("big", ["3"], "computation")
    r.probe(t3, CA, True, probe_lean(CA, "Demo.a.Big", "3", "Demo.a.p3", True), "Demo.a.p3")
    strong = rec_path("candidates", "20260102T000020Z", "bob")
    r.candidate(strong, "def Demo.m1.Big (n : Nat) : Prop := 3 < n\n\n"
                "theorem Demo.m1 (n : Nat) (h : Demo.m1.Big n) : n ≠ 0 := by\n  sorry\n",
                declaration="Demo.m1", concepts={"big": "Demo.m1.Big"}, mutant_of=CA,
                defect_class="strength-drift")
    bounded = rec_path("candidates", "20260102T000021Z", "bob")
    r.candidate(bounded, "def Demo.m2.Big (n : Nat) : Prop := 2 < n ∧ n < 1000\n\n"
                "theorem Demo.m2 (n : Nat) (h : Demo.m2.Big n) : n ≠ 0 := by\n  sorry\n",
                declaration="Demo.m2", concepts={"big": "Demo.m2.Big"}, mutant_of=CA,
                defect_class="wrong-domain")
    assert _state(r).complete is False  # neither mutant probed yet
    r.probe(t3, strong, False, probe_lean(strong, "Demo.m1.Big", "3", "Demo.m1.p3", False),
            "Demo.m1.p3")
    r.probe(t3, bounded, True, probe_lean(bounded, "Demo.m2.Big", "3", "Demo.m2.p3", True),
            "Demo.m2.p3")
    st = _state(r)
    by = {c.path: c for c in st.candidates}
    assert by[strong].outcome == "mutant" and by[strong].caught_by == t3
    assert by[bounded].caught_by is None
    assert st.clusters == ((CA,),)
    assert st.missing == ((f"{bounded}: a mutant every intent test passes, a question for "
                           "the intent signer"),)
    assert st.summary == "1 candidate, 1 cluster, 0 questions waiting, 1 of 2 mutants caught"
    view = derive.graph_view(r.graph(), T)["review"]
    assert view["mutants"] == {"total": 2, "caught": 1}
    q = rec_path("questions", r.ts(), "bob")
    r.b.write_yaml(q, {"schema": "review-question/v1", "target": T,
                       "question": "Is a number above 1000 big?", "case": "n = 1001",
                       "candidates": [CA, bounded], "by": "bob", "date": DATE})
    r.answer(q)
    assert _state(r).complete


def test_a_mutant_perturbs_a_surviving_candidate(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.complete()
    path = rec_path("candidates", "20260104T000000Z", "bob")
    out = _pr(tmp_path, r, "bob", lambda r: r.candidate(
        path, "theorem Demo.m (n : Nat) (h : 3 < n) : n ≠ 0 := by\n  sorry\n", merged=False,
        declaration="Demo.m", mutant_of=C3, defect_class="strength-drift"))
    assert "review-mutant-of" in _codes(out)


def test_a_screen_on_the_roots_own_statement_is_a_question_not_a_discard(
        tmp_path: Path) -> None:
    """D-9 v3.12: deriving a falsehood from the root (or proving it) is routed to a person,
    never a label. A screen exhibit on the root's own statement leaves it surviving and
    holds the stages until an answered question names the exhibit; a screen on any other
    candidate discards it (c3's negation)."""
    r = review_repo(tmp_path / "g")
    r.complete()
    ex = r.exhibit("proves", C1, PROOF_ROOT, "Demo.main")
    st = _state(r)
    by = {c.path: c for c in st.candidates}
    assert by[C1].outcome == "surviving" and by[C1].screens["proves"] == "succeeded"
    assert by[C3].outcome == "discarded"
    assert st.missing == ((f"{ex}: a screen succeeded on the root's own statement, a question "
                           "for the intent signer (a defect claim or a proof, never a label)"),)
    q = rec_path("questions", r.ts(), "bob")
    r.b.write_yaml(q, {"schema": "review-question/v1", "target": T,
                       "question": "The root is proved by omega: is it too weak?",
                       "case": "every n", "raised_by": ex, "by": "bob", "date": DATE})
    assert not _state(r).complete
    r.answer(q)
    assert _state(r).complete


def test_a_signers_later_decision_replaces_the_earlier_one(tmp_path: Path) -> None:
    """A signer takes an accept back by deciding again (send-back): the review is
    append-only, so the later record is the signer's decision."""
    r = review_repo(tmp_path / "g")
    r.complete()
    r.sign("independent", "erin")
    assert _state(r).vouches
    r.sign("independent", "erin", decision="send-back")
    st = _state(r)
    assert not st.vouches and st.signatures[0].why_not == "its signer decided again later"
    r.sign("independent", "erin")
    assert _state(r).vouches


def test_no_withdrawal_reaches_a_review_record(tmp_path: Path) -> None:
    """The review is append-only: a curator's withdrawal naming one of its records is
    refused at step 2, and derive reads a hand-committed one as nothing."""
    r = review_repo(tmp_path / "g")
    r.complete()
    q = r.question()

    def withdraw(r: Review) -> None:
        rec = r.b.signed(m.Withdrawal, {"schema": "withdrawal/v1", "withdraws": q,
                                        "by": "curator", "reason": "noise", "date": DATE},
                         "curator")
        r.b.write_yaml(f"targets/{T}/withdrawals/20260110T000000Z-curator.yaml", rec)

    assert "review-record-withdrawn" in _codes(_pr(tmp_path, r, "curator", withdraw))
    assert not _state(r).complete  # the question still waits


W_LEAN = ("def Demo.w.Big (n : Nat) : Prop := 2 < n\n\n"
          "theorem Demo.w (n : Nat) (h : Demo.w.Big n) : n ≠ 0 := by\n  sorry\n")
CW = rec_path("candidates", "20260102T000030Z", "bob")


def _wrapped(r: Review, *, merged: bool = True) -> None:
    r.open(concepts=["big"])
    r.three_candidates()
    r.candidate(CW, W_LEAN, merged=merged, origin="registry", read_others=None,
                registry={"name": "Formal Conjectures",
                          "repository": "https://github.com/google-deepmind/formal-conjectures"},
                declaration="Demo.w", concepts={"big": "Demo.w.Big"}, wraps=C1)


def test_a_wrapper_stands_for_an_imported_statement_the_format_rule_returns(
        tmp_path: Path) -> None:
    """D-9 v3.39 porting: the imported root writes "greater than 2" inline, so with the
    concept "big" the format rule returns it; a wrapper naming the part as its own
    predicate, its theorem definitionally the original's, stands for it: the root's
    statement in the review, credited to the registry, never person-written."""
    r = review_repo(tmp_path / "g")
    _wrapped(r)
    by = {c.path: c for c in _state(r).candidates}
    assert by[C1].outcome == "returned" and by[C1].is_root
    assert by[CW].outcome == "surviving" and by[CW].is_root


def test_the_gate_checks_a_wrapper_is_the_original_by_rfl(tmp_path: Path) -> None:
    """The gate builds the wrapper beside the imported candidate and asks Lean whether the
    two theorems' types are definitionally equal (``defeq``: ``Demo.w.Big n`` unfolds to
    ``2 < n``); a wrapper that changes the meaning is refused (review-wrapper-not-rfl)."""
    r = review_repo(tmp_path / "g")
    r.open(concepts=["big"])
    r.three_candidates()
    base = r.commit("base")
    r.candidate(CW, W_LEAN, merged=False, origin="registry", read_others=None,
                registry={"name": "FC", "repository": "https://example.org/fc"},
                declaration="Demo.w", concepts={"big": "Demo.w.Big"}, wraps=C1)
    head = r.commit("wrapper")
    seen: list[dict[str, Any]] = []

    def defeq(a: dict[str, Any]) -> dict[str, Any]:
        seen.append(a)
        return {"ok": True, "code": None, "defeq": True, "comparable": True}

    out = _recorded(tmp_path / "ok", r, base, head, "bob", {
        "check_statement": lambda a: _rows(a["theorems"][0], ["sorryAx"]), "defeq": defeq})
    assert out.verdict == "pass", _codes(out)
    assert seen[0]["left"][1] == "Demo.w" and seen[0]["right"][1] == "Demo.main"
    r2 = review_repo(tmp_path / "g2")
    r2.open(concepts=["big"])
    r2.three_candidates()
    base = r2.commit("base")
    r2.candidate(CW, W_LEAN.replace("2 < n", "3 < n"), merged=False, origin="registry",
                 read_others=None, registry={"name": "FC", "repository": "https://example.org/fc"},
                 declaration="Demo.w", concepts={"big": "Demo.w.Big"}, wraps=C1)
    head = r2.commit("wrapper")
    out = _recorded(tmp_path / "no", r2, base, head, "bob", {
        "check_statement": lambda a: _rows(a["theorems"][0], ["sorryAx"]),
        "defeq": {"ok": True, "code": None, "defeq": False, "comparable": True}})
    assert "review-wrapper-not-rfl" in _codes(out)


def test_a_wrapper_restates_a_registry_candidate(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.open(concepts=["big"])
    r.three_candidates()
    out = _pr(tmp_path, r, "bob", lambda r: r.candidate(
        CW, W_LEAN, merged=False, origin="registry", read_others=None,
        registry={"name": "FC", "repository": "https://example.org/fc"},
        declaration="Demo.w", concepts={"big": "Demo.w.Big"}, wraps=C2))
    assert "review-wraps-unknown" in _codes(out)


# --- the covers and witness probes -------------------------------------------------------

CLAIMED = rec_path("candidates", "20260102T000040Z", "erin")
CLAIMED_LEAN = ("def Demo.k.Big (n : Nat) : Prop := 2 < n\n\n"
                "def Demo.k.claim (Big : Nat → Prop) : Prop := ∀ n, Big n → n ≠ 0\n\n"
                "theorem Demo.k (n : Nat) (h : Demo.k.Big n) : n ≠ 0 := by\n  sorry\n")
#: were 0 the only big number, the claim would say 0 ≠ 0: it fails (h 0 rfl : 0 ≠ 0)
WITNESS_FAILS = ("import {module}\n\ntheorem Demo.k.w0 : ¬ (Demo.k.claim (fun x => x = (0))) "
                 ":=\n  fun h => h 0 rfl rfl\n")
#: with "big" empty the claim holds vacuously
COVERS_HOLDS = ("import {module}\n\ntheorem Demo.k.c : Demo.k.claim (fun _ => False) :=\n"
                "  fun _ h => False.elim h\n")


def _claimed(r: Review) -> None:
    r.open(concepts=["big"])
    r.candidate(CLAIMED, CLAIMED_LEAN, declaration="Demo.k", concepts={"big": "Demo.k.Big"},
                claim="Demo.k.claim")


def test_the_witness_and_covers_probes_apply_the_candidates_claim(tmp_path: Path) -> None:
    """D-9 v3.39's other two probes: covers (every concept made empty: the claim holds
    vacuously) and witness ("suppose 0 were the only big number": the claim fails). The
    gate writes each probe's statement from the candidate's claim and checks first that
    the claim applied to the candidate's own predicates is its theorem, by rfl."""
    from review_support import module_of

    from network.gate.review_judge import CLAIM_CHECK

    r = review_repo(tmp_path / "g")
    _claimed(r)
    witness = r.intent_test("big", ["0"], "cited", expected="fails", probe="witness",
                            citation="the words: 0 is not greater than 2")
    r.b.write_yaml(rec_path("tests", r.ts(), "bob"), {
        "schema": "review-test/v1", "target": T, "probe": "covers", "concept": "big",
        "source": "computation", "by": "bob", "date": DATE})
    base = r.commit("base")
    mod = module_of(CLAIMED)
    r.probe(witness, CLAIMED, False, WITNESS_FAILS.format(module=mod), "Demo.k.w0",
            merged=False)
    head = r.commit("witness probe")
    seen: dict[str, list[dict[str, Any]]] = {"defeq": [], "check_statement": []}

    def defeq(a: dict[str, Any]) -> dict[str, Any]:
        seen["defeq"].append(a)
        return {"ok": True, "code": None, "defeq": True, "comparable": True}

    def check(a: dict[str, Any]) -> dict[str, Any]:
        seen["check_statement"].append(a)
        return _rows(a["theorems"][0], [])

    out = _recorded(tmp_path / "w", r, base, head, "bob",
                    {"defeq": defeq, "check_statement": check})
    assert out.verdict == "pass", _codes(out)
    assert seen["defeq"][0]["left"][1] == CLAIM_CHECK
    assert seen["defeq"][0]["right"][1] == "Demo.k"
    assert seen["check_statement"][0]["statement_module"].startswith(
        "Lemmata.demo.Review.Probes.")
    refused = _recorded(tmp_path / "n", r, base, head, "bob", {
        "defeq": {"ok": True, "code": None, "defeq": False, "comparable": True},
        "check_statement": check})
    assert "review-claim-not-rfl" in _codes(refused)


def test_the_probe_statements_the_gate_writes() -> None:
    from network.gate.review_judge import probe_proposition
    from network.record import models as mm

    cand = mm.ReviewCandidate.model_validate({
        "schema": "review-candidate/v1", "target": "demo", "origin": "person",
        "read_others": False, "declaration": "Demo.k", "lean_sha256": "0" * 64,
        "concepts": {"big": "Demo.k.Big", "odd": "Demo.k.Odd"}, "claim": "Demo.k.claim",
        "by": "erin", "date": DATE})

    def test(probe: str, args: list[str]) -> mm.ReviewTest:
        return mm.ReviewTest.model_validate({
            "schema": "review-test/v1", "target": "demo", "probe": probe, "concept": "big",
            "args": args, "source": "computation", "by": "bob", "date": DATE})

    order = ["odd", "big"]
    assert probe_proposition(test("holds", ["3"]), cand, order) == "Demo.k.Big (3)"
    assert probe_proposition(test("covers", []), cand, order) == (
        "Demo.k.claim (fun _ => False) (fun _ => False)")
    assert probe_proposition(test("witness", ["5", "7"]), cand, order) == (
        "Demo.k.claim Demo.k.Odd (fun x => x = (5) ∨ x = (7))")


def test_a_claim_probe_needs_a_claim_and_a_candidate_without_one_is_returned(
        tmp_path: Path) -> None:
    """A covers or witness probe of a candidate that names no claim is refused
    (review-test-claim); once such a test counts, a candidate without a claim is
    returned to its author by the format rule."""
    from review_support import CA, CA_LEAN, module_of

    r = review_repo(tmp_path / "g")
    _claimed(r)
    r.candidate(CA, CA_LEAN, declaration="Demo.a", concepts={"big": "Demo.a.Big"})
    by = {c.path: c.outcome for c in _state(r).candidates}
    assert by[CA] == "surviving"
    covers = rec_path("tests", r.ts(), "bob")
    r.b.write_yaml(covers, {"schema": "review-test/v1", "target": T, "probe": "covers",
                            "concept": "big", "source": "computation", "by": "bob",
                            "date": DATE})
    by = {c.path: c.outcome for c in _state(r).candidates}
    assert by[CA] == "returned" and by[CLAIMED] == "surviving"
    out = _pr(tmp_path, r, "bob", lambda r: r.probe(
        covers, CA, True, COVERS_HOLDS.format(module=module_of(CA)), "Demo.a.c",
        merged=False))
    assert "review-test-claim" in _codes(out)


def test_a_claim_takes_every_concept(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.open(concepts=["big", "odd"])
    out = _pr(tmp_path, r, "erin", lambda r: r.candidate(
        CLAIMED, CLAIMED_LEAN, merged=False, declaration="Demo.k",
        concepts={"big": "Demo.k.Big"}, claim="Demo.k.claim"))
    assert "review-claim-concepts" in _codes(out)
