"""The post-merge job's holes (D-12 #4/#5, D-29, D-12 v3.38/v3.44): a merged partial's or
reduction's holes become child nodes.

:func:`write_holes` extracts each hole with the toolchain and writes it as
``<parent>--h<n>`` (its Statement.lean as extracted, its carried witness, its first
statement gloss from the ``-- label:``/``-- claim:`` block, :func:`hole_gloss`), or, when
the hole is definitionally equal to an existing node's statement, as a lemma edge of the
parent with its Context.lean regenerated (:func:`context_text`). Without a toolchain, or
on any toolchain failure, nothing is written for the route and a note says why (fail
closed). :mod:`network.gate.postmerge.postmerge` re-exports every name here (issue 17).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from network import ids
from network.errors import LemmataError
from network.gate.artifacts import Artifact, Kind, annex_citations, import_lines
from network.gate.lean.toolchain import Hole, TermRef, Toolchain
from network.gate.postmerge.postmerge_ledger import _main_path
from network.gate.postmerge.postmerge_out import PostMerge, _compact, _dump_yaml
from network.gate.run import (
    WorkPlan,
    add_route_statements,
    hole_decl,
    hole_statement_text,
    plan_workspace,
    write_plan,
)
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.workspace import Workspace
from network.record import models as m
from network.record.read.loader import ATTEMPT_RE, Graph, parse_document, sha256_hex

# --- holes (D-12, D-29) ---------------------------------------------------------------


def _comment_block(lines: list[str], hole_line: int) -> list[str]:
    block: list[str] = []
    i = hole_line - 2
    while i >= 0 and lines[i].strip().startswith("--"):
        block.append(lines[i].strip()[2:].strip())
        i -= 1
    return list(reversed(block))


def hole_gloss(partial_text: str, hole: Hole, *, describes: str, describes_sha256: str,
               author: str, date: str, models: Sequence[str]) -> m.Gloss | None:
    """The hole's first statement gloss from the partial's ``-- label:``/``-- claim:``
    block above its ``have`` (D-12 v3.44): label, then a body opening with the claim as a
    display (``$$…$$``) followed by the block's prose; None when the block has no label."""
    lines = partial_text.splitlines()
    if hole.line is None:
        return None
    block = _comment_block(lines, hole.line)
    label = next((b.split(":", 1)[1].strip() for b in block if b.startswith("label:")), None)
    claim = next((b.split(":", 1)[1].strip() for b in block if b.startswith("claim:")), None)
    if not label:
        return None
    prose = " ".join(b for b in block if not b.startswith(("label:", "claim:")))
    inner = claim.strip("$").strip() if claim else ""
    text = (f"$${inner}$$\n\n{prose}".strip() if inner else prose) or label
    lic = re.search(r"^\s*--\s*licence:\s*(.+?)\s*$", partial_text, re.MULTILINE)
    return m.Gloss(describes=describes, describes_sha256=describes_sha256, author=author,
                   date=date, licence=lic.group(1) if lic else "CC-BY-4.0",
                   sections=[m.Section(text=text, drafted_with=list(models))],
                   label=label[:60])


def context_text(graph: Graph, target: str, node: str, meta: m.Meta) -> bytes:
    """Context.lean (D-3): the node's declared deps' and lemmas' statements, bodies
    ``sorry``, under one header of imports. Only statement files are copied; no Lean is
    parsed beyond the import header."""
    t = graph.targets[target]
    own = graph.text(t.nodes[node].files["Statement"].path)
    imports: list[str] = list(import_lines(own))
    bodies: list[str] = []
    for dep in [*meta.deps, *meta.lemmas]:
        dn = t.nodes.get(dep)
        if dn is None or "Statement" not in dn.files:
            continue
        text = graph.text(dn.files["Statement"].path)
        for mod in import_lines(text):
            if mod not in imports:
                imports.append(mod)
        body = [ln for ln in text.splitlines() if not ln.startswith("import ")]
        bodies.append(f"-- {dep} (Statement.lean)\n" + "\n".join(body).strip() + "\n")
    head = "".join(f"import {mod}\n" for mod in imports)
    return (f"{head}\n-- Context of {node}: signatures of its declared dependencies and "
            "lemmas, bodies sorry (written by the gate, D-3).\n\n"
            + "\n".join(bodies)).encode("utf-8")


def _route_artifact(graph: Graph, target: str, route: str) -> tuple[Artifact, bytes]:
    parts = route.split("/")
    nid = parts[3]
    kind = Kind.PARTIAL if route.endswith("-partial.lean") else Kind.REDUCTION
    data = graph.source.read(route)
    return Artifact(kind, target, nid, [route], route), data


def _route_workspace(graph: Graph, target: str, route: str, tc: Toolchain, work_dir: Path,
                     name: str) -> tuple[Workspace, WorkPlan]:
    art, data = _route_artifact(graph, target, route)
    plan = plan_workspace(graph, {route: data}, art)
    add_route_statements(graph, target, art.node or "root", plan)  # idempotent (issue 17)
    ws = write_plan(work_dir, name, graph.targets[target].gate_spec, plan.sources, tc)
    return ws, plan


