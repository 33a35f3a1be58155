"""Issue 32: the carried olean screened as data (network/gate/lean/olean_screen.py).

A compiled module may hold environment-extension entries its source never spelled. Before
any checker imports a carried module, OleanEntries.lean reads its compiled files as data and
lists the extensions outside the inert set that hold entries; any such extension refuses
the module at step 4 with ``olean-extension-entry``. No report, or an unbound or malformed
one, is a refusal; without Lean it is ``toolchain-missing``.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from network.gate.lean import lean_toolchain as lt
from network.gate.lean.olean_screen import INERT_EXTENSIONS, screen_carried, screen_from_report
from network.gate.lean.toolchain import BuildResult, MissingToolchain
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.gate.sandbox.workspace import OleanArtifact, name_components

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import precheck_raw, scenarios
from standin import NO_RECORDING, RecordedToolchain
from test_checker_channel import Checker
from test_toolchain import core_spec, tutorial_workspace

ROOT = Path(__file__).resolve().parents[1]
#: what a build whose contributor code wrote a macro into its own olean leaves: the
#: stand-in olean with the entry appended (a `macro_rules`/`@[macro k]` entry lives in the
#: `macro` attribute's scoped extension, named by the attribute: lean4
#: src/Lean/KeyedDeclsAttribute.lean `init` (`name := df.name`), src/Lean/Elab/Util.lean
#: `macroAttribute` (attribute `macro`))
MACRO_MARK = b"\0macro\0Lemmata\0evil_macro\0"
CHECKS = ("replay", "check_statement", "check_relation", "check_witness", "defeq",
          "extract_holes", "used_constants", "hazards", "outline")


class MacroInOlean(RecordedToolchain):
    """The recorded stand-in, but the scratch build's compiled files carry a macro entry the
    source never spelled; OleanEntries answers for those bytes what the checker reports
    for such a module: one entry of the ``macro`` extension. Every check asked is noted."""

    asked: list[str]

    def build(self, *a: Any, **kw: Any) -> BuildResult:
        built = super().build(*a, **kw)
        forged = tuple(OleanArtifact(x.module, x.source_path, tuple(
            (ext, data + MACRO_MARK) for ext, data in x.files)) for x in built.artifacts)
        return replace(built, artifacts=forged)

    def olean_entries(self, workspace: Any, modules: Any, inert: Any, sandbox: Any,
                      caps: Any) -> dict[str, Any] | tuple[str, str]:
        object.__getattribute__(self, "asked").append("olean_entries")
        carried = workspace.input_files()
        if not any(MACRO_MARK in data for rel, data in carried.items()
                   if rel.startswith("carried/")):
            return super().olean_entries(workspace, modules, inert, sandbox, caps)
        return {"checker": "OleanEntries", "version": 1, "modules": [
            {"module": m, "outside": [{"name": "macro", "entries": 1}]} for m in modules]}

    def __getattribute__(self, name: str) -> Any:
        if name in CHECKS:
            object.__getattribute__(self, "asked").append(name)
        return object.__getattribute__(self, name)


def _gate(tmp_path: Path, toolchain: Any, name: str = "proof-ok") -> Any:
    sc = scenarios()[name]
    b, base, head = sc.build(tmp_path / "g")
    return run_gate(b.root, base, head, toolchain=toolchain, sandbox=Sandbox(),
                    precheck_raw=precheck_raw(b.root, base, head), submitter=sc.submitter,
                    review=sc.review)


def test_a_macro_entry_in_the_carried_olean_is_refused_before_any_check(tmp_path: Path) -> None:
    asked: list[str] = []

    def toolchain(spec: Any) -> MacroInOlean:
        tc = MacroInOlean(spec)
        tc.asked = asked
        return tc

    out = _gate(tmp_path, toolchain)
    assert out.verdict == "fail"
    ff = out.runs[0].first_failing
    assert ff is not None and (ff.step, ff.code) == (4, "olean-extension-entry")
    detail = json.dumps(out.to_dict())
    assert "Lemmata.demo.mid.Proof" in detail and "macro (1)" in detail
    assert asked == ["olean_entries"]  # no replay, no checker imported the module


def test_an_honest_proof_still_passes(tmp_path: Path) -> None:
    out = _gate(tmp_path, RecordedToolchain)
    assert out.verdict == "pass", out.to_dict()


def test_no_recorded_answer_is_a_refusal_never_a_pass(tmp_path: Path) -> None:
    class Silent(RecordedToolchain):
        def olean_entries(self, *a: Any, **k: Any) -> tuple[str, str]:
            return NO_RECORDING, "no recording"

    out = _gate(tmp_path, Silent)
    ff = out.runs[0].first_failing
    assert out.verdict == "fail" and ff is not None
    assert (ff.step, ff.code) == (4, "toolchain-missing")


@pytest.mark.parametrize(("report", "code"), [
    (("checker-output-unbound", "stdout carries a report"), "checker-output-unbound"),
    (("checker-failed", "no report"), "checker-failed"),
    ({"checker": "OleanEntries", "version": 1, "modules": []}, "checker-output-malformed"),
    ({"checker": "Other", "version": 1, "modules": [{"module": "M", "outside": []}]},
     "checker-output-malformed"),
    ({"checker": "OleanEntries", "version": 1, "modules": [{"module": "N", "outside": []}]},
     "checker-output-malformed"),
    ({"checker": "OleanEntries", "version": 1,
      "modules": [{"module": "M", "outside": [{"name": "macro", "entries": 0}]}]},
     "checker-output-malformed"),
    ({"checker": "OleanEntries", "version": 1,
      "modules": [{"module": "M", "outside": [{"name": "Lean.Parser.parserExtension",
                                               "entries": 2}]}]}, "olean-extension-entry"),
])
def test_every_report_but_a_clean_bound_one_refuses(report: Any, code: str) -> None:
    res = screen_from_report(report, ["M"])
    assert not res.ok and res.code == code


def test_a_clean_report_passes_and_an_inert_extension_is_not_held_against_it() -> None:
    clean = {"checker": "OleanEntries", "version": 1, "modules": [
        {"module": "M", "outside": [{"name": "Lean.declRangeExt", "entries": 3}]}]}
    assert screen_from_report(clean, ["M"]).ok


def test_without_lean_the_screen_fails_closed(tmp_path: Path) -> None:
    spec = core_spec()
    ws = tutorial_workspace(tmp_path)
    refused = screen_carried(MissingToolchain(spec), ws, ["Lemmata.tutorial.tutorial.Proof"],
                             Sandbox(), spec.caps)
    assert refused is not None and refused.code == "toolchain-missing"


def test_a_forged_report_from_the_new_checker_is_unbound(tmp_path: Path) -> None:
    """A module's code that printed a clean OleanEntries report (it cannot know the nonce)
    is ``checker-output-unbound``, and the screen refuses."""
    spec = core_spec()
    ws = tutorial_workspace(tmp_path)
    clean = json.dumps({"checker": "OleanEntries", "version": 1, "modules": [
        {"module": "Lemmata.tutorial.tutorial.Proof", "outside": []}]})
    tc = lt.LeanToolchain(spec, tmp_path, tmp_path)
    forged = Checker(bound=None, printed=clean)
    got = tc.olean_entries(ws, ["Lemmata.tutorial.tutorial.Proof"], sorted(INERT_EXTENSIONS),
                           forged, spec.caps)  # type: ignore[arg-type]
    assert isinstance(got, tuple) and got[0] == "checker-output-unbound"
    planted = Checker(bound=None, planted={"report-0123.json": clean})
    refused = screen_carried(tc, ws, ["Lemmata.tutorial.tutorial.Proof"],
                             planted, spec.caps)  # type: ignore[arg-type]
    assert refused is not None and refused.code == "checker-output-unbound"
    argv, stdin, _env = forged.seen[0]
    assert argv[-3].endswith("OleanEntries.lean") and stdin is not None


def test_every_inert_extension_cites_where_lean_defines_it() -> None:
    """Each entry of the inert set names the source file that registers it, and the
    module's text carries a comment above it saying what its entries are and quoting the
    Lean line that registers it."""
    src = (ROOT / "network" / "gate" / "lean" / "olean_screen.py").read_text("utf-8")
    block = src[src.index("INERT_EXTENSIONS: Mapping"):]
    block = block[:block.index("\n}\n")]
    tree = ast.parse(block.split("=", 1)[1].strip() + "\n}")
    assert isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Dict)
    lines = block.splitlines()
    for name, where in INERT_EXTENSIONS.items():
        assert re.fullmatch(r"leanprover/lean4: src/\S+\.lean", where), (name, where)
        i = next(k for k, ln in enumerate(lines) if ln.strip().startswith(f'"{name}"'))
        assert lines[i - 1].strip().startswith("#"), f"{name} has no comment saying why"
        comment: list[str] = []
        while lines[i - 1].strip().startswith("#"):
            i -= 1
            comment.insert(0, lines[i].strip())
        # the comment quotes the Lean line that registers it (`builtin_initialize x : …`)
        assert "initialize" in " ".join(comment), f"{name}: no registration quoted"
    assert "macro" not in INERT_EXTENSIONS


def test_the_checker_reads_oleans_as_data_and_imports_nothing() -> None:
    """OleanEntries.lean never imports a module into an environment and reads the nonce
    first (Common.lean's mainWith); it reads the files with Lean's own reader."""
    text = (ROOT / "network" / "gate" / "lean" / "OleanEntries.lean").read_text("utf-8")
    code = re.sub(r"/-.*?-/", "", text, flags=re.DOTALL)
    assert "importModules" not in code and "loadEnv" not in code and "printEnv" not in code
    assert "readModuleDataParts" in code and "findOLean" in code
    assert 'mainWith "OleanEntries"' in code
    assert "OleanEntries" in lt.CHECKERS
    assert lt.checker_source("OleanEntries").startswith("/-\nShared helpers")


#: Extensions whose entries register syntax or elaboration, or hold code a later import,
#: elaboration or build runs (issue 32): the names Lean registers them under, as far as
#: they are known (the `macro`/`term_elab`/`command_elab`/`tactic`/`delab`/`app_unexpander`
#: attributes are `KeyedDeclsAttribute`s named by their attribute name; the rest by
#: `decl_name%`). None may ever be inert, whatever else the set admits.
NEVER_INERT = (
    "macro", "term_elab", "command_elab", "tactic", "delab", "app_unexpander",
    "builtin_macro", "builtin_term_elab", "builtin_command_elab", "builtin_tactic",
    "Lean.Parser.parserExtension", "Lean.Parser.parserAttributeExt",
    "Lean.Meta.Simp.simprocExtension", "Lean.Meta.Simp.simprocDeclExt",
    "Lean.regularInitAttr", "Lean.builtinInitAttr",
    "Lean.Compiler.implementedByAttr", "Lean.externAttr", "Lean.Compiler.CSimp.ext",
    "Lean.exportAttr", "Lean.Elab.Tactic.Doc.tacticTagExt",
    "Lean.Elab.Tactic.Doc.tacticDocExtExt", "Lean.Elab.macroAttribute",
    "Lean.Elab.Term.termElabAttribute", "Lean.Elab.Command.commandElabAttribute",
    "Lean.Elab.Tactic.tacticElabAttribute", "Lean.PrettyPrinter.Delaborator.delabAttribute",
    "Lean.PrettyPrinter.Delaborator.appUnexpanderAttribute", "Lean.Compiler.LCNF.passManagerExt",
    "Lean.Compiler.LCNF.cpass", "Lean.attributeExtension",
)
#: words that name such an extension's kind, matched in an inert name's last component
CODE_WORDS = ("macro", "delab", "unexpander", "parser", "syntax", "notation", "simproc",
              "init", "implementedby", "extern", "csimp", "export", "tactic", "command",
              "attributeext", "elaborator", "builtin")


def test_no_syntax_elaborator_or_code_running_extension_is_inert() -> None:
    """The inert set admits data only: nothing that registers syntax, an elaborator, a
    printer, a simproc or an initializer, nor `implemented_by`/`extern`/`export`/`csimp`."""
    assert not set(NEVER_INERT) & set(INERT_EXTENSIONS)
    for name in INERT_EXTENSIONS:
        last = name_components(name)[-1].lower()
        assert not any(w in last for w in CODE_WORDS), name


def test_every_inert_name_can_be_sent_to_the_checker() -> None:
    """Each name splits into the components the request carries and back; a private
    spelling `_private.<Module>.0.<Namespace>.x` comes with `<Namespace>.x` (the two
    spellings of one `private builtin_initialize`)."""
    for name in INERT_EXTENSIONS:
        parts = name_components(name)
        assert parts and ".".join(parts) == name, name
        if parts[0] == "_private":
            assert "0" in parts, name
            assert ".".join(parts[parts.index("0") + 1:]) in INERT_EXTENSIONS, name


#: what an honest module with a `/-! … -/` doc, a `structure`, a `class` with an
#: `instance`, an `inductive`, a computable and a well-founded `def`, an `abbrev`, `@[simp]`
#: and `rfl` lemmas writes on a pinned toolchain (v4.27 … v4.34), with made-up counts
HONEST = ["Lean.declRangeExt", "Lean.docStringExt",
          "_private.Lean.DocString.Extension.0.Lean.moduleDocExt",
          "_private.Lean.Compiler.ModPkgExt.0.Lean.modPkgExt", "Lean.deprecatedModuleExt",
          "Lean.extraModUses", "Lean.namespacesExt", "Lean.protectedExt",
          "Lean.Meta.completionBlackListExt", "reducibilityCore", "recExt",
          "Lean.Elab.WF.eqnInfoExt", "Lean.Elab.Structural.eqnInfoExt",
          "Lean.Meta.Match.Extension.extension", "Lean.Compiler.inlineAttrs",
          "Lean.auxRecExt", "Lean.noConfusionExt",
          "_private.Lean.AuxRecursor.0.Lean.sparseCasesOnExt", "Lean.Elab.Term.elabAsElim",
          "Lean.structureExt", "Lean.projectionFnInfoExt", "Lean.classExtension",
          "Lean.Meta.instanceExtension", "Lean.Meta.simpExtension", "Lean.defeqAttr",
          "Lean.noncomputableExt", "Lean.IR.declMapExt", "Lean.Compiler.LCNF.baseExt",
          "Lean.Compiler.LCNF.monoExt", "Lean.Compiler.LCNF.impureSigExt",
          "Lean.Compiler.LCNF.specExtension", "Lean.Compiler.LCNF.Specialize.specCacheExt",
          "Lean.Compiler.LCNF.UnreachableBranches.functionSummariesExt"]


def _report(names: list[str]) -> dict[str, Any]:
    return {"checker": "OleanEntries", "version": 1, "modules": [
        {"module": "M", "outside": [{"name": n, "entries": 1 + i % 3}
                                    for i, n in enumerate(sorted(names))]}]}


def test_an_honest_definitions_module_is_not_refused() -> None:
    """A module with definitions, compiled code, `simp` lemmas, structures, classes and
    inductives passes, even where the checker lists an inert name it cannot match (a private
    name's numeric `0`): the screen drops it by its printed form."""
    assert set(HONEST) <= set(INERT_EXTENSIONS), set(HONEST) - set(INERT_EXTENSIONS)
    res = screen_from_report(_report(HONEST), ["M"])
    assert res.ok and res.code is None and res.outside == ()


@pytest.mark.parametrize("extra", ["macro", "Lean.Parser.parserExtension",
                                   "Lean.Meta.Simp.simprocExtension", "Lean.regularInitAttr",
                                   "Lean.Compiler.implementedByAttr"])
def test_one_code_extension_beside_honest_ones_still_refuses(extra: str) -> None:
    """An honest module's inert extensions never hide a code-holding one: the refusal names
    exactly the extension outside the set."""
    res = screen_from_report(_report([*HONEST, extra]), ["M"])
    assert not res.ok and res.code == "olean-extension-entry"
    assert [e.extension for e in res.outside] == [extra]
    assert extra in res.detail
