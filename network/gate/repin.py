"""The drift report of a re-pin: what every merged file of a target answers under a new
Lean toolchain and Mathlib pin (D-4 steps 2-7; D-9 Detail "screens re-run whenever ... the
graph's Mathlib pin moves"; issue 37 "re-pin, the way out").

A target whose pinned toolchain is known unsound (:func:`network.gate.lean.kernels.known_unsound`)
can pass no verdict, so it moves to a sound pin (``lemmata target repin``,
:mod:`network.cli_target`). Before the move is merged, everyone should see what it does to
the record: :func:`drift_report` re-elaborates, under the *new* pin, every node the graph
holds at the commit (the graph's main holds only what merged), file by file
(``Statement.lean``, ``Witness.lean``, the merged ``Proof.lean`` and ``Relation.lean``
where present), through the one :class:`~network.gate.lean.toolchain.Toolchain` interface, in
a check workspace the gate writes from the commit's bytes (:func:`~network.gate.steps.
step3_build.write_plan`, as the post-merge job does), and re-runs the static screens that
need no Lean (step 2's Lean text rules and import-time screen, step 6's syntactic
anti-echo layer).

Per file, the checks are the gate's own readings of the toolchain's answers:

* every file: the static screens; the build of its module; the kernel replay of that
  module judged by every kernel step 4 runs on the new pin (:func:`~network.gate.lean.kernels.
  judge_kernels`);
* ``Statement.lean``: step 6's hazards, matched against META's acknowledgments;
* ``Witness.lean``: step 7's witness check and its axioms (step 5);
* ``Proof.lean``: step 4's comparison with the statement (the gate's reading,
  :func:`~network.gate.steps.step4_kernel._compare_step4`) and step 5's axioms;
* ``Relation.lean``: for a labelled variant, the D-30 relation check and its axioms.

A file is ``unchanged`` when every check passes (answers as it did when it merged),
``drift`` when any answers otherwise (the first such check's catalog code and detail are
the file's), and ``not-checked`` when a check could not run: above all
``toolchain-missing`` where no Lean is installed. It fails closed: without a toolchain no
file is ever ``unchanged``, and the static screens still run. Nothing merged is rewritten;
the report is data (:meth:`DriftReport.to_json`, :meth:`DriftReport.to_markdown`).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from network import ids
from network.errors import LemmataError, define
from network.gate.artifacts import Artifact, Kind
from network.gate.lean import answers
from network.gate.lean.axioms import identity_problems, is_native_axiom
from network.gate.lean.kernels import SoundnessRecord, replay_refusal, replayed_kernels
from network.gate.lean.toolchain import (
    AxiomIdentity,
    CompareResult,
    RelationKind,
    TermRef,
    Toolchain,
)
from network.gate.result import Diagnostic
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.scratch import scratch_base
from network.gate.sandbox.workspace import Source, Workspace, node_source
from network.gate.screens.import_screen import import_time_findings
from network.gate.screens.lean_text_rules import (
    forbidden_option_findings,
    statement_command_findings,
)
from network.gate.steps.context import ToolchainSource, _resolve_toolchain
from network.gate.steps.decls import relation_decl, relation_terms, witness_decl
from network.gate.steps.plan import plan_workspace, target_def_sources
from network.gate.steps.step3_build import write_plan
from network.gate.steps.step4_kernel import _compare_step4
from network.gate.steps.step6_hazards import hazard_location_key
from network.record import models as m
from network.record.read.loader import Graph, Node, Target, load_graph

define("repin-target-unknown", None, 404,
       "The graph holds no target with this id at the commit re-pinned.",
       "Check the target id (the folder name under targets/) and the commit.")

define("repin-not-checkable", 4, 422,
       "The target holds a merged Lean file the re-pin's drift report does not re-elaborate "
       "(a refutation, a vacuity certificate, or a partial's, reduction's or alternate's "
       "attempt), so the re-pin cannot show the record still holds under the new pin.",
       "A re-pin of such a target is not judged by the gate yet: a curator reads the "
       "files listed and decides; see docs/gate.md, \"Re-pinning a target\".")

#: the node files a re-pin re-elaborates, in the order checked (D-3's node layout)
LEAN_STEMS = ("Statement", "Witness", "Proof", "Relation")
#: codes that mean a check could not run at all (never a pass, never a drift)
NOT_CHECKED_CODES = frozenset({"toolchain-missing", "toolchain-mismatch",
                               "sandbox-unavailable"})
#: the format of :meth:`DriftReport.to_dict`
FORMAT = "lemmata-drift-report/v1"

CheckStatus = Literal["pass", "drift", "not-checked"]
FileStatus = Literal["unchanged", "drift", "not-checked"]


@dataclass(frozen=True)
class Check:
    """One check's answer on one file under the new pin.

    Attributes:
        name: ``screen``, ``workspace``, ``build``, ``kernel-replay``, ``hazards``,
            ``witness``, ``statement``, ``relation``, ``axioms`` or ``toolchain``.
        status: ``pass``; ``drift`` (it answers otherwise than at merge); ``not-checked``
            (it could not run).
        code: the catalog code of a drift or of why it did not run; None for a pass.
        detail: what was found, for the reader (at most 500 characters).
        line: the file's line the finding names, when known.
    """

    name: str
    status: CheckStatus
    code: str | None = None
    detail: str = ""
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"check", "status", "code", "detail", "line"}``."""
        return {"check": self.name, "status": self.status, "code": self.code,
                "detail": self.detail, "line": self.line}


