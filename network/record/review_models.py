"""Models of a formalization review's records (D-9 v3.39; issue 27).

A target's review lives under ``targets/<id>/review/``, one append-only file per act, each
``<dir>/<ts>-<pseudonym>.yaml`` (docs/review.md):

* ``openings/``: :class:`ReviewOpening`, who opened it, in which role, the conjecture in
  words with its cases, and who answers its questions (the intent signer);
* ``candidates/``: :class:`ReviewCandidate` beside its Lean statement
  (``<ts>-<pseudonym>.lean``, stage 2);
* ``exhibits/``: :class:`ReviewExhibit` beside its Lean proof (``<ts>-<pseudonym>.lean``):
  a screen that succeeded or a pair direction proved, kernel-checked by the gate (stages 3
  and 4);
* ``tests/``: :class:`ReviewTest`, an intent test (stage 3), each candidate's answer to it a
  probe exhibit;
* ``attempts/``: :class:`ReviewAttempt`, a screen or pair direction tried without a result
  (who, which tool, what budget): never a refutation;
* ``questions/`` and ``answers/``: :class:`ReviewQuestion` (stage 5, in mathematics, with
  the case that raised it) and :class:`ReviewAnswer` (the intent signer's, signed);
* ``signatures/``: :class:`ReviewSignature` (stage 7), by role, signed.

What the records add up to (candidates discarded or surviving, clusters, open questions,
the grade) is derived by :mod:`network.record.derive.review`, never stored.
:mod:`network.record.models` re-exports every name.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from network.model_base import Date, Record
from network.record.model_types import (
    GraphPath,
    LongText,
    Pseudonym,
    Sha256,
    ShortText,
    TargetId,
)
from network.signing import Signature

__all__ = [
    "REVIEW_DIRS", "REVIEW_KINDS", "ReviewAnswer", "ReviewAttempt", "ReviewCandidate",
    "ReviewExhibit", "ReviewOpening", "ReviewQuestion", "ReviewSignature", "ReviewTest",
]

#: A Lean declaration name, as a candidate or exhibit names its theorem.
LeanName = Annotated[str, StringConstraints(
    pattern=r"^[A-Za-z_][A-Za-z0-9_']*(\.[A-Za-z_][A-Za-z0-9_']*)*$", max_length=200)]
#: A GitHub login (the site's sign-in names it on an answer or a signature, v3.33).
Login = Annotated[str, StringConstraints(
    pattern=r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$", max_length=39)]

#: A concept the words use, as the opening names it ("prime", "twin prime pair").
ConceptWord = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9 '-]{0,59}$")]
#: One argument of an intent test, as Lean term text: numerals, names, parentheses and
#: arithmetic only (the gate writes it into the probe's statement; step 2 refuses a Lean
#: keyword among its words, ``review-test-term``).
TermText = Annotated[str, StringConstraints(
    pattern=r"^[A-Za-z0-9_.'+*/^() -]{1,200}$")]

OpenerRole = Literal["proposer", "steward", "curator", "background"]
"""Who opened a review (D-9 v3.39): ``background`` is the network's review of a target
that existed before v3.39, which never holds step 9."""

DefectClass = Literal["missing-hypothesis", "junk-value", "vacuity", "quantifier-scope",
                      "wrong-domain", "definition-mismatch", "strength-drift", "other"]
"""The ways statements are known to go wrong (D-11's canary classes, D-9's strength
drift), a mutant's perturbation (D-9 v3.39 stage 6)."""

SCREENS: tuple[str, ...] = ("proves", "negation", "vacuity")
"""Stage 3's three screens (D-9 v3.12 layer 2): prove the statement, prove its negation,
prove False from its hypotheses."""

ExhibitKind = Literal["proves", "negation", "vacuity", "implies", "probe-holds",
                      "probe-fails"]
"""What a review exhibit's Lean proves of its candidate(s): the candidate's own statement,
its negation, the negation of its hypotheses' existential (vacuity); for a pair direction,
``candidate → other``; for an intent test's probe, that the candidate's predicate for the
test's concept holds (``probe-holds``) or fails (``probe-fails``) at the test's case."""


