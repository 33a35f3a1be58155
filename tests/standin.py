"""The RECORDED STAND-IN toolchain: tests only (DESIGN.md "Lean").

It implements :class:`network.gate.lean.toolchain.Toolchain` by replaying declared outputs. A
recording is ``tests/fixtures/toolchain/<key>.json`` where ``key`` is the SHA-256 (hex) of
the exact bytes of the workspace's input files (see :func:`inputs_key`)::

    {"files": {"<relpath>": "<sha256 of its bytes>", ...},
     "calls": [{"method": "check_statement", "args": {...}, "result": {...}}, ...]}

A call replays the recording whose ``method`` and ``args`` (JSON, as the stand-in builds
them from its arguments) match exactly. Nothing is guessed from Lean text: unknown bytes or
an unrecorded call answer ``toolchain-missing`` with "no recording", never a pass.
``describe`` is keyed by the bytes of the ``lean-toolchain`` file.

Trust domains (issue 10): ``build`` with ``export`` stands in for lake by writing, for each
exported module, a deterministic stand-in olean (:func:`standin_olean`: its module name and
the SHA-256 of its source bytes) where lake would (``.lake/build/lib/lean``), then reads it
back through the real :func:`network.gate.sandbox.workspace.export_oleans`. The gate's real
:func:`~network.gate.sandbox.workspace.place_carried` then carries it, so a check workspace's key
covers the carried file's exact bytes (``carried/<path>`` in its input files) as well as
its own sources. Check calls on a scratch workspace raise ValueError, as the real adapter
does.

Nothing under network/ can import or select this class.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from network.errors import LemmataError
from network.gate.lean.kernels import KernelVerdict
from network.gate.lean.toolchain import (
    AxiomIdentity,
    BuildResult,
    CompareResult,
    DefEqResult,
    HazardFinding,
    HazardsResult,
    Hole,
    HoleBinder,
    HolesResult,
    LeanMessage,
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
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.workspace import (
    LIB_DIR,
    Workspace,
    export_oleans,
    lean_toolchain_text,
    olean_path,
    require_check,
)
from network.record.models import Caps, GateSpec

FIXTURES = Path(__file__).parent / "fixtures" / "toolchain"
NO_RECORDING = "toolchain-missing"


def inputs_key(files: dict[str, bytes]) -> str:
    """SHA-256 hex of the input files: ``<relpath>\\0<sha256(bytes)>\\n`` per file, sorted."""
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(rel.encode() + b"\0" + hashlib.sha256(files[rel]).hexdigest().encode() + b"\n")
    return h.hexdigest()


def standin_olean(module: str, source: bytes) -> bytes:
    """The stand-in's "olean" of ``module`` built from ``source`` (tests only): fixed bytes
    naming the module and its source's SHA-256, so a key over it is a key over the source."""
    return (b"lemmata stand-in olean\0" + module.encode() + b"\0"
            + hashlib.sha256(source).hexdigest().encode() + b"\n")


def _tuple(items: Any, build: Any) -> tuple[Any, ...]:
    return tuple(build(i) for i in items or [])


