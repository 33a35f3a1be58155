"""Every derivation over the record: one shared function per derived fact (D-25 v3.40).

Statuses, flags, the frontier, routes, sufficient sets, labels, target status, the ledger
views and a target's proofs are all computed here from a loaded
:class:`~network.record.read.loader.Graph` and from nothing else: no wall clock, no network,
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
  :func:`network.record.unverified.unverified` and changes no status.
* A withdrawn record (D-18 v3.27) reads as absent everywhere.
* The record's order is: targets and nodes by id, attempts by (timestamp, path), records by
  (date, path). Nothing is ranked.

All derivations are memoised per :class:`Graph` object; a Graph is a snapshot and must not
be mutated after loading.

The package holds one module per derivation family (issue 17); every public name is
re-exported here, so ``from network.record.derive import X`` and ``derive.X`` are the
interface and the modules are where to read:

* ``_common``: catalog codes, constants, :func:`norm_date`, the result types;
* ``_index``: :class:`_Index`, the memoised index everything reads, :func:`_ix`,
  :func:`carry_index` (a merged graph's index from the one before it, issue 17),
  :func:`index_if_built` and :func:`attestation_targets`;
* ``_shared``: private helpers several families read (attempt facts, readiness, frontier
  membership, route liveness, a proof's footprint) and the rules the index calls (a
  root's vouching, a target's status);
* ``roles``: the clock, merged and withdrawn paths, who holds a role;
* ``status``: node status, flags, questions, :func:`claimable`;
* ``targets``: target status, root vouching and the formalization review;
* ``labels``: node labels and route approaches; ``literature``: literature status;
  ``shelving``: what a shelving may reach;
* ``frontier_view``: attempt facts, ``ready_since``, the frontier;
* ``routes``: routes and their facts; ``sets``: sufficient sets and the selector;
* ``ledger``: ledger views and credit corrections;
* ``graph_json``: graph.json's body, the target summary, proofs, closures, approaches;
* ``site_views``: merges, route-class histograms, record events;
* ``registry``: registrations;
* ``banner``: what a statement or target is, in one word (issue 29).

May import: ``read``, ``models``, ``trust``, ``panel_roles`` and the layers below the
record. Never ``products`` or the views that build on it (``panel``, ``approvals``,
``dormancy``, ``pertinence``, ``words``, ``unverified``).
"""

from __future__ import annotations

from network.record.derive._common import (
    CATALOG_EVIDENCE_POINTS,
    CLOSED,
    GRADES_VOUCHING,
    PRODUCT_SET_CAP,
    PROOF_KINDS,
    REVIEW_GRADES,
    REVIEW_VOUCHING,
    ROUTE_KINDS,
    SET_ENUMERATION_CAP,
    STATUSES,
    IndexView,
    Label,
    NodeFlags,
    NodeState,
    ReviewCandidateView,
    ReviewDirection,
    ReviewQuestionView,
    ReviewSignatureView,
    ReviewState,
    ReviewTestView,
    TargetStatus,
    norm_date,
)
from network.record.derive._index import _Index as _Index
from network.record.derive._index import _ix as _ix
from network.record.derive._index import attestation_targets, carry_index, index_if_built
from network.record.derive._shared import (
    root_vouched_ix,
    target_status_ix,
)
from network.record.derive.banner import (
    BANNER_KINDS,
    UPSTREAM_KNOWN,
    UPSTREAM_SOLVED,
    category_kind,
    node_banner,
    target_banner,
)
from network.record.derive.frontier_view import (
    attempt_facts,
    frontier,
    frontier_entry,
    on_frontier,
    ready_since,
    target_frontier,
)
from network.record.derive.graph_json import (
    approach_views,
    graph_view,
    node_view,
    nodes_of,
    review_view,
    target_closures,
    target_edges,
    target_proofs,
    target_summary,
)
from network.record.derive.labels import node_label, route_approach
from network.record.derive.ledger import correction_marker, ledger_views, pending_corrections
from network.record.derive.literature import literature_awaiting, literature_status
from network.record.derive.registry import registrations
from network.record.derive.roles import (
    curators_of,
    holds_role,
    is_merged,
    now,
    panel_of,
    panel_state,
    policy_numbers,
    steward_targets,
    stewards_of,
    withdrawn,
)
from network.record.derive.routes import (
    node_routes,
    route_alive,
    route_facts,
    route_holes,
    target_routes,
)
from network.record.derive.sets import selector, sufficient_sets
from network.record.derive.shelving import ShelvingReach, shelving_reach, standing_shelving
from network.record.derive.site_views import (
    EVENT_KINDS,
    merge_of,
    record_events,
    route_class_histogram,
)
from network.record.derive.status import claimable, is_question, node_flags, node_state, node_status
from network.record.derive.targets import (
    completed_review_vouches,
    review_notice,
    review_state,
    root_vouched,
    target_status,
)

__all__ = [
    "BANNER_KINDS",
    "CATALOG_EVIDENCE_POINTS",
    "CLOSED",
    "EVENT_KINDS",
    "GRADES_VOUCHING",
    "PRODUCT_SET_CAP",
    "PROOF_KINDS",
    "REVIEW_GRADES",
    "REVIEW_VOUCHING",
    "ROUTE_KINDS",
    "SET_ENUMERATION_CAP",
    "STATUSES",
    "UPSTREAM_KNOWN",
    "UPSTREAM_SOLVED",
    "IndexView",
    "Label",
    "NodeFlags",
    "NodeState",
    "ReviewCandidateView",
    "ReviewDirection",
    "ReviewQuestionView",
    "ReviewSignatureView",
    "ReviewState",
    "ReviewTestView",
    "ShelvingReach",
    "TargetStatus",
    "approach_views",
    "attempt_facts",
    "attestation_targets",
    "carry_index",
    "category_kind",
    "claimable",
    "completed_review_vouches",
    "correction_marker",
    "curators_of",
    "frontier",
    "frontier_entry",
    "graph_view",
    "holds_role",
    "index_if_built",
    "is_merged",
    "is_question",
    "ledger_views",
    "literature_awaiting",
    "literature_status",
    "merge_of",
    "node_banner",
    "node_flags",
    "node_label",
    "node_routes",
    "node_state",
    "node_status",
    "node_view",
    "nodes_of",
    "norm_date",
    "now",
    "on_frontier",
    "panel_of",
    "panel_state",
    "pending_corrections",
    "policy_numbers",
    "ready_since",
    "record_events",
    "registrations",
    "review_notice",
    "review_state",
    "review_view",
    "root_vouched",
    "root_vouched_ix",
    "route_alive",
    "route_approach",
    "route_class_histogram",
    "route_facts",
    "route_holes",
    "selector",
    "shelving_reach",
    "standing_shelving",
    "steward_targets",
    "stewards_of",
    "sufficient_sets",
    "target_banner",
    "target_closures",
    "target_edges",
    "target_frontier",
    "target_proofs",
    "target_routes",
    "target_status",
    "target_status_ix",
    "target_summary",
    "withdrawn",
]
