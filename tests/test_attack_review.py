"""Attacks on the formalization review (D-9 v3.39; docs/review.md; issue 27).

Each test states one attack in its docstring and asserts the SAFE behaviour, so a test
that fails shows a hole. Each docstring is marked:

* **HOLE**: failed on the code as reviewed (commit 6d72bad; the assertion that failed is
  the one named) and holds the fix made after it;
* **HOLDS**: passed there, and pins the defence.

One attack changed the rule rather than the code's reach: a screen exhibit on the root's
own statement no longer discards it (D-9 v3.12: a derived falsehood, or a proof, is routed
to a person, never a label); it waits as a question for the intent signer.

The review is tests/review_support.py's (demo's root ``∀ n, 2 < n → n ≠ 0``; steve is
its steward and intent signer; c1 the registry's root bytes ported by alice, c2 carol's
equivalent one, c3 a model's wrong one). Gate runs are judged as tests/test_review.py
judges them (``run_gate`` on a committed base and head, no Lean unless recorded).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, PROOF_ROOT, S_ROOT, RecordingToolchain, Scenario, T
from review_support import (
    C1,
    C1_C2,
    C2,
    C2_C1,
    C2_LEAN,
    C3,
    C3_NEGATION,
    DATE,
    RV,
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
from tests.graphs import sha256_hex

# --- helpers (as tests/test_review.py judges a pull request) ----------------------------


def _state(r: Review) -> derive.ReviewState:
    st = derive.review_state(r.graph(), T)
    assert st is not None
    return st


def _by(st: derive.ReviewState) -> dict[str, Any]:
    return {c.path: c for c in st.candidates}


def _gate(tmp_path: Path, r: Review, base: str, head: str, submitter: str,
          toolchain: Any = MissingToolchain) -> Any:
    return run_gate(r.b.root, base, head, toolchain=toolchain, sandbox=Sandbox(),
                    submitter=submitter, work_dir=tmp_path / "wd")


def _codes(out: Any) -> set[str]:
    return {d.code for run in out.runs for st in run.steps if not st.ok
            for d in st.diagnostics}


def _refusals(out: Any) -> set[str]:
    """What the run refused for, beyond the missing toolchain every Lean act ends on."""
    return _codes(out) - {"toolchain-missing"}


def _pr(tmp_path: Path, r: Review, submitter: str, act: Any) -> Any:
    base = r.commit("base")
    act(r)
    head = r.commit("pull request")
    return _gate(tmp_path, r, base, head, submitter)


def _proof_pr(tmp_path: Path, r: Review, review: ForgeReview | None = None) -> Any:
    """A proof of demo's root as alice's pull request, judged on the recorded stand-in."""
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


def _registry_root(r: Review, path: str = C1, **over: Any) -> str:
    """The root's Statement.lean ported as a registry candidate (by the path's pseudonym)."""
    root = r.b.read(f"{ND}/root/Statement.lean").decode()
    fields: dict[str, Any] = {
        "origin": "registry", "read_others": None, "declaration": "Demo.main",
        "registry": {"name": "Formal Conjectures",
                     "repository": "https://github.com/google-deepmind/formal-conjectures"}}
    fields.update(over)
    return r.candidate(path, root, **fields)


def _withdraw(r: Review, withdraws: str, who: str = "curator",
              ts: str = "20260106T000000Z") -> str:
    """A target-level withdrawal/v1 of ``withdraws``, signed for ``who`` (a curator)."""
    return r.b.withdrawal(T, None, ts, who, withdraws, reason="withdrawn by the curator")


def _rewrite_root(r: Review, text: str | None = None, **meta: Any) -> None:
    """Replace the root's Statement.lean (META's statement_hash follows) and/or add META
    fields, as a root proposed that way would have been merged."""
    meta_path = f"{ND}/root/META.yaml"
    rec = yaml.safe_load(r.b.read(meta_path))
    if text is not None:
        r.b.write(f"{ND}/root/Statement.lean", text)
        rec["statement_hash"] = sha256_hex(text.encode())
    rec.update(meta)
    r.b.write_yaml(meta_path, rec)


# === HOLES ===============================================================================


def test_curator_withdrawal_of_a_screen_exhibit_revives_the_root(tmp_path: Path) -> None:
    """HOLE. Attack: the root's own statement is discarded at stage 3 by a merged,
    kernel-checked ``proves`` exhibit (the statement is provable outright by ``omega``:
    the screen that catches a trivially weak formalization). One curator files a
    ``withdrawal/v1`` naming the exhibit; derive then reads the exhibit as absent, the
    root candidate survives, one signature completes the review and the root is vouched,
    so the very proof the screen found settles the target at step 9.

    Safe: a kernel-checked exhibit is a fact, not a judgment; docs/review.md says the
    discarding exhibit "stays on the page as the reason". Fails at
    ``assert by[C1].outcome == "discarded"`` (it reads ``surviving``) after the
    withdrawal. Product: network/record/derive/_index.py ``_Index._withdrawn`` (no
    review record is withdrawable), and step 2 (next test)."""
    r = review_repo(tmp_path / "g")
    r.open()
    _registry_root(r)
    ex = r.exhibit("proves", C1, PROOF_ROOT, "Demo.main")
    r.screens_tried(C1)
    st = _state(r)
    # the screen worked: on the root's own statement it is a question for a person
    # (D-9 v3.12: routed, never a label), not a discard
    assert _by(st)[C1].screens["proves"] == "succeeded" and not st.complete
    _withdraw(r, ex)
    r.sign("independent", "erin", [C1])
    st = _state(r)
    assert _by(st)[C1].screens["proves"] == "succeeded"
    assert any("a screen succeeded on the root's own statement" in x for x in st.missing), \
        "a withdrawal undid a kernel-checked screen"
    assert not st.vouches and not derive.root_vouched(r.graph(), T)


@pytest.mark.parametrize("what", ["exhibit", "question", "opening", "candidate"])
def test_a_withdrawal_of_a_review_record_is_refused_at_step_2(tmp_path: Path,
                                                              what: str) -> None:
    """HOLE. Attack: a curator's ``withdrawal/v1`` (filed under the target, signed) naming
    a review record: the exhibit that discarded a candidate, a question the intent
    signer has not answered, the held opening itself (which frees step 9 from the held
    review, see the next test) or a candidate that forms a second cluster. The review's
    records are append-only acts and D-18 v3.27's curator withdrawal covers status
    records and defect claims, yet step 2 judges it as any withdrawal: the curator's
    role act, verdict ``pass``.

    Safe: refused. Fails at ``assert out.verdict != "pass"``. Product:
    network/gate/records/actors.py ``_role_findings`` (``m.Withdrawal`` branch: refuse a
    ``withdraws`` under ``targets/<t>/review/``), with the derivation ignoring one."""
    r = review_repo(tmp_path / "g")
    r.complete()
    q = r.question()
    opening = next(str(p.relative_to(r.b.root)) for p in
                   (r.b.root / RV / "openings").iterdir())
    target = {"exhibit": next(str(p.relative_to(r.b.root)) for p in
                              sorted((r.b.root / RV / "exhibits").glob("*.yaml"))),
              "question": q, "opening": opening, "candidate": C2}[what]
    out = _pr(tmp_path, r, "curator", lambda r: _withdraw(r, target))
    assert out.verdict != "pass", f"a curator withdrew the review's {what} at step 2"


def test_withdrawing_the_held_opening_frees_step_9(tmp_path: Path) -> None:
    """HOLE. Attack on step 9's held review: a steward's review is open and incomplete
    (a question waits), so a proof of the root is held whatever reviews the proof. One
    curator withdraws the held opening; derive then finds no review, step 9 is "what it
    was before v3.39", and a steward's approving review of the proof passes it (basis
    ``review``) although the formalization was never settled.

    Safe: the proof stays held. Fails at ``assert out.verdict == "held"``. Product: as
    above (withdrawals of review records; network/record/derive/_shared.py
    ``_opening_counts`` reads ``ix.present``)."""
    r = review_repo(tmp_path / "g")
    r.complete()
    r.question()
    opening = next(str(p.relative_to(r.b.root)) for p in
                   (r.b.root / RV / "openings").iterdir())
    _withdraw(r, opening)
    out = _proof_pr(tmp_path, r, ForgeReview("steve", True, ()))
    assert out.verdict == "held", (out.verdict, out.runs[0].attestation.step9)


@pytest.mark.parametrize(("existing", "lean"), [
    # the new candidate's helper takes the existing candidate's declared theorem name
    (None, ("def Demo.c2 : Nat := 0\n\n"
           "theorem Demo.c5 (n : Nat) (h : 2 < n) : n ≠ 0 := by\n  sorry\n")),
    # both define the same concept name
    (("def Demo.Big (n : Nat) : Prop := 2 < n\n\n"
     "theorem Demo.c6 (n : Nat) (h : Demo.Big n) : n ≠ 0 := by\n  sorry\n"),
     ("def Demo.Big (n : Nat) : Prop := 3 ≤ n\n\n"
     "theorem Demo.c5 (n : Nat) (h : Demo.Big n) : n ≠ 0 := by\n  sorry\n")),
], ids=["helper-takes-a-declaration", "shared-concept-name"])
def test_a_candidate_redeclaring_another_candidates_name_is_refused(
        tmp_path: Path, existing: str | None, lean: str) -> None:
    """HOLE. Attack (anyone, no role): a candidate whose record ``declaration`` is new but
    whose Lean also declares a name another candidate's module declares (that
    candidate's theorem, or a shared concept name such as ``Demo.Big``). A pair's check
    imports both modules side by side, so no ``implies`` exhibit between the two can
    ever build: an equivalent reading, which no screen can discard, stays a second
    cluster forever and the held review never completes (step 9 waits for good).
    ``review-declaration-taken`` compares only the records' ``declaration`` fields.

    Safe: ``review-declaration-taken``. Fails at ``assert "review-declaration-taken" in
    codes``. Product: network/gate/records/review_rules.py ``_candidate``: compare every
    name each candidate's Lean declares (network/gate/screens/lean_commands.py reads
    them), not just the record's ``declaration``."""
    r = review_repo(tmp_path / "g")
    r.open()
    r.candidate(C2, C2_LEAN, declaration="Demo.c2")
    if existing is not None:
        r.candidate(rec_path("candidates", "20260102T000006Z", "carol"), existing,
                    declaration="Demo.c6")
    path = rec_path("candidates", "20260104T000000Z", "erin")
    out = _pr(tmp_path, r, "erin",
              lambda r: r.candidate(path, lean, merged=False, declaration="Demo.c5"))
    codes = _codes(out)
    assert "statement-command-refused" not in codes  # the text itself is a fine statement
    assert "review-declaration-taken" in codes, codes


