"""Gate fixtures shared by the tests and ``tests/fixtures/toolchain/make_recordings.py``.

Each :class:`Scenario` builds the same base graph (target ``demo``) and one pull request on
top of it, and declares what a Lean toolchain answers for its files (``answers``). The
recorded stand-in (tests/standin.py) replays those answers keyed by the exact bytes of each
workspace; make_recordings.py writes them by running the real gate code with a
:class:`RecordingToolchain`, so the recordings always match the calls the gate makes.
Nothing here parses Lean: every answer is declared by hand next to the text it answers for,
and each must be what the pinned Lean would answer for those bytes (issue 10): a proof
with ``sorry`` lists ``sorryAx``, only true theorems build, a witness's expected type is the
existential of its own statement's hypotheses (:data:`WITNESS_TYPES`), an axiom carries
its declaring module and identity hash (:data:`AXIOM_KEYS`). Stories that need a false
statement state one (``base_repo(false_root=True)``, the ``extra`` nodes). No test here
can check that against Lean; ``tests/test_recordings_audit.py`` (``pytest -m lean``) does,
wherever Lean is installed, and ``tests/test_recordings_honest.py`` holds the known-false
claims out without it.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from standin import NO_RECORDING, RecordedToolchain, inputs_key

from network.forge.types import precheck_from_body
from network.gate import attestation as A
from network.gate.diff import diff_commits
from network.gate.lean.axioms import pinned_table, type_sha256
from network.gate.lean.kernels import replayed_kernels
from network.gate.lean.toolchain import OutlineResult
from network.gate.run import Review
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.workspace import Workspace
from network.gate.steps.step2 import run_steps_1_2
from network.record import models as m
from network.record.read.loader import load_graph, sha256_hex
from tests.graphs import (
    BUILDER_GATE_KEY,
    BUILDER_GATE_KEY_ID,
    DEFAULT_TOOLCHAIN,
    GraphBuilder,
    git_commit,
)

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
#: the witness of a statement with one data binder `n : Nat` and no hypothesis
W_DATA = "theorem {decl}.witness : ∃ n : Nat, True := ⟨0, trivial⟩\n"
W_M = "theorem {decl}.witness : ∃ m : Nat, True := ⟨0, trivial⟩\n"
#: p's hole: a statement that does not compute to p's own (a hole `1 + 1 = 2` would be
#: defeq to the goal by evaluation, offload-restates-goal)
S_P_H1 = "theorem Demo.p.h1 : ∀ (m : Nat), 0 + m + 1 = m + 1 := by\n  sorry\n"
S_P = "theorem Demo.p : 1 + 1 = 2 := by\n  sorry\n"
ROOT_PARTIAL = f"{ND}/root/attempts/20260101T000000Z-bob-partial.lean"
P_PARTIAL_TEXT = ("-- approach: compute\n-- licence: CC-BY-4.0\n"
                  "theorem Demo.p : 1 + 1 = 2 := by\n"
                  "  -- label: the sum\n  -- claim: $1+1=2$\n"
                  "  have h : ∀ m : Nat, 0 + m + 1 = m + 1 := sorry\n  exact h 1\n")
P_PARTIAL = f"{ND}/p/attempts/20260101T000000Z-carol-partial.lean"


S_STRONG = "theorem Demo.strong (n : Nat) : n ≠ 0 ∨ n = 0 := by\n  sorry\n"
R_STRONG = ("theorem Demo.strong.relation : (∀ n : Nat, n ≠ 0 ∨ n = 0) → "
            "∀ (n : Nat) (h : 2 < n), n ≠ 0 :=\n  fun _ n h => by omega\n")
S_COUNTER = "theorem Demo.counter : ∃ n : Nat, 2 < n ∧ n = 0 := by\n  sorry\n"
R_COUNTER = ("theorem Demo.counter.relation : (∃ n : Nat, 2 < n ∧ n = 0) → "
             "¬ ∀ (n : Nat) (h : 2 < n), n ≠ 0 :=\n"
             "  fun ⟨n, h, e⟩ hf => hf n h e\n")
#: ``false_root``: a false root, so a refutation and a refuting variant can be true
S_ROOT_FALSE = ("/-- The demo root, false on purpose. -/\n"
                "theorem Demo.main (n : Nat) (h : 2 < n) : n = 0 := by\n  sorry\n")
S_COUNTER_TRUE = "theorem Demo.counter : ∃ n : Nat, 2 < n ∧ n ≠ 0 := by\n  sorry\n"
R_COUNTER_TRUE = ("theorem Demo.counter.relation : (∃ n : Nat, 2 < n ∧ n ≠ 0) → "
                  "¬ ∀ (n : Nat) (h : 2 < n), n = 0 :=\n"
                  "  fun ⟨n, h, e⟩ hf => e (hf n h)\n")
S_OTHER = "theorem Demo.other : ∃ n : Nat, 3 < n ∧ n ≠ 0 := by\n  sorry\n"
R_OTHER = ("theorem Demo.other.relation : (∃ n : Nat, 3 < n ∧ n ≠ 0) → "
           "¬ ∀ (n : Nat) (h : 2 < n), n = 0 :=\n"
           "  fun ⟨n, h, e⟩ hf => e (hf n (by omega))\n")
#: ``extra``: a false node (for a counterexample) and a vacuous one (for vacuity)
S_BAD = "theorem Demo.bad (n : Nat) : n + 1 = n := by\n  sorry\n"
S_EMPTY = "theorem Demo.empty (n : Nat) (h : n < 0) : n = 7 := by\n  sorry\n"


def base_repo(root: Path, *, precheck: dict[str, Any] | None = None,
              fidelity: dict[str, Any] | None = None,
              variants: bool = False, annex: bool = False, false_root: bool = False,
              extra: bool = False, pin: str | None = None) -> tuple[GraphBuilder, str]:
    """The base graph, committed: root (open, with a merged partial whose holes are
    root--h1 (witnessed) and root--h2 (blocked)), aux and base-lemma (proved; base-lemma's
    proof uses aux's), mid (open, deps base-lemma), p (open, one merged route whose hole
    p--h1 is open). With ``variants``: strong (a resolves variant of root) and counter (a
    refutes variant), both open with merged Relation.lean (D-30). With ``annex``: mid
    holds the annex :data:`MID_ANNEX` (D-31). With ``false_root`` the root states the
    false :data:`S_ROOT_FALSE` and both variants are true refutes variants (counter and
    other). With ``extra``: bad (false, :data:`S_BAD`) and empty (vacuous,
    :data:`S_EMPTY`, no witness can exist), both open. ``pin`` replaces the target's
    toolchain pin (issue 37: a known-unsound one)."""
    b = GraphBuilder(root)
    b.base()
    b.target(T, fidelity=fidelity)
    if precheck is not None or pin is not None:
        spec = json.loads(b.read(f"targets/{T}/gate-spec.json"))
        if precheck is not None:
            spec["precheck"] = precheck
        if pin is not None:
            spec["lean_toolchain"] = pin
        b.write_json(f"targets/{T}/gate-spec.json", spec)
    b.node(T, "root", statement=S_ROOT_FALSE if false_root else S_ROOT, witness=W_ROOT,
           declaration="Demo.main")
    b.node(T, "aux", statement=S_AUX, witness=W_DATA.format(decl="Demo.aux"),
           declaration="Demo.aux", proof=P_AUX)
    b.node(T, "base-lemma", statement=S_BASE, witness=W_DATA.format(decl="Demo.base_lemma"),
           declaration="Demo.base_lemma", proof=P_BASE)
    b.node(T, "mid", statement=S_MID, witness=W_DATA.format(decl="Demo.mid"),
           declaration="Demo.mid", deps=["base-lemma"])
    if extra:
        b.node(T, "bad", statement=S_BAD, witness=W_DATA.format(decl="Demo.bad"),
               declaration="Demo.bad")
        b.node(T, "empty", statement=S_EMPTY, witness=False, declaration="Demo.empty")
    b.node(T, "p", statement=S_P, witness=W_TRUE.format(decl="Demo.p"), declaration="Demo.p")
    b.partial(T, "root", "20260101T000000Z", "bob",
              "-- approach: split\n-- licence: CC-BY-4.0\ntheorem Demo.main : True := sorry\n")
    b.partial(T, "p", "20260101T000000Z", "carol", P_PARTIAL_TEXT)
    b.hole(T, "root", 1, ROOT_PARTIAL, statement="theorem Demo.main.h1 : True := by\n  sorry\n",
           witness=W_TRUE.format(decl="Demo.main.h1"), declaration="Demo.main.h1")
    b.hole(T, "root", 2, ROOT_PARTIAL,
           statement="theorem Demo.main.h2 : 2 < 3 := by\n  sorry\n", declaration="Demo.main.h2")
    b.hole(T, "p", 1, P_PARTIAL, name="h",
           statement=S_P_H1, witness=W_M.format(decl="Demo.p.h1"), declaration="Demo.p.h1")
    b.merge([f"{ND}/aux/Proof.lean"], date="2026-01-01", artifact_kind="proof")
    b.merge([f"{ND}/base-lemma/Proof.lean"], date="2026-01-01", artifact_kind="proof")
    b.merge([ROOT_PARTIAL], date="2026-01-01", artifact_kind="partial")
    b.merge([P_PARTIAL], date="2026-01-01", artifact_kind="partial")
    if annex:
        b.annex(T, "mid", MID_ANNEX.decode())
    if variants:
        pairs = ((("other", "Demo.other", S_OTHER, R_OTHER, "refutes", W_TRUE),
                  ("counter", "Demo.counter", S_COUNTER_TRUE, R_COUNTER_TRUE, "refutes",
                   W_TRUE)) if false_root else
                 (("strong", "Demo.strong", S_STRONG, R_STRONG, "resolves", W_DATA),
                  ("counter", "Demo.counter", S_COUNTER, R_COUNTER, "refutes", W_TRUE)))
        for nid, decl, stmt, rel, label, wit in pairs:
            b.node(T, nid, statement=stmt, witness=wit.format(decl=decl), declaration=decl,
                   origin="variant", variant={"of": "root", "relation": label}, relation=rel)
            b.merge([f"{ND}/{nid}/META.yaml", f"{ND}/{nid}/Statement.lean",
                     f"{ND}/{nid}/Witness.lean", f"{ND}/{nid}/Relation.lean"],
                    date="2026-01-02", artifact_kind="variant")
    return b, git_commit(b.root, "base")


# --- answers -----------------------------------------------------------------------------

Answer = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]

#: axiom → (declaring module, identity key as Common.lean's ``constKey`` prints it). Those
#: network/gate/axioms pins (the allowed three, Lean.ofReduceBool) carry its values; the
#: rest are read off their declarations (lean4 src/Init/Prelude.lean, src/Init/Core.lean;
#: the fixtures' own files).
AXIOM_KEYS: dict[str, tuple[str | None, str]] = {
    **{name: (e.module, e.type_key)
       for name, e in (pinned_table(DEFAULT_TOOLCHAIN) or {}).items()},
    "sorryAx": ("Init.Prelude",
                "u|(P (S u) (P (A (A (C optParam [(s 0)]) (C Bool [])) (C Bool.false [])) #1))"),
    "Demo.cheat": ("Lemmata.demo.mid.Proof", "|(C False [])"),
}


def identities(axioms: list[str]) -> list[dict[str, Any]]:
    """The ``axiom_identities`` rows a real checker reports for ``axioms``."""
    return [{"name": a, "module": AXIOM_KEYS[a][0],
             "type_sha256": type_sha256(AXIOM_KEYS[a][1])} for a in sorted(axioms)]


#: the witness type Witness.lean's ``hypothesesExists`` builds for each statement, as
#: Lean prints it: ∃ over the data binders of the conjunction of the hypotheses.
WITNESS_TYPES: dict[str, str] = {
    "Demo.main": "∃ n, 2 < n", "Demo.weak": "∃ n, 3 < n",
    **{d: "∃ n, True" for d in ("Demo.aux", "Demo.base_lemma", "Demo.mid", "Demo.strong",
                                "Demo.bad", "Demo.mid.h1", "Calib.add_zero",
                                "Calib.zero_add")},
    "Demo.p.h1": "∃ m, True",
    **{d: "True" for d in ("Demo.p", "Demo.main.h1", "Demo.counter",
                           "Demo.neg", "Demo.other")},
    "Calib.main": "∃ m n, True", "Tutorial.double_lt": "∃ m n, m < n",
}

#: a clean proof's axioms per declaration (what its fixture proof uses: simp and omega
#: close goals through propext; rfl, decide and anonymous constructors use none)
PROOF_AXIOMS: dict[str, list[str]] = {
    "Demo.mid": ["propext"], "Demo.main": ["propext"], "Demo.aux": ["propext"],
    "Demo.strong": ["propext"], "Demo.p.h1": ["propext"], "Demo.p": [], "Demo.main.h2": [],
    "Demo.counter": [],
    "Tutorial.double_lt": ["propext"], "Calib.add_zero": [],
    # relations, refutations, vacuity certificates
    "Demo.weak.relation": ["propext"], "Demo.neg.relation": [],
    "Demo.strong.relation": ["propext"], "Demo.counter.relation": [],
    "Demo.other.relation": ["propext"],
    "Demo.mid.refutation": ["propext"], "Demo.bad.refutation": [],
    "Demo.empty.vacuity": [], "Demo.main.refutation": [],
}


def kernel_answers(spec: m.GateSpec, replay: dict[str, Any]) -> list[dict[str, Any]]:
    """Every kernel of the spec's set (network/gate/lean/kernels.py, issue 37) answering as the
    declared replay does: all accept a module Lean's kernel accepts (the fixtures hold no
    kernel bug), all refuse one it refuses; each at its pinned version. A scenario that
    needs kernels to disagree declares ``kernels`` itself."""
    verdict = "accept" if replay.get("ok") else "refuse"
    return [{"name": k.name, "version": k.version, "verdict": verdict,
             "code": None if replay.get("ok") else (replay.get("code") or
                                                    "kernel-replay-failed"),
             "detail": ""} for k in replayed_kernels(spec)]


def default_answer(method: str, args: dict[str, Any]) -> dict[str, Any]:
    """What a clean toolchain answers: everything checks, nothing is used or found; a
    declaration's axioms and witness type come from :data:`PROOF_AXIOMS` and
    :data:`WITNESS_TYPES` (a KeyError means: declare it)."""
    if method == "describe":
        return {"ok": True, "code": None,
                "lean_version": DEFAULT_TOOLCHAIN.rsplit(":v", 1)[-1]}
    if method == "build":
        return {"ok": True, "code": None, "rc": 0}
    if method == "replay":
        return {"ok": True, "code": None, "fresh": True}
    if method == "check_statement":
        return {"ok": True, "code": None, "theorems": [
            {"name": t, "found": True, "type_equal": True, "axioms": PROOF_AXIOMS[t],
             "axiom_identities": identities(PROOF_AXIOMS[t])}
            for t in args["theorems"]]}
    if method == "check_witness":
        ty = WITNESS_TYPES[args["decl"]]
        return {"ok": True, "code": None, "expected_type": ty, "witness_type": ty,
                "axioms": [], "axiom_identities": []}
    if method == "used_constants":
        return {"ok": True, "code": None, "constants": [], "modules": []}
    if method == "hazards":
        return {"ok": True, "code": None, "findings": []}
    if method == "extract_holes":
        return {"ok": True, "code": None, "holes": []}
    if method == "defeq":
        return {"ok": True, "code": None, "defeq": False, "comparable": True}
    if method == "olean_entries":
        # OleanEntries.lean's report: the scenarios' modules are plain theorems (no syntax,
        # printer, attribute or initializer), so no extension outside the inert set holds
        # an entry (audited against Lean by tests/test_recordings_audit.py)
        return {"checker": "OleanEntries", "version": 1,
                "modules": [{"module": mod, "outside": []} for mod in args["modules"]]}
    if method in ("check_relation", "join_relation"):
        if method == "check_relation":
            name, axioms = args["theorem"], PROOF_AXIOMS[args["theorem"]]
        else:  # the join `relation premise`: both proofs' axioms
            name = "LemmataGate.RelationJoin.join"
            axioms = sorted(set(PROOF_AXIOMS[args["premise"][1]])
                            | set(PROOF_AXIOMS[args["relation"][1]]))
        return {"ok": True, "code": None, "theorems": [
            {"name": name, "found": True, "type_equal": True, "axioms": axioms,
             "axiom_identities": identities(axioms)}]}
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
        row["axiom_identities"] = identities(row["axioms"])
        bad = [a for a in row["axioms"] if a not in AXIOMS]
        row.setdefault("disallowed_axioms", bad)
        code = ("sorry-used" if row.get("sorry") else "native-code-used" if row.get("native")
                else "axiom-not-permitted" if bad else None)
        return {"ok": code is None, "code": code, "theorems": [row]}
    return ans


#: a pin the soundness record lists as unsound whatever kernels run (lean4#14576)
UNSOUND_PIN = "leanprover/lean4:v4.27.0"


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
    "  have h₁ : n + 0 = 0 + n := sorry\n"
    "  -- label: zero plus\n  -- claim: $0 + n = n$\n"
    "  have h₂ : 0 + n = n := sorry\n"
    "  simp\n")
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
        {"index": 1, "name": "h₁", "goal": "n + 0 = 0 + n",
         "binders": [{"name": "n", "type": "Nat"}],
         "statement": "∀ (n : Nat), n + 0 = 0 + n", "line": 7 + shift,
         "column": _col(text, 7 + shift)},
        {"index": 2, "name": "h₂", "goal": "0 + n = n",
         "binders": [{"name": "n", "type": "Nat"}],
         "statement": "∀ (n : Nat), 0 + n = n", "line": 10 + shift,
         "column": _col(text, 10 + shift)}),
        "defeq": lambda a: {"ok": True, "code": None, "comparable": True,
                            "defeq": a["left"][2] == 2 and a["right"][1] == "Demo.aux"}}


def _mismatch(args: dict[str, Any]) -> dict[str, Any]:
    """A relation whose declaration states something else (statement-mismatch)."""
    axioms = PROOF_AXIOMS[args["theorem"]]
    return {"ok": False, "code": "statement-mismatch",
            "detail": "the declaration states something other than the expected type",
            "theorems": [{"name": args["theorem"], "found": True, "type_equal": False,
                          "axioms": axioms, "axiom_identities": identities(axioms)}]}


#: a partial proof's check: its `sorry`s show as sorryAx (step 5 allows them on a route
#: with holes); simp, as in the mid partials, adds propext
_PARTIAL = _theorem(axioms=["sorryAx"], sorry=True)
_PARTIAL_SIMP = _theorem(axioms=["propext", "sorryAx"], sorry=True)


def variant_files(nid: str, decl: str, stmt: str, relation: str, label: str,
                  witness: str = W_TRUE) -> dict[str, bytes | None]:
    """A variant proposal (D-30): META.yaml, Statement.lean, Witness.lean, Relation.lean."""
    d = f"{ND}/{nid}"
    meta = {"schema": "meta/v1", "id": nid, "target": T, "declaration": decl,
            "statement_hash": sha256_hex(stmt.encode()), "origin": "variant",
            "author": "alice", "variant": {"of": "root", "relation": label}}
    import yaml
    return {f"{d}/META.yaml": yaml.safe_dump(meta, sort_keys=False).encode(),
            f"{d}/Statement.lean": stmt.encode(),
            f"{d}/Witness.lean": witness.format(decl=decl).encode(),
            f"{d}/Relation.lean": relation.encode()}


REFUTATION_BAD = ("theorem Demo.bad.refutation : ¬ ∀ n : Nat, n + 1 = n :=\n"
                  "  fun f => absurd (f 0) (by decide)\n")
RESTATES_MID = ("theorem Demo.mid.refutation : ∀ n : Nat, n + 0 + 0 = n := by\n"
                "  intro n; simp\n")
VACUITY_EMPTY = ("theorem Demo.empty.vacuity : ¬ ∃ n : Nat, n < 0 :=\n"
                 "  fun ⟨n, h⟩ => Nat.not_lt_zero n h\n")
REFUTATION_ROOT = ("theorem Demo.main.refutation : ¬ ∀ (n : Nat) (h : 2 < n), n = 0 :=\n"
                   "  fun f => absurd (f 3 (by decide)) (by decide)\n")
#: a side fact by native_decide (it needs a closed goal), then the usual proof
NATIVE_STEP = "have _h : 1 + 1 = 2 := by native_decide\n  "
S_WEAK = "theorem Demo.weak (n : Nat) (h : 3 < n) : n ≠ 0 := by\n  sorry\n"
R_WEAK_GOOD = ("theorem Demo.weak.relation : (∀ (n : Nat) (h : 3 < n), n ≠ 0) → "
               "∀ (n : Nat) (h : 2 < n), n ≠ 0 :=\n  fun _ n _ => by omega\n")
R_WEAK_BAD = ("theorem Demo.weak.relation : (∀ (n : Nat) (h : 2 < n), n ≠ 0) → "
              "∀ (n : Nat) (h : 3 < n), n ≠ 0 :=\n  fun f n h => f n (by omega)\n")
S_NEG = "theorem Demo.neg : ∃ n : Nat, 2 < n ∧ n = 0 := by\n  sorry\n"
W_WEAK = "theorem {decl}.witness : ∃ n : Nat, 3 < n := ⟨4, by decide⟩\n"
VOUCHED_VARIANTS = {"fidelity": {"grade": "screened-and-signed"}, "variants": True}
P_NATIVE_MID = PROOF_MID.replace("simpa using Demo.base_lemma n",
                                 NATIVE_STEP + "simpa using Demo.base_lemma n")


def _nat(k: int) -> str:
    """``(k : Nat)`` as elaborated, in Common.lean's ``exprKey``."""
    return f"(A (A (A (C OfNat.ofNat [0]) (C Nat [])) (N {k})) (A (C instOfNatNat []) (N {k})))"


