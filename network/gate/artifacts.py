"""What a pull request submits, and which steps judge it (D-3, D-4 step 2, ruling 6).

:func:`classify` reads a :class:`~network.gate.diff.Diff` against the graph at its base and
returns the artifacts it carries, one per node it touches (D-2: a pull request may span a
connected set of nodes; the gate applies per node). Every path it cannot place is a
step-2 finding. :data:`STEP_PLAN` is the table of ruling 6: for each kind, the steps it
runs, whether it builds Lean (and so needs a precheck attestation, ruling 7), and who may
write it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, Protocol

from network import ids
from network.errors import define
from network.gate import lean_lex
from network.gate.diff import Change, Diff
from network.gate.result import Diagnostic
from network.record import layout
from network.record import models as m
from network.record.loader import RECORD_FILE_RE, Graph, Node, sha256_hex

# --- catalog ---------------------------------------------------------------------------
define("toolchain-pin-file", 1, 422,
       "The pull request adds or changes a lakefile, lean-toolchain or lake-manifest.json.",
       "Remove it: the gate resolves the toolchain and Mathlib from gate-spec.json alone.")
define("path-not-permitted", 2, 422, "A file lies outside the paths this artifact may touch.",
       "Touch only the paths graph/AGENTS.md lists for your artifact type.")
define("gate-only-path", 2, 422,
       "The pull request writes a path only the gate writes (hole nodes, closure, ledger, "
       "log, attestations, products, Context.lean).",
       "Drop that file; the post-merge job writes it.")
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
define("statement-command-refused", 2, 422,
       "A proposed statement holds a command other than imports, open/namespace/end, doc "
       "comments and declarations (D-3 v3.28).",
       "Remove the command; nothing in a statement may run code when it is loaded.")
define("use-unusable", 2, 422,
       "A use line imports something that is neither a definition module of the target nor "
       "the merged proof of another node of it (D-3 v3.25).",
       "Import only defs modules on the graph or merged proofs of the same target.")
define("partial-unlabelled", 2, 422,
       "A partial lacks its approach, licence, label or claim lines (D-12 v3.44).",
       "Add `-- approach:` before the first hole, `-- licence:`, and `-- label:` and "
       "`-- claim: $…$` above each hole's have.")
define("annex-hash-mismatch", 2, 422,
       "An annex's bytes do not hash to its name, or its annex/v1 metadata names another "
       "SHA-256 than the file's name (D-31).",
       "Name the annex annex/<sha256>.md after the SHA-256 of its bytes, and set the "
       ".yaml's sha256 to that same value.")
define("annex-metadata-missing", 2, 422,
       "An annex/<sha256>.md comes without its annex/<sha256>.yaml metadata (D-31).",
       "Add annex/<sha256>.yaml (schema annex/v1: sha256, author, licence, title, date) in "
       "the same pull request, or submit through submit_informal_annex.")
define("annex-not-found", 2, 422,
       "A skeleton's `-- annex: <sha256>` line names an annex that is neither on the node "
       "nor added by the same pull request (D-31 v3.12).",
       "Submit the annex first (submit_informal_annex) or in the same pull request, and "
       "cite it by the SHA-256 of its .md bytes.")
define("axiom-declared", 2, 422,
       "A submitted Lean file declares an axiom.",
       "Prove it instead: a submission may use only the axioms its gate-spec allows, which "
       "Lean itself declares; an axiom of your own is refused whatever its name (D-4 "
       "step 5).")
define("forbidden-option", 2, 422,
       "A submitted Lean file sets an option that weakens checking (debug.skipKernelTC, "
       "`prelude`).",
       "Remove the option; the kernel must check everything.")


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
    # network.gate.panel_rules with its own codes (an invited curator votes in its place)
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
}

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
            _classify_target_path(ch, parts, tid, add, step2)
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


def _classify_target_path(ch: Change, parts: list[str], tid: str, add: _Add,
                          step2: list[Diagnostic]) -> None:
    p = ch.path
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


# --- Lean text rules that need no elaboration (D-3 v3.25, v3.28; D-12 v3.44) ---------

_ALLOWED_STATEMENT_COMMANDS = re.compile(
    r"(import|open|namespace|end|section|noncomputable\s+section|variable|universe|"
    r"theorem|lemma|def|abbrev|structure|inductive|class|instance|noncomputable\s+def|"
    r"@\[[^\]]*\]\s*(theorem|lemma|def|abbrev))\b"
)
#: options whose ``set_option`` weakens checking (LEAN_NOTES "Pitfalls the gate must close")
FORBIDDEN_OPTIONS = frozenset({"debug.skipKernelTC"})
#: what no code or string token of a submitted file may hold, however the option is named
_FORBIDDEN_WORDS = ("skipKernelTC",)
#: command keywords a statement may not hold anywhere, even after another command on the
#: same line (D-3 v3.28: Lean needs no newline between commands)
_STATEMENT_DENIED_WORDS = frozenset({
    "set_option", "run_cmd", "run_elab", "run_meta", "elab", "elab_rules", "macro",
    "macro_rules", "syntax", "initialize", "builtin_initialize", "declare_syntax_cat",
    "attribute", "notation", "infix", "infixl", "infixr", "prefix", "postfix",
})


#: attributes a module of record may carry (D-3 v3.28: nothing in it runs code when it is
#: loaded): none registers a printer, an elaborator or code an import evaluates
#: (``app_unexpander``, ``delab``, ``term_elab``, ``implemented_by``, ``coe``, ``init`` …
#: are outside it; attack18). ``category``, ``AMS``, ``formal_proof`` (and its
#: ``conditional`` prefix) are Formal Conjectures' (FormalConjecturesUtil/Attributes):
#: tags kept in a ``registerSimplePersistentEnvExtension``, whose import folds the tags
#: as data and evaluates nothing
INERT_ATTRIBUTES = frozenset({
    "simp", "reducible", "irreducible", "semireducible", "inline", "noinline", "instance",
    "ext", "norm_cast", "push_cast", "simps", "elab_as_elim", "induction_eliminator",
    "cases_eliminator", "nolint", "deprecated", "grind", "category", "AMS", "local",
    "scoped", "specialize", "formal_proof", "conditional"})


def attribute_names(code: list[lean_lex.Token], i: int) -> tuple[list[lean_lex.Token], int]:
    """The attribute names of the ``@[…]`` list whose ``@[`` is ``code[i]`` (each entry's
    first word after ``local``/``scoped``, «» kept), and the index after its ``]``.

    Read fail closed (attack-screen): the list ends at the ``]`` that balances its ``@[``,
    counting every ``[`` and ``]`` inside a code token (the lexer reads ``a[i]!``,
    ``a[i]'h`` and ``a[i]?`` with the bracket glued to the next character, ``]!``, and
    Lean still closes a bracket there: a list that skipped them would swallow the rest of
    the file); a word after any ``,`` in the list, and after ``attr :=`` (Mathlib's
    ``@[simps (attr := …)]`` applies those attributes), is read as an attribute name.
    """
    names: list[lean_lex.Token] = []
    depth, start, j = 1, True, i + 1
    while j < len(code) and depth:
        t = code[j]
        if t.kind in ("other", "keyword") and ("[" in t.text or "]" in t.text):
            depth += t.text.count("[") - t.text.count("]")
        elif t.text == "," or (t.text == ":=" and code[j - 1].text == "attr"):
            start = True
        elif start and t.kind in ("name", "keyword"):
            names.append(t)
            start = t.text in ("local", "scoped")
        j += 1
    return names, j


def _lex_findings(lexed: lean_lex.Lexed, path: str) -> list[Diagnostic]:
    return [Diagnostic("lean-lex-ambiguous", why, path, line)
            for line, why in lexed.ambiguities]


def strip_comments(text: str) -> str:
    """Lean text with block comments, doc comments and line comments blanked to spaces,
    as Lean's tokenizer reads them (:mod:`network.gate.lean_lex`): a ``-/`` inside a
    string or a nested comment ends nothing early. Line structure is kept so line numbers
    still match."""
    return lean_lex.lex(text).blanked()


def _dotted_name(code: list[lean_lex.Token], i: int) -> tuple[str, int]:
    """The identifier starting at ``code[i]``: glued name parts and dots (no space
    between, as Lean's ``identFn`` reads them), with «» quoting removed; and the index
    after it."""
    parts: list[str] = []
    j = i
    while j < len(code):
        tok = code[j]
        glued = j == i or code[j - 1].start + len(code[j - 1].text) == tok.start
        if not glued:
            break
        if tok.kind == "name" or (tok.kind == "keyword" and parts and parts[-1] == "."):
            parts.append(_unquote(tok.text))
        elif tok.text == "." and parts and parts[-1] != ".":
            parts.append(".")
        else:
            break
        j += 1
    if parts and parts[-1] == ".":
        parts.pop()
        j -= 1
    return "".join(parts), j


def _glued_to_dot(code: list[lean_lex.Token], i: int) -> bool:
    """Whether ``code[i]`` is a part of a dotted name (a glued ``.`` before or after)."""
    tok = code[i]
    before = i > 0 and code[i - 1].text == "." and (
        code[i - 1].start + 1 == tok.start)
    after = i + 1 < len(code) and code[i + 1].text == "." and (
        tok.start + len(tok.text) == code[i + 1].start)
    return before or after


def statement_command_findings(text: str, path: str) -> list[Diagnostic]:
    """D-3 v3.28: a proposed Statement/Context holds only imports, open/namespace/end lines,
    doc comments and declarations.

    Commands are read from the token stream of :mod:`network.gate.lean_lex`: each code
    token that starts a line begins a command, and the allowlist is held against that line
    with comments blanked (fail closed: anything not on it is refused). A hash command
    (``#eval``) or a command keyword of :data:`_STATEMENT_DENIED_WORDS` anywhere else in
    the code, after another command on the same line, is refused too, and so is an
    ``@[…]`` naming an attribute outside :data:`INERT_ATTRIBUTES` (``@[app_unexpander]``,
    ``@[delab]``, ``@[term_elab]``, ``@[implemented_by]``: the checkers' import evaluates
    such entries, and the printer runs them). Text the lexer cannot place is
    ``lean-lex-ambiguous``.
    """
    lexed = lean_lex.lex(text)
    out = _lex_findings(lexed, path)
    lines = lexed.blanked().splitlines()
    code = lexed.code_tokens()
    flagged: set[int] = set()
    for i, tok in enumerate(code):
        at_col0 = tok.start == 0 or text[tok.start - 1] == "\n"
        # an attribute that registers code or a printer is refused wherever it stands
        code_attribute = tok.text == "@[" and any(
            a.text.strip("«»") not in INERT_ATTRIBUTES for a in attribute_names(code, i)[0])
        if at_col0 and tok.kind not in ("string", "raw", "char"):
            line = lines[tok.line - 1]
            if (not _ALLOWED_STATEMENT_COMMANDS.match(line) or code_attribute) and (
                    tok.line not in flagged):
                flagged.add(tok.line)
                out.append(Diagnostic("statement-command-refused", line.strip()[:80], path,
                                      tok.line))
            continue
        hash_command = hash_command_at(code, i)
        denied = (tok.kind in ("name", "keyword") and tok.text in _STATEMENT_DENIED_WORDS
                  and not _glued_to_dot(code, i)) or code_attribute
        if (hash_command or denied) and tok.line not in flagged:
            flagged.add(tok.line)
            out.append(Diagnostic("statement-command-refused",
                                  lines[tok.line - 1].strip()[:80], path, tok.line))
    return sorted(out, key=lambda d: (d.line or 0, d.code))


def forbidden_option_findings(text: str, path: str) -> list[Diagnostic]:
    """Options and headers that weaken checking: ``set_option`` of an option in
    :data:`FORBIDDEN_OPTIONS` (comments between ``set_option`` and the name, as Lean
    allows, and «»-quoted name parts are seen through), ``prelude`` as code, and any code
    or string token naming ``skipKernelTC`` some other way (a name literal, a string an
    elaborator could turn into the option's name); plus ``lean-lex-ambiguous`` for text
    the lexer cannot place (LEAN_NOTES "Pitfalls the gate must close"). A word in a
    comment is nothing, and ``prelude`` in a string is data. These bans are defence in
    depth: kernel replay judges the verdict (D-4 v3.27).
    """
    lexed = lean_lex.lex(text)
    out = _lex_findings(lexed, path)
    code = lexed.code_tokens()
    i = -1
    while i + 1 < len(code):
        i += 1
        tok = code[i]
        if tok.kind == "keyword" and tok.text == "set_option" and not _glued_to_dot(code, i):
            name, after = _dotted_name(code, i + 1)
            if name in FORBIDDEN_OPTIONS:
                out.append(Diagnostic("forbidden-option", f"set_option {name}", path,
                                      tok.line))
                i = after - 1  # the option's name is this finding, not another
        elif tok.kind == "name" and tok.text == "prelude" and not _glued_to_dot(code, i):
            out.append(Diagnostic("forbidden-option", "prelude", path, tok.line))
        elif tok.kind == "keyword" and tok.text == "axiom" and not _glued_to_dot(code, i):
            # defence in depth for step 5: an axiom of the contributor's own can carry an
            # allowed or a `_native` name; none is ever needed in a submission
            out.append(Diagnostic("axiom-declared", "axiom", path, tok.line))
        elif any(word in tok.text for word in _FORBIDDEN_WORDS):
            # the option named outside `set_option`: a name literal, a string, an
            # identifier (`Options.setBool `debug.skipKernelTC`, `"skipKernelTC"`)
            out.append(Diagnostic("forbidden-option", f"names {tok.text[:60]!r}", path,
                                  tok.line))
    return out


def import_lines(text: str) -> list[str]:
    """The modules a Lean file imports, in order (its header: the ``import`` commands at
    the top, read from the token stream so a comment or string cannot fake or hide one).
    Names are returned as written («» quoting kept)."""
    code = lean_lex.lex(text).code_tokens()
    mods: list[str] = []
    i = 1 if code and code[0].text == "module" else 0  # the module system's header
    while i < len(code):
        if code[i].text in ("public", "private", "meta") and i + 1 < len(code):
            i += 1  # `public import`, `meta import` (Lean's module system)
        if not (code[i].kind == "keyword" and code[i].text == "import"):
            break
        i += 1
        if i < len(code) and code[i].text == "all":
            i += 1
        while i < len(code) and code[i].kind == "name" and not (
                code[i].text in ("public", "private", "meta") and i + 1 < len(code)
                and code[i + 1].text == "import"):
            j = i
            while j < len(code) and (j == i or code[j - 1].start + len(code[j - 1].text)
                                     == code[j].start) and (
                    code[j].kind == "name" or code[j].text == "."):
                j += 1
            mods.append(text[code[i].start:code[j - 1].start + len(code[j - 1].text)])
            i = j
    return mods


def line_comments(text: str) -> dict[int, str]:
    """1-based line → text of each ``--`` line comment that is the first thing on its line
    (read from the token stream: a ``--`` inside a string or a block comment is none)."""
    out: dict[int, str] = {}
    for tok in lean_lex.lex(text).tokens:
        if tok.kind != "comment" or not tok.text.startswith("--"):
            continue
        line_start = text.rfind("\n", 0, tok.start) + 1
        if not text[line_start:tok.start].strip():
            out[tok.line] = tok.text
    return out


def use_findings(statement: str, artifact: str, base: Graph, target: str, path: str
                 ) -> list[Diagnostic]:
    """D-3 v3.25: the artifact's imports are the statement's, then use lines each naming a
    definition module of the target or the merged proof of another node of it."""
    stmt_imports = import_lines(statement)
    art_imports = import_lines(artifact)
    if art_imports[: len(stmt_imports)] != stmt_imports:
        return [Diagnostic("use-unusable", "the artifact must keep the statement's imports "
                           "first, unchanged", path, 1)]
    usable: set[str] = set()
    t = base.targets[target]
    for stem in t.defs:
        usable.add(_unquote(ids.defs_module_name(target, stem)))
    for nid, node in t.nodes.items():
        if "Proof" in node.files:
            usable.add(_unquote(ids.module_name(target, nid, "Proof")))
    return [
        Diagnostic("use-unusable", f"{mod} is not usable here", path)
        for mod in art_imports[len(stmt_imports):]
        if _unquote(mod) not in usable
    ]


def _unquote(module: str) -> str:
    """A module name with «» quoting removed, so quoted and bare spellings compare equal."""
    return module.replace("«", "").replace("»", "")


_APPROACH = re.compile(r"--\s*approach:\s*\S")
_LICENCE = re.compile(r"--\s*licence:\s*\S")


def partial_label_findings(text: str, path: str, hole_lines: list[int] | None = None
                           ) -> list[Diagnostic]:
    """D-12 v3.44: a partial carries ``-- approach:`` before its first hole, ``-- licence:``,
    and ``-- label:`` (≤ 60 characters) and ``-- claim: $…$`` in the comment block directly
    above each hole's ``have``.

    The lines are real line comments, each first on its line (:func:`line_comments`): the
    same words inside a string or a block comment count for nothing.

    Args:
        text: the partial's Lean text.
        path: its graph path, for diagnostics.
        hole_lines: 1-based lines of each hole's ``have``, from the toolchain adapter's
            hole extraction (step 4). None checks only approach and licence (step 2).
    """
    missing: list[Diagnostic] = []
    comments = line_comments(text)
    n_lines = len(text.splitlines())
    first_hole = min(hole_lines) if hole_lines else n_lines + 1
    if not any(_APPROACH.match(c) for ln, c in comments.items() if ln < first_hole):
        missing.append(Diagnostic("partial-unlabelled", "missing `-- approach:` before the "
                                  "first hole", path))
    if not any(_LICENCE.match(c) for c in comments.values()):
        missing.append(Diagnostic("partial-unlabelled", "missing `-- licence:`", path))
    for hl in hole_lines or []:
        block: list[str] = []
        i = hl - 1
        while i >= 1 and i in comments:
            block.append(comments[i].strip())
            i -= 1
        label = [b for b in block if re.match(r"--\s*label:\s*\S", b)]
        claim = [b for b in block if re.match(r"--\s*claim:\s*\$.+\$\s*$", b)]
        if not label:
            missing.append(Diagnostic("partial-unlabelled", "missing `-- label:` above hole",
                                      path, hl))
        elif len(label[0].split(":", 1)[1].strip()) > 60:
            missing.append(Diagnostic("partial-unlabelled", "label longer than 60 characters",
                                      path, hl))
        if not claim:
            missing.append(Diagnostic("partial-unlabelled", "missing `-- claim: $…$` above hole",
                                      path, hl))
    return missing


_ANNEX_CITATION = re.compile(r"--[ \t]*annex:[ \t]*(\S*)")


def annex_citations(text: str) -> list[tuple[str, int]]:
    """The annexes a route's Lean text cites, D-31 v3.12: each ``-- annex: <sha256>``
    line comment first on its line (:func:`line_comments`), as (the named value
    lower-cased, its 1-based line). A route citing one is a skeleton: its holes are
    written with origin ``skeleton-hole``."""
    out: list[tuple[str, int]] = []
    for line, comment in sorted(line_comments(text).items()):
        mt = _ANNEX_CITATION.match(comment)
        if mt is not None:
            out.append((mt.group(1).lower(), line))
    return out


def annex_citation_findings(text: str, path: str, present: set[str]) -> list[Diagnostic]:
    """D-31 v3.12: every annex a skeleton cites is on its node (``present``: the SHA-256
    names of the node's ``annex/*.md`` at base and those the pull request adds), else
    ``annex-not-found``."""
    return [Diagnostic("annex-not-found", f"no annex/{sha or '<empty>'}.md on the node",
                       path, line)
            for sha, line in annex_citations(text)
            if not re.fullmatch(r"[0-9a-f]{64}", sha) or sha not in present]


# --- the import-time screen (D-4 v3.27, attack d30) ----------------------------------

define("import-time-code", 2, 422,
       "A submitted Lean file registers something that runs code when the module is "
       "imported (an attribute outside the inert list, notation, syntax, a macro, an "
       "elaborator, a printer, a parser, an initializer, a simproc, a hash command, "
       "`unsafe` code, or a name reaching Lean's elaborator, printer or environment "
       "extension internals); the gate's checkers import your module.",
       "Use a plain definition, lemma or theorem instead: write the proof with the "
       "tactics and lemmas the pinned libraries already have, and nothing that "
       "registers syntax, printing or code of its own.")

#: command and term words that register syntax, macros, elaborators, parsers, printers,
#: simprocs or initializers, run code at elaboration, or declare code outside the kernel's
#: reach; refused as a whole token (a part of a dotted name, ``Foo.macro``, is a name:
#: Lean's ``identFn`` reads ``Foo.macro`` as one identifier, which starts no command).
#: ``export`` is here though its alias entries are data: no proof needs it, and an alias
#: changes what a name in a claim resolves to.
IMPORT_TIME_WORDS = frozenset({
    "notation", "notation3", "infix", "infixl", "infixr", "prefix", "postfix", "syntax",
    "macro", "macro_rules", "elab", "elab_rules", "delab", "app_unexpander", "app_delab",
    "binder_predicate", "run_cmd", "run_elab", "run_meta", "run_tac", "by_elab",
    "initialize", "builtin_initialize", "declare_syntax_cat", "unsafe", "implemented_by",
    "extern", "export", "simproc", "dsimproc", "simproc_decl", "dsimproc_decl",
    "register_option", "register_simp_attr", "initialize_simps_projections",
    "add_aesop_rules", "declare_aesop_rule_sets"})
#: word prefixes refused the same way (``register_label_attr``, ``declare_config_elab``,
#: ``builtin_simproc``, ``initialize_simps_projections``): Lean's and Mathlib's commands
#: that register an extension or an attribute are named so
IMPORT_TIME_PREFIXES = ("register_", "declare_", "builtin_", "initialize")
#: substrings of a name component that reach Lean's printer, elaborator, parser,
#: evaluator or environment-extension internals (``Lean.PrettyPrinter.Unexpander``,
#: ``Lean.Elab.Command``, ``Lean.modifyEnv``, ``unsafeBaseIO``); matched in every part of
#: a dotted name, glued or not
IMPORT_TIME_NAME_PARTS = (
    "PrettyPrinter", "Delaborator", "Unexpander", "Parenthesizer", "Formatter", "Elab",
    "evalConst", "KeyedDeclsAttribute", "modifyEnv", "setEnv", "addEntry",
    "EnvExtension", "registerBuiltinAttribute", "registerSimproc", "Simproc", "unsafe",
    "CoreM", "MetaM", "TacticM", "AttrM", "ImportM", "MacroM", "ParserDescr",
    "TrailingParser", "enableInitializersExecution",
    # the kernel evaluates ``Lean.reduceBool c`` / ``Lean.reduceNat c`` by running ``c``'s
    # compiled code (src/kernel/type_checker.cpp ``reduce_native``, ``run_boxed_kernel``)
    # in whatever process type-checks a term holding it: a checker's ``addDecl``
    # included. ``native_decide`` never needs the names spelled out (attack-screen)
    "reduceBool", "reduceNat", "ReduceBool", "ReduceNat")


#: characters Pygments' Lean 4 lexer reads inside an identifier that Lean's ``isIdRest``
#: (``Init/Meta/Defs.lean``: ``isLetterLike``, ``isSubScriptAlnum`` from U+2080) does not:
#: ``ⁿ`` (U+207F, in Lean 3's and early Lean 4's subscript range). A name token holding
#: one is refused (attack-screen), since Lean splits it where the screen did not
_LEXER_ONLY_IDENT_CHARS = frozenset({"\u207f"})


@dataclass(frozen=True)
class ImportTimeProblem:
    """One thing :func:`import_time_problems` refuses: its 1-based ``line``, its catalog
    ``code`` (``import-time-code``, or ``lean-lex-ambiguous`` for text the lexer cannot
    place) and ``why`` (the token or construct, for a contributor)."""

    line: int
    code: str
    why: str


def _name_parts(text: str) -> list[str]:
    return [p.strip("«»") for p in text.split(".") if p]


def _denied_word(word: str) -> bool:
    return word in IMPORT_TIME_WORDS or word.startswith(IMPORT_TIME_PREFIXES)


def hash_command_at(code: list[lean_lex.Token], i: int) -> bool:
    """Whether ``code[i]`` starts a hash command: a keyword token ``#eval``, ``#check`` …
    (the lexer's list), or ``#`` glued to a name that begins with a lower-case ASCII
    letter or ``_`` (``#print``, ``#guard_msgs``: every hash command of Lean, Mathlib and
    Formal Conjectures is spelled so). ``#`` glued to another name is Mathlib's card
    notation (``#A``, ``#α``, ``#S₁``), and ``#(…)``, ``#[…]`` are terms. Lean's tokenizer
    reads the longest token of its table, so ``#eval`` is one token and ``# eval`` is
    not the command."""
    tok = code[i]
    if tok.kind == "keyword" and tok.text.startswith("#"):
        return True
    if tok.text != "#" or i + 1 >= len(code):
        return False
    nxt = code[i + 1]
    return (nxt.kind in ("name", "keyword") and nxt.start == tok.start + 1
            and re.match(r"[a-z_]", nxt.text.lstrip("«")) is not None)


def import_time_problems(text: str) -> list[ImportTimeProblem]:
    """Everything in a contributor's Lean text that could put an import-time-evaluated
    extension entry into its module's olean, or run code when the module is loaded or
    elaborated (D-4 v3.27: the checkers execute none of the contributor's code; attack
    d30). The one screen of step 2 (:func:`import_time_findings`) and of the outline
    (:func:`network.gate.outline.printing_problem`).

    Why it is needed: every checker (network/gate/lean/Common.lean ``loadEnv``) imports the
    contributor's module with ``importModules … (loadExts := true)``. In Lean
    (leanprover/lean4 ``src/Lean/Environment.lean``) ``finalizeImport`` then runs
    ``finalizePersistentExtensions``, which calls each persistent extension's
    ``addImportedFn`` on the imported entries (and ``runInitAttrs`` after
    ``Lean.regularInitAttr``). ``src/Lean/ScopedEnvExtension.lean`` ``addImportedFn``
    calls the descriptor's ``ofOLeanEntry`` on every global *and* scoped entry;
    ``src/Lean/KeyedDeclsAttribute.lean`` ``init`` sets ``ofOLeanEntry`` to
    ``ctx.env.evalConstCheck γ … entry.declName``, so every imported macro, elab, delab,
    unexpander and tactic entry is *evaluated* at import (a constant-valued one,
    ``unsafeBaseIO (…)``, runs its body there); ``src/Lean/Parser/Extension.lean``
    ``ParserExtension.OLeanEntry.toEntry`` calls ``mkParserOfConstant`` (``evalConst`` of
    the parser or ``ParserDescr``) on every imported parser entry, and
    ``src/Lean/Meta/Tactic/Simp/Simproc.lean`` ``getSimprocFromDeclImpl``
    ``evalConstCheck``-s every imported simproc. A ``local`` attribute's entry is not
    exported (``ScopedEnvExtension.addLocalEntry`` writes no ``newEntries``), but the
    screen refuses a non-inert name whatever its prefix.

    Read from :mod:`network.gate.lean_lex`'s code tokens (a word in a comment or a string
    is nothing), fail closed:

    - an attribute outside :data:`INERT_ATTRIBUTES`, written ``@[…]`` (``local``/``scoped``
      prefixes seen through) or in an ``attribute […] name`` command (``local``,
      ``scoped`` and erasing ``-`` seen through: ``attribute [local simp] foo`` passes);
      every name after a ``,`` of the list or after ``attr :=`` (``@[simps (attr := …)]``)
      is held to the list, and the list's other words (arguments, a ``config`` term) to
      the rules below (:func:`attribute_names`; attack-screen);
    - a whole token of :data:`IMPORT_TIME_WORDS` or starting with one of
      :data:`IMPORT_TIME_PREFIXES`, not glued to a dot (the ``unsafe`` modifier, the
      ``notation`` command …);
    - any name component holding one of :data:`IMPORT_TIME_NAME_PARTS`;
    - a hash command (``#eval``, ``#check``, or ``#`` glued to a name: without the
      toolchain's token table the gate cannot tell ``#foo`` from Mathlib's card notation
      ``#s``, so both are refused; ``#(s)`` and ``#[…]`` pass);
    - text the lexer cannot place (``lean-lex-ambiguous``).

    Out of scope: a target's ``defs/`` modules, which curators write at intake (no pull
    request may add one: :func:`classify` refuses the path).

    Returns:
        the problems in line order, at most one ``import-time-code`` per (line, why).
    """
    lexed = lean_lex.lex(text)
    out = [ImportTimeProblem(line, "lean-lex-ambiguous", why)
           for line, why in lexed.ambiguities]
    seen: set[tuple[int, str]] = set()

    def refuse(line: int, why: str) -> None:
        if (line, why) not in seen:
            seen.add((line, why))
            out.append(ImportTimeProblem(line, "import-time-code", why))

    code = lexed.code_tokens()
    judged: set[int] = set()
    i = 0
    while i < len(code):
        tok = code[i]
        if tok.kind in ("string", "raw", "char") or tok.start in judged:
            i += 1
            continue
        if tok.text == "@[" or (tok.text == "attribute" and tok.kind in ("keyword", "name")
                                and i + 1 < len(code) and code[i + 1].text == "["):
            at = i if tok.text == "@[" else i + 1
            names = attribute_names(code, at)[0]
            for a in names:
                if a.text.strip("«»") not in INERT_ATTRIBUTES:
                    refuse(a.line, f"the attribute {a.text}")
            if not names:
                refuse(tok.line, "an attribute list with no name the gate can read")
            # the list's other words (arguments, a config term) are held to the word
            # and name-part rules below like any code; its names are judged already
            judged.update(a.start for a in names)
            i = at + 1
            continue
        if hash_command_at(code, i):
            shown = tok.text if tok.text != "#" else "#" + code[i + 1].text
            refuse(tok.line, f"the command {shown}")
            i += 1
            continue
        if tok.kind in ("name", "keyword") and _LEXER_ONLY_IDENT_CHARS & set(tok.text):
            # Pygments reads ``sⁿmacro`` as one name; Lean (isIdRest) ends the name at
            # ``ⁿ``, so what follows may be a command word the screen never saw
            refuse(tok.line, f"a name Lean reads differently: {tok.text[:40]}")
        if tok.kind in ("name", "keyword"):
            word = tok.text.strip("«»")
            if tok.text == "attribute":
                refuse(tok.line, "an attribute command the gate cannot read")
            elif "." not in tok.text and _denied_word(word) and not _glued_to_dot(code, i):
                refuse(tok.line, word)
            for part in _name_parts(tok.text):
                if any(p in part for p in IMPORT_TIME_NAME_PARTS):
                    refuse(tok.line, tok.text)
                    break
        i += 1
    return sorted(out, key=lambda p: (p.line, p.code))


def import_time_findings(text: str, path: str) -> list[Diagnostic]:
    """:func:`import_time_problems` of a contributor's Lean file as step-2 findings
    (``import-time-code``; ``lean-lex-ambiguous`` too, so this check fails closed on its
    own). Needs no toolchain: the finding is reported whether or not Lean is installed."""
    return [Diagnostic(p.code, p.why[:80], path, p.line)
            for p in import_time_problems(text)]