_ROOT_WITH_DEF = ("/-- The demo root, its concept named. -/\n"
                  "def Demo.Big (n : Nat) : Prop := 2 < n\n\n"
                  "theorem Demo.main (n : Nat) (h : Demo.Big n) : n ≠ 0 := by\n  sorry\n")


def test_root_bytes_under_another_declaration_are_refused_at_step_2(tmp_path: Path) -> None:
    """HOLE. Attack: port the root's Statement.lean byte for byte as the registry
    candidate, but name as its ``declaration`` the root's concept ``Demo.Big`` (a def
    the file also declares) instead of the root's theorem ``Demo.main``. Every screen
    and pair check is then built from ``Demo.Big``, so no negation, vacuity or proves
    exhibit of the root's statement can ever be filed against it, and no other
    candidate can be proved equivalent; yet derive marks it ``is_root`` (bytes only).

    Safe: a candidate carrying the root's bytes names the root's declaration (META
    ``declaration``). Fails at ``assert _refusals(out)`` (only ``toolchain-missing``;
    Lean would find ``Demo.Big`` declared). Product: network/gate/records/review_rules.py
    ``_candidate`` (check ``rec.declaration`` against the root META's ``declaration``
    when the bytes are the root's)."""
    r = review_repo(tmp_path / "g")
    _rewrite_root(r, _ROOT_WITH_DEF)
    r.open()
    out = _pr(tmp_path, r, "alice", lambda r: _registry_root(r, merged=False,
                                                             declaration="Demo.Big"))
    assert _refusals(out), _codes(out)


