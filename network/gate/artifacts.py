"""What a pull request submits, and which steps judge it (D-3, D-4 step 2, ruling 6).

:func:`classify` reads a :class:`~network.gate.diff.Diff` against the graph at its base and
returns the artifacts it carries, one per node it touches (D-2: a pull request may span a
connected set of nodes; the gate applies per node). Every path it cannot place is a
step-2 finding. :data:`STEP_PLAN` is the table of ruling 6: for each kind, the steps it
runs, whether it builds Lean (and so needs a precheck attestation, ruling 7), and who may
write it. The Lean text rules step 2 holds a file to (:mod:`network.gate.screens.lean_text_rules`)
and the import-time screen (:mod:`network.gate.screens.import_screen`) are re-exported here
(issue 17).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, Protocol

from network import ids
from network.errors import define
from network.gate.diff import Change, Diff
from network.gate.repin_spec import repin_problem
from network.gate.result import Diagnostic
from network.gate.screens.import_screen import (
    IMPORT_TIME_NAME_PARTS,
    IMPORT_TIME_PREFIXES,
    IMPORT_TIME_WORDS,
    INERT_ATTRIBUTES,
    ImportTimeProblem,
    attribute_names,
    hash_command_at,
    import_time_findings,
    import_time_problems,
)
from network.gate.screens.lean_text_rules import (
    FORBIDDEN_OPTIONS,
    annex_citation_findings,
    annex_citations,
    forbidden_option_findings,
    import_lines,
    line_comments,
    partial_label_findings,
    statement_command_findings,
    strip_comments,
    use_findings,
)
from network.record import layout
from network.record import models as m
from network.record.read.loader import RECORD_FILE_RE, Graph, Node, parse_record, sha256_hex

# --- catalog ---------------------------------------------------------------------------
define("toolchain-pin-file", 1, 422,
       "The pull request adds or changes a lakefile, lean-toolchain or lake-manifest.json.",
       "Remove it: the gate resolves the toolchain and Mathlib from gate-spec.json alone.")
define("gate-only-path", 2, 422,
       "The pull request writes a path only the gate writes (hole nodes, closure, ledger, "
       "log, attestations, products, Context.lean).",
       "Drop that file; the post-merge job writes it.")
define("repin-not-alone", 2, 422,
       "A re-pin of a target's gate-spec.json carries other changed files.",
       "Open the re-pin alone (`lemmata target repin` writes one commit changing one "
       "file) and send the other changes in their own pull request.")
define("repin-stale", 2, 409,
       "The re-pin was cut from a gate-spec.json that is no longer main's.",
       "Run `lemmata target repin` again from main's current commit (or rebase the branch "
       "and re-apply the pins), so the pins judged are the pins that merge.")
define("correction-line-unknown", 2, 422,
       "A credit correction added under ledger/ names no ledger line on the record, or "
       "a line of no target of this graph (D-19 v3.27).",
       "Name the ledger line's path (GET /ledger.json lists them) in `corrects`.")
define("statement-changed", 2, 422, "Statement.lean of an existing node was changed.",
       "Statements are immutable (D-8): file a revision request or propose a variant.")
define("meta-changed", 2, 422, "META.yaml of an existing node was changed.",
       "Contributors never change META.yaml; the record derives status from files.")
define("merged-proof-modified", 2, 422, "A merged Proof.lean (or other merged file) was modified.",
       "Submit a later proof as attempts/<ts>-<pseudonym>-alternate.lean (D-25 v3.13).")
define("record-deleted", 2, 422, "The pull request deletes or rewrites a file of the record.",
       "The record is append-only; withdraw a record with a withdrawal record instead.")
define("symlink-in-submission", 2, 422, "The pull request adds a symbolic link.",
       "Replace it with a regular file.")
define("copy-of-merged-proof", 2, 409,
       "The file is byte-identical to the node's merged proof or a recorded alternate.",
       "Submit a different proof, or nothing: a copy adds no record (D-25 v3.13).")
define("proof-already-merged", 2, 409, "The node's Proof.lean has already merged.",
       "Submit your proof as an alternate: attempts/<ts>-<pseudonym>-alternate.lean.")
define("alternate-without-proof", 2, 422, "An alternate was submitted for a node with no merged proof.",
       "Submit it as the node's Proof.lean instead.")
define("explainer-without-proof", 2, 422, "An explainer was submitted for a node with no merged proof.",
       "File the text as an informal annex (D-31) instead.")
define("witness-not-wanted", 2, 422,
       "A witness proposal names a node that is not a hole waiting for its witness.",
       "Propose witnesses only for blocked holes (D-29).")
define("node-exists", 2, 409, "A proposal creates a node directory that already exists.",
       "Choose a new node id.")
define("mixed-artifacts", 2, 422, "One node carries more than one artifact in this pull request.",
       "Open one pull request per artifact on a node.")
define("unknown-target", 2, 422, "The pull request touches a target that does not exist.",
       "Check the target id; new targets enter through a curator's intake (D-6).")
define("role-not-permitted", 2, 403, "The submitter's role may not write this artifact kind.",
       "Ask a steward or curator of the target to file it.")
define("annex-hash-mismatch", 2, 422,
       "An annex's bytes do not hash to its name, or its annex/v1 metadata names another "
       "SHA-256 than the file's name (D-31).",
       "Name the annex annex/<sha256>.md after the SHA-256 of its bytes, and set the "
       ".yaml's sha256 to that same value.")
define("annex-metadata-missing", 2, 422,
       "An annex/<sha256>.md comes without its annex/<sha256>.yaml metadata (D-31).",
       "Add annex/<sha256>.yaml (schema annex/v1: sha256, author, licence, title, date) in "
       "the same pull request, or submit through submit_informal_annex.")


class Kind(StrEnum):
    """Artifact kinds (D-12, D-13, D-14, D-25, D-29, D-30, D-31, D-3 v3.30)."""

    PROOF = "proof"
    ALTERNATE = "alternate"
    PARTIAL = "partial"
    REDUCTION = "reduction"
    COUNTEREXAMPLE = "counterexample"
    VACUITY = "vacuity"
    WITNESS = "witness"
    VARIANT = "variant"
    SPECULATIVE = "speculative"
    POSTMORTEM = "postmortem"
    ANNEX = "annex"
    GLOSS = "gloss"
    EXPLAINER = "explainer"
    LITERATURE = "literature"
    SHELVING = "shelving"
    PERTINENCE = "pertinence"
    WITHDRAWAL = "withdrawal"
    PROPOSED_FOR = "proposed-for"
    DEFECT = "defect"
    DISPUTE = "dispute"
    REVISION_REQUEST = "revision-request"
    APPROACH = "approach"
    STEWARD = "steward"
    DORMANCY = "dormancy"
    PRECHECK_RECORD = "precheck-record"
    REGISTRATION = "registration"
    APPROVAL = "approval"
    MOTION = "motion"
    VOTE = "vote"
    WRITEUP = "writeup"
    PROOF_REVIEW = "proof-review"
    IDENTITY = "identity"
    DISPLAY_NAME = "display-name"
    STEWARD_ACT = "steward-act"
    CURATORS = "curators"
    CORRECTION = "correction"
    REPIN = "repin"
    # D-9 v3.39: the formalization review (network/gate/records/review_rules.py; the Lean
    # of a candidate or exhibit is judged by network/gate/review_judge.py)
    REVIEW_OPENING = "review-opening"
    REVIEW_CANDIDATE = "review-candidate"
    REVIEW_EXHIBIT = "review-exhibit"
    REVIEW_ATTEMPT = "review-attempt"
    REVIEW_TEST = "review-test"
    REVIEW_QUESTION = "review-question"
    REVIEW_ANSWER = "review-answer"
    REVIEW_SIGNATURE = "review-signature"


Role = str  # "contributor", "steward", "curator"


@dataclass(frozen=True)
class KindPlan:
    """One row of the step plan (ruling 6).

    Attributes:
        steps: the D-4 steps this kind runs, in order.
        builds: True when step 3/4 build Lean (so a precheck attestation is required).
        roles: who may write it; "contributor" means anyone with an identity.
        settles: True when, on a root or a resolves/refutes variant, it may settle the
            target (so step 9 may be asked, D-4 v3.20).
    """

    steps: tuple[int, ...]
    builds: bool
    roles: frozenset[Role]
    settles: bool = False


_ANYONE = frozenset({"contributor", "steward", "curator"})
_STEWARDS = frozenset({"steward", "curator"})
_CURATORS = frozenset({"curator"})
_LEAN_STEPS = (1, 2, 3, 4, 5, 6, 7, 8, 9)
_RECORD_STEPS = (2,)

STEP_PLAN: dict[Kind, KindPlan] = {
    Kind.PROOF: KindPlan(_LEAN_STEPS, True, _ANYONE, settles=True),
    Kind.ALTERNATE: KindPlan(_LEAN_STEPS, True, _ANYONE),
    Kind.PARTIAL: KindPlan(_LEAN_STEPS, True, _ANYONE),
    Kind.REDUCTION: KindPlan(_LEAN_STEPS, True, _ANYONE),
    Kind.COUNTEREXAMPLE: KindPlan(_LEAN_STEPS, True, _ANYONE, settles=True),
    Kind.VACUITY: KindPlan(_LEAN_STEPS, True, _ANYONE, settles=True),
    Kind.WITNESS: KindPlan(_LEAN_STEPS, True, _ANYONE),
    Kind.VARIANT: KindPlan(_LEAN_STEPS, True, _ANYONE),
    Kind.SPECULATIVE: KindPlan(_LEAN_STEPS, True, _ANYONE),
    Kind.POSTMORTEM: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.ANNEX: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.GLOSS: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.EXPLAINER: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.LITERATURE: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.SHELVING: KindPlan(_RECORD_STEPS, False, _STEWARDS),
    Kind.PERTINENCE: KindPlan(_RECORD_STEPS, False, _STEWARDS),  # D-30 v3.12
    Kind.WITHDRAWAL: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.PROPOSED_FOR: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.DEFECT: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.DISPUTE: KindPlan(_RECORD_STEPS, False, _CURATORS),
    Kind.REVISION_REQUEST: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.APPROACH: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.STEWARD: KindPlan(_RECORD_STEPS, False, _CURATORS),
    Kind.DORMANCY: KindPlan(_RECORD_STEPS, False, _CURATORS),
    Kind.PRECHECK_RECORD: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.REGISTRATION: KindPlan(_RECORD_STEPS, False, _STEWARDS),  # D-10 v3.37
    Kind.APPROVAL: KindPlan(_RECORD_STEPS, False, _STEWARDS),
    # D-32 v3.34: who may open a motion or vote is the panel's rule, judged by
    # network.gate.records.panel_rules with its own codes (an invited curator votes in its place)
    Kind.MOTION: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.VOTE: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.WRITEUP: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.PROOF_REVIEW: KindPlan(_RECORD_STEPS, False, _STEWARDS),
    Kind.IDENTITY: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.DISPLAY_NAME: KindPlan(_RECORD_STEPS, False, _ANYONE),  # D-3 v3.37
    # anyone may file their own join or step-down; who may is D-32's panel rule, judged
    # with the signature in step 2 (network.gate.steward_acts)
    Kind.STEWARD_ACT: KindPlan(_RECORD_STEPS, False, _ANYONE),
    # the owner need hold no role; the owner's signature is the rule (D-22 v3.33)
    Kind.CURATORS: KindPlan(_RECORD_STEPS, False, _ANYONE),
    # D-19 v3.27: a listed curator's credit correction, the one file a pull request may
    # add under ledger/ (network.gate.records.role_records.correction_findings)
    Kind.CORRECTION: KindPlan(_RECORD_STEPS, False, _CURATORS),
    # issue 37: a curator moves a target's pins (D-7: a graph "never bumps mid-flight;
    # exceptions require ... a recorded justification", the pull request a curator
    # authors); judged by network.gate.repin_judge, which re-elaborates every merged file
    # under the new pin
    Kind.REPIN: KindPlan((1, 2, 4), False, _CURATORS),
    # D-9 v3.39: who may open, answer or sign is the review's rule (review_rules.py); a
    # candidate's statement and an exhibit's proof are built and checked in Lean
    Kind.REVIEW_OPENING: KindPlan(_RECORD_STEPS, False, _STEWARDS),
    Kind.REVIEW_CANDIDATE: KindPlan((1, 2, 3, 4), False, _ANYONE),
    Kind.REVIEW_EXHIBIT: KindPlan((1, 2, 3, 4, 5), False, _ANYONE),
    Kind.REVIEW_ATTEMPT: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.REVIEW_TEST: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.REVIEW_QUESTION: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.REVIEW_ANSWER: KindPlan(_RECORD_STEPS, False, _ANYONE),
    Kind.REVIEW_SIGNATURE: KindPlan(_RECORD_STEPS, False, _ANYONE),
}
#: the review's kinds whose Lean the gate builds (network/gate/review_judge.py)
REVIEW_LEAN_KINDS = frozenset({Kind.REVIEW_CANDIDATE, Kind.REVIEW_EXHIBIT})

# Node subfolders holding one record kind each, appended as <ts>-<pseudonym>.yaml.
_NODE_RECORD_KINDS: dict[str, Kind] = {
    "literature": Kind.LITERATURE,
    "gloss": Kind.GLOSS,
    "explainer": Kind.EXPLAINER,
    "withdrawals": Kind.WITHDRAWAL,
    "proposed-for": Kind.PROPOSED_FOR,
    "shelving": Kind.SHELVING,
    "pertinence": Kind.PERTINENCE,
    "defects": Kind.DEFECT,
    "disputes": Kind.DISPUTE,
    "revision-requests": Kind.REVISION_REQUEST,
    "approvals": Kind.APPROVAL,
    "reviews": Kind.PROOF_REVIEW,
}
_TARGET_RECORD_KINDS: dict[str, Kind] = {
    "approaches": Kind.APPROACH,
    "stewards": Kind.STEWARD,
    "status": Kind.DORMANCY,
    "withdrawals": Kind.WITHDRAWAL,
    "registrations": Kind.REGISTRATION,
    "writeups": Kind.WRITEUP,
    "steward-acts": Kind.STEWARD_ACT,
}
#: D-32 v3.34: ``targets/<id>/panel/<dir>/<ts>-<pseudonym>.yaml``
_PANEL_RECORD_KINDS: dict[str, Kind] = {"motions": Kind.MOTION, "votes": Kind.VOTE}
_GATE_ONLY_TOP = ("attestations/", "ledger/", "log/", "schemas/")
_PRODUCTS = re.compile(r"(frontier|info|errors)\.json|targets/index\.json|targets/[^/]+/graph\.json")
#: an annex file's name: the SHA-256 of the .md bytes, then .md or .yaml (D-31)
ANNEX_FILE_RE = re.compile(r"(?P<sha>[0-9a-f]{64})\.(?P<ext>md|yaml)")
_PIN_FILES = re.compile(r"(^|.*/)(lakefile\.lean|lakefile\.toml|lean-toolchain|lake-manifest\.json)")


RECORD_MODELS: dict[Kind, type[m.Record]] = {
    Kind.POSTMORTEM: m.Postmortem,
    Kind.GLOSS: m.Gloss,
    Kind.EXPLAINER: m.Explainer,
    Kind.LITERATURE: m.Literature,
    Kind.SHELVING: m.Shelving,
    Kind.PERTINENCE: m.Pertinence,
    Kind.WITHDRAWAL: m.Withdrawal,
    Kind.PROPOSED_FOR: m.ProposedFor,
    Kind.DEFECT: m.Defect,
    Kind.DISPUTE: m.Dispute,
    Kind.REVISION_REQUEST: m.RevisionRequest,
    Kind.APPROACH: m.Approach,
    Kind.STEWARD: m.Steward,
    Kind.DORMANCY: m.TargetStatusRecord,
    Kind.PRECHECK_RECORD: m.PrecheckRecord,
    Kind.REGISTRATION: m.Registration,
    Kind.APPROVAL: m.Approval,
    Kind.MOTION: m.Motion,
    Kind.VOTE: m.Vote,
    Kind.WRITEUP: m.Writeup,
    Kind.PROOF_REVIEW: m.ProofReview,
    Kind.IDENTITY: m.Identity,
    Kind.DISPLAY_NAME: m.DisplayName,
    Kind.STEWARD_ACT: m.StewardAct,
    Kind.CURATORS: m.Curators,
    Kind.CORRECTION: m.Correction,
    Kind.REVIEW_OPENING: m.ReviewOpening,
    Kind.REVIEW_CANDIDATE: m.ReviewCandidate,
    Kind.REVIEW_EXHIBIT: m.ReviewExhibit,
    Kind.REVIEW_ATTEMPT: m.ReviewAttempt,
    Kind.REVIEW_TEST: m.ReviewTest,
    Kind.REVIEW_QUESTION: m.ReviewQuestion,
    Kind.REVIEW_ANSWER: m.ReviewAnswer,
    Kind.REVIEW_SIGNATURE: m.ReviewSignature,
}
"""The record model each record-only kind's file holds (D-34: one schema kind each)."""