class ReviewCase(BaseModel):
    """One thing that pins the words down (stage 1): a known special case, a small value,
    a consequence or a non-example, in mathematics."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["special-case", "small-value", "consequence", "non-example"]
    text: ShortText
    source: ShortText | None = None


class ReviewOpening(Record):
    """``targets/<id>/review/openings/<ts>-<pseudonym>.yaml``: a formalization review
    opened on a target (D-9 v3.39 stage 1).

    ``role`` is the opener's: ``steward`` or ``curator`` (a role act, signed), or
    ``background`` for the review of a target listed before v3.39, which informs and never
    holds step 9. ``concepts`` are the concepts the words use, each of which a candidate
    names as its own predicate (the format rule). ``intent_signer`` answers the review's questions and signs that the
    surviving cluster says what the conjecture says: for a conjecture inherited from a
    source, a steward of the target (D-32). A target has one review: a held opening may
    follow a background one (it then holds), never another held one.
    """

    SCHEMA_KIND: ClassVar[str] = "review-opening/v1"
    schema_: Literal["review-opening/v1"] = Field("review-opening/v1", alias="schema")
    target: TargetId
    role: OpenerRole
    words: LongText
    cases: list[ReviewCase] = Field(default_factory=list, max_length=200)
    concepts: list[ConceptWord] = Field(default_factory=list, max_length=50)
    intent_signer: Pseudonym
    by: Pseudonym
    date: Date
    signature: Signature | None = None


class RegistrySource(BaseModel):
    """Where an imported candidate's statement came from (D-10): credited to the
    registry's authors."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Annotated[str, StringConstraints(min_length=1, max_length=100)]
    repository: Annotated[str, StringConstraints(pattern=r"^https://", max_length=300)]
    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")] | None = None
    file: Annotated[str, StringConstraints(max_length=400)] | None = None
    declaration: Annotated[str, StringConstraints(max_length=400)] | None = None


class ReviewCandidate(Record):
    """``targets/<id>/review/candidates/<ts>-<pseudonym>.yaml``: one candidate Lean
    statement of the conjecture (D-9 v3.39 stage 2), whose Lean is the ``.lean`` file of
    the same name (``lean_sha256`` its SHA-256) declaring ``declaration``.

    ``origin``: ``person`` (``read_others`` is then their declaration of whether they had
    read another candidate first, shown as a claim; ``model`` names a model that helped,
    v3.31), ``model`` (``model`` required) or ``registry`` (the imported statement,
    ``registry`` required, credited to its registry). ``concepts`` maps each concept the
    opening names to the candidate's predicate for it (the format rule: a ``def`` of its
    Lean); a candidate that misses one is returned to its author, never discarded.

    ``claim`` names a definition of the candidate's claim as a function of its concept
    predicates, in the order the opening lists the concepts: the gate checks the
    candidate's theorem states definitionally ``claim P₁ … Pₖ`` for its own predicates, and
    the covers and witness probes apply ``claim`` to other predicates. A candidate
    without one is returned to its author once such a test counts.

    A **wrapper** (``wraps``, origin ``registry``) restates an imported candidate that
    does not meet the format rule with each concept its own predicate, its theorem
    definitionally equal to the original's (checked by the gate, "proved equal by rfl"),
    the original's text and hash untouched; it stands for the original in the review.

    A **mutant** (stage 6) is filed as a candidate with ``mutant_of``, the surviving
    candidate it perturbs, and ``defect_class``, the way it goes wrong: never a survivor,
    it is probed by the intent tests, and one they all pass becomes a question.
    """

    SCHEMA_KIND: ClassVar[str] = "review-candidate/v1"
    schema_: Literal["review-candidate/v1"] = Field("review-candidate/v1", alias="schema")
    target: TargetId
    origin: Literal["person", "model", "registry"]
    model: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None
    read_others: bool | None = None
    registry: RegistrySource | None = None
    declaration: LeanName
    concepts: dict[ConceptWord, LeanName] = Field(default_factory=dict, max_length=50)
    claim: LeanName | None = None
    mutant_of: GraphPath | None = None
    defect_class: DefectClass | None = None
    wraps: GraphPath | None = None
    lean_sha256: Sha256
    by: Pseudonym
    date: Date

    @model_validator(mode="after")
    def _origin_fields(self) -> ReviewCandidate:
        if (self.mutant_of is None) != (self.defect_class is None):
            raise ValueError("a mutant names the candidate it perturbs and its defect class")
        if self.mutant_of is not None and self.origin == "registry":
            raise ValueError("a mutant is no registry's statement")
        if self.wraps is not None and (self.origin != "registry" or self.mutant_of):
            raise ValueError("a wrapper restates a registry's candidate: origin registry")
        if self.origin == "model" and self.model is None:
            raise ValueError("a model's candidate names its model")
        if self.origin == "person" and self.read_others is None:
            raise ValueError("a person's candidate declares read_others (the blind rule)")
        if (self.origin == "registry") != (self.registry is not None):
            raise ValueError("registry is given exactly when origin is registry")
        return self


