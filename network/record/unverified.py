"""What claims a role or a verdict and does not verify, across every kind of record
(Foundation ruling 14; D-18 v3.27, D-30 v3.12, D-32 v3.34).

It sits above the derivations (:mod:`network.record.derive`), the panel rules
(:mod:`network.record.panel`) and the pertinence rules (:mod:`network.record.pertinence`),
each of which reads the derivations; none of them imports this module (issue 34).
"""

from __future__ import annotations

from typing import Any

from network.record import panel, pertinence
from network.record.derive._index import _ix
from network.record.read.loader import Graph, RecordFile


def unverified(graph: Graph) -> frozenset[str]:
    """Paths of the records that claim a role or a verdict and do not verify (ruling 14):
    attestations no gate key of ``keys/`` signs on their timestamp, closure records no
    gate key signs as of their merge; steward records not
    signed by the steward they name or a curator; dormancy, dispute, shelving, proof-review,
    pertinence (D-30 v3.12) and registration records,
    role-resting withdrawals, and steward's or curator's literature readings not signed by
    their actor while holding the role; words versions carrying an approval that does not
    verify; approval, motion, vote and write-up records not signed by their actor in the
    role the act needs (:func:`network.record.panel.unverified_records`). None of them
    changes a status; the products and the site may show the flag."""
    ix = _ix(graph)
    for t in graph.targets.values():
        for n in t.nodes.values():
            for cl in n.closures:
                ix.closure_signed(cl)
    ix.t.all()  # a target's index lists its shelvings that do not verify
    out = set(ix.unverified)
    for tid, t in graph.targets.items():
        cur = ix.curators_of(tid)
        for rg in t.registrations:
            if not ix.role_signed(rg.path, rg.record, rg.record.by, rg.record.date, tid):
                out.add(rg.path)
        for st in t.status_records:
            if not ix.role_signed(st.path, st.record, st.record.curator, st.record.date, tid,
                                  stewards=False) or st.record.curator not in cur:
                out.add(st.path)
        roles = ix.roles_of(tid)
        for n in t.nodes.values():
            for dp in n.disputes:
                if not ix.role_signed(dp.path, dp.record, dp.record.curator, dp.record.date,
                                      tid, stewards=False) or dp.record.curator not in cur:
                    out.add(dp.path)
            for sh in n.shelvings:
                if not ix.role_signed(sh.path, sh.record, sh.record.by, sh.record.date, tid):
                    out.add(sh.path)
            for pr in n.pertinences:  # a related variant's signed sentence (D-30 v3.12)
                if pertinence.signature_problem(graph, tid, pr.record) is not None:
                    out.add(pr.path)
            for rv in n.reviews:  # a held proof's review (issue 13), as step 9 reads it
                if not ix.role_signed(rv.path, rv.record, rv.record.by, rv.record.date, tid):
                    out.add(rv.path)
            for lit in n.literature:
                if lit.record.by in roles and not ix.role_signed(
                        lit.path, lit.record, lit.record.by, lit.record.date, tid):
                    out.add(lit.path)
            words: list[RecordFile[Any]] = [*n.glosses, *n.explainers]
            for w in words:
                if len(ix.approved(tid, w.record)) != len(w.record.approvals):
                    out.add(w.path)
        out.update(panel.unverified_records(graph, tid))  # D-32 v3.34, ruling 11
    return frozenset(out)
