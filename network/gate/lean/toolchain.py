"""The one toolchain adapter interface for every Lean call the gate makes (DESIGN.md "Lean").

Gate steps never call ``lean``, ``lake``, ``leanchecker`` or Comparator themselves: they
receive a :class:`Toolchain` by injection and read the typed results of
:mod:`network.gate.lean.toolchain_results` (re-exported here, issue 17). Three implementations
exist:

* :class:`~network.gate.lean.lean_toolchain.LeanToolchain`: the real one, for machines that have
  Lean (GitHub runners, the gate image, a contributor's laptop).
* :class:`MissingToolchain`: what :func:`network.gate.lean.detect.detect_toolchain` returns when
  no Lean is found.
  Every method answers ``toolchain-missing``; none ever reports a pass.
* the recorded stand-in of ``tests/standin.py``, which lives in tests/ only. Nothing in
  ``network/`` can name or select it: no environment variable, no setting.

Every result carries ``ok`` and ``code``: ``ok`` is True only when the check passed, and
then ``code`` is None; otherwise ``code`` is a catalog code. A result's data (axioms,
constants, holes, findings) comes from a Lean program's JSON, never from message text
(LEAN_NOTES "Never parse data for verdicts").
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from network.errors import LemmataError, define
from network.gate.lean.toolchain_results import (
    JOIN_KINDS,
    OUTLINE_WHY,
    RELATION_KINDS,
    AxiomIdentity,
    BuildResult,
    CompareResult,
    DefEqResult,
    HazardChecker,
    HazardFinding,
    HazardsResult,
    Hole,
    HoleBinder,
    HolesResult,
    LeanMessage,
    OutlineKind,
    OutlineResult,
    OutlineStep,
    RelationKind,
    ReplayResult,
    TermRef,
    TheoremComparison,
    ToolchainInfo,
    UsedConstantsResult,
    WitnessResult,
)
from network.gate.sandbox import safe_io
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.workspace import Workspace
from network.record.models import Caps, GateSpec

define("toolchain-missing", 1, 503,
       "No Lean toolchain is installed where this check ran, so nothing was checked.",
       "Run the check where lean and lake are installed (elan), e.g. the gate image or CI, "
       "or install the pins (`lemmata toolchain install`); without them the gate never "
       "reports a pass. On a service without them, its operator can still issue a token "
       "(`lemmata token issue`) for the work that needs no Lean.")
define("lean-build-failed", 3, 422, "The sandboxed lake build reported an error.",
       "Read the build messages, fix the Lean file and run the precheck again.")
define("resource-cap-exceeded", 3, 422,
       "The sandboxed command hit a CPU, memory or wall-clock cap of gate-spec.json.",
       "Make the file cheaper to elaborate; the caps are the target's, not the submitter's.")
define("kernel-replay-failed", 4, 422, "Kernel replay of a compiled module failed.",
       "The module holds a declaration the kernel refuses; do not forge the environment.")
define("declaration-missing", 4, 422,
       "A declaration the check needs is absent from the compiled module.",
       "Declare the theorem with exactly the statement's name (an #exit hides it).")
define("statement-mismatch", 4, 422,
       "The solution's declaration does not state exactly what the statement states, or a "
       "constant the statement uses differs in the solution's environment.",
       "Prove the statement as written, without redefining anything it mentions.")
define("axiom-not-permitted", 5, 422, "The proof depends on an axiom outside the allowlist.",
       "Remove the axiom; only the gate-spec's axioms (propext, Classical.choice, "
       "Quot.sound by default) are permitted.")
define("sorry-used", 5, 422, "The proof depends on sorryAx.", "Finish the proof; no sorry.")
define("native-code-used", 5, 422,
       "The proof trusts the compiler (native_decide, Lean.ofReduceBool or a _native axiom).",
       "Replace native_decide by decide or a kernel proof, or file the waiver of D-4.")
define("hazard-found", 6, 422, "A static hazard checker flagged the statement.",
       "Fix the statement, or acknowledge the intended construct in META.yaml.")
define("witness-failed", 7, 422,
       "The non-vacuity witness is missing, has the wrong type or does not typecheck.",
       "State the witness as the existential of the statement's hypotheses and prove it.")
define("checker-output-malformed", 4, 500,
       "A Lean checker program did not print exactly one well-formed JSON report.",
       "This is a gate fault or an incompatible toolchain; report it with the log.")
define("checker-output-unbound", 4, 422,
       "A checker run's report was not bound to the run's nonce: its stdout carried a "
       "report, or it exited 0 with no report under the nonce it was given (issue 32).",
       "A module imported by the checker wrote output it should not; the submission is "
       "refused. If no submitted module could have, report it with the log.")
define("checker-failed", 4, 500, "A Lean checker program could not complete its check.",
       "Read the checker's error; often a module failed to import (build it first).")


# --- the interface ---------------------------------------------------------------------


@runtime_checkable
class Toolchain(Protocol):
    """Every Lean call the gate makes (DESIGN.md "Lean"; D-4 steps 1 and 3-8, D-12, D-29,
    D-30).

    Every method returns a result object and never raises for an expected failure; a
    method that cannot run answers with ``ok=False`` and a catalog code. Implementations
    must never answer ``ok=True`` for anything they did not check.

    ``workspace`` is a :class:`~network.gate.sandbox.workspace.Workspace` written by
    :func:`~network.gate.sandbox.workspace.write_workspace`; module names come from
    :func:`network.ids.module_name`. Two trust domains (issue 10, D-4 v3.27; see
    :mod:`network.gate.sandbox.workspace`): :meth:`build` runs in a workspace bound writable (the
    contributor's scratch, or a check workspace the gate builds from base bytes), and
    returns the ``export``-ed modules' compiled files; every other method is a check and
    takes a *check* workspace (``role="check"``, built, carried files placed by
    :func:`~network.gate.sandbox.workspace.place_carried`), which a check run sees read-only with
    a fresh output folder as its only writable place. A check method handed a scratch
    workspace raises ValueError (a gate bug).
    """

    @property
    def spec(self) -> GateSpec:
        """The target's gate-spec whose pins this toolchain follows."""
        ...

    def describe(self) -> ToolchainInfo:
        """The installed toolchain and whether it matches ``spec.lean_toolchain`` (step 1)."""
        ...

    def build(self, workspace: Workspace, modules: Sequence[str], sandbox: SandboxRunner,
              caps: Caps, export: Sequence[str] = ()) -> BuildResult:
        """``lake build`` of ``modules`` inside ``sandbox`` under ``caps`` (step 3, and the
        gate's own build of a check workspace); on success the compiled files of
        ``export`` (contributor modules, for the check workspace) come back in
        ``artifacts``, or the build fails with ``build-output-refused``."""
        ...

    def replay(self, workspace: Workspace, modules: Sequence[str], sandbox: SandboxRunner,
               caps: Caps, decls: Sequence[str] = ()) -> ReplayResult:
        """Kernel replay of the compiled ``modules`` in every kernel of
        :func:`network.gate.lean.kernels.replayed_kernels` (step 4, v3.16; issue 37): Lean's own
        replays the modules whole, the independent kernels check the export of ``decls``
        and everything they use (``lean4export M… -- decls``; empty: the modules' whole
        environment, Mathlib included)."""
        ...

    def check_statement(self, workspace: Workspace, statement_module: str,
                        solution_module: str, theorems: Sequence[str],
                        permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                        caps: Caps) -> CompareResult:
        """Solution's theorems state exactly the statement's, with permitted axioms only
        (steps 4-5, v3.27)."""
        ...

    def check_witness(self, workspace: Workspace, statement_module: str, decl: str,
                      witness_module: str, witness_decl: str,
                      permitted_axioms: Sequence[str], sandbox: SandboxRunner, caps: Caps,
                      keep_hypotheses: Sequence[str] | None = None) -> WitnessResult:
        """Step 7; ``keep_hypotheses`` narrows the existential (D-29 v3.22)."""
        ...

    def used_constants(self, workspace: Workspace, module: str, decls: Sequence[str],
                       sandbox: SandboxRunner, caps: Caps,
                       prefix: str = "Lemmata") -> UsedConstantsResult:
        """Graph constants and modules the declarations' terms use (step 8, v3.25)."""
        ...

    def extract_holes(self, workspace: Workspace, partial_module: str, decl: str,
                      sandbox: SandboxRunner, caps: Caps) -> HolesResult:
        """The holes of a partial proof's declaration (D-12 #5, D-29)."""
        ...

    def hazards(self, workspace: Workspace, statement_module: str, decls: Sequence[str],
                checkers: Sequence[str], sandbox: SandboxRunner, caps: Caps) -> HazardsResult:
        """Static hazard findings over the statement's type (step 6)."""
        ...

    def defeq(self, workspace: Workspace, left: TermRef, right: TermRef, sandbox: SandboxRunner,
              caps: Caps) -> DefEqResult:
        """Whether two statements are definitionally equal (D-12 offload rule, v3.21)."""
        ...

    def check_relation(self, workspace: Workspace, kind: RelationKind, left: TermRef,
                       right: TermRef | None, solution_module: str, theorem: str,
                       permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                       caps: Caps) -> CompareResult:
        """The solution's ``theorem`` states exactly the type ``kind`` builds from the
        statements' declarations ``left`` (and ``right`` for ``implies``/``implies-not``),
        every constant that type uses is identical in the solution's environment, and the
        proof's axioms are reported (D-12 #2/#3, D-30; steps 4-5).

        The expected type is built in Lean from the declarations' types, never from their
        text; see :data:`RelationKind`. ``left``/``right`` name declarations (``hole`` must
        be None). The one row of the result is named ``theorem``. Codes as
        :meth:`check_statement`.
        """
        ...

    def join_relation(self, workspace: Workspace, kind: RelationKind, premise: TermRef,
                      relation: TermRef, conclusion: TermRef,
                      permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                      caps: Caps) -> CompareResult:
        """Closure through a variant (D-12 v3.42, v3.46; D-30): the kernel accepts
        ``relation premise`` as a proof of ``conclusion``'s statement (``implies``) or of its
        negation (``implies-not``), every constant of that statement is identical in the
        proofs' environment, and the join's axioms are reported. ``premise`` is the
        variant's proved declaration (its Proof or closure join module), ``relation`` the
        Relation.lean theorem, ``conclusion`` the root's Statement declaration. A kernel
        refusal is ``statement-mismatch``; codes otherwise as :meth:`check_statement`.
        """
        ...

    def outline(self, workspace: Workspace, module: str, decls: Sequence[str],
                sandbox: SandboxRunner, caps: Caps) -> OutlineResult:
        """The named steps of the built ``module``'s proofs of ``decls`` (D-3 v3.30):
        Outline.lean imports the compiled module from the check workspace with no
        initializer and walks each declaration's kernel-checked term (its ``have``/``let``
        bindings); the source is never read. A step whose printing does not read back is
        Lean only. ``declaration-missing`` when a declaration is not in the compiled
        module."""
        ...

    def olean_entries(self, workspace: Workspace, modules: Sequence[str],
                      inert: Sequence[str], sandbox: SandboxRunner,
                      caps: Caps) -> dict[str, Any] | tuple[str, str]:
        """The OleanEntries checker's report on the carried ``modules`` (issue 32, D-4
        v3.27): each module's compiled files read as data (``readModuleDataParts``),
        never imported, and every environment extension that holds an entry and is not
        named in ``inert`` listed with its entry count. Returns the bound report, a JSON
        object ``{"checker": "OleanEntries", "version": 1, "modules": [{"module",
        "outside": [{"name", "entries"}]}]}``, or ``(code, detail)`` when no bound report
        came back (``checker-output-unbound``, ``checker-failed``,
        ``toolchain-missing``, ...); :mod:`network.gate.lean.olean_screen` reads it into a
        typed result and judges it. The raw report is returned because the result type
        lives beside the screen."""
        ...


# --- the missing toolchain -------------------------------------------------------------


@dataclass(frozen=True)
class MissingToolchain:
    """What the gate gets when no Lean is installed: every answer is ``toolchain-missing``.

    It never reports a pass (DESIGN.md "Without a toolchain the product fails closed").

    Attributes:
        spec: the gate-spec whose pins were looked for.
        searched: where detection looked, for the message.
    """

    spec: GateSpec
    searched: tuple[str, ...] = ()

    @property
    def detail(self) -> str:
        """The sentence every result carries."""
        where = ", ".join(self.searched) or "nowhere"
        return (f"no Lean toolchain for {self.spec.lean_toolchain} was found "
                f"(searched: {where}); nothing was checked")

    def describe(self) -> ToolchainInfo:
        """``toolchain-missing``, with the pin and where detection looked."""
        return ToolchainInfo(False, "toolchain-missing", self.spec.lean_toolchain,
                             detail=self.detail)

    def build(self, workspace: Workspace, modules: Sequence[str], sandbox: SandboxRunner,
              caps: Caps, export: Sequence[str] = ()) -> BuildResult:
        """``toolchain-missing``."""
        return BuildResult(False, "toolchain-missing", tuple(modules), log=self.detail)

    def replay(self, workspace: Workspace, modules: Sequence[str], sandbox: SandboxRunner,
               caps: Caps, decls: Sequence[str] = ()) -> ReplayResult:
        """``toolchain-missing``."""
        return ReplayResult(False, "toolchain-missing", tuple(modules), log=self.detail)

    def check_statement(self, workspace: Workspace, statement_module: str,
                        solution_module: str, theorems: Sequence[str],
                        permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                        caps: Caps) -> CompareResult:
        """``toolchain-missing``."""
        return CompareResult(False, "toolchain-missing", detail=self.detail)

    def check_witness(self, workspace: Workspace, statement_module: str, decl: str,
                      witness_module: str, witness_decl: str,
                      permitted_axioms: Sequence[str], sandbox: SandboxRunner, caps: Caps,
                      keep_hypotheses: Sequence[str] | None = None) -> WitnessResult:
        """``toolchain-missing``."""
        return WitnessResult(False, "toolchain-missing", witness_decl, detail=self.detail)

    def used_constants(self, workspace: Workspace, module: str, decls: Sequence[str],
                       sandbox: SandboxRunner, caps: Caps,
                       prefix: str = "Lemmata") -> UsedConstantsResult:
        """``toolchain-missing``."""
        return UsedConstantsResult(False, "toolchain-missing", tuple(decls),
                                   detail=self.detail)

    def extract_holes(self, workspace: Workspace, partial_module: str, decl: str,
                      sandbox: SandboxRunner, caps: Caps) -> HolesResult:
        """``toolchain-missing``."""
        return HolesResult(False, "toolchain-missing", decl, detail=self.detail)

    def hazards(self, workspace: Workspace, statement_module: str, decls: Sequence[str],
                checkers: Sequence[str], sandbox: SandboxRunner, caps: Caps) -> HazardsResult:
        """``toolchain-missing``."""
        return HazardsResult(False, "toolchain-missing", detail=self.detail)

    def defeq(self, workspace: Workspace, left: TermRef, right: TermRef, sandbox: SandboxRunner,
              caps: Caps) -> DefEqResult:
        """``toolchain-missing``."""
        return DefEqResult(False, "toolchain-missing", detail=self.detail)

    def check_relation(self, workspace: Workspace, kind: RelationKind, left: TermRef,
                       right: TermRef | None, solution_module: str, theorem: str,
                       permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                       caps: Caps) -> CompareResult:
        """``toolchain-missing``."""
        return CompareResult(False, "toolchain-missing", detail=self.detail)

    def join_relation(self, workspace: Workspace, kind: RelationKind, premise: TermRef,
                      relation: TermRef, conclusion: TermRef,
                      permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                      caps: Caps) -> CompareResult:
        """``toolchain-missing``."""
        return CompareResult(False, "toolchain-missing", detail=self.detail)

    def outline(self, workspace: Workspace, module: str, decls: Sequence[str],
                sandbox: SandboxRunner, caps: Caps) -> OutlineResult:
        """``toolchain-missing``: no outline is ever made up."""
        return OutlineResult(False, "toolchain-missing", module, tuple(decls),
                             detail=self.detail)

    def olean_entries(self, workspace: Workspace, modules: Sequence[str],
                      inert: Sequence[str], sandbox: SandboxRunner,
                      caps: Caps) -> dict[str, Any] | tuple[str, str]:
        """``("toolchain-missing", detail)``: nothing was read, so nothing passes."""
        return "toolchain-missing", self.detail


# --- detection -------------------------------------------------------------------------


def toolchain_dir_name(pin: str) -> str:
    """The directory elan installs a pin under: ``leanprover/lean4:v4.34.0`` →
    ``leanprover--lean4---v4.34.0`` (elan's escaping of ``/`` and ``:``)."""
    return pin.replace("/", "--").replace(":", "---")


# --- parsing ---------------------------------------------------------------------------


def parse_lean_messages(stdout: str) -> tuple[LeanMessage, ...]:
    """Parse ``lean --json`` output: one JSON object per line (LEAN_NOTES, lean4 Shell.lean).

    Lines that are not JSON objects with ``severity`` and ``pos`` are skipped (lake's own
    progress lines); unknown severities read as "error" (fail closed).
    """
    out: list[LeanMessage] = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if not isinstance(obj, dict) or "severity" not in obj or "pos" not in obj:
            continue
        pos = obj.get("pos") or {}
        end = obj.get("endPos") or {}
        sev = obj.get("severity")
        severity: Literal["information", "warning", "error"] = (
            sev if sev in ("information", "warning") else "error")
        out.append(LeanMessage(
            file_name=str(obj.get("fileName", "")),
            line=int(pos.get("line", 0)), column=int(pos.get("column", 0)),
            severity=severity, data=str(obj.get("data", "")),
            end_line=int(end["line"]) if "line" in end else None,
            end_column=int(end["column"]) if "column" in end else None,
            caption=str(obj.get("caption", "")),
            kind=str(obj["kind"]) if obj.get("kind") is not None else None,
        ))
    return tuple(out)


class CheckerOutputError(ValueError):
    """A checker program's stdout is not exactly one well-formed report."""


class CheckerOutputUnbound(CheckerOutputError):
    """A checker run's report is not bound to its nonce (``checker-output-unbound``)."""


#: the most bytes a checker report file may hold (a report lists names and short texts)
MAX_REPORT_BYTES = 16 * 1024 * 1024
_NONCE_RE = re.compile(r"[0-9a-f]{32}")


def _is_report_line(line: str) -> bool:
    """Whether a stdout line is a checker report: a JSON object with a ``checker`` key
    (whitespace and a byte-order mark around it ignored)."""
    text = line.strip().lstrip("\ufeff").strip()
    if not text.startswith("{"):
        return False
    try:
        obj = json.loads(text)
    except ValueError:
        return False
    return isinstance(obj, dict) and "checker" in obj


def bound_report(stdout: str, out_dir: Path, nonce: str, checker: str) -> dict[str, Any]:
    """The report a checker run wrote under its nonce (issue 32's report channel).

    A checker (Common.lean ``mainWith``) reads ``nonce`` from stdin before it reads its
    request or imports a module, and writes its one report to
    ``out_dir/report-<nonce>.json`` through a handle it opens after every import; it prints
    no report. So:

    * a stdout line that is a report (a JSON object naming a ``checker``) is refused: only
      a module's code could have printed it (Lean's own messages about the checker's
      source are never such an object);
    * the file must be a regular file (read without following links, at most
      :data:`MAX_REPORT_BYTES`); absent, it is refused;
    * any other ``report-*`` entry in ``out_dir`` is refused (a guessed name);
    * the file's content is then read by :func:`parse_checker_output`.

    Args:
        stdout: the run's standard output (Lean's messages about the checker's own source
            may appear there and are ignored).
        out_dir: the run's output folder (its only writable place).
        nonce: the 32 lowercase hex digits the run was given.
        checker: the checker's name.

    Raises:
        CheckerOutputUnbound: any of the refusals above.
        CheckerOutputError: the bound file is not one well-formed report.
        ValueError: ``nonce`` is not 32 lowercase hex digits.
    """
    if not _NONCE_RE.fullmatch(nonce):
        raise ValueError("a nonce is 32 lowercase hexadecimal digits")
    if any(_is_report_line(ln) for ln in stdout.splitlines()):
        raise CheckerOutputUnbound(f"{checker}'s stdout carries a report")
    name = f"report-{nonce}.json"
    try:
        others = sorted(n for n in os.listdir(out_dir) if n.startswith("report-") and n != name)
    except OSError as exc:
        raise CheckerOutputUnbound(f"{checker}'s output folder is unreadable: {exc}") from exc
    if others:
        raise CheckerOutputUnbound(f"{checker}'s output folder holds reports under other "
                                   f"names: {others[:3]}")
    try:
        data = safe_io.read_optional(out_dir, name, max_bytes=MAX_REPORT_BYTES)
    except LemmataError as exc:
        raise CheckerOutputUnbound(f"{checker}'s report is not a plain file: {exc.detail}") \
            from exc
    if data is None:
        raise CheckerOutputUnbound(f"{checker} left no report under its nonce")
    return parse_checker_output(data.decode("utf-8", "replace"), checker)


def parse_checker_output(stdout: str, checker: str) -> dict[str, Any]:
    """The one JSON report a ``network/gate/lean`` checker printed.

    The report is the last non-empty line of stdout; it must be a JSON object with
    ``"checker": checker`` and ``"version": 1``. Any earlier line that also looks like a
    JSON object makes the output malformed (exactly one report). Earlier plain lines
    (e.g. the checker file's own elaboration warnings) are ignored.

    Raises:
        CheckerOutputError: no report, more than one, invalid JSON, or wrong checker name.
    """
    lines = [ln.strip() for ln in stdout.splitlines() if ln.strip()]
    if not lines:
        raise CheckerOutputError(f"{checker} printed nothing")
    if any(ln.startswith("{") for ln in lines[:-1]):
        raise CheckerOutputError(f"{checker} printed more than one JSON object")
    try:
        report = json.loads(lines[-1])
    except ValueError as exc:
        raise CheckerOutputError(f"{checker}'s last line is not JSON: {exc}") from exc
    if not isinstance(report, dict):
        raise CheckerOutputError(f"{checker}'s report is not a JSON object")
    if report.get("checker") != checker or report.get("version") != 1:
        raise CheckerOutputError(
            f"report names checker {report.get('checker')!r} version "
            f"{report.get('version')!r}, expected {checker!r} version 1")
    return report


#: every name this module held before its result types moved to
#: :mod:`network.gate.lean.toolchain_results` (issue 17)
__all__ = [
    "JOIN_KINDS",
    "OUTLINE_WHY",
    "RELATION_KINDS",
    "AxiomIdentity",
    "BuildResult",
    "CheckerOutputError",
    "CheckerOutputUnbound",
    "CompareResult",
    "DefEqResult",
    "HazardChecker",
    "HazardFinding",
    "HazardsResult",
    "Hole",
    "HoleBinder",
    "HolesResult",
    "LeanMessage",
    "MissingToolchain",
    "OutlineKind",
    "OutlineResult",
    "OutlineStep",
    "RelationKind",
    "ReplayResult",
    "TermRef",
    "TheoremComparison",
    "Toolchain",
    "ToolchainInfo",
    "UsedConstantsResult",
    "WitnessResult",
    "bound_report",
    "parse_checker_output",
    "parse_lean_messages",
    "toolchain_dir_name",
]
