"""Gate fixtures shared by the tests and ``tests/fixtures/toolchain/make_recordings.py``.

Each :class:`Scenario` builds the same base graph (target ``demo``) and one pull request on
top of it, and declares what a Lean toolchain answers for its files (``answers``). The
recorded stand-in (tests/standin.py) replays those answers keyed by the exact bytes of each
workspace; make_recordings.py writes them by running the real gate code with a
:class:`RecordingToolchain`, so the recordings always match the calls the gate makes.
Nothing here parses Lean: every answer is declared by hand next to the text it answers for.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain, inputs_key

from network.gate import attestation as A
from network.gate.diff import diff_commits
from network.gate.run import Review
from network.gate.step2 import run_steps_1_2
from network.gate.workspace import Workspace
from network.record import models as m
from network.record.loader import load_graph, sha256_hex
from tests.graphs import GraphBuilder, git_commit

T = "demo"
ND = f"targets/{T}/nodes"
AXIOMS = ["propext", "Classical.choice", "Quot.sound"]

S_ROOT = "/-- The demo root. -/\ntheorem Demo.main (n : Nat) (h : 2 < n) : n ≠ 0 := by\n  sorry\n"
W_ROOT = "theorem Demo.main.witness : ∃ n : Nat, 2 < n := ⟨3, by decide⟩\n"
S_AUX = "theorem Demo.aux (n : Nat) : 0 + n = n := by\n  sorry\n"
P_AUX = "theorem Demo.aux (n : Nat) : 0 + n = n := by\n  simp\n"
S_BASE = "theorem Demo.base_lemma (n : Nat) : n + 0 = n := by\n  sorry\n"
P_BASE = ("import Lemmata.demo.aux.Proof\n\n"
          "theorem Demo.base_lemma (n : Nat) : n + 0 = n := by\n  simpa using Demo.aux n\n")
S_MID = "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n  sorry\n"
W_TRUE = "theorem {decl}.witness : True := trivial\n"
S_P = "theorem Demo.p : 1 + 1 = 2 := by\n  sorry\n"
ROOT_PARTIAL = f"{ND}/root/attempts/20260101T000000Z-bob-partial.lean"
P_PARTIAL_TEXT = ("-- approach: compute\n-- licence: CC-BY-4.0\n"
                  "theorem Demo.p : 1 + 1 = 2 := by\n"
                  "  -- label: the sum\n  -- claim: $1+1=2$\n"
                  "  have h : 1 + 1 = 2 := sorry\n  exact h\n")
P_PARTIAL = f"{ND}/p/attempts/20260101T000000Z-carol-partial.lean"


S_STRONG = "theorem Demo.strong (n : Nat) : n ≠ 0 ∨ n = 0 := by\n  sorry\n"
R_STRONG = ("theorem Demo.strong.relation : (∀ n : Nat, n ≠ 0 ∨ n = 0) → "
            "∀ (n : Nat) (h : 2 < n), n ≠ 0 :=\n  fun _ n h => by omega\n")
S_COUNTER = "theorem Demo.counter : ∃ n : Nat, 2 < n ∧ n = 0 := by\n  sorry\n"
R_COUNTER = ("theorem Demo.counter.relation : (∃ n : Nat, 2 < n ∧ n = 0) → "
             "¬ ∀ (n : Nat) (h : 2 < n), n ≠ 0 :=\n"
             "  fun ⟨n, h, e⟩ hf => hf n h e\n")


def base_repo(root: Path, *, precheck: dict[str, Any] | None = None,
              fidelity: dict[str, Any] | None = None,
              variants: bool = False, annex: bool = False) -> tuple[GraphBuilder, str]:
    """The base graph, committed: root (open, with a merged partial whose holes are
    root--h1 (witnessed) and root--h2 (blocked)), aux and base-lemma (proved; base-lemma's
    proof uses aux's), mid (open, deps base-lemma), p (open, one merged route whose hole
    p--h1 is open). With ``variants``: strong (a resolves variant of root) and counter (a
    refutes variant), both open with merged Relation.lean (D-30). With ``annex``: mid
    holds the annex :data:`MID_ANNEX` (D-31)."""
    b = GraphBuilder(root)
    b.base()
    b.target(T, fidelity=fidelity)
    if precheck is not None:
        spec = json.loads(b.read(f"targets/{T}/gate-spec.json"))
        spec["precheck"] = precheck
        b.write_json(f"targets/{T}/gate-spec.json", spec)
    b.node(T, "root", statement=S_ROOT, witness=W_ROOT, declaration="Demo.main")
    b.node(T, "aux", statement=S_AUX, witness=W_TRUE.format(decl="Demo.aux"),
           declaration="Demo.aux", proof=P_AUX)
    b.node(T, "base-lemma", statement=S_BASE, witness=W_TRUE.format(decl="Demo.base_lemma"),
           declaration="Demo.base_lemma", proof=P_BASE)
    b.node(T, "mid", statement=S_MID, witness=W_TRUE.format(decl="Demo.mid"),
           declaration="Demo.mid", deps=["base-lemma"])
    b.node(T, "p", statement=S_P, witness=W_TRUE.format(decl="Demo.p"), declaration="Demo.p")
    b.partial(T, "root", "20260101T000000Z", "bob",
              "-- approach: split\n-- licence: CC-BY-4.0\ntheorem Demo.main : True := sorry\n")
    b.partial(T, "p", "20260101T000000Z", "carol", P_PARTIAL_TEXT)
    b.hole(T, "root", 1, ROOT_PARTIAL, statement="theorem Demo.main.h1 : True := by\n  sorry\n",
           witness=W_TRUE.format(decl="Demo.main.h1"), declaration="Demo.main.h1")
    b.hole(T, "root", 2, ROOT_PARTIAL,
           statement="theorem Demo.main.h2 : 2 < 3 := by\n  sorry\n", declaration="Demo.main.h2")
    b.hole(T, "p", 1, P_PARTIAL, name="h",
           statement="theorem Demo.p.h1 : 1 + 1 = 2 := by\n  sorry\n",
           witness=W_TRUE.format(decl="Demo.p.h1"), declaration="Demo.p.h1")
    b.merge([f"{ND}/aux/Proof.lean"], date="2026-01-01", artifact_kind="proof")
    b.merge([f"{ND}/base-lemma/Proof.lean"], date="2026-01-01", artifact_kind="proof")
    b.merge([ROOT_PARTIAL], date="2026-01-01", artifact_kind="partial")
    b.merge([P_PARTIAL], date="2026-01-01", artifact_kind="partial")
    if annex:
        b.annex(T, "mid", MID_ANNEX.decode())
    if variants:
        for nid, decl, stmt, rel, label in (
                ("strong", "Demo.strong", S_STRONG, R_STRONG, "resolves"),
                ("counter", "Demo.counter", S_COUNTER, R_COUNTER, "refutes")):
            b.node(T, nid, statement=stmt, witness=W_TRUE.format(decl=decl), declaration=decl,
                   origin="variant", variant={"of": "root", "relation": label}, relation=rel)
            b.merge([f"{ND}/{nid}/META.yaml", f"{ND}/{nid}/Statement.lean",
                     f"{ND}/{nid}/Witness.lean", f"{ND}/{nid}/Relation.lean"],
                    date="2026-01-02", artifact_kind="variant")
    return b, git_commit(b.root, "base")


# --- answers -----------------------------------------------------------------------------

Answer = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]


def default_answer(method: str, args: dict[str, Any]) -> dict[str, Any]:
    """What a clean toolchain answers: everything checks, nothing is used or found."""
    if method == "describe":
        return {"ok": True, "code": None, "lean_version": "4.22.0"}
    if method == "build":
        return {"ok": True, "code": None, "rc": 0}
    if method == "replay":
        return {"ok": True, "code": None, "fresh": True}
    if method == "check_statement":
        return {"ok": True, "code": None, "theorems": [
            {"name": t, "found": True, "type_equal": True, "axioms": ["propext"]}
            for t in args["theorems"]]}
    if method == "check_witness":
        return {"ok": True, "code": None, "expected_type": "∃ _, True",
                "witness_type": "∃ _, True", "axioms": []}
    if method == "used_constants":
        return {"ok": True, "code": None, "constants": [], "modules": []}
    if method == "hazards":
        return {"ok": True, "code": None, "findings": []}
    if method == "extract_holes":
        return {"ok": True, "code": None, "holes": []}
    if method == "defeq":
        return {"ok": True, "code": None, "defeq": False, "comparable": True}
    if method in ("check_relation", "join_relation"):
        name = args.get("theorem", "LemmataGate.RelationJoin.join")
        return {"ok": True, "code": None, "theorems": [
            {"name": name, "found": True, "type_equal": True, "axioms": ["propext"]}]}
    raise KeyError(method)


@dataclass
class Scenario:
    """One pull request on the base graph and the toolchain's declared answers for it.

    Attributes:
        name: the scenario's name (tests select by it).
        files: path → bytes the pull request adds or changes (None deletes).
        answers: method → result dict, or callable(args) → result dict, overriding
            :func:`default_answer`.
        submitter: the pull request's author.
        review: the approving review supplied, if any.
        base: keyword arguments for :func:`base_repo`.
    """

    name: str
    files: dict[str, bytes | None]
    answers: dict[str, Answer] = field(default_factory=dict)
    submitter: str = "alice"
    review: Review | None = None
    base: dict[str, Any] = field(default_factory=dict)

    def answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        """The declared answer to one call."""
        got = self.answers.get(method)
        if got is None:
            return default_answer(method, args)
        return got(args) if callable(got) else copy.deepcopy(got)

    def build(self, root: Path) -> tuple[GraphBuilder, str, str]:
        """Write base and head; returns (builder, base sha, head sha)."""
        b, base = base_repo(root, **self.base)
        for path, data in self.files.items():
            if data is None:
                b.remove(path)
            else:
                b.write(path, data)
        head = git_commit(b.root, f"pull request: {self.name}")
        return b, base, head


def _theorem(**over: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def ans(args: dict[str, Any]) -> dict[str, Any]:
        row = {"name": args["theorems"][0], "found": True, "type_equal": True,
               "axioms": ["propext"]}
        row.update(over)
        bad = [a for a in row["axioms"] if a not in AXIOMS]
        row.setdefault("disallowed_axioms", bad)
        code = ("sorry-used" if row.get("sorry") else "native-code-used" if row.get("native")
                else "axiom-not-permitted" if bad else None)
        return {"ok": code is None, "code": code, "theorems": [row]}
    return ans


def _defeq_true_for(*decls: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def ans(args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "code": None, "comparable": True,
                "defeq": args["right"][1] in decls}
    return ans


def _holes(*holes: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True, "code": None, "holes": list(holes)}


def _col(text: str, line: int) -> int:
    """The 0-based column of ``sorry`` on 1-based ``line`` (as Lean reports a position)."""
    return text.splitlines()[line - 1].index("sorry")


def _used(*modules: str) -> dict[str, Any]:
    return {"ok": True, "code": None, "constants": [], "modules": list(modules)}


BASE_LEMMA_PROOF = "Lemmata.demo.«base-lemma».Proof"
PROOF_MID = ("import Lemmata.demo.«base-lemma».Proof\n\n"
             "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n  simpa using Demo.base_lemma n\n")
PROOF_ROOT = "theorem Demo.main (n : Nat) (h : 2 < n) : n ≠ 0 := by\n  omega\n"
MID_PARTIAL = f"{ND}/mid/attempts/20260301T000000Z-alice-partial.lean"
MID_PARTIAL_TEXT = (
    "-- approach: two steps\n-- licence: CC-BY-4.0\n"
    "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n"
    "  -- label: drop one zero\n  -- claim: $n + 0 = n$\n  -- The first step.\n"
    "  have h₁ : n + 0 = n := sorry\n"
    "  -- label: zero plus\n  -- claim: $0 + n = n$\n"
    "  have h₂ : ∀ m : Nat, 0 + m = m := sorry\n"
    "  simp [h₁]\n")
H1_PARTIAL = f"{ND}/root--h1/attempts/20260301T000000Z-alice-partial.lean"
H1_PARTIAL_TEXT = ("-- approach: go back up\n-- licence: CC-BY-4.0\n"
                   "theorem Demo.main.h1 : True := by\n"
                   "  -- label: the root again\n  -- claim: $n \\ne 0$\n"
                   "  have back : ∀ n : Nat, 2 < n → n ≠ 0 := sorry\n  trivial\n")


MID_ANNEX = b"Drop the zeros one at a time.\n"
MID_ANNEX_SHA = sha256_hex(MID_ANNEX)
MID_SKELETON_TEXT = f"-- annex: {MID_ANNEX_SHA}\n" + MID_PARTIAL_TEXT


def _mid_holes(text: str, shift: int) -> dict[str, Answer]:
    """The toolchain's answers for MID_PARTIAL_TEXT's two holes, ``shift`` lines lower."""
    return {"extract_holes": _holes(
        {"index": 1, "name": "h₁", "goal": "n + 0 = n",
         "binders": [{"name": "n", "type": "Nat"}],
         "statement": "∀ (n : Nat), n + 0 = n", "line": 7 + shift,
         "column": _col(text, 7 + shift)},
        {"index": 2, "name": "h₂", "goal": "∀ m : Nat, 0 + m = m",
         "binders": [{"name": "n", "type": "Nat"}],
         "statement": "∀ (n : Nat), ∀ m : Nat, 0 + m = m", "line": 10 + shift,
         "column": _col(text, 10 + shift)}),
        "defeq": lambda a: {"ok": True, "code": None, "comparable": True,
                            "defeq": a["left"][2] == 2 and a["right"][1] == "Demo.aux"}}


def _mismatch(args: dict[str, Any]) -> dict[str, Any]:
    """A relation whose declaration states something else (statement-mismatch)."""
    return {"ok": False, "code": "statement-mismatch",
            "detail": "the declaration states something other than the expected type",
            "theorems": [{"name": args["theorem"], "found": True, "type_equal": False,
                          "axioms": ["propext"]}]}


def variant_files(nid: str, decl: str, stmt: str, relation: str, label: str
                  ) -> dict[str, bytes | None]:
    """A variant proposal (D-30): META.yaml, Statement.lean, Witness.lean, Relation.lean."""
    d = f"{ND}/{nid}"
    meta = {"schema": "meta/v1", "id": nid, "target": T, "declaration": decl,
            "statement_hash": sha256_hex(stmt.encode()), "origin": "variant",
            "author": "alice", "variant": {"of": "root", "relation": label}}
    import yaml
    return {f"{d}/META.yaml": yaml.safe_dump(meta, sort_keys=False).encode(),
            f"{d}/Statement.lean": stmt.encode(),
            f"{d}/Witness.lean": W_TRUE.format(decl=decl).encode(),
            f"{d}/Relation.lean": relation.encode()}


REFUTATION_MID = ("theorem Demo.mid.refutation : ¬ ∀ n : Nat, n + 0 + 0 = n := by\n"
                  "  sorry -- the stand-in answers for these bytes, Lean never sees them\n")
RESTATES_MID = ("theorem Demo.mid.refutation : ∀ n : Nat, n + 0 + 0 = n := by\n"
                "  intro n; simp\n")
VACUITY_MID = "theorem Demo.mid.vacuity : ¬ ∃ n : Nat, True := by\n  sorry\n"
REFUTATION_ROOT = ("theorem Demo.main.refutation : ¬ ∀ (n : Nat) (h : 2 < n), n ≠ 0 := by\n"
                   "  sorry\n")
S_WEAK = "theorem Demo.weak (n : Nat) (h : 3 < n) : n ≠ 0 := by\n  sorry\n"
R_WEAK_GOOD = ("theorem Demo.weak.relation : (∀ (n : Nat) (h : 3 < n), n ≠ 0) → "
               "∀ (n : Nat) (h : 2 < n), n ≠ 0 :=\n  fun _ n _ => by omega\n")
R_WEAK_BAD = ("theorem Demo.weak.relation : (∀ (n : Nat) (h : 2 < n), n ≠ 0) → "
              "∀ (n : Nat) (h : 3 < n), n ≠ 0 :=\n  fun f n h => f n (by omega)\n")
S_NEG = "theorem Demo.neg : ∃ n : Nat, 2 < n ∧ n = 0 := by\n  sorry\n"
VOUCHED_VARIANTS = {"fidelity": {"grade": "screened-and-signed"}, "variants": True}


def scenarios() -> dict[str, Scenario]:
    """Every gate scenario by name."""
    enc = str.encode
    mid_proof = f"{ND}/mid/Proof.lean"
    out = [
        Scenario("proof-ok", {mid_proof: enc(PROOF_MID)},
                 {"used_constants": _used(BASE_LEMMA_PROOF)}),
        Scenario("statement-edit", {f"{ND}/mid/Statement.lean": enc(S_MID + "-- edited\n")}),
        Scenario("outside-node", {mid_proof: enc(PROOF_MID), f"{ND}/mid/notes.txt": b"hi\n"}),
        Scenario("merged-proof-modified", {f"{ND}/aux/Proof.lean": enc(P_AUX + "-- more\n")}),
        Scenario("lakefile", {mid_proof: enc(PROOF_MID), "lakefile.lean": b"-- mine\n"}),
        Scenario("sorry", {mid_proof: enc(PROOF_MID.replace("simpa using Demo.base_lemma n",
                                                            "sorry"))},
                 {"check_statement": _theorem(axioms=["sorryAx"], sorry=True)}),
        Scenario("extra-axiom", {mid_proof: enc("axiom Demo.cheat : False\n\n" + PROOF_MID)},
                 {"check_statement": _theorem(axioms=["propext", "Demo.cheat"])}),
        Scenario("native", {mid_proof: enc(PROOF_MID.replace("simpa using Demo.base_lemma n",
                                                             "native_decide"))},
                 {"check_statement": _theorem(axioms=["propext", "Lean.ofReduceBool"],
                                              native=["Lean.ofReduceBool"])}),
        Scenario("native-waived", {
            mid_proof: enc(PROOF_MID.replace("simpa using Demo.base_lemma n", "native_decide")),
            f"{ND}/mid/waivers/native_decide.yaml": enc(
                "schema: waiver/v1\nkind: native_decide\njustification: a big computation\n"
                "author: alice\ndate: '2026-03-01'\n")},
                 {"check_statement": _theorem(axioms=["propext", "Lean.ofReduceBool"],
                                              native=["Lean.ofReduceBool"]),
                  "used_constants": _used(BASE_LEMMA_PROOF)},
                 review=Review("rita", signs_off=("native_decide",))),
        # an alternate may carry the waiver as a proof does (D-4, D-25 v3.13)
        Scenario("alternate-native-waived", {
            f"{ND}/aux/attempts/20260301T000000Z-alice-alternate.lean": enc(
                P_AUX.replace("simp", "native_decide")),
            f"{ND}/aux/waivers/native_decide.yaml": enc(
                "schema: waiver/v1\nkind: native_decide\njustification: a big computation\n"
                "author: alice\ndate: '2026-03-01'\n")},
                 {"check_statement": _theorem(axioms=["propext", "Lean.ofReduceBool"],
                                              native=["Lean.ofReduceBool"])},
                 review=Review("rita", signs_off=("native_decide",))),
        Scenario("undeclared", {mid_proof: enc(PROOF_MID.replace(
            "simpa using Demo.base_lemma n", "simpa using (Demo.base_lemma n).trans rfl"))},
                 {"used_constants": _used(BASE_LEMMA_PROOF, "Lemmata.demo.aux.Proof")}),
        Scenario("unused-use", {mid_proof: enc(PROOF_MID.replace(
            "simpa using Demo.base_lemma n", "simp"))}),
        Scenario("root-proof", {f"{ND}/root/Proof.lean": enc(PROOF_ROOT)}),
        Scenario("root-proof-reviewed", {f"{ND}/root/Proof.lean": enc(PROOF_ROOT)},
                 review=Review("rita")),
        Scenario("missing-witness", {f"{ND}/root--h2/Proof.lean": enc(
            "theorem Demo.main.h2 : 2 < 3 := by\n  decide\n")}),
        Scenario("restates-ancestor", {H1_PARTIAL: enc(H1_PARTIAL_TEXT)},
                 {"extract_holes": _holes({"index": 1, "name": "back", "goal": "∀ n, 2 < n → n ≠ 0",
                                           "statement": "∀ n : Nat, 2 < n → n ≠ 0",
                                           "line": 6, "column": _col(H1_PARTIAL_TEXT, 6)}),
                  "defeq": _defeq_true_for("Demo.main")}),
        Scenario("partial-ok", {
            MID_PARTIAL: enc(MID_PARTIAL_TEXT),
            f"{ND}/mid/attempts/20260301T000000Z-alice-partial.h1.witness.lean": enc(
                "theorem Demo.mid.h1.witness : ∃ n : Nat, True := ⟨0, trivial⟩\n")},
                 {"extract_holes": _holes(
                     {"index": 1, "name": "h₁", "goal": "n + 0 = n",
                      "binders": [{"name": "n", "type": "Nat"}],
                      "statement": "∀ (n : Nat), n + 0 = n", "line": 7,
                      "column": _col(MID_PARTIAL_TEXT, 7)},
                     {"index": 2, "name": "h₂", "goal": "∀ m : Nat, 0 + m = m",
                      "binders": [{"name": "n", "type": "Nat"}],
                      "statement": "∀ (n : Nat), ∀ m : Nat, 0 + m = m", "line": 10,
                      "column": _col(MID_PARTIAL_TEXT, 10)}),
                  "defeq": lambda a: {"ok": True, "code": None, "comparable": True,
                                      "defeq": a["left"][2] == 2 and a["right"][1] == "Demo.aux"}}),
        # skeletons citing an annex (D-31 v3.12)
        Scenario("skeleton-ok", {MID_PARTIAL: enc(MID_SKELETON_TEXT)},
                 _mid_holes(MID_SKELETON_TEXT, 1), base={"annex": True}),
        Scenario("skeleton-annex-missing", {MID_PARTIAL: enc(MID_SKELETON_TEXT)},
                 _mid_holes(MID_SKELETON_TEXT, 1)),
        Scenario("unlabelled-partial", {MID_PARTIAL: enc(MID_PARTIAL_TEXT.replace(
            "  -- label: zero plus\n", ""))},
                 {"extract_holes": _holes(
                     {"index": 1, "name": "h₁", "goal": "n + 0 = n", "statement": "n + 0 = n",
                      "line": 7, "column": _col(MID_PARTIAL_TEXT, 7)},
                     {"index": 2, "name": "h₂", "goal": "0 + m = m", "statement": "0 + m = m",
                      "line": 9, "column": 40})}),
        Scenario("close-p", {f"{ND}/p--h1/Proof.lean": enc(
            "theorem Demo.p.h1 : 1 + 1 = 2 := by\n  rfl\n")},
                 {"extract_holes": _holes({"index": 1, "name": "h", "goal": "1 + 1 = 2",
                                           "statement": "1 + 1 = 2", "line": 6,
                                           "column": _col(P_PARTIAL_TEXT, 6)})}),
        # counterexamples and vacuity certificates (D-12 #2, #3)
        Scenario("counterexample-ok", {f"{ND}/mid/Refutation.lean": enc(REFUTATION_MID)}),
        Scenario("counterexample-restates", {f"{ND}/mid/Refutation.lean": enc(RESTATES_MID)},
                 {"check_relation": _mismatch}),
        Scenario("vacuity-ok", {f"{ND}/mid/Vacuity.lean": enc(VACUITY_MID)}),
        Scenario("root-counterexample", {f"{ND}/root/Refutation.lean": enc(REFUTATION_ROOT)}),
        # variants with Relation.lean (D-30)
        Scenario("variant-resolves", variant_files("weak", "Demo.weak", S_WEAK, R_WEAK_GOOD,
                                                   "resolves")),
        Scenario("variant-resolves-bad", variant_files("weak", "Demo.weak", S_WEAK,
                                                       R_WEAK_BAD, "resolves"),
                 {"check_relation": _mismatch}),
        Scenario("variant-refutes", variant_files("neg", "Demo.neg", S_NEG, R_COUNTER.replace(
            "Demo.counter", "Demo.neg"), "refutes")),
        # root closure through a proved variant (D-12 v3.42, v3.46)
        Scenario("close-root-resolves", {f"{ND}/strong/Proof.lean": enc(
            "theorem Demo.strong (n : Nat) : n ≠ 0 ∨ n = 0 := by\n  omega\n")},
                 base=dict(VOUCHED_VARIANTS)),
        # declared answers only: the demo root is true, so no real proof of counter exists
        Scenario("close-root-refutes", {f"{ND}/counter/Proof.lean": enc(
            "theorem Demo.counter : ∃ n : Nat, 2 < n ∧ n = 0 := by\n  decide\n")},
                 base=dict(VOUCHED_VARIANTS)),
        Scenario("postmortem", {f"{ND}/mid/attempts/20260301T000000Z-alice-postmortem.yaml": enc(
            "schema: d13/v1\nnode: demo/mid\ncontributor: alice\nroute: induction on n\n"
            "route_class: induction\noutcome: exhausted\nterminal_goal_state: '⊢ n = n'\n"
            "failure_class: route-dead-ends\n")}),
    ]
    return {s.name: s for s in out}


# --- recording ---------------------------------------------------------------------------


class RecordingToolchain(RecordedToolchain):
    """Answers from a scenario and records every call keyed exactly as the stand-in looks
    it up (tests and make_recordings.py only)."""

    def __init__(self, spec: m.GateSpec, scenario: Scenario,
                 store: dict[str, dict[str, Any]]) -> None:
        super().__init__(spec)
        self.scenario = scenario
        self.store = store
        self._files: dict[str, str] = {}

    def _record(self, key: str, files: dict[str, str], method: str, args: dict[str, Any]
                ) -> dict[str, Any]:
        result = self.scenario.answer(method, args)
        rec = self.store.setdefault(key, {"files": files, "calls": []})
        for call in rec["calls"]:
            if call["method"] == method and call["args"] == args:
                if call["result"] != result:
                    raise ValueError(f"conflicting answers for {method} {args} ({key})")
                return dict(result)
        rec["calls"].append({"method": method, "args": args, "result": result})
        return dict(result)

    def _call(self, workspace: Workspace, method: str, args: dict[str, Any]
              ) -> dict[str, Any] | str:
        files = workspace.input_files()
        return self._record(inputs_key(files), {k: sha256_hex(v) for k, v in files.items()},
                            method, args)

    def _lookup(self, key: str, method: str, args: dict[str, Any]) -> dict[str, Any] | str:
        text = (self.spec.lean_toolchain + "\n").encode()
        return self._record(key, {"lean-toolchain": hashlib.sha256(text).hexdigest()},
                            method, args)


def precheck_raw(repo: Path, base: str, head: str, **over: Any) -> str | None:
    """An unsigned passing precheck attestation (kind ``none``, what ``pregate.sh`` prints
    without --sign) for the first artifact of ``base..head``, as its fenced JSON."""
    diff = diff_commits(repo, base, head)
    g = load_graph(repo, commit=base)
    s12 = run_steps_1_2(diff, g, "alice")
    if not s12.artifacts:
        return None
    art = s12.artifacts[0]
    arts = [m.ArtifactHash(path=c.path, sha256=sha256_hex(diff.new_bytes(c)))
            for c in diff.changes if c.path in art.paths and c.new_id is not None]
    t = g.targets[art.target]
    from network.gate.run import commit_date
    body: dict[str, Any] = {
        "graph_id": g.policy.graph_id, "target": art.target, "node": art.node or "root",
        "artifact_kind": art.kind.value, "artifacts": arts,
        "gate_spec_sha256": t.gate_spec_sha256, "toolchain": t.gate_spec.lean_toolchain,
        "verdict": "precheck-pass", "steps": [], "date": commit_date(repo, head)}
    body.update(over)
    att = m.PrecheckAttestation(**body)
    got = A.precheck_from_body(A.precheck_block(att))
    return got


def record_all(work: Path) -> dict[str, dict[str, Any]]:
    """Run every scenario through the gate (authoritative and precheck) and the post-merge
    job with a :class:`RecordingToolchain`; returns key → recording."""
    from network.gate.postmerge import postmerge_files
    from network.gate.run import run_gate
    from network.gate.sandbox import Sandbox

    store: dict[str, dict[str, Any]] = {}
    for name, sc in scenarios().items():
        b, base, head = sc.build(work / name)

        def tc_for(spec: m.GateSpec, sc: Scenario = sc) -> RecordingToolchain:
            return RecordingToolchain(spec, sc, store)

        raw = precheck_raw(b.root, base, head)
        out = run_gate(b.root, base, head, toolchain=tc_for, sandbox=Sandbox(),
                       precheck_raw=raw, submitter=sc.submitter, review=sc.review)
        run_gate(b.root, base, head, toolchain=tc_for, sandbox=Sandbox(), mode="precheck",
                 submitter=sc.submitter, review=sc.review)
        if out.verdict == "pass":
            import pygit2
            repo = pygit2.Repository(str(b.root))
            repo.references["refs/heads/main"].set_target(pygit2.Oid(hex=head))
            postmerge_files(b.root, head, out.attestations, pull_request="local/1",
                            submitter=sc.submitter, toolchain=tc_for, sandbox=Sandbox())
    return store


def merge_recordings(store: dict[str, dict[str, Any]], out: Path) -> int:
    """Merge recorded calls into ``out/<key>.json`` (a key already recorded keeps its
    calls; a conflicting answer raises SystemExit). Returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for key, rec in sorted(store.items()):
        path = out / f"{key}.json"
        if path.exists():
            have = json.loads(path.read_text("utf-8"))
            for call in rec["calls"]:
                same = [c for c in have["calls"]
                        if c["method"] == call["method"] and c["args"] == call["args"]]
                if same and same[0]["result"] != call["result"]:
                    raise SystemExit(f"conflicting answer for {call['method']} in {key}")
                if not same:
                    have["calls"].append(call)
            rec = have
        path.write_text(json.dumps(rec, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
        written += 1
    return written