def record_model(kind: Kind) -> type[m.Record] | None:
    """The record model a record-only artifact kind's file holds (``Kind.SHELVING`` →
    ``models.Shelving``), or None for a kind that is not one record file."""
    return RECORD_MODELS.get(kind)


@dataclass
class Artifact:
    """One artifact a pull request carries.

    Attributes:
        kind: the artifact kind.
        target: target id.
        node: node id, or None for a target-level record.
        paths: the graph paths it adds, sorted.
        main: the path whose bytes are the artifact (the Lean file or the record).
    """

    kind: Kind
    target: str
    node: str | None
    paths: list[str] = field(default_factory=list)
    main: str = ""

    @property
    def plan(self) -> KindPlan:
        """Its row of :data:`STEP_PLAN`."""
        return STEP_PLAN[self.kind]


@dataclass
class Classified:
    """The artifacts of a pull request and every step-1/step-2 finding met placing them."""

    artifacts: list[Artifact]
    step1: list[Diagnostic]
    step2: list[Diagnostic]
    oversized: set[str] = field(default_factory=set)


def _merged_hashes(node: Node) -> set[str]:
    """SHA-256 of the node's merged proof and recorded alternates (D-25 v3.13)."""
    out = {a.sha256 for a in node.attempts if a.kind == "alternate"}
    proof = node.files.get("Proof")
    if proof is not None:
        out.add(proof.sha256)
    return out


