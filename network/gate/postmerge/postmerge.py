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
6. the products (:func:`network.record.products.products.products`, ruling 10's schemas copy);
7. (after the holes) the outline of every merged proof, ``outline/<proof>.json``
   (:mod:`network.gate.postmerge.outline`, D-3 v3.30), read from the kernel-checked term; absent
   (and noted) without Lean or when the toolchain could not answer, never made up.

Without a toolchain nothing that needs Lean is written: no hole node and no closure, and
:attr:`PostMerge.notes` says what was skipped and why (fail closed).

This module is the job; its parts are their own modules, each re-exported here (issue 17):
:mod:`network.gate.postmerge.postmerge_out` (:class:`PostMerge`, the overlay, the encoders),
:mod:`network.gate.postmerge.postmerge_ledger` (3), :mod:`network.gate.postmerge.postmerge_holes` (2) and
:mod:`network.gate.postmerge.postmerge_closure` (5).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network.gate import attestation as A
from network.gate.postmerge import outline
from network.gate.postmerge.postmerge_closure import (
    close_nodes,
    close_through_variant,
    join_text,
    variant_proof_sources,
)
from network.gate.postmerge.postmerge_holes import context_text, hole_gloss, write_holes
from network.gate.postmerge.postmerge_ledger import (
    _ROUTE_KINDS,
    _main_path,
    correction_entries,
    ledger_lines,
    merge_added_paths,
    number_entries,
)
from network.gate.postmerge.postmerge_out import OverlaySource, PostMerge, _dump_json, _sign
from network.gate.run import ToolchainSource, _resolve_toolchain, attestation_path, commit_date
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.scratch import scratch_base
from network.record import models as m
from network.record.products import incremental, products
from network.record.read import blob_cache
from network.record.read.loader import load_graph
from network.record.read.source import Source as GraphSource

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
    from network.record.read.source import CommitSource

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


#: every public name this module held before the ledger, the holes, closure and the job's
#: output moved to their own modules (issue 17)
__all__ = [
    "OverlaySource",
    "PostMerge",
    "close_nodes",
    "close_through_variant",
    "context_text",
    "correction_entries",
    "hole_gloss",
    "join_text",
    "ledger_lines",
    "merge_added_paths",
    "number_entries",
    "postmerge_files",
    "run_postmerge",
    "variant_proof_sources",
    "write_holes",
]
