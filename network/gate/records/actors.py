"""Step 2's actor rules: a record's actors are its submitter, and role acts are signed
(Foundation ruling 14; ruling 9; D-4 step 2; issue 9).

Two checks over every file a pull request adds, called once from
:func:`network.gate.steps.step2.run_steps_1_2`:

1. **Records are bound to their submitter.** Every field that names an actor (``by``,
   ``author``, ``contributor``, ``curator``; see :data:`ACTOR_FIELDS`) and the pseudonym
   in a file name (``<ts>-<pseudonym>.yaml``, ``attempts/<ts>-<pseudonym>-<kind>``) must
   equal the submitter's ledger identity exactly, the pseudonym ``run_gate(submitter=...)``
   receives. A pull request whose submitter is unknown (None) may name no actor at all:
   it fails closed. Code ``actor-not-submitter``.
2. **Role acts are signed** by a key bound to that role on the record's date, judged by
   :func:`network.record.trust.check_role_signature` against the base graph's ``keys/``,
   ``identities/``, curators.json and verified steward records: steward records (signed
   by the steward they name or a curator), dormancy and dispute records (a curator),
   shelvings (a steward or curator; their reach is :mod:`network.gate.records.shelving`'s), a
   withdrawal unless it withdraws the submitter's own gloss or explainer version (a
   curator, or a steward for words), a literature record filed by a steward or curator
   or one that confirms or disputes (a steward or curator), every approval a gloss or
   explainer carries (a steward or curator), registrations (a steward or curator, D-10
   v3.37), a related variant's pertinence signature (a steward or curator, D-30 v3.12;
   its placement, sentence and one-act rules are :mod:`network.gate.records.pertinence`'s), and
   a review of a held proof (a steward or curator, not its author, naming a
   held attestation's bytes: :mod:`network.gate.records.proof_reviews`). Codes
   ``role-act-unsigned``, ``role-signature-invalid``, ``role-key-unbound``,
   ``review-names-no-held-proof``, ``review-by-author``.

Derive counts these records under the same rules (:mod:`network.record.derive`), so what
step 2 admits is what derive believes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from network.errors import LemmataError, define
from network.gate.artifacts import Artifact, Kind, record_model
from network.gate.diff import Change, Diff
from network.gate.records import pertinence as pertinence_rules
from network.gate.records.proof_reviews import review_findings
from network.gate.records.review_rules import record_findings as review_record_findings
from network.gate.records.role_records import correction_findings, steward_act_findings
from network.gate.records.shelving import shelving_findings
from network.gate.result import Diagnostic
from network.record import derive, trust
from network.record import models as m
from network.record.read.loader import ATTEMPT_RE, RECORD_FILE_RE, Graph, parse_record

define("withdrawal-elsewhere", 2, 422,
       "A withdrawal names a record of another target than the one it is filed under.",
       "File the withdrawal under the target whose record it withdraws; a role is held on "
       "one target (ruling 14).")
define("identity-login-bound", 2, 409,
       "An identities/ record binds a GitHub login that another identity record already "
       "binds: a login is one identity (D-35 v3.33, ruling 9).",
       "Sign in with that login: it already holds its pseudonym. A binding that must move "
       "is a curator's correction, not a second record.")
define("identity-pseudonym-taken", 2, 409,
       "An identities/ record's pseudonym equals another identity record's without regard "
       "to case: pseudonyms compare without case (D-19; the service's pseudonym_key, a "
       "review's same_person), so the two bindings would name one person with two logins "
       "(ruling 9).",
       "Choose another pseudonym; the site refuses look-alikes before it files a binding.")
define("actor-not-submitter", 2, 403,
       "A field that names an actor (by, author, contributor, curator) or the pseudonym in "
       "a file name is not the submitter's ledger identity, or the submitter is unknown "
       "(ruling 14).",
       "Name yourself: every actor field and the file name's pseudonym must be the "
       "pseudonym the pull request is credited to (your bound GitHub login or allowed SSH "
       "signer, or the service's token identity).")

ACTOR_FIELDS: dict[type[m.Record], tuple[str, ...]] = {
    m.Postmortem: ("contributor",),
    m.Annex: ("author",),
    m.Literature: ("by",),
    m.Gloss: ("author",),
    m.Explainer: ("author",),
    m.Withdrawal: ("by",),
    m.ProposedFor: ("by",),
    m.Shelving: ("by",),
    m.Pertinence: ("by",),
    m.Waiver: ("author",),
    m.Defect: ("by",),
    m.Dispute: ("curator",),
    m.RevisionRequest: ("by",),
    m.Approach: ("author",),
    m.ApproachV2: ("author",),
    m.TargetStatusRecord: ("curator",),
    m.Meta: ("author",),
    m.Steward: (),
    m.StewardAct: (),
    m.PrecheckRecord: (),
    m.Registration: ("by",),
    m.Approval: ("by",),
    m.Motion: ("by",),
    m.Vote: ("by",),
    m.Writeup: ("by",),
    m.ProofReview: ("by",),
    m.Identity: ("pseudonym",),
    m.DisplayName: ("pseudonym",),
    m.Correction: ("by",),
    **{model: ("by",) for model in m.REVIEW_KINDS},  # D-9 v3.39
}
"""Each submittable record model's fields that name who acted. A steward record's
``pseudonym`` names the steward it admits, not the filer; its signature binds it instead."""

def model_of(art: Artifact, path: str) -> type[m.Record] | None:
    """The record model the file at ``path`` of ``art`` holds, or None for a Lean file, an
    annex's Markdown or anything step 2 places elsewhere."""
    name = path.rsplit("/", 1)[-1]
    if name == "META.yaml":
        return m.Meta
    if path.endswith("waivers/native_decide.yaml"):
        return m.Waiver
    if art.kind is Kind.ANNEX:
        return m.Annex if name.endswith(".yaml") else None
    if not name.endswith((".yaml", ".json")):
        return None
    return record_model(art.kind)


