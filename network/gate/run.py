"""The gate runner: steps 0-9 over one pull request, fail-closed, in order (D-4, D-5, D-34).

:func:`run_gate` is the one entry point. The authoritative gate (``mode="authoritative"``),
the service's precheck and ``pregate.sh`` (``mode="precheck"``) all call it, so the three
invocations run the same code from the same pins (D-4 "Three invocations, one codebase").

Per artifact (D-2: a pull request may span nodes; the gate applies per node) it runs the
row of :data:`~network.gate.artifacts.STEP_PLAN` for the artifact's kind and stops at the
first failing step, with one exception (issue 9): step 2 needs no toolchain and runs
first, so its findings are reported whether or not Lean is installed; when it refuses,
steps 0 and 1 still run and are listed after it (``[2, 0, 1]``), so that one round names
everything to fix, and the verdict is step 2's ``fail`` (see ``_static_steps``):

0. precheck attestation (authoritative runs of building kinds only; ruling 7): bounced
   before any build when missing, stale, unsigned where required or for other bytes.
1. the toolchain: resolved from the target's gate-spec.json alone; a submitted pin file is
   refused; ``Toolchain.describe()`` must match the pin; with no toolchain the answer is
   ``toolchain-missing`` and never a pass.
2. paths, hashes and roles (:func:`network.gate.steps.step2.run_steps_1_2`).
3. the build, always through the sandbox runner handed in (D-4 step 3; the precheck's
   "ordinary build" is the same sandboxed build, DESIGN.md: nothing is elaborated outside
   the sandbox).
4. kernel replay and the declaration's type against the statement, in a second run that
   executes none of the contributor's code (v3.16, v3.27); for a partial or reduction also
   the holes, their labels (D-12 v3.44) and the offload rule (D-12, v3.21; ruling 13); for
   a counterexample (``<decl>.refutation : ¬P``), a vacuity certificate (``<decl>.vacuity :
   ¬∃ binders, hyps``) or a labelled variant's Relation.lean (``<variant decl>.relation``:
   resolves V → R, partial R → V, refutes V → ¬R) the declaration against the type built
   from the statements' declarations (:meth:`~network.gate.lean.toolchain.Toolchain.
   check_relation`; D-12 #2/#3, D-30).
5. axioms: exactly the gate-spec's allowlist; ``sorryAx`` refused except as a partial's
   holes; compiler-trusting axioms only under ``waivers/native_decide.yaml`` plus a
   reviewer's sign-off, flagged on the attestation (D-4 Detail).
6. hazards over the statement, findings matched against META.yaml's
   ``acknowledged_hazards`` (see :func:`hazard_location_key` for the one location format);
   and the anti-echo check of a proposed statement's filled ``answer(…)``
   (:mod:`network.gate.lean.answers`, issue 12): its syntactic layer beside step 2, with no
   Lean, its definitional layer here through ``defeq`` against the plan's answer probe.
7. the non-vacuity witness (and every witness a route carries, D-29 v3.24); a vacuity
   certificate, which proves none exists, passes with ``witness-not-applicable``.
8. declared dependencies: the nodes the kernel term uses against deps, lemmas and use
   lines (D-3 v3.25, D-4 v3.25).
9. statement review (D-4 v3.11/v3.15/v3.20/v3.39; ruling 5): asked only of an artifact
   that would settle the target while its root is not :func:`~network.record.derive.
   root_vouched`; without an approving non-author review the verdict is ``held``. The
   review is the forge's, or a merged, signed review record on the base graph naming
   exactly this artifact's bytes (:mod:`network.gate.records.proof_reviews`).

Each step is a module of :mod:`network.gate.steps` (``step0_precheck`` … ``step9_review``);
this module keeps the plan per artifact kind (``_judge``) and the loop (:func:`run_gate`),
and re-exports every name the steps hold (issue 17).

Record-only kinds (ruling 6) run step 2 alone: no Lean, no precheck. A re-pin of a
target's gate-spec (issue 37) builds nothing of the contributor's: steps 2, 1 and 4 re-run
the drift report under the new pin (:mod:`network.gate.repin_judge`). Every artifact yields
one attestation (D-5, D-34), signed with the gate key when one is given; a precheck run
yields a :class:`~network.record.models.PrecheckAttestation` instead.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import pygit2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import ids
from network.errors import LemmataError, define
from network.gate.artifacts import REVIEW_LEAN_KINDS, Artifact, Kind
from network.gate.diff import diff_commits
from network.gate.disclosure import declared_in_files
from network.gate.disclosure import resolve as resolve_disclosure
from network.gate.repin_judge import judge_repin
from network.gate.result import Diagnostic, StepResult
from network.gate.review_judge import judge_review_lean
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.scratch import scratch_base
from network.gate.steps.context import (
    _CLAIMING,
    _NEGATING,
    _ROUTES,
    _SETTLING,
    _SOLUTION_STEM,
    Mode,
    Review,
    ToolchainSource,
    _artifact_hashes,
    _Ctx,
    _fail,
    _meta_for,
    _resolve_toolchain,
    _Run,
    _slug,
    _unquote,
)
from network.gate.steps.decls import (
    hole_decl,
    hole_statement_text,
    refutation_decl,
    relation_decl,
    relation_terms,
    vacuity_decl,
    witness_decl,
)
from network.gate.steps.outcome import (
    EXIT_CODES,
    EXIT_INTERNAL,
    ArtifactRun,
    GateOutcome,
    Verdict,
    _finish,
    _verdict,
    attestation_files,
    attestation_path,
)
from network.gate.steps.plan import (
    WorkPlan,
    _proof_import_closure,
    add_route_statements,
    ancestors_of,
    plan_workspace,
    ws_defs,
)
from network.gate.steps.static_steps import _answer_echo_findings, _static_steps
from network.gate.steps.step0_precheck import _ssh_verifier, _step0
from network.gate.steps.step1_toolchain import _step1
from network.gate.steps.step2 import run_steps_1_2
from network.gate.steps.step3_build import _write, build_two_domains, write_plan
from network.gate.steps.step4_kernel import _compare_step4, _offload_findings, _route_step4, _step4
from network.gate.steps.step5_axioms import _step5
from network.gate.steps.step6_hazards import _step6, hazard_location_key
from network.gate.steps.step7_witness import _carried_witnesses, _step7
from network.gate.steps.step8_dependencies import _step8
from network.gate.steps.step9_review import (
    _answers_a_question,
    artifact_review,
    settles_target,
    step9_basis,
)
from network.record import models as m
from network.record.read import blob_cache
from network.record.read.loader import Graph, load_graph
from network.record.read.scoped import ScopeExceeded, load_scoped, scope_of

_LOG = logging.getLogger(__name__)

define("submitter-invalid", None, 422,
       "The submitter the gate was given is not a pseudonym ([A-Za-z0-9][A-Za-z0-9_.-]{0,38}).",
       "Pass the pull request's ledger identity as it is recorded (the forge's author "
       "binding), with no spaces or line breaks.")
#: a ledger identity as models.Pseudonym writes it
_PSEUDONYM_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,38}")


define("gate-internal-error", None, 500, "The gate failed for a reason that is a bug.",
       "Report it with the log; the pull request is neither merged nor refused.")


def commit_date(repo: pygit2.Repository | str | Path, rev: str) -> str:
    """A commit's committer date as ``YYYY-MM-DDTHH:MM:SSZ`` (UTC) (ruling 2).

    Raises:
        LemmataError: ``git-error`` when ``rev`` does not resolve.
    """
    r = repo if isinstance(repo, pygit2.Repository) else pygit2.Repository(str(repo))
    try:
        c = r.revparse_single(rev).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise LemmataError("git-error", f"cannot resolve {rev!r}: {exc}") from exc
    return datetime.fromtimestamp(c.commit_time, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _judge(ctx: _Ctx, art: Artifact, step1_diff: list[Diagnostic],
           step2_findings: list[Diagnostic]) -> _Run:
    run = _Run(art)
    plan_steps = art.plan.steps
    builds = art.plan.builds
    t = ctx.base.targets.get(art.target)
    if t is None:
        run.add(StepResult.refused(2, step2_findings or [Diagnostic("unknown-target",
                                                                   art.target)]))
        return run
    spec, spec_sha = t.gate_spec, t.gate_spec_sha256
    if art.kind is Kind.REPIN:  # issue 37: the record re-elaborated under the new pin
        return judge_repin(ctx, run, step1_diff, step2_findings)
    if art.kind in REVIEW_LEAN_KINDS:  # D-9 v3.39: a candidate's or exhibit's Lean
        return judge_review_lean(ctx, run, step1_diff, step2_findings)
    if not builds:  # record-only kinds: schema, signature and role checks (ruling 6)
        run.add(StepResult.from_findings(2, step1_diff + step2_findings))
        return run
    if not _static_steps(ctx, run, spec, spec_sha, step1_diff, step2_findings):
        return run
    run.review = artifact_review(ctx.base, ctx.diff, art, ctx.submitter, ctx.review)
    tc = run.toolchain
    assert tc is not None
    meta = _meta_for(ctx, art)
    if meta is None or art.node is None:
        run.add(_fail(3, "missing-file", "the node's META.yaml cannot be read", art.main))
        return run
    caps = spec.caps
    try:
        head_bytes = {c.path: ctx.diff.new_bytes(c) for c in ctx.diff.changes
                      if c.path in art.paths and c.new_id is not None}
        plan = plan_workspace(ctx.base, head_bytes, art)
        built, setup, check = build_two_domains(tc, ctx.sandbox, ctx.work_dir, _slug(art),
                                                spec, plan.sources, plan.contributed, caps)
    except LemmataError as exc:
        step = 1 if exc.code == "toolchain-mismatch" else 3
        run.add(_fail(step, exc.code, exc.detail, exc.path))
        return run
    run.build_errors = tuple(msg.data for msg in built.messages if msg.severity == "error")
    if not run.add(StepResult.passed(3) if built.ok else
                   _fail(3, built.code or "lean-build-failed",
                         (built.log or "build failed")[-500:], art.main)):
        return run
    if check is None:  # the check workspace could not be set up: no check runs
        assert setup is not None
        run.add(StepResult.refused(4, [Diagnostic(d.code, d.message, art.main)
                                       for d in setup.diagnostics]))
        return run
    ws = check
    if not run.add(_step4(ctx, run, tc, ws, plan, caps, meta)):
        return run
    if plan.solution_module is None and plan.witness_module is not None:
        run.witness = tc.check_witness(ws, plan.statement_module, plan.decl,
                                       plan.witness_module, witness_decl(plan.decl),
                                       list(spec.axioms), ctx.sandbox, caps)
    if not run.add(_step5(ctx, run, spec, meta)):
        return run
    stmt_path = f"targets/{art.target}/nodes/{art.node}/Statement.lean"
    if not run.add(_step6(ctx, tc, ws, plan, caps, meta, stmt_path)):
        return run
    if not run.add(_step7(ctx, run, tc, ws, plan, caps, spec)):
        return run
    if not run.add(_step8(ctx, run, tc, ws, plan, caps, meta)):
        return run
    if ctx.mode == "authoritative" and 9 in plan_steps:
        run.step9, run.held = step9_basis(ctx.base, art, ctx.submitter, run.review)
        run.add(StepResult.passed(9))
    return run


def _placed(diag: Diagnostic, art: Artifact) -> bool:
    if diag.path is None:
        return False
    if diag.path in art.paths:
        return True
    return art.node is not None and diag.path.startswith(
        f"targets/{art.target}/nodes/{art.node}/")


def _orphan_artifact(unplaced: list[Diagnostic], base: Graph) -> Artifact | None:
    """An artifact to carry findings that no artifact holds, so the run is published: on
    the target (and node) the first finding's path names, else on the graph's first
    target in id order (a root-level path such as a ``..`` entry names none; the
    attestation still publishes the refusal, issue 9). None only for a graph with no
    target."""
    for d in unplaced:
        parts = (d.path or "").split("/")
        if len(parts) >= 2 and parts[0] == "targets" and parts[1] in base.targets:
            node = parts[3] if len(parts) >= 5 and parts[2] == "nodes" else "root"
            try:
                ids.check_node_id(node)
            except LemmataError:
                node = "root"
            return Artifact(Kind.PROOF, parts[1], node, [d.path or ""], d.path or "")
    if base.targets:
        return Artifact(Kind.PROOF, min(base.targets), "root", [], "")
    return None


def run_gate(
    repo: str | Path,
    base: str,
    head: str,
    *,
    toolchain: ToolchainSource,
    sandbox: SandboxRunner,
    precheck_raw: str | None = None,
    submitter: str | None = None,
    gate_key: Ed25519PrivateKey | None = None,
    key_id: str = "gate",
    runner: Literal["local", "hosted"] = "local",
    mode: Mode = "authoritative",
    review: Review | None = None,
    disclosure: m.Disclosure | None = None,
    work_dir: Path | None = None,
    recorded_step0: Mapping[str, tuple[StepResult, m.PrecheckConsumed | None]] | None = None,
    base_graph: Graph | None = None,
) -> GateOutcome:
    """Run the gate over the pull request ``base..head`` of the graph repository ``repo``.

    Args:
        repo: the graph repository (bare or not; the graph is its root).
        base: the main commit the pull request is judged against (40 hex or a revision);
            the changes are those of ``merge-base(base, head)..head``, judged against the
            graph at ``base``.
        head: the pull request's head commit.
        toolchain: a :class:`~network.gate.lean.toolchain.Toolchain` whose ``spec`` must be the
            target's gate-spec, or a callable ``spec -> Toolchain`` (product code passes
            :func:`~network.gate.lean.detect.detect_toolchain`; tests the recorded stand-in).
        sandbox: the step-3 sandbox every Lean call runs in
            (:class:`~network.gate.sandbox.sandbox.Sandbox`).
        precheck_raw: the pull request's precheck attestation JSON (ruling 7), or None.
        submitter: the pseudonym credited (the commit author on the forge).
        gate_key, key_id: the gate's Ed25519 key; None leaves attestations unsigned.
        runner: the attestation's runner class (masked in reproduction, D-34).
        mode: ``authoritative`` (steps 0-9) or ``precheck`` (steps 1-8, D-27/D-28).
        review: the approving review, if any (step 9 and the native_decide sign-off).
        disclosure: model and tooling as the operator declared them in the pull request
            body (D-23 v3.37). A record that declares its own (a postmortem's
            ``disclosure``, an approach/v2 record's ``model_and_tooling``) is attested with
            its own; where both are given and differ, step 2 refuses it with
            ``disclosure-disagrees`` (:mod:`network.gate.disclosure`, issue 35 item 3).
        work_dir: where workspaces are written (a fresh temporary folder when None,
            removed afterwards).
        recorded_step0: ``"<target>/<node>" -> (step-0 result, consumed)`` to reuse
            instead of re-deriving step 0 (``reproduce.sh``: D-5 replays steps 1-8).
        base_graph: the graph already loaded at ``base`` (a queue or service judging many
            submissions against one main reuses it); ignored unless its ``commit`` is
            ``base``'s. Without it the run judges on the scoped base graph of the targets
            the pull request changes (:func:`network.record.read.scoped.load_scoped`) and, when
            the judgment reads past that scope or a pull request changes a path outside
            every target, on the whole graph: the outcome and attestation bytes are the
            whole graph's either way (tests/test_gate_scoped.py). Ruling (issue 17): a
            scoped run validates the records it reads (an invalid one raises
            ``validation-failed`` as before) and not the other targets' nodes or their
            attestations: main is validated whole by the post-merge job, and a pull
            request is judged against its own targets and the shared records.

    Returns:
        :class:`GateOutcome`; its ``exit_code`` is 0 merge, 1 refused, 2 held.

    Raises:
        LemmataError: ``submitter-invalid`` for a submitter that is no pseudonym;
            ``git-error`` when a commit does not resolve; ``not-a-graph`` or
            ``validation-failed`` when the base graph (the part it reads) cannot be
            loaded. Anything else
            escaping is a bug (exit 3).

    Implements D-4 steps 0-9, D-5, D-34, rulings 2, 5, 6, 7.
    """
    if submitter is not None and not _PSEUDONYM_RE.fullmatch(submitter):
        raise LemmataError("submitter-invalid", f"{submitter[:80]!r} is not a pseudonym")
    r = pygit2.Repository(str(repo))
    try:
        base_sha = str(r.revparse_single(base).peel(pygit2.Commit).id)
        head_sha = str(r.revparse_single(head).peel(pygit2.Commit).id)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise LemmataError("git-error", f"cannot resolve {base!r}..{head!r}: {exc}") from exc
    mb = r.merge_base(pygit2.Oid(hex=base_sha), pygit2.Oid(hex=head_sha))
    from_sha = str(mb) if mb is not None else base_sha
    diff = diff_commits(repo, from_sha, head_sha)
    head_date = commit_date(r, head_sha)

    def judge(graph: Graph) -> GateOutcome:
        own_tmp = work_dir is None
        wd = (Path(tempfile.mkdtemp(prefix="lemmata-gate-", dir=scratch_base()))
              if work_dir is None else work_dir)
        try:
            ctx = _Ctx(r, diff, graph, head_date, submitter, mode, toolchain, sandbox,
                       review, precheck_raw, wd, recorded_step0, base_sha)
            runs = _judge_all(ctx, gate_key=gate_key, key_id=key_id, runner=runner,
                              disclosure=disclosure)
        finally:
            if own_tmp:
                shutil.rmtree(wd, ignore_errors=True)
        verdicts = {x.verdict for x in runs[0]}
        verdict: Verdict = ("fail" if "fail" in verdicts or not runs[0] else
                            "bounced" if "bounced" in verdicts else
                            "held" if "held" in verdicts else "pass")
        return GateOutcome(mode, base_sha, head_sha, head_date, verdict, tuple(runs[0]),
                           tuple(runs[1]))

    if base_graph is not None and base_graph.commit == base_sha:
        return judge(base_graph)
    cache = blob_cache.configured()
    scope = scope_of(c.path for c in diff.changes)
    scoped = load_scoped(repo, base_sha, scope, cache=cache) if scope is not None else None
    if scoped is not None:
        before = _entries(work_dir)
        try:
            return judge(scoped)
        except ScopeExceeded as exc:
            _LOG.info("the scoped base graph left out %s: judging on the whole graph", exc)
            _remove_new(work_dir, before)
    return judge(load_graph(repo, commit=base_sha, cache=cache))


def _entries(work_dir: Path | None) -> frozenset[Path] | None:
    """What the caller's ``work_dir`` holds now (None for the run's own folder)."""
    if work_dir is None:
        return None
    return frozenset(work_dir.iterdir()) if work_dir.is_dir() else frozenset()


def _remove_new(work_dir: Path | None, before: frozenset[Path] | None) -> None:
    """Remove what a run given up for the whole graph wrote into the caller's
    ``work_dir`` (only entries that were not there before it), so the second run writes
    the same workspaces at the same paths."""
    if work_dir is None or before is None or not work_dir.is_dir():
        return
    for entry in work_dir.iterdir():
        if entry in before:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _judge_all(ctx: _Ctx, *, gate_key: Ed25519PrivateKey | None, key_id: str,
               runner: Literal["local", "hosted"], disclosure: m.Disclosure | None
               ) -> tuple[list[ArtifactRun], list[Diagnostic]]:
    """Steps 0-9 over every artifact of ``ctx.diff`` against ``ctx.base``: the runs (one
    per artifact, or the orphan run carrying findings no artifact holds) and the
    findings no artifact holds.

    Raises:
        ScopeExceeded: ``ctx.base`` is scoped and the run read past its scope.
    """
    s12 = run_steps_1_2(ctx.diff, ctx.base, ctx.submitter, ctx.head_date)
    arts = s12.artifacts
    s1 = list(s12.step1.diagnostics)
    s2 = list(s12.step2.diagnostics)
    unplaced = [d for d in s1 + s2 if not any(_placed(d, a) for a in arts)]
    runs_in: list[tuple[Artifact, list[Diagnostic], list[Diagnostic]]] = []
    for art in arts:
        mine1 = [d for d in s1 if d in unplaced or _placed(d, art)]
        mine2 = [d for d in s2 if d in unplaced or _placed(d, art)]
        runs_in.append((art, mine1, mine2))
    if not arts:
        orphan = _orphan_artifact(unplaced or [Diagnostic("path-not-permitted",
                                                          "the pull request changes "
                                                          "nothing")], ctx.base)
        if orphan is not None:
            findings = unplaced or [Diagnostic("path-not-permitted", "no artifact")]
            runs_in.append((orphan, [], findings))
    runs: list[ArtifactRun] = []
    for art, mine1, mine2 in runs_in:
        # the record's own declaration wins; the body's stands for the rest; two that
        # differ are refused at step 2, neither rewritten (D-23 v3.37, issue 35 item 3)
        own, disagrees = resolve_disclosure(
            disclosure, declared_in_files(ctx.diff, art) if arts else None, path=art.main)
        if disagrees is not None:
            mine2 = [*mine2, disagrees]
        run = _judge(ctx, art, mine1, mine2) if arts else _Run(
            art, [StepResult.refused(2, mine2)], orphan=True)
        runs.append(_finish(ctx, run, gate_key=gate_key, key_id=key_id, runner=runner,
                            disclosure=own))
    return runs, unplaced


#: every name this module held before the steps moved to network.gate.steps
__all__ = [
    'EXIT_CODES',
    'EXIT_INTERNAL',
    '_CLAIMING',
    '_NEGATING',
    '_PSEUDONYM_RE',
    '_ROUTES',
    '_SETTLING',
    '_SOLUTION_STEM',
    'ArtifactRun',
    'GateOutcome',
    'Mode',
    'Review',
    'ToolchainSource',
    'Verdict',
    'WorkPlan',
    '_Ctx',
    '_Run',
    '_answer_echo_findings',
    '_answers_a_question',
    '_artifact_hashes',
    '_carried_witnesses',
    '_compare_step4',
    '_fail',
    '_finish',
    '_judge',
    '_meta_for',
    '_offload_findings',
    '_orphan_artifact',
    '_placed',
    '_proof_import_closure',
    '_resolve_toolchain',
    '_route_step4',
    '_slug',
    '_ssh_verifier',
    '_static_steps',
    '_step0',
    '_step1',
    '_step4',
    '_step5',
    '_step6',
    '_step7',
    '_step8',
    '_unquote',
    '_verdict',
    '_write',
    'add_route_statements',
    'ancestors_of',
    'artifact_review',
    'attestation_files',
    'attestation_path',
    'build_two_domains',
    'commit_date',
    'hazard_location_key',
    'hole_decl',
    'hole_statement_text',
    'plan_workspace',
    'refutation_decl',
    'relation_decl',
    'relation_terms',
    'run_gate',
    'settles_target',
    'step9_basis',
    'vacuity_decl',
    'witness_decl',
    'write_plan',
    'ws_defs',
]
