"""The gate's judgment of a re-pin pull request (issue 37 "re-pin, the way out"; D-4 steps 1,
2 and 4; D-7 "never bumps mid-flight; exceptions require ... a recorded justification";
D-9 Detail: screens re-run whenever the Mathlib pin moves).

A re-pin (:data:`~network.gate.artifacts.Kind.REPIN`, classified by
:func:`~network.gate.repin_spec.repin_problem`) changes one file, a target's
``gate-spec.json``, and only its pins. Nothing of the contributor's is built: what the gate
must show is that the record means under the new pin what it meant under the old one. So
:func:`judge_repin` runs, in order:

* step 2: the findings of classification (``repin-not-alone``, ``role-not-permitted``
  where the pull request's author is no listed curator, the file's screens);
* step 4's pin finding, ``toolchain-known-unsound``, for the *new* pin (no Lean needed);
* step 1 for the new pin: the network commit pinned and the installed toolchain matching
  it, else ``toolchain-missing`` (never a pass);
* step 4: :func:`~network.gate.repin.drift_report` re-elaborates every merged file of the
  target under the new pin, through the one toolchain interface in the sandbox. A file
  that answers otherwise is ``repin-drift``; one that could not be checked is refused
  with the code it could not be checked for (fail closed). Only a report in which every
  file is ``unchanged`` passes.

Nothing merged is rewritten; the attestation records the steps and the findings name each
drifting file, as the pull request's drift report does.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from network.errors import define
from network.gate.artifacts import Artifact
from network.gate.repin import drift_report
from network.gate.result import Diagnostic, StepResult
from network.gate.steps.context import _Ctx, _fail, _resolve_toolchain, _Run, _slug
from network.gate.steps.step1_toolchain import _step1
from network.gate.steps.step4_kernel import known_unsound_result
from network.record import models as m
from network.record.read.loader import sha256_hex
from network.record.read.parse import parse_document

define("repin-drift", 4, 422,
       "Under the re-pin's new toolchain or Mathlib, a merged file of the target answers "
       "otherwise than it did when it merged (a build, kernel replay, statement, witness, "
       "relation, axiom or hazard check).",
       "Read the drift report in the pull request: re-pin to a toolchain and Mathlib under "
       "which every merged file still checks, or bring the record along first (a revision "
       "of the drifting statement, D-8). Nothing merged is rewritten by a re-pin.")


def new_spec_of(ctx: _Ctx, art: Artifact) -> tuple[m.GateSpec, str] | None:
    """The gate-spec the re-pin's head holds (classification validated it) and the SHA-256
    of its bytes, or None when its change cannot be found."""
    change = next((c for c in ctx.diff.changes if c.path == art.main and c.new_id), None)
    if change is None:
        return None
    data = ctx.diff.new_bytes(change)
    return m.GateSpec.model_validate(parse_document(art.main, data)), sha256_hex(data)


def judge_repin(ctx: _Ctx, run: _Run, step1_diff: list[Diagnostic],
                step2_findings: list[Diagnostic]) -> _Run:
    """Judge one re-pin artifact into ``run`` (steps ``[2, (4,) 1, 4]``; see the module
    docstring) and return it.

    Args:
        ctx: the gate run's context (base graph, diff, toolchain source, sandbox, work dir).
        run: the artifact's run, with no steps yet.
        step1_diff: step 1's findings from the diff (a submitted pin file).
        step2_findings: step 2's findings placed on this artifact.

    Returns:
        ``run``; its first failing step is the verdict's, and it passes only when the new
        pin is known sound and every merged file of the target is ``unchanged`` under it.
    """
    art = run.art
    ok2 = run.add(StepResult.from_findings(2, step2_findings))
    run.judged_spec = new_spec_of(ctx, art)
    if run.judged_spec is None:
        run.add(_fail(2, "path-not-permitted", "the re-pin's gate-spec.json is not in the "
                      "pull request's head", art.main))
        return run
    spec = run.judged_spec[0]
    unsound = known_unsound_result(spec)
    if unsound is not None:  # the new pin must be one no listed bug fools (issue 37)
        run.add(unsound)
    run.toolchain = _resolve_toolchain(ctx.toolchain, spec)
    res1, run.toolchain_hash = _step1(run.toolchain, spec, step1_diff)
    if not (run.add(res1) and ok2 and unsound is None):
        return run
    work = ctx.work_dir / _slug(art)
    work.mkdir(parents=True, exist_ok=True)
    report = drift_report(ctx.repo.workdir or ctx.repo.path, ctx.base_sha, art.target, spec,
                          run.toolchain, ctx.sandbox, work_dir=work, graph=ctx.base)
    findings: list[Diagnostic] = []
    for node in report.nodes:
        for f in node.files:
            first = f.first
            if first is None:
                continue
            where = f"{node.node}/{PurePosixPath(f.path).name}"
            if f.status == "drift":
                findings.append(Diagnostic("repin-drift", f"{where}: {first.name} answers "
                                           f"{first.code}: {first.detail}"[:500], f.path,
                                           first.line))
            else:  # not checked: fail closed with the reason it could not run
                findings.append(Diagnostic(first.code or "toolchain-missing",
                                           f"{where}: {first.name} not checked: "
                                           f"{first.detail}"[:500], f.path, first.line))
    run.add(StepResult.from_findings(4, findings))
    return run