def test_root_bytes_under_another_declaration_do_not_vouch(tmp_path: Path) -> None:
    """HOLE. The same attack read by derive: the candidate with the root's bytes but
    ``declaration: Demo.Big`` is ``is_root`` and, screened by attempts and signed, makes
    the review vouch for a root whose own theorem no exhibit could ever have reached.

    Safe: ``is_root`` holds only for the root's bytes under the root's declaration.
    Fails at ``assert not by[C1].is_root``. Product: network/record/derive/_shared.py
    ``_review_state`` (``is_root``: compare ``rec.declaration`` with the root META's)."""
    r = review_repo(tmp_path / "g")
    _rewrite_root(r, _ROOT_WITH_DEF)
    r.open()
    _registry_root(r, declaration="Demo.Big")
    r.screens_tried(C1)
    r.sign("independent", "erin", [C1])
    st = _state(r)
    assert st.complete  # the attack's premise: one survivor, screened, one cluster
    assert not _by(st)[C1].is_root, "a candidate about Demo.Big was taken for the root"
    assert not st.vouches


def test_a_root_copy_filed_as_a_persons_candidate_lifts_the_cap(tmp_path: Path) -> None:
    """HOLE. Attack: mallory files the root's Statement.lean byte for byte as her own
    candidate (``origin: person``, ``read_others: false``) instead of as the registry's.
    ``review-registry-not-root`` binds a registry candidate to the root's bytes but
    nothing binds the root's bytes to the registry origin, so the cluster now holds a
    "person-written candidate" and the v3.39 cap is lifted: both signatures grade the
    root ``expert-attested`` although no person wrote any Lean of the cluster (the root
    was imported; META names no author).

    Safe: a copy of the root's bytes is the registry's candidate (or the root's own
    author's), never another person's: the grade stays capped at screened-and-signed.
    Fails at ``assert st.grade == "screened-and-signed" and st.capped``. Product:
    network/gate/records/review_rules.py ``_candidate`` (refuse root bytes with an origin
    other than registry unless ``by`` is the root META's author) and/or
    network/record/derive/_shared.py ``_grade`` (root bytes are not person-written)."""
    r = review_repo(tmp_path / "g")
    r.open()
    root = r.b.read(f"{ND}/root/Statement.lean").decode()
    mine = rec_path("candidates", "20260102T000000Z", "mallory")
    r.candidate(mine, root, declaration="Demo.main")  # origin person by default
    r.screens_tried(mine)
    r.sign("independent", "erin", [mine])
    r.sign("intent", "steve", [mine])
    st = _state(r)
    assert _by(st)[mine].is_root and st.complete
    assert st.grade == "screened-and-signed" and st.capped, st.grade


def test_the_roots_author_signs_as_independent_over_a_ported_copy(tmp_path: Path) -> None:
    """HOLE. Attack: erin wrote the root's Statement.lean (META ``author: erin``). alice
    ports those bytes as the registry candidate c1, so the rule "the independent signer
    wrote no candidate in the cluster" reads c1's author as alice's registry and never
    as erin; erin signs as the independent signer and the review vouches for her own
    formalization. D-9 v3.39: "'Author' means the author of the Lean in every
    non-author rule".

    Safe: erin's independent signature does not count. Fails at
    ``assert st.signatures[-1].counts is False``. Product: network/record/derive/_shared.py
    ``_review_state`` (``authors`` gains the root META's author for a candidate with the
    root's bytes) and network/gate/records/review_rules.py ``_signature`` (same set)."""
    r = review_repo(tmp_path / "g")
    _rewrite_root(r, author="erin")
    r.complete()
    r.sign("independent", "erin")
    st = _state(r)
    assert st.signatures[-1].counts is False, "the root's author signed as independent"
    assert not st.vouches


def test_the_roots_author_is_refused_as_independent_signer_at_step_2(tmp_path: Path) -> None:
    """HOLE. The same attack at step 2: erin (the root's META author) files the
    independent signature over the cluster holding the ported root. Safe:
    ``review-signer-authored``. Fails at ``assert "review-signer-authored" in codes``.
    Product: network/gate/records/review_rules.py ``_signature``."""
    r = review_repo(tmp_path / "g")
    _rewrite_root(r, author="erin")
    r.complete()
    out = _pr(tmp_path, r, "erin", lambda r: r.sign("independent", "erin"))
    assert "review-signer-authored" in _codes(out), (out.verdict, _codes(out))