def native_axiom_key(a: int, b: int, c: int) -> str:
    """The identity key (Common.lean ``constKey``) of the axiom ``native_decide`` adds for
    ``a + b = c`` on Nat since v4.29: lean4 src/Lean/Meta/Native.lean ``nativeEqTrue``
    declares ``axiom … : @Eq.{1} Bool e Bool.true`` with no universe parameters, where
    ``e`` is ``@Decidable.decide p (instDecidableEqNat lhs rhs)`` for the goal ``p``.
    Derived by hand; tests/test_recordings_audit.py checks it wherever Lean runs."""
    lhs = (f"(A (A (A (A (A (A (C HAdd.hAdd [0 0 0]) (C Nat [])) (C Nat [])) (C Nat [])) "
           f"(A (A (C instHAdd [0]) (C Nat [])) (C instAddNat []))) {_nat(a)}) {_nat(b)})")
    rhs = _nat(c)
    prop = f"(A (A (A (C Eq [(s 0)]) (C Nat [])) {lhs}) {rhs})"
    inst = f"(A (A (C instDecidableEqNat []) {lhs}) {rhs})"
    e = f"(A (A (C Decidable.decide []) {prop}) {inst})"
    return f"|(A (A (A (C Eq [(s 0)]) (C Bool [])) {e}) (C Bool.true []))"


