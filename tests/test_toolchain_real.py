"""The real toolchain adapter on a tiny core-only workspace (needs Lean; skipped here).

Runs every checker program of network/gate/lean/ through LeanToolchain inside the bubblewrap
sandbox, where ``lean`` and ``lake`` are on PATH (GitHub runners, the gate image).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from network import proc
from network.gate.lean.detect import detect_toolchain
from network.gate.lean.lean_toolchain import LeanToolchain
from network.gate.lean.toolchain import TermRef
from network.gate.sandbox.sandbox import Sandbox
from network.gate.sandbox.workspace import node_source, write_workspace
from network.record.models import Caps, GateSpec

pytestmark = [
    pytest.mark.lean,
    pytest.mark.skipif(shutil.which("lean") is None or shutil.which("lake") is None,
                       reason="needs a real Lean toolchain: lean and lake are not on PATH"),
]

AXIOMS = ["propext", "Classical.choice", "Quot.sound"]
STATEMENT = b"""theorem Tiny.t (m n : Nat) (h : m < n) : 2 * m + 1 < 2 * n := by
  sorry
"""
PROOF = b"""theorem Tiny.t (m n : Nat) (h : m < n) : 2 * m + 1 < 2 * n := by
  omega
"""
WEAKER = b"""theorem Tiny.t (m n : Nat) (h : m < n) : 2 * m < 2 * n := by
  omega
"""
SORRY = b"""theorem Tiny.t (m n : Nat) (h : m < n) : 2 * m + 1 < 2 * n := by
  have key : 2 * m + 2 \xe2\x89\xa4 2 * n := sorry
  omega
"""
WITNESS = b"""theorem Tiny.t.witness : \xe2\x88\x83 m n : Nat, m < n := \xe2\x9f\xa80, 1, by decide\xe2\x9f\xa9
"""
HAZARD = b"""theorem Tiny.h (n k : Nat) (h : 0 < n) : n - 1 < n / 2 + n := by
  sorry
