"""Every derivation over the record: one shared function per derived fact (D-25 v3.40).

Statuses, flags, the frontier, routes, sufficient sets, labels, target status, the ledger
views and a target's proofs are all computed here from a loaded
:class:`~network.record.loader.Graph` and from nothing else: no wall clock, no network,
no service state (Foundation rulings 1, 2 and 13). The read tool, the service, the site and
``lemmata products`` call these same functions so they can never disagree.

Conventions:

* A node is addressed by ``(target, node)`` ids.
* "now" is the date of the newest ``log/merges`` record (ruling 2); dates are published as
  ISO-8601 UTC strings (``2026-11-29T00:00:00Z``), never as ages.
* A file is *merged* when a ``pass`` attestation names its path with its SHA-256, and an
  attestation is a verdict only when a gate key of ``keys/`` valid on its timestamp signs
  it (ruling 14).
* A role record (a steward record, a curator's dormancy or dispute record, a shelving, a
  withdrawal resting on its author's role, a steward's or curator's literature reading, an
  approval) counts only when its signature verifies for a holder of that role on the
  record's date (:mod:`network.record.trust`); one that does not is listed by
  :func:`unverified` and changes no status.
* A withdrawn record (D-18 v3.27) reads as absent everywhere.
* The record's order is: targets and nodes by id, attempts by (timestamp, path), records by
  (date, path). Nothing is ranked.

All derivations are memoised per :class:`Graph` object; a Graph is a snapshot and must not
be mutated after loading.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from typing import Any

from network.record import models as m
from network.record.derive._common import (
    CATALOG_EVIDENCE_POINTS as CATALOG_EVIDENCE_POINTS,
)
from network.record.derive._common import (
    CLOSED as CLOSED,
)
from network.record.derive._common import (
    GRADES_VOUCHING as GRADES_VOUCHING,
)
from network.record.derive._common import (
    PRODUCT_SET_CAP as PRODUCT_SET_CAP,
)
from network.record.derive._common import (
    PROOF_KINDS as PROOF_KINDS,
)
from network.record.derive._common import (
    ROUTE_KINDS as ROUTE_KINDS,
)
from network.record.derive._common import (
    SET_ENUMERATION_CAP as SET_ENUMERATION_CAP,
)
from network.record.derive._common import (
    STATUSES as STATUSES,
)
from network.record.derive._common import (
    Label as Label,
)
from network.record.derive._common import (
    NodeFlags as NodeFlags,
)
from network.record.derive._common import (
    NodeState as NodeState,
)
from network.record.derive._common import (
    TargetStatus as TargetStatus,
)
from network.record.derive._common import (
    _is_role_record as _is_role_record,
)
from network.record.derive._common import (
    _removals_need_two as _removals_need_two,
)
from network.record.derive._common import (
    _TargetIndex as _TargetIndex,
)
from network.record.derive._common import (
    norm_date as norm_date,
)
from network.record.derive._index import (
    _CACHE as _CACHE,
)
from network.record.derive._index import (
    _check as _check,
)
from network.record.derive._index import (
    _Index as _Index,
)
from network.record.derive._index import (
    _ix as _ix,
)
from network.record.derive._shared import (
    _attempt_facts as _attempt_facts,
)
from network.record.derive._shared import (
    _footprint as _footprint,
)
from network.record.derive._shared import (
    _on_frontier as _on_frontier,
)
from network.record.derive._shared import (
    _postmortems as _postmortems,
)
from network.record.derive._shared import (
    _proved_date as _proved_date,
)
from network.record.derive._shared import (
    _ready_since as _ready_since,
)
from network.record.derive._shared import (
    _ready_since_uncached as _ready_since_uncached,
)
from network.record.derive._shared import (
    _route_alive as _route_alive,
)
from network.record.derive.frontier_view import (
    _frontier_entry as _frontier_entry,
)
from network.record.derive.frontier_view import (
    attempt_facts as attempt_facts,
)
from network.record.derive.frontier_view import (
    frontier as frontier,
)
from network.record.derive.frontier_view import (
    frontier_entry as frontier_entry,
)
from network.record.derive.frontier_view import (
    on_frontier as on_frontier,
)
from network.record.derive.frontier_view import (
    ready_since as ready_since,
)
from network.record.derive.labels import (
    _APPROACH_RE as _APPROACH_RE,
)
from network.record.derive.labels import (
    _DISPLAY_RE as _DISPLAY_RE,
)
from network.record.derive.labels import (
    _HEX64_RE as _HEX64_RE,
)
from network.record.derive.labels import (
    _SENTENCE_RE as _SENTENCE_RE,
)
from network.record.derive.labels import (
    _current_gloss as _current_gloss,
)
from network.record.derive.labels import (
    _first_comment_paragraph as _first_comment_paragraph,
)
from network.record.derive.labels import (
    _first_sentence as _first_sentence,
)
from network.record.derive.labels import (
    _node_label as _node_label,
)
from network.record.derive.labels import (
    node_label as node_label,
)
from network.record.derive.labels import (
    route_approach as route_approach,
)
from network.record.derive.literature import (
    literature_awaiting as literature_awaiting,
)
from network.record.derive.literature import (
    literature_status as literature_status,
)
from network.record.derive.roles import (
    curators_of as curators_of,
)
from network.record.derive.roles import (
    holds_role as holds_role,
)
from network.record.derive.roles import (
    is_merged as is_merged,
)
from network.record.derive.roles import (
    now as now,
)
from network.record.derive.roles import (
    panel_of as panel_of,
)
from network.record.derive.roles import (
    panel_state as panel_state,
)
from network.record.derive.roles import (
    policy_numbers as policy_numbers,
)
from network.record.derive.roles import (
    steward_targets as steward_targets,
)
from network.record.derive.roles import (
    stewards_of as stewards_of,
)
from network.record.derive.roles import (
    unverified as unverified,
)
from network.record.derive.roles import (
    withdrawn as withdrawn,
)
from network.record.derive.routes import (
    node_routes as node_routes,
)
from network.record.derive.routes import (
    route_alive as route_alive,
)
from network.record.derive.routes import (
    route_facts as route_facts,
)
from network.record.derive.routes import (
    route_holes as route_holes,
)
from network.record.derive.routes import (
    target_routes as target_routes,
)
from network.record.derive.sets import (
    _alternatives as _alternatives,
)
from network.record.derive.sets import (
    _Cons as _Cons,
)
from network.record.derive.sets import (
    _ConsPair as _ConsPair,
)
from network.record.derive.sets import (
    _Enum as _Enum,
)
from network.record.derive.sets import (
    _enumerate as _enumerate,
)
from network.record.derive.sets import (
    _MemberFacts as _MemberFacts,
)
from network.record.derive.sets import (
    _split as _split,
)
from network.record.derive.sets import (
    _unlink as _unlink,
)
from network.record.derive.sets import (
    _unlink_pairs as _unlink_pairs,
)
from network.record.derive.sets import (
    selector as selector,
)
from network.record.derive.sets import (
    sufficient_sets as sufficient_sets,
)
from network.record.derive.shelving import (
    ShelvingReach as ShelvingReach,
)
from network.record.derive.shelving import (
    shelving_reach as shelving_reach,
)
from network.record.derive.shelving import (
    standing_shelving as standing_shelving,
)
from network.record.derive.status import (
    _claimable as _claimable,
)
from network.record.derive.status import (
    claimable as claimable,
)
from network.record.derive.status import (
    is_question as is_question,
)
from network.record.derive.status import (
    node_flags as node_flags,
)
from network.record.derive.status import (
    node_state as node_state,
)
from network.record.derive.status import (
    node_status as node_status,
)
from network.record.derive.targets import (
    _digestion as _digestion,
)
from network.record.derive.targets import (
    _is_progress_path as _is_progress_path,
)
from network.record.derive.targets import (
    _progress_since as _progress_since,
)
from network.record.derive.targets import (
    _target_status_uncached as _target_status_uncached,
)
from network.record.derive.targets import (
    completed_review_vouches as completed_review_vouches,
)
from network.record.derive.targets import (
    root_vouched as root_vouched,
)
from network.record.derive.targets import (
    root_vouched_ix as root_vouched_ix,
)
from network.record.derive.targets import (
    target_status as target_status,
)
from network.record.derive.targets import (
    target_status_ix as target_status_ix,
)
from network.record.loader import Graph, Node


def target_proofs(graph: Graph, target: str) -> list[dict[str, Any]]:
    """Every way the target is proved, in the record's order, ranking nothing (D-25 v3.26).

    The root's merged Proof.lean or holding closure, its merged alternates, and for each
    proved resolves variant its proof or closure and alternates; each with ``rests_on``,
    the nodes its proof rests on (declared deps for a direct proof or alternate, the
    closure footprint for a closure). Returns ``[{node, kind, path, rests_on}]``.
    """
    ix = _ix(graph)
    root = ix.root_of(target)
    if root is None:
        return []
    out: list[dict[str, Any]] = []
    candidates = [root] + [v for v in ix.t[target].variants
                           if (rel := ix.node(target, v).meta.variant) is not None
                           and rel.relation == "resolves" and ix.status(target, v) == "proved"]
    for nid in candidates:
        n = ix.node(target, nid)
        deps = [ix.current(target, d) for d in n.meta.deps if ix.has(target, d)]
        if ix.file_merged(n, "Proof"):
            out.append({"node": nid, "kind": "proof", "path": n.files["Proof"].path,
                        "rests_on": deps})
        else:
            cpath = ix.valid_closure(target, nid, "proved")
            if cpath is not None:
                out.append({"node": nid, "kind": "closure", "path": cpath,
                            "rests_on": _footprint(ix, target, nid)[1:]})
        for a in n.attempts:
            if a.kind == "alternate" and ix.is_merged(a.path, a.sha256) and ix.present(a.path):
                out.append({"node": nid, "kind": "alternate", "path": a.path, "rests_on": deps})
    return out


def target_closures(graph: Graph, target: str) -> list[dict[str, Any]]:
    """Every standing closure record of the target (D-25 v3.42): ``{node, path, link,
    route, inputs: [{node, proof}], verdict, merge_seq, holds}``; ``holds`` says whether
    every input still reads proved (and a root is vouched)."""
    ix = _ix(graph)
    out: list[dict[str, Any]] = []
    for nid in graph.targets[target].nodes:
        for path, rec in ix.closures(target, nid):
            out.append({"node": nid, "path": path, "link": rec.link, "route": rec.route,
                        "inputs": [{"node": i.node, "proof": i.proof} for i in rec.inputs],
                        "verdict": rec.verdict, "merge_seq": rec.merge_seq,
                        "holds": ix.closure_holds(target, rec)})
    return out


def ledger_views(graph: Graph) -> dict[str, list[dict[str, Any]]]:
    """Ledger lines per identity (D-19), revoked lines kept and shown as revoked (D-18).

    Returns:
        ``{identity: [{path, merge_seq, k, line, target, node, artifact, revoked,
        revoked_by, corrections: [paths], annotation}]}``, identities sorted, lines in
        (merge_seq, k) order. A revocation or correction naming no line changes nothing;
        a correction the post-merge job applied shows as the old line revoked and the
        corrected line, annotated with both paths (D-19 v3.27).
    """
    ix = _ix(graph)
    revoked: dict[str, str] = {}
    corrections: dict[str, list[str]] = {}
    for rf in graph.ledger:
        rec = rf.record
        if not ix.present(rf.path):
            continue
        if isinstance(rec, m.Revocation):
            revoked.setdefault(rec.revokes, rf.path)
        elif isinstance(rec, m.Correction):
            corrections.setdefault(rec.corrects, []).append(rf.path)
    views: dict[str, list[dict[str, Any]]] = {}
    lines = sorted((rf for rf in graph.ledger if isinstance(rf.record, m.LedgerLine)),
                   key=lambda rf: (rf.record.merge_seq, rf.record.k, rf.path))
    for rf in lines:
        rec = rf.record
        assert isinstance(rec, m.LedgerLine)
        views.setdefault(rec.identity, []).append({
            "path": rf.path, "merge_seq": rec.merge_seq, "k": rec.k, "line": rec.line,
            "target": rec.target, "node": rec.node, "artifact": rec.artifact,
            "revoked": rf.path in revoked, "revoked_by": revoked.get(rf.path),
            "corrections": corrections.get(rf.path, []), "annotation": rec.annotation,
        })
    return dict(sorted(views.items()))


_APPROACH_KEYS = ("title", "state", "cause", "route", "outcome", "detail",
                  "pinned_mathlib_sha", "model_and_tooling")


def approach_views(graph: Graph, target: str) -> list[dict[str, Any]]:
    """A target's approach records (D-14 mechanism 3) as the products publish them, both
    versions, in (date, path) order, withdrawn ones left out (D-14 v3.27).

    Returns:
        ``[{path, schema, author, date, nodes, references, title, state, cause, route,
        outcome, detail, pinned_mathlib_sha, model_and_tooling, target_mathlib, stale}]``;
        a key a record's version lacks is None. ``target_mathlib`` is the target's
        gate-spec Mathlib pin (None when it pins none). ``stale`` is D-14's flag: True for
        an ``approach/v2`` record whose ``pinned_mathlib_sha`` is not that pin ("a strategy
        declared dead is dead relative to a Mathlib SHA"), False when it is, and None for
        an ``approach/v1`` record, which carries no pin, so its staleness is unknown.

    Raises:
        KeyError: no such target.
    """
    ix = _ix(graph)
    t = graph.targets[target]
    pin = t.gate_spec.mathlib.rev if t.gate_spec.mathlib is not None else None
    out: list[dict[str, Any]] = []
    for rf in sorted(t.approaches, key=lambda r: (norm_date(r.record.date), r.path)):
        if not ix.present(rf.path):
            continue
        rec = rf.record
        body = rec.model_dump(mode="json", by_alias=True, exclude_none=True)
        view: dict[str, Any] = {"path": rf.path, "schema": rec.SCHEMA_KIND,
                                "author": rec.author, "date": rec.date,
                                "nodes": list(rec.nodes),
                                "references": body.get("references", [])}
        view.update({k: body.get(k) for k in _APPROACH_KEYS})
        view["target_mathlib"] = pin
        view["stale"] = (rec.pinned_mathlib_sha != pin if isinstance(rec, m.ApproachV2)
                         else None)
        out.append(view)
    return out


def correction_marker(path: str) -> str:
    """The words a revocation applying the correction at ``path`` opens its ``reason``
    with (D-19 v3.27): how the post-merge job, and every reader, knows the correction has
    been applied, so applying it again changes nothing."""
    return f"correction {path}: "


def pending_corrections(graph: Graph) -> list[tuple[str, m.Correction, str, m.LedgerLine]]:
    """The credit corrections on the record the post-merge job has still to apply
    (D-19 v3.27, D-18 v3.27): ``[(correction path, correction, corrected line's path,
    corrected line)]`` in path order.

    A correction counts only when it names a ledger line on the record (``corrects``), the
    identity it says was credited is the line's (``credited``), the identity that should
    be differs from it (``should_be``, or None for nobody), and a listed curator of the
    line's target signed it as its ``by`` (ruling 14; dated at the record's clock, the
    newest merge). It is applied once: a revocation of that line whose reason opens with
    :func:`correction_marker` of its path means it was, and nothing more is written.
    """
    ix = _ix(graph)
    lines: dict[str, m.LedgerLine] = {rf.path: rf.record for rf in graph.ledger
                                      if isinstance(rf.record, m.LedgerLine)}
    reasons: dict[str, list[str]] = {}
    for rf in graph.ledger:
        if isinstance(rf.record, m.Revocation):
            reasons.setdefault(rf.record.revokes, []).append(rf.record.reason)
    when = ix.now
    out: list[tuple[str, m.Correction, str, m.LedgerLine]] = []
    for rf in sorted(graph.ledger, key=lambda r: r.path):
        corr = rf.record
        if not isinstance(corr, m.Correction) or when is None:
            continue
        line = lines.get(corr.corrects)
        if line is None or corr.credited != line.identity or corr.should_be == line.identity:
            continue
        marker = correction_marker(rf.path)
        if any(r.startswith(marker) for r in reasons.get(corr.corrects, [])):
            continue
        if line.target not in graph.targets or corr.by not in ix.curators_of(line.target):
            continue
        if not ix.role_signed(rf.path, corr, corr.by, when, line.target, stewards=False):
            continue
        out.append((rf.path, corr, corr.corrects, line))
    return out


def node_view(graph: Graph, target: str, node: str) -> dict[str, Any]:
    """A node as graph.json publishes it: id, status, flags, label/claim/label_source,
    origin, deps, lemmas, hole, supersedes, superseded_by, variant, statement_hash, merged
    files, ready_since, claimable, literature, shelving record, closures (D-25 v3.42/v3.44).

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    n = ix.node(target, node)
    meta = n.meta
    lab = node_label(graph, target, node)
    ok, why = claimable(graph, target, node)
    merged_files = {name: lf.path for name, lf in sorted(n.files.items())
                    if ix.is_merged(lf.path, lf.sha256)}
    return {
        "id": node,
        "status": ix.status(target, node),
        "flags": node_flags(graph, target, node).to_dict(),
        "label": lab.label, "claim": lab.claim, "label_source": lab.source,
        "origin": meta.origin,
        "deps": list(meta.deps), "lemmas": list(meta.lemmas),
        "hole": meta.hole.model_dump() if meta.hole else None,
        "supersedes": meta.supersedes,
        "superseded_by": ix.t[target].superseded_by.get(node),
        "variant": meta.variant.model_dump() if meta.variant else None,
        "statement_hash": meta.statement_hash,
        "merged": merged_files,
        "ready_since": _ready_since(ix, target, node),
        "claimable": ok, "claimable_reason": why,
        "literature": literature_status(graph, target, node),
        "shelving": ix.shelving_record(target, node),
        "on_frontier": _on_frontier(ix, target, node),
        **_attempt_facts(ix, n),
    }


