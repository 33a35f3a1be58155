"""A target's status (D-33 v3.17/v3.20) and whether its root is vouched (ruling 5, D-9
v3.39, D-12 v3.42).
"""

from __future__ import annotations

from network.record.derive._common import (
    CATALOG_EVIDENCE_POINTS,
    CLOSED,
    GRADES_VOUCHING,
    TargetStatus,
    norm_date,
)
from network.record.derive._index import _Index, _ix
from network.record.derive._shared import _footprint
from network.record.loader import Graph


def root_vouched(graph: Graph, target: str) -> bool:
    """The one predicate step 9 and root closure share (ruling 5; D-4 v3.11/v3.15/v3.20,
    D-9 v3.39, D-12 v3.42).

    True when the target is a calibration target, or its fidelity grade is at least
    screened-and-signed, or its catalog evidence scores at least 5 points, or a completed
    non-background formalization review vouches (not modelled yet: always False). Reverted
    to False while a confirmed defect (a standing dispute record, D-18 v3.28) is on the root.

    Raises:
        KeyError: no such target.
    """
    return root_vouched_ix(_ix(graph), target)


def completed_review_vouches(graph: Graph, target: str) -> bool:
    """Whether a completed, non-background formalization review vouches for the root
    (D-9 v3.39). The review record is not modelled yet, so this is always False."""
    return False


def root_vouched_ix(ix: _Index, tid: str) -> bool:
    """:func:`root_vouched` over an index (private helper shared by closure)."""
    t = ix.g.targets[tid]
    root = ix.root_of(tid)
    if root is not None and ix.disputed(tid, root):
        return False
    rec = t.record
    if rec.calibration or rec.target_class == "calibration":
        return True
    if rec.fidelity.grade in GRADES_VOUCHING:
        return True
    if rec.fidelity.catalog_evidence_points >= CATALOG_EVIDENCE_POINTS:
        return True
    return completed_review_vouches(ix.g, tid)


def target_status(graph: Graph, target: str) -> TargetStatus:
    """The target's status (D-33) from its status records and its root's state.

    ``resolved`` when the current root reads proved, refuted or defective (its digestion
    state: ``explained`` when every node of the closing proof's footprint carries an
    approved explainer, D-33 v3.17/v3.30; ``written-up`` is not modelled); else
    ``known-result`` / ``active`` / ``dormant`` from the latest standing curator record,
    dormant reading ``active`` again once a progress artifact (a merged proof, refutation,
    vacuity, partial, reduction, variant or refuted-route postmortem) merged after the
    declaration; else ``listed``.

    Raises:
        KeyError: no such target.
    """
    return target_status_ix(_ix(graph), target)


def target_status_ix(ix: _Index, tid: str) -> TargetStatus:
    """:func:`target_status` over an index (private helper)."""
    if tid in ix._target_status:
        return ix._target_status[tid]
    ix._target_status[tid] = TargetStatus("listed")  # recursion guard
    val = _target_status_uncached(ix, tid)
    ix._target_status[tid] = val
    return val


def _target_status_uncached(ix: _Index, tid: str) -> TargetStatus:
    t = ix.g.targets[tid]
    root = ix.root_of(tid)
    if root is not None:
        st = ix.status(tid, root)
        if st in CLOSED:
            return TargetStatus("resolved", _digestion(ix, tid, root), st)
    cur = ix.curators_of(tid)
    recs = sorted(((norm_date(rf.record.date), rf.path, rf.record) for rf in t.status_records
                   if ix.present(rf.path) and rf.record.curator in cur
                   and ix.role_signed(rf.path, rf.record, rf.record.curator, rf.record.date,
                                      tid, stewards=False)),
                  key=lambda x: (x[0], x[1]))
    if not recs:
        return TargetStatus("listed")
    date, path, rec = recs[-1]
    if rec.declaration == "dormant":
        progress = _progress_since(ix, tid, date, ix.merge_seq_of.get(path))
        if progress is not None:
            return TargetStatus("active", declaration=path, reactivated_by=progress)
    return TargetStatus(rec.declaration, declaration=path)


def _is_progress_path(ix: _Index, tid: str, path: str) -> bool:
    parts = path.split("/")
    if len(parts) < 5 or parts[0] != "targets" or parts[1] != tid or parts[2] != "nodes":
        return False
    nid, rest = parts[3], "/".join(parts[4:])
    if rest in ("Proof.lean", "Refutation.lean", "Vacuity.lean"):
        return True
    if rest.startswith("attempts/") and (rest.endswith(("-partial.lean", "-reduction.lean"))):
        return True
    if rest in ("Statement.lean", "META.yaml") and ix.has(tid, nid):
        return ix.node(tid, nid).meta.variant is not None
    if rest.endswith("-postmortem.yaml") and ix.has(tid, nid):
        for a in ix.node(tid, nid).attempts:
            if a.path == path and a.postmortem is not None:
                return a.postmortem.outcome == "refuted-route"
    return False


def _progress_since(ix: _Index, tid: str, date: str, seq: int | None) -> str | None:
    for mr in ix.g.merges:
        rec = mr.record
        later = rec.seq > seq if seq is not None else norm_date(rec.date) > date
        if not later:
            continue
        for p in rec.artifacts:
            if _is_progress_path(ix, tid, p):
                return p
    return None


def _digestion(ix: _Index, tid: str, root: str) -> str:
    footprint = _footprint(ix, tid, root)
    for nid in footprint:
        n = ix.node(tid, nid)
        proof = n.files.get("Proof")
        if proof is None:
            if ix.proved_by_closure(tid, nid):
                continue  # the join earns nothing and needs no explainer of its own
            return "undigested"
        ok = any(rf.record.describes == proof.path and ix.present(rf.path)
                 and ix.approved(tid, rf.record) for rf in n.explainers)
        if not ok:
            return "undigested"
    return "explained"