def _status_of(checks: Sequence[Check]) -> FileStatus:
    if any(c.status == "drift" for c in checks):
        return "drift"
    if not checks or any(c.status == "not-checked" for c in checks):
        return "not-checked"
    return "unchanged"


@dataclass(frozen=True)
class FileReport:
    """One merged file of a node and its checks, in the order run."""

    path: str
    checks: tuple[Check, ...]

    @property
    def status(self) -> FileStatus:
        """``drift`` if any check drifted, else ``not-checked`` if any did not run (or
        none ran), else ``unchanged``."""
        return _status_of(self.checks)

    @property
    def first(self) -> Check | None:
        """The check the file's status comes from (its first drift, else its first
        not-checked), None when unchanged."""
        want = {"drift": "drift", "not-checked": "not-checked"}.get(self.status)
        return next((c for c in self.checks if c.status == want), None)

    def to_dict(self) -> dict[str, Any]:
        """``{"path", "status", "code", "detail", "checks": [Check.to_dict()]}``."""
        first = self.first
        return {"path": self.path, "status": self.status,
                "code": first.code if first else None, "detail": first.detail if first else "",
                "checks": [c.to_dict() for c in self.checks]}


@dataclass(frozen=True)
class NodeReport:
    """One node's files; its status is the worst of theirs."""

    node: str
    files: tuple[FileReport, ...]

    @property
    def status(self) -> FileStatus:
        """As :attr:`FileReport.status`, over every check of every file."""
        return _status_of([c for f in self.files for c in f.checks])

    def to_dict(self) -> dict[str, Any]:
        """``{"node", "status", "files": [FileReport.to_dict()]}``."""
        return {"node": self.node, "status": self.status,
                "files": [f.to_dict() for f in self.files]}


def _pins(spec: m.GateSpec) -> dict[str, Any]:
    return {"lean_toolchain": spec.lean_toolchain,
            "mathlib": spec.mathlib.rev if spec.mathlib else None,
            "packages": {p.name: p.rev for p in spec.packages}}


