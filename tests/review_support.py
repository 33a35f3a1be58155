"""A formalization review on the gate scenarios' ``demo`` target (D-9 v3.39; issue 27), built
file by file as merged acts would leave it, for the review's derivation, gate and step-9
tests.

The root of ``demo`` states ``∀ n, 2 < n → n ≠ 0`` (:data:`gate_scenarios.S_ROOT`). Its
steward is ``steve``, who opens the review and is its intent signer. Three candidates:

* ``c1``: the registry's statement, byte for byte the root's Statement.lean, ported by
  ``alice``;
* ``c2``: ``carol``'s, by hand (``3 ≤ n`` for ``2 < n``: the same statement);
* ``c3``: a model's (``dave`` submitting), wrong on purpose (``n = 0``), which a negation
  exhibit discards.

Every Lean text here is one Lean would accept as written, and every exhibit proves what
its kind says (the negation and both directions are elaborated by hand in the comments).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, S_ROOT, T, base_repo

from network.record import models as m
from network.record.read.loader import Graph, load_graph
from network.record.review_models import SCREENS
from tests.graphs import GraphBuilder, git_commit, sha256_hex

RV = f"targets/{T}/review"
DATE = "2026-01-05"

C2_LEAN = "theorem Demo.c2 (n : Nat) (h : 3 ≤ n) : n ≠ 0 := by\n  sorry\n"
C3_LEAN = "theorem Demo.c3 (n : Nat) (h : 2 < n) : n = 0 := by\n  sorry\n"
#: ¬ (∀ n, 2 < n → n = 0): at n = 3, 2 < 3 holds and 3 = 0 does not (both by decide)
C3_NEGATION = ("theorem Demo.c3.negation : ¬ ∀ (n : Nat) (h : 2 < n), n = 0 :=\n"
               "  fun hf => absurd (hf 3 (by decide)) (by decide)\n")
#: 2 < n unfolds to 3 ≤ n (Nat.lt n m is n + 1 ≤ m), so each direction is the identity
C1_C2 = ("theorem Demo.c1_c2 : (∀ (n : Nat) (h : 2 < n), n ≠ 0) → "
         "∀ (n : Nat) (h : 3 ≤ n), n ≠ 0 :=\n  fun f n h => f n h\n")
C2_C1 = ("theorem Demo.c2_c1 : (∀ (n : Nat) (h : 3 ≤ n), n ≠ 0) → "
         "∀ (n : Nat) (h : 2 < n), n ≠ 0 :=\n  fun f n h => f n h\n")


def rec_path(folder: str, ts: str, who: str) -> str:
    """``targets/demo/review/<folder>/<ts>-<who>.yaml``."""
    return f"{RV}/{folder}/{ts}-{who}.yaml"


def lean_of(path: str) -> str:
    """The Lean file beside a candidate's or exhibit's record."""
    return path[:-len(".yaml")] + ".lean"


C1 = rec_path("candidates", "20260102T000000Z", "alice")
C2 = rec_path("candidates", "20260102T000001Z", "carol")
C3 = rec_path("candidates", "20260102T000002Z", "dave")


@dataclass
class Review:
    """The builder of one review on ``demo``; every ``add_*`` writes one act's files and,
    for a Lean act, a pass attestation naming them (the gate's merge)."""

    b: GraphBuilder
    paths: dict[str, str] = field(default_factory=dict)
    _n: int = 0

    def ts(self) -> str:
        self._n += 1
        return f"20260103T{self._n:06d}Z"

    def open(self, *, role: str = "steward", by: str = "steve",
             intent_signer: str = "steve", signed: bool = True,
             concepts: list[str] | None = None) -> str:
        rec = {"schema": "review-opening/v1", "target": T, "role": role,
               "words": "Every natural number greater than 2 is nonzero.",
               "cases": [{"kind": "small-value", "text": "n = 3 is nonzero"}],
               "concepts": concepts or [],
               "intent_signer": intent_signer, "by": by, "date": DATE}
        if signed:
            rec = self.b.signed(m.ReviewOpening, rec, by)
        path = rec_path("openings", self.ts(), by)
        self.b.write_yaml(path, rec)
        return path

    def candidate(self, path: str, lean: str, *, merged: bool = True,
                  **over: Any) -> str:
        who = path.rsplit("-", 1)[-1][:-len(".yaml")]
        rec = {"schema": "review-candidate/v1", "target": T, "origin": "person",
               "read_others": False, "declaration": "Demo.x", "concepts": {},
               "lean_sha256": sha256_hex(lean.encode()), "by": who, "date": DATE, **over}
        self.b.write_yaml(path, rec)
        self.b.write(lean_of(path), lean)
        if merged:
            self.b.merge([path, lean_of(path)], date=DATE, artifact_kind="review-candidate")
        return path

    def three_candidates(self) -> None:
        """c1 (the registry's, the root's bytes), c2 (carol's), c3 (a model's, wrong)."""
        root = self.b.read(f"{ND}/root/Statement.lean").decode()
        assert root == S_ROOT
        self.candidate(C1, root, origin="registry", read_others=None,
                       registry={"name": "Formal Conjectures",
                                 "repository": "https://github.com/google-deepmind/formal-conjectures"},
                       declaration="Demo.main")
        self.candidate(C2, C2_LEAN, declaration="Demo.c2")
        self.candidate(C3, C3_LEAN, origin="model", model="example-model-1",
                       read_others=None, declaration="Demo.c3")

    def exhibit(self, kind: str, candidate: str, lean: str, theorem: str, *,
                other: str | None = None, by: str = "bob", merged: bool = True) -> str:
        path = rec_path("exhibits", self.ts(), by)
        rec: dict[str, Any] = {"schema": "review-exhibit/v1", "target": T, "kind": kind,
                               "candidate": candidate, "theorem": theorem,
                               "lean_sha256": sha256_hex(lean.encode()), "by": by,
                               "date": DATE}
        if other is not None:
            rec["other"] = other
        self.b.write_yaml(path, rec)
        self.b.write(lean_of(path), lean)
        if merged:
            self.b.merge([path, lean_of(path)], date=DATE, artifact_kind="review-exhibit")
        return path

    def intent_test(self, concept: str, args: list[str], source: str, *,
                    expected: str | None = None, answer: str | None = None,
                    citation: str | None = None, by: str = "bob",
                    probe: str = "holds") -> str:
        path = rec_path("tests", self.ts(), by)
        rec: dict[str, Any] = {"schema": "review-test/v1", "target": T, "concept": concept,
                               "args": args, "source": source, "by": by, "date": DATE,
                               "probe": probe}
        for key, value in (("expected", expected), ("answer", answer),
                           ("citation", citation)):
            if value is not None:
                rec[key] = value
        self.b.write_yaml(path, rec)
        return path

    def probe(self, test: str, candidate: str, holds: bool, lean: str, theorem: str, *,
              by: str = "bob", merged: bool = True) -> str:
        path = rec_path("exhibits", self.ts(), by)
        self.b.write_yaml(path, {
            "schema": "review-exhibit/v1", "target": T,
            "kind": "probe-holds" if holds else "probe-fails", "candidate": candidate,
            "test": test, "theorem": theorem, "lean_sha256": sha256_hex(lean.encode()),
            "by": by, "date": DATE})
        self.b.write(lean_of(path), lean)
        if merged:
            self.b.merge([path, lean_of(path)], date=DATE, artifact_kind="review-exhibit")
        return path

    def screens_tried(self, candidate: str, by: str = "bob") -> None:
        for screen in SCREENS:
            self.b.write_yaml(rec_path("attempts", self.ts(), by), {
                "schema": "review-attempt/v1", "target": T, "screen": screen,
                "candidate": candidate, "tool": "aesop", "budget": "60 s", "by": by,
                "date": DATE})

    def question(self, by: str = "bob") -> str:
        path = rec_path("questions", self.ts(), by)
        self.b.write_yaml(path, {
            "schema": "review-question/v1", "target": T,
            "question": "Is the claim about every n greater than 2, or from 3 on?",
            "case": "n = 3", "candidates": [C1, C2], "by": by, "date": DATE})
        return path

    def answer(self, question: str, *, by: str = "steve", source: str | None = "the source",
               signed: bool = True) -> str:
        rec: dict[str, Any] = {"schema": "review-answer/v1", "target": T,
                               "question": question, "answer": "Every n with n > 2.",
                               "login": by, "by": by, "date": DATE}
        if source is not None:
            rec["source"] = source
        if signed:
            rec = self.b.signed(m.ReviewAnswer, rec, by)
        path = rec_path("answers", self.ts(), by)
        self.b.write_yaml(path, rec)
        return path

    def sign(self, role: str, by: str, cluster: list[str] | None = None, *,
             decision: str = "accept", signed: bool = True) -> str:
        rec: dict[str, Any] = self.signature_record(role, by, cluster, decision=decision)
        if signed:
            rec = self.b.signed(m.ReviewSignature, rec, by)
        path = rec_path("signatures", self.ts(), by)
        self.b.write_yaml(path, rec)
        return path

    @staticmethod
    def signature_record(role: str, by: str, cluster: list[str] | None = None, *,
                         decision: str = "accept") -> dict[str, Any]:
        return {"schema": "review-signature/v1", "target": T, "role": role,
                "decision": decision, "cluster": cluster or [C1, C2], "login": by,
                "by": by, "date": DATE}

    def complete(self) -> None:
        """Open, three candidates, c3 discarded by its negation, c1 ⇔ c2 proved, c1 and c2
        screened three ways: the automated stages complete."""
        self.open()
        self.three_candidates()
        self.exhibit("negation", C3, C3_NEGATION, "Demo.c3.negation")
        self.exhibit("implies", C1, C1_C2, "Demo.c1_c2", other=C2)
        self.exhibit("implies", C2, C2_C1, "Demo.c2_c1", other=C1)
        self.screens_tried(C1)
        self.screens_tried(C2)

    def graph(self) -> Graph:
        """The work tree read as a graph (a fresh derivation each call)."""
        return load_graph(self.b.root)

    def commit(self, message: str = "review") -> str:
        return git_commit(self.b.root, message)


def review_repo(root: Path) -> Review:
    """The gate scenarios' base graph with ``demo``'s stewards and curators as the tests
    need them: steve (steward), curator (every target); identities for the people who
    sign."""
    b, _ = base_repo(root)
    for who in ("steve", "erin", "carol"):
        b.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                                "github": who, "since": "2026-01-01"})
    return Review(b)


