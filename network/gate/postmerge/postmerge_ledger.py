"""The post-merge job's ledger lines (D-19): who is credited for what a merge added.

:func:`ledger_lines` says, for each pass attestation of a merge, which ledger entry its
main file earns (each rule in its docstring), :func:`correction_entries` the revocations
a confirmed defect calls for, and :func:`number_entries` numbers them in the merge's
sequence; :func:`merge_added_paths` reads which paths the merge commit added.
:mod:`network.gate.postmerge.postmerge` writes them as ``ledger/<seq>-<k>.json`` and re-exports
every name here (issue 17).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from network.errors import LemmataError
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph, Node

# --- ledger (D-19) --------------------------------------------------------------------

#: the route kinds (partial, reduction) whose holes the post-merge job writes
_ROUTE_KINDS = {"partial", "reduction"}


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

    A line whose attestation records a declared disclosure (anything but the empty
    ``undisclosed`` block) is a ``ledger-line/v2`` carrying it exactly (D-23 v3.37, issue
    35 item 3); every other line stays ``ledger-line/v1``.

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
            sha: str | None, annotation: str | None = None,
            disclosure: m.Disclosure | None = None) -> None:
        if identity is None or sha is None:
            return
        body: dict[str, Any] = {
            "merge_seq": seq, "k": len(out) + 1, "line": line, "identity": identity,
            "target": target, "node": node, "artifact": path, "artifact_sha256": sha,
            "annotation": annotation}
        # a declared disclosure reaches the line as the attestation records it (D-23
        # v3.37, issue 35 item 3): ledger-line/v2; an undeclared one stays v1 (D-34)
        out.append(m.LedgerLineV2(**body, disclosure=disclosure)
                   if disclosure is not None and disclosure != m.Disclosure()
                   else m.LedgerLine(**body))

    def add(line: str, identity: str | None, att: m.Attestation, path: str,
            annotation: str | None = None) -> None:
        sha = next((a.sha256 for a in att.artifacts if a.path == path), None)
        # the disclosure is the submitter's own declaration: it goes on the submitter's
        # lines only, never on a reviewer's or another author's (D-23 v3.37)
        own = att.disclosure if identity == (att.submitter or submitter) else None
        put(line, identity, att.target, att.node, path, sha, annotation, own)

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
