"""Gate scenarios for catalog codes that come from a Lean check (tests/test_gate_codes.py).

Each :class:`CodeScenario` is a pull request on the demo graph of
:mod:`tests.gate_scenarios` (optionally after a few base commits of its own, ``prepare``),
with **every** toolchain answer the gate asks for declared by hand next to the Lean text it
answers for. An undeclared call raises while recording, so no answer here falls back on a
default: each one is what the pinned Lean (v4.22.0, no Mathlib) returns for those bytes, as
read from the gate's checker programs (network/gate/lean/*.lean):

* Lean texts use only core Lean and proofs whose axioms are known exactly (``rfl``,
  ``decide`` on closed numerals, ``subst``/``absurd``, anonymous constructors): none;
  a ``sorry`` adds ``sorryAx`` and nothing else.
* Hazards.lean reports ``a - b`` at type ℕ as ``nat-subtraction`` with the location
  ``"<decl>: <subterm>"``, the smallest enclosing proposition, and the declaration's first
  line; nothing else in these statements matches one of its checkers.
* ExtractHoles.lean names a ``have h : T := sorry`` hole ``h``, prints its goal in the
  local context and its statement closed over the locals in scope, and gives the
  ``sorry`` token's 1-based line and 0-based column.
* Witness.lean expects ``∃ <data binders>, <hypotheses>`` (``True`` for a statement
  without binders); DefEq.lean decides by ``isDefEq`` at default transparency.
* Successful builds are recorded without their warning messages (``declaration uses
  'sorry'``), as every other gate recording is: messages are diagnostics only, the verdict
  is lake's exit status.

:func:`record_codes` runs them through the real gate code with a recording toolchain;
``tests/fixtures/toolchain/make_recordings.py`` calls it, and
``test_gate_codes.py::test_code_recordings_are_current`` holds the committed recordings
equal to what it records.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import (
    AXIOMS,
    ND,
    ROOT_PARTIAL,
    RecordingToolchain,
    Scenario,
    T,
    base_repo,
    default_answer,
    precheck_raw,
)

from network.record import models as m
from network.record.read.loader import sha256_hex
from tests.graphs import GraphBuilder, git_commit

STMT_MID = "Lemmata.demo.mid.Statement"
MID_PARTIAL = f"{ND}/mid/attempts/20260301T000000Z-alice-partial.lean"
P_ROUTE = f"{ND}/p/attempts/20260301T000000Z-alice-partial.lean"

# --- Lean texts ----------------------------------------------------------------------

#: a "partial" of mid with no sorry at all: `n + 0 + 0` reduces to `n`, so `rfl` proves it
NO_HOLES_TEXT = ("-- approach: by computation\n-- licence: CC-BY-4.0\n"
                 "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := rfl\n")
#: a partial of mid whose one hole is mid's own statement again
RESTATES_GOAL_TEXT = ("-- approach: restate the goal\n-- licence: CC-BY-4.0\n"
                      "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n"
                      "  -- label: the goal itself\n  -- claim: $n + 0 + 0 = n$\n"
                      "  have h : n + 0 + 0 = n := sorry\n"
                      "  exact h\n")
#: a partial of p (`1 + 1 = 2`) whose hole is a smaller general fact, not p's goal
P_ROUTE_TEXT = ("-- approach: times one\n-- licence: CC-BY-4.0\n"
                "theorem Demo.p : 1 + 1 = 2 := by\n"
                "  -- label: times one\n  -- claim: $m \\cdot 1 = m$\n"
                "  have h : ∀ m : Nat, m * 1 = m := sorry\n"
                "  exact h 2\n")
#: the goal again, disguised: `n = n + 0 + 0` computes to mid's `n + 0 + 0 = n`'s sides
DISGUISED_GOAL_TEXT = ("-- approach: turn it around\n-- licence: CC-BY-4.0\n"
                       "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n"
                       "  -- label: the goal reversed\n  -- claim: $n = n + 0 + 0$\n"
                       "  have h : n = n + 0 + 0 := sorry\n"
                       "  exact h.symm\n")
#: a "partial" whose gap sits in a helper declaration: Demo.mid's own term has no sorry
HIDDEN_HOLE_TEXT = ("-- approach: hide the gap in a helper\n-- licence: CC-BY-4.0\n"
                    "theorem Demo.mid_helper (n : Nat) : n + 0 + 0 = n := sorry\n\n"
                    "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := Demo.mid_helper n\n")
#: a proof of root--h1 drawing on q, whose deps name root: a cycle one step removed
H1_FROM_Q = ("import Lemmata.demo.q.Proof\n\n"
             "theorem Demo.main.h1 : True := by\n"
             "  have hq := Demo.q\n  trivial\n")
#: the proof of mid under another name: Demo.mid is not declared
MISNAMED_MID = "theorem Demo.mid' (n : Nat) : n + 0 + 0 = n := rfl\n"
#: root's proof without omega, so its axioms are known: none
ROOT_PROOF = ("theorem Demo.main (n : Nat) (h : 2 < n) : n ≠ 0 := by\n"
              "  intro e\n  subst e\n  exact absurd h (by decide)\n")
#: a proof of root--h1 (a hole cut from root) drawing on root's merged proof: a cycle
H1_FROM_ROOT = ("import Lemmata.demo.root.Proof\n\n"
                "theorem Demo.main.h1 : True := by\n"
                "  have h3 := Demo.main 3 (by decide)\n  trivial\n")
#: a statement with a natural-number subtraction (Hazards.lean: nat-subtraction)
S_SUB = "theorem Demo.sub (n : Nat) (h : 0 < n) : n - 1 < n := by\n  sorry\n"
W_SUB = "theorem Demo.sub.witness : ∃ n : Nat, 0 < n := ⟨1, by decide⟩\n"
S_H3 = "theorem Demo.main.h3 (n : Nat) (h : 0 < n) : n - 1 < n := by\n  sorry\n"
W_H3 = "theorem Demo.main.h3.witness : ∃ n : Nat, 0 < n := ⟨1, by decide⟩\n"


def _col(text: str, line: int) -> int:
    return text.splitlines()[line - 1].index("sorry")


def _ok(**fields: Any) -> dict[str, Any]:
    return {"ok": True, "code": None, **fields}


def _row(name: str, axioms: list[str], *, found: bool = True) -> dict[str, Any]:
    """One CheckStatement row as the adapter judges it (disallowed = not in AXIOMS)."""
    return {"name": name, "found": found, "type_equal": found, "axioms": axioms,
            "disallowed_axioms": [a for a in axioms if a not in AXIOMS],
            "sorry": "sorryAx" in axioms, "native": []}


def _compare(name: str, axioms: list[str], *, found: bool = True) -> dict[str, Any]:
    row = _row(name, axioms, found=found)
    code = ("declaration-missing" if not found else "sorry-used" if row["sorry"]
            else "axiom-not-permitted" if row["disallowed_axioms"] else None)
    return {"ok": code is None, "code": code, "theorems": [row]}


def _nat_sub(decl: str) -> dict[str, Any]:
    """Hazards.lean's one finding over ``(n : Nat) (h : 0 < n) : n - 1 < n`` (no line: the
    module is read as data, issue 32; step 6 finds the line in the source)."""
    return {"checker": "nat-subtraction", "decl": decl, "location": f"{decl}: n - 1",
            "subterm": "n - 1", "proposition": "n - 1 < n",
            "message": "natural-number subtraction truncates at zero", "line": None}


BUILT = _ok(rc=0)
REPLAYED = _ok(fresh=True)
NO_FINDINGS = _ok(findings=[])
NOTHING_USED = _ok(constants=[], modules=[])


def _witness(expected: str) -> dict[str, Any]:
    return _ok(expected_type=expected, witness_type=expected, axioms=[])


@dataclass
class CodeScenario(Scenario):
    """A :class:`~tests.gate_scenarios.Scenario` whose answers are all declared.

    Attributes:
        prepare: writes extra base files (committed as the base) before the pull request.
        code: the catalog code the scenario exists to produce.
        step: the step that emits it.
    """

    prepare: Callable[[GraphBuilder], None] | None = None
    code: str = ""
    step: int = 0

    def answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        """The declared answer; ``describe`` is the pin's, shared by every scenario, and so
        is ``olean_entries`` (the carried modules are plain theorems: nothing outside the
        inert set, issue 32) unless a scenario declares it."""
        if method == "describe" or (method == "olean_entries" and method not in self.answers):
            return default_answer(method, args)
        if method not in self.answers:
            raise KeyError(f"{self.name}: no declared answer for {method} {args}")
        return super().answer(method, args)

    def build(self, root: Path) -> tuple[GraphBuilder, str, str]:
        """Base (plus ``prepare``), then the pull request; (builder, base, head)."""
        b, base = base_repo(root, **self.base)
        if self.prepare is not None:
            self.prepare(b)
            base = git_commit(b.root, "base: more")
        for path, data in self.files.items():
            if data is None:
                b.remove(path)
            else:
                b.write(path, data)
        return b, base, git_commit(b.root, f"pull request: {self.name}")


def _merged_root_proof(b: GraphBuilder) -> None:
    b.write(f"{ND}/root/Proof.lean", ROOT_PROOF)
    b.merge([f"{ND}/root/Proof.lean"], date="2026-02-01", artifact_kind="proof")


def _q_resting_on_root(b: GraphBuilder) -> None:
    b.node(T, "q", statement="theorem Demo.q : True := by\n  sorry\n",
           witness="theorem Demo.q.witness : True := trivial\n", declaration="Demo.q",
           deps=["root"], proof="theorem Demo.q : True := trivial\n")
    b.merge([f"{ND}/q/Proof.lean"], date="2026-02-01", artifact_kind="proof")


def _blocked_hazard_hole(b: GraphBuilder) -> None:
    b.hole(T, "root", 3, ROOT_PARTIAL, statement=S_H3, declaration="Demo.main.h3")


def proposal_files(nid: str, decl: str, stmt: str, witness: str,
                   acknowledged: list[dict[str, str]] | None = None) -> dict[str, bytes | None]:
    """A speculative crux proposal (META, Statement, Witness), optionally acknowledging
    hazards in META.yaml (D-4 step 6)."""
    d = f"{ND}/{nid}"
    meta: dict[str, Any] = {"schema": "meta/v1", "id": nid, "target": T, "declaration": decl,
                            "statement_hash": sha256_hex(stmt.encode()), "origin": "authored",
                            "author": "alice", "speculative": True}
    if acknowledged:
        meta["acknowledged_hazards"] = acknowledged
    return {f"{d}/META.yaml": yaml.safe_dump(meta, sort_keys=False).encode(),
            f"{d}/Statement.lean": stmt.encode(), f"{d}/Witness.lean": witness.encode()}


def code_scenarios() -> dict[str, CodeScenario]:
    """Every scenario by name."""
    enc = str.encode
    no_defeq = _ok(comparable=True, defeq=False)
    sub_answers: dict[str, Any] = {
        "build": BUILT, "replay": REPLAYED, "check_witness": _witness("∃ n, 0 < n"),
        "hazards": _ok(findings=[_nat_sub("Demo.sub")]), "used_constants": NOTHING_USED}
    out = [
        CodeScenario("code-partial-without-holes", {MID_PARTIAL: enc(NO_HOLES_TEXT)}, {
            "build": BUILT, "replay": REPLAYED,
            "check_statement": _compare("Demo.mid", []),
            "extract_holes": _ok(holes=[])}, code="partial-without-holes", step=4),
        CodeScenario("code-offload-restates-goal", {MID_PARTIAL: enc(RESTATES_GOAL_TEXT)}, {
            "build": BUILT, "replay": REPLAYED,
            "check_statement": _compare("Demo.mid", ["sorryAx"]),
            "extract_holes": _ok(holes=[{
                "index": 1, "name": "h", "goal": "n + 0 + 0 = n",
                "binders": [{"name": "n", "type": "Nat", "binder_info": "default"}],
                "statement": "∀ (n : Nat), n + 0 + 0 = n", "line": 6,
                "column": _col(RESTATES_GOAL_TEXT, 6)}]),
            "defeq": lambda a: _ok(comparable=True, defeq=a["right"] == [
                STMT_MID, "Demo.mid", None])}, code="offload-restates-goal", step=4),
        CodeScenario("code-offload-restates-goal-disguised", {
            MID_PARTIAL: enc(DISGUISED_GOAL_TEXT)}, {
            "build": BUILT, "replay": REPLAYED,
            "check_statement": _compare("Demo.mid", ["sorryAx"]),
            "extract_holes": _ok(holes=[{
                "index": 1, "name": "h", "goal": "n = n + 0 + 0",
                "binders": [{"name": "n", "type": "Nat", "binder_info": "default"}],
                "statement": "∀ (n : Nat), n = n + 0 + 0", "line": 6,
                "column": _col(DISGUISED_GOAL_TEXT, 6)}]),
            "defeq": lambda a: _ok(comparable=True, defeq=a["right"] == [
                STMT_MID, "Demo.mid", None])}, code="offload-restates-goal", step=4),
        CodeScenario("code-partial-hole-in-a-helper", {MID_PARTIAL: enc(HIDDEN_HOLE_TEXT)}, {
            "build": BUILT, "replay": REPLAYED,
            "check_statement": _compare("Demo.mid", ["sorryAx"]),
            "extract_holes": _ok(holes=[])}, code="partial-without-holes", step=4),
        CodeScenario("code-circular-use-indirect", {
            f"{ND}/root--h1/Proof.lean": enc(H1_FROM_Q)}, {
            "build": BUILT, "replay": REPLAYED,
            "check_statement": _compare("Demo.main.h1", []), "hazards": NO_FINDINGS,
            "check_witness": _witness("True"),
            "used_constants": _ok(constants=["Demo.q"], modules=["Lemmata.demo.q.Proof"])},
            prepare=_q_resting_on_root, code="circular-use", step=8),
        CodeScenario("code-carried-witness-unknown-hole", {
            P_ROUTE: enc(P_ROUTE_TEXT),
            P_ROUTE[: -len(".lean")] + ".h2.witness.lean": enc(
                "theorem Demo.p.h2.witness : True := trivial\n")}, {
            "build": BUILT, "replay": REPLAYED,
            "check_statement": _compare("Demo.p", ["sorryAx"]),
            "extract_holes": _ok(holes=[{
                "index": 1, "name": "h", "goal": "∀ (m : Nat), m * 1 = m", "binders": [],
                "statement": "∀ (m : Nat), m * 1 = m", "line": 6,
                "column": _col(P_ROUTE_TEXT, 6)}]),
            "defeq": no_defeq, "hazards": NO_FINDINGS, "check_witness": _witness("True")},
            code="carried-witness-unknown-hole", step=7),
        CodeScenario("code-declaration-missing", {f"{ND}/mid/Proof.lean": enc(MISNAMED_MID)}, {
            "build": BUILT, "replay": REPLAYED,
            "check_statement": _compare("Demo.mid", [], found=False)},
            code="declaration-missing", step=4),
        CodeScenario("code-circular-use", {f"{ND}/root--h1/Proof.lean": enc(H1_FROM_ROOT)}, {
            "build": BUILT, "replay": REPLAYED,
            "check_statement": _compare("Demo.main.h1", []), "hazards": NO_FINDINGS,
            "check_witness": _witness("True"),
            "used_constants": _ok(constants=["Demo.main"],
                                  modules=["Lemmata.demo.root.Proof"])},
            prepare=_merged_root_proof, code="circular-use", step=8),
        CodeScenario("code-hazard-found", proposal_files("sub", "Demo.sub", S_SUB, W_SUB),
                     sub_answers, code="hazard-found", step=6),
        CodeScenario("code-hazard-acknowledged", proposal_files(
            "sub", "Demo.sub", S_SUB, W_SUB, [{
                "checker": "nat-subtraction", "location": "Demo.sub: n - 1",
                "justification": "n is positive, so n - 1 does not truncate"}]),
            sub_answers, code="hazard-acknowledged", step=6),
        CodeScenario("code-hazard-on-hole", {f"{ND}/root--h3/Witness.lean": enc(W_H3)}, {
            "build": BUILT, "replay": REPLAYED, "check_witness": _witness("∃ n, 0 < n"),
            "hazards": _ok(findings=[_nat_sub("Demo.main.h3")]),
            "used_constants": NOTHING_USED},
            prepare=_blocked_hazard_hole, code="hazard-on-hole", step=6),
    ]
    return {s.name: s for s in out}


def record_codes(work: Path, store: dict[str, dict[str, Any]],
                 recorder: type[RecordingToolchain] | None = None) -> None:
    """Run every scenario through the gate, authoritative and precheck, recording into
    ``store`` (key → recording, merged with whatever it holds; a conflicting answer for
    the same call raises ValueError). ``recorder`` replaces :class:`RecordingToolchain`
    with a subclass (or stand-in of one) that also inspects each call, as the lean-marked
    recordings audit does."""
    from network.gate.run import run_gate
    from network.gate.sandbox.sandbox import Sandbox

    make = recorder or RecordingToolchain
    for name, sc in code_scenarios().items():
        b, base, head = sc.build(work / name)

        def tc_for(spec: m.GateSpec, sc: Scenario = sc) -> RecordingToolchain:
            return make(spec, sc, store)

        for mode in ("authoritative", "precheck"):
            run_gate(b.root, base, head, toolchain=tc_for, sandbox=Sandbox(),
                     precheck_raw=precheck_raw(b.root, base, head), submitter=sc.submitter,
                     review=sc.review, mode=mode)  # type: ignore[arg-type]

