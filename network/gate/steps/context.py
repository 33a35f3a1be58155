"""What every gate step reads and writes for one artifact: the run's context
(:class:`_Ctx`: repository, diff, base graph, mode, toolchain, sandbox), its mutable state
(:class:`_Run`: the step results so far and what one step hands the next, e.g. the
comparison step 4 made and step 5 reads, the holes step 4 extracted and step 7 reads),
the approving :class:`Review` (D-4 step 9 and Detail) and small shared helpers.

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run`` re-exports
every name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pygit2
from pydantic import ValidationError

from network.gate.artifacts import Artifact, Kind
from network.gate.diff import Diff
from network.gate.lean.kernels import KernelVerdict
from network.gate.lean.toolchain import (
    CompareResult,
    Hole,
    RelationKind,
    Toolchain,
    WitnessResult,
)
from network.gate.result import Diagnostic, StepResult
from network.gate.sandbox.sandbox import SandboxRunner
from network.record import models as m
from network.record.read.loader import Graph, parse_record, sha256_hex

Mode = Literal["authoritative", "precheck"]


_CLAIMING = {Kind.PROOF, Kind.ALTERNATE, Kind.PARTIAL, Kind.REDUCTION}
_ROUTES = {Kind.PARTIAL, Kind.REDUCTION}
#: what a closing artifact other than a proof must state, built from the statement (D-12)
_NEGATING: dict[Kind, RelationKind] = {Kind.COUNTEREXAMPLE: "negation", Kind.VACUITY: "vacuity"}
_SOLUTION_STEM = {Kind.PROOF: "Proof", Kind.ALTERNATE: "Alternate", Kind.PARTIAL: "Partial",
                  Kind.REDUCTION: "Reduction", Kind.COUNTEREXAMPLE: "Refutation",
                  Kind.VACUITY: "Vacuity"}
_SETTLING = {Kind.PROOF, Kind.COUNTEREXAMPLE, Kind.VACUITY}


@dataclass(frozen=True)
class Review:
    """An approving review (D-4 step 9 and Detail): the forge's (a GitHub approval,
    :func:`network.gate.github.github_trusted.review_for`) or a merged ``proof-review/v1`` record
    naming the artifact's bytes (:func:`artifact_review`; issue 13).

    Attributes:
        reviewer: the reviewer's pseudonym; it must differ from the submitter.
        approved: True for an approving review; anything else satisfies nothing.
        signs_off: waivers the review names, e.g. ``("native_decide",)`` (D-4 Detail:
            "the sign-off is a line in the approving review naming the waiver").
    """

    reviewer: str
    approved: bool = True
    signs_off: tuple[str, ...] = ()


ToolchainSource = Toolchain | Callable[[m.GateSpec], Toolchain]


def _resolve_toolchain(toolchain: ToolchainSource, spec: m.GateSpec) -> Toolchain:
    if isinstance(toolchain, type) or not hasattr(toolchain, "describe"):
        return toolchain(spec)
    return toolchain  # type: ignore[return-value]


def _unquote(module: str) -> str:
    return module.replace("«", "").replace("»", "")


@dataclass
class _Run:
    """State of one artifact's run."""

    art: Artifact
    steps: list[StepResult] = field(default_factory=list)
    held: bool = False
    step9: m.Step9 | None = None
    waivers: list[str] = field(default_factory=list)
    holes: tuple[Hole, ...] = ()
    compare: CompareResult | None = None
    compare_decl: str = ""  # the declaration whose row of `compare` steps 4-5 read
    witness: WitnessResult | None = None
    build_errors: tuple[str, ...] = ()
    consumed: m.PrecheckConsumed | None = None
    toolchain_hash: str | None = None
    toolchain: Toolchain | None = None
    orphan: bool = False
    review: Review | None = None  # the forge's or the record's (:func:`artifact_review`)
    kernels: tuple[KernelVerdict, ...] = ()  # step 4's kernel verdicts (issue 37)
    # the gate-spec (and its bytes' SHA-256) the run was judged under, where it is not the
    # target's on base: a re-pin's new one (issue 37), which its attestation names
    judged_spec: tuple[m.GateSpec, str] | None = None

    def add(self, res: StepResult) -> bool:
        self.steps.append(res)
        return res.ok


@dataclass
class _Ctx:
    repo: pygit2.Repository
    diff: Diff
    base: Graph
    head_date: str
    submitter: str | None
    mode: Mode
    toolchain: ToolchainSource
    sandbox: SandboxRunner
    review: Review | None
    precheck_raw: str | None
    work_dir: Path
    step0: Mapping[str, tuple[StepResult, m.PrecheckConsumed | None]] | None
    base_sha: str


def _fail(step: int, code: str, message: str, path: str | None = None,
          line: int | None = None) -> StepResult:
    return StepResult.refused(step, [Diagnostic(code, message, path, line)])


def _artifact_hashes(diff: Diff, art: Artifact) -> list[m.ArtifactHash]:
    out = []
    for c in diff.changes:
        if c.path in art.paths and c.new_id is not None:
            try:
                out.append(m.ArtifactHash(path=c.path, sha256=sha256_hex(diff.new_bytes(c))))
            except ValidationError:  # a path no graph may hold: its refusal names it
                continue
    return out


def _slug(art: Artifact) -> str:
    if art.node is None:  # a target-level artifact (a review's): named by its file
        tag = hashlib.sha256(art.main.encode()).hexdigest()[:12]
        return f"{art.target}--{art.kind.value}--{tag}"
    return f"{art.target}--{art.node}--{art.kind.value}"


def _meta_for(ctx: _Ctx, art: Artifact) -> m.Meta | None:
    t = ctx.base.targets.get(art.target)
    if t is None or art.node is None:
        return None
    node = t.nodes.get(art.node)
    if node is not None:
        return node.meta
    path = f"targets/{art.target}/nodes/{art.node}/META.yaml"
    ch = next((c for c in ctx.diff.changes if c.path == path and c.new_id), None)
    if ch is None:
        return None
    meta, _ = parse_record(path, ctx.diff.new_bytes(ch), m.Meta)
    return meta
