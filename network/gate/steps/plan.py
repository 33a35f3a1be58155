"""Which Lean files one artifact's run builds (:class:`WorkPlan`, :func:`plan_workspace`;
ruling 6, D-3 v3.25, D-12 v3.21/v3.38): the plan steps 3-8 share. Also the ancestors of a
node (the offload rule at step 4, circular uses at step 8).

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from network import ids
from network.errors import LemmataError
from network.gate.artifacts import Artifact, Kind, import_lines
from network.gate.lean import answers
from network.gate.lean.toolchain import (
    RelationKind,
    TermRef,
)
from network.gate.sandbox.workspace import (
    Source,
    node_source,
)
from network.gate.steps.context import _ROUTES, _SOLUTION_STEM, _unquote
from network.gate.steps.decls import refutation_decl, relation_terms, vacuity_decl
from network.record import models as m
from network.record.read.loader import Graph, parse_record


def ancestors_of(graph: Graph, target: str, node: str) -> list[str]:
    """Every node that depends on ``node``, however indirectly (D-12 v3.21): the node a
    hole was cut from, nodes listing it in deps or lemmas, and revisions' predecessors'
    ancestors; sorted, ``node`` itself excluded."""
    t = graph.targets[target]
    up: dict[str, set[str]] = {}
    for nid, n in t.nodes.items():
        meta = n.meta
        if meta.hole is not None:
            up.setdefault(nid, set()).add(meta.hole.parent)
        for d in [*meta.deps, *meta.lemmas]:
            up.setdefault(d, set()).add(nid)
        if meta.supersedes:
            up.setdefault(nid, set()).update(up.get(meta.supersedes, set()))
    seen: set[str] = set()
    stack = [node]
    sup = t.nodes[node].meta.supersedes if node in t.nodes else None
    if sup:
        stack.append(sup)
    while stack:
        cur = stack.pop()
        for p in sorted(up.get(cur, ())):
            if p not in seen and p != node:
                seen.add(p)
                stack.append(p)
    return sorted(x for x in seen if x in t.nodes)


@dataclass
class WorkPlan:
    """The Lean files one artifact's run needs and the names the checks use.

    Attributes:
        sources: every workspace source (exact bytes, names from :mod:`network.ids`).
        statement_module: the module holding the statement the artifact claims.
        solution_module: the artifact's module (None for a proposal or witness).
        decl: the declaration name (META's ``declaration``).
        witness_module: the witness's module, None when the node has none.
        node_of_module: graph modules → the node they belong to (for step 8).
        ancestor_statements: ancestor node → (Statement module, declaration) (offload rule).
        other_statements: every other node of the target, the same (D-12 v3.38).
        use_nodes: nodes the artifact's use lines import.
        solution_decl: the declaration the solution module must hold: the node's for a
            proof, ``.refutation``/``.vacuity`` for a counterexample or vacuity certificate.
        relation_module: a variant's Relation.lean module, when it carries one.
        relation: what that Relation.lean must state: (kind, left, right) of
            :func:`relation_terms` (D-30).
        contributed: the modules whose bytes come from the pull request (the solution, or
            a proposal's Statement, Witness and Relation): built only in scratch, their
            oleans carried into the check workspace (issue 10, D-4 v3.27).
        answer_probes: a proposal whose statement fills ``answer(…)``: the probes step
            6's definitional anti-echo layer compares it with (:func:`answers.answer_probes`,
            issue 12), contributed like the statement.
        target_defs: every def of the target (``sources`` holds them all too: a target
            has a handful, never O(nodes), and the post-merge job's joins and variant
            closures add files that may import any of them).
    """

    sources: list[Source]
    statement_module: str
    solution_module: str | None
    decl: str
    witness_module: str | None
    node_of_module: dict[str, str] = field(default_factory=dict)
    ancestor_statements: dict[str, tuple[str, str]] = field(default_factory=dict)
    other_statements: dict[str, tuple[str, str]] = field(default_factory=dict)
    use_nodes: list[str] = field(default_factory=list)
    solution_decl: str = ""
    relation_module: str | None = None
    relation: tuple[RelationKind, TermRef, TermRef] | None = None
    contributed: list[str] = field(default_factory=list)
    answer_probes: list[answers.AnswerProbe] = field(default_factory=list)
    target_defs: list[Source] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.solution_decl:
            self.solution_decl = self.decl

    @property
    def modules(self) -> list[str]:
        """Every module to build, in source order."""
        return [s.module for s in self.sources]

    @property
    def base_sources(self) -> list[Source]:
        """The sources built from base bytes: what the check workspace holds."""
        return [s for s in self.sources if s.module not in set(self.contributed)]

    @property
    def contributed_sources(self) -> list[Source]:
        """The pull request's own sources (withheld from the check workspace)."""
        return [s for s in self.sources if s.module in set(self.contributed)]


def _proof_import_closure(base: Graph, target: str, text: str, plan: WorkPlan,
                          seen: set[str], by_module: Mapping[str, str] | None = None
                          ) -> list[str]:
    """Add the merged Proof.lean of every node ``text`` imports (use lines, transitively);
    returns the nodes imported directly. ``by_module`` (unquoted Proof module → node) is
    built once per plan and passed down the recursion."""
    t = base.targets[target]
    if by_module is None:
        by_module = {_unquote(ids.module_name(target, nid, "Proof")): nid
                     for nid, n in t.nodes.items() if "Proof" in n.files}
    direct: list[str] = []
    for mod in import_lines(text):
        nid = by_module.get(_unquote(mod))
        if nid is None:
            continue
        direct.append(nid)
        if nid in seen:
            continue
        seen.add(nid)
        data = base.source.read(t.nodes[nid].files["Proof"].path)
        src = node_source(target, nid, "Proof", data)
        plan.sources.append(src)
        plan.node_of_module[_unquote(src.module)] = nid
        _proof_import_closure(base, target, data.decode("utf-8", "replace"), plan, seen,
                              by_module)
    return direct


@dataclass
class _Pool:
    """Modules a plan may still take in when a file it holds imports them (issue 17):
    unquoted module name → (node or None for a def, the Source, read on first use).

    Only the modules the whole-target workspace of the same kind held are pooled, so the
    import closure holds exactly the modules that workspace offered the plan's files: an
    import the full workspace could satisfy is satisfied, one it could not is not (the
    build fails closed in both)."""

    entries: dict[str, tuple[str | None, Source | None, str]] = field(default_factory=dict)

    def take(self, base: Graph, tid: str, module: str) -> tuple[str | None, Source] | None:
        got = self.entries.pop(_unquote(module), None)
        if got is None:
            return None
        nid, src, path = got
        if src is None:
            assert nid is not None
            src = node_source(tid, nid, "Statement", base.source.read(path))
        return nid, src


def _close_imports(base: Graph, tid: str, plan: WorkPlan, pool: _Pool) -> None:
    """Add to ``plan`` every pooled module a file of the plan imports, transitively
    (Lean ``import`` lines, read from the token stream by :func:`import_lines`)."""
    queue = list(plan.sources)
    while queue and pool.entries:
        src = queue.pop()
        for mod in import_lines(src.data.decode("utf-8", "replace")):
            got = pool.take(base, tid, mod)
            if got is None:
                continue
            nid, new = got
            plan.sources.append(new)
            if nid is not None:
                plan.node_of_module.setdefault(_unquote(new.module), nid)
            queue.append(new)


def plan_workspace(base: Graph, head_bytes: Mapping[str, bytes], art: Artifact) -> WorkPlan:
    """Which Lean files the run of ``art`` builds, from the graph at base plus the
    artifact's own bytes at head (ruling 6; D-3 v3.25; D-12 v3.21).

    * claiming kinds: the node's Statement, the artifact as its own module, the node's
      Witness, the target's defs, the merged proofs its use lines import (transitively);
      a partial or reduction adds its ancestors' statements for the offload rule and any
      other node's statement a file of the workspace imports (transitively through Lean
      ``import`` lines), never the whole target (issue 17: O(route) files).

    Why that gives the verdicts the whole-target workspace gave: a module's elaboration
    depends only on its bytes, its transitive imports and the gate's lakefile and
    toolchain, and every check names modules of the plan. The plan is closed under
    imports within what the whole-target workspace held (a statement it held is taken in
    as soon as a held file imports it), so each held module sees the same environment; an
    import that workspace could not satisfy (another node's statement in a proof's
    workspace, an unknown module, the root ``Lemmata``) is unsatisfied here too, and
    ``lake build`` fails closed. Step 8 maps every held statement module to its node, so
    an undeclared one used is still ``undeclared-dependency``. The only run that differs
    is one where a merged statement nothing imports would fail to build, which says
    nothing of the artifact.
    * proposals: the new Statement, Witness (and Relation) at head, and the defs.
    * a witness proposal: the hole's Statement and the new Witness.

    ``head_bytes`` maps the artifact's paths to their bytes at head (the post-merge job
    passes them from the merged graph).

    Raises:
        LemmataError: ``missing-file`` when a file the record lists cannot be read.
    """
    tid = art.target
    nid = art.node
    assert nid is not None
    t = base.targets[tid]
    node_dir = f"targets/{tid}/nodes/{nid}"
    defs = target_def_sources(base, tid)
    node = t.nodes.get(nid)
    if art.kind in (Kind.VARIANT, Kind.SPECULATIVE) or node is None:
        meta_path = f"{node_dir}/META.yaml"
        parsed, problems = parse_record(meta_path, head_bytes[meta_path], m.Meta)
        if parsed is None:  # step 2 refused it already; a plan is never made for it
            raise LemmataError("invalid-record", "; ".join(map(str, problems)),
                               path=meta_path)
        meta = parsed
        stmt = node_source(tid, nid, "Statement", head_bytes[f"{node_dir}/Statement.lean"])
        sources = [*defs, stmt]
        wit = None
        if f"{node_dir}/Witness.lean" in head_bytes:
            w = node_source(tid, nid, "Witness", head_bytes[f"{node_dir}/Witness.lean"])
            sources.append(w)
            wit = w.module
        rel_module: str | None = None
        rel_terms = None
        if f"{node_dir}/Relation.lean" in head_bytes and meta.variant is not None:
            of = meta.variant.of
            of_node = t.nodes.get(of)
            if of_node is None or "Statement" not in of_node.files:
                raise LemmataError("missing-file", f"the variant's {of} has no Statement.lean",
                                   path=f"targets/{tid}/nodes/{of}/Statement.lean")
            of_src = node_source(tid, of, "Statement",
                                 base.source.read(of_node.files["Statement"].path))
            rel = node_source(tid, nid, "Relation", head_bytes[f"{node_dir}/Relation.lean"])
            sources += [of_src, rel]
            rel_module = rel.module
            rel_terms = relation_terms(meta.variant.relation,
                                       TermRef(stmt.module, meta.declaration),
                                       TermRef(of_src.module, of_node.meta.declaration))
        elif f"{node_dir}/Relation.lean" in head_bytes:
            sources.append(node_source(tid, nid, "Relation",
                                       head_bytes[f"{node_dir}/Relation.lean"]))
        plan = WorkPlan(sources, stmt.module, None, meta.declaration, wit,
                        relation_module=rel_module, relation=rel_terms, target_defs=defs)
        plan.contributed = [src.module for src in sources
                            if src.module not in {d.module for d in defs}
                            and (not rel_terms or src.module != rel_terms[2].module)]
        plan.node_of_module[_unquote(stmt.module)] = nid
        plan.answer_probes = answers.answer_probes(tid, nid, stmt.data, meta.declaration)
        for probe in plan.answer_probes:
            plan.sources.append(probe.source)
            plan.contributed.append(probe.source.module)
        return plan
    stmt_bytes = base.source.read(node.files["Statement"].path)
    stmt = node_source(tid, nid, "Statement", stmt_bytes)
    sources = [*defs, stmt]
    wit_module: str | None = None
    if art.kind is Kind.WITNESS:
        w = node_source(tid, nid, "Witness", head_bytes[art.main])
        sources.append(w)
        plan = WorkPlan(sources, stmt.module, None, node.meta.declaration, w.module,
                        contributed=[w.module], target_defs=defs)
        plan.node_of_module[_unquote(stmt.module)] = nid
        return plan
    if "Witness" in node.files:
        w = node_source(tid, nid, "Witness", base.source.read(node.files["Witness"].path))
        sources.append(w)
        wit_module = w.module
    sol_bytes = head_bytes[art.main]
    sol = node_source(tid, nid, _SOLUTION_STEM[art.kind], sol_bytes)
    sources.append(sol)
    decl = node.meta.declaration
    sol_decl = (refutation_decl(decl) if art.kind is Kind.COUNTEREXAMPLE else
                vacuity_decl(decl) if art.kind is Kind.VACUITY else decl)
    plan = WorkPlan(sources, stmt.module, sol.module, decl, wit_module, solution_decl=sol_decl,
                    contributed=[sol.module], target_defs=defs)
    plan.node_of_module[_unquote(stmt.module)] = nid
    plan.node_of_module[_unquote(sol.module)] = nid
    plan.use_nodes = _proof_import_closure(base, tid, sol_bytes.decode("utf-8", "replace"),
                                           plan, {nid})
    if art.kind in _ROUTES:
        pool = _Pool()
        _add_ancestor_statements(base, tid, nid, plan, pool)
        _close_imports(base, tid, plan, pool)
    return plan


def _add_ancestor_statements(base: Graph, tid: str, nid: str, plan: WorkPlan,
                             pool: _Pool) -> None:
    """A route's workspace holds its ancestors' statements for the offload rule at step 4
    (D-12 v3.21); every other node's statement is pooled, taken in only when a file of
    the workspace imports it (issue 17: O(route), not O(target))."""
    t = base.targets[tid]
    ancestors = set(ancestors_of(base, tid, nid))
    for other, on in sorted(t.nodes.items()):
        if other == nid or "Statement" not in on.files:
            continue
        module = ids.module_name(tid, other, "Statement")
        if other not in ancestors:
            pool.entries.setdefault(_unquote(module),
                                    (other, None, on.files["Statement"].path))
            continue
        src = node_source(tid, other, "Statement", base.source.read(on.files["Statement"].path))
        plan.sources.append(src)
        plan.node_of_module.setdefault(_unquote(src.module), other)
        plan.ancestor_statements[other] = (src.module, on.meta.declaration)


def add_route_statements(base: Graph, tid: str, nid: str, plan: WorkPlan) -> None:
    """The post-merge job's route workspace: every other node's statement, its ancestors'
    for the offload rule (D-12 v3.21), the rest for the test of a hole restating an
    existing node (D-12 v3.38), so both run in one built workspace. Idempotent: a statement the plan holds already is not added again
    (the gate's own plan holds the ancestors', :func:`plan_workspace`)."""
    t = base.targets[tid]
    ancestors = set(ancestors_of(base, tid, nid))
    held = {_unquote(s.module) for s in plan.sources}
    for other, on in sorted(t.nodes.items()):
        if other == nid or "Statement" not in on.files:
            continue
        module = ids.module_name(tid, other, "Statement")
        target = plan.ancestor_statements if other in ancestors else plan.other_statements
        target[other] = (module, on.meta.declaration)
        if _unquote(module) in held:
            continue
        src = node_source(tid, other, "Statement", base.source.read(on.files["Statement"].path))
        plan.sources.append(src)
        plan.node_of_module.setdefault(_unquote(src.module), other)


def target_def_sources(base: Graph, tid: str) -> list[Source]:
    """Every definition module of target ``tid`` (``targets/<tid>/defs/<Stem>.lean``) as a
    workspace source, base bytes, by stem: what a workspace of that target holds beside
    its node files (D-3; ids from :mod:`network.ids`).

    Raises:
        KeyError: no such target.
    """
    return [Source(ids.defs_module_name(tid, stem),
                   PurePosixPath("Lemmata") / tid / "Defs" / f"{stem}.lean",
                   base.source.read(lf.path))
            for stem, lf in sorted(base.targets[tid].defs.items())]


def ws_defs(plan: WorkPlan) -> list[Source]:
    """The defs sources of a plan: every def of its target (a carried-witness workspace
    needs them too)."""
    return list(plan.target_defs)
