"""Imports land exactly what the source says (issue 28; D-9, D-10).

One fixture per class of defect issue 28 found (``tests/fixtures/import_fidelity/``, its
README lists them), committed into a scratch Formal Conjectures checkout and imported; every
landed Lean file is read back against its source without Lean
(:func:`network.importers.fc_roundtrip.round_trip_differences`). Each test here fails on
the importer before issue 28.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from network.cli import main
from network.errors import LemmataError
from network.gate.lean.answers import answer_echoes, syntactic_findings
from network.gate.screens.lean_commands import DECL, UNKNOWN, read_commands
from network.gate.screens.lean_lex import lex
from network.importers.fc_roundtrip import round_trip_differences
from network.importers.formal_conjectures import plan_formal_conjectures_import
from tests.importfixtures import FIXTURES, commit_all

FIDELITY = Path(__file__).resolve().parent / "fixtures" / "import_fidelity"
ERDOS = "FormalConjectures/ErdosProblems"


def _checkout(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    """The registry fixture's checkout with every fidelity fixture added (and ``extra``
    files: checkout path → fixture name), committed."""
    co = tmp_path / "fc"
    shutil.copytree(FIXTURES / "formal_conjectures", co)
    for p in sorted(FIDELITY.glob("*.lean")):
        shutil.copy(p, co / ERDOS / p.name)
    for rel, name in (extra or {}).items():
        (co / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIDELITY / name, co / rel)
    commit_all(co)
    return co


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """The fidelity fixtures imported with no graph: (checkout, plan)."""
    co = _checkout(tmp_path_factory.mktemp("fidelity"))
    plan = plan_formal_conjectures_import(co, None, curator="c",
                                          problems=[p.stem for p in FIDELITY.glob("*.lean")])
    return co, plan


def _line(plan: Any, name: str) -> dict[str, Any]:
    return next(f for f in plan.report["files"] if f["path"] == f"{ERDOS}/{name}")


def _text(plan: Any, path: str) -> str:
    return bytes(plan.files[path]).decode("utf-8")


def _decl(text: str, name: str) -> Any:
    return next(c for c in read_commands(text).commands if c.cls == DECL and c.name == name)


def _round_trips(co: Path, plan: Any, source: str) -> None:
    """Every landed Lean file cut from ``source`` reads back as the source says."""
    src = (co / ERDOS / source).read_text(encoding="utf-8")
    stem = source.removesuffix(".lean")
    landed = [p for p in plan.files if p.startswith(f"targets/erdos-{stem}")
              and p.endswith(".lean") and not p.endswith("/Witness.lean")]
    assert landed
    for path in landed:
        in_defs = "/defs/" in path
        defs_import = None if in_defs else next(
            (line.removeprefix("import ") for line in _text(plan, path).splitlines()
             if line.startswith("import Lemmata.")), None)
        assert round_trip_differences(src, _text(plan, path), defs_import=defs_import,
                                      proof_dropped_ok=not in_defs,
                                      private_dropped_ok=in_defs) == [], path


def test_column0_continuation_lines_stay_in_their_declaration(imported) -> None:
    co, plan = imported
    line = _line(plan, "9101.lean")
    assert line["status"] == "imported" and line["roots"] == 1 and line["definitions"] == 4
    stmt = _text(plan, "targets/erdos-9101/nodes/root/Statement.lean")
    assert "theorem erdos_9101 :\nanswer(sorry) ↔ ∀ n > 3, n < a n ∧ b n ≤ a n := by" in stmt
    defs = _text(plan, "targets/erdos-9101/defs/Erdos9101.lean")
    for piece in ("def a : ℕ → ℕ\n| 0 => 1\n| n + 1 => 2 * a n",
                  "where\n  go : ℕ → ℕ → ℕ", "termination_by\n  _ => 0",
                  "  y : ℕ\nderiving DecidableEq", "!![1, 2;\n3, 4]"):
        assert piece in defs
    _round_trips(co, plan, "9101.lean")


def test_column0_termination_proofs_stay_in_their_definition(imported) -> None:
    """``termination_by`` and ``decreasing_by`` in column 0 (with the tactic proof under
    ``decreasing_by``) belong to the well-founded definition above them."""
    co, plan = imported
    line = _line(plan, "9110.lean")
    assert line["status"] == "imported" and line["roots"] == 1 and line["definitions"] == 2
    assert line["declarations"] == line["imported"] == 3
    stmt = _text(plan, "targets/erdos-9110/nodes/root/Statement.lean")
    assert ("theorem erdos_9110 :\n    answer(sorry) ↔ ∀ n > 0, halvings n ≤ digitSum n * 4 "
            ":= by\n  sorry") in stmt
    assert "decreasing_by" not in stmt
    defs = _text(plan, "targets/erdos-9110/defs/Erdos9110.lean")
    for piece in ("1 + halvings (n / 2)\ntermination_by n\ndecreasing_by\n  omega\n",
                  "n % 10 + digitSum (n / 10)\ndecreasing_by\n  omega\n"):
        assert piece in defs
    src = (co / ERDOS / "9110.lean").read_text(encoding="utf-8")
    for name, tail in (("halvings", ["termination_by", "n", "decreasing_by", "omega"]),
                       ("digitSum", [")", "decreasing_by", "omega"])):
        landed = [t.text for t in _decl(defs, name).tokens]
        assert landed == [t.text for t in _decl(src, name).tokens]
        assert landed[-len(tail):] == tail
    _round_trips(co, plan, "9110.lean")


def test_where_proofs_and_scoped_commands(imported) -> None:
    co, plan = imported
    base = "targets/erdos-9102"
    nonempty = _text(plan, f"{base}/nodes/variant-nonempty/Statement.lean")
    assert "theorem erdos_9102.variants.nonempty : Nonempty (Fin 3) := by\n  sorry" in nonempty
    assert "where" not in nonempty.split("-/\n", 2)[-1]
    root = _text(plan, f"{base}/nodes/root/Statement.lean")
    assert "variable (n : ℕ)" not in root and "include" not in root
    assert _decl(root, "erdos_9102").prefix == ["omit [Fintype α] in"]
    card = _text(plan, f"{base}/nodes/variant-card/Statement.lean")
    assert "omit" not in card and "variable (n" not in card
    assert _decl(card, "erdos_9102.variants.card").prefix == ["include α in"]
    defs = _text(plan, f"{base}/defs/Erdos9102.lean")
    assert _decl(defs, "shifted").prefix == ["variable (n : ℕ) in"]
    assert _decl(defs, "size").prefix == [] and "omit" not in defs and "include" not in defs
    _round_trips(co, plan, "9102.lean")


def test_section_variables_end_with_the_section(imported) -> None:
    co, plan = imported
    text = _text(plan, "targets/erdos-9103/nodes/root/Statement.lean")
    code = " ".join(t.text for t in lex(text).code_tokens())
    assert "variable ( k" not in code and "include hk" not in code and "section" not in code
    root = read_commands(text)
    assert [c.kind for c in root.commands if c.cls not in ("comment", "header")] == [
        "namespace", "theorem", "end"]
    local = _text(plan, "targets/erdos-9103/nodes/variant-local/Statement.lean")
    assert "section Local" in local and "end Local" in local and "include hk" in local
    _round_trips(co, plan, "9103.lean")


@pytest.mark.parametrize("name, code, words", [
    ("9104.lean", "import-command-unknown", ("infixl", "local notation")),
    ("9105.lean", "import-command-unknown", ("name_poly_vars",)),
    ("9107.lean", "import-closure-missing", ("Erdos9107.exists_good",)),
])
def test_what_cannot_be_landed_holds_the_file(imported, name: str, code: str,
                                              words: tuple[str, ...]) -> None:
    _, plan = imported
    line = _line(plan, name)
    assert line["status"] == "held" and line["code"] == code
    assert all(w in line["detail"] for w in words)
    assert line["held"] == line["declarations"] > 0 and line["imported"] == 0
    tid = f"erdos-{name.removesuffix('.lean')}"
    assert not [p for p in plan.files if p.startswith(f"targets/{tid}/")]
    held = [d for d in plan.report["declarations"] if d["file"] == f"{ERDOS}/{name}"]
    assert len(held) == line["declarations"] and {d["outcome"] for d in held} == {"held"}
    assert any(a.code == code and a.target == tid for a in plan.attention)
    assert plan.report["counts"]["files_held"] >= 3


def test_closure_carries_the_lemmas_definitions_use(imported) -> None:
    co, plan = imported
    defs = _text(plan, "targets/erdos-9106/defs/Erdos9106.lean")
    assert "lemma exists_sq_gt (n : ℕ) : ∃ m, n < m ^ 2 :=\n  ⟨n + 1, by nlinarith⟩" in defs
    assert "theorem two_pos : 0 < 2 := by decide" in defs
    assert defs.index("exists_sq_gt (n") < defs.index("def sqAbove")
    carried = {d["declaration"] for d in plan.report["declarations"] if d.get("carried")}
    assert carried == {"Erdos9106.exists_sq_gt", "Erdos9106.two_pos"}
    line = _line(plan, "9106.lean")
    assert line["declarations"] == line["imported"] + line["skipped"] == 5
    _round_trips(co, plan, "9106.lean")


def test_answer_split_lets_a_binder_reach_right(imported) -> None:
    _, plan = imported
    text = (FIDELITY / "9108.lean").read_text(encoding="utf-8")
    echoes = {e.decl: e.restates for e in answer_echoes(text)}
    assert echoes == {"erdos_9108": True, "erdos_9108.variants.weaker": False}
    assert [d.message.split(":")[0] for d in syntactic_findings(text, "x.lean")] == [
        "erdos_9108"]
    # the importer's flag is the gate's verdict (one parser for both)
    flagged = {(a.target, a.node) for a in plan.attention if a.code == "answer-copies-target"}
    assert ("erdos-9108", "root") in flagged
    assert ("erdos-9108", "variant-weaker") not in flagged


@pytest.mark.parametrize("collection, tid", [
    ("FormalConjectures/Arxiv/0911.2077", "0911-2077-conjecture"),
    ("FormalConjectures/Arxiv", "arxiv-0911-2077-conjecture"),
])
def test_dotted_arxiv_folders_are_collections(tmp_path: Path, collection: str,
                                              tid: str) -> None:
    co = _checkout(tmp_path, {"FormalConjectures/Arxiv/0911.2077/Conjecture.lean": "9103.lean"})
    plan = plan_formal_conjectures_import(co, None, curator="c", collection=collection)
    [line] = plan.report["files"]
    assert line["path"] == "FormalConjectures/Arxiv/0911.2077/Conjecture.lean"
    assert line["status"] == "imported", line
    assert f"targets/{tid}/nodes/root/Statement.lean" in plan.files
    res = CliRunner().invoke(main, ["import", "formal-conjectures", str(co), "--collection",
                                    collection, "--dry-run"])
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("collection", [
    "FormalConjectures/../x", "FormalConjectures/.hidden", "FormalConjectures/a..b",
    "/abs", "FormalConjectures/a b", "FormalConjectures/$(exit 99)"])
def test_non_portable_collections_are_still_refused(tmp_path: Path, collection: str) -> None:
    co = _checkout(tmp_path)
    with pytest.raises(LemmataError) as exc:
        plan_formal_conjectures_import(co, None, curator="c", collection=collection)
    assert exc.value.code == "import-hostile-path"


# --- the round trip catches every change ----------------------------------------------


def test_round_trip_catches_every_change(imported) -> None:
    co, plan = imported
    src = (co / ERDOS / "9103.lean").read_text(encoding="utf-8")
    path = "targets/erdos-9103/nodes/variant-local/Statement.lean"
    good = _text(plan, path)
    assert round_trip_differences(src, good, proof_dropped_ok=True) == []
    # comments and whitespace aside
    assert round_trip_differences(src, good.replace("theorem", "-- note\ntheorem  "),
                                  proof_dropped_ok=True) == []
    changed = {
        "a hypothesis": good.replace("variants.local :", "variants.local (h : 1 = 1) :"),
        "the conclusion": good.replace("0 < k ^ 2", "0 < k ^ 3"),
        "a variable": good.replace("include hk", "include hk\n\nvariable (j : ℕ)"),
        "a lost include": good.replace("include hk", ""),
        "a scope": good.replace("section Local", "section Other").replace(
            "end Local", "end Other"),
        "a scoped command": good.replace("/-- A statement inside",
                                         "open Nat in\n/-- A statement inside"),
        "an attribute": good.replace("theorem erdos", "@[simp]\ntheorem erdos"),
        "an import": "import Mathlib\n" + good,
    }
    for what, text in changed.items():
        assert round_trip_differences(src, text, proof_dropped_ok=True), what
    # an upstream proof may be dropped in a Statement.lean, never in a definitions module
    src = (co / ERDOS / "9102.lean").read_text(encoding="utf-8")
    landed = _text(plan, "targets/erdos-9102/nodes/variant-nonempty/Statement.lean")
    defs = "Lemmata.«erdos-9102».Defs.Erdos9102"
    assert round_trip_differences(src, landed, defs_import=defs, proof_dropped_ok=True) == []
    assert round_trip_differences(src, landed, defs_import=defs, proof_dropped_ok=False)


# --- the reader: never split on column 0, never drop a token --------------------------

_PIECES = ["∀ n > 3,", "n < a n", "∧", "b n ≤ a n", "↔", "(h : 0 < n)", "→", "{x | x = n}",
           "answer(sorry)", "Finset.card", "(Finset.range n)", "=", "2", "∣"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=10),
       st.lists(st.tuples(st.booleans(), st.integers(0, 4)), min_size=10, max_size=10))
def test_a_layout_never_cuts_a_declaration_silently(pieces: list[str],
                                                    breaks: list[tuple[bool, int]]) -> None:
    """Laid out with line breaks and any indentation (column 0 included), a theorem is read
    as one declaration whose tokens are all there, or the reader says it cannot tell
    (``unknown``): never two commands that drop or move a token."""
    body = ""
    for piece, (newline, indent) in zip(pieces, breaks, strict=False):
        body += ("\n" + " " * indent if newline else " ") + piece
    text = f"theorem t :{body} := by\n  sorry\n\ntheorem u : True := trivial\n"
    read = read_commands(text)
    decls = [c for c in read.commands if c.cls == DECL]
    names = [c.name for c in decls]
    if read.unknown:
        assert any(c.cls == UNKNOWN for c in read.commands)
    else:
        assert names == ["t", "u"]
    got = [t.text for c in read.commands for p in [*c.scoped, c] for t in p.tokens]
    want = [t.text for t in lex(text).code_tokens()]
    assert got == want


# --- registries compared like with like -----------------------------------------------

_DB = """- number: "9109"
  status:
    state: "open"
    last_update: "2025-08-31"
