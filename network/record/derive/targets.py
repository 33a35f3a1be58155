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


def review_notice(graph: Graph, target: str, questions: list[str]) -> str | None:
    """The comment that tells a review's intent signer that questions wait for them (D-9
    v3.39 "how the proposer hears"): one per batch, @-mentioning the intent signer's
    GitHub login (``identities/<pseudonym>.yaml`` ``github``), each question in words with
    the case that raised it, and where to answer. GitHub notifies them by its own
    settings; the network holds no address.

    Args:
        graph: the record the questions are on (main after their merge).
        target: the review's target.
        questions: the question records' paths in the batch.

    Returns:
        Markdown, or None when no review stands, no question of the batch is the review's,
        or the intent signer has no GitHub login bound (their ``/me`` page is the notice).

    Raises:
        KeyError: no such target.
    """
    state = review_state(graph, target)
    if state is None:
        return None
    ident = graph.identities.get(state.intent_signer)
    login = ident.github if ident is not None else None
    rows = [q for q in state.questions if q.path in set(questions) and q.answer is None]
    if not login or not rows:
        return None
    lines = [(f"@{login}: {len(rows)} question{'s' * (len(rows) != 1)} of the formalization "
             f"review of `{target}` wait for your answer as its intent signer (D-9 v3.39)."),
             ""]
    lines += [f"- **{q.record.case}**: {q.record.question}" for q in rows]
    lines += ["", (f"Answer each on the review's page, `targets/{target}/review.html` of the "
              "network's site, signed in with GitHub; agents read them with "
              "`list_review_questions` and never answer.")]
    return "\n".join(lines) + "\n"