def target_edges(graph: Graph, target: str) -> list[dict[str, Any]]:
    """Edges of the target's graph in the record's order: ``{from, to, kind}`` with kind
    ``hole`` (parent → hole, with its route), ``lemma``, ``dep``, ``variant`` (variant →
    its root, with the relation) and ``supersedes`` (old → revision)."""
    out: list[dict[str, Any]] = []
    t = graph.targets[target]
    for nid, n in t.nodes.items():
        meta = n.meta
        if meta.hole is not None:
            out.append({"from": meta.hole.parent, "to": nid, "kind": "hole",
                        "route": meta.hole.route})
        for lem in meta.lemmas:
            out.append({"from": nid, "to": lem, "kind": "lemma"})
        for dep in meta.deps:
            out.append({"from": nid, "to": dep, "kind": "dep"})
        if meta.variant is not None:
            out.append({"from": nid, "to": meta.variant.of, "kind": "variant",
                        "relation": meta.variant.relation})
        if meta.supersedes:
            out.append({"from": meta.supersedes, "to": nid, "kind": "supersedes"})
    return out


def target_summary(graph: Graph, target: str) -> dict[str, Any]:
    """One targets/index.json entry: id, title, class, calibration, status (D-33), root and
    its status, fidelity grade, stewards, root_vouched, node and frontier counts, status
    histogram, and the starvation series (D-25: ready nodes, and those with zero attempts
    ready for at least ``policy.starvation_days``, measured against "now")."""
    ix = _ix(graph)
    t = graph.targets[target]
    root = ix.root_of(target)
    hist = Counter(ix.status(target, nid) for nid in t.nodes)
    ready = [nid for nid in t.nodes if _on_frontier(ix, target, nid)]
    starving = 0
    days = int(t.record.policy.get("starvation_days", graph.policy.starvation_days))
    if ix.now is not None:
        for nid in ready:
            rs = _ready_since(ix, target, nid)
            if rs and _days_between(rs, ix.now) >= days and \
                    _attempt_facts(ix, t.nodes[nid])["attempts"] == 0:
                starving += 1
    return {
        "id": target, "title": t.record.title, "class": t.record.target_class,
        "calibration": t.record.calibration,
        "status": target_status(graph, target).to_dict(),
        "root": root, "root_status": ix.status(target, root) if root else None,
        "fidelity_grade": t.record.fidelity.grade,
        "root_vouched": root_vouched(graph, target),
        "stewards": ix.stewards_of(target),
        "nodes": len(t.nodes), "frontier": len(ready),
        "statuses": {s: hist.get(s, 0) for s in STATUSES},
        "starvation": {"days": days, "ready": len(ready), "zero_attempts": starving},
        "gate_spec_sha256": t.gate_spec_sha256,
    }


