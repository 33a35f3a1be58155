"""What a gate run returns and signs (D-5, D-34; STYLE.md rule 5): :class:`ArtifactRun`
per artifact, :class:`GateOutcome` per pull request, the attestation (or precheck
attestation) serialized from the steps' :class:`~network.gate.result.StepResult` objects,
and where attestations land on main (ruling 8).

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network.gate import attestation as A
from network.gate.artifacts import Artifact
from network.gate.lean.toolchain import (
    Hole,
)
from network.gate.result import Diagnostic, StepResult
from network.gate.steps.context import Mode, _artifact_hashes, _Ctx, _meta_for, _Run
from network.record import models as m

Verdict = Literal["pass", "fail", "held", "bounced"]

#: exit codes of ``lemmata gate run`` (STYLE.md rule 1; held is the third outcome, ruling 5)
EXIT_CODES: dict[str, int] = {"pass": 0, "fail": 1, "bounced": 1, "held": 2}
EXIT_INTERNAL = 3


@dataclass(frozen=True)
class ArtifactRun:
    """One artifact's gate run.

    Attributes:
        artifact: what was judged.
        steps: every step result in order, ending at the first failing step.
        verdict: pass, fail, held or bounced (D-34).
        attestation: the authoritative attestation (None in precheck mode).
        precheck: the precheck attestation (precheck mode only; new runs write
            precheck-attestation/v2, whose verdict is :func:`~network.gate.attestation.
            precheck_verdict`'s, issue 35).
        holes: the holes of a partial or reduction, as extracted at step 4.
        build_messages: error messages of the build, for a precheck record's goal state.
    """

    artifact: Artifact
    steps: tuple[StepResult, ...]
    verdict: Verdict
    attestation: m.Attestation | None = None
    precheck: m.PrecheckAttestation | None = None
    holes: tuple[Hole, ...] = ()
    build_messages: tuple[str, ...] = ()

    @property
    def first_failing(self) -> StepResult | None:
        """The step that refused, or None."""
        return next((s for s in self.steps if not s.ok), None)


@dataclass(frozen=True)
class GateOutcome:
    """A whole pull request's gate run (D-4).

    Attributes:
        mode: authoritative or precheck.
        base, head: resolved 40-hex commits.
        head_date: the head commit's committer date, ISO UTC (ruling 2).
        verdict: fail when any artifact failed, else bounced when any bounced, else held
            when any waits on step 9, else pass. A pull request with no artifact at all
            fails.
        runs: one per artifact.
        unplaced: findings on paths no artifact holds (they also refuse the artifacts).
    """

    mode: Mode
    base: str
    head: str
    head_date: str
    verdict: Verdict
    runs: tuple[ArtifactRun, ...]
    unplaced: tuple[Diagnostic, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 merge, 1 refused (fail or bounced), 2 held (``lemmata gate run``)."""
        return EXIT_CODES[self.verdict]

    @property
    def attestations(self) -> list[m.Attestation]:
        """Every authoritative attestation, one per artifact, in artifact order."""
        return [r.attestation for r in self.runs if r.attestation is not None]

    @property
    def precheck_attestations(self) -> list[m.PrecheckAttestation]:
        """Every precheck attestation (precheck mode), one per artifact."""
        return [r.precheck for r in self.runs if r.precheck is not None]

    def to_dict(self) -> dict[str, Any]:
        """JSON verdicts for people and agents (``pregate.sh`` prints this, D-27)."""
        return {
            "mode": self.mode, "base": self.base, "head": self.head, "verdict": self.verdict,
            "exit_code": self.exit_code,
            "unplaced": [d.to_dict() for d in self.unplaced],
            "artifacts": [{
                "kind": r.artifact.kind.value, "target": r.artifact.target,
                "node": r.artifact.node, "paths": r.artifact.paths, "verdict": r.verdict,
                "first_failing_step": r.first_failing.step if r.first_failing else None,
                "code": r.first_failing.code if r.first_failing else None,
                "steps": [s.to_record().model_dump() for s in r.steps],
                "holes": [{"index": h.index, "name": h.name, "statement": h.statement}
                          for h in r.holes],
            } for r in self.runs],
        }


def _verdict(steps: Sequence[StepResult], held: bool) -> Verdict:
    v, _ = A.verdict_of(steps, held)
    return v  # type: ignore[return-value]


def _finish(ctx: _Ctx, run: _Run, *, gate_key: Ed25519PrivateKey | None, key_id: str,
            runner: str, disclosure: m.Disclosure | None) -> ArtifactRun:
    art = run.art
    verdict = _verdict(run.steps, run.held)
    t = ctx.base.targets.get(art.target)
    meta = _meta_for(ctx, art)
    statement_hash = meta.statement_hash if meta is not None else None
    artifacts = _artifact_hashes(ctx.diff, art)
    first = next((s for s in run.steps if not s.ok), None)
    elaboration = None
    if first is not None and first.step >= 3 and run.build_errors:
        elaboration = "\n".join(run.build_errors)[:100_000]
    node = art.node or "root"
    # a re-pin is judged under its new gate-spec, and its attestation says so (issue 37)
    judged, judged_sha = run.judged_spec or ((t.gate_spec, t.gate_spec_sha256) if t else (
        m.GateSpec(lean_toolchain="leanprover/lean4:v0.0.0"), "0" * 64))
    if ctx.mode == "precheck":
        spec_sha = judged_sha
        pre = m.PrecheckAttestationV2(  # v2: toolchain-missing is its own verdict (D-28)
            graph_id=ctx.base.policy.graph_id, target=art.target, node=node,
            artifact_kind="unplaced" if run.orphan else art.kind.value, artifacts=artifacts,
            statement_hash=statement_hash,
            gate_spec_sha256=spec_sha,
            toolchain=judged.lean_toolchain if t else "unknown",
            verdict=A.precheck_verdict(run.steps, verdict),
            first_failing_step=first.step if first else None,
            steps=[s.to_record() for s in run.steps], submitter=ctx.submitter,
            date=ctx.head_date)
        return ArtifactRun(art, tuple(run.steps), verdict, precheck=pre, holes=run.holes,
                           build_messages=run.build_errors)
    spec = judged
    att = A.build_attestation(
        graph_id=ctx.base.policy.graph_id, target=art.target, node=node,
        statement_hash=statement_hash,
        artifact_kind="unplaced" if run.orphan else art.kind.value, artifacts=artifacts,
        spec=spec, gate_spec_sha256=judged_sha,
        toolchain_hash=run.toolchain_hash, base_commit=ctx.base_sha,
        head_commit=ctx.diff.head, graph_commit=ctx.base_sha, head_date=ctx.head_date,
        steps=run.steps, step9=run.step9 or (m.Step9(basis="not-applicable")
                                             if not art.plan.builds else None),
        held=run.held, submitter=ctx.submitter, disclosure=disclosure,
        precheck=run.consumed, waivers=run.waivers,
        elaboration_state=elaboration, runner=runner,
        kernels=[m.KernelRecord(name=k.name, version=k.version, verdict=k.verdict)
                 for k in run.kernels] if run.kernels else None)
    if gate_key is not None:
        att = A.sign_attestation(att, gate_key, key_id)
    return ArtifactRun(art, tuple(run.steps), verdict, attestation=att, holes=run.holes,
                       build_messages=run.build_errors)


def attestation_path(att: m.Attestation) -> str:
    """Where an attestation lands on main: ``attestations/<id>.json`` (ruling 8)."""
    return f"attestations/{A.attestation_id(att)}.json"


def attestation_files(outcome: GateOutcome) -> dict[str, bytes]:
    """The files that publish an outcome's attestations (ruling 8), path → bytes."""
    return {attestation_path(a): A.attestation_bytes(a) for a in outcome.attestations}