def name_pseudonym(path: str) -> str | None:
    """The pseudonym a file's name carries (``<ts>-<pseudonym>.yaml`` or an attempt's
    ``<ts>-<pseudonym>-<kind>``), or None when its name carries none."""
    name = path.rsplit("/", 1)[-1]
    mt = ATTEMPT_RE.fullmatch(name) or RECORD_FILE_RE.fullmatch(name)
    return mt.group("who") if mt is not None else None


class ValidRecords:
    """The record files of one pull request, each parsed once (bytes → model its place
    holds, :func:`model_of`) for every step-2 check that reads them (actors, references).

    Args:
        diff: the pull request's changes.
    """

    def __init__(self, diff: Diff) -> None:
        self.diff = diff
        self._memo: dict[str, m.Record | None] = {}

    def of(self, art: Artifact, path: str, change: Change) -> m.Record | None:
        """The record at ``path`` (``change`` its diff entry) when it parses and validates
        as its model without a problem; None otherwise, or for a file that is no record
        (step 2's record check reports why)."""
        if path not in self._memo:
            model = model_of(art, path)
            rec: m.Record | None = None
            if model is not None:
                parsed, problems = parse_record(path, self.diff.new_bytes(change), model)
                rec = None if problems else parsed
            self._memo[path] = rec
        return self._memo[path]


def actor_findings(diff: Diff, base: Graph, artifacts: Iterable[Artifact],
                   submitter: str | None, skip: Collection[str] = (),
                   records: ValidRecords | None = None) -> list[Diagnostic]:
    """Every actor and role-signature finding over the files ``artifacts`` add.

    Args:
        diff: the pull request's changes.
        base: the graph at ``diff.base`` (keys, identities, curators, stewards).
        artifacts: the artifacts :func:`network.gate.artifacts.classify` placed.
        submitter: the ledger identity the pull request is credited to, or None.
        skip: paths step 2 refused already without reading them (oversized files).
        records: the pull request's parsed records, shared with the other checks (one
            is made when None).

    Returns:
        Diagnostics with codes ``actor-not-submitter``, ``role-act-unsigned``,
        ``role-signature-invalid`` and ``role-key-unbound``; a file that does not parse
        yields none here (step 2's record check reports it).
    """
    records = records or ValidRecords(diff)
    findings: list[Diagnostic] = []
    added = {c.path: c for c in diff.changes if c.new_id and (
        c.status == "added" or (c.status == "modified" and c.path.startswith("names/")))}
    batch: list[tuple[str, m.Record, str]] = []  # panel and approval records (D-32 v3.34)
    pertinent: list[tuple[str, str, m.Pertinence]] = []
    for art in artifacts:
        for path in art.paths:
            if path in skip or path not in added:
                continue
            who = name_pseudonym(path)
            if who is not None:
                findings.extend(_bound("file name", who, submitter, path))
            rec = records.of(art, path, added[path])
            if rec is None:
                continue
            for fld in ACTOR_FIELDS.get(type(rec), ()):
                value = getattr(rec, fld, None)
                if value is not None:
                    findings.extend(_bound(fld, value, submitter, path))
            findings.extend(_role_findings(base, diff, art, path, rec, submitter))
            if isinstance(rec, (m.Motion, m.Vote, m.Writeup, m.Approval)):
                batch.append((path, rec, art.target))
            if isinstance(rec, m.Pertinence):  # D-30 v3.12: one act per variant+sentence
                pertinent.append((path, art.target, rec))
    findings.extend(pertinence_rules.batch_findings(pertinent))
    if batch:
        from network.gate.records import panel_rules

        pairs = [(p, r) for p, r, _t in batch]
        for path, rec, tid in batch:
            if tid in base.targets:
                findings.extend(panel_rules.findings(base, tid, path, rec, pairs))
    return findings