def classify(diff: Diff, base: Graph) -> Classified:
    """Place every changed path into an artifact, or record why it cannot be placed.

    Args:
        diff: the pull request's changes.
        base: the graph loaded at ``diff.base``.

    Returns:
        A :class:`Classified`; ``step1``/``step2`` are empty when every path is permitted.

    Every path must match a template of the one path table
    (:data:`network.record.layout.PATH_TABLE`, docs/record.md) that a pull request may
    write, else ``path-not-permitted`` (``gate-only-path`` for the gate's and the
    products' rows); every added or changed file must be within its row's size limit
    under the policy's ``max_file_bytes`` (``file-too-large``; such a path is in
    ``oversized`` and its bytes are not read again). Tree entries the diff refused
    (:attr:`~network.gate.diff.Diff.entry_findings`: links, submodules, hostile names)
    come first among the step-2 findings.

    A ``waivers/native_decide.yaml`` joins the proof or alternate it rides with on its
    node (D-4, D-25 v3.13); alone, or beside any other artifact, it is
    ``path-not-permitted``.

    Implements D-3 (paths), D-4 steps 1-2, D-25 v3.13 (byte-identical copies), ruling 6,
    issue 9.
    """
    step1: list[Diagnostic] = []
    step2: list[Diagnostic] = list(diff.entry_findings)
    oversized: set[str] = set()
    found: dict[tuple[str, str | None, Kind], Artifact] = {}
    waivers: list[tuple[str, str, str]] = []

    def add(kind: Kind, target: str, node: str | None, path: str, main: bool) -> None:
        art = found.setdefault((target, node, kind), Artifact(kind, target, node))
        art.paths.append(path)
        if main:
            art.main = path

    for ch in diff.changes:
        p = ch.path
        if _PIN_FILES.fullmatch(p):
            step1.append(Diagnostic("toolchain-pin-file", "pins come from gate-spec.json", p))
            continue
        if ch.status != "deleted" and ch.mode == 0o120000:
            step2.append(Diagnostic("symlink-in-submission", "a symbolic link", p))
            continue
        if p.startswith("ledger/") and ch.status == "added":
            tid = _correction_target(diff, ch, base)
            if tid:  # D-19 v3.27: a curator's correction rides on its line's target
                add(Kind.CORRECTION, tid, None, p, True)
                continue
            if tid == "":
                step2.append(Diagnostic("correction-line-unknown", "the correction names "
                                        "no ledger line of a target on the record", p))
                continue
        if p.startswith(_GATE_ONLY_TOP) or _PRODUCTS.fullmatch(p):
            step2.append(Diagnostic("gate-only-path", "only the gate writes here", p))
            continue
        row = layout.match(p)
        if row is None:
            step2.append(Diagnostic("path-not-permitted", "no path of docs/record.md's "
                                    "table admits this name", p))
            continue
        if row[0].writer in ("gate", "product"):
            step2.append(Diagnostic("gate-only-path", "only the gate writes here", p))
            continue
        if ch.status != "deleted":
            size, limit = diff.new_size(ch), row[0].max_bytes(base.policy.max_file_bytes)
            if size > limit:
                step2.append(Diagnostic("file-too-large",
                                        f"{size} bytes; the limit for this file is {limit}", p))
                oversized.add(p)
        parts = p.split("/")
        if parts[0] == "identities" and len(parts) == 2:  # ruling 9, issue 13
            if ch.status != "added":
                step2.append(Diagnostic("record-deleted", f"{ch.status}: a login's binding "
                                        "is appended once, never rewritten", p))
            elif not base.targets:
                step2.append(Diagnostic("path-not-permitted", "a graph with no target has "
                                        "no gate run to carry a binding", p))
            else:  # its run and attestation ride on the graph's first target, as
                # curators.json's and a root-level finding's do
                add(Kind.IDENTITY, min(base.targets), None, p, True)
            continue
        if parts[0] == "names" and len(parts) == 2:  # D-3 v3.37: a name, set and reset
            if ch.status == "deleted":
                step2.append(Diagnostic("record-deleted", "deleted: a display name is "
                                        "withdrawn by a record with no name, never by "
                                        "deleting it", p))
            elif not base.targets:
                step2.append(Diagnostic("path-not-permitted", "a graph with no target has "
                                        "no gate run to carry a display name", p))
            else:  # rides on the graph's first target, as an identity binding does
                add(Kind.DISPLAY_NAME, min(base.targets), None, p, True)
            continue
        if p == "curators.json" and ch.status == "modified" and base.targets:
            # D-22 v3.33: a change the owner signs; its run and attestation ride on the
            # graph's first target, as a root-level finding's does
            add(Kind.CURATORS, min(base.targets), None, p, True)
            continue
        if parts[0] != "targets" or len(parts) < 3:
            step2.append(Diagnostic("path-not-permitted", "outside targets/", p))
            continue
        tid = parts[1]
        target = base.targets.get(tid)
        if target is None:
            step2.append(Diagnostic("unknown-target", f"no target {tid!r}", p))
            continue
        if parts[2] != "nodes":
            _classify_target_path(ch, parts, tid, add, step2, diff, target.gate_spec_sha256)
            continue
        if len(parts) < 5:
            step2.append(Diagnostic("path-not-permitted", "not inside a node", p))
            continue
        nid = parts[3]
        node = target.nodes.get(nid)
        rest = parts[4:]
        if node is None:
            _classify_new_node(ch, rest, tid, nid, add, step2)
            continue
        _classify_existing_node(diff, ch, node, add, step2, waivers)

    for w_target, w_node, w_path in waivers:  # D-4: it rides with the proof that needs it
        host = (found.get((w_target, w_node, Kind.PROOF))
                or found.get((w_target, w_node, Kind.ALTERNATE)))
        if host is None:
            step2.append(Diagnostic("path-not-permitted", "waivers/native_decide.yaml rides "
                                    "with the proof or alternate that uses native_decide",
                                    w_path))
        else:
            host.paths.append(w_path)
    repins = [a for a in found.values() if a.kind is Kind.REPIN]
    if repins and len(diff.changes) > 1:  # issue 37: a re-pin is judged on its own
        step2.append(Diagnostic("repin-not-alone", f"{len(diff.changes) - 1} other changed "
                                "path(s) ride with the re-pin", repins[0].main))
    artifacts = sorted(found.values(), key=lambda a: (a.target, a.node or "", a.kind.value))
    for art in artifacts:
        art.paths.sort()
        if not art.main:
            art.main = art.paths[0]
    by_node: dict[tuple[str, str | None], list[Artifact]] = {}
    for art in artifacts:
        if art.node is not None and art.plan.builds:
            by_node.setdefault((art.target, art.node), []).append(art)
    for (a_target, a_node), arts in by_node.items():
        if len(arts) > 1:
            kinds = ", ".join(a.kind.value for a in arts)
            step2.append(Diagnostic("mixed-artifacts", f"{a_target}/{a_node} carries {kinds}"))
    return Classified(artifacts, step1, step2, oversized)


