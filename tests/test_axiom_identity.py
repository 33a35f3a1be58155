"""Step 5's inputs (issue 10): an allowed axiom is known by name, declaring module and type
hash against the table pinned per toolchain; each declaration's own result row is read;
the toolchain pin matches exactly (D-4 steps 1 and 5, v3.27)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from network.errors import CATALOG
from network.gate.lean import axioms as AX
from network.gate.lean import lean_toolchain as lt
from network.gate.lean.toolchain import (
    AxiomIdentity,
    CompareResult,
    TheoremComparison,
    WitnessResult,
)
from network.gate.run import _Run, _step5
from network.record.models import GateSpec

PIN = "leanprover/lean4:v4.34.0"
SPEC = GateSpec.model_validate({"schema": "gate-spec/v1", "lean_toolchain": PIN})
TABLE = AX.pinned_table(PIN) or {}


def real(name: str) -> AxiomIdentity:
    e = TABLE[name]
    return AxiomIdentity(name, e.module, e.type_sha256)


def key_row(name: str, module: str | None, key: str | None) -> dict[str, Any]:
    return {"name": name, "module": module, "type_key": key}


# --- the shipped tables -------------------------------------------------------------------


@pytest.mark.parametrize("pin", [PIN, "leanprover/lean4:v4.22.0"])
def test_each_shipped_table_pins_the_three_axioms_where_lean_declares_them(pin: str) -> None:
    table = AX.pinned_table(pin)
    assert table is not None
    native = ({"Lean.ofReduceBool": "Init.Core", "Lean.ofReduceNat": "Init.Core"}
              if pin.endswith("v4.22.0") else {})  # before v4.29 (lean4 PR #12217)
    assert {n: e.module for n, e in table.items()} == {
        "propext": "Init.Core", "Quot.sound": "Init.Core", "Classical.choice": "Init.Prelude",
        **native}
    for e in table.values():  # the hash is the key's: a reader can redo the derivation
        assert e.type_sha256 == AX.type_sha256(e.type_key)
    assert table["propext"].type_key.startswith("|(P (S 0) (P (S 0) (P (A (A (C Iff [])")


def test_a_table_whose_hash_is_not_its_key_is_refused() -> None:
    raw = json.loads((Path(AX.__file__).parents[1] / "axioms" / AX.table_name(PIN)).read_text())
    assert AX.parse_table(raw, PIN) == TABLE
    with pytest.raises(ValueError, match="not an axiom table"):
        AX.parse_table(raw, "leanprover/lean4:v4.34.0-rc1")
    raw["axioms"]["propext"]["type_sha256"] = "0" * 64
    with pytest.raises(ValueError, match="type_sha256"):
        AX.parse_table(raw, PIN)


def test_identity_problems() -> None:
    allowed = ["propext", "Classical.choice", "Quot.sound"]
    ok = [real("propext"), real("Quot.sound")]
    assert AX.identity_problems(["propext", "Quot.sound"], ok, allowed, PIN) == []
    # a user axiom with an allowed name, declared in the contributor's module
    impostor = AxiomIdentity("propext", "Lemmata.demo.mid.Proof", real("propext").type_sha256)
    assert AX.identity_problems(["propext"], [impostor], allowed, PIN) == [
        "propext is declared in Lemmata.demo.mid.Proof, not Init.Core"]
    # the right module but another type (a `prelude` file can declare anything)
    forged = AxiomIdentity("Classical.choice", "Init.Prelude", AX.type_sha256("|(C False [])"))
    assert AX.identity_problems(["Classical.choice"], [forged], allowed, PIN) == [
        "Classical.choice has another type than Init.Prelude's"]
    # no identity reported, two reported, no table for the pin: all refuse
    assert AX.identity_problems(["propext"], [], allowed, PIN)
    assert AX.identity_problems(["propext"], [real("propext")] * 2, allowed, PIN)
    assert AX.identity_problems(["propext"], [real("propext")], allowed,
                                "leanprover/lean4:v4.34.0-rc1")
    # only allowed names, and those the table lists, are judged here (the rest are
    # refused by name)
    assert AX.identity_problems(["Demo.cheat", "sorryAx"], [], allowed, PIN) == []
    # a waived native_decide's axiom, where the pin's table knows it (v4.22.0)
    old_pin = "leanprover/lean4:v4.22.0"
    e = (AX.pinned_table(old_pin) or {})["Lean.ofReduceBool"]
    assert AX.identity_problems(["Lean.ofReduceBool"], [
        AxiomIdentity("Lean.ofReduceBool", e.module, e.type_sha256)], allowed, old_pin) == []
    assert AX.identity_problems(["Lean.ofReduceBool"], [
        AxiomIdentity("Lean.ofReduceBool", "Lemmata.demo.mid.Proof", e.type_sha256)],
        allowed, old_pin) == [("Lean.ofReduceBool is declared in Lemmata.demo.mid.Proof, "
                               "not Init.Core")]


# --- the report parsers -------------------------------------------------------------------


def _report(info: list[dict[str, Any]] | None, axioms: list[str] | None = None
            ) -> dict[str, Any]:
    row: dict[str, Any] = {"name": "Demo.mid", "found": True, "type_equal": True,
                           "mismatched_constants": [], "axioms": axioms or ["propext"]}
    if info is not None:
        row["axiom_info"] = info
    return {"theorems": [row]}


def test_the_parser_refuses_an_allowed_name_from_another_module() -> None:
    key = TABLE["propext"].type_key
    good = lt.compare_result_from_report(_report([key_row("propext", "Init.Core", key)]),
                                         SPEC.axioms, PIN)
    assert good.ok and good.theorems[0].axiom_identities == (real("propext"),)
    for info in ([key_row("propext", "Lemmata.demo.mid.Proof", key)],
                 [key_row("propext", None, key)],
                 [key_row("propext", "Init.Core", "|(C False [])")], [], None):
        bad = lt.compare_result_from_report(_report(info), SPEC.axioms, PIN)
        assert (bad.ok, bad.code) == (False, "axiom-identity-mismatch"), info
    assert "axiom-identity-mismatch" in CATALOG
    malformed = lt.compare_result_from_report(_report([{"name": 3}]), SPEC.axioms, PIN)
    assert malformed.code == "checker-output-malformed"


def test_the_witness_parser_refuses_an_impostor_axiom() -> None:
    base = {"found": True, "type_matches": True, "axioms": ["propext"]}
    key = TABLE["propext"].type_key
    w = lt.witness_result_from_report({**base, "axiom_info": [key_row("propext", "Init.Core",
                                                                      key)]},
                                      "Demo.mid.witness", SPEC.axioms, PIN)
    assert w.ok and w.axiom_identities == (real("propext"),)
    w = lt.witness_result_from_report({**base, "axiom_info": [key_row("propext", "Demo", key)]},
                                      "Demo.mid.witness", SPEC.axioms, PIN)
    assert (w.ok, w.code) == (False, "axiom-identity-mismatch")


# --- step 5 -------------------------------------------------------------------------------


def run_step5(rows: tuple[TheoremComparison, ...], decl: str = "Demo.mid",
              witness: WitnessResult | None = None) -> Any:
    art = SimpleNamespace(main="targets/demo/nodes/mid/Proof.lean", kind=None, target="demo",
                          node="mid", paths=["targets/demo/nodes/mid/Proof.lean"])
    ctx = SimpleNamespace(base=SimpleNamespace(files={}), review=None, submitter="alice")
    run = _Run(art=art)  # type: ignore[arg-type]
    if witness is None:
        run.compare, run.compare_decl = CompareResult(True, None, rows), decl
    else:
        run.witness = witness
    return _step5(ctx, run, SPEC, None)  # type: ignore[arg-type]


def row(name: str, axioms: tuple[str, ...], ids: tuple[AxiomIdentity, ...]) -> TheoremComparison:
    return TheoremComparison(name, True, True, axioms=axioms, sorry="sorryAx" in axioms,
                             axiom_identities=ids)


def test_step5_passes_the_pinned_axioms() -> None:
    res = run_step5((row("Demo.mid", ("Quot.sound", "propext"),
                         (real("Quot.sound"), real("propext"))),))
    assert res.ok, res


def test_step5_refuses_a_user_axiom_named_like_an_allowed_one() -> None:
    fake = AxiomIdentity("propext", "Lemmata.demo.mid.Proof", AX.type_sha256("|(C False [])"))
    res = run_step5((row("Demo.mid", ("propext",), (fake,)),))
    assert (res.ok, res.code) == (False, "axiom-identity-mismatch")
    assert "Lemmata.demo.mid.Proof" in res.diagnostics[0].message
    # a declaration named Classical.choice in the contributor's own module, true type
    own = AxiomIdentity("Classical.choice", "Lemmata.demo.mid.Proof",
                        real("Classical.choice").type_sha256)
    res = run_step5((row("Demo.mid", ("Classical.choice",), (own,)),))
    assert res.code == "axiom-identity-mismatch"
    # the same through a witness (no compare)
    w = WitnessResult(True, None, "Demo.mid.witness", axioms=("propext",),
                      axiom_identities=(fake,))
    assert run_step5((), witness=w).code == "axiom-identity-mismatch"


def test_step5_reads_the_row_of_the_declaration_under_check() -> None:
    clean = row("Demo.other", ("propext",), (real("propext"),))
    dirty = row("Demo.mid", ("propext", "sorryAx"), (real("propext"),))
    for rows in ((clean, dirty), (dirty, clean)):
        res = run_step5(rows)
        assert (res.ok, res.code) == (False, "sorry-used"), rows
    cheat = row("Demo.mid", ("Demo.cheat",), ())
    assert run_step5((clean, cheat)).code == "axiom-not-permitted"
    # no row for the declaration: fail closed, whatever the other rows say
    res = run_step5((clean,))
    assert (res.ok, res.code) == (False, "checker-failed")
    assert "Demo.mid" in res.diagnostics[0].message


# --- exact pins ---------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "pin", "ok"), [
    ("4.34.0", "leanprover/lean4:v4.34.0", True),
    ("4.34.0", "leanprover/lean4:4.34.0", True),
    ("4.34.0", "v4.34.0", True),
    ("4.34.0-rc1", "leanprover/lean4:v4.34.0", False),
    ("4.34.0+local", "leanprover/lean4:v4.34.0", False),
    ("4.34.01", "leanprover/lean4:v4.34.0", False),
    ("14.34.0", "leanprover/lean4:v4.34.0", False),
    ("4.34.0", "leanprover/lean4:v4.34.0-rc1", False),
    ("4.35.0-nightly-2026-01-01", "leanprover/lean4:nightly-2026-01-01", True),
    ("4.35.0-nightly-2026-01-011", "leanprover/lean4:nightly-2026-01-01", False),
    (None, "leanprover/lean4:v4.34.0", False),
])
def test_version_matches_pin_exactly(version: str | None, pin: str, ok: bool) -> None:
    assert lt.version_matches_pin(version, pin) is ok


def fake_lean(bindir: Path, version_line: str) -> None:
    bindir.mkdir(parents=True, exist_ok=True)
    for name in ("lean", "lake"):
        p = bindir / name
        p.write_text(f"#!/bin/sh\necho '{version_line}'\n")
        p.chmod(p.stat().st_mode | stat.S_IXUSR)


@pytest.mark.skipif(os.name != "posix", reason="a shell script stands in for lean")
@pytest.mark.parametrize(("line", "ok"), [
    ("Lean (version 4.34.0, x86_64-unknown-linux-gnu, commit " + "a" * 40 + ", Release)", True),
    ("Lean (version 4.34.0-rc1, x86_64-unknown-linux-gnu, commit " + "a" * 40 + ", Release)",
     False),
    ("Lean (version 4.34.0-pre, x86_64-unknown-linux-gnu, Release)", False),
    ("Lean (version 14.34.0, x86_64-unknown-linux-gnu, Release)", False),
])
def test_describe_refuses_a_pin_that_only_contains_the_wanted_version(
        tmp_path: Path, line: str, ok: bool) -> None:
    fake_lean(tmp_path / "bin", line)
    tc = lt.LeanToolchain(SPEC, bindir=tmp_path / "bin", pins_root=tmp_path / "pins")
    info = tc.describe()
    assert (info.ok, info.code) == ((True, None) if ok else (False, "toolchain-mismatch"))


@pytest.mark.parametrize(("name", "native"), [
    ("Lean.ofReduceBool", True), ("Lean.ofReduceNat", True), ("Lean.trustCompiler", True),
    # lean4 PR #12217: the per-computation axiom of native_decide (a `_native` component)
    ("Demo.t._native.native_decide.ax_1_1", True),
    ("Demo._native_helper", True),
    # a name the reader cannot split is still read whole, and still refused
    ("_native«x", True), ("_native..x", True),
    ("propext", False), ("Classical.choice", False), ("Quot.sound", False),
    ("Demo.native_decide_free", False), ("Demo._NATIVE", False), ("Demo.x_native", False),
])
def test_which_axioms_trust_the_compiler(name: str, native: bool) -> None:
    """D-4 step 5: an axiom that trusts the compiler is the three names, or any name one of
    whose components starts ``_native``, however the name is spelled (issue 41: mutmut
    left these four lines of ``is_native_axiom`` held by no test)."""
    assert AX.is_native_axiom(name) is native