def _bound(field: str, value: str, submitter: str | None, path: str) -> list[Diagnostic]:
    if submitter is None:
        return [Diagnostic("actor-not-submitter", f"{field} names {value!r}, and the pull "
                           "request's submitter is unknown", path)]
    if value != submitter:
        return [Diagnostic("actor-not-submitter", f"{field} names {value!r}, but the "
                           f"submitter is {submitter!r}", path)]
    return []


def _role_findings(base: Graph, diff: Diff, art: Artifact, path: str, rec: m.Record,
                   submitter: str | None) -> list[Diagnostic]:
    if isinstance(rec, m.Identity):
        return _identity_findings(base, path, rec)
    if isinstance(rec, m.DisplayName):
        return _name_findings(base, path, rec)
    tid = art.target
    if tid not in base.targets:
        return []
    cur = derive.curators_of(base, tid)
    now = derive.now(base)

    def holds(stewards: bool, curators: bool) -> trust.RoleCheck:
        return lambda who, date: derive.holds_role(base, tid, who, date, stewards=stewards,
                                                   curators=curators)

    def judge(body: m.Record | dict[str, object], sig: m.Signature | None,
              actors: frozenset[str], check: trust.RoleCheck, date: str,
              what: str) -> list[Diagnostic]:
        # on the record's own date, and on the base's date too: a record's date is the
        # contributor's word, so a backdated act by a former holder, or one signed with
        # a retired key, must not pass (ruling 2: the gate's now is the merge log's)
        for when in dict.fromkeys(d for d in (date, now) if d is not None):
            try:
                trust.check_role_signature(body, sig, actors=actors, holds=check,
                                           at_date=when, keys=base.keys,
                                           identities=base.identities)
            except LemmataError as exc:
                return [Diagnostic(exc.code, f"{what}: {exc.detail}", path)]
        return []

    if isinstance(rec, m.REVIEW_KINDS):  # D-9 v3.39: the review's own rules
        return review_record_findings(base, diff, art, path, rec, now)
    if isinstance(rec, m.Steward):
        return judge(rec, rec.signature, frozenset({rec.pseudonym, *cur}),
                     lambda who, _d: who == rec.pseudonym or who in cur, rec.since,
                     "a steward record is signed by the steward it names or a curator")
    if isinstance(rec, m.Correction):  # D-19 v3.27: a curator's, applied after merge
        return correction_findings(base, tid, path, rec)
    if isinstance(rec, m.StewardAct):  # D-32 v3.33/v3.34: its own rules
        return steward_act_findings(base, tid, path, rec, submitter)
    if isinstance(rec, (m.TargetStatusRecord, m.Dispute)):
        return judge(rec, rec.signature, frozenset({rec.curator}), holds(False, True),
                     rec.date, f"a {rec.SCHEMA_KIND.split('/')[0]} record is a curator's act")
    if isinstance(rec, m.Registration):
        return judge(rec, rec.signature, frozenset({rec.by}), holds(True, True), rec.date,
                     "a registration is a curator's or a listed steward's act (D-10 v3.37)")
    if isinstance(rec, m.Shelving):
        return judge(rec, rec.signature, frozenset({rec.by}), holds(True, True), rec.date,
                     "a shelving is a steward's or curator's act") + shelving_findings(
            base, tid, art.node or "", path, rec)
    if isinstance(rec, m.Pertinence):  # D-30 v3.12: the role signature is judged there
        return pertinence_rules.pertinence_findings(base, tid, art.node, path, rec)
    if isinstance(rec, m.ProofReview):
        # whose proof it reviews and which bytes (D-4 step 9), then the role signature
        return review_findings(base, tid, art.node, path, rec) or judge(
            rec, rec.signature, frozenset({rec.by}), holds(True, True), rec.date,
            "a proof review is a steward's or curator's act")
    if isinstance(rec, m.Withdrawal):
        if rec.withdraws.startswith(f"targets/{tid}/review/"):  # D-9 v3.39: append-only
            return [Diagnostic("review-record-withdrawn", f"{rec.withdraws!r} is a record "
                               "of the formalization review", path)]
        if not rec.withdraws.startswith(f"targets/{tid}/"):
            # a role is held on a target: a withdrawal filed under one target withdraws
            # nothing of another (derive ignores one that tries)
            return [Diagnostic("withdrawal-elsewhere", f"withdraws {rec.withdraws!r}, "
                               f"outside targets/{tid}/", path)]
        words = _words_author(base, rec.withdraws)
        if words is not None and words == rec.by:
            return []  # the author withdrawing their own version (D-3 v3.30)
        return judge(rec, rec.signature, frozenset({rec.by}),
                     holds(words is not None, True), rec.date,
                     "withdrawing another's record rests on the curator's (or, for words, "
                     "the steward's) role")
    if isinstance(rec, m.Literature):
        role_holder = submitter is not None and derive.holds_role(base, tid, submitter,
                                                                  rec.date)
        if not (role_holder or rec.confirms or rec.disputes):
            return []
        return judge(rec, rec.signature, frozenset({rec.by}), holds(True, True), rec.date,
                     "a steward's or curator's literature reading is signed")
    if isinstance(rec, m.Words):
        out: list[Diagnostic] = []
        body = trust.approval_body(rec)
        for sig in rec.approvals:
            out.extend(judge(body, sig, frozenset({sig.signer}), holds(True, True),
                             rec.date, "an approval is a steward's or curator's signature"))
        return out
    return []