@dataclass(frozen=True)
class DriftReport:
    """The drift report of re-pinning ``target`` (D-4; D-9 Detail; issue 37 re-pin).

    Attributes:
        target: the target id.
        commit: the graph commit re-elaborated (40 hex).
        old_spec: the target's gate-spec at ``commit``.
        new_spec: the gate-spec the checks ran under.
        toolchain: step 1's answer for the new pin (``pass``, or ``not-checked`` with
            ``toolchain-missing``/``toolchain-mismatch``).
        nodes: every node of the target at ``commit``, in id order.
    """

    target: str
    commit: str
    old_spec: m.GateSpec
    new_spec: m.GateSpec
    toolchain: Check
    nodes: tuple[NodeReport, ...] = field(default_factory=tuple)

    @property
    def files(self) -> list[FileReport]:
        """Every file of every node, in report order."""
        return [f for n in self.nodes for f in n.files]

    def counts(self) -> dict[str, int]:
        """Files per status: ``{"unchanged": n, "drift": n, "not-checked": n}``."""
        out = {"unchanged": 0, "drift": 0, "not-checked": 0}
        for f in self.files:
            out[f.status] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data (format :data:`FORMAT`): ``{"format", "target",
        "commit", "old": pins, "new": pins, "toolchain": Check, "counts", "nodes"}``, pins
        being ``{"lean_toolchain", "mathlib", "packages": {name: rev}}``."""
        return {"format": FORMAT, "target": self.target, "commit": self.commit,
                "old": _pins(self.old_spec), "new": _pins(self.new_spec),
                "toolchain": self.toolchain.to_dict(), "counts": self.counts(),
                "nodes": [n.to_dict() for n in self.nodes]}

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text (UTF-8 safe, sorted keys, two-space indent)."""
        return json.dumps(self.to_dict(), sort_keys=True, indent=2, ensure_ascii=False) + "\n"

    def to_markdown(self) -> str:
        """The report in Markdown for a pull request body: the pins, the toolchain, the
        counts and one table row per file. Every text that comes from a file or a Lean
        log is made one line, its ``|``, ``<``, ``>`` and backticks neutralised."""
        c = self.counts()
        old, new = _pins(self.old_spec), _pins(self.new_spec)
        lines = [f"## Drift report: `{self.target}`", "",
                 (f"Every merged file of the target at `{self.commit[:12]}`, re-elaborated "
                  "under the new pin (nothing merged is rewritten)."), "",
                 "| pin | before | after |", "|---|---|---|",
                 f"| Lean | `{old['lean_toolchain']}` | `{new['lean_toolchain']}` |",
                 f"| Mathlib | `{old['mathlib']}` | `{new['mathlib']}` |"]
        for name in sorted(set(old["packages"]) | set(new["packages"])):
            lines.append(f"| {_cell(name)} | `{old['packages'].get(name)}` | "
                         f"`{new['packages'].get(name)}` |")
        tc = self.toolchain
        lines += ["", "Toolchain: " + ("installed and matching the new pin"
                                       if tc.status == "pass" else
                                       f"**not checked** (`{tc.code}`): {_cell(tc.detail)}"),
                  "", (f"Files: {c['unchanged']} unchanged, {c['drift']} drift, "
                       f"{c['not-checked']} not checked."), "",
                  "| node | file | status | code | detail |", "|---|---|---|---|---|"]
        for n in self.nodes:
            for f in n.files:
                first = f.first
                lines.append(f"| `{n.node}` | `{PurePosixPath(f.path).name}` | {f.status} | "
                             + (f"`{first.code}`" if first and first.code else "") + " | "
                             + (_cell(first.detail) if first else "") + " |")
        if not self.nodes:
            lines.append("| (none) | | | | |")
        return "\n".join(lines) + "\n"


def _cell(text: str, limit: int = 300) -> str:
    """``text`` as one Markdown table cell: one line, at most ``limit`` characters, with
    nothing that closes the cell or opens markup."""
    flat = " ".join(text.split())[:limit]
    for a, b in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("|", "\\|"), ("`", "'")):
        flat = flat.replace(a, b)
    return flat


# --- the checks ---------------------------------------------------------------------------


def _fail(name: str, code: str | None, detail: str, line: int | None = None) -> Check:
    """A check that did not pass: ``not-checked`` for a code of :data:`NOT_CHECKED_CODES`,
    ``drift`` otherwise (an unknown failure is never a pass)."""
    code = code or "checker-failed"
    status: CheckStatus = "not-checked" if code in NOT_CHECKED_CODES else "drift"
    return Check(name, status, code, detail[-500:], line)