def _native(a: int, b: int, c: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """check_statement's answer for a proof whose ``native_decide`` proves ``a + b = c``:
    since v4.29 one axiom per computation, ``<decl>._native.native_decide.ax_1_1``
    (lean4 PR #12217; the name as v4.32.2 and v4.34.0 print it), declared in the solution
    module itself, beside the proof's own ``propext``."""
    def ans(args: dict[str, Any]) -> dict[str, Any]:
        decl = args["theorems"][0]
        ax = f"{decl}._native.native_decide.ax_1_1"
        AXIOM_KEYS[ax] = (args["solution_module"], native_axiom_key(a, b, c))
        return _theorem(axioms=[ax, "propext"], native=[ax])(args)
    return ans


_NATIVE = _native(1, 1, 2)


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
        Scenario("native", {mid_proof: enc(P_NATIVE_MID)}, {"check_statement": _NATIVE}),
        Scenario("native-waived", {
            mid_proof: enc(P_NATIVE_MID),
            f"{ND}/mid/waivers/native_decide.yaml": enc(
                "schema: waiver/v1\nkind: native_decide\njustification: a big computation\n"
                "author: alice\ndate: '2026-03-01'\n")},
                 {"check_statement": _NATIVE, "used_constants": _used(BASE_LEMMA_PROOF)},
                 review=Review("rita", signs_off=("native_decide",))),
        # an alternate may carry the waiver as a proof does (D-4, D-25 v3.13)
        Scenario("alternate-native-waived", {
            f"{ND}/aux/attempts/20260301T000000Z-alice-alternate.lean": enc(
                P_AUX.replace("simp", NATIVE_STEP.replace("1 + 1 = 2", "0 + 0 = 0") + "simp")),
            f"{ND}/aux/waivers/native_decide.yaml": enc(
                "schema: waiver/v1\nkind: native_decide\njustification: a big computation\n"
                "author: alice\ndate: '2026-03-01'\n")},
                 {"check_statement": _native(0, 0, 0)},
                 review=Review("rita", signs_off=("native_decide",))),
        # aux's theorem is in scope through base-lemma's proof module, and the term uses it
        Scenario("undeclared", {mid_proof: enc(PROOF_MID.replace(
            "simpa using Demo.base_lemma n",
            "have _h := Demo.aux n\n  simpa using Demo.base_lemma n"))},
                 {"used_constants": _used(BASE_LEMMA_PROOF, "Lemmata.demo.aux.Proof")}),
        Scenario("unused-use", {mid_proof: enc(PROOF_MID.replace(
            "simpa using Demo.base_lemma n", "simp"))}),
        Scenario("root-proof", {f"{ND}/root/Proof.lean": enc(PROOF_ROOT)}),
        Scenario("root-proof-reviewed", {f"{ND}/root/Proof.lean": enc(PROOF_ROOT)},
                 review=Review("rita")),
        Scenario("missing-witness", {f"{ND}/root--h2/Proof.lean": enc(
            "theorem Demo.main.h2 : 2 < 3 := by\n  decide\n")}),
        Scenario("restates-ancestor", {H1_PARTIAL: enc(H1_PARTIAL_TEXT)},
                 {"check_statement": _PARTIAL,
                  "extract_holes": _holes({"index": 1, "name": "back", "goal": "∀ n, 2 < n → n ≠ 0",
                                           "statement": "∀ n : Nat, 2 < n → n ≠ 0",
                                           "line": 6, "column": _col(H1_PARTIAL_TEXT, 6)}),
                  "defeq": _defeq_true_for("Demo.main")}),
        Scenario("partial-ok", {
            MID_PARTIAL: enc(MID_PARTIAL_TEXT),
            f"{ND}/mid/attempts/20260301T000000Z-alice-partial.h1.witness.lean": enc(
                "theorem Demo.mid.h1.witness : ∃ n : Nat, True := ⟨0, trivial⟩\n")},
                 {"check_statement": _PARTIAL_SIMP,
                  "extract_holes": _holes(
                     {"index": 1, "name": "h₁", "goal": "n + 0 = 0 + n",
                      "binders": [{"name": "n", "type": "Nat"}],
                      "statement": "∀ (n : Nat), n + 0 = 0 + n", "line": 7,
                      "column": _col(MID_PARTIAL_TEXT, 7)},
                     {"index": 2, "name": "h₂", "goal": "0 + n = n",
                      "binders": [{"name": "n", "type": "Nat"}],
                      "statement": "∀ (n : Nat), 0 + n = n", "line": 10,
                      "column": _col(MID_PARTIAL_TEXT, 10)}),
                  "defeq": lambda a: {"ok": True, "code": None, "comparable": True,
                                      "defeq": a["left"][2] == 2 and a["right"][1] == "Demo.aux"}}),
        # skeletons citing an annex (D-31 v3.12)
        Scenario("skeleton-ok", {MID_PARTIAL: enc(MID_SKELETON_TEXT)},
                 {**_mid_holes(MID_SKELETON_TEXT, 1), "check_statement": _PARTIAL_SIMP},
                 base={"annex": True}),
        Scenario("skeleton-annex-missing", {MID_PARTIAL: enc(MID_SKELETON_TEXT)},
                 {**_mid_holes(MID_SKELETON_TEXT, 1), "check_statement": _PARTIAL_SIMP}),
        Scenario("unlabelled-partial", {MID_PARTIAL: enc(MID_PARTIAL_TEXT.replace(
            "  -- label: zero plus\n", ""))},
                 {"check_statement": _PARTIAL_SIMP,
                  "extract_holes": _holes(
                     {"index": 1, "name": "h₁", "goal": "n + 0 = 0 + n",
                      "binders": [{"name": "n", "type": "Nat"}],
                      "statement": "∀ (n : Nat), n + 0 = 0 + n",
                      "line": 7, "column": _col(MID_PARTIAL_TEXT, 7)},
                     {"index": 2, "name": "h₂", "goal": "0 + n = n",
                      "binders": [{"name": "n", "type": "Nat"}],
                      "statement": "∀ (n : Nat), 0 + n = n",
                      "line": 9, "column": _col(MID_PARTIAL_TEXT, 10)})}),
        Scenario("close-p", {f"{ND}/p--h1/Proof.lean": enc(
            "theorem Demo.p.h1 : ∀ (m : Nat), 0 + m + 1 = m + 1 := by\n  intro m; omega\n")},
                 {"extract_holes": _holes({"index": 1, "name": "h",
                                           "goal": "∀ (m : Nat), 0 + m + 1 = m + 1",
                                           "statement": "∀ (m : Nat), 0 + m + 1 = m + 1",
                                           "line": 6,
                                           "column": _col(P_PARTIAL_TEXT, 6)})}),
        # counterexamples and vacuity certificates (D-12 #2, #3)
        Scenario("counterexample-ok", {f"{ND}/bad/Refutation.lean": enc(REFUTATION_BAD)},
                 base={"extra": True}),
        Scenario("counterexample-restates", {f"{ND}/mid/Refutation.lean": enc(RESTATES_MID)},
                 {"check_relation": _mismatch}),
        Scenario("vacuity-ok", {f"{ND}/empty/Vacuity.lean": enc(VACUITY_EMPTY)},
                 base={"extra": True}),
        Scenario("root-counterexample", {f"{ND}/root/Refutation.lean": enc(REFUTATION_ROOT)},
                 base={"false_root": True}),
        # variants with Relation.lean (D-30)
        Scenario("variant-resolves", variant_files("weak", "Demo.weak", S_WEAK, R_WEAK_GOOD,
                                                   "resolves", W_WEAK)),
        Scenario("variant-resolves-bad", variant_files("weak", "Demo.weak", S_WEAK,
                                                       R_WEAK_BAD, "resolves", W_WEAK),
                 {"check_relation": _mismatch}),
        Scenario("variant-refutes", variant_files("neg", "Demo.neg", S_NEG, R_COUNTER.replace(
            "Demo.counter", "Demo.neg"), "refutes")),
        # root closure through a proved variant (D-12 v3.42, v3.46)
        Scenario("close-root-resolves", {f"{ND}/strong/Proof.lean": enc(
            "theorem Demo.strong (n : Nat) : n ≠ 0 ∨ n = 0 := by\n  omega\n")},
                 base=dict(VOUCHED_VARIANTS)),
        # the root states a false thing here, so counter (∃ n > 2, n ≠ 0) refutes it truly
        Scenario("close-root-refutes", {f"{ND}/counter/Proof.lean": enc(
            "theorem Demo.counter : ∃ n : Nat, 2 < n ∧ n ≠ 0 :=\n"
            "  ⟨3, by decide, by decide⟩\n")},
                 base={**VOUCHED_VARIANTS, "false_root": True}),
        # issue 37: a pin on which no kernel step 4 runs catches lean4#14576; refused before
        # any build (describe is Lean's answer for that pin)
        Scenario("known-unsound", {mid_proof: enc(PROOF_MID)},
                 {"used_constants": _used(BASE_LEMMA_PROOF),
                  "describe": {"ok": True, "code": None, "lean_version": "4.27.0"}},
                 base={"pin": UNSOUND_PIN}),
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
        if method == "replay" and "kernels" not in result:
            result = {**result, "kernels": kernel_answers(self.spec, result)}
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
        self._guard(workspace, method)
        files = workspace.input_files()
        return self._record(inputs_key(files), {k: sha256_hex(v) for k, v in files.items()},
                            method, args)

    def outline(self, workspace: Workspace, module: str, decls: Sequence[str],
                sandbox: SandboxRunner, caps: m.Caps) -> OutlineResult:
        """Not recorded: the scenarios declare no outline (D-3 v3.30), so the post-merge job
        is answered as the stand-in answers any call it has no recording of, and writes
        no outline (it notes why). The declared outlines are the hand-written sample of
        make_recordings.py (tests/outline_sample.py), audited against Lean."""
        self._guard(workspace, "outline")
        return OutlineResult(False, NO_RECORDING, module, tuple(decls),
                             detail=f"no recording of outline for {module}")

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
    got = precheck_from_body(A.precheck_block(att))
    return got


def record_all(work: Path, recorder: type[RecordingToolchain] | None = None
               ) -> dict[str, dict[str, Any]]:
    """Run every scenario through the gate (authoritative and precheck) and the post-merge
    job with a :class:`RecordingToolchain` (or ``recorder``, a subclass that also inspects
    each call, as tests/test_recordings_honest.py does); returns key → recording."""
    make = recorder or RecordingToolchain
    from network.gate.postmerge.postmerge import postmerge_files
    from network.gate.run import run_gate
    from network.gate.sandbox.sandbox import Sandbox

    store: dict[str, dict[str, Any]] = {}
    for name, sc in scenarios().items():
        b, base, head = sc.build(work / name)

        def tc_for(spec: m.GateSpec, sc: Scenario = sc) -> RecordingToolchain:
            return make(spec, sc, store)

        raw = precheck_raw(b.root, base, head)
        # gate-signed, as the tests sign: derive counts only verdicts whose signature
        # verifies (ruling 14), so the post-merge job's closures happen only then
        out = run_gate(b.root, base, head, toolchain=tc_for, sandbox=Sandbox(),
                       precheck_raw=raw, submitter=sc.submitter, review=sc.review,
                       gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)
        run_gate(b.root, base, head, toolchain=tc_for, sandbox=Sandbox(), mode="precheck",
                 submitter=sc.submitter, review=sc.review)
        if out.verdict == "pass":
            import pygit2
            repo = pygit2.Repository(str(b.root))
            repo.references["refs/heads/main"].set_target(pygit2.Oid(hex=head))
            postmerge_files(b.root, head, out.attestations, pull_request="local/1",
                            submitter=sc.submitter, toolchain=tc_for, sandbox=Sandbox(),
                            gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)
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


def seeded_forge(tmp: Path, when: int = 1_790_000_000) -> Any:
    """:func:`base_repo` in ``tmp/graph`` seeded into a LocalForge ``tmp/forge.git`` (its
    SQLite state in ``tmp/state.db``, the clock fixed at ``when``): what the merge-queue
    tests run against."""
    from sqlalchemy.orm import sessionmaker

    from network.api.db import Base, make_engine
    from network.forge.local import LocalForge

    b, _ = base_repo(tmp / "graph")
    LocalForge.seed(tmp / "forge.git", b.root, when=when)
    engine = make_engine(f"sqlite:///{tmp / 'state.db'}")
    Base.metadata.create_all(engine)
    return LocalForge(tmp / "forge.git", sessionmaker(engine), clock=lambda: when)


def open_prechecked(forge: Any, files: dict[str, bytes], *, author: str = "alice",
                    toolchain: Any = RecordedToolchain) -> int:
    """What the service does: commit ``files`` on main, precheck them with the gate's own
    code under ``toolchain``, and open a pull request carrying the precheck block; its
    number."""
    from network.gate.run import run_gate
    from network.gate.sandbox.sandbox import Sandbox

    main = forge.main_sha()
    head = forge.commit_files(main, files, "a proof", author=(author, f"{author}@x.invalid"))
    pre = run_gate(forge.path, main, head, toolchain=toolchain, sandbox=Sandbox(),
                   mode="precheck", submitter=author)
    body = "My proof.\n\n" + "".join(A.precheck_block(a) for a in pre.precheck_attestations)
    return int(forge.open_from_commit(head, title="proof of mid", body=body, author=author,
                                      base_sha=main).number)