def _identity_findings(base: Graph, path: str, rec: m.Identity) -> list[Diagnostic]:
    """An ``identities/<pseudonym>.yaml`` binding (ruling 9, issue 13): signed for its own
    pseudonym (the approval key the service signs a web sign-in's binding with, or an SSH
    key of a binding already on the record), on its ``since`` date and on the base's,
    naming a GitHub login no other identity record of the base binds
    (``identity-login-bound``), for a pseudonym no other identity record holds without
    regard to case (``identity-pseudonym-taken``)."""
    out: list[Diagnostic] = []
    login = (rec.github or "").casefold()
    for other in base.identities:  # Pat beside pat: one name, two logins
        if other != rec.pseudonym and other.casefold() == rec.pseudonym.casefold():
            out.append(Diagnostic("identity-pseudonym-taken", f"{rec.pseudonym!r} is "
                                  f"{other!r}'s pseudonym without regard to case", path))
    for other, ident in base.identities.items():
        if login and other != rec.pseudonym and (ident.github or "").casefold() == login:
            out.append(Diagnostic("identity-login-bound", f"GitHub login {rec.github} is "
                                  f"already bound to {other}", path))
    return _own_record_findings(base, path, rec, rec.since, "an identity binding") + out


def _name_findings(base: Graph, path: str, rec: m.DisplayName) -> list[Diagnostic]:
    """A ``names/<pseudonym>.yaml`` record (D-3 v3.37, D-35 "names"): for the file's own
    pseudonym, signed for it (the approval key the service signs with, or one of the
    pseudonym's listed SSH keys), on its date and on the base's."""
    return _own_record_findings(base, path, rec, rec.date, "a display name")


def _own_record_findings(base: Graph, path: str, rec: m.Identity | m.DisplayName,
                         date: str, what: str) -> list[Diagnostic]:
    """The rules a pseudonym's own root-level record shares (ruling 9, D-3 v3.37): its
    file name (``<pseudonym>.yaml``) names the record's pseudonym (``actor-not-submitter``),
    and it is signed for that pseudonym on ``date`` and on the base's now (the
    role-signature codes: ``role-act-unsigned``, ``role-signature-invalid``,
    ``role-key-unbound``)."""
    out: list[Diagnostic] = []
    named = path.rsplit("/", 1)[-1].removesuffix(".yaml")
    if named != rec.pseudonym:
        out.append(Diagnostic("actor-not-submitter", f"the file name names {named!r}, the "
                              f"record {rec.pseudonym!r}", path))
    for when in dict.fromkeys(d for d in (date, derive.now(base)) if d is not None):
        try:
            trust.check_role_signature(rec, rec.signature, actors=frozenset({rec.pseudonym}),
                                       holds=lambda who, _d: who == rec.pseudonym,
                                       at_date=when, keys=base.keys,
                                       identities=base.identities)
        except LemmataError as exc:
            out.append(Diagnostic(exc.code, f"{what} is signed for its own pseudonym: "
                                  f"{exc.detail}", path))
            break
    return out


def _words_author(base: Graph, withdraws: str) -> str | None:
    """The author of the gloss or explainer version at ``withdraws`` on the base graph,
    or None when that path is no such version."""
    parts = withdraws.split("/")
    if len(parts) != 6 or parts[0] != "targets" or parts[4] not in ("gloss", "explainer"):
        return None
    t = base.targets.get(parts[1])
    node = t.nodes.get(parts[3]) if t is not None else None
    if node is None:
        return None
    chain = node.glosses if parts[4] == "gloss" else node.explainers
    return next((rf.record.author for rf in chain if rf.path == withdraws), None)
