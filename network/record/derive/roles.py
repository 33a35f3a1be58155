"""The record's clock, what is merged and withdrawn, who holds a role, and what does not
verify (Foundation rulings 2 and 14; D-18 v3.27, D-22, D-32 v3.34).
"""

from __future__ import annotations

from typing import Any

from network.record import panel_roles
from network.record.derive._index import _ix
from network.record.loader import Graph, RecordFile


def now(graph: Graph) -> str | None:
    """The record's clock: the date of the newest ``log/merges`` record as a full ISO-8601
    UTC timestamp, or None when nothing has merged (Foundation ruling 2)."""
    return _ix(graph).now


def is_merged(graph: Graph, path: str, sha256: str) -> bool:
    """Whether a ``pass`` attestation names ``path`` with ``sha256`` (docs/record.md, D-5)."""
    return _ix(graph).is_merged(path, sha256)


def withdrawn(graph: Graph) -> frozenset[str]:
    """Paths of every record a standing withdrawal names: a curator's (D-18 v3.27), or for a
    gloss or explainer version also its author's or a steward's (D-3 v3.30); a withdrawn
    withdrawal stops withdrawing. These read as absent in every derivation."""
    return frozenset(_ix(graph).withdrawn)


def holds_role(graph: Graph, target: str, who: str, date: str, *, stewards: bool = True,
               curators: bool = True) -> bool:
    """Whether ``who`` holds a role on ``target`` on ``date`` (ruling 14): a curator of it
    (curators.json), or with ``stewards`` its steward by a standing steward record that
    verifies (:mod:`network.record.trust`) and dates from no later than ``date``.

    Raises:
        KeyError: no such target.
    """
    graph.targets[target]  # a KeyError for an unknown target
    return _ix(graph).holds_role(target, who, date, stewards=stewards, curators=curators)


def curators_of(graph: Graph, target: str) -> frozenset[str]:
    """The pseudonyms curators.json names for ``target`` (or ``*``)."""
    return frozenset(_ix(graph).curators_of(target))


def stewards_of(graph: Graph, target: str) -> list[str]:
    """The target's stewards: its panel in force (D-32 v3.34,
    :mod:`network.record.panel_roles`): joins that verify (ruling 14), not stepped down,
    withdrawn or lapsed, in join order. Raises: KeyError for an unknown target."""
    graph.targets[target]  # a KeyError for an unknown target
    return _ix(graph).stewards_of(target)


def panel_of(graph: Graph, target: str) -> list[panel_roles.Stewardship]:
    """The target's stewardships in force, each with ``since``, ``admitted_by`` and
    ``self_admitted`` (D-32 v3.33/v3.34; :func:`stewards_of` gives their pseudonyms).
    Raises: KeyError for an unknown target."""
    graph.targets[target]
    panel = _ix(graph).panel
    assert panel is not None
    return panel.in_force(target)


def steward_targets(graph: Graph, who: str) -> list[str]:
    """The targets ``who`` stands as steward of now (D-32 v3.34: in force, not stepped
    down, withdrawn or lapsed), sorted: what a session's ``roles.steward`` lists."""
    panel = _ix(graph).panel
    assert panel is not None
    return sorted(tid for tid in graph.targets
                  if any(s.pseudonym == who for s in panel.in_force(tid)))


def panel_state(graph: Graph) -> panel_roles.Panel:
    """Every stewardship of the graph as derived (D-32 v3.34): what step 2 judges a new
    steward act against (:func:`network.record.panel_roles.act_finding`)."""
    panel = _ix(graph).panel
    assert panel is not None
    return panel


def policy_numbers(graph: Graph, target: str | None = None) -> panel_roles.PolicyNumbers:
    """policy.json's roles numbers (owner, steward_admission, steward_lapse_months,
    steward_cap, vote_window_days, vote_threshold, vote_minimum), ``target``'s overrides
    applied (D-32 v3.34; :func:`network.record.panel_roles.policy_numbers`)."""
    return panel_roles.policy_numbers(graph, target)


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
    from network.record import pertinence  # imports this package

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
        from network.record import panel  # imports this module

        out.update(panel.unverified_records(graph, tid))  # D-32 v3.34, ruling 11
    return frozenset(out)