def _next_hole_number(graph: Graph, target: str, parent: str, pending: set[str]) -> int:
    prefix = f"{parent}--h"
    used = [int(x[len(prefix):].split("@")[0]) for x in
            [*graph.targets[target].nodes, *pending]
            if x.startswith(prefix) and x[len(prefix):].split("@")[0].isdigit()]
    return max(used, default=0) + 1


def _restated_node(tc: Toolchain, ws: Workspace, plan: WorkPlan, hole: Hole,
                   sandbox: SandboxRunner, caps: m.Caps) -> tuple[str | None, str | None]:
    """(existing node the hole restates, or None; an error detail when the test failed)."""
    assert plan.solution_module is not None
    for other, (mod, decl) in sorted(plan.other_statements.items()):
        res = tc.defeq(ws, TermRef(plan.solution_module, plan.decl, hole.index),
                       TermRef(mod, decl), sandbox, caps)
        if not res.ok:
            return None, f"{res.code}: {res.detail}"
        if res.defeq:
            return other, None
    return None, None


def write_holes(graph: Graph, att: m.Attestation, *, tc: Toolchain, sandbox: SandboxRunner,
                work_dir: Path, date: str, out: PostMerge) -> None:
    """Write the holes of one merged partial or reduction into ``out`` (D-12, D-29,
    D-12 v3.38/v3.44); on any toolchain failure write nothing for it and note why."""
    route = _main_path(att)
    target, parent = att.target, att.node
    t = graph.targets[target]
    pnode = t.nodes[parent]
    spec = t.gate_spec
    try:
        ws, plan = _route_workspace(graph, target, route, tc, work_dir, f"holes-{parent}")
    except LemmataError as exc:
        out.notes.append(f"holes of {route} not written: {exc.code}: {exc.detail}")
        return
    assert plan.solution_module is not None
    built = tc.build(ws, plan.modules, sandbox, spec.caps)
    if not built.ok:
        out.notes.append(f"holes of {route} not written: {built.code}: build failed")
        return
    holes = tc.extract_holes(ws, plan.solution_module, plan.decl, sandbox, spec.caps)
    if not holes.ok or not holes.holes:
        out.notes.append(f"holes of {route} not written: {holes.code or 'no holes'}: "
                         f"{holes.detail}")
        return
    decided: list[tuple[Hole, str | None]] = []
    for h in holes.holes:
        other, err = _restated_node(tc, ws, plan, h, sandbox, spec.caps)
        if err is not None:
            out.notes.append(f"holes of {route} not written: restatement test failed: {err}")
            return
        decided.append((h, other))
    partial_text = graph.text(route)
    mt = ATTEMPT_RE.fullmatch(route.rsplit("/", 1)[-1])
    author = mt.group("who") if mt else (att.submitter or "unknown")
    parent_stmt = graph.text(pnode.files["Statement"].path)
    pending: set[str] = set(out.holes)
    lemmas = list(pnode.meta.lemmas)
    # D-31 v3.12: a route citing an annex (step 2 found it on the node) is a skeleton
    origin: Literal["skeleton-hole", "compiler-derived"] = (
        "skeleton-hole" if annex_citations(partial_text) else "compiler-derived")
    for h, other in decided:
        if other is not None:
            if other not in lemmas:
                lemmas.append(other)
                out.lemma_edges.append((parent, other))
            continue
        n = _next_hole_number(graph, target, parent, pending)
        hid = ids.hole_id(parent, n)
        pending.add(hid)
        hdir = f"targets/{target}/nodes/{hid}"
        decl = hole_decl(pnode.meta.declaration, n)
        stmt = hole_statement_text(parent_stmt, decl, h, route, parent)
        meta = m.Meta(id=hid, target=target, declaration=decl, statement_hash=sha256_hex(stmt),
                      origin=origin,
                      hole=m.HoleOf(parent=parent, route=route, k=h.index, name=h.name[:200]))
        out.files[f"{hdir}/META.yaml"] = _dump_yaml(meta.model_dump(by_alias=True,
                                                                    exclude_defaults=True)
                                                    | {"schema": "meta/v1"})
        out.files[f"{hdir}/Statement.lean"] = stmt
        carried = f"{route[:-len('.lean')]}.h{h.index}.witness.lean"
        if carried in graph.files:
            out.files[f"{hdir}/Witness.lean"] = graph.source.read(carried)
        gloss = hole_gloss(partial_text, h, describes=f"{hdir}/Statement.lean",
                           describes_sha256=sha256_hex(stmt), author=author, date=date,
                           models=att.disclosure.models)
        if gloss is not None:
            out.files[f"{hdir}/gloss/{_compact(date)}-{author}.yaml"] = _dump_yaml(
                gloss.model_dump(by_alias=True, exclude_none=True, exclude_defaults=False))
        out.holes.append(hid)
    if lemmas != list(pnode.meta.lemmas):
        meta_path = f"targets/{target}/nodes/{parent}/META.yaml"
        raw = parse_document(meta_path, graph.source.read(meta_path))
        raw["lemmas"] = lemmas
        out.files[f"targets/{target}/nodes/{parent}/META.yaml"] = _dump_yaml(raw)
        new_meta = pnode.meta.model_copy(update={"lemmas": lemmas})
        out.files[f"targets/{target}/nodes/{parent}/Context.lean"] = context_text(
            graph, target, parent, new_meta)
