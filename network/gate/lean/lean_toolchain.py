"""The real toolchain adapter: lake, lean, leanchecker, Comparator and the gate's checkers.

Everything here follows LEAN_NOTES.md; nothing here can run on a machine without Lean, and
:func:`network.gate.lean.detect.detect_toolchain` only returns a :class:`LeanToolchain` when it
found ``lean`` and ``lake``. Every Lean process runs inside the step-3 sandbox with the
target's caps (D-4 step 3), including the verdict runs that execute none of the
contributor's code (v3.27): defence in depth costs nothing there.

Checker programs (``network/gate/lean/*.lean``) run as ``lake env lean --run
<Checker>.lean <request.json>``; each is ``Common.lean`` followed by the checker's own body
(the files cannot import each other without being built). Each prints one JSON report,
parsed by :func:`network.gate.lean.toolchain.parse_checker_output` and read into its result by
:mod:`network.gate.lean.checker_reports` (re-exported here, issue 17).

Trust domains (issue 10; :mod:`network.gate.sandbox.workspace` says which facts of lake and
Comparator this rests on):

* :meth:`LeanToolchain.build` binds its workspace writable (:meth:`LeanToolchain.layout`):
  the contributor's scratch, or a check workspace the gate builds from base bytes. After a
  scratch build the ``export``-ed modules' compiled files are read back without following
  links (:func:`~network.gate.sandbox.workspace.export_oleans`).
* every check (replay, the checker programs) runs with :meth:`LeanToolchain.check_layout`:
  the check workspace, the carried-olean folder and the run's input folder read-only, a
  fresh output folder the only writable place. The carried folder reaches Lean through
  ``LEAN_PATH``, which ``lake env`` keeps after the workspace's own lib folders.
* the checker's source and request, and Comparator's config, are written into a fresh
  host-only input folder (:func:`~network.gate.sandbox.workspace.new_run`) before the run; the
  host writes nothing into a folder a sandbox could write.
* Comparator gets a fresh workspace holding the sources only, never built, as its README
  requires; it builds and exports there itself.
"""

from __future__ import annotations

import json
import re
import secrets
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from network import proc
from network.errors import LemmataError
from network.gate.lean.axioms import is_native_axiom
from network.gate.lean.checker_reports import (
    _ref_json,
    _relation_request_problem,
    axiom_identities_from_report,
    compare_result_from_report,
    defeq_from_report,
    hazards_from_report,
    holes_from_report,
    outline_from_report,
    relation_result_from_report,
    used_constants_from_report,
    witness_result_from_report,
)
from network.gate.lean.kernel_replay import replay_kernels
from network.gate.lean.toolchain import (
    JOIN_KINDS,
    RELATION_KINDS,
    BuildResult,
    CheckerOutputError,
    CheckerOutputUnbound,
    CompareResult,
    DefEqResult,
    HazardsResult,
    HolesResult,
    LeanMessage,
    OutlineResult,
    RelationKind,
    ReplayResult,
    TermRef,
    ToolchainInfo,
    UsedConstantsResult,
    WitnessResult,
    bound_report,
    parse_lean_messages,
)
from network.gate.sandbox import safe_io
from network.gate.sandbox.sandbox import SandboxLayout, SandboxResult, SandboxRunner
from network.gate.sandbox.workspace import (
    LIBRARY,
    Workspace,
    comparator_config,
    export_oleans,
    name_components,
    new_run,
    require_check,
    verify_carried,
    write_workspace,
)
from network.record.models import Caps, GateSpec

LOG_TAIL = 20_000
CHECKERS = ("CheckStatement", "UsedConstants", "ExtractHoles", "Hazards", "Witness", "DefEq",
            "CheckRelation", "Outline", "OleanEntries")
_VERSION_RE = re.compile(r"version ([^\s,]+)")
_COMMIT_RE = re.compile(r"commit ([0-9a-f]{40})")