def test_a_backdated_opening_names_a_former_steward_as_intent_signer(tmp_path: Path) -> None:
    """HOLE. Attack: mallory was demo's steward and stepped down (a merged steward/v4
    step-down dated 2026-01-04). steve, a steward now, files an opening dated 2026-01-02,
    when mallory still stood, naming her as intent signer. Step 2 judges the opener on
    the record's date and on main's date, but the intent signer on either
    (``any(...)``), so the backdated opening passes and derive (which reads the record's
    date) makes a former steward the one who answers the questions and signs intent.

    Safe: ``review-intent-signer-not-steward``, as for the opener (ruling 2: a record's
    date is the contributor's word). Fails at ``assert
    "review-intent-signer-not-steward" in codes``. Product:
    network/gate/records/review_rules.py ``_opening`` (``all`` over the two dates)."""
    r = review_repo(tmp_path / "g")
    r.b.steward(T, "mallory")
    down = {"schema": "steward/v4", "pseudonym": "mallory", "target": T,
            "action": "step-down", "date": "2026-01-04T00:00:00Z"}
    path = r.b.write_yaml(f"targets/{T}/steward-acts/20260104T000000Z-mallory.yaml",
                          r.b.signed(m.StewardAct, down, "mallory"))
    r.b.merge([path], date="2026-01-04T00:00:00Z", target=T, node="root",
              artifact_kind="steward-act")
    g = r.graph()
    now = derive.now(g)
    assert now is not None and now >= "2026-01-04"
    assert derive.holds_role(g, T, "mallory", "2026-01-02", curators=False)
    assert not derive.holds_role(g, T, "mallory", now, curators=False)  # stepped down

    def backdated(r: Review) -> None:
        rec = {"schema": "review-opening/v1", "target": T, "role": "steward",
               "words": "Every natural number greater than 2 is nonzero.",
               "intent_signer": "mallory", "by": "steve", "date": "2026-01-02"}
        r.b.write_yaml(rec_path("openings", "20260102T000000Z", "steve"),
                       r.b.signed(m.ReviewOpening, rec, "steve"))

    out = _pr(tmp_path, r, "steve", backdated)
    assert "review-intent-signer-not-steward" in _codes(out), (out.verdict, _codes(out))


def test_a_send_back_after_an_accept_withdraws_the_signers_accept(tmp_path: Path) -> None:
    """HOLE. Attack on "signatures that count": erin signs ``accept`` as the independent
    signer, then reads further and signs ``send-back`` (D-9 v3.39: a signature is a
    decision written by a person). A signer cannot withdraw their own record (a
    withdrawal is a curator's act), so the later decision is the only way to take the
    accept back; yet derive keeps the first accept per role forever and the review still
    vouches against its signer's latest word.

    Safe: a signer's later decision in the same role supersedes their accept. Fails at
    ``assert not st.vouches``. Product: network/record/derive/_shared.py ``_signatures``
    (read each signer's latest decision per role; an accept counts only if it is it)."""
    r = review_repo(tmp_path / "g")
    r.complete()
    r.sign("independent", "erin")
    assert _state(r).vouches
    r.sign("independent", "erin", decision="send-back")
    st = _state(r)
    assert not st.vouches, "erin sent the cluster back and her accept still vouches"


def test_a_case_variant_of_a_cluster_author_signs_as_independent(tmp_path: Path) -> None:
    """HOLE (low severity, defence in depth). Attack: carol wrote c2, in the cluster;
    ``Carol`` (a pseudonym equal to hers without regard to case, signed by the approval
    key, which needs no identity record) signs as the independent signer. The review's
    rules compare pseudonyms exactly (``rec.by in authors``, ``rec.by ==
    intent``), whereas the rest of the record treats pseudonyms without case
    (proof_reviews.same_person, ``identity-duplicate``).

    Safe: the signature does not count. Fails at ``assert not
    st.signatures[-1].counts``. Product: network/record/derive/_shared.py
    ``_signatures`` and network/gate/records/review_rules.py ``_signature``, ``_answer``
    (casefold comparisons)."""
    r = review_repo(tmp_path / "g")
    r.complete()
    r.sign("independent", "Carol")
    st = _state(r)
    assert not st.signatures[-1].counts, "Carol counted as independent of carol's c2"


def test_a_test_sourced_to_an_answer_carries_the_filers_expected_value(
        tmp_path: Path) -> None:
    """HOLE. Attack on the intent tests: the intent signer answered "is 2 greater than
    2?" with "no: n > 2 is strict". bob files an intent test sourced to that answer but
    writes ``expected: holds`` himself (the answer is free text; nothing ties the value
    to it). The correct reading (erin's ``2 < n``, whose probe proves ``¬ Big 2``) is
    discarded as contradicting "the intent signer's answer", and the wrong reading
    (``2 ≤ n``) survives alone. D-9 v3.39: the expected value comes from the intent
    signer's answer, "so the test built from it can always be traced to who said what";
    here a contributor (or a model) supplied it.

    Safe: a test sourced to an answer counts only as the intent signer's own act (filed
    and signed by them, or its value named in the answer). Fails at ``assert
    by[CA].outcome != "discarded"``. Product: network/record/derive/_shared.py
    ``_review_state`` (``tests``: an ``answer`` test counts only when ``by`` is the
    intent signer) and network/gate/records/review_rules.py ``_test`` (next test)."""
    from review_support import CA, CB, probe_lean, two_readings

    r = review_repo(tmp_path / "g")
    two_readings(r)
    ans = r.answer(r.question(), source="the problem's page: n > 2 is strict")
    t = r.intent_test("big", ["2"], "answer", expected="holds", answer=ans, by="bob")
    r.probe(t, CA, False, probe_lean(CA, "Demo.a.Big", "2", "Demo.a.q2", False), "Demo.a.q2")
    r.probe(t, CB, True, probe_lean(CB, "Demo.b.Big", "2", "Demo.b.q2", True), "Demo.b.q2")
    by = _by(_state(r))
    assert by[CA].outcome != "discarded", "bob's value, sourced to steve, discarded CA"