class ReviewExhibit(Record):
    """``targets/<id>/review/exhibits/<ts>-<pseudonym>.yaml``: a kernel-checked exhibit
    (D-9 v3.12 layers 2 and 4, v3.39 stages 3 and 4) whose Lean proof is the ``.lean`` file
    of the same name (``lean_sha256``) declaring ``theorem``.

    ``kind`` ``proves``/``negation``/``vacuity``: a screen of ``candidate`` succeeded, which
    discards it with this exhibit as the reason. ``implies``: the direction ``candidate →
    other`` is proved; both directions proved put the two in one cluster.
    ``probe-holds``/``probe-fails``: ``candidate``'s answer to the intent test ``test``. The gate checks
    the theorem's type against the type built from the candidates' declarations, in
    Lean, and its axioms (steps 3-5); the record never says what Lean said.
    """

    SCHEMA_KIND: ClassVar[str] = "review-exhibit/v1"
    schema_: Literal["review-exhibit/v1"] = Field("review-exhibit/v1", alias="schema")
    target: TargetId
    kind: ExhibitKind
    candidate: GraphPath
    other: GraphPath | None = None
    test: GraphPath | None = None
    theorem: LeanName
    lean_sha256: Sha256
    tool: ShortText | None = None
    by: Pseudonym
    date: Date

    @model_validator(mode="after")
    def _other(self) -> ReviewExhibit:
        if (self.kind == "implies") != (self.other is not None):
            raise ValueError("other is given exactly for an implies exhibit")
        if self.kind.startswith("probe-") != (self.test is not None):
            raise ValueError("test is given exactly for a probe exhibit")
        if self.other is not None and self.other == self.candidate:
            raise ValueError("a pair direction joins two different candidates")
        return self


class ReviewAttempt(Record):
    """``targets/<id>/review/attempts/<ts>-<pseudonym>.yaml``: a screen of ``candidate``
    or the pair direction ``candidate → other`` attempted without a result (D-9 v3.39:
    who, what tool, what budget). A failed attempt is never a refutation."""

    SCHEMA_KIND: ClassVar[str] = "review-attempt/v1"
    schema_: Literal["review-attempt/v1"] = Field("review-attempt/v1", alias="schema")
    target: TargetId
    screen: Literal["proves", "negation", "vacuity"] | None = None
    candidate: GraphPath
    other: GraphPath | None = None
    tool: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    budget: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    by: Pseudonym
    date: Date

    @model_validator(mode="after")
    def _subject(self) -> ReviewAttempt:
        if (self.screen is None) == (self.other is None):
            raise ValueError("an attempt names a screen or the other candidate, not both")
        if self.other is not None and self.other == self.candidate:
            raise ValueError("a pair direction joins two different candidates")
        return self


class ReviewTest(Record):
    """``targets/<id>/review/tests/<ts>-<pseudonym>.yaml``: an intent test (D-9 v3.39),
    run by one of three probes; each candidate answers it through a probe exhibit proving
    the probe's statement for that candidate, or its negation:

    * ``holds``: does ``concept`` hold at ``args``? (the candidate's predicate for the
      concept applied to ``args``);
    * ``covers``: does the claim hold with every concept made empty? (the candidate's
      ``claim`` applied to ``fun _ => False`` for each concept: tells "holds at n" from
      "says nothing about n"); ``concept`` names the concept the test is filed under and
      ``args`` is empty;
    * ``witness``: does the claim hold were ``concept`` exactly the values ``args``?
      (``claim`` with that concept replaced by ``fun x => x = a₁ ∨ …``, the others the
      candidate's own: "suppose 5 were the only prime").

    Covers and witness probe a candidate's ``claim`` and so unary concept predicates.

    ``expected`` comes from ``source``: ``answer`` (the intent signer's answer at
    ``answer``), ``cited`` (``citation``), or ``computation`` (no expected value is
    written: it is the value every surviving candidate's probe agrees on, the weakest
    source). No model supplies an expected value.
    """

    SCHEMA_KIND: ClassVar[str] = "review-test/v1"
    schema_: Literal["review-test/v1"] = Field("review-test/v1", alias="schema")
    target: TargetId
    probe: Literal["holds", "covers", "witness"] = "holds"
    concept: ConceptWord
    args: list[TermText] = Field(default_factory=list, max_length=8)
    expected: Literal["holds", "fails"] | None = None
    source: Literal["answer", "cited", "computation"]
    answer: GraphPath | None = None
    citation: ShortText | None = None
    by: Pseudonym
    date: Date

    @model_validator(mode="after")
    def _source(self) -> ReviewTest:
        if (self.probe == "covers") != (not self.args):
            raise ValueError("a covers probe takes no arguments; holds and witness take some")
        if (self.source == "computation") != (self.expected is None):
            raise ValueError("an expected value is written exactly when it is answered or "
                             "cited; a computation's is derived")
        if (self.source == "answer") != (self.answer is not None):
            raise ValueError("answer names the intent signer's answer exactly for source "
                             "answer")
        if (self.source == "cited") != (self.citation is not None):
            raise ValueError("citation is given exactly for source cited")
        return self