def checker_source(name: str) -> str:
    """The full source of checker ``name``: ``Common.lean`` then ``<name>.lean``.

    Raises:
        ValueError: ``name`` is not one of :data:`CHECKERS`.
    """
    if name not in CHECKERS:
        raise ValueError(f"unknown checker {name!r}")
    pkg = resources.files("network.gate") / "lean"
    common = (pkg / "Common.lean").read_text("utf-8")
    body = (pkg / f"{name}.lean").read_text("utf-8")
    return common.rstrip("\n") + "\n\n" + body


def pin_version(pin: str) -> str:
    """``leanprover/lean4:v4.34.0`` → ``4.34.0``; nightlies keep their ``nightly-…`` tag;
    a pin without an origin (``v4.34.0``) reads the same."""
    tag = pin.rsplit(":", 1)[-1]
    return tag.removeprefix("v")


def version_matches_pin(version: str | None, pin: str) -> bool:
    """Whether ``lean --version``'s version token is exactly the pinned release (D-4 step
    1, issue 10): ``4.34.0`` for ``v4.34.0``; ``4.34.0-rc1`` or ``4.34.0+local`` is another
    toolchain. A nightly pin ``nightly-2026-01-01`` matches ``4.x.y-nightly-2026-01-01``,
    the form nightlies print."""
    if not version:
        return False
    want = pin_version(pin)
    if want.startswith("nightly-"):
        return version.endswith("-" + want)
    return version == want


def toolchain_env() -> dict[str, str]:
    """Extra sandbox variables for every Lean run: panics abort (Comparator does the same)."""
    return {"LEAN_ABORT_ON_PANIC": "1"}