def test_a_contributors_test_sourced_to_an_answer_is_refused_at_step_2(
        tmp_path: Path) -> None:
    """HOLE. The same attack at step 2: bob's ``review-test/v1`` with ``source: answer``
    naming the intent signer's answer and an expected value of bob's choosing passes
    (``review-test-source`` only asks that the answer counts). Safe: refused (only the
    intent signer writes an answer's expected value). Fails at ``assert
    _refusals(out)``. Product: network/gate/records/review_rules.py ``_test``."""
    from review_support import two_readings

    r = review_repo(tmp_path / "g")
    two_readings(r)
    ans = r.answer(r.question(), source="the problem's page: n > 2 is strict")
    out = _pr(tmp_path, r, "bob", lambda r: r.intent_test(
        "big", ["2"], "answer", expected="holds", answer=ans, by="bob"))
    assert _refusals(out), (out.verdict, _codes(out))


def test_a_candidate_naming_a_predicate_not_its_own_meets_no_format_rule(
        tmp_path: Path) -> None:
    """HOLE. Attack on the format rule: the opening lists the concept "big"; the root's
    Statement.lean writes it inline (``2 < n``) and declares no predicate, so its port
    should be returned. alice ports it anyway with ``concepts: {big: Demo.Big}``, a name
    its Lean never declares (any name would do, or a library predicate its theorem does
    not use). Derive checks only the map's keys, so the root candidate survives the
    format rule, and the probes meant to hold its reading to the intent tests are built
    from a predicate its statement never mentions. docs/review.md: ``returned`` when it
    "gives no predicate of its own to a concept the opening lists".

    Safe: refused at step 2, or returned by derive. Fails at ``assert
    by[C1].outcome != "surviving"``. Product: network/gate/records/review_rules.py
    ``_candidate`` (each concept's predicate is a declaration of the candidate's Lean,
    read with network/gate/screens/lean_commands.py) or network/record/derive/_shared.py
    ``_review_state`` (the ``returned`` outcome)."""
    r = review_repo(tmp_path / "g")
    r.open(concepts=["big"])
    out = _pr(tmp_path, r, "alice", lambda r: _registry_root(
        r, merged=False, concepts={"big": "Demo.Big"}))
    if _refusals(out):
        return  # refused at step 2: safe
    r.b.merge([C1, lean_of(C1)], date=DATE, artifact_kind="review-candidate")
    by = _by(_state(r))
    assert by[C1].compiled
    assert by[C1].outcome != "surviving", "a predicate its Lean never declares met the rule"


# === HOLDS ===============================================================================


@pytest.mark.parametrize("lean", [
    ("theorem Demo.x : ¬ ∀ (n : Nat) (h : 2 < n), n = 0 :=\n"
    "  fun hf => absurd (hf 3 (by decide)) (by decide)\n#eval IO.println \"hi\"\n"),
    ("initialize counter : IO.Ref Nat ← IO.mkRef 0\n"
    "theorem Demo.x : ¬ ∀ (n : Nat) (h : 2 < n), n = 0 :=\n"
    "  fun hf => absurd (hf 3 (by decide)) (by decide)\n"),
    ("set_option debug.skipKernelTC true in\n"
    "theorem Demo.x : ¬ ∀ (n : Nat) (h : 2 < n), n = 0 := by\n  sorry\n"),
    ("macro \"cheat\" : tactic => `(tactic| sorry)\n"
    "theorem Demo.x : ¬ ∀ (n : Nat) (h : 2 < n), n = 0 := by\n  cheat\n"),
    ("@[implemented_by Nat.add] def Demo.f : Nat → Nat → Nat := Nat.mul\n"
    "theorem Demo.x : ¬ ∀ (n : Nat) (h : 2 < n), n = 0 :=\n"
    "  fun hf => absurd (hf 3 (by decide)) (by decide)\n"),
], ids=["eval", "initialize", "skipKernelTC", "macro", "implemented_by"])
def test_an_exhibit_smuggling_commands_is_refused_at_step_2(tmp_path: Path, lean: str) -> None:
    """HOLDS. Attack: an exhibit's Lean (which gets no statement screen) carrying a hash
    command, an initializer, a kernel-skipping option, a macro or an implemented_by. The
    import-time screen and the forbidden options apply to every contributed Lean file:
    refused at step 2 before any build."""
    r = review_repo(tmp_path / "g")
    r.open()
    r.three_candidates()
    out = _pr(tmp_path, r, "bob", lambda r: r.exhibit("negation", C3, lean, "Demo.x",
                                                     merged=False))
    assert out.verdict != "pass" and _refusals(out), _codes(out)


@pytest.mark.parametrize("lean", [
    "initialize counter : IO.Ref Nat ← IO.mkRef 0\n",
    "macro \"sevn\" : term => `(3)\n",
    "notation \"ℕ'\" => Nat\n",
    "set_option autoImplicit true in\n",
    "attribute [implemented_by Nat.add] Nat.mul\n",
    "axiom Demo.cheat : False\n",
    "opaque Demo.P : Nat → Prop\n",
    "local instance : OfNat Nat 7 := ⟨3⟩\n",
    "run_cmd pure ()\n",
    "import Lean.Elab.Command\n",
], ids=["initialize", "macro", "notation", "set_option", "attribute", "axiom", "opaque",
        "local-instance", "run_cmd", "import-lean-elab"])