- number: "9101"
  status:
    state: "proved"
    last_update: "2025-09-01"
"""


def test_registry_disagreements_compare_like_with_like(tmp_path: Path) -> None:
    from network.importers import write_files
    from network.importers.erdosproblems import (
        DatabaseStatus,
        plan_erdosproblems_import,
        target_provenance,
    )
    from network.record.read.loader import load_graph
    from tests.importfixtures import graph_copy

    co = _checkout(tmp_path)
    g = graph_copy(tmp_path)
    write_files(g, plan_formal_conjectures_import(co, g, problems=["9101", "9109"]).files)
    db = tmp_path / "problems.yaml"
    db.write_text(_DB, encoding="utf-8")
    plan = plan_erdosproblems_import(db, g)
    write_files(g, plan.files)
    # the part is solved while the whole problem is open: not a disagreement; the whole
    # problem's target (open, database open) agrees; 9101 (open, database proved) disagrees
    assert [d["target"] for d in plan.report["disagreements"]] == ["erdos-9101"]
    compared = {a["target"]: a["compared"] for a in plan.report["attached"]}
    assert compared == {"erdos-9101": True, "erdos-9109": True, "erdos-9109-i": False}
    targets = load_graph(g).targets
    part = " ".join(targets["erdos-9109-i"].record.intake.prior_art.summary.split())
    assert "problem 9109's as a whole" in part and "registries disagree" not in part
    assert target_provenance(targets["erdos-9109-i"].record).disagreement is None
    # the caveat follows the status
    proved = target_provenance(targets["erdos-9101"].record).database
    assert proved is not None and "settled" in proved.caveat
    assert "not proof that the problem is open" not in proved.caveat
    assert "not proof that the problem is open" in DatabaseStatus(
        "9109", None, (("status", "open", None),)).caveat