def _correction_target(diff: Diff, ch: Change, base: Graph) -> str | None:
    """For an added ``ledger/<seq>-<k>.json`` that holds a ``correction/v1`` (D-19 v3.27),
    the target of the ledger line it ``corrects`` on ``base``; ``""`` when it names no
    line of a target on the record; None when the file is no correction (or is over the
    record size limit), which leaves it the gate's own path (``gate-only-path``)."""
    if layout.match(ch.path) is None or diff.new_size(ch) > layout.RECORD_MAX_BYTES:
        return None
    rec, problems = parse_record(ch.path, diff.new_bytes(ch), m.Correction)
    if problems or rec is None:
        return None
    line = next((rf.record for rf in base.ledger if rf.path == rec.corrects
                 and isinstance(rf.record, m.LedgerLine)), None)
    return line.target if line is not None and line.target in base.targets else ""


def _classify_target_path(ch: Change, parts: list[str], tid: str, add: _Add,
                          step2: list[Diagnostic], diff: Diff, spec_sha256: str) -> None:
    p = ch.path
    if parts[2:] == ["gate-spec.json"] and ch.status == "modified":
        old = diff.old_bytes(ch)
        problem = repin_problem(p, old, diff.new_bytes(ch))
        if problem is None and ch.mode != 0o100644:
            problem = f"it changes the file's mode to {ch.mode:o}"
        if problem is None and sha256_hex(old) != spec_sha256:
            # the pull request branched from another gate-spec than main's: what would
            # merge is a combination no drift report ran under
            step2.append(Diagnostic("repin-stale", "main's gate-spec.json changed since the "
                                    "re-pin branched; re-pin from main again", p))
            return
        if problem is None:  # issue 37: a curator's re-pin, judged by repin_judge
            add(Kind.REPIN, tid, None, p, True)
        else:
            step2.append(Diagnostic("path-not-permitted", f"a gate-spec changes only by a "
                                    f"re-pin (`lemmata target repin`): {problem}", p))
        return
    if ch.status != "added":
        code = "record-deleted"
        if parts[2:] in (["target.yaml"], ["gate-spec.json"]) or parts[2] == "defs":
            code = "path-not-permitted"
        step2.append(Diagnostic(code, f"{ch.status}: targets are changed by curators", p))
        return
    if len(parts) == 4 and parts[2] in _TARGET_RECORD_KINDS and parts[3].endswith(".yaml"):
        add(_TARGET_RECORD_KINDS[parts[2]], tid, None, p, True)
        return
    if (len(parts) == 5 and parts[2] == "panel" and parts[3] in _PANEL_RECORD_KINDS
            and RECORD_FILE_RE.fullmatch(parts[4])):
        add(_PANEL_RECORD_KINDS[parts[3]], tid, None, p, True)
        return
    row = layout.match(p) if parts[2] == "review" else None
    if row is not None:  # D-9 v3.39: a review act (review_rules.py), its Lean beside it
        add(Kind(row[0].kind), tid, None, p, p.endswith(".yaml"))
        return
    step2.append(Diagnostic("path-not-permitted", "no artifact may add this file", p))


