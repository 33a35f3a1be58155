"""``pregate.sh`` and ``reproduce.sh``: the same gate code run by a contributor or anyone
(D-4 "Three invocations, one codebase", D-5, D-27, D-34).

* :func:`pregate` runs steps 1-2 and 4-8 (with the sandboxed build standing in for step 3)
  on a local checkout, returns JSON verdicts and the precheck attestations the
  authoritative gate consumes; ``sign_with`` signs them with the operator's SSH key
  (sshsig, D-4); ``record`` appends a precheck record (D-34) per artifact.
* :func:`reproduce` re-runs steps 1-8 for a published attestation and compares the two
  with runner, merge_commit and signature masked (D-5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from network import signing
from network.gate import attestation as A
from network.gate.records.references import precheck_key
from network.gate.result import Diagnostic, StepResult
from network.gate.run import ArtifactRun, GateOutcome, Review, ToolchainSource, run_gate
from network.gate.sandbox.sandbox import SandboxRunner
from network.record import models as m
from network.record.read.loader import sha256_hex


@dataclass
class PregateResult:
    """What ``pregate.sh`` prints.

    Attributes:
        outcome: the precheck-mode gate outcome.
        attestations: the precheck attestations, signed when asked.
        recorded: graph paths of precheck records written (``--record``).
    """

    outcome: GateOutcome
    attestations: list[m.PrecheckAttestation]
    recorded: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the verdicts, the attestations and the fenced blocks to paste."""
        return {**self.outcome.to_dict(),
                "precheck_attestations": [a.model_dump(by_alias=True, exclude_none=True)
                                          for a in self.attestations],
                "pull_request_body_blocks": [A.precheck_block(a) for a in self.attestations],
                "recorded": self.recorded}


def precheck_record(run: ArtifactRun) -> tuple[str, m.PrecheckRecord] | None:
    """The D-34 precheck record of one artifact's precheck and its graph path
    ``nodes/<id>/attempts/precheck/<hash>.json``, where ``hash`` is the SHA-256 of
    ``statement hash, goal-state hash, first failing step`` (the deduplication key). The
    terminal goal state is the build's first error message (Lean's own text, kept as a
    diagnostic). None when the statement hash is unknown, or when the run checked nothing
    (``precheck-toolchain-missing``, issue 35: no attempt died, so there is nothing to
    record; D-28)."""
    att = run.precheck
    if att is None or att.statement_hash is None or att.verdict == m.PRECHECK_TOOLCHAIN_MISSING:
        return None
    goal = run.build_messages[0] if run.build_messages else None
    goal_sha = sha256_hex(goal.encode()) if goal else None
    first = att.first_failing_step
    key = precheck_key(att.statement_hash, goal_sha, first)
    rec = m.PrecheckRecord(target=att.target, node=att.node,
                           statement_hash=att.statement_hash, verdict=att.verdict,
                           first_failing_step=first, goal_state_sha256=goal_sha,
                           terminal_goal_state=goal, steps=att.steps,
                           toolchain=att.toolchain, date=att.date)
    return f"targets/{att.target}/nodes/{att.node}/attempts/precheck/{key}.json", rec


def pregate(repo: str | Path, base: str, head: str, *, toolchain: ToolchainSource,
            sandbox: SandboxRunner, submitter: str | None = None,
            sign_with: Path | None = None, signer: str | None = None,
            record_into: Path | None = None) -> PregateResult:
    """Run the precheck (D-27) over ``base..head`` of the checkout ``repo``.

    Args:
        repo: the graph checkout (a git repository; commit the change first).
        base, head: revisions: the main the change will be submitted against, and the
            change.
        toolchain, sandbox: as for :func:`~network.gate.run.run_gate`.
        submitter: the operator's pseudonym.
        sign_with: an SSH private key; signs every attestation (kind ``ssh``, D-4).
        signer: the pseudonym signing (defaults to ``submitter``).
        record_into: the work tree to append precheck records to (``--record``); a
            record already present (same deduplication key) is not written again.

    Raises:
        LemmataError: ``git-error``; ``bad-signature`` when ssh-keygen refuses to sign.
    """
    out = run_gate(repo, base, head, toolchain=toolchain, sandbox=sandbox, mode="precheck",
                   submitter=submitter)
    atts = out.precheck_attestations
    if sign_with is not None:
        who = signer or submitter or "operator"
        atts = [a.model_copy(update={"signature": signing.sign_ssh(a, sign_with, who)})
                for a in atts]
    res = PregateResult(out, atts)
    if record_into is not None:
        for run in out.runs:
            got = precheck_record(run)
            if got is None:
                continue
            path, rec = got
            full = Path(record_into) / path
            if full.exists():
                continue
            full.parent.mkdir(parents=True, exist_ok=True)
            full.write_text(rec.model_dump_json(by_alias=True, exclude_none=True, indent=2)
                            + "\n", "utf-8")
            res.recorded.append(path)
    return res


@dataclass
class Reproduction:
    """The result of re-running a published attestation (D-5).

    Attributes:
        identical: the masked attestations are equal.
        original, rerun: the two attestations.
        differing: top-level fields that differ once masked.
    """

    identical: bool
    original: m.Attestation
    rerun: m.Attestation | None
    differing: list[str]


def reproduce(repo: str | Path, original: m.Attestation, *, toolchain: ToolchainSource,
              sandbox: SandboxRunner) -> Reproduction:
    """Re-run steps 1-8 for ``original`` and compare masked attestations (D-5, D-34).

    Step 0 is taken from the record (the precheck attestation rode in the pull request,
    not in the graph) and step 9's reviewer from the attestation; everything else is
    re-derived from the commits the attestation names.

    Raises:
        LemmataError: ``git-error`` when a named commit is not in ``repo``.
    """
    step0: dict[str, tuple[StepResult, m.PrecheckConsumed | None]] = {}
    zero = next((s for s in original.steps if s.step == 0), None)
    if zero is not None:
        diags = [Diagnostic(d["code"], d["message"], d.get("path"), d.get("line"))
                 for d in zero.diagnostics]
        res = StepResult(0, zero.ok, zero.code, tuple(diags))
        step0[f"{original.target}/{original.node}"] = (res, original.precheck)
    review = None
    if original.step9 is not None and original.step9.reviewer:
        review = Review(original.step9.reviewer, signs_off=tuple(original.waivers))
    out = run_gate(repo, original.base_commit, original.head_commit, toolchain=toolchain,
                   sandbox=sandbox, submitter=original.submitter, review=review,
                   disclosure=original.disclosure, runner=original.runner or "local",
                   recorded_step0=step0)
    rerun = next((a for a in out.attestations
                  if a.target == original.target and a.node == original.node
                  and a.artifact_kind == original.artifact_kind), None)
    if rerun is None:
        return Reproduction(False, original, None, ["<no such artifact>"])
    a, b = A.masked(original), A.masked(rerun)
    differing = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return Reproduction(not differing, original, rerun, differing)