@functools.lru_cache(maxsize=4096)
def _days_between(a: str, b: str) -> int:
    from datetime import datetime

    fa = datetime.strptime(a, "%Y-%m-%dT%H:%M:%SZ")
    fb = datetime.strptime(b, "%Y-%m-%dT%H:%M:%SZ")
    return (fb - fa).days


def graph_view(graph: Graph, target: str) -> dict[str, Any]:
    """The body of ``targets/<id>/graph.json`` (D-25 v3.26/v3.40/v3.42/v3.44/v3.46): the
    target's status, nodes (:func:`node_view`), edges, routes, closures, sufficient sets,
    the selector, the proofs list and the approach records with their staleness
    (:func:`approach_views`, D-14), in the record's order.

    Raises:
        KeyError: no such target.
    """
    sets = sufficient_sets(graph, target, cap=PRODUCT_SET_CAP)
    return {
        "schema": "graph/v1",
        "target": target,
        "as_of": now(graph),
        "title": graph.targets[target].record.title,
        "status": target_status(graph, target).to_dict(),
        "root_vouched": root_vouched(graph, target),
        "nodes": [node_view(graph, target, nid) for nid in graph.targets[target].nodes],
        "edges": target_edges(graph, target),
        "routes": target_routes(graph, target),
        "closures": target_closures(graph, target),
        "sufficient_sets": sets,
        "selector": selector(graph, target, sets),
        "proofs": target_proofs(graph, target),
        "approaches": approach_views(graph, target),
    }