def test_a_candidate_smuggling_commands_is_refused_at_step_2(tmp_path: Path, lean: str) -> None:
    """HOLDS. Attack: a candidate statement carrying something that runs code, changes
    how later text reads, or postulates (initialize, macro, notation, set_option,
    attribute, axiom, opaque, local instance, run_cmd, an elaborator import). The
    statement screen (D-3 v3.28) and the import-time screen apply: refused at step 2."""
    r = review_repo(tmp_path / "g")
    r.open()
    text = lean + "theorem Demo.s (n : Nat) (h : 2 < n) : n ≠ 0 := by\n  sorry\n"
    out = _pr(tmp_path, r, "erin", lambda r: r.candidate(
        rec_path("candidates", "20260104T000000Z", "erin"), text, merged=False,
        declaration="Demo.s"))
    assert out.verdict != "pass" and _refusals(out), _codes(out)


@pytest.mark.parametrize("act", ["opening+question", "candidate+exhibit", "question+proof"])
def test_two_acts_of_different_kinds_in_one_pull_request_are_refused(tmp_path: Path,
                                                                    act: str) -> None:
    """HOLDS. Attack: two review acts of different kinds (an opening with a question, a
    candidate with an exhibit naming it), or a review act riding with a proof, in one
    pull request, so that together they do what neither may alone.
    ``review-acts-batched``."""
    r = review_repo(tmp_path / "g")
    if act != "opening+question":
        r.open()
        r.three_candidates()

    def both(r: Review) -> None:
        if act == "opening+question":
            r.open()
            r.question()
        elif act == "candidate+exhibit":
            r.candidate(rec_path("candidates", "20260104T000000Z", "bob"),
                        "theorem Demo.c7 (n : Nat) (h : 2 < n) : n = 0 := by\n  sorry\n",
                        merged=False, declaration="Demo.c7")
            r.exhibit("negation", C3, C3_NEGATION, "Demo.c3.negation", merged=False)
        else:
            r.question()
            r.b.write(f"{ND}/root/Proof.lean", PROOF_ROOT)

    out = _pr(tmp_path, r, "bob" if act != "opening+question" else "steve", both)
    assert out.verdict != "pass" and "review-acts-batched" in _codes(out), _codes(out)


@pytest.mark.parametrize("path", [
    f"{RV}/questions/20260104T000000Z-bob.json",
    f"{RV}/questions/20260104T000000Z-bob.lean",
    f"{RV}/question/20260104T000000Z-bob.yaml",
    f"{RV}/questions/sub/20260104T000000Z-bob.yaml",
    f"{RV}/20260104T000000Z-bob.yaml",
    f"{RV}/questions/20260104-bob.yaml",
])
def test_a_review_file_out_of_place_is_refused(tmp_path: Path, path: str) -> None:
    """HOLDS. Attack: a review record in a folder or with an extension the layout has no
    row for (which the loader would then refuse as ``unknown-file``, freezing every
    later load since a merged file is never deleted): ``path-not-permitted``."""
    r = review_repo(tmp_path / "g")
    r.complete()
    rec = {"schema": "review-question/v1", "target": T, "question": "Is 3 big?",
           "case": "n = 3", "by": "bob", "date": DATE}
    out = _pr(tmp_path, r, "bob", lambda r: r.b.write_yaml(path, rec))
    assert out.verdict != "pass" and "path-not-permitted" in _codes(out), _codes(out)


def test_an_exhibit_in_the_candidates_folder_is_refused(tmp_path: Path) -> None:
    """HOLDS. Attack: an exhibit's record (negation of c3) filed in ``candidates/``,
    where it would be read as a candidate: it does not parse as review-candidate/v1."""
    r = review_repo(tmp_path / "g")
    r.open()
    r.three_candidates()

    def misplaced(r: Review) -> None:
        path = rec_path("candidates", "20260104T000000Z", "bob")
        r.b.write_yaml(path, {"schema": "review-exhibit/v1", "target": T, "kind": "negation",
                              "candidate": C3, "theorem": "Demo.c3.negation",
                              "lean_sha256": sha256_hex(C3_NEGATION.encode()), "by": "bob",
                              "date": DATE})
        r.b.write(lean_of(path), C3_NEGATION)

    out = _pr(tmp_path, r, "bob", misplaced)
    assert out.verdict != "pass" and "invalid-record" in _codes(out), _codes(out)


def test_a_record_naming_another_target_is_refused(tmp_path: Path) -> None:
    """HOLDS. Attack: a question filed under demo's review whose ``target`` names another
    target (so the two readings of where it belongs differ): ``id-mismatch``; derive
    reads only records whose target is the folder's."""
    r = review_repo(tmp_path / "g")
    r.b.target("other")
    r.complete()

    def elsewhere(r: Review) -> None:
        r.b.write_yaml(rec_path("questions", "20260104T000000Z", "bob"), {
            "schema": "review-question/v1", "target": "other", "question": "Is 3 big?",
            "case": "n = 3", "by": "bob", "date": DATE})

    out = _pr(tmp_path, r, "bob", elsewhere)
    assert "id-mismatch" in _codes(out), _codes(out)


