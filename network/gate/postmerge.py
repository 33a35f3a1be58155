"""The post-merge job: what the gate writes on main after a merge (D-4, D-12, D-19, D-29).

:func:`postmerge_files` is pure over the record: it reads the merged main commit and the
merge's pass attestations and returns the files to commit, path → bytes, each record
gate-signed when a key is given. :func:`run_postmerge` commits them through a forge's
``commit_to_main``. In order:

1. the attestations get their ``merge_commit`` (a masked field, D-34) and are re-signed;
2. the holes of a merged partial or reduction become child nodes ``<parent>--h<n>``
   (D-12 #4/#5, D-29): ``n`` counts per node, after every hole the node already has, so
   rival routes never reuse a number (ruling 3); ``META.hole`` names the parent, the route
   (the partial's path), ``k`` = the hole's index within its route (the number a carried
   witness ``…-partial.h<k>.witness.lean`` uses, D-29 v3.24) and the hole's name;
   ``META.origin`` is ``skeleton-hole`` when the route cites an annex (``-- annex:``,
   D-31 v3.12), else ``compiler-derived``. The
   Statement.lean is the hole as the toolchain extracted it (:func:`~network.gate.run.
   hole_statement_text`); a carried witness becomes the hole's Witness.lean; the hole's
   ``-- label:``/``-- claim:`` lines become its first statement gloss, authored by the
   partial's author under the partial's licence (D-12 v3.44). A hole definitionally equal
   to an existing node's statement becomes a lemma edge in the parent's ``META.lemmas``
   instead (D-12 v3.38, ruling 4), and the parent's Context.lean is regenerated;
3. ledger lines (D-19), see :func:`ledger_lines` for each rule;
4. the merge record ``log/merges/<seq>.json`` (ruling 2): seq, merge commit, the merge
   commit's committer date, the pull request, the artifacts and the attestation;
5. closure (D-12 v3.42): every node :func:`~network.record.derive.node_flags` calls
   closable is joined in the sandbox (the assembly with each hole replaced by the child's
   theorem applied to the locals in scope, built and judged like a proof); a join the
   kernel accepts writes ``closure/route-<k>.json``; a vouched root with a proved resolves
   (refutes) variant whose Relation.lean merged is closed through it when the kernel accepts
   the variant's theorem passed through the relation as the root's statement (its
   negation): ``closure/resolves.json``, verdict proved (``refutes.json``, refuted; D-12
   v3.42, v3.46, D-30; :func:`close_through_variant`); repeated until nothing more closes;
6. the products (:func:`network.record.products.products`, ruling 10's schemas copy);
7. (after the holes) the outline of every merged proof, ``outline/<proof>.json``
   (:mod:`network.gate.outline`, D-3 v3.30), read from the kernel-checked term; absent
   (and noted) without Lean or when the toolchain could not answer, never made up.

Without a toolchain nothing that needs Lean is written: no hole node and no closure, and
:attr:`PostMerge.notes` says what was skipped and why (fail closed).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import ids, signing
from network.errors import LemmataError, Problem
from network.gate import attestation as A
from network.gate import outline
from network.gate.artifacts import Artifact, Kind, annex_citations, import_lines
from network.gate.run import (
    ToolchainSource,
    WorkPlan,
    _resolve_toolchain,
    add_route_statements,
    attestation_path,
    commit_date,
    hole_decl,
    hole_statement_text,
    plan_workspace,
    relation_decl,
    write_plan,
)
from network.gate.sandbox import SandboxRunner
from network.gate.scratch import scratch_base
from network.gate.toolchain import Hole, TermRef, Toolchain
from network.gate.workspace import Source, Workspace, node_source
from network.record import blob_cache, derive, incremental, products
from network.record import models as m
from network.record.loader import (
    ATTEMPT_RE,
    Graph,
    Node,
    load_graph,
    parse_document,
    sha256_hex,
)
from network.record.source import Source as GraphSource

_ROUTE_KINDS = {"partial", "reduction"}


@dataclass
class PostMerge:
    """What the post-merge job writes.

    Attributes:
        seq: the merge record's sequence number.
        files: graph path → exact bytes to commit on main.
        notes: what was not written and why (e.g. holes without a toolchain).
        holes: hole node ids written.
        lemma_edges: (parent, existing node) pairs recorded as lemmas.
        closed: (target, node) closed by closure.
    """

    seq: int
    files: dict[str, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    holes: list[str] = field(default_factory=list)
    lemma_edges: list[tuple[str, str]] = field(default_factory=list)
    closed: list[tuple[str, str]] = field(default_factory=list)


class OverlaySource:
    """A graph snapshot with pending files laid over it (None deletes), so derivations see
    the post-merge state before it is committed. Implements the record's Source protocol."""

    def __init__(self, base: GraphSource, files: Mapping[str, bytes | None]) -> None:
        self.base = base
        self.overlay = dict(files)
        self.commit: str | None = None
        self.label = f"{base.label}+{len(self.overlay)} pending"

    def files(self, problems: list[Problem]) -> dict[str, int]:
        """Every path with its size in bytes."""
        out = dict(self.base.files(problems))
        for path, data in self.overlay.items():
            if data is None:
                out.pop(path, None)
            else:
                out[path] = len(data)
        return out

    def read(self, path: str) -> bytes:
        """The bytes of one file. Raises LemmataError ``missing-file``."""
        if path in self.overlay:
            data = self.overlay[path]
            if data is None:
                raise LemmataError("missing-file", "deleted", path=path)
            return data
        return self.base.read(path)


