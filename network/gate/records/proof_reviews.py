"""Reviews of held proofs: the signed record the gate reads at steps 2 and 9 (D-4 step 9
v3.11/v3.15; ruling 5 "held"; ruling 13: an imported root is held at step 9; issue 13).

A proof that would settle a target whose root nobody has vouched for is ``held`` at step 9
until a non-author reviews it. The review is a record, ``targets/<t>/nodes/<n>/reviews/
<ts>-<pseudonym>.yaml`` (:class:`~network.record.models.ProofReview`), that lands by its
own pull request; so the LocalForge queue and ``lemmata gate trusted`` (GitHub) take the
same review, read from the base graph by :func:`network.gate.run.run_gate`.

- :func:`review_findings` is step 2 over a review a pull request adds: it must name a held
  attestation on main (gate-signed, of its own target and node) by exactly that
  attestation's file hashes, and its author must not be the held proof's submitter. Its
  role signature is judged beside the other role acts (:mod:`network.gate.records.actors`).
- :func:`recorded_review` is step 9: the first merged, standing, verified, approving review
  by a non-author steward or curator whose hashes are exactly the artifact's bytes now. A
  review of other bytes (the author pushed a new head after it) counts for nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from network.errors import LemmataError, define
from network.gate.result import Diagnostic
from network.record import derive, trust
from network.record import models as m
from network.record.read.loader import Graph
from network.record.read.scoped import attestation_at

define("review-names-no-held-proof", 2, 422,
       "A proof review names no held attestation on main of its own target and node, or "
       "names file hashes other than that attestation's (D-4 step 9, ruling 5).",
       "Review the held pull request as it stands: name its held attestation "
       "(attestations/<id>.json) and copy that attestation's artifacts exactly; the site's "
       "review button does this for you.")
define("review-by-author", 2, 403,
       "A proof review is by the held proof's own submitter: step 9 asks a non-author's "
       "review (D-4 v3.15).",
       "Ask another steward of the target, or a curator, to review it.")


def _hashes(artifacts: Sequence[m.ArtifactHash]) -> frozenset[tuple[str, str]]:
    return frozenset((a.path, a.sha256) for a in artifacts)


def held_attestation(base: Graph, path: str) -> m.Attestation | None:
    """The gate-signed ``held`` attestation at graph path ``path`` on ``base``, or None
    (no such file, another verdict, or a signature no gate key of ``keys/`` verifies)."""
    rf = attestation_at(base, path)
    if rf is None or rf.record.verdict != "held":
        return None
    if not trust.gate_signed(rf.record, base.keys, rf.sha256):
        return None
    return rf.record


def same_person(a: str | None, b: str | None) -> bool:
    """Whether two pseudonyms name one identity (pseudonyms compare without case)."""
    return a is not None and b is not None and a.casefold() == b.casefold()


def review_findings(base: Graph, target: str, node: str | None, path: str,
                    rec: m.ProofReview) -> list[Diagnostic]:
    """Step 2's own findings over one review a pull request adds (its actor binding and
    role signature are :mod:`network.gate.records.actors`'s).

    Args:
        base: the graph at the pull request's base (main).
        target, node: where the review is filed (its artifact's target and node).
        path: the review's graph path.
        rec: the parsed review.

    Returns:
        ``review-names-no-held-proof`` (filed under another target or node than it names,
        or naming no gate-signed held attestation of that node with exactly its hashes)
        or ``review-by-author`` (the held attestation's submitter wrote it); else ``[]``.

    Implements D-4 step 9 (v3.11/v3.15), ruling 5.
    """
    if rec.target != target or rec.node != node:
        return [Diagnostic("review-names-no-held-proof", f"filed under {target}/{node}, but "
                           f"it reviews {rec.target}/{rec.node}", path)]
    att = held_attestation(base, rec.attestation)
    if att is None or att.target != target or att.node != node:
        return [Diagnostic("review-names-no-held-proof", f"{rec.attestation} is no "
                           f"gate-signed held attestation of {target}/{node} on main", path)]
    if _hashes(att.artifacts) != _hashes(rec.artifacts):
        return [Diagnostic("review-names-no-held-proof", f"the review names other files "
                           f"or bytes than {rec.attestation} holds", path)]
    if same_person(att.submitter, rec.by):
        return [Diagnostic("review-by-author", f"{rec.by} submitted the held proof "
                           f"{rec.attestation} reviews", path)]
    return []


def review_verifies(base: Graph, target: str, rec: m.ProofReview) -> bool:
    """Whether a merged review's role signature verifies: signed for its author, a steward
    or curator of ``target`` on the review's own date and on the base's (ruling 14)."""
    for when in dict.fromkeys(d for d in (rec.date, derive.now(base)) if d is not None):
        try:
            trust.check_role_signature(
                rec, rec.signature, actors=frozenset({rec.by}),
                holds=lambda who, date: derive.holds_role(base, target, who, date),
                at_date=when, keys=base.keys, identities=base.identities)
        except LemmataError:
            return False
    return True


def recorded_review(base: Graph, target: str, node: str | None,
                    artifacts: Sequence[m.ArtifactHash],
                    submitter: str | None) -> m.ProofReview | None:
    """Step 9's review from the record: the first (in path order) merged review on
    ``target``/``node`` that approves, is not withdrawn, verifies
    (:func:`review_verifies`), is by someone other than ``submitter`` and names exactly
    ``artifacts`` (path and SHA-256 of every file, no more, no fewer); None when there is
    none. A review of other bytes counts for nothing.

    Implements D-4 step 9 v3.11/v3.15, ruling 5, ruling 13 (imported roots held).
    """
    t = base.targets.get(target)
    n = t.nodes.get(node or "") if t is not None else None
    if n is None or not artifacts or submitter is None:
        return None
    want = _hashes(artifacts)
    gone = derive.withdrawn(base)
    for rf in sorted(n.reviews, key=lambda r: r.path):
        rec = rf.record
        if (rf.path in gone or rec.decision != "approve" or rec.target != target
                or rec.node != node or same_person(rec.by, submitter)
                or _hashes(rec.artifacts) != want):
            continue
        if review_verifies(base, target, rec):
            return rec
    return None