def _classify_new_node(ch: Change, rest: list[str], tid: str, nid: str, add: _Add,
                       step2: list[Diagnostic]) -> None:
    """A node directory absent at base: a variant or speculative crux proposal (D-14, D-30)."""
    p = ch.path
    try:
        ids.check_node_id(nid)
    except Exception:  # noqa: BLE001 - reported as a finding
        step2.append(Diagnostic("bad-node-id", f"{nid!r} is not a node id", p))
        return
    if "--h" in nid or "@v" in nid:
        step2.append(Diagnostic("gate-only-path",
                                "hole nodes and revisions are written by the gate", p))
        return
    if rest in (["META.yaml"], ["Statement.lean"], ["Witness.lean"], ["Relation.lean"]):
        add(Kind.VARIANT, tid, nid, p, rest == ["Statement.lean"])  # refined in proposal check
        return
    step2.append(Diagnostic("path-not-permitted", "a proposal holds META, Statement, Witness, "
                            "Relation only", p))


#: what an added node file may need of its node at base (:attr:`NodePathRule.refused_unless`)
NodeNeed = Literal["no-proof", "proof", "blocked-hole"]


@dataclass(frozen=True)
class NodePathRule:
    """How a pull request's change to one file of a node that exists at base is judged: one
    row of :data:`NODE_PATH_RULES` (D-3, D-4 step 2, D-8, D-25 v3.13, D-29; issue 9).

    Attributes:
        kind: the artifact an added file joins, or None when no artifact may add it.
        main: the file is its artifact's main path (False for a carried witness or an
            annex's metadata).
        fixed: (code, message) refusing any change to the file, whatever its status.
        changed: (code, message) refusing a modified or deleted file; ``{status}`` in the
            message is replaced by the change's status.
        tutorial_slot: a modified file is admitted on a tutorial node (the rehearsal slot,
            D-27).
        refused_unless: a condition on the node at base an added file needs, and the
            (code, message) refusing it otherwise: ``no-proof`` (no merged Proof.lean),
            ``proof`` (a merged Proof.lean), ``blocked-hole`` (a hole without its Witness).
        new_bytes: an added file must differ from the node's merged proof and alternates
            (``copy-of-merged-proof``, D-25 v3.13).
        waiver: the file is ``waivers/native_decide.yaml``: it rides with the node's proof
            or alternate (D-4), placed after every path is read.
    """

    kind: Kind | None = None
    main: bool = True
    fixed: tuple[str, str] | None = None
    changed: tuple[str, str] = ("record-deleted", "{status}: the record is append-only")
    tutorial_slot: bool = False
    refused_unless: tuple[NodeNeed, str, str] | None = None
    new_bytes: bool = False
    waiver: bool = False