# --- the format rule and intent tests (concept "big": the words' "greater than 2") ----------

CA = rec_path("candidates", "20260102T000010Z", "erin")
CB = rec_path("candidates", "20260102T000011Z", "frank")
CA_LEAN = ("def Demo.a.Big (n : Nat) : Prop := 2 < n\n\n"
           "theorem Demo.a (n : Nat) (h : Demo.a.Big n) : n ≠ 0 := by\n  sorry\n")
#: the reading that takes "greater than 2" to include 2
CB_LEAN = ("def Demo.b.Big (n : Nat) : Prop := 2 ≤ n\n\n"
           "theorem Demo.b (n : Nat) (h : Demo.b.Big n) : n ≠ 0 := by\n  sorry\n")


def module_of(candidate: str) -> str:
    """The Lean module of a candidate of demo's review."""
    from network import ids
    return ids.review_module_name(T, candidate)


def probe_lean(candidate: str, predicate: str, arg: str, theorem: str, holds: bool) -> str:
    """A probe exhibit's Lean: the predicate unfolded and decided at ``arg`` (``decide``
    evaluates ``2 < 2``/``2 ≤ 2`` on Nat in the kernel: no axiom)."""
    claim = f"{predicate} ({arg})" if holds else f"¬ ({predicate} ({arg}))"
    return (f"import {module_of(candidate)}\n\n"
            f"theorem {theorem} : {claim} := by\n  unfold {predicate}\n  decide\n")


def two_readings(r: Review) -> None:
    """Open with the concept "big" and two candidates that read it differently at 2."""
    r.open(concepts=["big"])
    r.candidate(CA, CA_LEAN, declaration="Demo.a", concepts={"big": "Demo.a.Big"})
    r.candidate(CB, CB_LEAN, declaration="Demo.b", concepts={"big": "Demo.b.Big"})