@dataclass
class RecordedToolchain:
    """Replays recorded toolchain outputs by the exact bytes of the inputs (tests only)."""

    spec: GateSpec
    fixtures: Path = FIXTURES

    def _lookup(self, key: str, method: str, args: dict[str, Any]) -> dict[str, Any] | str:
        path = self.fixtures / f"{key}.json"
        if not path.is_file():
            return f"no recording for inputs {key} ({method})"
        rec = json.loads(path.read_text("utf-8"))
        for call in rec.get("calls", []):
            if call.get("method") == method and call.get("args", {}) == args:
                return dict(call["result"])
        return f"no recording of {method} with args {json.dumps(args, sort_keys=True)} for {key}"

    @staticmethod
    def _guard(workspace: Workspace, method: str) -> None:
        """Checks run only in a check workspace (ValueError otherwise), as in the adapter."""
        if method != "build":
            require_check(workspace)

    def _call(self, workspace: Workspace, method: str, args: dict[str, Any]) -> dict[str, Any] | str:
        self._guard(workspace, method)
        return self._lookup(inputs_key(workspace.input_files()), method, args)

    def describe(self) -> ToolchainInfo:
        key = inputs_key({"lean-toolchain": lean_toolchain_text(self.spec).encode()})
        r = self._lookup(key, "describe", {})
        if isinstance(r, str):
            return ToolchainInfo(False, NO_RECORDING, self.spec.lean_toolchain, detail=r)
        return ToolchainInfo(r["ok"], r.get("code"), self.spec.lean_toolchain,
                             r.get("lean_version"), r.get("githash"), r.get("paths", {}),
                             r.get("detail", ""))

    def build(self, workspace: Workspace, modules: Sequence[str], sandbox: SandboxRunner,
              caps: Caps, export: Sequence[str] = ()) -> BuildResult:
        args: dict[str, Any] = {"modules": list(modules)}
        if export:
            args["export"] = list(export)
        r = self._call(workspace, "build", args)
        if isinstance(r, str):
            return BuildResult(False, NO_RECORDING, tuple(modules), log=r)
        messages = _tuple(r.get("messages"), lambda m: LeanMessage(**m))
        if not r["ok"]:
            return BuildResult(False, r.get("code"), tuple(modules), messages,
                               r.get("rc", 0), r.get("killed_by"), r.get("log", ""))
        for m in export:  # what lake would leave: one olean per exported module
            src = workspace.source(m)
            dest = workspace.root / LIB_DIR / olean_path(src.path)
            if not dest.exists() and not dest.is_symlink():
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(standin_olean(m, src.data))
        try:
            artifacts = export_oleans(workspace, export)
        except LemmataError as exc:
            return BuildResult(False, exc.code, tuple(modules), messages, r.get("rc", 0),
                               None, exc.detail)
        return BuildResult(True, None, tuple(modules), messages, r.get("rc", 0), None,
                           r.get("log", ""), artifacts)

    def replay(self, workspace: Workspace, modules: Sequence[str], sandbox: SandboxRunner,
               caps: Caps, decls: Sequence[str] = ()) -> ReplayResult:
        args: dict[str, Any] = {"modules": list(modules)}
        if decls:
            args["decls"] = list(decls)
        r = self._call(workspace, "replay", args)
        if isinstance(r, str):
            return ReplayResult(False, NO_RECORDING, tuple(modules), log=r)
        return ReplayResult(r["ok"], r.get("code"), tuple(modules), r.get("method", "leanchecker"),
                            r.get("fresh", False), r.get("second_kernel"),
                            r.get("failed_module"), r.get("log", ""),
                            _tuple(r.get("kernels"), lambda k: KernelVerdict(**k)))

    def check_statement(self, workspace: Workspace, statement_module: str,
                        solution_module: str, theorems: Sequence[str],
                        permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                        caps: Caps) -> CompareResult:
        r = self._call(workspace, "check_statement", {
            "statement_module": statement_module, "solution_module": solution_module,
            "theorems": list(theorems), "permitted_axioms": list(permitted_axioms)})
        if isinstance(r, str):
            return CompareResult(False, NO_RECORDING, detail=r)
        rows = _tuple(r.get("theorems"), lambda t: TheoremComparison(
            t["name"], t["found"], t["type_equal"], tuple(t.get("mismatched_constants", [])),
            tuple(t.get("axioms", [])), tuple(t.get("disallowed_axioms", [])),
            t.get("sorry", False), tuple(t.get("native", [])),
            _tuple(t.get("axiom_identities"), lambda a: AxiomIdentity(**a))))
        return CompareResult(r["ok"], r.get("code"), rows, r.get("detail", ""))

    def _compare(self, r: dict[str, Any] | str) -> CompareResult:
        if isinstance(r, str):
            return CompareResult(False, NO_RECORDING, detail=r)
        rows = _tuple(r.get("theorems"), lambda t: TheoremComparison(
            t["name"], t["found"], t["type_equal"], tuple(t.get("mismatched_constants", [])),
            tuple(t.get("axioms", [])), tuple(t.get("disallowed_axioms", [])),
            t.get("sorry", False), tuple(t.get("native", [])),
            _tuple(t.get("axiom_identities"), lambda a: AxiomIdentity(**a))))
        return CompareResult(r["ok"], r.get("code"), rows, r.get("detail", ""))

    def check_relation(self, workspace: Workspace, kind: RelationKind, left: TermRef,
                       right: TermRef | None, solution_module: str, theorem: str,
                       permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                       caps: Caps) -> CompareResult:
        return self._compare(self._call(workspace, "check_relation", {
            "kind": kind, "left": [left.module, left.decl, left.hole],
            "right": None if right is None else [right.module, right.decl, right.hole],
            "solution_module": solution_module, "theorem": theorem,
            "permitted_axioms": list(permitted_axioms)}))

    def join_relation(self, workspace: Workspace, kind: RelationKind, premise: TermRef,
                      relation: TermRef, conclusion: TermRef,
                      permitted_axioms: Sequence[str], sandbox: SandboxRunner,
                      caps: Caps) -> CompareResult:
        return self._compare(self._call(workspace, "join_relation", {
            "kind": kind, "premise": [premise.module, premise.decl],
            "relation": [relation.module, relation.decl],
            "conclusion": [conclusion.module, conclusion.decl],
            "permitted_axioms": list(permitted_axioms)}))

    def check_witness(self, workspace: Workspace, statement_module: str, decl: str,
                      witness_module: str, witness_decl: str,
                      permitted_axioms: Sequence[str], sandbox: SandboxRunner, caps: Caps,
                      keep_hypotheses: Sequence[str] | None = None) -> WitnessResult:
        r = self._call(workspace, "check_witness", {
            "statement_module": statement_module, "decl": decl,
            "witness_module": witness_module, "witness_decl": witness_decl,
            "permitted_axioms": list(permitted_axioms),
            "keep_hypotheses": None if keep_hypotheses is None else list(keep_hypotheses)})
        if isinstance(r, str):
            return WitnessResult(False, NO_RECORDING, witness_decl, detail=r)
        return WitnessResult(r["ok"], r.get("code"), witness_decl, r.get("expected_type"),
                             r.get("witness_type"), tuple(r.get("axioms", [])),
                             tuple(r.get("disallowed_axioms", [])), r.get("detail", ""),
                             _tuple(r.get("axiom_identities"), lambda a: AxiomIdentity(**a)))

    def used_constants(self, workspace: Workspace, module: str, decls: Sequence[str],
                       sandbox: SandboxRunner, caps: Caps,
                       prefix: str = "Lemmata") -> UsedConstantsResult:
        r = self._call(workspace, "used_constants",
                       {"module": module, "decls": list(decls), "prefix": prefix})
        if isinstance(r, str):
            return UsedConstantsResult(False, NO_RECORDING, tuple(decls), detail=r)
        return UsedConstantsResult(r["ok"], r.get("code"), tuple(decls),
                                   tuple(r.get("constants", [])), tuple(r.get("modules", [])),
                                   r.get("detail", ""))

    def extract_holes(self, workspace: Workspace, partial_module: str, decl: str,
                      sandbox: SandboxRunner, caps: Caps) -> HolesResult:
        r = self._call(workspace, "extract_holes", {"module": partial_module, "decl": decl})
        if isinstance(r, str):
            return HolesResult(False, NO_RECORDING, decl, detail=r)
        holes = _tuple(r.get("holes"), lambda h: Hole(
            h["index"], h["name"], h["goal"],
            _tuple(h.get("binders"), lambda b: HoleBinder(**b)), h.get("statement", ""),
            h.get("line"), h.get("column")))
        return HolesResult(r["ok"], r.get("code"), decl, holes, r.get("detail", ""))

    def hazards(self, workspace: Workspace, statement_module: str, decls: Sequence[str],
                checkers: Sequence[str], sandbox: SandboxRunner, caps: Caps) -> HazardsResult:
        r = self._call(workspace, "hazards", {"module": statement_module, "decls": list(decls),
                                              "checkers": list(checkers)})
        if isinstance(r, str):
            return HazardsResult(False, NO_RECORDING, detail=r)
        return HazardsResult(r["ok"], r.get("code"),
                             _tuple(r.get("findings"), lambda f: HazardFinding(**f)),
                             r.get("detail", ""))

    def defeq(self, workspace: Workspace, left: TermRef, right: TermRef, sandbox: SandboxRunner,
              caps: Caps) -> DefEqResult:
        r = self._call(workspace, "defeq", {"left": [left.module, left.decl, left.hole],
                                            "right": [right.module, right.decl, right.hole]})
        if isinstance(r, str):
            return DefEqResult(False, NO_RECORDING, detail=r)
        return DefEqResult(r["ok"], r.get("code"), r.get("defeq"), r.get("comparable", False),
                           r.get("detail", ""))

    def olean_entries(self, workspace: Workspace, modules: Sequence[str],
                      inert: Sequence[str], sandbox: SandboxRunner,
                      caps: Caps) -> dict[str, Any] | tuple[str, str]:
        """The recorded OleanEntries report itself (what the checker writes under its
        nonce), or ``(toolchain-missing, why)`` when none is recorded."""
        r = self._call(workspace, "olean_entries",
                       {"modules": list(modules), "inert": list(inert)})
        if isinstance(r, str):
            return NO_RECORDING, r
        return r

    def outline(self, workspace: Workspace, module: str, decls: Sequence[str],
                sandbox: SandboxRunner, caps: Caps) -> OutlineResult:
        r = self._call(workspace, "outline", {"module": module, "decls": list(decls)})
        if isinstance(r, str):
            return OutlineResult(False, NO_RECORDING, module, tuple(decls), detail=r)
        steps = _tuple(r.get("steps"), lambda st: OutlineStep(
            st["decl"], st["index"], st["kind"], st.get("depth", 0), st.get("name"),
            st.get("lean_only", True), st.get("why"), st.get("claim"), st.get("goal"),
            tuple(st.get("constants", [])), tuple(st.get("automation", [])),
            st.get("hole", False)))
        return OutlineResult(r["ok"], r.get("code"), module, tuple(decls), steps,
                             r.get("detail", ""))
