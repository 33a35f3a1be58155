"""The record's clock, what is merged and withdrawn, who holds a role, and what does not
verify (Foundation rulings 2 and 14; D-18 v3.27, D-22, D-32 v3.34). What does not
verify across every kind of record is :func:`network.record.unverified.unverified`, above
the panel and pertinence rules it reads (issue 34: no circle).
"""

from __future__ import annotations

from network.record import panel_roles
from network.record.derive._index import _ix
from network.record.read.loader import Graph


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