_MERGED = ("merged-proof-modified", "{status} a merged file")
_GATE_WRITES = ("gate-only-path", "written by the post-merge job")
_NO_PROOF: tuple[NodeNeed, str, str] = ("proof", "alternate-without-proof", "no merged proof")

#: every file of an existing node a pull request may name, by its template under
#: ``targets/<target>/nodes/<node>/`` in :data:`network.record.layout.PATH_TABLE` (a
#: test holds the two tables to the same rows), and how a change to it is judged
NODE_PATH_RULES: dict[str, NodePathRule] = {
    "META.yaml": NodePathRule(fixed=("meta-changed", "contributors never change META.yaml")),
    "Statement.lean": NodePathRule(fixed=("statement-changed",
                                          "statements are immutable (D-8)")),
    "Context.lean": NodePathRule(fixed=_GATE_WRITES),
    "closure/route-<k>.json": NodePathRule(fixed=_GATE_WRITES),
    "closure/resolves.json": NodePathRule(fixed=_GATE_WRITES),
    "closure/refutes.json": NodePathRule(fixed=_GATE_WRITES),
    "outline/Proof.json": NodePathRule(fixed=_GATE_WRITES),
    "outline/<ts>-<pseudonym>-alternate.json": NodePathRule(fixed=_GATE_WRITES),
    "outline/<ts>-<pseudonym>-partial.json": NodePathRule(fixed=_GATE_WRITES),
    "outline/<ts>-<pseudonym>-reduction.json": NodePathRule(fixed=_GATE_WRITES),
    "Proof.lean": NodePathRule(Kind.PROOF, changed=_MERGED, tutorial_slot=True,
                               refused_unless=("no-proof", "proof-already-merged",
                                               "submit an alternate")),
    "Refutation.lean": NodePathRule(Kind.COUNTEREXAMPLE, changed=_MERGED),
    "Vacuity.lean": NodePathRule(Kind.VACUITY, changed=_MERGED),
    "Witness.lean": NodePathRule(
        Kind.WITNESS, changed=("record-deleted", "only a blocked hole takes a witness (D-29)"),
        refused_unless=("blocked-hole", "witness-not-wanted",
                        "only a blocked hole takes a witness (D-29)")),
    "Relation.lean": NodePathRule(),
    "attempts/<ts>-<pseudonym>-postmortem.yaml": NodePathRule(Kind.POSTMORTEM),
    "attempts/<ts>-<pseudonym>-partial.lean": NodePathRule(Kind.PARTIAL),
    "attempts/<ts>-<pseudonym>-partial.h<k>.witness.lean": NodePathRule(Kind.PARTIAL,
                                                                         main=False),
    "attempts/<ts>-<pseudonym>-reduction.lean": NodePathRule(Kind.REDUCTION),
    "attempts/<ts>-<pseudonym>-reduction.h<k>.witness.lean": NodePathRule(Kind.REDUCTION,
                                                                           main=False),
    "attempts/<ts>-<pseudonym>-alternate.lean": NodePathRule(Kind.ALTERNATE,
                                                             refused_unless=_NO_PROOF,
                                                             new_bytes=True),
    "attempts/precheck/<hash>.json": NodePathRule(Kind.PRECHECK_RECORD),
    "annex/<sha256>.md": NodePathRule(Kind.ANNEX),
    "annex/<sha256>.yaml": NodePathRule(Kind.ANNEX, main=False),
    "waivers/native_decide.yaml": NodePathRule(waiver=True),
    **{f"{folder}/<ts>-<pseudonym>.yaml": NodePathRule(kind)
       for folder, kind in _NODE_RECORD_KINDS.items() if kind is not Kind.EXPLAINER},
    "explainer/<ts>-<pseudonym>.yaml": NodePathRule(
        Kind.EXPLAINER, refused_unless=("proof", "explainer-without-proof",
                                        "file it as an annex")),
}
_NODE_DIR = "targets/<target>/nodes/<node>/"


