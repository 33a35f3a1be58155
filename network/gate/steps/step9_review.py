"""Step 9: statement review (D-4 v3.11/v3.15/v3.20/v3.39, D-9 v3.39; ruling 5; issue
13): asked only of an artifact that would settle its target while the root is not vouched
for; the review is the forge's or a merged, signed review record naming the artifact's
bytes (:mod:`network.gate.records.proof_reviews`).

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from network import ids
from network.gate.artifacts import Artifact, Kind
from network.gate.diff import Diff
from network.gate.records import proof_reviews
from network.gate.steps.context import _SETTLING, Review, _artifact_hashes
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph


def settles_target(base: Graph, art: Artifact) -> bool:
    """Would ``art`` settle its target? (D-4 v3.20, D-30 v3.46): a closing artifact
    (proof, refutation, vacuity) on the root, or a proof of a resolves/refutes variant
    while the root is not closed."""
    if art.kind not in _SETTLING or art.node is None:
        return False
    t = base.targets[art.target]
    node = t.nodes.get(art.node)
    if node is None:
        return False
    if ids.revision_base(art.node)[0] == ids.ROOT and ids.parent_of(art.node) is None:
        return True
    rel = node.meta.variant
    if art.kind is Kind.PROOF and rel is not None and rel.relation in ("resolves", "refutes"):
        root = t.nodes.get(ids.ROOT)
        return root is None or derive.node_status(base, art.target, ids.ROOT) not in derive.CLOSED
    return False


def _answers_a_question(base: Graph, art: Artifact) -> bool:
    """Would ``art`` settle a target whose root is a question (``answer(sorry)``,
    :func:`derive.is_question`)? Not an alternate: its node was settled already."""
    t = base.targets[art.target]
    if art.kind is Kind.ALTERNATE or not t.record.answer_question or ids.ROOT not in t.nodes:
        return False
    return derive.is_question(base, art.target, ids.ROOT) and settles_target(base, art)


def step9_basis(base: Graph, art: Artifact, submitter: str | None,
                review: Review | None) -> tuple[m.Step9, bool]:
    """Step 9's recorded basis and whether the run is held (D-4 v3.11/v3.13/v3.15/v3.20,
    D-9 v3.39; ruling 5).

    A root vouched for by a completed formalization review records the review's opening
    as its certificate; while a held review (a steward's or curator's opening) is not
    complete, an artifact that would settle the root waits on it whatever reviews the
    proof: D-9 v3.39, where a background review never holds.

    An artifact that would settle a target whose root is a question (a proof of a
    resolving variant that fills the answer) always waits on a non-author's review, even
    on a calibration target (issue 12).

    Returns:
        (the attestation's ``step9``, True when the artifact waits on a review).
    """
    t = base.targets[art.target]
    rec = t.record
    node = t.nodes.get(art.node or "")
    if rec.target_class == "tutorial" or (node is not None and node.meta.tutorial):
        return m.Step9(basis="tutorial"), False
    if _answers_a_question(base, art):
        # whether a filled answer really answers is a person's judgment, on a calibration
        # target too and whatever vouches for the question's own statement (issue 12;
        # DESIGN.md "Importing from public registries")
        if review is not None and review.approved and review.reviewer != submitter:
            return m.Step9(basis="review", reviewer=review.reviewer), False
        return m.Step9(basis="awaiting-review"), True
    if rec.calibration or rec.target_class == "calibration":
        return m.Step9(basis="calibration"), False
    if art.kind is Kind.ALTERNATE:
        return m.Step9(basis="alternate"), False
    if not settles_target(base, art):
        return m.Step9(basis="intermediate"), False
    formal = derive.review_state(base, art.target)
    if derive.root_vouched(base, art.target):
        if rec.fidelity.grade in derive.GRADES_VOUCHING:
            return m.Step9(basis="certificate", certificate=rec.fidelity.certificate), False
        if rec.fidelity.catalog_evidence_points >= derive.CATALOG_EVIDENCE_POINTS:
            return m.Step9(basis="catalog-evidence"), False
        if formal is not None and formal.vouches:  # D-9 v3.39: the review is the certificate
            return m.Step9(basis="certificate", certificate=formal.opening), False
        return m.Step9(basis="certificate"), False
    if formal is not None and formal.held:
        # D-9 v3.39: a review a steward or curator opened holds the settling merge until it
        # is complete and signed; one person's review of the proof no longer stands for it
        return m.Step9(basis="awaiting-review"), True
    if review is not None and review.approved and review.reviewer != submitter:
        return m.Step9(basis="review", reviewer=review.reviewer), False
    return m.Step9(basis="awaiting-review"), True


def artifact_review(base: Graph, diff: Diff, art: Artifact, submitter: str | None,
                    forge_review: Review | None) -> Review | None:
    """The review steps 5 and 9 read for one artifact (D-4 step 9 v3.11/v3.15, D-4 Detail;
    ruling 5; issue 13): the forge's approving review when it is a non-author's, else the
    first merged review record on the base graph naming exactly this artifact's bytes
    (:func:`network.gate.records.proof_reviews.recorded_review`), else whatever the forge gave.
    The LocalForge queue and ``lemmata gate trusted`` both take the record this way."""
    if (forge_review is not None and forge_review.approved
            and not proof_reviews.same_person(forge_review.reviewer, submitter)):
        return forge_review
    rec = proof_reviews.recorded_review(base, art.target, art.node,
                                        _artifact_hashes(diff, art), submitter)
    if rec is not None:
        return Review(rec.by, True, tuple(rec.signs_off))
    return forge_review
