"""The post-merge job's closure (D-12 v3.42, v3.46; D-30): nodes joined in the sandbox.

:func:`close_nodes` joins every node :func:`~network.record.derive.node_flags` calls
closable: the assembly with each hole replaced by the child's theorem applied to the
locals in scope (:func:`join_text`), built and judged like a proof; a join the kernel
accepts writes ``closure/route-<k>.json``. A vouched root with a proved resolves (refutes)
variant whose Relation.lean merged is closed through it (:func:`close_through_variant`):
``closure/resolves.json``, verdict proved (``refutes.json``, refuted). It repeats until
nothing more closes. :mod:`network.gate.postmerge.postmerge` re-exports every name here (issue 17).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import ids
from network.errors import LemmataError
from network.gate.artifacts import Artifact, Kind, import_lines
from network.gate.lean.kernels import judge_kernels, known_unsound, replayed_kernels
from network.gate.lean.toolchain import Hole, TermRef, Toolchain
from network.gate.postmerge.postmerge_holes import _restated_node, _route_workspace
from network.gate.postmerge.postmerge_out import OverlaySource, PostMerge, _dump_json, _sign
from network.gate.run import (
    ToolchainSource,
    WorkPlan,
    _resolve_toolchain,
    plan_workspace,
    relation_decl,
    write_plan,
)
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.workspace import Source, Workspace, node_source
from network.record import derive
from network.record import models as m
from network.record.read import blob_cache
from network.record.read.loader import Graph, load_graph
from network.record.read.source import Source as GraphSource

# --- closure (D-12 v3.42) -------------------------------------------------------------


def join_text(partial: str, holes: Sequence[Hole], inputs: Mapping[int, str],
              imports: Sequence[str]) -> str | None:
    """The join: the assembly with each hole's ``sorry`` replaced by the input's theorem
    applied to the locals in scope (``(@Decl x₁ … xₙ)``) and the inputs' modules imported
    after the assembly's own header. None when a hole's position is unknown, the text at
    it is not ``sorry`` or a local is inaccessible (fail closed: nothing is recorded)."""
    lines = partial.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []
    for h in holes:
        decl = inputs.get(h.index)
        if decl is None or h.line is None or h.column is None or h.line > len(lines):
            return None
        if not lines[h.line - 1][h.column:].startswith("sorry"):
            return None
        names = [b.name for b in h.binders]
        if any("✝" in n or not n for n in names):
            return None
        edits.append((h.line - 1, h.column, f"(@{decl}{''.join(' ' + n for n in names)})"))
    for li, col, rep in sorted(edits, reverse=True):
        ln = lines[li]
        lines[li] = ln[:col] + rep + ln[col + len("sorry"):]
    text = "".join(lines)
    header = import_lines(text)
    body_lines = text.splitlines(keepends=True)
    i = 0
    seen = 0
    while i < len(body_lines) and seen < len(header):
        if body_lines[i].strip().startswith("import "):
            seen += len(body_lines[i].split()) - 1
        i += 1
    extra = "".join(f"import {mod}\n" for mod in imports if mod not in header)
    return "".join(body_lines[:i]) + extra + "".join(body_lines[i:])


@dataclass
class _Closer:
    graph: Graph
    tc_for: ToolchainSource
    sandbox: SandboxRunner
    work_dir: Path
    notes: list[str]
    n: int = 0

    def input_of_hole(self, target: str, route: str, h: Hole, plan: WorkPlan, tc: Toolchain,
                      ws: Workspace, caps: m.Caps) -> str | None:
        t = self.graph.targets[target]
        for nid, node in t.nodes.items():
            if node.meta.hole is not None and node.meta.hole.route == route \
                    and node.meta.hole.k == h.index:
                return derive._ix(self.graph).current(target, nid)
        other, _ = _restated_node(tc, ws, plan, h, self.sandbox, caps)
        return other

    def proof_sources(self, target: str, nid: str, depth: int = 0
                      ) -> tuple[list[Source], str, str] | None:
        """(sources, module, proof path) making ``nid``'s theorem available: its merged
        Proof.lean, else (proved by closure) its join."""
        t = self.graph.targets[target]
        node = t.nodes[nid]
        if "Proof" in node.files and derive.node_status(self.graph, target, nid) == "proved":
            data = self.graph.source.read(node.files["Proof"].path)
            src = node_source(target, nid, "Proof", data)
            return [src], src.module, node.files["Proof"].path
        if depth > 50:
            return None
        for path, rec in derive._ix(self.graph).closures(target, nid):
            if rec.verdict == "proved" and rec.route:
                got = self.join(target, nid, rec.route, depth + 1)
                if got is not None:
                    return got[0], got[1], path
        return None

    def join(self, target: str, nid: str, route: str, depth: int = 0
             ) -> tuple[list[Source], str] | None:
        """(sources, join module) for ``nid`` through ``route``; None when it cannot be
        built (a note says why)."""
        tc = _resolve_toolchain(self.tc_for, self.graph.targets[target].gate_spec)
        spec = self.graph.targets[target].gate_spec
        self.n += 1
        try:
            ws, plan = _route_workspace(self.graph, target, route, tc, self.work_dir,
                                        f"route-{self.n}")
        except LemmataError as exc:
            self.notes.append(f"closure of {nid} via {route}: {exc.code}")
            return None
        assert plan.solution_module is not None
        built = tc.build(ws, plan.modules, self.sandbox, spec.caps)
        holes = tc.extract_holes(ws, plan.solution_module, plan.decl, self.sandbox, spec.caps) \
            if built.ok else None
        if holes is None or not holes.ok or not holes.holes:
            self.notes.append(f"closure of {nid} via {route} not attempted: "
                              f"{(holes.code if holes else built.code) or 'no holes'}")
            return None
        inputs: dict[int, str] = {}
        sources: list[Source] = []
        imports: list[str] = []
        for h in holes.holes:
            inp = self.input_of_hole(target, route, h, plan, tc, ws, spec.caps)
            if inp is None:
                self.notes.append(f"closure of {nid}: hole {h.index} has no input")
                return None
            got = self.proof_sources(target, inp, depth)
            if got is None:
                return None
            srcs, mod, _ = got
            for s in srcs:
                if s.module not in {x.module for x in sources}:
                    sources.append(s)
            imports.append(mod)
            inputs[h.index] = self.graph.targets[target].nodes[inp].meta.declaration
        text = join_text(self.graph.text(route), holes.holes, inputs, imports)
        if text is None:
            self.notes.append(f"closure of {nid} via {route}: the join could not be written")
            return None
        join = Source(ids.module_name(target, nid, "Join"),
                      PurePosixPath("Lemmata") / target / nid / "Join.lean", text.encode())
        base_sources = [s for s in plan.sources if s.module != plan.solution_module]
        return [*base_sources, *sources, join], join.module

    def close(self, target: str, nid: str, route: str, seq: int, key: Ed25519PrivateKey | None,
              key_id: str) -> tuple[str, bytes] | None:
        got = self.join(target, nid, route)
        if got is None:
            return None
        sources, join_mod = got
        t = self.graph.targets[target]
        spec = t.gate_spec
        unsound = known_unsound(spec)
        if unsound:  # issue 37: no verdict on such a pin is signed, a closure neither
            self.notes.append(f"closure of {nid} via {route}: toolchain-known-unsound "
                              f"({', '.join(b.id for b in unsound)})")
            return None
        tc = _resolve_toolchain(self.tc_for, spec)
        node = t.nodes[nid]
        stmt_mod = ids.module_name(target, nid, "Statement")
        self.n += 1
        dedup: list[Source] = []
        for s in sources:
            if s.module not in {x.module for x in dedup}:
                dedup.append(s)
        try:
            ws = write_plan(self.work_dir, f"join-{self.n}", spec, dedup, tc)
        except LemmataError as exc:
            self.notes.append(f"closure of {nid}: {exc.code}")
            return None
        built = tc.build(ws, [s.module for s in dedup], self.sandbox, spec.caps)
        rep = tc.replay(ws, [join_mod], self.sandbox, spec.caps,
                        [node.meta.declaration]) if built.ok else None
        kernels = judge_kernels(replayed_kernels(spec), rep.kernels)[0] \
            if rep is not None else None
        if rep is not None and rep.ok and kernels is not None:  # issue 37: every kernel
            self.notes.append(f"closure of {nid} via {route} refused by the kernels: "
                              f"{kernels}")
            return None
        cmp = tc.check_statement(ws, stmt_mod, join_mod, [node.meta.declaration],
                                 list(spec.axioms), self.sandbox, spec.caps) \
            if rep is not None and rep.ok else None
        row = cmp.theorems[0] if cmp is not None and cmp.theorems else None
        if cmp is None or not cmp.ok or row is None or row.sorry or row.disallowed_axioms:
            what = (built.code if not built.ok else rep.code if rep is not None and not rep.ok
                    else cmp.code if cmp is not None else "not run")
            self.notes.append(f"closure of {nid} via {route} refused by the kernel: {what}")
            return None
        inputs: list[m.ClosureInput] = []
        ix = derive._ix(self.graph)
        for h in ix.route_holes(target, route):
            got2 = self.proof_sources(target, h)
            inputs.append(m.ClosureInput(node=h, proof=got2[2] if got2 else
                                         f"targets/{target}/nodes/{h}/Proof.lean"))
        k = ix.routes(target, nid).index(route) + 1
        rec = m.Closure(target=target, node=nid, link="route", route=route, inputs=inputs,
                        verdict="proved", merge_seq=seq, toolchain=spec.lean_toolchain)
        signed = _sign(rec, key, key_id)
        return f"targets/{target}/nodes/{nid}/closure/route-{k}.json", _dump_json(signed)


_VARIANT_LINKS: dict[str, tuple[str, str]] = {
    "resolves": ("implies", "proved"), "refutes": ("implies-not", "refuted")}


def variant_proof_sources(closer: _Closer, target: str, v: str
                          ) -> tuple[list[Source], str, str] | None:
    """(sources, module declaring the variant's theorem, proof path) for a proved variant:
    its merged Proof.lean with the defs, its statement and the merged proofs its use lines
    import (as the gate built it), else its closure join (:meth:`_Closer.proof_sources`)."""
    graph = closer.graph
    node = graph.targets[target].nodes[v]
    if "Proof" in node.files and derive.node_status(graph, target, v) == "proved":
        path = node.files["Proof"].path
        art = Artifact(Kind.PROOF, target, v, [path], path)
        plan = plan_workspace(graph, {path: graph.source.read(path)}, art)
        assert plan.solution_module is not None
        return list(plan.sources), plan.solution_module, path
    return closer.proof_sources(target, v)


def close_through_variant(closer: _Closer, target: str, root: str, v: str, seq: int,
                          key: Ed25519PrivateKey | None, key_id: str
                          ) -> tuple[str, bytes] | None:
    """D-12 v3.42/v3.46, D-30: close ``root`` through its proved resolves (or refutes)
    variant ``v``: the kernel must accept the variant's theorem passed through its
    Relation.lean as the root's statement (or its negation)
    (:meth:`~network.gate.lean.toolchain.Toolchain.join_relation`). Returns the gate-signed
    ``closure/resolves.json`` (verdict proved) or ``closure/refutes.json`` (verdict
    refuted), path and bytes; None with a note when anything is missing or refused (fail
    closed: nothing is recorded)."""
    graph = closer.graph
    t = graph.targets[target]
    spec = t.gate_spec
    vnode, rnode = t.nodes[v], t.nodes[root]
    rel = vnode.meta.variant
    if rel is None or rel.relation not in _VARIANT_LINKS:
        return None
    kind, verdict = _VARIANT_LINKS[rel.relation]
    unsound = known_unsound(spec)
    if unsound:  # issue 37: no verdict on such a pin is signed, a closure neither
        closer.notes.append(f"closure of {root} via {v}: toolchain-known-unsound "
                            f"({', '.join(b.id for b in unsound)})")
        return None
    if "Relation" not in vnode.files or "Statement" not in rnode.files:
        closer.notes.append(f"closure of {root} via {v}: no Relation.lean or root statement")
        return None
    try:
        got = variant_proof_sources(closer, target, v)
    except LemmataError as exc:
        closer.notes.append(f"closure of {root} via {v}: {exc.code}")
        return None
    if got is None:
        closer.notes.append(f"closure of {root} via {v}: the variant's proof is unavailable")
        return None
    sources, proof_mod, proof_path = got
    root_stmt = node_source(target, root, "Statement",
                            graph.source.read(rnode.files["Statement"].path))
    relation = node_source(target, v, "Relation",
                           graph.source.read(vnode.files["Relation"].path))
    dedup: list[Source] = []
    for src in [*sources, root_stmt, relation]:
        if src.module not in {x.module for x in dedup}:
            dedup.append(src)
    tc = _resolve_toolchain(closer.tc_for, spec)
    closer.n += 1
    try:
        ws = write_plan(closer.work_dir, f"variant-{closer.n}", spec, dedup, tc)
    except LemmataError as exc:
        closer.notes.append(f"closure of {root} via {v}: {exc.code}")
        return None
    built = tc.build(ws, [s.module for s in dedup], closer.sandbox, spec.caps)
    vdecl = vnode.meta.declaration
    res = tc.join_relation(ws, kind, TermRef(proof_mod, vdecl),  # type: ignore[arg-type]
                           TermRef(relation.module, relation_decl(vdecl)),
                           TermRef(root_stmt.module, rnode.meta.declaration),
                           list(spec.axioms), closer.sandbox, spec.caps) if built.ok else None
    row = res.theorems[0] if res is not None and res.theorems else None
    if res is None or not res.ok or row is None or row.sorry or row.disallowed_axioms:
        what = built.code if not built.ok else res.code if res is not None else "not run"
        closer.notes.append(f"closure of {root} via {v} refused by the kernel: {what}")
        return None
    rec = m.Closure(target=target, node=root, link=rel.relation,
                    inputs=[m.ClosureInput(node=v, proof=proof_path)], verdict=verdict,
                    merge_seq=seq, toolchain=spec.lean_toolchain)
    signed = _sign(rec, key, key_id)
    return f"targets/{target}/nodes/{root}/closure/{rel.relation}.json", _dump_json(signed)


def _variant_candidates(graph: Graph, tid: str, root: str) -> list[str]:
    """The root's resolves/refutes variants that read proved with a merged Relation.lean
    (D-12 v3.42, v3.46), in id order."""
    ix = derive._ix(graph)
    out = []
    for v in sorted(ix.t[tid].variants):
        rel = ix.node(tid, v).meta.variant
        if (rel is not None and rel.relation in _VARIANT_LINKS and rel.of == root
                and ix.file_merged(ix.node(tid, v), "Relation")
                and derive.node_status(graph, tid, v) == "proved"):
            out.append(v)
    return out


def close_nodes(graph_source: GraphSource, files: dict[str, bytes], *, tc_for: ToolchainSource,
                sandbox: SandboxRunner, work_dir: Path, seq: int,
                key: Ed25519PrivateKey | None, key_id: str, out: PostMerge) -> Graph:
    """D-12 v3.42: close every closable node (repeating until nothing more closes) and
    return the graph with every pending file applied."""
    graph = load_graph(OverlaySource(graph_source, files), cache=blob_cache.configured())
    for _ in range(100):
        progressed = False
        for tid, t in graph.targets.items():
            for nid in list(t.nodes):
                if not derive.node_flags(graph, tid, nid).closable:
                    continue
                closer = _Closer(graph, tc_for, sandbox, work_dir, out.notes)
                ix = derive._ix(graph)
                for route in ix.routes(tid, nid):
                    holes = ix.route_holes(tid, route)
                    if not holes or not all(derive.node_status(graph, tid, h) == "proved"
                                            for h in holes):
                        continue
                    got = closer.close(tid, nid, route, seq, key, key_id)
                    if got is not None and got[0] not in files:
                        files[got[0]] = got[1]
                        out.closed.append((tid, nid))
                        progressed = True
                        break
                if progressed or not ix.is_root(tid, nid):
                    continue
                for v in _variant_candidates(graph, tid, nid):
                    rel = ix.node(tid, v).meta.variant
                    assert rel is not None
                    path = f"targets/{tid}/nodes/{nid}/closure/{rel.relation}.json"
                    if path in files or path in graph.files:
                        out.notes.append(f"closure of {nid} via {v}: {path} already exists "
                                         "(closure records are append-only)")
                        continue
                    got = close_through_variant(closer, tid, nid, v, seq, key, key_id)
                    if got is not None:
                        files[got[0]] = got[1]
                        out.closed.append((tid, nid))
                        progressed = True
                        break
        if not progressed:
            break
        graph = load_graph(OverlaySource(graph_source, files), cache=blob_cache.configured())
    return graph