def node_path_rule(path: str) -> NodePathRule | None:
    """The row of :data:`NODE_PATH_RULES` for a graph path inside a node folder, or None
    when :data:`~network.record.layout.PATH_TABLE` admits no node file of that name."""
    row = layout.match(path)
    if row is None or not row[0].template.startswith(_NODE_DIR):
        return None
    return NODE_PATH_RULES.get(row[0].template[len(_NODE_DIR):])


def _node_allows(node: Node, need: NodeNeed) -> bool:
    if need == "no-proof":
        return "Proof" not in node.files
    if need == "proof":
        return "Proof" in node.files
    return node.meta.hole is not None and "Witness" not in node.files


def _classify_existing_node(diff: Diff, ch: Change, node: Node, add: _Add,
                            step2: list[Diagnostic], waivers: list[tuple[str, str, str]]
                            ) -> None:
    """Judge one changed file of a node that exists at base by its row of
    :data:`NODE_PATH_RULES`: a finding in ``step2``, a call of ``add``, or a waiver
    appended to ``waivers`` (D-3, D-4 step 2, D-8, D-25 v3.13, D-29; issue 9)."""
    p = ch.path
    tid, nid = node.ref.target, node.ref.node
    rule = node_path_rule(p)
    if rule is None:
        step2.append(Diagnostic("path-not-permitted", "no artifact may add this file", p))
        return
    if rule.fixed is not None:
        step2.append(Diagnostic(rule.fixed[0], rule.fixed[1], p))
        return
    if ch.status != "added":
        if (rule.tutorial_slot and rule.kind is not None and ch.status == "modified"
                and node.meta.tutorial):
            add(rule.kind, tid, nid, p, rule.main)  # the tutorial node's rehearsal slot
            return
        step2.append(Diagnostic(rule.changed[0], rule.changed[1].format(status=ch.status), p))
        return
    if rule.refused_unless is not None and not _node_allows(node, rule.refused_unless[0]):
        step2.append(Diagnostic(rule.refused_unless[1], rule.refused_unless[2], p))
        return
    if rule.new_bytes and sha256_hex(diff.new_bytes(ch)) in _merged_hashes(node):
        step2.append(Diagnostic("copy-of-merged-proof", "byte-identical", p))
        return
    if rule.waiver:
        waivers.append((tid, nid, p))  # joins the node's proof or alternate (D-4)
        return
    if rule.kind is None:
        step2.append(Diagnostic("path-not-permitted", "no artifact may add this file", p))
        return
    add(rule.kind, tid, nid, p, rule.main)


