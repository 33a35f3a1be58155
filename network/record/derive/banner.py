"""What a statement or a target is, in one word a reader sees first (issue 29; D-36 node
and target pages; D-33 target status; D-10 questions; D-25 v3.35 literature status).

The banner is derived from the record alone: the node's status (a merged Proof.lean,
Refutation.lean or Vacuity.lean, or a holding closure), whether it is a question
(``answer(sorry)``), its literature status, and the registry category the importer
recorded in its provenance (the node's META ``provenance.category``, the target's
``intake.provenance.category``). Never from any page's text.
"""

from __future__ import annotations

from typing import Any

from network.record import models as m
from network.record.derive._index import _check, _Index, _ix
from network.record.derive._shared import target_status_ix
from network.record.derive.literature import literature_status
from network.record.derive.site_views import merge_of
from network.record.read.loader import Graph

BANNER_KINDS = ("proved", "disproved", "vacuous", "superseded", "question",
                "known-literature", "solved-upstream", "open")
"""Every banner kind, in the order they take precedence: the record's own settlement
first, then a question, then what the literature or the registry says, else open."""

UPSTREAM_SOLVED = ("research solved", "research formally solved")
"""Registry categories (Formal Conjectures) that say the statement was solved upstream."""
UPSTREAM_KNOWN = ("textbook", "undergraduate", "graduate", "high_school", "high school")
"""Registry categories that say the statement is a known result of the literature."""

_SETTLING = {"proved": ("Proof", "proved"), "refuted": ("Refutation", "refuted"),
             "defective": ("Vacuity", "defective")}
_KIND_OF_STATUS = {"proved": "proved", "refuted": "disproved", "defective": "vacuous"}


def category_kind(category: str | None) -> str | None:
    """What a registry category says, as a banner kind: ``solved-upstream`` (research
    solved), ``known-literature`` (textbook and school levels), or None (research open, a
    test, no category). ``category`` is the provenance's string, compared without case or
    repeated spaces."""
    if not category:
        return None
    c = " ".join(category.split()).lower()
    if c in UPSTREAM_SOLVED:
        return "solved-upstream"
    if c in UPSTREAM_KNOWN:
        return "known-literature"
    return None


def _settled_by(ix: _Index, tid: str, nid: str, status: str) -> dict[str, Any] | None:
    """The artifact that settles a proved, refuted or defective node: ``{path, kind
    (file|closure), merge: merge_of(path) | None, by: [identity]}``, or None."""
    if status not in _SETTLING:
        return None
    name, verdict = _SETTLING[status]
    n = ix.node(tid, nid)
    if name in n.files and ix.file_merged(n, name):
        path, kind = n.files[name].path, "file"
    else:
        closure = ix.valid_closure(tid, nid, verdict)
        if closure is None:
            return None
        path, kind = closure, "closure"
    by = sorted({rf.record.identity for rf in ix.g.ledger
                 if isinstance(rf.record, m.LedgerLine) and rf.record.artifact == path
                 and ix.present(rf.path)})
    return {"path": path, "kind": kind, "merge": merge_of(ix.g, path), "by": by}


def node_banner(graph: Graph, target: str, node: str) -> dict[str, Any]:
    """The banner at the top of a node page: what the statement is, plainly.

    Precedence (:data:`BANNER_KINDS`): ``proved`` / ``disproved`` / ``vacuous`` (the
    node's status, with the artifact that settled it), ``superseded``, ``question`` (an
    ``answer(sorry)`` statement, D-10: never provable as written), ``known-literature``
    (a literature status ``known-true``/``known-false``, else a textbook-level registry
    category), ``solved-upstream`` (a ``research solved`` category), else ``open``.

    Returns:
        ``{kind, status, settled: {path, kind, merge, by} | None, category: str | None,
        upstream: banner kind of the category | None, literature: literature_status |
        None, question: bool, superseded_by: str | None}``.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    status = ix.status(target, node)
    n = ix.node(target, node)
    category = n.meta.provenance.get("category") if n.meta.provenance else None
    category = category if isinstance(category, str) else None
    upstream = category_kind(category)
    lit = literature_status(graph, target, node)
    question = ix.question(target, node)
    known_lit = bool(lit and lit["source"] == "confirmed"
                     and lit["status"] in ("known-true", "known-false"))
    if status in _KIND_OF_STATUS:
        kind = _KIND_OF_STATUS[status]
    elif status == "superseded":
        kind = "superseded"
    elif question:
        kind = "question"
    elif known_lit:
        kind = "known-literature"
    elif upstream is not None:
        kind = upstream
    else:
        kind = "open"
    return {"kind": kind, "status": status,
            "settled": _settled_by(ix, target, node, status),
            "category": category, "upstream": upstream, "literature": lit,
            "question": question,
            "superseded_by": ix.t[target].superseded_by.get(node)}


def target_banner(graph: Graph, target: str) -> dict[str, Any]:
    """The banner at the top of a target page: the target's status (D-33) in one word.

    ``proved`` / ``disproved`` / ``vacuous`` for a resolved target (with the first way it
    is settled: the root's settling artifact); else the root's :func:`node_banner` kind
    (``question``, ``known-literature``, ``solved-upstream``, ``open``), where a curator's
    ``known-result`` status record reads ``known-literature`` and a target with no root
    falls back to its intake's category.

    Returns:
        ``{kind, status: TargetStatus.to_dict(), root: str | None, root_banner:
        node_banner | None, category: str | None, upstream: str | None, settled,
        literature, question, superseded_by: None}`` (the last four the root's, so a
        page reads both banners alike).

    Raises:
        KeyError: no such target.
    """
    ix = _ix(graph)
    t = graph.targets[target]
    st = target_status_ix(ix, target)
    root = ix.root_of(target)
    rb = node_banner(graph, target, root) if root is not None else None
    intake = t.record.intake
    category = (rb["category"] if rb and rb["category"] else
                (intake.provenance.category if intake is not None else None))
    upstream = category_kind(category)
    if st.status == "resolved" and st.resolution in _KIND_OF_STATUS:
        kind = _KIND_OF_STATUS[st.resolution]
    elif rb is not None and rb["kind"] not in ("open", "superseded"):
        kind = rb["kind"]
    elif st.status == "known-result":
        kind = "known-literature"
    elif upstream is not None:
        kind = upstream
    else:
        kind = "open"
    return {"kind": kind, "status": st.to_dict(), "root": root, "root_banner": rb,
            "category": category, "upstream": upstream,
            "settled": rb["settled"] if rb is not None else None,
            "literature": rb["literature"] if rb is not None else None,
            "question": bool(rb and rb["question"]), "superseded_by": None}