def _findings(name: str, found: Sequence[Diagnostic]) -> list[Check]:
    if not found:
        return [Check(name, "pass")]
    return [_fail(name, d.code, d.message, d.line) for d in found]


def screen_checks(stem: str, text: str, path: str) -> list[Check]:
    """The static screens over one merged file (no Lean): step 2's forbidden options and
    import-time screen for every file, plus, for a Statement, D-3 v3.28's statement
    commands and step 6's syntactic anti-echo layer (issue 12). One ``pass`` check when
    nothing is found, else one ``drift`` check per finding."""
    found = forbidden_option_findings(text, path)
    found += [d for d in import_time_findings(text, path) if d.code != "lean-lex-ambiguous"]
    if stem == "Statement":
        found += [d for d in statement_command_findings(text, path)
                  if d.code != "lean-lex-ambiguous"]
        found += answers.syntactic_findings(text, path)
    return _findings("screen", found)


def axiom_checks(axioms: Sequence[str], identities: Sequence[AxiomIdentity], sorry: bool,
                 native: Sequence[str], spec: m.GateSpec, waiver: bool) -> list[Check]:
    """Step 5's reading of one declaration's axioms under the new pin: ``sorry-used``;
    ``native-code-used`` unless the node holds ``waivers/native_decide.yaml`` (its
    sign-off is on the attestation it merged with); ``axiom-not-permitted``; and
    ``axiom-identity-mismatch`` where the new pin's axiom table (network/gate/axioms/)
    does not identify an allowed axiom, or lacks."""
    found: list[Diagnostic] = []
    natives = sorted(set(native) | {a for a in axioms if is_native_axiom(a)})
    if sorry or "sorryAx" in axioms:
        found.append(Diagnostic("sorry-used", "the declaration depends on sorryAx"))
    if natives and not waiver:
        found.append(Diagnostic("native-code-used", ", ".join(natives)))
    extra = sorted(a for a in axioms
                   if a not in set(spec.axioms) and a != "sorryAx" and a not in natives)
    if extra:
        found.append(Diagnostic("axiom-not-permitted", ", ".join(extra)))
    for problem in identity_problems(list(axioms), list(identities), list(spec.axioms),
                                     spec.lean_toolchain):
        found.append(Diagnostic("axiom-identity-mismatch", problem))
    return _findings("axioms", found)


def _compare_checks(name: str, cmp: CompareResult, decl: str, path: str, spec: m.GateSpec,
                    waiver: bool) -> list[Check]:
    """Step 4's reading of a comparison (the gate's own), then step 5's of its row."""
    step4 = _compare_step4(cmp, decl, path)
    if not step4.ok:
        return [_fail(name, d.code, d.message) for d in step4.diagnostics]
    row = next(t for t in cmp.theorems if t.name == decl)
    return [Check(name, "pass"), *axiom_checks(row.axioms, row.axiom_identities, row.sorry,
                                               row.native, spec, waiver)]


@dataclass
class _NodeRun:
    """What one node's re-elaboration needs: its workspace and modules by file stem."""

    tc: Toolchain
    sandbox: SandboxRunner
    record: SoundnessRecord | None
    node: Node
    paths: dict[str, str]
    modules: dict[str, str] = field(default_factory=dict)
    build_first: list[str] = field(default_factory=list)  # built with the Statement
    extra: dict[str, list[str]] = field(default_factory=dict)  # stem → modules built too
    relation: tuple[RelationKind, TermRef, TermRef] | None = None
    checks: dict[str, list[Check]] = field(default_factory=dict)

    @property
    def spec(self) -> m.GateSpec:
        return self.tc.spec

    def replay(self, ws: Workspace, module: str) -> Check:
        """The kernel replay of ``module``, judged as step 4 judges it (issue 37)."""
        rep = self.tc.replay(ws, [module], self.sandbox, self.spec.caps)
        refused = replay_refusal(replayed_kernels(self.spec, self.record), rep)
        return Check("kernel-replay", "pass") if refused is None else _fail(
            "kernel-replay", *refused)


