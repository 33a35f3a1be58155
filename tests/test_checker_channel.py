"""Issue 32: checkers that execute no contributor code, and a report channel a module
cannot write.

* The Lean side (``network/gate/lean/*.lean``) is read as text here (no Lean on this
  machine): every contributor module is imported as data (``loadExts := false``), only
  trusted modules are imported with extension states (``printEnv``), the nonce is read
  from stdin before the request or any import, and no report is ever printed.
* The host side (:meth:`LeanToolchain.run_checker`, :func:`bound_report`) is run with fake
  sandboxes that play an honest checker and a module whose code printed or wrote a forged
  passing report: the forgery is ``checker-output-unbound``, never a pass.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from network.gate.lean import lean_toolchain as lt
from network.gate.lean.toolchain import CheckerOutputError, CheckerOutputUnbound, bound_report
from network.gate.sandbox.sandbox import SandboxLayout, SandboxResult
from network.record.models import Caps, GateSpec

sys.path.insert(0, str(Path(__file__).parent))
from test_toolchain import AXIOMS, PROPEXT_INFO, P, S, core_spec, tutorial_workspace

LEAN = Path(__file__).resolve().parents[1] / "network" / "gate" / "lean"
DECL = "Tutorial.double_lt"


def _code(src: str) -> str:
    """Lean source without comments (block and line)."""
    src = re.sub(r"/-.*?-/", "", src, flags=re.DOTALL)
    return "\n".join(ln.split("--")[0] for ln in src.splitlines())


def _report(axioms: list[str]) -> str:
    row = {"name": DECL, "found": True, "type_equal": True, "mismatched_constants": [],
           "axioms": axioms,
           "axiom_info": [i for i in PROPEXT_INFO if i["name"] in axioms]
           + [{"name": a, "module": "Init.Prelude", "type_key": "|x"}
              for a in axioms if a != "propext"]}
    return json.dumps({"checker": "CheckStatement", "version": 1, "theorems": [row]})


HONEST_SORRY = _report(["propext", "sorryAx"])  # what CheckStatement finds in a sorry proof
CLEAN = _report(["propext"])  # an honest clean proof's report
FORGED_PASS = CLEAN  # what a module's code would like the host to read of a sorry proof


@dataclass
class Checker:
    """A fake sandbox playing one checker run: ``bound`` is written under the nonce it
    reads on stdin (as Common.lean's mainWith does); ``printed`` goes to stdout and
    ``planted`` (name → text) into the output folder, as a module's code could."""

    bound: str | None = HONEST_SORRY
    printed: str = ""
    planted: dict[str, str] = field(default_factory=dict)
    link: bool = False
    seen: list[tuple[list[str], bytes | None, dict[str, str]]] = field(default_factory=list)

    def run(self, argv: Sequence[str], layout: SandboxLayout, caps: Caps, *, cwd: Any = None,
            env: Any = None, stdin: bytes | None = None) -> SandboxResult:
        self.seen.append((list(argv), stdin, dict(env or {})))
        out = Path(argv[-1])
        assert out == layout.scratch  # the run's only writable place
        for name, text in self.planted.items():
            (out / name).write_text(text)
        if self.bound is not None and stdin is not None:
            nonce = stdin.decode("ascii").strip()
            target = out / f"report-{nonce}.json"
            if self.link:
                (out / "elsewhere.json").write_text(self.bound + "\n")
                os.symlink(out / "elsewhere.json", target)
            else:
                target.write_text(self.bound + "\n")
        return SandboxResult(0, self.printed, "", None, 0.1, tuple(argv))


def _check(tmp_path: Path, sb: Checker) -> Any:
    ws = tutorial_workspace(tmp_path)
    return lt.LeanToolchain(core_spec(), tmp_path, tmp_path).check_statement(
        ws, S, P, [DECL], AXIOMS, sb, Caps())


# --- the host: only a report bound to the run's nonce counts ------------------------------


def test_an_honest_run_is_read_from_its_bound_report(tmp_path: Path) -> None:
    sb = Checker(bound=CLEAN, printed="warning: a lint\n")
    r = _check(tmp_path, sb)
    assert r.ok, r


def test_each_run_gets_a_fresh_nonce_on_stdin_and_nowhere_else(tmp_path: Path) -> None:
    sb = Checker(bound=FORGED_PASS)
    _check(tmp_path / "a", sb)
    _check(tmp_path / "b", sb)
    nonces = []
    for argv, stdin, env in sb.seen:
        assert stdin is not None and re.fullmatch(rb"[0-9a-f]{32}\n", stdin)
        nonce = stdin.decode().strip()
        nonces.append(nonce)
        assert not any(nonce in a for a in argv)
        assert not any(nonce in v for v in env.values())
        request = Path(argv[-2]).read_text()  # the request a module could read
        assert nonce not in request
    assert len(set(nonces)) == 2


def test_a_module_printing_a_forged_passing_report_is_refused(tmp_path: Path) -> None:
    """The checker found ``sorryAx`` and wrote so under its nonce; code run from the
    contributor's module printed a clean report on stdout. Before issue 32 the host read
    the last stdout line: the forgery was the verdict."""
    r = _check(tmp_path, Checker(bound=HONEST_SORRY, printed=FORGED_PASS + "\n"))
    assert not r.ok and r.code == "checker-output-unbound"


def test_a_module_that_silenced_the_checker_and_printed_a_report_is_refused(
        tmp_path: Path) -> None:
    r = _check(tmp_path, Checker(bound=None, printed=FORGED_PASS + "\n"))
    assert not r.ok and r.code == "checker-output-unbound"


def test_a_checker_that_failed_without_reporting_is_a_gate_fault(tmp_path: Path) -> None:
    """A checker that does not compile on the pinned Lean exits non-zero and writes no
    report: ``checker-failed`` (500), never blamed on the submission; Lean's messages on
    stdout, a line starting with ``{`` among them, are not a forged report."""
    sb = Checker(bound=None, printed="Checker.lean:3:4: error: unknown identifier\n"
                                     "{ x := 1 }\n")
    sb_rc = _check_rc(tmp_path, sb, rc=1)
    assert not sb_rc.ok and sb_rc.code == "checker-failed", sb_rc


def _check_rc(tmp_path: Path, sb: Checker, rc: int) -> Any:
    class Exiting(Checker):
        def run(self, *a: Any, **k: Any) -> SandboxResult:
            got = super().run(*a, **k)
            return SandboxResult(rc, got.stdout, "boom", None, 0.1, got.argv)
    fake = Exiting(bound=sb.bound, printed=sb.printed)
    return _check(tmp_path, fake)


def test_a_report_on_stdout_with_a_bom_or_spaces_is_still_refused(tmp_path: Path) -> None:
    r = _check(tmp_path, Checker(bound=HONEST_SORRY, printed="\ufeff  " + FORGED_PASS + "\n"))
    assert not r.ok and r.code == "checker-output-unbound"


@pytest.mark.parametrize("planted", [
    {"report-" + "0" * 32 + ".json": FORGED_PASS},  # a guessed nonce
    {"report-latest.json": FORGED_PASS},
])
def test_a_report_under_another_name_is_refused(tmp_path: Path,
                                                planted: dict[str, str]) -> None:
    r = _check(tmp_path, Checker(bound=None, planted=planted))
    assert not r.ok and r.code == "checker-output-unbound"
    r = _check(tmp_path / "2", Checker(bound=HONEST_SORRY, planted=planted))
    assert not r.ok and r.code == "checker-output-unbound"


def test_a_linked_report_is_refused(tmp_path: Path) -> None:
    r = _check(tmp_path, Checker(bound=FORGED_PASS, link=True))
    assert not r.ok and r.code == "checker-output-unbound"


def test_the_honest_sorry_report_is_still_refused_as_sorry(tmp_path: Path) -> None:
    r = _check(tmp_path, Checker(bound=HONEST_SORRY))
    assert not r.ok and r.code == "sorry-used"


def test_bound_report_rules(tmp_path: Path) -> None:
    nonce = "ab" * 16
    (tmp_path / f"report-{nonce}.json").write_text(FORGED_PASS + "\n")
    assert bound_report("lean: a message\n", tmp_path, nonce, "CheckStatement")["theorems"]
    with pytest.raises(CheckerOutputUnbound):
        bound_report("  {\"checker\": 1}\n", tmp_path, nonce, "CheckStatement")
    assert bound_report("{ x := 1 }\n{}\n", tmp_path, nonce, "CheckStatement")  # not reports
    with pytest.raises(CheckerOutputUnbound):
        bound_report("", tmp_path, "cd" * 16, "CheckStatement")
    with pytest.raises(ValueError):
        bound_report("", tmp_path, "AB" * 16, "CheckStatement")
    (tmp_path / f"report-{nonce}.json").write_text(FORGED_PASS + "\n" + FORGED_PASS + "\n")
    with pytest.raises(CheckerOutputError) as exc:
        bound_report("", tmp_path, nonce, "CheckStatement")
    assert not isinstance(exc.value, CheckerOutputUnbound)  # malformed, not unbound


# --- the Lean side, read as text ----------------------------------------------------------


def test_contributor_modules_are_imported_as_data_only() -> None:
    common = _code((LEAN / "Common.lean").read_text())
    load = common[common.index("def loadEnv"):common.index("def trustedDirs")]
    assert "(loadExts := false)" in load and "loadExts := true" not in load
    # the one import with extension states is printEnv's, of trusted oleans only
    assert common.count("loadExts := true") == 1
    pe = common[common.index("def printEnv"):]
    pe = pe[:pe.index("\ndef ")]
    assert "loadExts := true" in pe and "(← trustedModule dirs m)" in pe
    dirs = common[common.index("def trustedDirs"):common.index("def printEnv")]
    # real paths of exactly two folders, never a substring anywhere in the path
    assert '"lib" / "lean"' in dirs and '".lake" / "packages"' in dirs
    assert "IO.FS.realPath (← findOLean m)" in dirs and "splitOn" not in dirs


#: the checkers that reduce a contributor's terms (Meta whnf/isDefEq, the kernel's addDecl)
REDUCING = ("DefEq", "Witness", "CheckRelation", "ExtractHoles", "Hazards", "Outline")


def test_every_reducing_checker_refuses_native_reduction_first() -> None:
    """Lean records an imported module's compiled code whatever ``loadExts`` says, and
    ``Lean.reduceBool c`` makes whnf or the kernel run ``c``: each reducing checker calls
    the guard before its first reduction; the two that only walk terms do not (they must
    still report native axioms)."""
    common = _code((LEAN / "Common.lean").read_text())
    guard = common[common.index("def requireNoNativeReduction"):]
    guard = guard[:guard.index("\ndef ")]
    assert "``Lean.reduceBool" in guard and "``Lean.reduceNat" in guard
    assert "closure env termDeps follow roots" in guard
    markers = ("isDefEq", "runMeta", "addDecl", "holesOf", "olStepsOf", "expected stmtEnv",
               "visit c", "unusedBinders")
    for name in REDUCING:
        code = _code((LEAN / f"{name}.lean").read_text())
        runs = [m.start() for m in re.finditer(r"\ndef run\w+", code)]
        assert runs, name
        for at in runs:
            body = code[at + 1:]
            nxt = re.search(r"\n(def|partial def|end) ", body)
            body = body[:nxt.start()] if nxt else body
            first = min((body.index(k) for k in markers if k in body), default=None)
            if first is None:
                continue
            assert "requireNoNativeReduction" in body[:first], (name, body[:80])
    for name in ("UsedConstants", "CheckStatement"):
        assert "requireNoNativeReduction" not in (LEAN / f"{name}.lean").read_text()


def test_printing_reopens_every_local_let_bound_ones_included() -> None:
    common = _code((LEAN / "Common.lean").read_text())
    here = common[common.index("def ppHere"):]
    here = here[:here.index("\ndef ")]
    assert "(usedLetOnly := false)" in here and "fvars.size" in here
    rec = common[common.index("def recordHole"):]
    rec = rec[:rec.index("\ndef ")]
    assert "mkForallFVars fvars goal (usedLetOnly := false)" in rec
    row = common[common.index("def holeRow"):]
    assert "h.binderCount h.context" in row
    for f in LEAN.glob("*.lean"):
        code = _code(f.read_text())
        assert "enableInitializersExecution" not in code, f.name
        assert "importModules" not in code or f.name == "Common.lean", f.name
        assert "withImportModules" not in code, f.name


def test_terms_print_only_in_the_trusted_environment() -> None:
    """Every ``ppExpr`` runs in ``runMeta penv`` (ppClosed, ppHere, holeRow): never in the
    contributor's data environment, whose notation would be the contributor's."""
    for f in LEAN.glob("*.lean"):
        code = _code(f.read_text())
        if f.name != "Common.lean":
            assert "ppExpr" not in code, f.name
            continue
        for m in re.finditer(r"ppExpr", code):
            head = code[:m.start()]
            fn = head[head.rindex("\ndef "):].split()[1]
            assert fn in {"ppClosed", "ppHere", "holeRow"}, fn


def test_the_nonce_is_read_before_the_request_and_no_report_is_printed() -> None:
    common = _code((LEAN / "Common.lean").read_text())
    main = common[common.index("def mainWith"):]
    main = main[:main.index("\nend LemmataGate")]
    assert main.index("IO.getStdin") < main.index("IO.FS.readFile") < main.index("run req")
    assert 'report-{nonce}.json' in main and "IO.FS.writeFile file" in main
    for f in LEAN.glob("*.lean"):
        code = _code(f.read_text())
        assert "IO.println" not in code and "getStdout" not in code, f.name


def test_the_report_folder_is_the_runs_only_writable_place(tmp_path: Path) -> None:
    sb = Checker(bound=FORGED_PASS)
    _check(tmp_path, sb)
    argv, _, _ = sb.seen[0]
    assert argv[-1].endswith("/out") and argv[-2].endswith("CheckStatement.json")


def test_a_gate_spec_without_a_network_commit_is_refused() -> None:
    from network.gate.lean.toolchain import MissingToolchain
    from network.gate.steps.step1_toolchain import _step1

    spec = GateSpec.model_validate({"schema": "gate-spec/v1",
                                    "lean_toolchain": "leanprover/lean4:v4.34.0"})
    res, _ = _step1(MissingToolchain(spec), spec, [])
    assert not res.ok and res.diagnostics[0].code == "network-commit-missing"
    pinned = spec.model_copy(update={"network_commit": "ab" * 20})
    res, _ = _step1(MissingToolchain(pinned), pinned, [])
    assert res.diagnostics[0].code == "toolchain-missing"  # past the pin, closed as before
