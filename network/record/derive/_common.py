"""What every derivation module shares (private to :mod:`network.record.derive`).

The catalog codes a claim is refused with (:func:`~network.record.derive.claimable`, D-25,
D-33, D-6 v3.17) and ``unknown-node``; the constants of the record's reading (statuses,
vouching grades, set caps, artifact kinds); :func:`norm_date`; the result types
(:class:`NodeFlags`, :class:`NodeState`, :class:`Label`, :class:`TargetStatus`); and the
per-target lookups and withdrawal rule the index is built from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from network.errors import define
from network.record import models as m
from network.record.read.loader import Graph, Node, Target

define("claim-node-closed", None, 409, "The node is already proved, refuted or defective.",
       "Pick an open node from frontier.json; a different proof merges as an alternate.")
define("claim-node-superseded", None, 409, "The node was superseded by a revision (D-8).",
       "Claim the revision named by superseded_by instead.")
define("claim-node-question", None, 409,
       "The node asks for a value (its statement is written with answer(sorry)): a question, "
       "held, not a proposition to prove (D-10; DESIGN.md \"Importing from public "
       "registries\").",
       "Propose a variant that fixes an answer (answer(c) with = c, <= c, ...) and work "
       "on it; a resolving one is judged by a person at step 9.")
define("claim-node-disputed", None, 409,
       "A curator accepted a defect claim against the node (D-18 v3.28).",
       "Wait until the dispute ends in a revision or is withdrawn.")
define("claim-node-shelved", None, 409,
       "A steward or curator shelved the node or the decomposition it came from (D-14 v3.47).",
       "Pick another node; a shelving is lifted only by a later record of the same roles.")
define("claim-target-dormant", None, 409,
       "The target was declared dormant; it refuses new claims (ruling 13, D-33 v3.20).",
       "Submit without a claim: any merged progress artifact reactivates the target.")
define("claim-no-steward", None, 409,
       "An open-problem target without a steward refuses claims (D-6 v3.17).",
       "Wait for a mathematician to sign up as steward of the target.")
define("claim-node-blocked", None, 409,
       "The hole has no non-vacuity witness yet and stays blocked (D-29).",
       "Propose a Witness.lean for the hole first; that proposal needs no claim.")
define("claim-not-ready", None, 409,
       "A declared dependency of the node is not proved yet, so it is not in the ready set.",
       "Work on the open dependency, listed under deps in graph.json.")
define("claim-dependency-disputed", None, 409,
       "A declared dependency of the node is disputed; claims depending on it are blocked "
       "(D-18).", "Wait until the dependency's dispute is resolved.")
define("unknown-node", None, 404, "No such target or node in the record.",
       "Check the ids against targets/index.json and the target's graph.json.")

STATUSES = ("open", "blocked", "proved", "refuted", "defective", "superseded")
CLOSED = frozenset({"proved", "refuted", "defective"})
GRADES_VOUCHING = frozenset({"screened-and-signed", "reviewed", "certified"})
CATALOG_EVIDENCE_POINTS = 5
SET_ENUMERATION_CAP = 2000
"""The most sufficient sets enumerated per side of a target on request (D-25 v3.40 "up to
a cap")."""
PRODUCT_SET_CAP = 100
"""The most sufficient sets per side published in graph.json; ``truncated`` says when the
published list is a prefix (the read tool enumerates further on request)."""
PROOF_KINDS = frozenset({"Proof", "Refutation", "Vacuity"})
ROUTE_KINDS = frozenset({"partial", "reduction"})


def norm_date(date: str) -> str:
    """A record date as a full ISO-8601 UTC timestamp: ``2026-01-02`` → ``2026-01-02T00:00:00Z``."""
    return date if len(date) > 10 else f"{date}T00:00:00Z"


@dataclass(frozen=True)
class NodeFlags:
    """The derived flags beside a node's one status (Foundation ruling 1).

    Attributes:
        closable: every input of some merged decomposition (or resolves variant) reads
            proved or closable, and no closure record holds yet (D-25 v3.42). Never proved.
        proved_by_closure: the node reads proved through a closure record (D-12 v3.42).
        stale: a proved node whose dep or lemma was superseded, not yet re-attested (D-8).
        disputed: a curator's dispute record stands (D-18 v3.28).
        shelved: shelved by its own record or inherited from its parent/route (D-14 v3.47).
        speculative: the proposer's label, only while the node is unsettled (D-14 v3.19).
        bountied: named in target.yaml bountied_nodes and the target not dormant (D-26, D-33).
        dormant: the target is dormant (D-33).
        question: the statement asks for a value (``answer(sorry)``): held, never claimable
            as a proposition; progress comes through variants fixing an answer
            (:func:`is_question`; D-10, DESIGN.md "Importing from public registries").
    """

    closable: bool = False
    proved_by_closure: bool = False
    stale: bool = False
    disputed: bool = False
    shelved: bool = False
    speculative: bool = False
    bountied: bool = False
    dormant: bool = False
    question: bool = False

    def to_dict(self) -> dict[str, bool]:
        """JSON form, keys sorted by the caller's json.dumps."""
        return {k: bool(getattr(self, k)) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class NodeState:
    """A node's derived status, flags and literature status (D-25, ruling 1)."""

    target: str
    node: str
    status: str
    flags: NodeFlags
    literature: dict[str, Any] | None


@dataclass(frozen=True)
class Label:
    """A node's name (D-3 v3.44, D-25 v3.44).

    Attributes:
        label: the name shown for the node (never empty).
        claim: the opening ``$$…$$`` display of the current statement gloss, or None.
        source: ``gloss`` | ``hole`` | ``target`` | ``id``.
        gloss: the gloss path the label or claim came from, or None.
    """

    label: str
    claim: str | None
    source: str
    gloss: str | None = None


@dataclass(frozen=True)
class TargetStatus:
    """A target's status (D-33) with its digestion state (v3.17).

    Attributes:
        status: ``listed`` | ``active`` | ``resolved`` | ``dormant`` | ``known-result``.
        digestion: for resolved targets ``undigested`` | ``explained`` | ``written-up``;
            None otherwise.
        resolution: for resolved targets ``proved`` | ``refuted`` | ``defective``.
        declaration: the status record in force, or None.
        reactivated_by: for a dormancy reversed mechanically, the merged artifact path.
    """

    status: str
    digestion: str | None = None
    resolution: str | None = None
    declaration: str | None = None
    reactivated_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"status": self.status, "digestion": self.digestion,
                "resolution": self.resolution, "declaration": self.declaration,
                "reactivated_by": self.reactivated_by}


@dataclass
class _TargetIndex:
    """Per-target lookups built once (private)."""

    target: Target
    superseded_by: dict[str, str] = field(default_factory=dict)
    holes_of_route: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    route_owner: dict[str, str] = field(default_factory=dict)
    lemma_holders: dict[str, list[str]] = field(default_factory=dict)
    dep_holders: dict[str, list[str]] = field(default_factory=dict)
    shelvings_by_subject: dict[str, list[tuple[str, str, m.Shelving]]] = field(
        default_factory=dict)
    variants: list[str] = field(default_factory=list)


def _is_role_record(path: str) -> bool:
    """Whether ``path`` is a steward record (``stewards/`` or ``steward-acts/``), whose
    withdrawal removes a person from a role."""
    parts = path.split("/")
    return len(parts) == 4 and parts[0] == "targets" and parts[2] in ("stewards",
                                                                      "steward-acts")


def _removals_need_two(valid: list[tuple[str, m.Withdrawal]]) -> list[tuple[str, m.Withdrawal]]:
    """The verified withdrawals that take effect: a removal from a role (a withdrawal of a
    steward record) needs two role-holders, each with published reasoning (D-22: "removal
    requires two role-holders and published reasoning"); one curator's withdrawal of a
    stewardship stands on the record and takes effect when a second, distinct role-holder
    files theirs. Every other withdrawal takes effect alone."""
    removers: dict[str, set[str]] = {}
    for _p, w in valid:
        if _is_role_record(w.withdraws) and w.reason.strip():
            removers.setdefault(w.withdraws, set()).add(w.by.casefold())
    return [(p, w) for p, w in valid
            if not _is_role_record(w.withdraws) or len(removers.get(w.withdraws, ())) >= 2]


class IndexView(Protocol):
    """What the rules of :mod:`~network.record.derive._shared` read of the memoised index
    (:class:`~network.record.derive._index._Index` implements it): the index calls those
    rules and hands itself over, so they type it by this protocol, defined below both, and
    no import runs back from the rules to the index (issue 34: no circle, type-only ones
    included).

    Attributes:
        g: the graph indexed.
        merge_date: merge sequence number -> its ISO date.
        merge_seq_of: merged path -> its merge sequence number.
    """

    g: Graph
    merge_date: dict[int, str]
    merge_seq_of: dict[str, int]
    _facts: dict[tuple[str, str], tuple[int, list[str], list[tuple[str, int]]]]
    _ready: dict[tuple[str, str], str | None]
    _target_status: dict[str, TargetStatus]
    _reviews: dict[str, ReviewState | None]

    def approved(self, tid: str, rec: m.Words) -> list[m.Signature]: ...
    def closure_holds(self, tid: str, rec: m.Closure) -> bool: ...
    def closures(self, tid: str, nid: str) -> list[tuple[str, m.Closure]]: ...
    def curators_of(self, tid: str) -> set[str]: ...
    def current(self, tid: str, nid: str) -> str: ...
    def date_of(self, path: str) -> str | None: ...
    def dir_of(self, n: Node) -> str: ...
    def disputed(self, tid: str, nid: str) -> bool: ...
    def file_merged(self, n: Node, name: str) -> bool: ...
    def has(self, tid: str, nid: str) -> bool: ...
    def holds_role(self, tid: str, who: str, date: str, *, stewards: bool = True,
                   curators: bool = True) -> bool: ...
    def is_merged(self, path: str, sha256: str) -> bool: ...
    def is_root(self, tid: str, nid: str) -> bool: ...
    def node(self, tid: str, nid: str) -> Node: ...
    def own_routes(self, n: Node) -> list[str]: ...
    def present(self, path: str) -> bool: ...
    def proved_by_closure(self, tid: str, nid: str) -> bool: ...
    def role_signed(self, path: str, rec: Any, actor: str, date: str, tid: str, *,
                    stewards: bool = True, curators: bool = True) -> bool: ...
    def root_of(self, tid: str) -> str | None: ...
    def route_holes(self, tid: str, route: str) -> list[str]: ...
    def route_retired(self, tid: str, route: str) -> bool: ...
    def shelved(self, tid: str, nid: str) -> bool: ...
    def signature_verifies(self, body: Any, sig: m.Signature | None, signer: str,
                           at_date: str) -> bool: ...
    def status(self, tid: str, nid: str) -> str: ...
    def valid_closure(self, tid: str, nid: str, verdict: str) -> str | None: ...


# --- the formalization review (D-9 v3.39) ------------------------------------------------

REVIEW_GRADES = ("mechanical-only", "screened-and-signed", "author-attested", "expert-attested")
"""The rungs of D-9 v3.39's ladder a review earns, lowest first (published-and-uncontested
is operational, D-9, and not earned by a review)."""
REVIEW_VOUCHING = frozenset({"screened-and-signed", "author-attested", "expert-attested"})


@dataclass(frozen=True)
class ReviewCandidateView:
    """One candidate as the review derives it (D-9 v3.39 stages 2-4).

    Attributes:
        path: its record's graph path (the candidate's name on the page and in pairs).
        lean: its Lean file's graph path.
        record: the candidate record.
        compiled: a pass attestation names its Lean with these bytes (stage 3's compile).
        outcome: ``surviving``; ``discarded`` (a merged screen exhibit, or a probe proving
            the opposite of an answered or cited intent test: ``discarded_by``);
            ``returned`` (the format rule: a concept of the opening without its own
            predicate); ``mutant`` (stage 6: never a survivor); or
            ``uncompiled`` (not judged by a gate with Lean yet).
        discarded_by: the exhibit that discarded it, or None.
        screens: screen name (``proves``, ``negation``, ``vacuity``) → ``succeeded``
            (an exhibit), ``attempted`` (attempts recorded, none succeeded) or ``untried``.
        is_root: its Lean bytes are the target root's Statement.lean bytes.
        caught_by: for a mutant (outcome ``mutant``), the first intent test its probe
            answers against the test's expected value; None while none does.
    """

    path: str
    lean: str
    record: m.ReviewCandidate
    compiled: bool
    outcome: str
    discarded_by: str | None
    screens: dict[str, str]
    is_root: bool
    caught_by: str | None = None


@dataclass(frozen=True)
class ReviewDirection:
    """One direction ``left → right`` of a pair of surviving candidates (D-9 v3.39
    "pairs"): ``proved`` by the exhibit named, ``open`` (attempted: the attempts' paths) or
    ``untried``. A failed attempt is never refuted."""

    left: str
    right: str
    status: str
    exhibit: str | None
    attempts: tuple[str, ...]


@dataclass(frozen=True)
class ReviewQuestionView:
    """A question to the intent signer and the answer that counts (the intent signer's,
    signed), or None while it waits. ``flagged``: the answer cites no source."""

    path: str
    record: m.ReviewQuestion
    answer_path: str | None
    answer: m.ReviewAnswer | None
    flagged: bool


@dataclass(frozen=True)
class ReviewSignatureView:
    """A signature record and whether it counts toward the grade now (``why_not`` says
    why not: decision, cluster, signer's role or signature)."""

    path: str
    record: m.ReviewSignature
    counts: bool
    why_not: str | None


@dataclass(frozen=True)
class ReviewTestView:
    """One intent test and each candidate's answer (D-9 v3.39's test matrix).

    Attributes:
        path: the test record's path.
        record: the test.
        expected: ``holds``/``fails`` as written (answered or cited), or for a
            computation the value every surviving candidate's probe agrees on; None while
            they have not all answered or disagree.
        results: candidate path → (``holds`` or ``fails``, the probe exhibit's path).
        disagree: a computation the survivors answer differently: a question, no test.
    """

    path: str
    record: m.ReviewTest
    expected: str | None
    results: dict[str, tuple[str, str]]
    disagree: bool


@dataclass(frozen=True)
class ReviewState:
    """A target's formalization review as the record holds it (D-9 v3.39).

    Attributes:
        opening: the opening in force: the first held one, else the first background one.
        held: a steward's or curator's opening stands, so the review holds D-4 step 9 on
            an artifact that would settle the root (a background one never does).
        intent_signer: who answers the questions and signs for intent.
        candidates: every candidate, record order.
        directions: each ordered pair of surviving candidates.
        clusters: surviving candidates joined by directions proved both ways, each sorted,
            in record order of their first member.
        questions: every question with its counting answer.
        signatures: every signature record, with whether it counts.
        missing: what the automated stages still lack (empty when complete).
        complete: the automated stages are done: candidates survive, one cluster, every
            survivor screened three ways and probed by every intent test, no
            computation the survivors disagree on, no question waiting.
        grade: the rung earned (:data:`REVIEW_GRADES`).
        capped: no person-written candidate is in the cluster, so the grade stops at
            screened-and-signed (D-9 v3.39, the thin-pool rule).
        vouches: held, complete, grade at least screened-and-signed and the root's own
            statement in the surviving cluster: step 9 reads the root as vouched for.
        summary: the state in words ("6 candidates, 1 cluster, 2 questions waiting").
        root_sha256: the SHA-256 of the current root's Statement.lean, None without one.
        tests: every intent test that counts (an answered one only once its answer
            counts and the intent signer filed it), with each candidate's probe result.
        root_declaration, root_author: the current root's declaration and the author of
            its Lean (META), None without a root.
    """

    target: str
    opening: str
    opening_record: m.ReviewOpening
    held: bool
    intent_signer: str
    candidates: tuple[ReviewCandidateView, ...]
    directions: tuple[ReviewDirection, ...]
    clusters: tuple[tuple[str, ...], ...]
    questions: tuple[ReviewQuestionView, ...]
    signatures: tuple[ReviewSignatureView, ...]
    missing: tuple[str, ...]
    complete: bool
    grade: str
    capped: bool
    vouches: bool
    summary: str
    root_sha256: str | None
    tests: tuple[ReviewTestView, ...] = ()
    root_declaration: str | None = None
    root_author: str | None = None

    @property
    def surviving(self) -> tuple[str, ...]:
        """The surviving candidates' paths, record order."""
        return tuple(c.path for c in self.candidates if c.outcome == "surviving")