def _sources(graph: Graph, t: Target, run: _NodeRun) -> list[Source]:
    """The node's check workspace: the target's defs, its Statement and Witness, its
    merged Proof with the merged proofs that proof imports (the gate's own plan,
    :func:`~network.gate.steps.plan.plan_workspace`), and its Relation with the statement
    it relates to; ``run.modules`` and ``run.relation`` filled."""
    node, nid, tid = run.node, run.node.id, t.id
    decl = node.meta.declaration
    if "Proof" in run.paths:
        proof = run.paths["Proof"]
        plan = plan_workspace(graph, {proof: graph.source.read(proof)},
                              Artifact(Kind.PROOF, tid, nid, [proof], proof))
        sources = list(plan.sources)
        assert plan.solution_module is not None
        run.modules["Proof"] = plan.solution_module
    else:
        sources = target_def_sources(graph, tid)
        for stem in ("Statement", "Witness"):
            if stem in run.paths:
                sources.append(node_source(tid, nid, stem, graph.source.read(run.paths[stem])))
    run.build_first = [ids.defs_module_name(tid, stem) for stem in sorted(t.defs)]
    for stem in ("Statement", "Witness"):
        if stem in run.paths:
            run.modules[stem] = ids.module_name(tid, nid, stem)
    if "Relation" in run.paths:
        rel = node_source(tid, nid, "Relation", graph.source.read(run.paths["Relation"]))
        sources.append(rel)
        run.modules["Relation"] = rel.module
        variant = node.meta.variant
        of = t.nodes.get(variant.of) if variant is not None else None
        if variant is not None and variant.relation != "related":
            if of is None or "Statement" not in of.files:
                run.checks["Relation"] = [Check("relation", "drift", "missing-file",
                                                f"the variant's {variant.of} has no "
                                                "Statement.lean")]
            else:
                of_src = node_source(tid, of.id, "Statement",
                                     graph.source.read(of.files["Statement"].path))
                if of_src.module not in {s.module for s in sources}:
                    sources.append(of_src)
                run.extra["Relation"] = [of_src.module]
                run.relation = relation_terms(variant.relation, TermRef(
                    run.modules["Statement"], decl), TermRef(of_src.module, of.meta.declaration))
    return sources


def _build(run: _NodeRun, ws: Workspace, stem: str) -> bool:
    """Build ``stem``'s module (with the defs for the Statement, with the related
    statement for a Relation); record the build and replay checks; True when both pass."""
    modules = [*(run.build_first if stem == "Statement" else []), *run.extra.get(stem, []),
               run.modules[stem]]
    built = run.tc.build(ws, modules, run.sandbox, run.spec.caps)
    if not built.ok:
        run.checks[stem].append(_fail("build", built.code or "lean-build-failed",
                                      built.log[-500:] or "the build failed"))
        return False
    run.checks[stem].append(Check("build", "pass"))
    replayed = run.replay(ws, run.modules[stem])
    run.checks[stem].append(replayed)
    return replayed.status == "pass"


def _statement(run: _NodeRun, ws: Workspace) -> None:
    """Step 6 over the statement: a finding META does not acknowledge is a drift (a hole,
    with no author to acknowledge, is noted as it is at the gate)."""
    meta = run.node.meta
    res = run.tc.hazards(ws, run.modules["Statement"], [meta.declaration],
                         list(run.spec.hazard_checkers), run.sandbox, run.spec.caps)
    if not res.ok:
        run.checks["Statement"].append(_fail("hazards", res.code, res.detail))
        return
    acked = {hazard_location_key(a.checker, a.location) for a in meta.acknowledged_hazards}
    found = [Diagnostic("hazard-found", f"{f.checker} at {f.location}: {f.message}", None,
                        f.line) for f in res.findings
             if hazard_location_key(f.checker, f.location) not in acked and meta.hole is None]
    run.checks["Statement"] += _findings("hazards", found)