class _Add(Protocol):  # typing helper for the ``add`` callback
    def __call__(self, kind: Kind, target: str, node: str | None, path: str,
                 main: bool) -> None: ...


#: every name this module held before the Lean text rules and the import-time screen
#: moved to :mod:`network.gate.screens.lean_text_rules` and :mod:`network.gate.screens.import_screen`
#: (issue 17)
__all__ = [
    "ANNEX_FILE_RE",
    "FORBIDDEN_OPTIONS",
    "IMPORT_TIME_NAME_PARTS",
    "IMPORT_TIME_PREFIXES",
    "IMPORT_TIME_WORDS",
    "INERT_ATTRIBUTES",
    "NODE_PATH_RULES",
    "RECORD_MODELS",
    "STEP_PLAN",
    "Artifact",
    "Classified",
    "ImportTimeProblem",
    "Kind",
    "KindPlan",
    "NodeNeed",
    "NodePathRule",
    "Role",
    "annex_citation_findings",
    "annex_citations",
    "attribute_names",
    "classify",
    "forbidden_option_findings",
    "hash_command_at",
    "import_lines",
    "import_time_findings",
    "import_time_problems",
    "line_comments",
    "node_path_rule",
    "partial_label_findings",
    "record_model",
    "statement_command_findings",
    "strip_comments",
    "use_findings",
]