def test_an_exhibit_naming_another_targets_candidate_is_refused(tmp_path: Path) -> None:
    """HOLDS. Attack: a negation exhibit filed under demo's review naming a compiled
    candidate of another target's review (so demo's stage 3 would count a screen of a
    statement demo never held): ``review-candidate-unknown``; derive ignores it too."""
    r = review_repo(tmp_path / "g")
    r.b.target("other")
    r.b.node("other", "root", statement=S_ROOT.replace("Demo.main", "Other.main"),
             declaration="Other.main")
    r.complete()
    foreign = "targets/other/review/candidates/20260102T000002Z-dave.yaml"
    lean = "theorem Other.c3 (n : Nat) (h : 2 < n) : n = 0 := by\n  sorry\n"
    r.b.write_yaml(foreign, {"schema": "review-candidate/v1", "target": "other",
                             "origin": "model", "model": "m", "declaration": "Other.c3",
                             "concepts": _state(r).candidates[0].record.concepts,
                             "lean_sha256": sha256_hex(lean.encode()), "by": "dave",
                             "date": DATE})
    r.b.write(lean_of(foreign), lean)
    r.b.merge([foreign, lean_of(foreign)], date=DATE, artifact_kind="review-candidate")
    neg = ("theorem Demo.x : ¬ ∀ (n : Nat) (h : 2 < n), n = 0 :=\n"
           "  fun hf => absurd (hf 3 (by decide)) (by decide)\n")
    out = _pr(tmp_path, r, "bob", lambda r: r.exhibit("negation", foreign, neg, "Demo.x",
                                                     merged=False))
    assert "review-candidate-unknown" in _codes(out), _codes(out)


def test_an_exhibit_with_an_unsigned_pass_attestation_discards_nothing(tmp_path: Path) -> None:
    """HOLDS. Attack on "only the gate's Lean counts": a proves exhibit of c1 (the
    root, provable by omega) committed by hand beside a pass attestation no gate key
    signs. Only a gate-signed pass is a verdict, so c1 survives and the review is
    untouched."""
    r = review_repo(tmp_path / "g")
    r.complete()
    path = r.exhibit("proves", C1, PROOF_ROOT, "Demo.main", merged=False)
    r.b.attest([path, lean_of(path)], date=DATE, artifact_kind="review-exhibit",
               signed=False)
    st = _state(r)
    assert _by(st)[C1].outcome == "surviving" and st.complete


def test_a_redated_signature_is_refused_and_counts_for_nothing(tmp_path: Path) -> None:
    """HOLDS. Attack: erin's signed accept copied with a new date (a replay into a later
    state of the review) keeps its signature envelope; the signature covers the date,
    so step 2 refuses it and derive does not count it."""
    r = review_repo(tmp_path / "g")
    r.complete()
    rec = Review.signature_record("independent", "erin")
    signed = r.b.signed(m.ReviewSignature, rec, "erin")
    redated = {**signed, "date": "2026-02-01"}
    path = rec_path("signatures", "20260201T000000Z", "erin")
    out = _pr(tmp_path, r, "erin", lambda r: r.b.write_yaml(path, redated))
    assert out.verdict != "pass" and _refusals(out), _codes(out)
    st = _state(r)
    assert not st.signatures[-1].counts and not st.vouches


def test_a_signature_stops_counting_when_the_cluster_changes(tmp_path: Path) -> None:
    """HOLDS. Attack: reuse a counting signature after the cluster grew: a new candidate
    (erin's) joins c1 and c2 by both directions; erin's old accept names {c1, c2}, not the
    surviving cluster, so it stops counting and the root is no longer vouched until
    someone signs the new cluster."""
    r = review_repo(tmp_path / "g")
    r.complete()
    r.sign("independent", "erin")
    assert _state(r).vouches
    c4 = rec_path("candidates", "20260102T000004Z", "frank")
    r.candidate(c4, "theorem Demo.c4 (n : Nat) (h : 2 < n) : 0 < n := by\n  sorry\n",
                declaration="Demo.c4")
    r.exhibit("implies", C1, "theorem Demo.c1_c4 : (∀ (n : Nat) (h : 2 < n), n ≠ 0) → "
              "∀ (n : Nat) (h : 2 < n), 0 < n :=\n  fun f n h => Nat.pos_of_ne_zero (f n h)\n",
              "Demo.c1_c4", other=c4)
    r.exhibit("implies", c4, "theorem Demo.c4_c1 : (∀ (n : Nat) (h : 2 < n), 0 < n) → "
              "∀ (n : Nat) (h : 2 < n), n ≠ 0 :=\n  fun f n h => Nat.pos_iff_ne_zero.mp (f n h)\n",
              "Demo.c4_c1", other=C1)
    r.screens_tried(c4)
    st = _state(r)
    assert st.clusters == ((C1, C2, c4),) and st.complete
    assert not st.signatures[0].counts and not st.vouches


def test_a_withdrawal_of_an_answer_changes_nothing(tmp_path: Path) -> None:
    """HOLDS (after the fix of the withdrawal holes above). Attack: the review completes on
    an answer, then a curator's withdrawal names the answer. The review is append-only
    (step 2 refuses such a withdrawal, ``review-record-withdrawn``), so a hand-committed one
    changes nothing either: the answer stands and so does the review's state."""
    r = review_repo(tmp_path / "g")
    r.complete()
    a = r.answer(r.question())
    r.sign("independent", "erin")
    assert _state(r).vouches
    _withdraw(r, a)
    st = _state(r)
    assert st.complete and st.vouches


def test_an_answer_signed_by_another_than_its_by_is_refused(tmp_path: Path) -> None:
    """HOLDS. Attack: an answer whose ``by`` is the intent signer, filed by erin with the
    approval key's signature made for erin: ``actor-not-submitter`` and the role
    signature fail; derive counts no answer whose signature is not the intent signer's."""
    r = review_repo(tmp_path / "g")
    r.complete()
    q = r.question()

    def forged(r: Review) -> None:
        rec = {"schema": "review-answer/v1", "target": T, "question": q,
               "answer": "Every n with n > 2.", "source": "me", "login": "steve",
               "by": "steve", "date": DATE}
        r.b.write_yaml(rec_path("answers", "20260104T000000Z", "erin"),
                       r.b.signed(m.ReviewAnswer, rec, "erin"))

    out = _pr(tmp_path, r, "erin", forged)
    assert out.verdict != "pass" and _refusals(out), _codes(out)
    assert not _state(r).complete


