"""An attacker's Formal Conjectures collection, imported (issue 28; D-9, D-10).

``tests/fixtures/fc_attack/FormalConjectures/Wikipedia/`` (its README lists each file) holds
Lean 4 constructs the Erdős folder rarely or never uses, written by a reviewer against
Lean's grammar: a ``let``/``have``/``match`` inside a statement's type, local instances,
comments inside attributes and signatures, a string starting ``--``, an axiom a statement
uses, ``class inductive``, ``proof_wanted``. Each test names the defect it held against; on
the importer before this file each failed: a statement landed truncated or changed with no
finding, an open problem was skipped, a faithful file was refused, or a declaration went
unaccounted.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from network.gate.screens.lean_commands import DECL, read_commands
from network.importers.fc_roundtrip import round_trip_differences
from network.importers.formal_conjectures import plan_formal_conjectures_import
from tests.importfixtures import FIXTURES, commit_all

ATTACK = Path(__file__).resolve().parent / "fixtures" / "fc_attack"
COLLECTION = "FormalConjectures/Wikipedia"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """The attack collection in a scratch Formal Conjectures checkout, imported with no
    graph: (checkout, plan)."""
    co = tmp_path_factory.mktemp("fc-attack") / "fc"
    shutil.copytree(FIXTURES / "formal_conjectures", co)
    shutil.copytree(ATTACK / COLLECTION, co / COLLECTION)
    commit_all(co)
    return co, plan_formal_conjectures_import(co, None, curator="c", collection=COLLECTION)


def _line(plan: Any, stem: str) -> dict[str, Any]:
    return next(f for f in plan.report["files"] if f["path"] == f"{COLLECTION}/{stem}.lean")


def _statement(plan: Any, stem: str) -> str:
    path = f"targets/wikipedia-{stem.lower()}/nodes/root/Statement.lean"
    return bytes(plan.files[path]).decode("utf-8")


def _signature(text: str, name: str) -> str:
    """The declaration ``name``'s text up to its ``:= by sorry``, whitespace folded."""
    cmd = next(c for c in read_commands(text).commands if c.cls == DECL and c.name == name)
    body = cmd.text
    return " ".join(body[:body.rindex(":=")].split())


@pytest.mark.parametrize(("stem", "name", "type_text"), [
    ("LetInType", "let_in_type", "∀ n : ℕ, let m := n + 1 n < m"),
    ("HaveInType", "have_in_type", "∀ n : ℕ, have m := n; n = m"),
    ("MatchInType", "match_in_type", "∀ n : ℕ, match n with | 0 => True | _ + 1 => 1 ≤ n"),
    ("QuestionAfterLet", "question_after_let", "∀ n : ℕ, let m := n; m = n ↔ answer(sorry)"),
])
def test_a_let_have_or_match_in_a_type_lands_whole(imported: Any, stem: str, name: str,
                                                   type_text: str) -> None:
    """A depth-0 ``let``/``have`` takes the next ``:=`` as its own, and a ``match``'s
    ``|`` arms extend it (Lean's Term.let, Term.have, Term.matchAlts); the statement's value
    starts after them. Upstream ErdosProblems/1105.lean ``erdos_1105.parts.ii`` has one.
    Taking the first ``:=`` for the value landed ``∀ n : ℕ, let m := by sorry``."""
    co, plan = imported
    assert _line(plan, stem)["status"] == "imported"
    landed = _statement(plan, stem)
    assert _signature(landed, name).endswith(f"{name} : {type_text}")
    src = (co / COLLECTION / f"{stem}.lean").read_text("utf-8")
    assert round_trip_differences(src, landed, proof_dropped_ok=True) == []
    decl = next(d for d in plan.report["declarations"] if d["declaration"] == name)
    assert decl["answer_question"] is (stem == "QuestionAfterLet")


