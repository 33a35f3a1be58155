"""The body of ``targets/<id>/graph.json`` and a ``targets/index.json`` entry: nodes, edges,
proofs (D-25 v3.26), closures (D-25 v3.42), approach records (D-14), the target summary
with its starvation series (D-25).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from typing import Any

from network.record import models as m
from network.record.derive._common import PRODUCT_SET_CAP, STATUSES, norm_date
from network.record.derive._index import _check, _ix
from network.record.derive._shared import _attempt_facts, _footprint, _on_frontier, _ready_since
from network.record.derive.labels import node_label
from network.record.derive.literature import literature_status
from network.record.derive.roles import now
from network.record.derive.routes import target_routes
from network.record.derive.sets import selector, sufficient_sets
from network.record.derive.status import claimable, node_flags
from network.record.derive.targets import review_state, root_vouched, target_status
from network.record.read.loader import Graph


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
        "review": review_view(graph, target),
    }


def review_view(graph: Graph, target: str) -> dict[str, Any] | None:
    """graph.json's ``review`` (D-9 v3.39; docs/review.md): the target's formalization
    review as :func:`~network.record.derive.review_state` derives it, as JSON, or None when
    no review stands. Candidates carry their record path, Lean path, author, origin, the
    model that helped, the blind-rule declaration, concepts (word → predicate), stage-3
    outcome and screens; ``tests`` is the intent-test matrix (each candidate's probe);
    the Lean itself is read from the record (the service withholds it under the blind
    rule, not the product: every file of the graph is public).

    Raises:
        KeyError: no such target.
    """
    st = review_state(graph, target)
    if st is None:
        return None
    return {
        "opening": st.opening, "held": st.held, "role": st.opening_record.role,
        "opened_by": st.opening_record.by, "words": st.opening_record.words,
        "cases": [c.model_dump(mode="json") for c in st.opening_record.cases],
        "intent_signer": st.intent_signer,
        "candidates": [{
            "path": c.path, "lean": c.lean, "author": c.record.by,
            "origin": c.record.origin, "model": c.record.model,
            "read_others": c.record.read_others,
            "registry": c.record.registry.model_dump(mode="json") if c.record.registry else None,
            "declaration": c.record.declaration, "concepts": dict(c.record.concepts),
            "compiled": c.compiled, "outcome": c.outcome, "discarded_by": c.discarded_by,
            "screens": dict(c.screens), "is_root": c.is_root, "date": c.record.date,
            "mutant_of": c.record.mutant_of, "defect_class": c.record.defect_class,
            "claim": c.record.claim,
            "caught_by": c.caught_by,
        } for c in st.candidates],
        "mutants": {"total": sum(c.outcome == "mutant" for c in st.candidates),
                    "caught": sum(c.outcome == "mutant" and c.caught_by is not None
                                  for c in st.candidates)},
        "directions": [{"left": d.left, "right": d.right, "status": d.status,
                        "exhibit": d.exhibit, "attempts": list(d.attempts)}
                       for d in st.directions],
        "clusters": [list(c) for c in st.clusters],
        "concepts": list(st.opening_record.concepts),
        "tests": [{
            "path": tv.path, "probe": tv.record.probe, "concept": tv.record.concept,
            "args": list(tv.record.args),
            "source": tv.record.source, "answer": tv.record.answer,
            "citation": tv.record.citation, "expected": tv.expected,
            "disagree": tv.disagree,
            "results": {c: {"result": r, "exhibit": e} for c, (r, e) in tv.results.items()},
        } for tv in st.tests],
        "questions": [{
            "path": q.path, "question": q.record.question, "case": q.record.case,
            "candidates": list(q.record.candidates), "raised_by": q.record.raised_by,
            "by": q.record.by, "date": q.record.date, "answer_path": q.answer_path,
            "answer": q.answer.answer if q.answer else None,
            "source": q.answer.source if q.answer else None, "flagged": q.flagged,
        } for q in st.questions],
        "signatures": [{
            "path": s.path, "role": s.record.role, "decision": s.record.decision,
            "by": s.record.by, "login": s.record.login, "date": s.record.date,
            "cluster": list(s.record.cluster), "counts": s.counts, "why_not": s.why_not,
        } for s in st.signatures],
        "missing": list(st.missing), "complete": st.complete, "grade": st.grade,
        "capped": st.capped, "vouches": st.vouches, "summary": st.summary,
    }


def nodes_of(graph: Graph) -> Iterable[tuple[str, str]]:
    """Every ``(target, node)`` in the record's order."""
    for tid, t in graph.targets.items():
        for nid in t.nodes:
            yield tid, nid