def test_a_background_opening_cannot_shield_the_root_from_a_held_review(
        tmp_path: Path) -> None:
    """HOLDS. Attack on step 9's held review: open a background review first so that no
    held one can follow. Step 2 admits the held opening after a background one (it then
    holds), refuses a background one after a held one, and step 9 holds a proof of the
    root, even with a steward's approving review, while the held review is incomplete."""
    r = review_repo(tmp_path / "g")
    r.open(role="background")
    out = _pr(tmp_path / "a", r, "curator", lambda r: r.open(role="curator", by="curator"))
    assert out.verdict == "pass", _codes(out)
    r2 = review_repo(tmp_path / "g2")
    r2.open()
    assert "review-already-open" in _codes(
        _pr(tmp_path / "b", r2, "steve", lambda r: r.open(role="background")))
    r3 = review_repo(tmp_path / "g3")
    r3.open(role="background")
    r3.open(role="curator", by="curator")
    r3.three_candidates()
    st = _state(r3)
    assert st.held and not st.complete
    out = _proof_pr(tmp_path / "c", r3, ForgeReview("steve", True, ()))
    assert out.verdict == "held", _codes(out)


def test_a_send_back_naming_no_candidate_is_refused(tmp_path: Path) -> None:
    """HOLDS. Attack: a ``send-back`` signature, which step 2 does not hold to the
    surviving cluster, naming a path that does not exist, so that ``lemmata validate``
    would report a dangling reference on main forever: ``dangling-reference``."""
    r = review_repo(tmp_path / "g")
    r.complete()
    out = _pr(tmp_path, r, "erin", lambda r: r.sign(
        "independent", "erin", [rec_path("candidates", "20260101T000000Z", "nobody")],
        decision="send-back"))
    assert "dangling-reference" in _codes(out), _codes(out)


def test_dotted_pseudonyms_and_tagged_stamps_pair_their_files(tmp_path: Path) -> None:
    """HOLDS. Attack on the file pairing: a candidate by a pseudonym with a dot
    (``bob.lean``: its record ``<ts>-bob.lean.yaml``) whose Lean is another file
    (``<ts>-bob.lean``, pseudonym ``bob``), and a tagged stamp ``<ts>.<tag>-...``. The
    record pairs with ``<ts>-bob.lean.lean`` only (``missing-file``); a well-paired
    dotted and tagged review loads and validates clean."""
    from network.record.validate import validate_graph

    r = review_repo(tmp_path / "g")
    r.open()
    ts = "20260104T000000Z"
    lean = "theorem Demo.c8 (n : Nat) (h : 2 < n) : n ≠ 0 := by\n  sorry\n"

    def mispaired(r: Review) -> None:
        path = f"{RV}/candidates/{ts}-bob.lean.yaml"
        r.candidate(path, lean, merged=False, declaration="Demo.c8")
        r.b.remove(lean_of(path))
        r.b.write(f"{RV}/candidates/{ts}-bob.lean", lean)

    assert "missing-file" in _codes(_pr(tmp_path, r, "bob.lean", mispaired))
    r2 = review_repo(tmp_path / "g2")
    r2.open()
    dotted = f"{RV}/candidates/{ts}-bob.lean.yaml"
    tagged = f"{RV}/candidates/{ts}.0a1b2c3d-carol.yaml"
    r2.candidate(dotted, lean, declaration="Demo.c8")
    r2.candidate(tagged, C2_LEAN, declaration="Demo.c2")
    by = _by(_state(r2))
    assert by[dotted].compiled and by[dotted].lean == f"{RV}/candidates/{ts}-bob.lean.lean"
    assert by[tagged].compiled
    assert validate_graph(r2.b.root) == []


_DERIVE = """
import json, sys
from network.record.derive import review_view
from network.record.read.loader import load_graph
print(json.dumps(review_view(load_graph(sys.argv[1]), sys.argv[2]), sort_keys=False))
"""


def test_the_review_derives_the_same_under_any_hash_seed(tmp_path: Path) -> None:
    """HOLDS. Determinism: the review (clusters from a set of proved directions, the
    signatures' order, the opening chosen) derives the same JSON under two hash seeds,
    with several clusters, openings and signatures on the record."""
    r = review_repo(tmp_path / "g")
    r.open(role="background")
    r.open(role="curator", by="curator")
    r.three_candidates()
    for i in range(4):
        r.candidate(rec_path("candidates", f"20260102T00001{i}Z", "frank"),
                    f"theorem Demo.d{i} (n : Nat) (h : {i} + 3 ≤ n + {i}) : n ≠ 0 := by\n"
                    "  sorry\n", declaration=f"Demo.d{i}")
    r.exhibit("implies", C1, C1_C2, "Demo.c1_c2", other=C2)
    r.exhibit("implies", C2, C2_C1, "Demo.c2_c1", other=C1)
    r.sign("independent", "erin", decision="send-back")
    outs = []
    for seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-c", _DERIVE, str(r.b.root), T], env=env,
                              capture_output=True, text=True, check=True,
                              cwd=Path(__file__).parent.parent)
        outs.append(json.loads(proc.stdout))
    assert outs[0] == outs[1]
    assert outs[0]["held"] and outs[0]["opened_by"] == "curator"