def nodes_of(graph: Graph) -> Iterable[tuple[str, str]]:
    """Every ``(target, node)`` in the record's order."""
    for tid, t in graph.targets.items():
        for nid in t.nodes:
            yield tid, nid


def merge_of(graph: Graph, path: str) -> dict[str, Any] | None:
    """The first merge record naming ``path`` among its artifacts (ruling 2), or None.

    Returns:
        ``{seq, merge_commit, date, pull_request}``; ``date`` a full ISO-8601 UTC timestamp.
        The site links a proof "at the merged commit" with it (D-36).
    """
    ix = _ix(graph)
    seq = ix.merge_seq_of.get(path)
    if seq is None:
        return None
    for mr in graph.merges:
        if mr.record.seq == seq:
            rec = mr.record
            return {"seq": rec.seq, "merge_commit": rec.merge_commit,
                    "date": norm_date(rec.date), "pull_request": rec.pull_request}
    return None


def route_class_histogram(graph: Graph, target: str, node: str) -> dict[str, int]:
    """How many standing postmortems (D-13) of the node name each ``route_class``, keys
    sorted. Withdrawn postmortems are absent (D-18 v3.27).

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    hist = Counter(a.postmortem.route_class for a in _postmortems(ix, ix.node(target, node))
                   if a.postmortem)
    return dict(sorted(hist.items()))


EVENT_KINDS = {
    "statement": "statements proposed",
    "proof": "proofs merged",
    "partial": "partial proofs merged",
    "attempts": "postmortems filed",
    "writeup": "write-ups recorded",
    "review": "reviews recorded",
    "upstream": "results upstreamed",
    "words": "words written",
    "signatures": "signatures given",
}
"""The kinds of home-page event (D-36 v3.48) and the phrase each row reads under."""
_EVENT_ORDER = {k: i for i, k in enumerate(EVENT_KINDS)}


def record_events(graph: Graph) -> list[dict[str, Any]]:
    """What happened lately on the record, newest first (D-36 v3.48).

    Events come from the ledger's active lines (a revoked line is credit withdrawn, not
    news, D-18), each dated by its merge record; and from every standing gloss and
    explainer version (``words``), with its approvals (``signatures``), each dated by the
    version's own ``date``. A ``proof`` line whose artifact is a partial or reduction is a
    ``partial`` event. One day's events of one kind on one target make one row.

    Returns:
        ``[{day: "YYYY-MM-DD", kind, phrase, target, count, items: [{path, identity,
        node}]}]``: days newest first; within a day, kinds in :data:`EVENT_KINDS` order and
        targets by id; items in record order. Never the build's clock (ruling 2).
    """
    ix = _ix(graph)
    revoked = {rf.record.revokes for rf in graph.ledger
               if isinstance(rf.record, m.Revocation) and ix.present(rf.path)}
    rows: dict[tuple[str, str, str], list[dict[str, Any]]] = {}

    def add(day: str, kind: str, target: str, item: dict[str, Any]) -> None:
        rows.setdefault((day, kind, target), []).append(item)

    lines = sorted((rf for rf in graph.ledger if isinstance(rf.record, m.LedgerLine)),
                   key=lambda rf: (rf.record.merge_seq, rf.record.k, rf.path))
    for rf in lines:
        rec = rf.record
        assert isinstance(rec, m.LedgerLine)
        if rf.path in revoked or not ix.present(rf.path):
            continue
        date = ix.merge_date.get(rec.merge_seq)
        if date is None:
            continue
        kind: str = rec.line
        if kind == "proof" and rec.artifact.endswith(("-partial.lean", "-reduction.lean")):
            kind = "partial"
        add(date[:10], kind, rec.target,
            {"path": rec.artifact, "identity": rec.identity, "node": rec.node})
    for tid, t in graph.targets.items():
        for nid, n in t.nodes.items():
            words: list[Any] = sorted([*n.glosses, *n.explainers],
                           key=lambda rf: (norm_date(rf.record.date), rf.path))
            for w in words:
                if not ix.present(w.path):
                    continue
                day = norm_date(w.record.date)[:10]
                add(day, "words", tid, {"path": w.path, "identity": w.record.author,
                                        "node": nid})
                for sig in ix.approved(tid, w.record):
                    add(day, "signatures", tid, {"path": w.path, "identity": sig.signer,
                                                 "node": nid})
    out: list[dict[str, Any]] = [{"day": day, "kind": kind, "phrase": EVENT_KINDS.get(kind, kind), "target": tid,
            "count": len(items), "items": items}
           for (day, kind, tid), items in rows.items()]
    out.sort(key=lambda r: (r["target"]))
    out.sort(key=lambda r: _EVENT_ORDER.get(r["kind"], len(_EVENT_ORDER)))
    out.sort(key=lambda r: r["day"], reverse=True)
    return out


def words_chains(graph: Graph, target: str, node: str, kind: str) -> list[dict[str, Any]]:
    """The node's gloss (``kind="gloss"``) or explainer (``"explainer"``) version chains
    (ruling 11, D-3 v3.30/v3.31), withdrawn versions absent.

    A chain starts at a version with no ``supersedes``; each later version whose
    ``supersedes`` names a member joins it; the current version is the chain's latest.

    Returns:
        ``[{describes, current, history}]`` in record order (date, path) of the chains'
        first versions; ``current`` and each of ``history`` (oldest first, current last)
        are ``{path, author, date, label, sections: [{steps, text, drafted_with}],
        approvals: [signer] (verified approvals only, embedded or approval/v1 records,
        ruling 14), section_states (:func:`network.record.approvals.section_states`),
        supersedes}``; each chain also has ``reads``, the version a reader is shown
        (the newest with no pending section, v3.31).

    Raises:
        LemmataError: ``unknown-node``. ValueError: an unknown ``kind``.
    """
    from network.record import approvals  # imports this module

    ix = _ix(graph)
    _check(ix, target, node)
    n = ix.node(target, node)
    if kind not in ("gloss", "explainer"):
        raise ValueError(f"no words kind {kind!r}")
    recs: list[Any] = n.glosses if kind == "gloss" else n.explainers
    versions = sorted(((norm_date(rf.record.date), rf.path, rf.record) for rf in recs
                       if ix.present(rf.path)), key=lambda x: (x[0], x[1]))
    chains: list[dict[str, Any]] = []
    member: dict[str, int] = {}
    for date, path, rec in versions:
        view = {"path": path, "author": rec.author, "date": date,
                "label": getattr(rec, "label", None),
                "sections": [{"steps": list(s.steps), "text": s.text,
                              "drafted_with": list(s.drafted_with)} for s in rec.sections],
                "approvals": list(dict.fromkeys(
                    a["by"] for a in approvals.approvals_of(graph, target, n, path))),
                "section_states": approvals.section_states(graph, target, n, path),
                "supersedes": rec.supersedes}
        at = member.get(rec.supersedes) if rec.supersedes else None
        if at is None:
            at = len(chains)
            chains.append({"describes": rec.describes, "current": view, "history": []})
        chains[at]["history"].append(view)
        chains[at]["current"] = view
        member[path] = at
    for c in chains:  # v3.31: a change over verified words is read once approved
        c["reads"] = approvals.reading_version(graph, target, n,
                                               [v["path"] for v in c["history"]])
    return chains


#: Kinds of file :func:`words_needed` lists (D-28 list_words_needed, D-3 v3.30/v3.44).
WORDS_KINDS = ("statement", "witness", "relation", "proof", "partial")
_WORDS_FILES = {"Statement": "statement", "Witness": "witness", "Relation": "relation"}


def words_needed(graph: Graph, target: str | None = None,
                 kind: str | None = None) -> list[dict[str, Any]]:
    """Every Lean file and merged proof of the record that still lacks words (D-28
    list_words_needed, notation notes 2026-10-05/06; D-3 v3.30/v3.31/v3.44).

    What needs words, and which words count:

    * ``statement``, ``witness``, ``relation``: a node's Statement.lean (not a root's: its
      words of record are the target's curated informal statement, D-6, D-9),
      Witness.lean and Relation.lean need a gloss chain describing the file.
    * ``proof``: a node's merged Proof.lean and its recorded alternates need an explainer
      chain (D-3 v3.30); only these, since the gate accepts an explainer only on a node
      with a merged proof (``explainer-without-proof``).
    * ``partial``: a merged partial or reduction (its file under attempts/) needs a gloss
      or an explainer chain (v3.44).

    A file lacks words when no chain of the counting kind with a non-withdrawn version
    describes it (``why`` = ``no-gloss`` / ``no-explainer`` / ``no-words``), or when every
    such chain's current version describes bytes other than the file's current SHA-256
    (``why`` = ``words-describe-earlier-text``). Definition modules are not listed: the
    record has no place for a target-level gloss yet. Outlines are not yet products, so
    ``outline`` is None. Nothing is ranked (D-25): the order is target, node, file path.

    Args:
        graph: the loaded record.
        target: keep only this target's files, or None for all.
        kind: keep only this kind (one of :data:`WORDS_KINDS`), or None.

    Returns:
        ``[{target, node, file, sha256, kind, words, why, status, outline}]`` where
        ``words`` is ``gloss``, ``explainer`` or ``gloss-or-explainer`` and ``status`` the
        node's derived status.

    Raises:
        LemmataError: ``unknown-node`` when ``target`` names no target. ValueError: an
            unknown ``kind`` (the service checks it first).
    """
    from network.errors import LemmataError

    if kind is not None and kind not in WORDS_KINDS:
        raise ValueError(f"no words kind {kind!r}")
    if target is not None and target not in graph.targets:
        raise LemmataError("unknown-node", f"no target {target}")
    ix = _ix(graph)
    out: list[dict[str, Any]] = []
    for tid in sorted(graph.targets) if target is None else [target]:
        t = graph.targets[tid]
        for nid in sorted(t.nodes):
            n = t.nodes[nid]
            wanted: list[tuple[str, str, str, str]] = []  # (file, sha, kind, words)
            for name, k in _WORDS_FILES.items():
                lf = n.files.get(name)
                if lf is None or (k == "statement" and ix.is_root(tid, nid)):
                    continue
                wanted.append((lf.path, lf.sha256, k, "gloss"))
            proof = n.files.get("Proof")
            if proof is not None:
                wanted.append((proof.path, proof.sha256, "proof", "explainer"))
                wanted.extend((a.path, a.sha256, "proof", "explainer")
                              for a in n.attempts if a.kind == "alternate")
            wanted.extend((a.path, a.sha256, "partial", "gloss-or-explainer")
                          for a in n.attempts
                          if a.kind in ROUTE_KINDS and ix.is_merged(a.path, a.sha256))
            if not any(kind in (None, w[2]) for w in wanted):
                continue
            chains = {"gloss": words_chains(graph, tid, nid, "gloss"),
                      "explainer": words_chains(graph, tid, nid, "explainer")}
            status = ix.status(tid, nid)
            for path, sha, k, words in sorted(wanted):
                if kind is not None and k != kind:
                    continue
                kinds = ("gloss", "explainer") if words == "gloss-or-explainer" else (words,)
                found = [c for w in kinds for c in chains[w] if c["describes"] == path]
                if not found:
                    why = {"gloss": "no-gloss", "explainer": "no-explainer"}.get(words, "no-words")
                elif not any(_describes_current(n, c, sha) for c in found):
                    why = "words-describe-earlier-text"
                else:
                    continue
                out.append({"target": tid, "node": nid, "file": path, "sha256": sha,
                            "kind": k, "words": words, "why": why, "status": status,
                            "outline": None})
    return out


def _describes_current(n: Node, chain: dict[str, Any], sha: str) -> bool:
    """Whether ``chain``'s current version names ``sha`` as the text it describes."""
    path = chain["current"]["path"]
    named = {rf.path: rf.record.describes_sha256 for rf in n.glosses}
    named.update({rf.path: rf.record.describes_sha256 for rf in n.explainers})
    return named.get(path) == sha