def _witness(run: _NodeRun, ws: Workspace) -> None:
    """Step 7 and its axioms (step 5)."""
    decl = run.node.meta.declaration
    res = run.tc.check_witness(ws, run.modules["Statement"], decl, run.modules["Witness"],
                               witness_decl(decl), list(run.spec.axioms), run.sandbox,
                               run.spec.caps)
    if not res.ok:
        run.checks["Witness"].append(_fail("witness", res.code or "witness-failed",
                                           res.detail or "the witness does not check"))
        return
    run.checks["Witness"].append(Check("witness", "pass"))
    run.checks["Witness"] += axiom_checks(res.axioms, res.axiom_identities, False, (),
                                          run.spec, False)


def _proof(run: _NodeRun, ws: Workspace, waiver: bool) -> None:
    """Step 4's comparison of the merged proof with the statement, then step 5."""
    decl = run.node.meta.declaration
    cmp = run.tc.check_statement(ws, run.modules["Statement"], run.modules["Proof"], [decl],
                                 list(run.spec.axioms), run.sandbox, run.spec.caps)
    run.checks["Proof"] += _compare_checks("statement", cmp, decl, run.paths["Proof"],
                                           run.spec, waiver)


def _relation(run: _NodeRun, ws: Workspace) -> None:
    """D-30: a labelled variant's Relation.lean states its label (step 4), then step 5."""
    if run.relation is None:
        return
    kind, left, right = run.relation
    decl = relation_decl(run.node.meta.declaration)
    cmp = run.tc.check_relation(ws, kind, left, right, run.modules["Relation"], decl,
                                list(run.spec.axioms), run.sandbox, run.spec.caps)
    run.checks["Relation"] += _compare_checks("relation", cmp, decl, run.paths["Relation"],
                                              run.spec, False)


def _lean_checks(graph: Graph, t: Target, run: _NodeRun, work_dir: Path) -> None:
    """Every Lean check of one node (see the module docstring), into ``run.checks``."""
    for stem in run.paths:
        run.checks.setdefault(stem, [])
    try:  # a file the record lists that cannot be read; pins with no prebuilt packages
        sources = _sources(graph, t, run)
        ws = write_plan(work_dir, f"repin-{run.node.id}", run.spec, sources, run.tc)
    except LemmataError as exc:
        for stem in run.paths:
            run.checks[stem] = [_fail("workspace", exc.code, exc.detail)]
        return
    if not _build(run, ws, "Statement"):
        for stem in run.paths:
            if stem != "Statement":
                run.checks[stem].append(Check(
                    "build", "not-checked", "lean-build-failed",
                    "not built: the node's Statement.lean does not build and replay under "
                    "the new pin"))
        return
    _statement(run, ws)
    waiver = f"targets/{t.id}/nodes/{run.node.id}/waivers/native_decide.yaml" in graph.files
    for stem in ("Witness", "Proof", "Relation"):
        if stem not in run.paths or run.checks[stem] or not _build(run, ws, stem):
            continue  # absent, refused before any build (a Relation's missing statement), or
            # its build or replay drifted (recorded)
        if stem == "Witness":
            _witness(run, ws)
        elif stem == "Proof":
            _proof(run, ws, waiver)
        else:
            _relation(run, ws)