"""


@pytest.fixture(scope="module")
def spec() -> GateSpec:
    lean = shutil.which("lean")
    assert lean
    out = proc.run([lean, "--version"]).out
    m = re.search(r"version (\d+\.\d+\.\d+)", out)
    assert m, out
    return GateSpec.model_validate({"schema": "gate-spec/v1",
                                    "lean_toolchain": f"leanprover/lean4:v{m.group(1)}"})


def make(tmp_path: Path, spec: GateSpec) -> Any:
    files = {"Statement": STATEMENT, "Proof": PROOF, "Weaker": WEAKER, "Partial": SORRY,
             "Witness": WITNESS, "Hazard": HAZARD}
    return write_workspace(tmp_path / "ws", spec,
                           [node_source("tiny", "root", k, v) for k, v in files.items()])


def mod(stem: str) -> str:
    return f"Lemmata.tiny.root.{stem}"


def test_checkers_on_a_tiny_workspace(tmp_path: Path, spec: GateSpec) -> None:
    tc = detect_toolchain(spec)
    assert isinstance(tc, LeanToolchain)
    assert tc.describe().ok
    ws = make(tmp_path, spec)
    sb, caps = Sandbox(), Caps(wall_s=300, memory_mib=4096)
    mods = [mod(s) for s in ("Statement", "Proof", "Weaker", "Partial", "Witness", "Hazard")]
    build = tc.build(ws, mods, sb, caps)
    assert build.ok, build.log
    assert any(m.severity == "warning" for m in build.messages)
    assert tc.replay(ws, [mod("Proof")], sb, caps).ok

    good = tc.check_statement(ws, mod("Statement"), mod("Proof"), ["Tiny.t"], AXIOMS, sb, caps)
    assert good.ok, good
    weaker = tc.check_statement(ws, mod("Statement"), mod("Weaker"), ["Tiny.t"], AXIOMS, sb, caps)
    assert weaker.code == "statement-mismatch"
    sorry = tc.check_statement(ws, mod("Statement"), mod("Partial"), ["Tiny.t"], AXIOMS, sb, caps)
    assert sorry.code == "sorry-used"

    wit = tc.check_witness(ws, mod("Statement"), "Tiny.t", mod("Witness"), "Tiny.t.witness",
                           AXIOMS, sb, caps)
    assert wit.ok, wit

    holes = tc.extract_holes(ws, mod("Partial"), "Tiny.t", sb, caps)
    assert holes.ok and len(holes.holes) == 1 and holes.holes[0].name == "key"
    assert [b.name for b in holes.holes[0].binders][:3] == ["m", "n", "h"]

    used = tc.used_constants(ws, mod("Proof"), ["Tiny.t"], sb, caps)
    assert used.ok and used.modules == ()

    hz = tc.hazards(ws, mod("Hazard"), ["Tiny.h"],
                    ["nat-subtraction", "division-by-zero", "int-truncation", "unused-binders"],
                    sb, caps)
    assert hz.ok
    assert {f.checker for f in hz.findings} >= {"nat-subtraction", "division-by-zero",
                                                "int-truncation", "unused-binders"}

    same = tc.defeq(ws, TermRef(mod("Proof"), "Tiny.t"), TermRef(mod("Statement"), "Tiny.t"),
                    sb, caps)
    assert same.ok and same.defeq is True
    diff = tc.defeq(ws, TermRef(mod("Partial"), "Tiny.t", 1),
                    TermRef(mod("Statement"), "Tiny.t"), sb, caps)
    assert diff.ok and diff.defeq is False


# --- CheckRelation (D-12 #2/#3, D-30, D-12 v3.42/v3.46) ------------------------------------

REL_FILES: dict[tuple[str, str], bytes] = {
    ("f", "Statement"): b"theorem Tiny.f (n : Nat) (h : 2 < n) : n < 3 := by\n  sorry\n",
    ("f", "Refutation"): ("theorem Tiny.f.refutation : \u00ac \u2200 (n : Nat) (h : 2 < n), "
                          "n < 3 :=\n  fun hf => absurd (hf 3 (by decide)) (by decide)\n").encode(),
    ("f", "Wrong"): ("theorem Tiny.f.refutation : \u00ac \u2200 (n : Nat), n < 3 :=\n"
                     "  fun hf => absurd (hf 3) (by decide)\n").encode(),
    ("v", "Statement"): b"theorem Tiny.v (n : Nat) (h : n < 0) : False := by\n  sorry\n",
    ("v", "Vacuity"): ("theorem Tiny.v.vacuity : \u00ac \u2203 n : Nat, n < 0 :=\n"
                       "  fun \u27e8n, h\u27e9 => Nat.not_lt_zero n h\n").encode(),
    ("r", "Statement"): b"theorem Tiny.r (n : Nat) : 0 + n = n := by\n  sorry\n",
    ("w", "Statement"): b"theorem Tiny.w (n : Nat) : n + 0 = n := by\n  sorry\n",
    ("w", "Proof"): b"theorem Tiny.w (n : Nat) : n + 0 = n := rfl\n",
    ("w", "Relation"): ("theorem Tiny.w.relation : (\u2200 n : Nat, n + 0 = n) \u2192 "
                        "\u2200 n : Nat, 0 + n = n :=\n  fun _ n => Nat.zero_add n\n").encode(),
}


def rmod(node: str, stem: str) -> str:
    return f"Lemmata.tiny.{node}.{stem}"


def test_check_relation_on_a_tiny_workspace(tmp_path: Path, spec: GateSpec) -> None:
    tc = detect_toolchain(spec)
    assert isinstance(tc, LeanToolchain)
    ws = write_workspace(tmp_path / "rel", spec,
                         [node_source("tiny", n, s, b) for (n, s), b in REL_FILES.items()])
    sb, caps = Sandbox(), Caps(wall_s=300, memory_mib=4096)
    assert tc.build(ws, [rmod(n, s) for n, s in REL_FILES], sb, caps).ok

    neg = tc.check_relation(ws, "negation", TermRef(rmod("f", "Statement"), "Tiny.f"), None,
                            rmod("f", "Refutation"), "Tiny.f.refutation", AXIOMS, sb, caps)
    assert neg.ok, neg
    wrong = tc.check_relation(ws, "negation", TermRef(rmod("f", "Statement"), "Tiny.f"), None,
                              rmod("f", "Wrong"), "Tiny.f.refutation", AXIOMS, sb, caps)
    assert wrong.code == "statement-mismatch", wrong
    vac = tc.check_relation(ws, "vacuity", TermRef(rmod("v", "Statement"), "Tiny.v"), None,
                            rmod("v", "Vacuity"), "Tiny.v.vacuity", AXIOMS, sb, caps)
    assert vac.ok, vac
    variant, root = TermRef(rmod("w", "Statement"), "Tiny.w"), TermRef(rmod("r", "Statement"),
                                                                         "Tiny.r")
    res = tc.check_relation(ws, "implies", variant, root, rmod("w", "Relation"),
                            "Tiny.w.relation", AXIOMS, sb, caps)
    assert res.ok, res
    part = tc.check_relation(ws, "implies", root, variant, rmod("w", "Relation"),
                             "Tiny.w.relation", AXIOMS, sb, caps)
    assert part.code == "statement-mismatch"
    join = tc.join_relation(ws, "implies", TermRef(rmod("w", "Proof"), "Tiny.w"),
                            TermRef(rmod("w", "Relation"), "Tiny.w.relation"), root,
                            AXIOMS, sb, caps)
    assert join.ok, join
    bad_join = tc.join_relation(ws, "implies-not", TermRef(rmod("w", "Proof"), "Tiny.w"),
                                TermRef(rmod("w", "Relation"), "Tiny.w.relation"), root,
                                AXIOMS, sb, caps)
    assert bad_join.code == "statement-mismatch"


# --- the pinned axiom table (issue 10) -----------------------------------------------------

AX_STATEMENT = b"theorem Tiny.em (p : Prop) : p \xe2\x88\xa8 \xc2\xac p := by\n  sorry\n"
AX_PROOF = b"theorem Tiny.em (p : Prop) : p \xe2\x88\xa8 \xc2\xac p := Classical.em p\n"


def test_axiom_table_matches_lean(tmp_path: Path, spec: GateSpec) -> None:
    """What the installed Lean reports for propext, Quot.sound and Classical.choice
    (Classical.em uses all three) is exactly network/gate/axioms/<pin>.json: module and
    type hash. Without a table for this pin, the failure prints the values to pin."""
    from network.gate.lean.axioms import pinned_table, table_name

    tc = detect_toolchain(spec)
    assert isinstance(tc, LeanToolchain)
    ws = write_workspace(tmp_path / "ax", spec, [
        node_source("tiny", "ax", "Statement", AX_STATEMENT),
        node_source("tiny", "ax", "Proof", AX_PROOF)])
    sb, caps = Sandbox(), Caps(wall_s=300, memory_mib=4096)
    assert tc.build(ws, ["Lemmata.tiny.ax.Statement", "Lemmata.tiny.ax.Proof"], sb, caps).ok
    res = tc.check_statement(ws, "Lemmata.tiny.ax.Statement", "Lemmata.tiny.ax.Proof",
                             ["Tiny.em"], AXIOMS, sb, caps)
    row = res.theorems[0]
    assert set(row.axioms) == set(AXIOMS), row
    reported = {i.name: (i.module, i.type_sha256) for i in row.axiom_identities}
    table = pinned_table(spec.lean_toolchain)
    assert table is not None, (f"no {table_name(spec.lean_toolchain)}; Lean reports "
                               f"{reported} (module, type_sha256): pin these")
    assert reported == {n: (e.module, e.type_sha256) for n, e in table.items()
                        if n in AXIOMS}, reported
    assert res.ok, res