@dataclass
class LeanToolchain:
    """The real :class:`~network.gate.lean.toolchain.Toolchain` (DESIGN.md "Lean").

    Args:
        spec: the target's gate-spec (pins, kernel checks).
        bindir: the toolchain's ``bin`` directory holding lean, lake and leanchecker.
        pins_root: the gate image's prebuilt pin directories (see
            :mod:`network.gate.sandbox.workspace`).
        comparator / lean4export / landrun / nanoda: absolute paths of Comparator and its
            helpers, needed only when ``spec.kernel.replay == "comparator"``; None looks
            in ``<pins_root>/tools/``.
    """

    spec: GateSpec
    bindir: Path
    pins_root: Path
    comparator: Path | None = None
    lean4export: Path | None = None
    landrun: Path | None = None
    nanoda: Path | None = None

    # --- plumbing ----------------------------------------------------------------------

    def _tool(self, name: str) -> Path:
        return self.bindir / name

    def _helper(self, given: Path | None, name: str) -> Path | None:
        p = given or self.pins_root / "tools" / name
        return p if p.is_file() else None

    def _read_only(self, workspace: Workspace) -> list[Path]:
        """What every run sees read-only: the toolchain, the pin directory, the helpers."""
        ro = [self.bindir.parent]
        if workspace.pins_dir is not None:
            ro.append(workspace.pins_dir)
        for helper in (self.comparator, self.lean4export, self.landrun, self.nanoda):
            if helper is not None:
                ro.append(helper)
        return ro

    def layout(self, workspace: Workspace) -> SandboxLayout:
        """The build view: the workspace is scratch (writable: lake writes ``.lake/build``),
        the toolchain and the pin directory are read-only."""
        return SandboxLayout(scratch=workspace.root, read_only=tuple(self._read_only(workspace)),
                             path_dirs=(self.bindir,))

    def check_layout(self, workspace: Workspace, out_dir: Path,
                     inputs: Sequence[Path] = ()) -> SandboxLayout:
        """A check run's view (issue 10): the check workspace, its carried oleans and the
        run's ``inputs`` folders read-only; ``out_dir`` (fresh, host-made) the only
        writable place.

        Raises:
            ValueError: ``workspace`` is a scratch workspace.
        """
        require_check(workspace)
        ro = [*self._read_only(workspace), workspace.root,
              *([workspace.carried_dir] if workspace.carried_dir is not None else []),
              *inputs]
        return SandboxLayout(scratch=out_dir, read_only=tuple(ro), path_dirs=(self.bindir,))

    @staticmethod
    def check_env(workspace: Workspace) -> dict[str, str]:
        """``LEAN_PATH`` naming the carried folder; ``lake env`` appends it after every
        package's own lib folder (lean4 src/lake/Lake/Config/Workspace.lean
        ``augmentedLeanPath``), so it never shadows a trusted olean."""
        if workspace.carried_dir is None:
            return {}
        return {"LEAN_PATH": str(workspace.carried_dir)}

    def _run(self, sandbox: SandboxRunner, workspace: Workspace, argv: Sequence[str], caps: Caps,
             env: Mapping[str, str] | None = None) -> SandboxResult:
        """One sandboxed build run in the workspace (bound writable);
        LemmataError(sandbox-unavailable) escapes."""
        return sandbox.run(list(argv), self.layout(workspace), caps, cwd=workspace.root,
                           env={**toolchain_env(), **(env or {})})

    def _run_check(self, sandbox: SandboxRunner, workspace: Workspace, label: str,
                   inputs: Mapping[str, bytes], argv: Callable[[Path], Sequence[str]],
                   caps: Caps, extra_read_only: Sequence[Path] = (),
                   stdin: bytes | None = None) -> SandboxResult:
        """One check run: the carried files are re-hashed
        (:func:`~network.gate.sandbox.workspace.verify_carried`), ``inputs`` (name → bytes) are
        written into a fresh host-only folder, ``argv(in_dir)`` runs in
        :meth:`check_layout` from the workspace root (its output folder is
        ``in_dir.parent / "out"``), with ``extra_read_only`` folders (an earlier run's
        output, e.g. an export) bound read-only too and ``stdin`` on its standard input.
        LemmataError (sandbox-unavailable, build-output-refused) escapes."""
        verify_carried(workspace)
        in_dir, out_dir = new_run(workspace, label)
        for name, data in inputs.items():
            safe_io.write_new(in_dir, name, data)
        return sandbox.run(list(argv(in_dir)),
                           self.check_layout(workspace, out_dir, [in_dir, *extra_read_only]),
                           caps, cwd=workspace.root,
                           env={**toolchain_env(), **self.check_env(workspace)}, stdin=stdin)

    def run_checker(self, name: str, request: Mapping[str, Any], workspace: Workspace,
                    sandbox: SandboxRunner, caps: Caps) -> dict[str, Any] | tuple[str, str]:
        """Run checker ``name`` on ``request`` and return its report, or (code, detail).

        The checker's source and the request JSON (names as component arrays,
        :func:`~network.gate.sandbox.workspace.name_components`) are written into a fresh host-only
        input folder, bound read-only; the check workspace is read-only too.

        The report channel (issue 32): a fresh nonce (128 random bits) goes on the run's
        stdin, which the checker reads before its request and before any import
        (Common.lean ``mainWith``); the report is accepted only from
        ``out/report-<nonce>.json`` (:func:`~network.gate.lean.toolchain.bound_report`). A run
        whose stdout carries a report, or that exited 0 with no report under the nonce, is
        ``checker-output-unbound``: a module's code that printed or wrote a report could
        not have known the nonce. A run that exited non-zero with no report is
        ``checker-failed`` (a gate fault, e.g. a checker that does not compile).

        Raises:
            ValueError: ``workspace`` is a scratch workspace.
        """
        require_check(workspace)
        inputs = {f"{name}.lean": checker_source(name).encode("utf-8"),
                  f"{name}.json": json.dumps(request, sort_keys=True).encode("utf-8")}
        nonce = secrets.token_hex(16)
        holder: dict[str, Path] = {}

        def argv(d: Path) -> list[str]:
            holder["out"] = d.parent / "out"
            return [str(self._tool("lake")), "env", "lean", f"-j{caps.threads}", "--run",
                    str(d / f"{name}.lean"), str(d / f"{name}.json"), str(holder["out"])]
        try:
            res = self._run_check(sandbox, workspace, name, inputs, argv, caps,
                                  stdin=(nonce + "\n").encode("ascii"))
        except LemmataError as exc:
            return exc.code, exc.detail
        if res.killed_by is not None:
            return "resource-cap-exceeded", f"{name} hit the {res.killed_by} cap"
        if res.rc != 0 and not (holder["out"] / f"report-{nonce}.json").exists():
            # it failed before it could report (e.g. it did not compile on this toolchain):
            # a gate fault, closed, never blamed on the submission
            return "checker-failed", (f"{name} exited {res.rc} and wrote no report: "
                                      f"{(res.stderr or res.stdout)[-2000:]}")
        try:
            report = bound_report(res.stdout, holder["out"], nonce, name)
        except CheckerOutputUnbound as exc:
            return "checker-output-unbound", f"{exc} (rc {res.rc}): {res.stderr[-2000:]}"
        except CheckerOutputError as exc:
            return "checker-output-malformed", f"{exc} (rc {res.rc}): {res.stderr[-2000:]}"
        if report.get("error"):
            return "checker-failed", str(report["error"])[:2000]
        if res.rc != 0:
            return "checker-failed", f"{name} exited {res.rc}: {res.stderr[-2000:]}"
        return report

    # --- Toolchain ---------------------------------------------------------------------

    def describe(self) -> ToolchainInfo:
        """Run ``lean --version`` (not contributor code, so outside the sandbox) and compare
        it with the pin (D-4 step 1).

        Returns ``toolchain-mismatch`` when the version differs, ``toolchain-missing``
        when lean cannot run.
        """
        paths = {n: str(self._tool(n)) for n in ("lean", "lake", "leanchecker")
                 if self._tool(n).is_file()}
        for n, given in (("comparator", self.comparator), ("lean4export", self.lean4export),
                         ("landrun", self.landrun), ("nanoda", self.nanoda)):
            found = self._helper(given, n)
            if found:
                paths[n] = str(found)
        try:
            done = proc.run([str(self._tool("lean")), "--version"],
                            env={"PATH": f"{self.bindir}:/usr/bin:/bin"}, timeout_s=60)
        except LemmataError as exc:
            return ToolchainInfo(False, "toolchain-missing", self.spec.lean_toolchain,
                                 paths=paths, detail=exc.detail)
        vm = _VERSION_RE.search(done.out)
        cm = _COMMIT_RE.search(done.out)
        version = vm.group(1) if vm else None
        want = pin_version(self.spec.lean_toolchain)
        if done.rc != 0 or not version_matches_pin(version, self.spec.lean_toolchain):
            return ToolchainInfo(False, "toolchain-mismatch", self.spec.lean_toolchain,
                                 version, cm.group(1) if cm else None, paths,
                                 f"installed {done.out.strip()[:200]!r}, pinned {want}")
        return ToolchainInfo(True, None, self.spec.lean_toolchain, version,
                             cm.group(1) if cm else None, paths, "toolchain matches the pin")

    def build(self, workspace: Workspace, modules: Sequence[str], sandbox: SandboxRunner,
              caps: Caps, export: Sequence[str] = ()) -> BuildResult:
        """``lake build Lemmata`` (the library: every source under ``Lemmata/``, by its glob;
        :func:`~network.gate.sandbox.workspace.root_module_text`), then ``lake env lean --json`` on each module's own file for its messages
        (step 3), the workspace bound writable; on success the compiled files of
        ``export`` are read back without following links (issue 10).

        The verdict is lake's exit status and the caps; messages are diagnostics only. A
        planted link, special file or oversize file where an exported file should be is
        ``build-output-refused``.

        Raises:
            KeyError: a module (built or exported) the workspace does not hold.
        """
        mods = tuple(modules)
        for m in (*mods, *export):
            workspace.source(m)  # KeyError for a module the workspace does not hold
        try:
            res = self._run(sandbox, workspace, [str(self._tool("lake")), "build", LIBRARY],
                            caps)
            messages: list[LeanMessage] = []
            for m in mods:
                msg_run = self._run(sandbox, workspace,
                                    [str(self._tool("lake")), "env", "lean", "--json",
                                     f"-j{caps.threads}", str(workspace.source(m).path)], caps)
                messages.extend(parse_lean_messages(msg_run.stdout))
        except LemmataError as exc:
            return BuildResult(False, exc.code, mods, log=exc.detail)
        log = (res.stdout + res.stderr)[-LOG_TAIL:]
        if res.killed_by is not None:
            return BuildResult(False, "resource-cap-exceeded", mods, tuple(messages), res.rc,
                               res.killed_by, log)
        if res.rc != 0:
            return BuildResult(False, "lean-build-failed", mods, tuple(messages), res.rc,
                               None, log)
        try:
            artifacts = export_oleans(workspace, export)
        except LemmataError as exc:
            return BuildResult(False, exc.code, mods, tuple(messages), res.rc, None,
                               f"{exc.detail}\n{log}"[-LOG_TAIL:])
        return BuildResult(True, None, mods, tuple(messages), res.rc, None, log, artifacts)

    def replay(self, workspace: Workspace, modules: Sequence[str], sandbox: SandboxRunner,
               caps: Caps, decls: Sequence[str] = ()) -> ReplayResult:
        """Kernel replay of ``modules`` in every kernel of the gate-spec's set (step 4,
        v3.16; issue 37): ``lake env leanchecker`` per module, then each independent
        kernel the soundness record pins
        (:func:`network.gate.lean.kernel_replay.replay_kernels`).

        On a graph that pins Mathlib each graph module is replayed into the environment of
        its imports (Mathlib's oleans are trusted, fixed by the image); without Mathlib
        ``--fresh`` replays everything. ``LEAN_NUM_THREADS=1`` as lean-action does.
        Comparator is driven by :meth:`check_statement` when the gate-spec selects it.
        ``ok`` is True only when every kernel accepted; step 4 reads ``kernels``.
        """
        require_check(workspace)
        fresh = self.spec.mathlib is None and not self.spec.packages
        mods = tuple(modules)
        verdicts = replay_kernels(self, workspace, mods, sandbox, caps, fresh, tuple(decls))
        log = "\n".join(f"[{v.name} {v.verdict}] {v.detail}" for v in verdicts)[-LOG_TAIL:]
        bad = next((v for v in verdicts if v.verdict != "accept"), None)
        if bad is None:
            return ReplayResult(True, None, mods, fresh=fresh, log=log, kernels=verdicts)
        code = bad.code or "kernel-replay-failed"
        return ReplayResult(False, code, mods, fresh=fresh, failed_module=mods[-1] if mods
                            else None, log=log, kernels=verdicts)

    def comparator_env(self) -> dict[str, str] | None:
        """COMPARATOR_LANDRUN / _LEAN4EXPORT / _NANODA, or None when a helper is missing."""
        landrun = self._helper(self.landrun, "landrun")
        export = self._helper(self.lean4export, "lean4export")
        if landrun is None or export is None:
            return None
        env = {"COMPARATOR_LANDRUN": str(landrun), "COMPARATOR_LEAN4EXPORT": str(export)}
        if self.spec.kernel.second_kernel == "nanoda":
            nanoda = self._helper(self.nanoda, "nanoda_bin")
            if nanoda is None:
                return None
            env["COMPARATOR_NANODA"] = str(nanoda)
        return env

    def run_comparator(self, workspace: Workspace, statement_module: str,
                       solution_module: str, theorems: Sequence[str],
                       permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                       caps: Caps) -> ReplayResult:
        """``lake env comparator config.json`` (LEAN_NOTES "Comparator"): exit 0 and
        nothing else counts; stdout is kept as the diagnostic.

        It runs in a fresh workspace written from the check workspace's trusted sources
        plus the withheld solution source, never built before (Comparator README,
        assumption 2), bound writable because Comparator builds there itself (in landrun);
        the config sits in a host-only folder bound read-only. ``workspace`` must be a
        check workspace (ValueError otherwise)."""
        comparator = self._helper(self.comparator, "comparator")
        env = self.comparator_env()
        mods = (statement_module, solution_module)
        second = self.spec.kernel.second_kernel
        if comparator is None or env is None:
            return ReplayResult(False, "toolchain-missing", mods, "comparator",
                                second_kernel=second,
                                log="Comparator or its helpers are not installed")
        require_check(workspace)
        # Comparator's assumption 2 (README): the solution was never compiled. It gets a
        # fresh workspace holding the trusted sources and the withheld solution source.
        by_module = {src.module: src for src in (*workspace.sources, *workspace.withheld)}
        if solution_module not in by_module:
            return ReplayResult(False, "checker-failed", mods, "comparator",
                                second_kernel=second,
                                log=f"no source for {solution_module} to hand Comparator")
        try:
            fresh_root = Path(tempfile.mkdtemp(prefix="comparator-", dir=workspace.host_dir))
            pins_root = workspace.pins_dir.parent if workspace.pins_dir is not None else None
            fresh = write_workspace(fresh_root / "ws", self.spec, list(by_module.values()),
                                    pins_root, role="scratch")
            in_dir, _out = new_run(fresh, "comparator")
            safe_io.write_new(in_dir, "comparator.json", json.dumps(
                comparator_config(statement_module, solution_module, theorems,
                                  permitted_axioms, second), indent=2).encode("utf-8"))
            tools = [comparator, *(Path(v) for v in env.values())]
            layout = SandboxLayout(scratch=fresh.root,
                                   read_only=(*self._read_only(fresh), *tools, in_dir),
                                   path_dirs=(self.bindir,))
            res = sandbox.run([str(self._tool("lake")), "env", str(comparator),
                               str(in_dir / "comparator.json")], layout, caps, cwd=fresh.root,
                              env={**toolchain_env(), **env})
        except LemmataError as exc:
            return ReplayResult(False, exc.code, mods, "comparator", second_kernel=second,
                                log=exc.detail)
        log = (res.stdout + res.stderr)[-LOG_TAIL:]
        if res.killed_by is not None:
            return ReplayResult(False, "resource-cap-exceeded", mods, "comparator",
                                second_kernel=second, log=log)
        if res.rc != 0:
            return ReplayResult(False, "kernel-replay-failed", mods, "comparator",
                                second_kernel=second, failed_module=solution_module, log=log)
        return ReplayResult(True, None, mods, "comparator", second_kernel=second, log=log)

    def check_statement(self, workspace: Workspace, statement_module: str,
                        solution_module: str, theorems: Sequence[str],
                        permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                        caps: Caps) -> CompareResult:
        """Run CheckStatement.lean: each theorem's type in the solution equals the
        statement's, every constant the statement uses is identical in the solution's
        environment, and the proof's axioms are permitted (steps 4-5, v3.27). When the
        gate-spec selects Comparator, Comparator must accept as well."""
        request = {"statement_module": name_components(statement_module),
                   "solution_module": name_components(solution_module),
                   "theorems": [name_components(t) for t in theorems],
                   "permitted_axioms": [name_components(a) for a in permitted_axioms]}
        report = self.run_checker("CheckStatement", request, workspace, sandbox, caps)
        if isinstance(report, tuple):
            return CompareResult(False, report[0], detail=report[1])
        result = compare_result_from_report(report, permitted_axioms,
                                            self.spec.lean_toolchain)
        if result.ok and self.spec.kernel.replay == "comparator":
            comp = self.run_comparator(workspace, statement_module, solution_module, theorems,
                                       permitted_axioms, sandbox, caps)
            if not comp.ok:
                return CompareResult(False, comp.code, result.theorems, comp.log)
        return result

    def check_witness(self, workspace: Workspace, statement_module: str, decl: str,
                      witness_module: str, witness_decl: str,
                      permitted_axioms: Sequence[str], sandbox: SandboxRunner, caps: Caps,
                      keep_hypotheses: Sequence[str] | None = None) -> WitnessResult:
        """Run Witness.lean (step 7; D-29 v3.22 narrowing through ``keep_hypotheses``)."""
        request = {"statement_module": name_components(statement_module),
                   "decl": name_components(decl),
                   "witness_module": name_components(witness_module),
                   "witness_decl": name_components(witness_decl),
                   "keep": None if keep_hypotheses is None else list(keep_hypotheses)}
        report = self.run_checker("Witness", request, workspace, sandbox, caps)
        if isinstance(report, tuple):
            return WitnessResult(False, report[0], witness_decl, detail=report[1])
        return witness_result_from_report(report, witness_decl, permitted_axioms,
                                          self.spec.lean_toolchain)

    def used_constants(self, workspace: Workspace, module: str, decls: Sequence[str],
                       sandbox: SandboxRunner, caps: Caps,
                       prefix: str = "Lemmata") -> UsedConstantsResult:
        """Run UsedConstants.lean (step 8, v3.25)."""
        request = {"module": name_components(module),
                   "decls": [name_components(d) for d in decls],
                   "prefix": name_components(prefix)}
        report = self.run_checker("UsedConstants", request, workspace, sandbox, caps)
        if isinstance(report, tuple):
            return UsedConstantsResult(False, report[0], tuple(decls), detail=report[1])
        return used_constants_from_report(report, decls)

    def extract_holes(self, workspace: Workspace, partial_module: str, decl: str,
                      sandbox: SandboxRunner, caps: Caps) -> HolesResult:
        """Run ExtractHoles.lean (D-12 #5, D-29)."""
        request = {"module": name_components(partial_module), "decl": name_components(decl)}
        report = self.run_checker("ExtractHoles", request, workspace, sandbox, caps)
        if isinstance(report, tuple):
            return HolesResult(False, report[0], decl, detail=report[1])
        return holes_from_report(report, decl)

    def hazards(self, workspace: Workspace, statement_module: str, decls: Sequence[str],
                checkers: Sequence[str], sandbox: SandboxRunner, caps: Caps) -> HazardsResult:
        """Run Hazards.lean over the declarations' types (step 6)."""
        request = {"module": name_components(statement_module),
                   "decls": [name_components(d) for d in decls], "checkers": list(checkers)}
        report = self.run_checker("Hazards", request, workspace, sandbox, caps)
        if isinstance(report, tuple):
            return HazardsResult(False, report[0], detail=report[1])
        return hazards_from_report(report, checkers)

    def check_relation(self, workspace: Workspace, kind: RelationKind, left: TermRef,
                       right: TermRef | None, solution_module: str, theorem: str,
                       permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                       caps: Caps) -> CompareResult:
        """Run CheckRelation.lean in mode ``check`` (D-12 #2/#3, D-30; steps 4-5).

        The expected type is built in Lean from the declarations (see
        :data:`~network.gate.lean.toolchain.RelationKind`) and compared with ``==``. A hole
        reference, an unknown kind or a missing right side answer ``checker-failed``
        without running anything. When the gate-spec selects Comparator the answer is
        ``artifact-check-unsupported``: Comparator needs a challenge module stating the
        expected type, which only exists as a term here (fail closed).
        """
        bad = _relation_request_problem(kind, left, right, RELATION_KINDS)
        if bad:
            return CompareResult(False, "checker-failed", detail=bad)
        if self.spec.kernel.replay == "comparator":
            return CompareResult(False, "artifact-check-unsupported",
                                 detail="Comparator cannot judge a relation: it compares a "
                                        "challenge module's text, and the expected type of a "
                                        "relation is built as a term")
        request = {"mode": "check", "kind": kind, "left": _ref_json(left),
                   "right": None if right is None else _ref_json(right),
                   "solution_module": name_components(solution_module),
                   "theorem": name_components(theorem)}
        report = self.run_checker("CheckRelation", request, workspace, sandbox, caps)
        if isinstance(report, tuple):
            return CompareResult(False, report[0], detail=report[1])
        return relation_result_from_report(report, permitted_axioms, self.spec.lean_toolchain)

    def join_relation(self, workspace: Workspace, kind: RelationKind, premise: TermRef,
                      relation: TermRef, conclusion: TermRef,
                      permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                      caps: Caps) -> CompareResult:
        """Run CheckRelation.lean in mode ``join``: the kernel (``Lean.addDecl``) accepts
        ``relation premise`` as the conclusion's statement or its negation (D-12 v3.42,
        v3.46). Bad references or kinds answer ``checker-failed`` without running."""
        bad = (_relation_request_problem(kind, premise, relation, JOIN_KINDS)
               or ("the conclusion must name a declaration, not a hole"
                   if conclusion.hole is not None else ""))
        if bad:
            return CompareResult(False, "checker-failed", detail=bad)
        request = {"mode": "join", "kind": kind, "premise": _ref_json(premise),
                   "relation": _ref_json(relation), "conclusion": _ref_json(conclusion)}
        report = self.run_checker("CheckRelation", request, workspace, sandbox, caps)
        if isinstance(report, tuple):
            return CompareResult(False, report[0], detail=report[1])
        return relation_result_from_report(report, permitted_axioms, self.spec.lean_toolchain)

    def outline(self, workspace: Workspace, module: str, decls: Sequence[str],
                sandbox: SandboxRunner, caps: Caps) -> OutlineResult:
        """Run Outline.lean on the built ``module`` (D-3 v3.30): the request names only the
        module and declarations, as component arrays; the checker imports the module's
        hash-checked olean from the check workspace with no initializer, like every other
        checker, and reads the kernel-checked terms alone (the source is never read or
        elaborated, so none of the contributor's code runs). The run is sandboxed with
        the target's caps like every check.

        Raises:
            ValueError: ``workspace`` is a scratch workspace.
        """
        request = {"module": name_components(module),
                   "decls": [name_components(d) for d in decls]}
        report = self.run_checker("Outline", request, workspace, sandbox, caps)
        if isinstance(report, tuple):
            return OutlineResult(False, report[0], module, tuple(decls), detail=report[1])
        return outline_from_report(report, module, decls)

    def olean_entries(self, workspace: Workspace, modules: Sequence[str],
                      inert: Sequence[str], sandbox: SandboxRunner,
                      caps: Caps) -> dict[str, Any] | tuple[str, str]:
        """Run OleanEntries.lean on the carried ``modules`` (issue 32): their compiled files
        are read as data (``readModuleDataParts``), never imported, and the bound report
        lists each module's extensions outside ``inert`` that hold entries. Returns that
        report, or (code, detail) as :meth:`run_checker` does; the typed reading and the
        verdict are :mod:`network.gate.lean.olean_screen`'s (added without any new import here,
        while this module's imports are being untangled).

        Raises:
            ValueError: ``workspace`` is a scratch workspace.
        """
        request = {"modules": [name_components(m) for m in modules],
                   "inert": [name_components(n) for n in inert]}
        return self.run_checker("OleanEntries", request, workspace, sandbox, caps)

    def defeq(self, workspace: Workspace, left: TermRef, right: TermRef, sandbox: SandboxRunner,
              caps: Caps) -> DefEqResult:
        """Run DefEq.lean (D-12 offload rule; v3.21 offload-restates-ancestor)."""
        def ref(t: TermRef) -> dict[str, Any]:
            return {"module": name_components(t.module), "decl": name_components(t.decl),
                    "hole": t.hole}
        report = self.run_checker("DefEq", {"left": ref(left), "right": ref(right)},
                                  workspace, sandbox, caps)
        if isinstance(report, tuple):
            return DefEqResult(False, report[0], detail=report[1])
        return defeq_from_report(report)


#: every name this module held before the report readers moved to
#: :mod:`network.gate.lean.checker_reports` (issue 17); ``is_native_axiom`` as tests read it here
__all__ = [
    "CHECKERS",
    "LOG_TAIL",
    "LeanToolchain",
    "axiom_identities_from_report",
    "checker_source",
    "compare_result_from_report",
    "defeq_from_report",
    "hazards_from_report",
    "holes_from_report",
    "is_native_axiom",
    "outline_from_report",
    "pin_version",
    "relation_result_from_report",
    "toolchain_env",
    "used_constants_from_report",
    "version_matches_pin",
    "witness_result_from_report",
]