def _node_report(graph: Graph, t: Target, node: Node, tc: Toolchain, step1: Check,
                 sandbox: SandboxRunner, record: SoundnessRecord | None,
                 work_dir: Path) -> NodeReport:
    paths = {stem: node.files[stem].path for stem in LEAN_STEMS if stem in node.files}
    run = _NodeRun(tc, sandbox, record, node, paths)
    texts = {stem: graph.source.read(p).decode("utf-8", "replace") for stem, p in paths.items()}
    screens = {stem: screen_checks(stem, texts[stem], p) for stem, p in paths.items()}
    if step1.status != "pass":
        run.checks = {stem: [Check("toolchain", "not-checked", step1.code, step1.detail)]
                      for stem in paths}
    elif "Statement" in paths:
        _lean_checks(graph, t, run, work_dir)
    else:
        run.checks = {stem: [Check("build", "drift", "missing-file",
                                   "the node has no Statement.lean")] for stem in paths}
    # every other merged Lean file of the node (a Refutation.lean, a Vacuity.lean, a
    # partial's, reduction's or alternate's attempt) is one the report does not
    # re-elaborate yet: reported not checked, never passed over (fail closed)
    others = sorted({lf.path for stem, lf in node.files.items()
                     if stem not in LEAN_STEMS and lf.path.endswith(".lean")}
                    | {a.path for a in node.attempts if a.path.endswith(".lean")})
    return NodeReport(node.id, tuple(FileReport(paths[stem],
                                                tuple(screens[stem] + run.checks[stem]))
                                     for stem in paths) + tuple(
        FileReport(path, (Check("re-elaboration", "not-checked", "repin-not-checkable",
                                "the drift report does not re-elaborate this kind of "
                                "merged file yet"),)) for path in others))


def toolchain_check(tc: Toolchain) -> Check:
    """Step 1 for the new pin: ``pass`` when the toolchain found matches it, else
    ``not-checked`` with its code (``toolchain-missing`` where no Lean is installed)."""
    info = tc.describe()
    if info.ok:
        return Check("toolchain", "pass", None, info.lean_version or "")
    code = info.code or "toolchain-missing"
    return Check("toolchain", "not-checked" if code in NOT_CHECKED_CODES else "drift", code,
                 info.detail or "the toolchain is not usable")


def drift_report(repo_path: str | Path, commit: str, target: str, new_spec: m.GateSpec,
                 toolchain_source: ToolchainSource, sandbox: SandboxRunner, *,
                 work_dir: Path | None = None, record: SoundnessRecord | None = None,
                 graph: Graph | None = None) -> DriftReport:
    """Re-elaborate every merged file of ``target`` at ``commit`` under ``new_spec``'s pins
    and report, node by node and file by file, what answers otherwise (D-4 steps 2-7; D-9
    Detail; issue 37 re-pin). Nothing is written to the graph.

    Args:
        repo_path: the graph (a repository, or a folder of a work tree, as
            :func:`~network.record.read.loader.load_graph` reads it).
        commit: the revision whose graph is re-elaborated (a merged main commit).
        target: the target id.
        new_spec: the gate-spec after the re-pin (the pins under which everything runs).
        toolchain_source: a :class:`~network.gate.lean.toolchain.Toolchain`, or a callable
            giving one for a gate-spec (``detect_toolchain``); it is asked for
            ``new_spec``'s toolchain.
        sandbox: the sandbox every Lean call runs in.
        work_dir: where check workspaces are written (a fresh temporary folder under
            :func:`~network.gate.sandbox.scratch.scratch_base`, removed afterwards, when None).
        record: the soundness record whose kernel pins step 4's kernels are judged by
            (the shipped one when None).
        graph: the graph at ``commit``, when the caller has read it already.

    Returns:
        The :class:`DriftReport` (``commit`` as given; the caller resolves revisions).

    Raises:
        LemmataError: ``repin-target-unknown``; what ``load_graph`` raises
            (``validation-failed``, ``git-error``, ``not-a-graph``).
    """
    g = graph if graph is not None else load_graph(repo_path, commit=commit)
    t = g.targets.get(target)
    if t is None:
        raise LemmataError("repin-target-unknown", f"no target {target!r} at {commit}")
    tc = _resolve_toolchain(toolchain_source, new_spec)
    step1 = toolchain_check(tc)
    own = work_dir is None
    wd = Path(tempfile.mkdtemp(prefix="lemmata-repin-", dir=scratch_base())) if own \
        else work_dir
    assert wd is not None
    try:
        nodes = tuple(_node_report(g, t, node, tc, step1, sandbox, record, wd)
                      for _nid, node in sorted(t.nodes.items()))
    finally:
        if own:
            shutil.rmtree(wd, ignore_errors=True)
    return DriftReport(target, commit, t.gate_spec, new_spec, step1, nodes)