class ReviewQuestion(Record):
    """``targets/<id>/review/questions/<ts>-<pseudonym>.yaml``: a question to the intent
    signer, in mathematics, never in Lean (D-9 v3.39 stage 5), with the case that raised
    it and the candidates that answer it differently."""

    SCHEMA_KIND: ClassVar[str] = "review-question/v1"
    schema_: Literal["review-question/v1"] = Field("review-question/v1", alias="schema")
    target: TargetId
    question: LongText
    case: ShortText
    candidates: list[GraphPath] = Field(default_factory=list, max_length=50)
    raised_by: GraphPath | None = None
    by: Pseudonym
    date: Date


class ReviewAnswer(Record):
    """``targets/<id>/review/answers/<ts>-<pseudonym>.yaml``: the intent signer's answer to
    one question (D-9 v3.39), signed by the signer's SSH key or the network's approval key
    naming ``login`` (v3.33). ``source`` cites where the answer comes from; an answer
    without one is flagged on the page."""

    SCHEMA_KIND: ClassVar[str] = "review-answer/v1"
    schema_: Literal["review-answer/v1"] = Field("review-answer/v1", alias="schema")
    target: TargetId
    question: GraphPath
    answer: LongText
    source: ShortText | None = None
    login: Login | None = None
    by: Pseudonym
    date: Date
    signature: Signature | None = None


class ReviewSignature(Record):
    """``targets/<id>/review/signatures/<ts>-<pseudonym>.yaml``: one of a review's two
    signatures (D-9 v3.39 stage 7), a decision written by a person and signed.

    ``role`` ``intent`` is the intent signer's (the cluster says what the conjecture
    says); ``independent`` is a signer who is not the intent signer and wrote no
    candidate in the cluster (the evidence supports it). ``cluster`` lists the candidate
    paths signed for, exactly the surviving cluster when signed. ``decision``: ``accept``
    the cluster, ``split`` it into variants (D-30 v3.39), or ``send-back`` with a new
    question; only ``accept`` earns a grade.
    """

    SCHEMA_KIND: ClassVar[str] = "review-signature/v1"
    schema_: Literal["review-signature/v1"] = Field("review-signature/v1", alias="schema")
    target: TargetId
    role: Literal["intent", "independent"]
    decision: Literal["accept", "split", "send-back"]
    cluster: list[GraphPath] = Field(min_length=1, max_length=50)
    note: ShortText | None = None
    login: Login | None = None
    by: Pseudonym
    date: Date
    signature: Signature | None = None


REVIEW_KINDS: tuple[type[Record], ...] = (
    ReviewOpening, ReviewCandidate, ReviewExhibit, ReviewAttempt, ReviewTest, ReviewQuestion,
    ReviewAnswer, ReviewSignature,
)
#: ``targets/<id>/review/<dir>/``: the record model each folder holds and the Target
#: attribute listing it (network/record/read/loader.py)
REVIEW_DIRS: dict[str, tuple[type[Record], str]] = {
    "openings": (ReviewOpening, "review_openings"),
    "candidates": (ReviewCandidate, "review_candidates"),
    "exhibits": (ReviewExhibit, "review_exhibits"),
    "attempts": (ReviewAttempt, "review_attempts"),
    "tests": (ReviewTest, "review_tests"),
    "questions": (ReviewQuestion, "review_questions"),
    "answers": (ReviewAnswer, "review_answers"),
    "signatures": (ReviewSignature, "review_signatures"),
}
#: the folders whose record has a Lean file of the same name beside it
REVIEW_LEAN_DIRS: frozenset[str] = frozenset({"candidates", "exhibits"})