def test_the_round_trip_sees_a_truncated_type_whatever_the_split() -> None:
    """The round trip's own guard (independent of the declaration split both sides
    share): a source stated with ``:= by sorry`` must land token for token up to it."""
    src = "theorem t : ∀ n : ℕ,\n    let m := n + 1\n    n < m := by\n  sorry\n"
    truncated = "theorem t : ∀ n : ℕ,\n    let m := by\n  sorry\n"
    assert round_trip_differences(src, truncated, proof_dropped_ok=True)
    assert round_trip_differences(src, src, proof_dropped_ok=True) == []


@pytest.mark.parametrize("stem", ["LocalInstance", "AttrLocalInstance"])
def test_a_local_instance_holds_the_file(imported: Any, stem: str) -> None:
    """``local instance`` / ``@[local instance]`` is in force only in its own file: landed
    in the definitions module it no longer applies to Statement.lean, where ``(3 : ℕ) ≤ 2``
    would then read with the default order. The file is held for a curator."""
    _, plan = imported
    line = _line(plan, stem)
    assert line["status"] == "held" and line["code"] == "import-command-unknown"
    assert "`local`" in line["detail"]
    assert not any(p.startswith(f"targets/wikipedia-{stem.lower()}/") for p in plan.files)


def test_a_comment_inside_the_category_keeps_the_open_problem(imported: Any) -> None:
    """``@[category research open /- see the notes -/, AMS 11]``: the comment is no part of
    the category (it was read as one, and the open problem was skipped)."""
    _, plan = imported
    assert _line(plan, "CategoryComment")["status"] == "imported"
    decl = next(d for d in plan.report["declarations"]
                if d["file"].endswith("CategoryComment.lean") and d["outcome"] == "root")
    assert decl["category"] == "research open"


@pytest.mark.parametrize("stem", ["KeptAttrLineComment", "SignatureComment", "StringDashes"])
def test_faithful_files_with_comments_and_dashes_land(imported: Any, stem: str) -> None:
    """A kept attribute's trailing line comment, a line comment ending a signature before
    ``:= by`` on the next line, and a string literal ``"--"`` are ordinary Lean: each file
    lands and round-trips (they were refused: the rendered ``]`` or ``:= by`` fell inside
    the comment, and the lexer read ``"--"`` as an unclosed string)."""
    co, plan = imported
    assert _line(plan, stem)["status"] == "imported", _line(plan, stem)
    src = (co / COLLECTION / f"{stem}.lean").read_text("utf-8")
    landed = [p for p in plan.files if p.startswith(f"targets/wikipedia-{stem.lower()}/")
              and p.endswith(".lean") and not p.endswith("/Witness.lean")]
    assert landed
    for path in landed:
        text = bytes(plan.files[path]).decode("utf-8")
        defs_import = next((ln.removeprefix("import ") for ln in text.splitlines()
                            if ln.startswith("import Lemmata.")), None)
        in_defs = "/defs/" in path
        assert round_trip_differences(src, text, defs_import=None if in_defs else defs_import,
                                      proof_dropped_ok=not in_defs,
                                      private_dropped_ok=in_defs) == [], path


def test_a_statement_using_an_axiom_of_its_file_is_held(imported: Any) -> None:
    """The axiom is never landed (the gate admits no new axiom), so a statement using it
    cannot land faithfully: the file is held, naming it."""
    _, plan = imported
    line = _line(plan, "AxiomUsed")
    assert line["status"] == "held" and line["code"] == "import-closure-missing"
    assert "`Magic`" in line["detail"]


def test_class_inductive_is_one_definition(imported: Any) -> None:
    _, plan = imported
    defs = [d for d in plan.report["declarations"]
            if d["file"].endswith("ClassInductive.lean") and d["outcome"] == "definition"]
    assert [d["declaration"].rsplit(".", 1)[-1] for d in defs] == ["Good"]


def test_proof_wanted_is_accounted_for(imported: Any) -> None:
    """Every declaration read is in the report: a ``proof_wanted`` is skipped with its
    reason, never left out."""
    _, plan = imported
    decl = next(d for d in plan.report["declarations"]
                if d["declaration"] == "proof_wanted_decl")
    assert decl["outcome"] == "skipped" and "proof_wanted" in decl["reason"]
    c = plan.report["counts"]
    assert c["declarations"] == c["imported"] + c["skipped"] + c["held"]
