"""Outlines of merged proofs (D-3 v3.30, D-35 v3.30): what the post-merge job writes beside each.

For every merged proof (a node's Proof.lean, an alternate, a partial or a reduction) the
post-merge job builds the proof's workspace from main's bytes in the sandbox and asks the
pinned toolchain for its outline (:meth:`~network.gate.lean.toolchain.Toolchain.outline`,
network/gate/lean/Outline.lean). The checker reads only the compiled, kernel-checked term
(imported from the check workspace's oleans with no initializer, never the source): every
``have``/``let`` binding of a proposition is a step, with its label, its kernel-checked
type as the claim, the goal it leaves, the constants its value uses and the automation
those constants mark; a proof with no such binding is one step, the whole theorem. The
record is ``outline/<proof stem>.json`` (``outline/v1``, gate-signed; docs/record.md).

It asserts nothing the kernel did not check: a step whose printing does not read back is
Lean only (no claim, no goal; the page sends the reader to the Lean). Without a toolchain,
or when the toolchain could not answer (a build that failed, a malformed report, a
missing declaration), nothing is written and the post-merge job notes why: an outline is
never made up.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from pydantic import ValidationError

from network.errors import LemmataError
from network.gate.artifacts import Artifact, Kind, import_time_problems
from network.gate.lean.toolchain import OutlineResult
from network.gate.run import ToolchainSource, _resolve_toolchain, plan_workspace, write_plan
from network.gate.sandbox.sandbox import SandboxRunner
from network.record import models as m
from network.record.layout import RECORD_MAX_BYTES
from network.record.read.loader import Graph, sha256_hex

#: the artifact kinds whose merged file is a proof with an outline (D-3 v3.30)
OUTLINED_KINDS: dict[str, Kind] = {"proof": Kind.PROOF, "alternate": Kind.ALTERNATE,
                                   "partial": Kind.PARTIAL, "reduction": Kind.REDUCTION}


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


#: the most bytes an outline file may take: its path table row is a record's
#: (:data:`~network.record.layout.RECORD_MAX_BYTES`), less room for the gate's signature
OUTLINE_MAX_BYTES = RECORD_MAX_BYTES - 4096

def printing_problem(text: str) -> str | None:
    """Why the claims printed from a module of this Lean text would not be Lean's and the
    pinned libraries' own printing, or None (D-3 v3.30).

    The checker loads the module with its extension entries (Common.loadEnv), so an
    ``@[app_unexpander]``, ``@[delab]``, ``notation`` or ``@[coe]`` the module declares is
    used by ``ppExpr``, and the printed claim is then the contributor's text, not the
    kernel's type. This is the gate's one screen,
    :func:`~network.gate.artifacts.import_time_problems` (the same words, attributes and
    name parts step 2 refuses as ``import-time-code``): its first problem, as
    ``"<why> (line <n>)"``, or ``"lean-lex-ambiguous"``. Step 2 now refuses every such
    module a pull request brings, so this marking triggers only for a module merged
    before that screen existed; it is kept as defence in depth (a target's ``defs/``
    modules are curators' and are not read here, see :func:`proof_outline`).
    """
    problems = import_time_problems(text)
    if not problems:
        return None
    first = problems[0]
    if first.code == "lean-lex-ambiguous":
        return "lean-lex-ambiguous"
    return f"{first.why} (line {first.line})"


def outline_record(result: OutlineResult, *, target: str, node: str, proof: str,
                   proof_bytes: bytes, declarations: list[str], merge_seq: int,
                   toolchain: str, printing: str | None = None) -> m.Outline | None:
    """The ``outline/v1`` record of one toolchain answer (D-3 v3.30), or None when the
    answer is not an outline (``result.ok`` false, or no step at all), or when it would
    not be a valid record within :data:`OUTLINE_MAX_BYTES` (a proof of thousands of steps
    or of one huge claim): nothing is written then, and the post-merge job goes on. A
    step the toolchain did not vouch for is kept Lean only, with no claim; with
    ``printing`` (:func:`printing_problem` of a module the proof's workspace built from a
    contributor) every step is, its ``why`` ``printing-extension``."""
    if not result.ok or not result.steps:
        return None
    try:
        steps = [m.OutlineStepRecord(
            decl=st.decl, index=st.index, kind=st.kind, depth=st.depth, name=st.name,
            lean_only=st.lean_only or printing is not None,
            why=(st.why if st.lean_only else "printing-extension")
            if st.lean_only or printing is not None else None,
            claim=None if st.lean_only or printing else st.claim,
            goal=None if st.lean_only or printing else st.goal,
            constants=list(st.constants), automation=list(st.automation), hole=st.hole)
            for st in result.steps]
        rec = m.Outline(target=target, node=node, proof=proof,
                        proof_sha256=sha256_hex(proof_bytes), declarations=declarations,
                        steps=steps, merge_seq=merge_seq, toolchain=toolchain)
    except ValidationError:
        return None
    size = len(json.dumps(rec.model_dump(by_alias=True, exclude_none=True), sort_keys=True,
                          indent=2, ensure_ascii=False).encode("utf-8"))
    return rec if size <= OUTLINE_MAX_BYTES else None


def proof_outline(graph: Graph, att: m.Attestation, proof: str, *,
                  toolchain: ToolchainSource, sandbox: SandboxRunner, work_dir: Path,
                  merge_seq: int) -> tuple[m.Outline | None, str]:
    """Build the merged ``proof`` of ``att`` in a check workspace of main's bytes and ask the
    pinned toolchain for its outline (D-3 v3.30): (the record, "") or (None, why not)
    (``toolchain-missing`` without Lean): an outline is never invented.

    Raises:
        KeyError: ``att.artifact_kind`` has no outline (see :data:`OUTLINED_KINDS`).
    """
    kind = OUTLINED_KINDS[att.artifact_kind]
    target, node = att.target, att.node
    spec = graph.targets[target].gate_spec
    data = graph.source.read(proof)
    decl = graph.targets[target].nodes[node].meta.declaration
    tc = _resolve_toolchain(toolchain, spec)
    art = Artifact(kind, target, node, [proof], proof)
    try:
        plan = plan_workspace(graph, {proof: data}, art)
        ws = write_plan(work_dir, f"outline-{node}-{sha256_hex(data)[:12]}", spec,
                        plan.sources, tc)
    except LemmataError as exc:
        return None, f"{exc.code}: {exc.detail}"
    assert plan.solution_module is not None
    built = tc.build(ws, plan.modules, sandbox, spec.caps)
    if not built.ok:
        return None, f"{built.code}: the proof's workspace did not build"
    decls = [plan.solution_decl or decl]
    res = tc.outline(ws, plan.solution_module, decls, sandbox, spec.caps)
    # every module a contributor wrote (the proof, the statements and merged proofs it
    # imports; a curator's definition module is not one) must print as Lean prints
    printing = next((f"{src.module}: {why}" for src in plan.sources
                     if src.module.split(".")[2:3] != ["Defs"]
                     and (why := printing_problem(src.data.decode("utf-8", "replace")))),
                    None)
    rec = outline_record(res, target=target, node=node, proof=proof, proof_bytes=data,
                         declarations=decls, merge_seq=merge_seq,
                         toolchain=spec.lean_toolchain, printing=printing)
    if rec is None:
        if res.ok and res.steps:
            return None, "outline-too-large: the outline is no valid record within its size"
        return None, f"{res.code or 'no steps'}: {res.detail}"[:500]
    return rec, ""
