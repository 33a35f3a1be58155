"""Outlines of merged proofs (D-3 v3.30): what the post-merge job writes beside each.

For every merged proof (a node's Proof.lean, an alternate, a partial or a reduction) the
post-merge job builds the proof's workspace from main's bytes in the sandbox and asks the
pinned toolchain for its outline (:meth:`~network.gate.toolchain.Toolchain.outline`,
network/gate/lean/Outline.lean): the named steps (``have``, ``show``, ``suffices``,
``obtain``, ``calc``), each with the claim it establishes, the goal it leaves, the constants
its term uses and the automation run inside it. The record ``outline/<proof>.json``
(``outline/v1``) carries each step's Lean, cut from the proof's own bytes by the positions
Lean reported, so every step is one click from the source.

It asserts nothing the kernel did not check: a claim is shown only when Outline.lean found
it in the kernel-checked term and its printing reads back; any other step is Lean only.
Without a toolchain, or when the toolchain could not vouch for an outline (a build that
failed, a re-elaboration that differs, a malformed report), the record is written with
``available: false`` and the catalog code in ``unavailable``, and no step at all: an outline
is never made up.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from network.errors import LemmataError
from network.gate.artifacts import Artifact, Kind
from network.gate.run import ToolchainSource, _resolve_toolchain, plan_workspace, write_plan
from network.gate.sandbox import SandboxRunner
from network.gate.toolchain import OutlineResult, OutlineStep
from network.record import models as m
from network.record.loader import Graph, sha256_hex

#: the artifact kinds whose merged file is a proof with an outline (D-3 v3.30)
OUTLINED_KINDS: dict[str, Kind] = {"proof": Kind.PROOF, "alternate": Kind.ALTERNATE,
                                   "partial": Kind.PARTIAL, "reduction": Kind.REDUCTION}
MAX_STEP_LEAN = 20_000


def outline_path(proof: str) -> str:
    """Where the outline of merged file ``proof`` lands (docs/record.md):
    ``…/nodes/<n>/Proof.lean`` → ``…/nodes/<n>/outline/Proof.json``;
    ``…/nodes/<n>/attempts/<ts>-<who>-alternate.lean`` →
    ``…/nodes/<n>/outline/<ts>-<who>-alternate.json``.

    Raises:
        ValueError: ``proof`` is not a node's Proof.lean or a merged attempt.
    """
    p = PurePosixPath(proof)
    parts = p.parts
    if len(parts) >= 5 and parts[0] == "targets" and parts[2] == "nodes":
        node_dir = PurePosixPath(*parts[:4])
        rest = parts[4:]
        if rest == ("Proof.lean",):
            return str(node_dir / "outline" / "Proof.json")
        if len(rest) == 2 and rest[0] == "attempts" and rest[1].endswith(
                ("-alternate.lean", "-partial.lean", "-reduction.lean")):
            return str(node_dir / "outline" / (rest[1][:-len(".lean")] + ".json"))
    raise ValueError(f"{proof!r} is not a merged proof's path")


def step_lean(text: str, step: OutlineStep) -> str:
    """The Lean of one step: ``text`` from (line, column) to (end_line, end_column), both
    as Lean's ``Position`` counts them (lines 1-based, columns in codepoints); "" when the
    range lies outside the text."""
    lines = text.splitlines(keepends=True)
    if not (1 <= step.line <= step.end_line <= len(lines)):
        return ""
    if step.line == step.end_line:
        return lines[step.line - 1][step.column:step.end_column][:MAX_STEP_LEAN]
    out = [lines[step.line - 1][step.column:]]
    out += lines[step.line:step.end_line - 1]
    out.append(lines[step.end_line - 1][:step.end_column])
    return "".join(out)[:MAX_STEP_LEAN]


def outline_record(result: OutlineResult, *, target: str, node: str, proof: str,
                   proof_bytes: bytes, declarations: list[str], merge_seq: int,
                   toolchain: str) -> m.Outline:
    """The ``outline/v1`` record of one toolchain answer (D-3 v3.30): the steps with their
    Lean when ``result.ok``; otherwise ``available: false``, the code, the detail and no
    steps. A step the toolchain did not vouch for keeps only its Lean (``lean_only``)."""
    base = {"target": target, "node": node, "proof": proof,
            "proof_sha256": sha256_hex(proof_bytes), "declarations": declarations,
            "merge_seq": merge_seq, "toolchain": toolchain}
    if not result.ok:
        return m.Outline(available=False, unavailable=result.code or "checker-failed",
                         detail=result.detail[:2000], steps=[], **base)
    text = proof_bytes.decode("utf-8", "replace")
    steps = []
    for st in result.steps:
        row = m.OutlineStepRecord(kind=st.kind, line=st.line, column=st.column,
                                  end_line=st.end_line, end_column=st.end_column,
                                  lean=step_lean(text, st), lean_only=st.lean_only)
        if not st.lean_only and st.claim is not None:
            row = row.model_copy(update={"name": st.name, "claim": st.claim, "goal": st.goal,
                                         "constants": list(st.constants),
                                         "automation": list(st.automation)})
        steps.append(row)
    return m.Outline(available=True, steps=steps, **base)


def proof_outline(graph: Graph, att: m.Attestation, proof: str, *,
                  toolchain: ToolchainSource, sandbox: SandboxRunner, work_dir: Path,
                  merge_seq: int) -> m.Outline:
    """Build the merged ``proof`` of ``att`` in a check workspace of main's bytes and ask the
    pinned toolchain for its outline (D-3 v3.30); a failure at any point is an unavailable
    outline naming its code (``toolchain-missing`` without Lean), never an invented one.

    Raises:
        KeyError: ``att.artifact_kind`` has no outline (see :data:`OUTLINED_KINDS`).
    """
    kind = OUTLINED_KINDS[att.artifact_kind]
    target, node = att.target, att.node
    spec = graph.targets[target].gate_spec
    data = graph.source.read(proof)
    decl = graph.targets[target].nodes[node].meta.declaration

    def record(result: OutlineResult) -> m.Outline:
        return outline_record(result, target=target, node=node, proof=proof, proof_bytes=data,
                              declarations=[decl], merge_seq=merge_seq,
                              toolchain=spec.lean_toolchain)

    tc = _resolve_toolchain(toolchain, spec)
    art = Artifact(kind, target, node, [proof], proof)
    try:
        plan = plan_workspace(graph, {proof: data}, art)
        ws = write_plan(work_dir, f"outline-{node}-{sha256_hex(data)[:12]}", spec,
                        plan.sources, tc)
    except LemmataError as exc:
        return record(OutlineResult(False, exc.code, detail=exc.detail))
    assert plan.solution_module is not None
    built = tc.build(ws, plan.modules, sandbox, spec.caps)
    if not built.ok:
        return record(OutlineResult(False, built.code, detail="the proof's workspace did not "
                                    "build: " + (built.log or "")[-1000:]))
    return record(tc.outline(ws, plan.solution_module, [plan.solution_decl or decl],
                             sandbox, spec.caps))