def _dump_json(record: m.Record) -> bytes:
    return (json.dumps(record.model_dump(by_alias=True, exclude_none=True), sort_keys=True,
                       indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _dump_yaml(obj: object) -> bytes:
    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=True).encode("utf-8")


def _sign(record: m.Record, key: Ed25519PrivateKey | None, key_id: str) -> m.Record:
    if key is None:
        return record
    return record.model_copy(update={"signature": signing.sign(record, key, "gate", key_id,
                                                                "gate")})


def _compact(date: str) -> str:
    """``2026-01-02T03:04:05Z`` → ``20260102T030405Z`` (file-name timestamps)."""
    d = derive.norm_date(date)
    return d.replace("-", "").replace(":", "")


# --- ledger (D-19) --------------------------------------------------------------------


def ledger_lines(graph: Graph, attestations: Sequence[m.Attestation], seq: int,
                 submitter: str | None, *, added: Sequence[str] = ()) -> list[m.LedgerLine]:
    """The credit lines one merge earns (D-19, its six lines), numbered k = 1, 2, …

    Rules, each from the decision it cites:

    * **statement**: a merged variant or speculative node proposal, to its submitter; and a
      target's root Statement.lean or a defs/ module the merge added (an import or a
      formalized proposal reaching main, D-6, D-10), to the merge's submitter: D-19 (by
      D-31 v3.12) reserves the line for "roots, defs/, variants and speculative cruxes".
      A root revision with its predecessor's statement hash re-mints nothing (D-19:
      "a revision never re-mints paid credit"). Gate-written holes earn none (D-12: their
      credit is the proof line), and the tutorial target none (D-27).
    * **proof**: the first merged Proof.lean, Refutation.lean or Vacuity.lean of a node
      (D-12 #1-3; a hole's proof earns like any node's), and a merged partial or reduction
      assembly (D-12 v3.42: "the assembly … earned its line"). Never on the tutorial node
      or a tutorial target (D-27: off-ledger); never for an alternate (D-25 v3.13: credited
      at write-up) nor for a closure join (D-12 v3.42).
    * **attempts**: a merged postmortem, only the first per ``route_class`` per node
      (D-13 anti-farming rule; v3.18: the same whatever the outcome).
    * **review**: the approving non-author reviewer step 9 relied on (D-4 v3.11); and a
      confirmed defect claim (D-15: "credit attaches to confirmed defects"), to the claim's
      filer when the merge carries the listed curator's signed dispute record accepting it
      (D-18 v3.28, the same record :meth:`~network.record.derive._Index.disputed` reads),
      once per claim, the line naming the claim.
    * **upstream**: a registration record the merge added in state ``registered``, to the
      curator who signed it (D-10 v3.37, D-19 v3.37: "the registration is credited on the
      upstreaming line to the curator"), once per registry id.
    * **writeup**: a gloss or explainer version whose approvals include a verifying
      signature of a steward of its target or a curator (D-3 v3.31), credited once to its
      author; a steward's or curator's own version signed by its author earns it too
      (D-3 v3.33: "it earns once, on the write-up line, as the author's work").
    * **writeup** too for a merged ``approval/v1`` record that counts: the approved
      version's author, once per version (D-3 v3.31: "a version earns its author credit
      when a steward or curator approves it"), never the signer.
    * nothing for annexes, literature, shelving, witnesses, precheck records and other
      records (D-34: no seventh line).

    Args:
        graph: the merged main commit's graph (the merge's files present and attested).
        attestations: the merge's pass attestations.
        seq: the merge record's number.
        submitter: the pull request's author, the credited identity.
        added: the paths the merge added (the merge commit against its first parent);
            only root statements, defs/ modules and registrations are read from it.
    """
    out: list[m.LedgerLine] = []
    ix = derive._ix(graph)

    def put(line: str, identity: str | None, target: str, node: str | None, path: str,
            sha: str | None, annotation: str | None = None) -> None:
        if identity is None or sha is None:
            return
        out.append(m.LedgerLine(merge_seq=seq, k=len(out) + 1, line=line,
                                identity=identity, target=target, node=node,
                                artifact=path, artifact_sha256=sha, annotation=annotation))

    def add(line: str, identity: str | None, att: m.Attestation, path: str,
            annotation: str | None = None) -> None:
        sha = next((a.sha256 for a in att.artifacts if a.path == path), None)
        put(line, identity, att.target, att.node, path, sha, annotation)

    for att in attestations:
        if att.verdict != "pass":
            continue
        t = graph.targets.get(att.target)
        node = t.nodes.get(att.node) if t else None
        tutorial = t is not None and (t.record.target_class == "tutorial"
                                      or (node is not None and node.meta.tutorial))
        who = att.submitter or submitter
        kind = att.artifact_kind
        main = _main_path(att)
        if kind in ("proof", "counterexample", "vacuity") and not tutorial:
            add("proof", who, att, main)
        elif kind in _ROUTE_KINDS and not tutorial:
            add("proof", who, att, main, annotation=f"{kind} assembly")
        elif kind in ("variant", "speculative"):
            add("statement", who, att, main)
        elif kind == "postmortem" and node is not None:
            this = next((a for a in node.attempts if a.path == main), None)
            if this is not None and this.postmortem is not None and not tutorial:
                rc = this.postmortem.route_class
                earlier = [a for a in node.attempts
                           if a.kind == "postmortem" and a.path != main
                           and a.postmortem is not None and a.postmortem.route_class == rc
                           and derive.is_merged(graph, a.path, a.sha256)]
                if not earlier:
                    add("attempts", who, att, main, annotation=rc)
        elif kind in ("gloss", "explainer") and node is not None:
            recs = node.glosses if kind == "gloss" else node.explainers
            rec = next((r.record for r in recs if r.path == main), None)
            if rec is not None and ix.approved(att.target, rec):
                add("writeup", rec.author, att, main)
        elif kind == "dispute" and node is not None:
            _confirmed_defect(graph, ix, att, node, main, put)
        elif kind == "approval" and node is not None:
            _approval_line(graph, att, node, main, out, put)
        if att.step9 is not None and att.step9.basis == "review" and att.step9.reviewer:
            add("review", att.step9.reviewer, att, main)
    covered = {a.path for att in attestations for a in att.artifacts}
    for path in sorted(set(added) - covered):
        _added_line(graph, ix, path, submitter, put)
    return out


def _approval_line(graph: Graph, att: m.Attestation, node: Node, main: str,
                   out: list[m.LedgerLine], put: Callable[..., None]) -> None:
    """D-19, D-3 v3.31/v3.33: a merged approval record earns the approved version's AUTHOR
    the write-up line, once per version, never its signer
    (:func:`network.record.approvals.credited_version`)."""
    from network.record import approvals

    rf = next((a for a in node.approvals if a.path == main), None)
    if rf is None:
        return
    ver = approvals.credited_version(graph, att.target, node, rf)
    if ver is None or any(ln.line == "writeup" and ln.artifact == ver.path for ln in out):
        return
    put("writeup", ver.record.author, att.target, att.node, ver.path, ver.sha256,
        f"approved by {rf.record.by}, {rf.path}")


def _confirmed_defect(graph: Graph, ix: derive._Index, att: m.Attestation, node: Node,
                      main: str, put: Callable[..., None]) -> None:
    """D-15/D-18 v3.28: the review line of the defect claim a merged dispute confirms."""
    rf = next((d for d in node.disputes if d.path == main), None)
    if rf is None:
        return
    rec = rf.record
    defect = next((d for d in node.defects if d.path == rec.defect), None)
    if defect is None or not ix.present(defect.path) or not ix.present(rf.path):
        return
    if rec.curator not in ix.curators_of(att.target) or not ix.role_signed(
            rf.path, rec, rec.curator, rec.date, att.target, stewards=False):
        return
    earlier = [d for d in node.disputes if d.path != rf.path and d.record.defect == rec.defect
               and ix.is_merged(d.path, d.sha256)]
    if earlier:
        return  # the claim was confirmed once already: one line per claim
    put("review", defect.record.by, att.target, att.node, defect.path, defect.sha256,
        f"confirmed defect ({defect.record.defect_class}), dispute {rf.path}")


def _added_line(graph: Graph, ix: derive._Index, path: str, submitter: str | None,
                put: Callable[..., None]) -> None:
    """The statement line of a root statement or defs/ module, and the upstream line of a
    registration, that a merge added outside any attestation (see :func:`ledger_lines`)."""
    parts = path.split("/")
    if len(parts) < 3 or parts[0] != "targets" or parts[1] not in graph.targets:
        return
    tid = parts[1]
    t = graph.targets[tid]
    if t.record.target_class == "tutorial":
        return
    if len(parts) == 4 and parts[2] == "defs" and path.endswith(".lean"):
        lf = next((f for f in t.defs.values() if f.path == path), None)
        if lf is not None:
            put("statement", submitter, tid, None, path, lf.sha256, "defs/ module")
        return
    if len(parts) == 5 and parts[2] == "nodes" and parts[4] == "Statement.lean":
        nid = parts[3]
        n = t.nodes.get(nid)
        if n is None or not ix.is_root(tid, nid) or n.meta.tutorial or "Statement" not in n.files:
            return
        prev = t.nodes.get(n.meta.supersedes) if n.meta.supersedes else None
        if prev is not None and prev.meta.statement_hash == n.meta.statement_hash:
            return  # a revision re-mints nothing (D-19)
        put("statement", submitter, tid, nid, path, n.files["Statement"].sha256,
            "root statement")
        return
    if len(parts) == 4 and parts[2] == "registrations":
        rf = next((r for r in t.registrations if r.path == path), None)
        if rf is None or rf.record.state != "registered" or not ix.present(path):
            return
        rec = rf.record
        if rec.by not in ix.curators_of(tid) or not ix.role_signed(
                path, rec, rec.by, rec.date, tid, stewards=False):
            return
        earlier = [r for r in t.registrations if r.path < path and ix.present(r.path)
                   and r.record.registry_id == rec.registry_id
                   and r.record.registry == rec.registry and r.record.state == "registered"]
        if earlier:
            return
        put("upstream", rec.by, tid, None, path, rf.sha256,
            f"registration {rec.registry} {rec.registry_id}")


def merge_added_paths(repo: str | Path, merge_commit: str, base: str | None = None
                      ) -> list[str]:
    """The paths ``merge_commit`` adds against ``base`` (default: its first parent; every
    path for a root commit), sorted. Tree entries the gate's diff screens out (links,
    submodules, hostile names) are never among them.

    Raises:
        LemmataError: ``git-error`` when a commit does not resolve.
    """
    import pygit2

    from network.gate.diff import diff_commits

    if base is None:
        try:
            commit = pygit2.Repository(str(repo)).revparse_single(merge_commit).peel(
                pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError) as exc:
            raise LemmataError("git-error", f"cannot resolve {merge_commit!r}: {exc}") from exc
        if not commit.parents:
            return []  # the graph's first commit: its seed, nobody's submission
        base = str(commit.parents[0].id)
    diff = diff_commits(repo, base, merge_commit)
    return sorted(c.path for c in diff.changes if c.status == "added")


def correction_entries(graph: Graph, seq: int) -> list[m.LedgerLine | m.Revocation]:
    """D-19 v3.27: each pending credit correction (:func:`~network.record.derive.
    pending_corrections`) applied as the old line's revocation, its reason opening with
    :func:`~network.record.derive.correction_marker` (so a rerun, or the next merge's job,
    finds it applied and writes nothing), and, unless the correction says nobody should
    be credited, the corrected line: the old one with the identity that should be, and an
    annotation naming the line and the correction. Numbered by :func:`number_entries`."""
    out: list[m.LedgerLine | m.Revocation] = []
    for cpath, corr, lpath, line in derive.pending_corrections(graph):
        reason = (derive.correction_marker(cpath) + corr.reason)[:2000]
        out.append(m.Revocation(merge_seq=seq, k=1, revokes=lpath, reason=reason, by=corr.by))
        if corr.should_be is not None:
            out.append(line.model_copy(update={
                "merge_seq": seq, "k": 1, "identity": corr.should_be, "signature": None,
                "annotation": f"corrects {lpath} (correction {cpath})"}))
    return out


def number_entries(graph: Graph, seq: int, entries: Sequence[m.LedgerLine | m.Revocation]
                   ) -> list[m.LedgerLine | m.Revocation]:
    """``entries`` renumbered k = 1, 2, … for ``ledger/<seq>-<k>.json``, skipping every k
    a file on the record already holds (a curator's correction may sit there), so the job
    never overwrites a ledger file (D-19: an entry is never deleted)."""
    taken = {p for p in graph.files if p.startswith(f"ledger/{seq:06d}-")}
    out: list[m.LedgerLine | m.Revocation] = []
    k = 0
    for entry in entries:
        k += 1
        while f"ledger/{seq:06d}-{k}.json" in taken:
            k += 1
        out.append(entry.model_copy(update={"k": k}))
    return out


def _main_path(att: m.Attestation) -> str:
    """The artifact's main file among an attestation's paths (the Lean file or record)."""
    paths = [a.path for a in att.artifacts]
    for p in paths:
        if p.endswith(".lean") and ".witness." not in p:
            return p
    for p in paths:
        if not p.endswith("native_decide.yaml"):
            return p
    return paths[0] if paths else ""


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
        rep = tc.replay(ws, [join_mod], self.sandbox, spec.caps) if built.ok else None
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
    (:meth:`~network.gate.toolchain.Toolchain.join_relation`). Returns the gate-signed
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


# --- the job --------------------------------------------------------------------------


def postmerge_files(
    repo: str | Path,
    merge_commit: str,
    attestations: Sequence[m.Attestation],
    *,
    pull_request: str,
    submitter: str | None,
    toolchain: ToolchainSource,
    sandbox: SandboxRunner,
    gate_key: Ed25519PrivateKey | None = None,
    key_id: str = "gate",
    work_dir: Path | None = None,
    base: str | None = None,
) -> PostMerge:
    """Everything the post-merge job commits after ``merge_commit`` merged (see module doc).

    Args:
        repo: the graph repository.
        merge_commit: main's commit after the merge (40 hex).
        attestations: the merge's pass attestations, as the gate produced them.
        pull_request: the forge's id for it, e.g. ``local/7``.
        submitter: the pull request's author.
        toolchain, sandbox: as for :func:`~network.gate.run.run_gate` (hole extraction and
            closure run Lean in the sandbox; with no toolchain they are skipped and noted).
        gate_key, key_id: signs attestations, merge record, ledger lines and closures.
        work_dir: scratch for workspaces (temporary when None).
        base: main before the merge, for the paths the merge added (root statements, defs/
            modules and registrations earn their lines from it, see :func:`ledger_lines`);
            None reads the merge commit's first parent. A merge with no attestations (a
            curator's intake merge of an import) is recorded and credited the same way.

    Returns:
        :class:`PostMerge` with the files to commit.

    Raises:
        LemmataError: ``git-error`` when the commit does not resolve; loader errors when
            the merged graph does not load.

    Implements D-4, D-5, D-12 (#4, #5, v3.38, v3.42, v3.44), D-19, D-29 v3.24, rulings 2, 4.
    """
    from network.record.source import CommitSource

    source: GraphSource = CommitSource(repo, merge_commit)
    graph = load_graph(source, cache=blob_cache.configured())
    date = commit_date(repo, merge_commit)
    seq = max((mr.record.seq for mr in graph.merges), default=0) + 1
    out = PostMerge(seq)
    own_tmp = work_dir is None
    wd = (Path(tempfile.mkdtemp(prefix="lemmata-postmerge-", dir=scratch_base()))
          if work_dir is None else work_dir)
    try:
        passed = [a for a in attestations if a.verdict == "pass"]
        for att in passed:
            done = att.model_copy(update={"merge_commit": merge_commit, "signature": None})
            if gate_key is not None:
                done = A.sign_attestation(done, gate_key, key_id)
            out.files[attestation_path(att)] = A.attestation_bytes(done)
        for att in passed:
            if att.artifact_kind in _ROUTE_KINDS:
                tc = _resolve_toolchain(toolchain, graph.targets[att.target].gate_spec)
                write_holes(graph, att, tc=tc, sandbox=sandbox, work_dir=wd, date=date,
                            out=out)
        for att in passed:  # D-3 v3.30: the outline of every merged proof
            if att.artifact_kind in outline.OUTLINED_KINDS:
                proof = _main_path(att)
                rec, why = outline.proof_outline(graph, att, proof, toolchain=toolchain,
                                                 sandbox=sandbox, work_dir=wd, merge_seq=seq)
                if rec is None:  # fail closed: no outline file, never a made-up one
                    out.notes.append(f"outline of {proof} not written: {why}")
                else:
                    out.files[outline.outline_path(proof)] = _dump_json(
                        _sign(rec, gate_key, key_id))
        added = merge_added_paths(repo, merge_commit, base)
        entries: list[m.LedgerLine | m.Revocation] = [
            *ledger_lines(graph, passed, seq, submitter, added=added),
            *correction_entries(graph, seq)]
        for entry in number_entries(graph, seq, entries):
            out.files[f"ledger/{seq:06d}-{entry.k}.json"] = _dump_json(_sign(entry, gate_key,
                                                                              key_id))
        artifacts: list[str] = []
        for att in passed:
            artifacts.extend(a.path for a in att.artifacts)
        artifacts.extend(p for p in sorted(out.files) if p.endswith("/META.yaml")
                         and p not in artifacts)
        if not passed:  # an intake merge: what it added is what it merged
            artifacts.extend(p for p in added if p not in artifacts)
        record = m.MergeRecord(seq=seq, merge_commit=merge_commit, date=date,
                               pull_request=pull_request, submitter=submitter,
                               artifacts=artifacts,
                               attestation=attestation_path(passed[0]) if passed else None)
        out.files[f"log/merges/{seq:06d}.json"] = _dump_json(_sign(record, gate_key, key_id))
        final = close_nodes(source, out.files, tc_for=toolchain, sandbox=sandbox,
                            work_dir=wd, seq=seq, key=gate_key, key_id=key_id, out=out)
        # issue 17: only the targets this merge touched are derived again
        for path, data in incremental.after_merge(repo, merge_commit, base, graph, final,
                                                  list(out.files)).items():
            out.files[path] = data
        schemas_dir = wd / "schemas-copy"
        schemas_dir.mkdir(parents=True, exist_ok=True)  # a record-only first merge: no
        # workspace was ever made under work_dir (issue 16)
        for rel in products.copy_schemas(schemas_dir):
            full = schemas_dir / rel
            if full.is_file():
                out.files[rel] = full.read_bytes()
        return out
    finally:
        if own_tmp:
            shutil.rmtree(wd, ignore_errors=True)


def run_postmerge(forge: object, repo: str | Path, merge_commit: str,
                  attestations: Sequence[m.Attestation], **kwargs: object) -> PostMerge:
    """Compute :func:`postmerge_files` and commit them through ``forge.commit_to_main``
    (a :class:`~network.forge.types.Forge`); returns the :class:`PostMerge` with the new main
    commit appended to its notes."""
    pm = postmerge_files(repo, merge_commit, attestations, **kwargs)  # type: ignore[arg-type]
    msg = f"post-merge {pm.seq}: record, ledger, holes, closure, products (D-4, D-12, D-19)"
    sha = forge.commit_to_main(pm.files, msg)  # type: ignore[attr-defined]
    pm.notes.append(f"committed {sha}")
    return pm