def registrations(graph: Graph, target: str | None = None) -> list[dict[str, Any]]:
    """Every registration of a target in a public registry, as the record holds it (D-3,
    D-10 v3.37, D-28 ``list_registrations``).

    A registration record counts when a curator of its target or a listed steward signed
    it while holding the role (ruling 14); one a withdrawal record (v3.27) names is set
    aside. Per (target, registry, registry id) the latest counting record (by date, then
    path) is the one read. Answered in the record's order (target, date, path), ranking
    nothing.

    Args:
        target: a target id, or None for every target.

    Returns:
        ``[{target, registry, registry_id, version, state, repository, commit,
        graph_commit, proof, attestation, by, date, path, superseded: [paths]}]``;
        ``superseded`` lists the earlier counting records of the same registry id.

    Raises:
        KeyError: no such target.
    """
    ix = _ix(graph)
    tids = sorted(graph.targets) if target is None else [graph.targets[target].id]
    out: list[dict[str, Any]] = []
    for tid in tids:
        by_id: dict[tuple[str, str], list[tuple[str, str, m.Registration]]] = {}
        for rf in graph.targets[tid].registrations:
            rec = rf.record
            if rf.path in ix.withdrawn or not ix.role_signed(rf.path, rec, rec.by, rec.date,
                                                             tid):
                continue
            by_id.setdefault((rec.registry, rec.registry_id), []).append(
                (norm_date(rec.date), rf.path, rec))
        rows = []
        for recs in by_id.values():
            recs.sort(key=lambda x: (x[0], x[1]))
            date, path, rec = recs[-1]
            rows.append((date, path, {
                "target": tid, "registry": rec.registry, "registry_id": rec.registry_id,
                "version": rec.version, "state": rec.state, "repository": rec.repository,
                "commit": rec.commit, "graph_commit": rec.graph_commit, "proof": rec.proof,
                "attestation": rec.attestation, "by": rec.by, "date": rec.date, "path": path,
                "superseded": [p for _d, p, _r in recs[:-1]]}))
        out.extend(row for _d, _p, row in sorted(rows, key=lambda x: (x[0], x[1])))
    return out
