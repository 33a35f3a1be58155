"""A target's status (D-33 v3.17/v3.20), whether its root is vouched (ruling 5, D-9
v3.39, D-12 v3.42), and its formalization review as derived (D-9 v3.39).
"""

from __future__ import annotations

from network.record.derive._common import ReviewState, TargetStatus
from network.record.derive._index import _ix
from network.record.derive._shared import (
    _review_state_ix,
    _review_vouches_ix,
    root_vouched_ix,
    target_status_ix,
)
from network.record.read.loader import Graph


def root_vouched(graph: Graph, target: str) -> bool:
    """The one predicate step 9 and root closure share (ruling 5; D-4 v3.11/v3.15/v3.20,
    D-9 v3.39, D-12 v3.42).

    True when the target is a calibration target, or its fidelity grade is at least
    screened-and-signed, or its catalog evidence scores at least 5 points, or a completed
    non-background formalization review vouches (:func:`review_state`). Reverted
    to False while a confirmed defect (a standing dispute record, D-18 v3.28) is on the root.

    Raises:
        KeyError: no such target.
    """
    return root_vouched_ix(_ix(graph), target)


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


def review_state(graph: Graph, target: str) -> ReviewState | None:
    """The target's formalization review as the record holds it (D-9 v3.39): its
    candidates (surviving, discarded with the exhibit, returned, or not yet compiled),
    the pair directions, the clusters derived from proved equivalences, the questions
    and their answers, the signatures and whether each counts, what the automated stages
    still lack, the grade earned and whether it vouches for the root at step 9. None when
    no opening of a review counts.

    Raises:
        KeyError: no such target.
    """
    return _review_state_ix(_ix(graph), target)


def completed_review_vouches(graph: Graph, target: str) -> bool:
    """Whether a completed, held formalization review vouches for the root (D-9 v3.39):
    :func:`review_state`'s ``vouches``.

    Raises:
        KeyError: no such target.
    """
    return _review_vouches_ix(_ix(graph), target)
