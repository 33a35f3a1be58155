"""Every derivation over the record: one shared function per derived fact (D-25 v3.40).

Statuses, flags, the frontier, routes, sufficient sets, labels, target status, the ledger
views and a target's proofs are all computed here from a loaded
:class:`~network.record.loader.Graph` and from nothing else: no wall clock, no network,
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
  :func:`unverified` and changes no status.
* A withdrawn record (D-18 v3.27) reads as absent everywhere.
* The record's order is: targets and nodes by id, attempts by (timestamp, path), records by
  (date, path). Nothing is ranked.

All derivations are memoised per :class:`Graph` object; a Graph is a snapshot and must not
be mutated after loading.
"""

from __future__ import annotations

import functools
import re
import weakref
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from network import ids
from network.errors import define
from network.record import models as m
from network.record import panel_roles, trust
from network.record.loader import Attempt, Graph, Node, RecordFile, Target

# --- catalog codes: why a claim is refused (claimable(), D-25, D-33, D-6 v3.17) ---------
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
_APPROACH_RE = re.compile(r"^\s*--\s*approach:\s*(.+?)\s*$", re.MULTILINE)
_DISPLAY_RE = re.compile(r"^\s*\$\$(.+?)\$\$", re.DOTALL)
_SENTENCE_RE = re.compile(r"(.+?[.!?])(\s|$)", re.DOTALL)
_HEX64_RE = re.compile(r"[0-9a-f]{64}")


def norm_date(date: str) -> str:
    """A record date as a full ISO-8601 UTC timestamp: ``2026-01-02`` → ``2026-01-02T00:00:00Z``."""
    return date if len(date) > 10 else f"{date}T00:00:00Z"


# --- result types ------------------------------------------------------------------------


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


class _Index:
    """Everything derived from one Graph, memoised (private; use the module functions)."""

    def __init__(self, g: Graph) -> None:
        self.g = g
        self.now: str | None = norm_date(g.merges[-1].record.date) if g.merges else None
        self.merged: set[tuple[str, str]] = set()
        self.att_date: dict[str, str] = {}
        self.atts_by_node: dict[tuple[str, str], list[m.Attestation]] = {}
        self.unverified: set[str] = set()
        passed = [att for att in g.attestations if att.record.verdict == "pass"]
        signed = trust.gate_signed_paths(passed, g.keys)  # only a pass can be a verdict
        for att in passed:
            a = att.record
            if att.path not in signed:
                self.unverified.add(att.path)
                continue
            self.atts_by_node.setdefault((a.target, a.node), []).append(a)
            for art in a.artifacts:
                self.merged.add((art.path, art.sha256))
                prev = self.att_date.get(art.path)
                ts = norm_date(a.timestamp)
                if prev is None or ts < prev:
                    self.att_date[art.path] = ts
        self.merge_seq_of: dict[str, int] = {}
        self.merge_date: dict[int, str] = {}
        self.merge_commit_seq: dict[str, int] = {}
        for mr in g.merges:
            rec = mr.record
            self.merge_date[rec.seq] = norm_date(rec.date)
            self.merge_commit_seq.setdefault(rec.merge_commit, rec.seq)
            for p in rec.artifacts:
                self.merge_seq_of.setdefault(p, rec.seq)
        self._curators: dict[str, set[str]] = {}
        self._verified: dict[tuple[str, bool, bool], bool] = {}
        self.withdrawn: set[str] = set()
        self.steward_records: dict[str, list[RecordFile[m.Steward]]] = {
            tid: [rf for rf in t.stewards if self._steward_verified(tid, rf)]
            for tid, t in g.targets.items()}
        self.panel: panel_roles.Panel | None = None  # steward records as filed, for now
        self.withdrawn = self._withdrawn()
        self.panel = panel_roles.derive_panel(self)  # D-32 v3.34: stewards in force
        self.unverified.update(self.panel.state.unverified)
        self.t: dict[str, _TargetIndex] = {tid: self._target_index(t)
                                           for tid, t in g.targets.items()}
        self._status: dict[tuple[str, str], str] = {}
        self._by_closure: dict[tuple[str, str], bool] = {}
        self._closable: dict[tuple[str, str], bool] = {}
        self._shelved: dict[tuple[str, str], bool] = {}
        self._in_progress: set[tuple[str, tuple[str, str]]] = set()
        self._target_status: dict[str, TargetStatus] = {}
        self._routes: dict[tuple[str, str], list[str]] = {}
        self._text: dict[str, str] = {}
        self._dirs: dict[ids.NodeRef, str] = {}
        self._ready: dict[tuple[str, str], str | None] = {}
        self._facts: dict[tuple[str, str], tuple[int, list[str], list[tuple[str, int]]]] = {}
        self._flags: dict[tuple[str, str], NodeFlags] = {}
        self._claimable: dict[tuple[str, str], tuple[bool, str | None]] = {}
        self._labels: dict[tuple[str, str], Label] = {}

    # -- basic facts ------------------------------------------------------------------

    def _may_withdraw_words(self, path: str, w: m.Withdrawal, tid: str) -> bool:
        """D-3 v3.30: a gloss or explainer version may also be withdrawn by its author or a
        steward of its target (status records and defect claims stay curators' alone,
        D-18 v3.27). Steward records are read as filed, so this cannot loop."""
        parts = w.withdraws.split("/")
        if len(parts) != 6 or parts[4] not in ("gloss", "explainer") or parts[1] != tid:
            return False
        t = self.g.targets[tid]
        node = t.nodes.get(parts[3])
        if node is None:
            return False
        chain = node.glosses if parts[4] == "gloss" else node.explainers
        author = next((rf.record.author for rf in chain if rf.path == w.withdraws), None)
        if w.by == author:
            return True  # the author's own act; step 2 bound ``by`` to the submitter
        return self.role_signed(path, w, w.by, w.date, tid, stewards=True, curators=False)

    def _withdrawn(self) -> set[str]:
        records: list[tuple[str, m.Withdrawal, str]] = []
        for tid, t in self.g.targets.items():
            for rf in t.withdrawals:
                records.append((rf.path, rf.record, tid))
            for n in t.nodes.values():
                for rf in n.withdrawals:
                    records.append((rf.path, rf.record, tid))
        valid = [(p, w) for p, w, tid in records
                 if w.withdraws.startswith(f"targets/{tid}/")  # its own target only
                 and (self.role_signed(p, w, w.by, w.date, tid, stewards=False)
                      or self._may_withdraw_words(p, w, tid))]
        self.unverified.update(p for p, _w, _t in records if (p, _w) not in valid)
        valid = _removals_need_two(valid)
        withdrawn: set[str] = set()
        for _ in range(len(valid) + 1):
            nxt = {w.withdraws for p, w in valid if p not in withdrawn}
            if nxt == withdrawn:
                break
            withdrawn = nxt
        return withdrawn

    def curators_of(self, tid: str) -> set[str]:
        """The pseudonyms curating ``tid`` (memoised: callers must not mutate it)."""
        cur = self._curators.get(tid)
        if cur is None:
            cur = self._curators[tid] = {c.pseudonym for c in self.g.curators.curators
                                         if "*" in c.targets or tid in c.targets}
        return cur

    def dir_of(self, n: Node) -> str:
        """The node's directory as a string (``network.ids.node_dir``), memoised."""
        d = self._dirs.get(n.ref)
        if d is None:
            d = self._dirs[n.ref] = str(n.ref.dir)
        return d

    # -- trust (ruling 14) -------------------------------------------------------------

    def _steward_verified(self, tid: str, rf: RecordFile[m.Steward]) -> bool:
        """A steward record counts when the steward it names, or a curator of the target
        (D-32: a curator adding them directly), signed it on its ``since`` date."""
        rec = rf.record
        cur = self.curators_of(tid)
        ok = self._signature_ok(rec, rec.signature, actors=frozenset({rec.pseudonym, *cur}),
                                holds=lambda who, _d: who == rec.pseudonym or who in cur,
                                at_date=rec.since)
        self._verified[(rf.path, True, True)] = ok
        if not ok:
            self.unverified.add(rf.path)
        return ok

    def _signature_ok(self, body: Any, sig: m.Signature | None, *, actors: frozenset[str],
                      holds: trust.RoleCheck, at_date: str) -> bool:
        from network.errors import LemmataError

        try:
            trust.check_role_signature(body, sig, actors=actors, holds=holds,
                                       at_date=at_date, keys=self.g.keys,
                                       identities=self.g.identities)
        except LemmataError:
            return False
        return True

    def holds_role(self, tid: str, who: str, date: str, *, stewards: bool = True,
                   curators: bool = True) -> bool:
        """Whether ``who`` curates ``tid`` (curators.json) or, with ``stewards``, stands as
        its steward by a verified, standing steward record dated no later than ``date``
        (while withdrawals are being read, steward records are read as filed)."""
        if curators and who in self.curators_of(tid):
            return True
        if stewards and self.panel is not None:
            return self.panel.holds(tid, who, date)
        return stewards and any(
            rf.record.pseudonym == who and trust.held_since(rf.record.since, date)
            and rf.path not in self.withdrawn for rf in self.steward_records.get(tid, []))

    def role_signed(self, path: str, rec: Any, actor: str, date: str, tid: str, *,
                    stewards: bool = True, curators: bool = True) -> bool:
        """Whether the role record at ``path`` is signed by its ``actor`` while the actor
        held the role on ``date`` (memoised; a failure is listed as unverified)."""
        key = (path, stewards, curators)
        ok = self._verified.get(key)
        if ok is None:
            ok = self._signature_ok(
                rec, rec.signature, actors=frozenset({actor}),
                holds=lambda who, d: self.holds_role(tid, who, d, stewards=stewards,
                                                     curators=curators),
                at_date=date)
            self._verified[key] = ok
        return ok

    def approved(self, tid: str, rec: m.Words) -> list[m.Signature]:
        """The approvals of a words version that verify: each signed over
        :func:`network.record.trust.approval_body` by a steward of the target or a curator
        on the version's date."""
        if not rec.approvals:
            return []
        body = trust.approval_body(rec)
        return [sig for sig in rec.approvals if self._signature_ok(
            body, sig, actors=frozenset({sig.signer}),
            holds=lambda who, d: self.holds_role(tid, who, d), at_date=rec.date)]

    def stewards_of(self, tid: str) -> list[str]:
        if self.panel is not None:
            return [s.pseudonym for s in self.panel.in_force(tid)]
        return [rf.record.pseudonym for rf in self.steward_records.get(tid, [])
                if rf.path not in self.withdrawn]

    def signature_verifies(self, body: Any, sig: m.Signature | None, signer: str,
                           at_date: str) -> bool:
        """Whether ``sig`` is ``signer``'s role signature over ``body`` on ``at_date``
        (the role itself judged by the caller: :mod:`network.record.panel_roles`)."""
        return self._signature_ok(body, sig, actors=frozenset({signer}),
                                  holds=lambda who, _d: who == signer, at_date=at_date)

    def merged_date(self, path: str) -> str | None:
        """The merge log's date of the merge that added ``path`` (ruling 2), or None."""
        seq = self.merge_seq_of.get(path)
        return self.merge_date.get(seq) if seq is not None else None

    def roles_of(self, tid: str) -> set[str]:
        return self.curators_of(tid) | set(self.stewards_of(tid))

    def present(self, path: str) -> bool:
        return path not in self.withdrawn

    def is_merged(self, path: str, sha256: str) -> bool:
        return (path, sha256) in self.merged

    def file_merged(self, n: Node, name: str) -> bool:
        lf = n.files.get(name)
        return lf is not None and self.is_merged(lf.path, lf.sha256)

    def date_of(self, path: str) -> str | None:
        seq = self.merge_seq_of.get(path)
        if seq is not None:
            return self.merge_date[seq]
        return self.att_date.get(path)

    def text(self, path: str) -> str:
        if path not in self._text:
            try:
                self._text[path] = self.g.source.read(path).decode("utf-8", "replace")
            except Exception:  # noqa: BLE001 - a missing file reads as empty text
                self._text[path] = ""
        return self._text[path]

    def _target_index(self, t: Target) -> _TargetIndex:
        ti = _TargetIndex(t)
        for nid, n in t.nodes.items():
            meta = n.meta
            if meta.supersedes and meta.supersedes in t.nodes:
                ti.superseded_by.setdefault(meta.supersedes, nid)
            if meta.hole is not None:
                ti.holes_of_route.setdefault(meta.hole.route, []).append((meta.hole.k, nid))
            for lem in meta.lemmas:
                ti.lemma_holders.setdefault(lem, []).append(nid)
            for dep in meta.deps:
                ti.dep_holders.setdefault(dep, []).append(nid)
            if meta.variant is not None:
                ti.variants.append(nid)
            for att in n.attempts:
                if att.kind in ROUTE_KINDS:
                    ti.route_owner[att.path] = nid
            for rf in n.shelvings:
                if rf.path in self.withdrawn or not self.role_signed(
                        rf.path, rf.record, rf.record.by, rf.record.date, t.id):
                    if rf.path not in self.withdrawn:
                        self.unverified.add(rf.path)
                    continue
                ti.shelvings_by_subject.setdefault(rf.record.subject, []).append(
                    (norm_date(rf.record.date), rf.path, rf.record))
        for holes in ti.holes_of_route.values():
            holes.sort()
        for recs in ti.shelvings_by_subject.values():
            recs.sort(key=lambda x: (x[0], x[1]))
        return ti

    def node(self, tid: str, nid: str) -> Node:
        return self.g.targets[tid].nodes[nid]

    def has(self, tid: str, nid: str) -> bool:
        t = self.g.targets.get(tid)
        return t is not None and nid in t.nodes

    def current(self, tid: str, nid: str) -> str:
        """The end of ``nid``'s revision chain (D-8 v3.18)."""
        sb = self.t[tid].superseded_by
        seen = {nid}
        while nid in sb and sb[nid] not in seen:
            nid = sb[nid]
            seen.add(nid)
        return nid

    def root_of(self, tid: str) -> str | None:
        return self.current(tid, ids.ROOT) if self.has(tid, ids.ROOT) else None

    def is_root(self, tid: str, nid: str) -> bool:
        return ids.revision_base(nid)[0] == ids.ROOT and ids.parent_of(nid) is None

    def question(self, tid: str, nid: str) -> bool:
        """:func:`is_question` (private form)."""
        said = self.node(tid, nid).meta.provenance.get("answer_question")
        if said is True:
            return True
        return (said is None and self.is_root(tid, nid)
                and self.g.targets[tid].record.answer_question)

    # -- routes -----------------------------------------------------------------------

    def own_routes(self, n: Node) -> list[str]:
        return [a.path for a in n.attempts
                if a.kind in ROUTE_KINDS and self.is_merged(a.path, a.sha256)
                and self.present(a.path)]

    def routes(self, tid: str, nid: str) -> list[str]:
        """Merged decompositions of the node in record order, with those a same-hash
        revision inherits from the node it supersedes (D-8 v3.46, ruling 4)."""
        key = (tid, nid)
        if key not in self._routes:
            n = self.node(tid, nid)
            inherited: list[str] = []
            sup = n.meta.supersedes
            if (sup and self.has(tid, sup)
                    and self.node(tid, sup).meta.statement_hash == n.meta.statement_hash):
                self._routes[key] = []  # cycle guard
                inherited = self.routes(tid, sup)
            self._routes[key] = inherited + self.own_routes(n)
        return self._routes[key]

    def route_holes(self, tid: str, route: str) -> list[str]:
        """The hole nodes a route needs, read through revisions, plus lemma edges the
        post-merge job attributed to it (D-12 v3.38, see :func:`route_lemmas`)."""
        out: list[str] = []
        for _, h in self.t[tid].holes_of_route.get(route, []):
            c = self.current(tid, h)
            if c not in out:
                out.append(c)
        for lem in self.route_lemmas(tid, route):
            c = self.current(tid, lem)
            if c not in out:
                out.append(c)
        return out

    def route_lemmas(self, tid: str, route: str) -> list[str]:
        owner = self.t[tid].route_owner.get(route)
        if owner is None:
            return []
        n = self.node(tid, owner)
        lemmas = [x for x in n.meta.lemmas if self.has(tid, x)]
        if not lemmas:
            return []
        meta_path = f"{self.dir_of(n)}/META.yaml"
        own = self.own_routes(n)
        same_merge = [r for r in own
                      if self.merge_seq_of.get(r) is not None
                      and self.merge_seq_of.get(r) == self.merge_seq_of.get(meta_path)]
        chosen = same_merge[-1] if same_merge else (own[-1] if own else None)
        return lemmas if chosen == route else []

    def route_retired(self, tid: str, route: str) -> bool:
        return self.own_decision(tid, route) is True

    # -- shelving (D-14 v3.47) ---------------------------------------------------------

    def own_decision(self, tid: str, subject: str) -> bool | None:
        """True shelved, False lifted, None no record — the subject's latest record."""
        recs = self.t[tid].shelvings_by_subject.get(subject)
        if not recs:
            return None
        return recs[-1][2].lifts is None

    def shelving_record(self, tid: str, subject: str) -> str | None:
        recs = self.t[tid].shelvings_by_subject.get(subject)
        return recs[-1][1] if recs and recs[-1][2].lifts is None else None

    def used_by_merged_proof(self, tid: str, nid: str) -> bool:
        for holder in self.t[tid].dep_holders.get(nid, []):
            if self.file_merged(self.node(tid, holder), "Proof"):
                return True
        return False

    def shelved(self, tid: str, nid: str) -> bool:
        key = (tid, nid)
        if key in self._shelved:
            return self._shelved[key]
        guard = ("shelved", key)
        if guard in self._in_progress:
            return False
        self._in_progress.add(guard)
        try:
            val = self._shelved_uncached(tid, nid)
        finally:
            self._in_progress.discard(guard)
        self._shelved[key] = val
        return val

    def _shelved_uncached(self, tid: str, nid: str) -> bool:
        if self.is_root(tid, nid):
            return False
        own = self.own_decision(tid, nid)
        if own is not None:
            return own and not self.used_by_merged_proof(tid, nid)
        n = self.node(tid, nid)
        if n.meta.variant is not None or n.meta.hole is None:
            return False
        sup = n.meta.supersedes
        if sup and self.has(tid, sup) and self.shelved(tid, sup):
            return True
        hole = n.meta.hole
        inherited = self.route_retired(tid, hole.route) or (
            self.has(tid, hole.parent) and self.shelved(tid, hole.parent))
        if not inherited or self.used_by_merged_proof(tid, nid):
            return False
        for holder in self.t[tid].lemma_holders.get(nid, []):
            if holder != hole.parent and not self.shelved(tid, holder):
                return False
        return True

    # -- status (ruling 1, D-12) ------------------------------------------------------

    def status(self, tid: str, nid: str) -> str:
        key = (tid, nid)
        if key in self._status:
            return self._status[key]
        guard = ("status", key)
        if guard in self._in_progress:
            return "open"
        self._in_progress.add(guard)
        try:
            val, by_closure = self._status_uncached(tid, nid)
        finally:
            self._in_progress.discard(guard)
        self._status[key] = val
        self._by_closure[key] = by_closure
        return val

    def _status_uncached(self, tid: str, nid: str) -> tuple[str, bool]:
        n = self.node(tid, nid)
        if nid in self.t[tid].superseded_by:
            return "superseded", False
        if self.file_merged(n, "Vacuity"):
            return "defective", False
        if self.file_merged(n, "Refutation"):
            return "refuted", False
        if self.valid_closure(tid, nid, "refuted") is not None:
            return "refuted", True
        if self.file_merged(n, "Proof") and not n.meta.tutorial:
            # the tutorial node stays open for good: its Proof.lean is a rehearsal slot,
            # not a record (D-27, D-3 v3.13)
            return "proved", False
        if self.valid_closure(tid, nid, "proved") is not None:
            return "proved", True
        if self.blocked(tid, n):
            return "blocked", False
        return "open", False

    def blocked(self, tid: str, n: Node) -> bool:
        if n.meta.hole is None or "Witness" in n.files:
            return False
        hole = n.meta.hole
        if not hole.route.endswith("-partial.lean"):
            return True
        carried = f"{hole.route[:-len('.lean')]}.h{hole.k}.witness.lean"
        if self.has(tid, hole.parent):
            for a in self.node(tid, hole.parent).attempts:
                if a.path == carried and self.is_merged(a.path, a.sha256):
                    return False
        return True

    def proved_by_closure(self, tid: str, nid: str) -> bool:
        self.status(tid, nid)
        return self._by_closure[(tid, nid)]

    def closure_holds(self, tid: str, rec: m.Closure) -> bool:
        """Every input reads proved, the route is merged and not retired, and a root is
        vouched (D-12 v3.42, D-14 v3.47)."""
        if rec.link == "route":
            if rec.route is None or self.route_retired(tid, rec.route):
                return False
            if rec.route not in self.routes(tid, rec.node):
                return False
        for inp in rec.inputs:
            if not self.has(tid, inp.node) or self.status(tid, inp.node) != "proved":
                return False
        return not (self.is_root(tid, rec.node) and not root_vouched_ix(self, tid))

    def closures(self, tid: str, nid: str) -> list[tuple[str, m.Closure]]:
        return [(rf.path, rf.record) for rf in self.node(tid, nid).closures
                if self.present(rf.path) and self.closure_signed(rf)]

    def closure_signed(self, rf: RecordFile[m.Closure]) -> bool:
        """A closure record is the gate's verdict: it counts only with a gate signature
        by a key of keys/ valid at its merge (D-12 v3.42, ruling 14)."""
        key = (rf.path, False, False)
        ok = self._verified.get(key)
        if ok is None:
            from network import signing
            from network.errors import LemmataError

            rec, sig = rf.record, rf.record.signature
            merged = next((mr.record.date for mr in self.g.merges
                           if mr.record.seq == rec.merge_seq), None)
            try:
                if sig is None or sig.kind != "gate":
                    raise LemmataError("bad-signature", "a closure is signed by the gate")
                signing.verify(rec, sig, self.g.keys, merged)
                ok = True
            except LemmataError:
                ok = False
                self.unverified.add(rf.path)
            self._verified[key] = ok
        return ok

    def valid_closure(self, tid: str, nid: str, verdict: str) -> str | None:
        for path, rec in self.closures(tid, nid):
            if rec.verdict == verdict and self.closure_holds(tid, rec):
                return path
        return None

    def closable(self, tid: str, nid: str) -> bool:
        key = (tid, nid)
        if key in self._closable:
            return self._closable[key]
        guard = ("closable", key)
        if guard in self._in_progress:
            return False
        self._in_progress.add(guard)
        try:
            val = self._closable_uncached(tid, nid)
        finally:
            self._in_progress.discard(guard)
        self._closable[key] = val
        return val

    def _closable_uncached(self, tid: str, nid: str) -> bool:
        if self.status(tid, nid) in CLOSED or self.status(tid, nid) == "superseded":
            return False
        if self.is_root(tid, nid) and not root_vouched_ix(self, tid):
            return False

        def ready(x: str) -> bool:
            return self.status(tid, x) == "proved" or self.closable(tid, x)

        for route in self.routes(tid, nid):
            if self.route_retired(tid, route):
                continue
            holes = self.route_holes(tid, route)
            if holes and all(ready(h) for h in holes):
                return True
        if self.is_root(tid, nid):
            for v in self.t[tid].variants:
                rel = self.node(tid, v).meta.variant
                if rel is not None and rel.relation in ("resolves", "refutes") and (
                        self.file_merged(self.node(tid, v), "Relation") and ready(v)):
                    return True
        return False

    # -- other flags ------------------------------------------------------------------

    def disputed(self, tid: str, nid: str) -> bool:
        cur = self.curators_of(tid)
        for rf in self.node(tid, nid).disputes:
            if (self.present(rf.path) and self.present(rf.record.defect)
                    and rf.record.curator in cur
                    and self.role_signed(rf.path, rf.record, rf.record.curator,
                                         rf.record.date, tid, stewards=False)):
                return True
        return False

    def stale(self, tid: str, nid: str) -> bool:
        if self.status(tid, nid) != "proved":
            return False
        n = self.node(tid, nid)
        for used in [*n.meta.deps, *n.meta.lemmas]:
            if not self.has(tid, used) or used not in self.t[tid].superseded_by:
                continue
            rev = self.current(tid, used)
            rev_seq = self.merge_seq_of.get(f"{self.dir_of(self.node(tid, rev))}/META.yaml")
            if rev_seq is None or not self._reattested(tid, nid, rev_seq):
                return True
        return False

    def _reattested(self, tid: str, nid: str, since_seq: int) -> bool:
        for a in self.atts_by_node.get((tid, nid), []):
            seq = self.merge_commit_seq.get(a.graph_commit)
            if seq is not None and seq >= since_seq:
                return True
        return False

    def dormant(self, tid: str) -> bool:
        return target_status_ix(self, tid).status == "dormant"


_CACHE: dict[int, tuple[weakref.ref[Graph], _Index]] = {}


def _ix(graph: Graph) -> _Index:
    entry = _CACHE.get(id(graph))
    if entry is not None and entry[0]() is graph:
        return entry[1]
    ix = _Index(graph)
    key = id(graph)
    cache = _CACHE  # bound now: the callback may run while the interpreter shuts down
    _CACHE[key] = (weakref.ref(graph, lambda _r: cache.pop(key, None)), ix)
    return ix


def _check(ix: _Index, target: str, node: str) -> None:
    from network.errors import LemmataError

    if not ix.has(target, node):
        raise LemmataError("unknown-node", f"no node {target}/{node}")


# --- public derivations -------------------------------------------------------------------


def now(graph: Graph) -> str | None:
    """The record's clock: the date of the newest ``log/merges`` record as a full ISO-8601
    UTC timestamp, or None when nothing has merged (Foundation ruling 2)."""
    return _ix(graph).now


def is_merged(graph: Graph, path: str, sha256: str) -> bool:
    """Whether a ``pass`` attestation names ``path`` with ``sha256`` (docs/record.md, D-5)."""
    return _ix(graph).is_merged(path, sha256)


def withdrawn(graph: Graph) -> frozenset[str]:
    """Paths of every record a standing withdrawal names: a curator's (D-18 v3.27), or for a
    gloss or explainer version also its author's or a steward's (D-3 v3.30); a withdrawn
    withdrawal stops withdrawing. These read as absent in every derivation."""
    return frozenset(_ix(graph).withdrawn)


def holds_role(graph: Graph, target: str, who: str, date: str, *, stewards: bool = True,
               curators: bool = True) -> bool:
    """Whether ``who`` holds a role on ``target`` on ``date`` (ruling 14): a curator of it
    (curators.json), or with ``stewards`` its steward by a standing steward record that
    verifies (:mod:`network.record.trust`) and dates from no later than ``date``.

    Raises:
        KeyError: no such target.
    """
    graph.targets[target]  # a KeyError for an unknown target
    return _ix(graph).holds_role(target, who, date, stewards=stewards, curators=curators)


def curators_of(graph: Graph, target: str) -> frozenset[str]:
    """The pseudonyms curators.json names for ``target`` (or ``*``)."""
    return frozenset(_ix(graph).curators_of(target))


def stewards_of(graph: Graph, target: str) -> list[str]:
    """The target's stewards: its panel in force (D-32 v3.34,
    :mod:`network.record.panel_roles`): joins that verify (ruling 14), not stepped down,
    withdrawn or lapsed, in join order. Raises: KeyError for an unknown target."""
    graph.targets[target]  # a KeyError for an unknown target
    return _ix(graph).stewards_of(target)


def panel_of(graph: Graph, target: str) -> list[panel_roles.Stewardship]:
    """The target's stewardships in force, each with ``since``, ``admitted_by`` and
    ``self_admitted`` (D-32 v3.33/v3.34; :func:`stewards_of` gives their pseudonyms).
    Raises: KeyError for an unknown target."""
    graph.targets[target]
    panel = _ix(graph).panel
    assert panel is not None
    return panel.in_force(target)


def steward_targets(graph: Graph, who: str) -> list[str]:
    """The targets ``who`` stands as steward of now (D-32 v3.34: in force, not stepped
    down, withdrawn or lapsed), sorted: what a session's ``roles.steward`` lists."""
    panel = _ix(graph).panel
    assert panel is not None
    return sorted(tid for tid in graph.targets
                  if any(s.pseudonym == who for s in panel.in_force(tid)))


def panel_state(graph: Graph) -> panel_roles.Panel:
    """Every stewardship of the graph as derived (D-32 v3.34): what step 2 judges a new
    steward act against (:func:`network.record.panel_roles.act_finding`)."""
    panel = _ix(graph).panel
    assert panel is not None
    return panel


def policy_numbers(graph: Graph, target: str | None = None) -> panel_roles.PolicyNumbers:
    """policy.json's roles numbers (owner, steward_admission, steward_lapse_months,
    steward_cap, vote_window_days, vote_threshold, vote_minimum), ``target``'s overrides
    applied (D-32 v3.34; :func:`network.record.panel_roles.policy_numbers`)."""
    return panel_roles.policy_numbers(graph, target)


def unverified(graph: Graph) -> frozenset[str]:
    """Paths of the records that claim a role or a verdict and do not verify (ruling 14):
    attestations no gate key of ``keys/`` signs on their timestamp, closure records no
    gate key signs as of their merge; steward records not
    signed by the steward they name or a curator; dormancy, dispute, shelving, proof-review
    and registration records,
    role-resting withdrawals, and steward's or curator's literature readings not signed by
    their actor while holding the role; words versions carrying an approval that does not
    verify; approval, motion, vote and write-up records not signed by their actor in the
    role the act needs (:func:`network.record.panel.unverified_records`). None of them
    changes a status; the products and the site may show the flag."""
    ix = _ix(graph)
    for t in graph.targets.values():
        for n in t.nodes.values():
            for cl in n.closures:
                ix.closure_signed(cl)
    out = set(ix.unverified)
    for tid, t in graph.targets.items():
        cur = ix.curators_of(tid)
        for rg in t.registrations:
            if not ix.role_signed(rg.path, rg.record, rg.record.by, rg.record.date, tid):
                out.add(rg.path)
        for st in t.status_records:
            if not ix.role_signed(st.path, st.record, st.record.curator, st.record.date, tid,
                                  stewards=False) or st.record.curator not in cur:
                out.add(st.path)
        roles = ix.roles_of(tid)
        for n in t.nodes.values():
            for dp in n.disputes:
                if not ix.role_signed(dp.path, dp.record, dp.record.curator, dp.record.date,
                                      tid, stewards=False) or dp.record.curator not in cur:
                    out.add(dp.path)
            for sh in n.shelvings:
                if not ix.role_signed(sh.path, sh.record, sh.record.by, sh.record.date, tid):
                    out.add(sh.path)
            for rv in n.reviews:  # a held proof's review (issue 13), as step 9 reads it
                if not ix.role_signed(rv.path, rv.record, rv.record.by, rv.record.date, tid):
                    out.add(rv.path)
            for lit in n.literature:
                if lit.record.by in roles and not ix.role_signed(
                        lit.path, lit.record, lit.record.by, lit.record.date, tid):
                    out.add(lit.path)
            words: list[RecordFile[Any]] = [*n.glosses, *n.explainers]
            for w in words:
                if len(ix.approved(tid, w.record)) != len(w.record.approvals):
                    out.add(w.path)
        from network.record import panel  # imports this module

        out.update(panel.unverified_records(graph, tid))  # D-32 v3.34, ruling 11
    return frozenset(out)


def node_status(graph: Graph, target: str, node: str) -> str:
    """The node's one proof status (ruling 1, D-12, D-8, D-29).

    Exactly one of ``open``, ``blocked`` (a hole without its Witness.lean, D-29 v3.24),
    ``proved`` (merged Proof.lean, or a closure record whose inputs all read proved, the
    root only when :func:`root_vouched`, D-12 v3.42), ``refuted`` (merged Refutation.lean or
    a holding refutes closure), ``defective`` (merged Vacuity.lean) or ``superseded``
    (another node's META.supersedes names it). Precedence in that reverse order.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return ix.status(target, node)


def node_flags(graph: Graph, target: str, node: str) -> NodeFlags:
    """The flags beside the status (ruling 1): see :class:`NodeFlags` for each rule.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    flags = ix._flags.get((target, node))
    if flags is not None:
        return flags
    st = ix.status(target, node)
    t = graph.targets[target]
    dormant = ix.dormant(target)
    flags = ix._flags[(target, node)] = NodeFlags(
        closable=ix.closable(target, node),
        proved_by_closure=ix.proved_by_closure(target, node),
        stale=ix.stale(target, node),
        disputed=ix.disputed(target, node),
        shelved=ix.shelved(target, node),
        speculative=bool(ix.node(target, node).meta.speculative) and st in ("open", "blocked"),
        bountied=node in t.record.bountied_nodes and not dormant,
        dormant=dormant,
        question=ix.question(target, node),
    )
    return flags


def is_question(graph: Graph, target: str, node: str) -> bool:
    """Whether the node's statement asks for a value rather than states a proposition
    (D-10; DESIGN.md "Importing from public registries"; issue 12).

    A Formal Conjectures statement written with ``answer(sorry)`` is a question: Lean
    elaborates ``answer(sorry)`` of type ``Prop`` to ``True`` and of any other type to
    ``sorryAx``, so its root reads as a proposition it is not. The importer records it as
    ``answer_question: true`` in target.yaml (the target's root) and in the node's META
    provenance. True when the META provenance says ``answer_question: true``, or the node
    is the target's root (or a revision of it) in a target whose ``answer_question`` is
    true and whose META does not say ``answer_question: false``.

    Such a node is held: its status stays as derived (``open`` while unsettled), it is
    published on the frontier with ``question: true`` so an agent sees where to work, and
    :func:`claimable` refuses it with ``claim-node-question``; progress comes through
    variants that fix an answer, judged by a person at step 9 (the gate's step 6 refuses
    one whose answer restates the other side, :mod:`network.gate.answers`).

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return ix.question(target, node)


def node_state(graph: Graph, target: str, node: str) -> NodeState:
    """Status, flags and literature status of one node together.

    Raises:
        LemmataError: ``unknown-node``.
    """
    return NodeState(target, node, node_status(graph, target, node),
                     node_flags(graph, target, node), literature_status(graph, target, node))


def root_vouched(graph: Graph, target: str) -> bool:
    """The one predicate step 9 and root closure share (ruling 5; D-4 v3.11/v3.15/v3.20,
    D-9 v3.39, D-12 v3.42).

    True when the target is a calibration target, or its fidelity grade is at least
    screened-and-signed, or its catalog evidence scores at least 5 points, or a completed
    non-background formalization review vouches (not modelled yet: always False). Reverted
    to False while a confirmed defect (a standing dispute record, D-18 v3.28) is on the root.

    Raises:
        KeyError: no such target.
    """
    return root_vouched_ix(_ix(graph), target)


def completed_review_vouches(graph: Graph, target: str) -> bool:
    """Whether a completed, non-background formalization review vouches for the root
    (D-9 v3.39). The review record is not modelled yet, so this is always False."""
    return False


def root_vouched_ix(ix: _Index, tid: str) -> bool:
    """:func:`root_vouched` over an index (private helper shared by closure)."""
    t = ix.g.targets[tid]
    root = ix.root_of(tid)
    if root is not None and ix.disputed(tid, root):
        return False
    rec = t.record
    if rec.calibration or rec.target_class == "calibration":
        return True
    if rec.fidelity.grade in GRADES_VOUCHING:
        return True
    if rec.fidelity.catalog_evidence_points >= CATALOG_EVIDENCE_POINTS:
        return True
    return completed_review_vouches(ix.g, tid)


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


def target_status_ix(ix: _Index, tid: str) -> TargetStatus:
    """:func:`target_status` over an index (private helper)."""
    if tid in ix._target_status:
        return ix._target_status[tid]
    ix._target_status[tid] = TargetStatus("listed")  # recursion guard
    val = _target_status_uncached(ix, tid)
    ix._target_status[tid] = val
    return val


def _target_status_uncached(ix: _Index, tid: str) -> TargetStatus:
    t = ix.g.targets[tid]
    root = ix.root_of(tid)
    if root is not None:
        st = ix.status(tid, root)
        if st in CLOSED:
            return TargetStatus("resolved", _digestion(ix, tid, root), st)
    cur = ix.curators_of(tid)
    recs = sorted(((norm_date(rf.record.date), rf.path, rf.record) for rf in t.status_records
                   if ix.present(rf.path) and rf.record.curator in cur
                   and ix.role_signed(rf.path, rf.record, rf.record.curator, rf.record.date,
                                      tid, stewards=False)),
                  key=lambda x: (x[0], x[1]))
    if not recs:
        return TargetStatus("listed")
    date, path, rec = recs[-1]
    if rec.declaration == "dormant":
        progress = _progress_since(ix, tid, date, ix.merge_seq_of.get(path))
        if progress is not None:
            return TargetStatus("active", declaration=path, reactivated_by=progress)
    return TargetStatus(rec.declaration, declaration=path)


def _is_progress_path(ix: _Index, tid: str, path: str) -> bool:
    parts = path.split("/")
    if len(parts) < 5 or parts[0] != "targets" or parts[1] != tid or parts[2] != "nodes":
        return False
    nid, rest = parts[3], "/".join(parts[4:])
    if rest in ("Proof.lean", "Refutation.lean", "Vacuity.lean"):
        return True
    if rest.startswith("attempts/") and (rest.endswith(("-partial.lean", "-reduction.lean"))):
        return True
    if rest in ("Statement.lean", "META.yaml") and ix.has(tid, nid):
        return ix.node(tid, nid).meta.variant is not None
    if rest.endswith("-postmortem.yaml") and ix.has(tid, nid):
        for a in ix.node(tid, nid).attempts:
            if a.path == path and a.postmortem is not None:
                return a.postmortem.outcome == "refuted-route"
    return False


def _progress_since(ix: _Index, tid: str, date: str, seq: int | None) -> str | None:
    for mr in ix.g.merges:
        rec = mr.record
        later = rec.seq > seq if seq is not None else norm_date(rec.date) > date
        if not later:
            continue
        for p in rec.artifacts:
            if _is_progress_path(ix, tid, p):
                return p
    return None


def _digestion(ix: _Index, tid: str, root: str) -> str:
    footprint = _footprint(ix, tid, root)
    for nid in footprint:
        n = ix.node(tid, nid)
        proof = n.files.get("Proof")
        if proof is None:
            if ix.proved_by_closure(tid, nid):
                continue  # the join earns nothing and needs no explainer of its own
            return "undigested"
        ok = any(rf.record.describes == proof.path and ix.present(rf.path)
                 and ix.approved(tid, rf.record) for rf in n.explainers)
        if not ok:
            return "undigested"
    return "explained"


def _footprint(ix: _Index, tid: str, nid: str) -> list[str]:
    """Nodes the node's proof rests on, itself first, through closures and deps."""
    out: list[str] = []
    stack = [nid]
    while stack:
        x = stack.pop()
        if x in out or not ix.has(tid, x):
            continue
        out.append(x)
        n = ix.node(tid, x)
        if ix.file_merged(n, "Proof") or ix.file_merged(n, "Refutation"):
            stack.extend(reversed([ix.current(tid, d) for d in n.meta.deps]))
            continue
        for path, rec in ix.closures(tid, x):
            if ix.closure_holds(tid, rec):
                stack.extend(reversed([i.node for i in rec.inputs]))
                break
    return out


def claimable(graph: Graph, target: str, node: str) -> tuple[bool, str | None]:
    """Whether a new claim on the node is accepted, and the catalog code when not.

    The one function the frontier, the service and the site use (ruling 1). Refusals, in
    this order: ``claim-node-superseded`` (D-8), ``claim-node-closed`` (proved, refuted or
    defective; D-33 v3.20), ``claim-node-question`` (the statement asks for a value,
    :func:`is_question`; D-10), ``claim-node-disputed`` (D-18 v3.28), ``claim-node-shelved``
    (D-14 v3.47), ``claim-target-dormant`` (ruling 13), ``claim-no-steward`` (open-problem
    target without a standing steward record, D-6 v3.17), ``claim-node-blocked`` (D-29),
    ``claim-dependency-disputed`` (D-18), ``claim-not-ready`` (a declared dependency not
    proved, D-25). Live claims held by others are the service's overlay, not checked here.

    Returns:
        ``(True, None)`` or ``(False, code)``.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    key = (target, node)
    if key not in ix._claimable:
        ix._claimable[key] = _claimable(ix, target, node)
    return ix._claimable[key]


def _claimable(ix: _Index, target: str, node: str) -> tuple[bool, str | None]:
    graph = ix.g
    st = ix.status(target, node)
    if st == "superseded":
        return False, "claim-node-superseded"
    if st in CLOSED:
        return False, "claim-node-closed"
    if ix.question(target, node):
        return False, "claim-node-question"
    if ix.disputed(target, node):
        return False, "claim-node-disputed"
    if ix.shelved(target, node):
        return False, "claim-node-shelved"
    if ix.dormant(target):
        return False, "claim-target-dormant"
    t = graph.targets[target]
    if t.record.target_class == "open-problem" and not ix.stewards_of(target):
        return False, "claim-no-steward"
    if st == "blocked":
        return False, "claim-node-blocked"
    deps = [ix.current(target, d) for d in ix.node(target, node).meta.deps
            if ix.has(target, d)]
    if any(ix.disputed(target, d) for d in deps):
        return False, "claim-dependency-disputed"
    if any(ix.status(target, d) != "proved" for d in deps):
        return False, "claim-not-ready"
    return True, None


# --- labels (D-3 v3.44, D-25 v3.44) -------------------------------------------------------


def _current_gloss(ix: _Index, n: Node, describes: str) -> m.Gloss | None:
    """The current version of the first gloss chain filed on ``describes`` (D-3 v3.31/v3.44).

    The chain starts at the earliest gloss with no ``supersedes``; its current version is
    the latest version whose supersedes links lead back to that start. Pending states of
    v3.31 are not modelled: the latest version is current.
    """
    glosses = sorted(((norm_date(rf.record.date), rf.path, rf.record) for rf in n.glosses
                      if rf.record.describes == describes and ix.present(rf.path)),
                     key=lambda x: (x[0], x[1]))
    heads = [x for x in glosses if x[2].supersedes is None]
    if not heads:
        return None
    chain = {heads[0][1]}
    current = heads[0][2]
    for _, path, rec in glosses:
        if rec.supersedes in chain:
            chain.add(path)
            current = rec
    return current


def node_label(graph: Graph, target: str, node: str) -> Label:
    """A node's label, claim and label_source (D-25 v3.44).

    The label and claim of the current version of the first statement gloss chain on the
    node (source ``gloss``); else the name its hole bore in the route that made it
    (``hole``); a root the target's title (``target``); else the node id (``id``). The claim
    is the gloss's opening ``$$…$$`` display, or None.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    key = (target, node)
    if key not in ix._labels:
        ix._labels[key] = _node_label(ix, target, node)
    return ix._labels[key]


def _node_label(ix: _Index, target: str, node: str) -> Label:
    graph = ix.g
    n = ix.node(target, node)
    stmt = n.files.get("Statement")
    gloss = _current_gloss(ix, n, stmt.path) if stmt else None
    claim: str | None = None
    gloss_path: str | None = None
    if gloss is not None:
        mt = _DISPLAY_RE.match(gloss.sections[0].text)
        claim = mt.group(1).strip() if mt else None
        for rf in n.glosses:
            if rf.record is gloss:
                gloss_path = rf.path
        if gloss.label:
            return Label(gloss.label, claim, "gloss", gloss_path)
    if n.meta.hole is not None:
        return Label(n.meta.hole.name, claim, "hole", gloss_path)
    if ix.is_root(target, node):
        return Label(graph.targets[target].record.title, claim, "target", gloss_path)
    return Label(node, claim, "id", gloss_path)


def route_approach(graph: Graph, target: str, route: str) -> tuple[str | None, str | None]:
    """A route's approach and where it came from (D-12 v3.44, D-25 v3.44).

    In order: the partial's ``-- approach:`` line (``partial``); a gloss describing the
    partial, its first sentence (``gloss``); the partial's first comment paragraph
    (``comment``); the first sentence of an annex of the node whose hash the partial cites
    (``annex``); else ``(None, None)``. Lean is never parsed: only comment lines are read.

    Raises:
        KeyError: the route is not a decomposition of a node of the target.
    """
    ix = _ix(graph)
    owner = ix.t[target].route_owner[route]
    n = ix.node(target, owner)
    text = ix.text(route)
    mt = _APPROACH_RE.search(text)
    if mt:
        return mt.group(1), "partial"
    g = _current_gloss(ix, n, route)
    if g is not None:
        return _first_sentence(g.sections[0].text), "gloss"
    para = _first_comment_paragraph(text)
    if para:
        return para, "comment"
    annex_hashes = {rf.record.sha256: rf for rf in n.annexes if ix.present(rf.path)}
    for h in _HEX64_RE.findall(text):
        if h in annex_hashes:
            md = f"{ix.dir_of(n)}/annex/{h}.md"
            return _first_sentence(ix.text(md)), "annex"
    return None, None


def _first_sentence(text: str) -> str | None:
    text = " ".join(text.split())
    if not text:
        return None
    mt = _SENTENCE_RE.match(text)
    return mt.group(1) if mt else text


def _first_comment_paragraph(text: str) -> str | None:
    lines: list[str] = []
    in_block = False
    for raw in text.splitlines():
        line = raw.strip()
        if in_block:
            end = line.find("-/")
            lines.append(line[:end] if end >= 0 else line)
            if end >= 0:
                break
            continue
        if line.startswith("/-"):
            body = line.lstrip("/-!").strip()
            end = body.find("-/")
            if end >= 0:
                lines.append(body[:end])
                break
            lines.append(body)
            in_block = True
            continue
        if line.startswith("--"):
            lines.append(line[2:].strip())
            continue
        if lines or line:
            if lines:
                break
            if line and not line.startswith("import"):
                break
    para: list[str] = []
    for ln in lines:
        if not ln.strip():
            if para:
                break
            continue
        para.append(ln.strip())
    joined = " ".join(para).strip()
    return joined or None


# --- literature (D-25 v3.35/v3.45) -------------------------------------------------------


def literature_status(graph: Graph, target: str, node: str) -> dict[str, Any] | None:
    """The node's literature status (D-25 v3.35, v3.45), or None when it has no record.

    A standing record by a steward of the target or a curator is a *signed reading*; the
    latest one not superseded by a later signed record decides (``source: confirmed``),
    with the proposal it disputes beside it (``disputes``: status, record, contributor).
    A contributor's record no signed record confirms or disputes is *awaiting*; with no
    signed reading the latest awaiting proposal is shown (``source: proposed``).

    Returns:
        ``{status, source, record, by, disputes, awaiting}`` or None.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    n = ix.node(target, node)
    roles = ix.roles_of(target)
    recs = sorted(((norm_date(rf.record.date), rf.path, rf.record) for rf in n.literature
                   if ix.present(rf.path)), key=lambda x: (x[0], x[1]))
    if not recs:
        return None
    signed = [x for x in recs if x[2].by in roles
              and ix.role_signed(x[1], x[2], x[2].by, x[2].date, target)]
    signed_paths = {x[1] for x in signed}
    covered = {p for _, _, r in signed for p in (r.confirms, r.disputes) if p}
    superseded = {r.supersedes for _, _, r in signed if r.supersedes}
    by_path = {p: r for _, p, r in recs}
    proposals = [x for x in recs if x[1] not in signed_paths and x[1] not in covered]
    awaiting = None
    if proposals:
        _, p, r = proposals[-1]
        awaiting = {"status": r.status, "record": p, "contributor": r.by}
    readings = [x for x in signed if x[1] not in superseded]
    if readings:
        _, p, r = readings[-1]
        disputes = None
        if r.disputes and r.disputes in by_path:
            d = by_path[r.disputes]
            disputes = {"status": d.status, "record": r.disputes, "contributor": d.by}
        return {"status": r.status, "source": "confirmed", "record": p, "by": r.by,
                "disputes": disputes, "awaiting": awaiting}
    if awaiting is None:
        return None
    return {"status": awaiting["status"], "source": "proposed", "record": awaiting["record"],
            "by": awaiting["contributor"], "disputes": None, "awaiting": awaiting}


def literature_awaiting(graph: Graph, target: str, node: str) -> list[dict[str, Any]]:
    """The node's literature proposals awaiting a reading, in the record's order (D-25
    v3.35/v3.45): records that are no signed reading of a steward or curator and that no
    signed reading confirms or disputes (a covered proposal is never again awaiting),
    withdrawn ones read as absent — the same reading :func:`literature_status` makes.

    Returns:
        ``[{record, status, contributor, date}]``.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    roles = ix.roles_of(target)
    recs = sorted(((norm_date(rf.record.date), rf.path, rf.record)
                   for rf in ix.node(target, node).literature if ix.present(rf.path)),
                  key=lambda x: (x[0], x[1]))
    signed = {x[1]: x[2] for x in recs if x[2].by in roles
              and ix.role_signed(x[1], x[2], x[2].by, x[2].date, target)}
    covered = {p for r in signed.values() for p in (r.confirms, r.disputes) if p}
    return [{"record": p, "status": r.status, "contributor": r.by, "date": d}
            for d, p, r in recs if p not in signed and p not in covered]


# --- what a shelving may reach (D-14 v3.47; the service and step 2 share it) -------------


@dataclass(frozen=True)
class ShelvingReach:
    """What a shelving filed under one node may name (D-14 v3.47, D-35 "shelving").

    Attributes:
        root: the node is its target's root (or a revision of it): never shelved.
        used_by_merged_proof: a merged Proof.lean of the target names the node in its
            deps: the statement may not be shelved at all.
        decompositions: the node's merged decompositions (its routes, record order, with
            those a same-hash revision inherits): the only paths it may retire.
    """

    root: bool
    used_by_merged_proof: bool
    decompositions: tuple[str, ...]


def shelving_reach(graph: Graph, target: str, node: str) -> ShelvingReach:
    """What a shelving under ``target``/``node`` may name (:class:`ShelvingReach`), from
    the same index :func:`node_flags` reads ``shelved`` from.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return ShelvingReach(ix.is_root(target, node), ix.used_by_merged_proof(target, node),
                         tuple(ix.routes(target, node)))


def standing_shelving(graph: Graph, target: str, subject: str) -> str | None:
    """The path of the shelving that stands for ``subject`` (a node id or a decomposition's
    path) — its latest counting record, when that record shelves rather than lifts — or
    None (D-14 v3.47: a later unshelved record lifts it).

    Raises:
        KeyError: no such target.
    """
    graph.targets[target]  # a KeyError for an unknown target
    return _ix(graph).shelving_record(target, subject)


# --- attempts, readiness, the frontier (D-13, D-25) ---------------------------------------


def _postmortems(ix: _Index, n: Node) -> list[Attempt]:
    return [a for a in n.attempts if a.kind == "postmortem" and ix.present(a.path)]


def attempt_facts(graph: Graph, target: str, node: str) -> dict[str, Any]:
    """D-13 facts of one node: ``attempts`` (postmortems plus merged partials and
    reductions), ``refuted_route_classes`` (sorted), ``failure_classes`` (histogram).

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return _attempt_facts(ix, ix.node(target, node))


def _attempt_facts(ix: _Index, n: Node) -> dict[str, Any]:
    key = (n.ref.target, n.ref.node)
    if key not in ix._facts:
        pms = _postmortems(ix, n)
        refuted: list[str] = sorted({a.postmortem.route_class for a in pms
                                     if a.postmortem and a.postmortem.outcome == "refuted-route"})
        hist = Counter(a.postmortem.failure_class for a in pms if a.postmortem)
        ix._facts[key] = (len(pms) + len(ix.own_routes(n)), refuted, sorted(hist.items()))
    facts = ix._facts[key]
    return {"attempts": facts[0],
            "refuted_route_classes": list(facts[1]),
            "failure_classes": dict(facts[2])}


def _proved_date(ix: _Index, tid: str, nid: str) -> str | None:
    n = ix.node(tid, nid)
    if ix.file_merged(n, "Proof"):
        return ix.date_of(n.files["Proof"].path)
    path = ix.valid_closure(tid, nid, "proved")
    if path is not None:
        for p, rec in ix.closures(tid, nid):
            if p == path:
                return ix.date_of(p) or ix.merge_date.get(rec.merge_seq)
    return None


def ready_since(graph: Graph, target: str, node: str) -> str | None:
    """When the node entered the ready set, as an ISO-8601 date (never an age; ruling 2).

    The latest of: the merge of its Statement/META (a hole: its route's merge; a root: the
    target's ``listed`` date), the merge of its Witness.lean, and each declared dependency's
    proof. None while blocked, closed, superseded or waiting on a dependency.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return _ready_since(ix, target, node)


def _ready_since(ix: _Index, tid: str, nid: str) -> str | None:
    key = (tid, nid)
    if key not in ix._ready:
        ix._ready[key] = _ready_since_uncached(ix, tid, nid)
    return ix._ready[key]


def _ready_since_uncached(ix: _Index, tid: str, nid: str) -> str | None:
    if ix.status(tid, nid) != "open":
        return None
    n = ix.node(tid, nid)
    d = ix.dir_of(n)
    dates: list[str | None] = [ix.date_of(f"{d}/Statement.lean") or ix.date_of(f"{d}/META.yaml")]
    if dates[0] is None and n.meta.hole is not None:
        dates[0] = ix.date_of(n.meta.hole.route)
    if dates[0] is None and ix.is_root(tid, nid):
        dates[0] = norm_date(ix.g.targets[tid].record.listed)
    if "Witness" in n.files and n.meta.hole is not None:
        dates.append(ix.date_of(n.files["Witness"].path))
    for dep in n.meta.deps:
        if not ix.has(tid, dep):
            return None
        cur = ix.current(tid, dep)
        if ix.status(tid, cur) != "proved":
            return None
        dates.append(_proved_date(ix, tid, cur))
    known = [x for x in dates if x]
    return max(known) if known else None


def frontier_entry(graph: Graph, target: str, node: str) -> dict[str, Any]:
    """One node's frontier entry with every D-25 field (D-25, v3.35, v3.44, v3.47; D-33).

    Keys: target, node, status, relation (variant relation or None), deps (read through
    revisions), library_tags, origin, attempts, refuted_route_classes, failure_classes,
    ready_since, claim_status (None: live claims are the service's overlay, ruling 13),
    claim_history (from the record: none is recorded yet, so []), claimable,
    claimable_reason, annex, bounty, literature, shelved, dormant, speculative, closable,
    question (:func:`is_question`: a held question, never claimable), label, claim,
    label_source.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return _frontier_entry(ix, target, node)


def _frontier_entry(ix: _Index, tid: str, nid: str) -> dict[str, Any]:
    g = ix.g
    n = ix.node(tid, nid)
    flags = node_flags(g, tid, nid)
    ok, why = claimable(g, tid, nid)
    lab = node_label(g, tid, nid)
    facts = _attempt_facts(ix, n)
    return {
        "target": tid,
        "node": nid,
        "status": ix.status(tid, nid),
        "relation": n.meta.variant.relation if n.meta.variant else None,
        "deps": [ix.current(tid, d) if ix.has(tid, d) else d for d in n.meta.deps],
        "library_tags": list(n.meta.library_tags),
        "origin": n.meta.origin,
        **facts,
        "ready_since": _ready_since(ix, tid, nid),
        "claim_status": None,
        "claim_history": [],
        "claimable": ok,
        "claimable_reason": why,
        "annex": any(ix.present(rf.path) for rf in n.annexes),
        "bounty": flags.bountied,
        "literature": literature_status(g, tid, nid),
        "shelved": flags.shelved,
        "dormant": flags.dormant,
        "speculative": flags.speculative,
        "closable": flags.closable,
        "question": flags.question,
        "label": lab.label,
        "claim": lab.claim,
        "label_source": lab.source,
    }


def on_frontier(graph: Graph, target: str, node: str) -> bool:
    """Whether the node is published on the frontier (D-25): open or blocked, not shelved
    (v3.47), not disputed (D-18 v3.28), every declared dependency proved. Dormant targets
    stay published (D-33) and say so in each entry.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return _on_frontier(ix, target, node)


def _on_frontier(ix: _Index, tid: str, nid: str) -> bool:
    if ix.status(tid, nid) not in ("open", "blocked"):
        return False
    if ix.shelved(tid, nid) or ix.disputed(tid, nid):
        return False
    for dep in ix.node(tid, nid).meta.deps:
        if not ix.has(tid, dep) or ix.status(tid, ix.current(tid, dep)) != "proved":
            return False
    return True


def frontier(graph: Graph) -> list[dict[str, Any]]:
    """Every frontier entry of the graph in the record's order (targets, then nodes, by id);
    see :func:`frontier_entry` and :func:`on_frontier` (D-25)."""
    ix = _ix(graph)
    return [_frontier_entry(ix, tid, nid)
            for tid, t in graph.targets.items() for nid in t.nodes
            if _on_frontier(ix, tid, nid)]


# --- routes and sufficient sets (D-25 v3.40, v3.44, v3.46, v3.47) ---------------------------


def node_routes(graph: Graph, target: str, node: str) -> list[str]:
    """The node's routes: paths of its merged partials and reductions in record order, a
    same-hash revision reading the superseded node's routes first (ruling 4, D-8 v3.46).

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return list(ix.routes(target, node))


def route_holes(graph: Graph, target: str, route: str) -> list[str]:
    """The statements a route needs: its holes by k, read through revisions, then the lemma
    edges (D-12 v3.38) the post-merge job recorded with it.

    META.yaml's ``lemmas`` do not name a route; a lemma is attributed to the route merged in
    the same merge record as the META.yaml change, else to the node's newest route.
    """
    return _ix(graph).route_holes(target, route)


def route_alive(graph: Graph, target: str, route: str) -> bool:
    """A route is alive unless retired by a shelving (D-14 v3.47) or one of its holes reads
    refuted or defective (a false member kills its route, D-25 v3.46)."""
    return _route_alive(_ix(graph), target, route)


def _route_alive(ix: _Index, tid: str, route: str) -> bool:
    if ix.route_retired(tid, route):
        return False
    return not any(ix.status(tid, h) in ("refuted", "defective")
                   for h in ix.route_holes(tid, route))


def route_facts(graph: Graph, target: str, route: str) -> dict[str, Any]:
    """A route's published facts (D-25 v3.40, v3.44).

    Returns:
        ``{route, node, kind, approach, approach_source, alive, retired, holes: [ids],
        count, proved, open, dead, attempts, refuted_route_classes, oldest_ready_since,
        closure}``. ``open`` counts open and blocked holes; ``dead`` refuted and defective
        ones; ``oldest_ready_since`` is the earliest ready_since of its open holes.

    Raises:
        KeyError: the route is not a decomposition of the target.
    """
    ix = _ix(graph)
    owner = ix.t[target].route_owner[route]
    holes = ix.route_holes(target, route)
    sts = [ix.status(target, h) for h in holes]
    refuted: set[str] = set()
    attempts = 0
    ready: list[str] = []
    for h in holes:
        f = _attempt_facts(ix, ix.node(target, h))
        attempts += f["attempts"]
        refuted.update(f["refuted_route_classes"])
        rs = _ready_since(ix, target, h)
        if rs:
            ready.append(rs)
    approach, source = route_approach(graph, target, route)
    closure = None
    for path, rec in ix.closures(target, owner):
        if rec.link == "route" and rec.route == route:
            closure = path
    kind = "reduction" if route.endswith("-reduction.lean") else "partial"
    return {
        "route": route, "node": owner, "kind": kind,
        "approach": approach, "approach_source": source,
        "alive": _route_alive(ix, target, route),
        "retired": ix.route_retired(target, route),
        "holes": holes, "count": len(holes),
        "proved": sum(s == "proved" for s in sts),
        "open": sum(s in ("open", "blocked") for s in sts),
        "dead": sum(s in ("refuted", "defective") for s in sts),
        "attempts": attempts,
        "refuted_route_classes": sorted(refuted),
        "oldest_ready_since": min(ready) if ready else None,
        "closure": closure,
    }


def target_routes(graph: Graph, target: str) -> list[dict[str, Any]]:
    """Every route of the target with its facts, nodes in id order and each node's routes
    in record order (:func:`route_facts`)."""
    ix = _ix(graph)
    out: list[dict[str, Any]] = []
    for n in graph.targets[target].nodes.values():
        for route in ix.own_routes(n):
            out.append(route_facts(graph, target, route))
    return out


# A persistent singly linked list: (head, tail) pairs, None for empty. Prepending is O(1),
# so a branch shares everything after its own additions.
_Cons = tuple[str, "_Cons"] | None
_ConsPair = tuple[tuple[str, str], "_ConsPair"] | None


@dataclass
class _Enum:
    ix: _Index
    tid: str
    cap: int
    root: str | None
    results: list[tuple[list[str], list[tuple[str, str]], _ConsPair]] = field(
        default_factory=list)
    truncated: bool = False
    alts: dict[str, list[tuple[str, list[str]]]] = field(default_factory=dict)

    def alternatives(self, nid: str) -> list[tuple[str, list[str]]]:
        if nid not in self.alts:
            self.alts[nid] = _alternatives(self.ix, self.tid, nid, at_root=(nid == self.root))
        return self.alts[nid]


def _alternatives(ix: _Index, tid: str, nid: str, *, at_root: bool) -> list[tuple[str, list[str]]]:
    """The OR choices of a node: its alive routes, and at the root each resolves variant
    as a one-member link. Empty when the node is proved or has no alive alternative."""
    if ix.status(tid, nid) == "proved":
        return []
    alts = [(r, ix.route_holes(tid, r)) for r in ix.routes(tid, nid)
            if _route_alive(ix, tid, r)]
    alts = [(r, hs) for r, hs in alts if hs]
    if at_root:
        for v in ix.t[tid].variants:
            rel = ix.node(tid, v).meta.variant
            if (rel is not None and rel.relation == "resolves"
                    and ix.file_merged(ix.node(tid, v), "Relation")
                    and ix.status(tid, v) not in ("refuted", "defective", "superseded")):
                alts.append((f"resolves:{v}", [v]))
    return alts


def _unlink(xs: _Cons) -> list[str]:
    out: list[str] = []
    while xs is not None:
        out.append(xs[0])
        xs = xs[1]
    out.reverse()
    return out


def _unlink_pairs(xs: _ConsPair) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    while xs is not None:
        out.append(xs[0])
        xs = xs[1]
    out.reverse()
    return out


def _enumerate(e: _Enum, start: str, first_choice: tuple[str, str] | None) -> None:
    """Depth-first enumeration of consistent choices of routes: one alternative per node,
    a shared node choosing once. Nodes with a single alternative are expanded in place;
    only real forks recurse, and the ``seen`` set is restored by a trail on backtrack, so
    each set costs time proportional to the nodes it reaches."""
    seen: set[str] = set()
    trail: list[str] = []

    def rec(work: _Cons, members: _Cons, order: _ConsPair, links: _ConsPair) -> None:
        while work is not None:
            if len(e.results) >= e.cap:
                e.truncated = True
                return
            x, work = work
            if x in seen:
                continue
            alts = e.alternatives(x)
            seen.add(x)
            trail.append(x)
            if not alts:
                members = (x, members)
                continue
            if len(alts) == 1:
                alt, holes = alts[0]
                links = ((x, alt), links)
                for h in reversed(holes):
                    work = (h, work)
                continue
            mark = len(trail)
            for alt, holes in alts:
                if len(e.results) >= e.cap:
                    e.truncated = True
                    return
                branch = work
                for h in reversed(holes):
                    branch = (h, branch)
                rec(branch, members, ((x, alt), order), ((x, alt), links))
                while len(trail) > mark:
                    seen.discard(trail.pop())
            return
        e.results.append((_unlink(members), _unlink_pairs(order), links))

    first: _ConsPair = (first_choice, None) if first_choice else None
    rec((start, None), None, first, first)


class _MemberFacts:
    """Status and shelving of set members for :func:`sufficient_sets`, asked in the same
    order as one call per member per set would ask them (so memoised values, cycle guards
    included, come out the same), answered for a whole set at once once every member is
    known."""

    def __init__(self, ix: _Index, target: str) -> None:
        self.ix = ix
        self.target = target
        self.statuses: dict[str, str] = {}
        self.known: set[str] = set()
        self.unproved: set[str] = set()
        self.cleared: set[str] = set()
        self.excluded: set[str] = set()

    def status(self, x: str) -> str:
        st = self.statuses.get(x)
        if st is None:
            st = self.statuses[x] = self.ix.status(self.target, x)
            self.known.add(x)
            if st != "proved":
                self.unproved.add(x)
        return st

    def rests_on_shelved(self, members: list[str], member_set: frozenset[str]) -> bool:
        """Whether some member is shelved and not proved (D-14 v3.47)."""
        if member_set <= self.cleared:
            return False
        for x in members:
            if x in self.cleared:
                continue
            if x in self.excluded:
                return True
            if self.ix.shelved(self.target, x) and self.status(x) != "proved":
                self.excluded.add(x)
                return True
            self.cleared.add(x)
        return False

    def count_unproved(self, members: list[str], member_set: frozenset[str]) -> int:
        """How many of ``members`` (a list, duplicates counted) are not proved."""
        if len(member_set) != len(members) or not member_set <= self.known:
            return sum(self.status(x) != "proved" for x in members)
        return len(member_set & self.unproved)


def sufficient_sets(graph: Graph, target: str,
                    cap: int = SET_ENUMERATION_CAP) -> dict[str, Any]:
    """Every sufficient set of the target, both sides (D-25 v3.40, v3.44, v3.46, v3.47).

    A set is the finest cut one choice of routes makes: a node is expanded into an alive
    route wherever it has one (at the root, a resolves variant is a one-member alternative),
    taken directly where none is, and a proved node ends the cut as a member. A choice of
    routes picks one alternative per node, so a hole shared by two branches (a lemma, D-12
    v3.38) chooses once: the enumeration is per choice of routes, deduplicated by members,
    never the unrolled OR tree. The ``refutes`` side enumerates each alive refutes variant's
    routes the same way. Sets resting on a shelved, unproved statement are omitted (v3.47).
    Listed in the record's order, never ranked. At most ``cap`` sets per side are
    enumerated; ``truncated`` says when the cap cut the list short.

    Returns:
        ``{cap, truncated, sets: [{side, members, choices: [{node, route}], count, proved,
        open, assemblies_needed, assemblies: [{node, route}], shared}]}``. ``choices`` are
        the forks: nodes with more than one alive alternative, with the one this set takes
        (a refutes set opens with ``{root, "refutes:<variant>"}``). ``assemblies_needed``
        counts the links through nodes not yet proved (joins still to submit or close);
        ``assemblies`` names them once every member is proved (v3.40), else is empty.
        ``shared`` counts members another set also has. Empty when there is no root.

    Raises:
        KeyError: no such target.
    """
    ix = _ix(graph)
    t = graph.targets[target]
    root = ix.root_of(target)
    out: dict[str, Any] = {"cap": cap, "truncated": False, "sets": []}
    if root is None:
        return out
    raw: list[tuple[str, list[str], list[tuple[str, str]], _ConsPair]] = []
    e = _Enum(ix, target, cap, root)
    _enumerate(e, root, None)
    raw += [("proves", mem, order, links) for mem, order, links in e.results]
    truncated = e.truncated
    for v in ix.t[target].variants:
        rel = t.nodes[v].meta.variant
        if (rel is None or rel.relation != "refutes" or ix.current(target, v) != v
                or not ix.file_merged(t.nodes[v], "Relation")
                or ix.status(target, v) in ("refuted", "defective")):
            continue
        ev = _Enum(ix, target, cap, None)
        _enumerate(ev, v, (root, f"refutes:{v}"))
        raw += [("refutes", mem, order, links) for mem, order, links in ev.results]
        truncated = truncated or ev.truncated
    sets: list[dict[str, Any]] = []
    seen: set[tuple[str, frozenset[str]]] = set()
    facts = _MemberFacts(ix, target)
    for side, members, order, links in raw:
        member_set = frozenset(members)
        key = (side, member_set)
        if key in seen:
            continue
        seen.add(key)
        if facts.rests_on_shelved(members, member_set):
            continue
        n_open = facts.count_unproved(members, member_set)
        needed = [(n, r) for n, r in _unlink_pairs(links)
                  if not r.startswith("refutes:") and facts.status(n) != "proved"]
        sets.append({
            "side": side,
            "members": members,
            "choices": [{"node": n, "route": r} for n, r in order],
            "count": len(members),
            "proved": len(members) - n_open,
            "open": n_open,
            "assemblies_needed": len(needed),
            "assemblies": [{"node": n, "route": r} for n, r in needed] if n_open == 0 else [],
        })
    counts: Counter[str] = Counter()
    for s in sets:
        counts.update(set(s["members"]))
    multi = {x for x, c in counts.items() if c > 1}
    for s in sets:
        mem = s["members"]
        s["shared"] = (len(multi.intersection(mem)) if len(set(mem)) == len(mem)
                       else sum(1 for x in mem if counts[x] > 1))
    out["sets"] = sets
    out["truncated"] = truncated
    return out


def selector(graph: Graph, target: str, sets: dict[str, Any] | None = None) -> dict[str, Any]:
    """The selector tree over the sufficient sets (D-25 v3.44, v3.46), built from the sets
    alone, never from the graph.

    It opens on a fork between the sides when both exist; below, a family of sets is split,
    in record order, on the first route choice on which its sets differ. Each leaf is one
    set (``{"set": index}`` into ``sets``); each interior node ``{"node", "label",
    "branches": [{"route", "approach", "tree"}]}`` or, for the side fork,
    ``{"fork": "side", "branches": [{"side", "tree"}]}``. ``None``-valued branch routes mean
    the sets of that branch make no choice at that node. Nothing is ranked.
    """
    data = sets if sets is not None else sufficient_sets(graph, target)
    items = list(enumerate(data["sets"]))
    if not items:
        return {"empty": True}
    sides = list(dict.fromkeys(s["side"] for _, s in items))
    if len(sides) > 1:
        return {"fork": "side", "branches": [
            {"side": side, "tree": _split(graph, target, [x for x in items if x[1]["side"] == side])}
            for side in sides]}
    return _split(graph, target, items)


def _split(graph: Graph, target: str, items: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    if len(items) == 1:
        return {"set": items[0][0]}
    choice_maps = [{c["node"]: c["route"] for c in s["choices"]} for _, s in items]
    nodes: list[str] = []
    for _, s in items:
        for c in s["choices"]:
            if c["node"] not in nodes:
                nodes.append(c["node"])
    for nid in nodes:
        values = [cm.get(nid) for cm in choice_maps]
        if len(set(values)) > 1:
            groups: dict[str | None, list[tuple[int, dict[str, Any]]]] = {}
            for v, it in zip(values, items):
                groups.setdefault(v, []).append(it)
            branches = []
            for v, group in groups.items():
                approach = None
                if v and not v.startswith(("resolves:", "refutes:")):
                    approach = route_approach(graph, target, v)[0]
                branches.append({"route": v, "approach": approach,
                                 "tree": _split(graph, target, group)})
            return {"node": nid, "label": node_label(graph, target, nid).label,
                    "branches": branches}
    return {"sets": [i for i, _ in items]}  # identical choices: cannot happen after dedupe


# --- proofs (D-25 v3.26), closures, ledger (D-19) ------------------------------------------


def target_proofs(graph: Graph, target: str) -> list[dict[str, Any]]:
    """Every way the target is proved, in the record's order, ranking nothing (D-25 v3.26).

    The root's merged Proof.lean or holding closure, its merged alternates, and for each
    proved resolves variant its proof or closure and alternates; each with ``rests_on``,
    the nodes its proof rests on (declared deps for a direct proof or alternate, the
    closure footprint for a closure). Returns ``[{node, kind, path, rests_on}]``.
    """
    ix = _ix(graph)
    root = ix.root_of(target)
    if root is None:
        return []
    out: list[dict[str, Any]] = []
    candidates = [root] + [v for v in ix.t[target].variants
                           if (rel := ix.node(target, v).meta.variant) is not None
                           and rel.relation == "resolves" and ix.status(target, v) == "proved"]
    for nid in candidates:
        n = ix.node(target, nid)
        deps = [ix.current(target, d) for d in n.meta.deps if ix.has(target, d)]
        if ix.file_merged(n, "Proof"):
            out.append({"node": nid, "kind": "proof", "path": n.files["Proof"].path,
                        "rests_on": deps})
        else:
            cpath = ix.valid_closure(target, nid, "proved")
            if cpath is not None:
                out.append({"node": nid, "kind": "closure", "path": cpath,
                            "rests_on": _footprint(ix, target, nid)[1:]})
        for a in n.attempts:
            if a.kind == "alternate" and ix.is_merged(a.path, a.sha256) and ix.present(a.path):
                out.append({"node": nid, "kind": "alternate", "path": a.path, "rests_on": deps})
    return out


def target_closures(graph: Graph, target: str) -> list[dict[str, Any]]:
    """Every standing closure record of the target (D-25 v3.42): ``{node, path, link,
    route, inputs: [{node, proof}], verdict, merge_seq, holds}``; ``holds`` says whether
    every input still reads proved (and a root is vouched)."""
    ix = _ix(graph)
    out: list[dict[str, Any]] = []
    for nid in graph.targets[target].nodes:
        for path, rec in ix.closures(target, nid):
            out.append({"node": nid, "path": path, "link": rec.link, "route": rec.route,
                        "inputs": [{"node": i.node, "proof": i.proof} for i in rec.inputs],
                        "verdict": rec.verdict, "merge_seq": rec.merge_seq,
                        "holds": ix.closure_holds(target, rec)})
    return out


def ledger_views(graph: Graph) -> dict[str, list[dict[str, Any]]]:
    """Ledger lines per identity (D-19), revoked lines kept and shown as revoked (D-18).

    Returns:
        ``{identity: [{path, merge_seq, k, line, target, node, artifact, revoked,
        revoked_by, corrections: [paths], annotation}]}``, identities sorted, lines in
        (merge_seq, k) order. A revocation or correction naming no line changes nothing;
        a correction the post-merge job applied shows as the old line revoked and the
        corrected line, annotated with both paths (D-19 v3.27).
    """
    ix = _ix(graph)
    revoked: dict[str, str] = {}
    corrections: dict[str, list[str]] = {}
    for rf in graph.ledger:
        rec = rf.record
        if not ix.present(rf.path):
            continue
        if isinstance(rec, m.Revocation):
            revoked.setdefault(rec.revokes, rf.path)
        elif isinstance(rec, m.Correction):
            corrections.setdefault(rec.corrects, []).append(rf.path)
    views: dict[str, list[dict[str, Any]]] = {}
    lines = sorted((rf for rf in graph.ledger if isinstance(rf.record, m.LedgerLine)),
                   key=lambda rf: (rf.record.merge_seq, rf.record.k, rf.path))
    for rf in lines:
        rec = rf.record
        assert isinstance(rec, m.LedgerLine)
        views.setdefault(rec.identity, []).append({
            "path": rf.path, "merge_seq": rec.merge_seq, "k": rec.k, "line": rec.line,
            "target": rec.target, "node": rec.node, "artifact": rec.artifact,
            "revoked": rf.path in revoked, "revoked_by": revoked.get(rf.path),
            "corrections": corrections.get(rf.path, []), "annotation": rec.annotation,
        })
    return dict(sorted(views.items()))


_APPROACH_KEYS = ("title", "state", "cause", "route", "outcome", "detail",
                  "pinned_mathlib_sha", "model_and_tooling")


def approach_views(graph: Graph, target: str) -> list[dict[str, Any]]:
    """A target's approach records (D-14 mechanism 3) as the products publish them, both
    versions, in (date, path) order, withdrawn ones left out (D-14 v3.27).

    Returns:
        ``[{path, schema, author, date, nodes, references, title, state, cause, route,
        outcome, detail, pinned_mathlib_sha, model_and_tooling, target_mathlib, stale}]``;
        a key a record's version lacks is None. ``target_mathlib`` is the target's
        gate-spec Mathlib pin (None when it pins none). ``stale`` is D-14's flag: True for
        an ``approach/v2`` record whose ``pinned_mathlib_sha`` is not that pin ("a strategy
        declared dead is dead relative to a Mathlib SHA"), False when it is, and None for
        an ``approach/v1`` record, which carries no pin, so its staleness is unknown.

    Raises:
        KeyError: no such target.
    """
    ix = _ix(graph)
    t = graph.targets[target]
    pin = t.gate_spec.mathlib.rev if t.gate_spec.mathlib is not None else None
    out: list[dict[str, Any]] = []
    for rf in sorted(t.approaches, key=lambda r: (norm_date(r.record.date), r.path)):
        if not ix.present(rf.path):
            continue
        rec = rf.record
        body = rec.model_dump(mode="json", by_alias=True, exclude_none=True)
        view: dict[str, Any] = {"path": rf.path, "schema": rec.SCHEMA_KIND,
                                "author": rec.author, "date": rec.date,
                                "nodes": list(rec.nodes),
                                "references": body.get("references", [])}
        view.update({k: body.get(k) for k in _APPROACH_KEYS})
        view["target_mathlib"] = pin
        view["stale"] = (rec.pinned_mathlib_sha != pin if isinstance(rec, m.ApproachV2)
                         else None)
        out.append(view)
    return out


def correction_marker(path: str) -> str:
    """The words a revocation applying the correction at ``path`` opens its ``reason``
    with (D-19 v3.27): how the post-merge job, and every reader, knows the correction has
    been applied, so applying it again changes nothing."""
    return f"correction {path}: "


def pending_corrections(graph: Graph) -> list[tuple[str, m.Correction, str, m.LedgerLine]]:
    """The credit corrections on the record the post-merge job has still to apply
    (D-19 v3.27, D-18 v3.27): ``[(correction path, correction, corrected line's path,
    corrected line)]`` in path order.

    A correction counts only when it names a ledger line on the record (``corrects``), the
    identity it says was credited is the line's (``credited``), the identity that should
    be differs from it (``should_be``, or None for nobody), and a listed curator of the
    line's target signed it as its ``by`` (ruling 14; dated at the record's clock, the
    newest merge). It is applied once: a revocation of that line whose reason opens with
    :func:`correction_marker` of its path means it was, and nothing more is written.
    """
    ix = _ix(graph)
    lines: dict[str, m.LedgerLine] = {rf.path: rf.record for rf in graph.ledger
                                      if isinstance(rf.record, m.LedgerLine)}
    reasons: dict[str, list[str]] = {}
    for rf in graph.ledger:
        if isinstance(rf.record, m.Revocation):
            reasons.setdefault(rf.record.revokes, []).append(rf.record.reason)
    when = ix.now
    out: list[tuple[str, m.Correction, str, m.LedgerLine]] = []
    for rf in sorted(graph.ledger, key=lambda r: r.path):
        corr = rf.record
        if not isinstance(corr, m.Correction) or when is None:
            continue
        line = lines.get(corr.corrects)
        if line is None or corr.credited != line.identity or corr.should_be == line.identity:
            continue
        marker = correction_marker(rf.path)
        if any(r.startswith(marker) for r in reasons.get(corr.corrects, [])):
            continue
        if line.target not in graph.targets or corr.by not in ix.curators_of(line.target):
            continue
        if not ix.role_signed(rf.path, corr, corr.by, when, line.target, stewards=False):
            continue
        out.append((rf.path, corr, corr.corrects, line))
    return out


# --- the whole graph view (graph.json body) ----------------------------------------------


def node_view(graph: Graph, target: str, node: str) -> dict[str, Any]:
    """A node as graph.json publishes it: id, status, flags, label/claim/label_source,
    origin, deps, lemmas, hole, supersedes, superseded_by, variant, statement_hash, merged
    files, ready_since, claimable, literature, shelving record, closures (D-25 v3.42/v3.44).

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    n = ix.node(target, node)
    meta = n.meta
    lab = node_label(graph, target, node)
    ok, why = claimable(graph, target, node)
    merged_files = {name: lf.path for name, lf in sorted(n.files.items())
                    if ix.is_merged(lf.path, lf.sha256)}
    return {
        "id": node,
        "status": ix.status(target, node),
        "flags": node_flags(graph, target, node).to_dict(),
        "label": lab.label, "claim": lab.claim, "label_source": lab.source,
        "origin": meta.origin,
        "deps": list(meta.deps), "lemmas": list(meta.lemmas),
        "hole": meta.hole.model_dump() if meta.hole else None,
        "supersedes": meta.supersedes,
        "superseded_by": ix.t[target].superseded_by.get(node),
        "variant": meta.variant.model_dump() if meta.variant else None,
        "statement_hash": meta.statement_hash,
        "merged": merged_files,
        "ready_since": _ready_since(ix, target, node),
        "claimable": ok, "claimable_reason": why,
        "literature": literature_status(graph, target, node),
        "shelving": ix.shelving_record(target, node),
        "on_frontier": _on_frontier(ix, target, node),
        **_attempt_facts(ix, n),
    }


def target_edges(graph: Graph, target: str) -> list[dict[str, Any]]:
    """Edges of the target's graph in the record's order: ``{from, to, kind}`` with kind
    ``hole`` (parent → hole, with its route), ``lemma``, ``dep``, ``variant`` (variant →
    its root, with the relation) and ``supersedes`` (old → revision)."""
    out: list[dict[str, Any]] = []
    t = graph.targets[target]
    for nid, n in t.nodes.items():
        meta = n.meta
        if meta.hole is not None:
            out.append({"from": meta.hole.parent, "to": nid, "kind": "hole",
                        "route": meta.hole.route})
        for lem in meta.lemmas:
            out.append({"from": nid, "to": lem, "kind": "lemma"})
        for dep in meta.deps:
            out.append({"from": nid, "to": dep, "kind": "dep"})
        if meta.variant is not None:
            out.append({"from": nid, "to": meta.variant.of, "kind": "variant",
                        "relation": meta.variant.relation})
        if meta.supersedes:
            out.append({"from": meta.supersedes, "to": nid, "kind": "supersedes"})
    return out


def target_summary(graph: Graph, target: str) -> dict[str, Any]:
    """One targets/index.json entry: id, title, class, calibration, status (D-33), root and
    its status, fidelity grade, stewards, root_vouched, node and frontier counts, status
    histogram, and the starvation series (D-25: ready nodes, and those with zero attempts
    ready for at least ``policy.starvation_days``, measured against "now")."""
    ix = _ix(graph)
    t = graph.targets[target]
    root = ix.root_of(target)
    hist = Counter(ix.status(target, nid) for nid in t.nodes)
    ready = [nid for nid in t.nodes if _on_frontier(ix, target, nid)]
    starving = 0
    days = int(t.record.policy.get("starvation_days", graph.policy.starvation_days))
    if ix.now is not None:
        for nid in ready:
            rs = _ready_since(ix, target, nid)
            if rs and _days_between(rs, ix.now) >= days and \
                    _attempt_facts(ix, t.nodes[nid])["attempts"] == 0:
                starving += 1
    return {
        "id": target, "title": t.record.title, "class": t.record.target_class,
        "calibration": t.record.calibration,
        "status": target_status(graph, target).to_dict(),
        "root": root, "root_status": ix.status(target, root) if root else None,
        "fidelity_grade": t.record.fidelity.grade,
        "root_vouched": root_vouched(graph, target),
        "stewards": ix.stewards_of(target),
        "nodes": len(t.nodes), "frontier": len(ready),
        "statuses": {s: hist.get(s, 0) for s in STATUSES},
        "starvation": {"days": days, "ready": len(ready), "zero_attempts": starving},
        "gate_spec_sha256": t.gate_spec_sha256,
    }


@functools.lru_cache(maxsize=4096)
def _days_between(a: str, b: str) -> int:
    from datetime import datetime

    fa = datetime.strptime(a, "%Y-%m-%dT%H:%M:%SZ")
    fb = datetime.strptime(b, "%Y-%m-%dT%H:%M:%SZ")
    return (fb - fa).days


def graph_view(graph: Graph, target: str) -> dict[str, Any]:
    """The body of ``targets/<id>/graph.json`` (D-25 v3.26/v3.40/v3.42/v3.44/v3.46): the
    target's status, nodes (:func:`node_view`), edges, routes, closures, sufficient sets,
    the selector, the proofs list and the approach records with their staleness
    (:func:`approach_views`, D-14), in the record's order.

    Raises:
        KeyError: no such target.
    """
    sets = sufficient_sets(graph, target, cap=PRODUCT_SET_CAP)
    return {
        "schema": "graph/v1",
        "target": target,
        "as_of": now(graph),
        "title": graph.targets[target].record.title,
        "status": target_status(graph, target).to_dict(),
        "root_vouched": root_vouched(graph, target),
        "nodes": [node_view(graph, target, nid) for nid in graph.targets[target].nodes],
        "edges": target_edges(graph, target),
        "routes": target_routes(graph, target),
        "closures": target_closures(graph, target),
        "sufficient_sets": sets,
        "selector": selector(graph, target, sets),
        "proofs": target_proofs(graph, target),
        "approaches": approach_views(graph, target),
    }


def nodes_of(graph: Graph) -> Iterable[tuple[str, str]]:
    """Every ``(target, node)`` in the record's order."""
    for tid, t in graph.targets.items():
        for nid in t.nodes:
            yield tid, nid


# --- views the site needs (D-36 v3.48, D-13, D-36 node page) -------------------------------


def merge_of(graph: Graph, path: str) -> dict[str, Any] | None:
    """The first merge record naming ``path`` among its artifacts (ruling 2), or None.

    Returns:
        ``{seq, merge_commit, date, pull_request}``; ``date`` a full ISO-8601 UTC timestamp.
        The site links a proof "at the merged commit" with it (D-36).
    """
    ix = _ix(graph)
    seq = ix.merge_seq_of.get(path)
    if seq is None:
        return None
    for mr in graph.merges:
        if mr.record.seq == seq:
            rec = mr.record
            return {"seq": rec.seq, "merge_commit": rec.merge_commit,
                    "date": norm_date(rec.date), "pull_request": rec.pull_request}
    return None


def route_class_histogram(graph: Graph, target: str, node: str) -> dict[str, int]:
    """How many standing postmortems (D-13) of the node name each ``route_class``, keys
    sorted. Withdrawn postmortems are absent (D-18 v3.27).

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    hist = Counter(a.postmortem.route_class for a in _postmortems(ix, ix.node(target, node))
                   if a.postmortem)
    return dict(sorted(hist.items()))


EVENT_KINDS = {
    "statement": "statements proposed",
    "proof": "proofs merged",
    "partial": "partial proofs merged",
    "attempts": "postmortems filed",
    "writeup": "write-ups recorded",
    "review": "reviews recorded",
    "upstream": "results upstreamed",
    "words": "words written",
    "signatures": "signatures given",
}
"""The kinds of home-page event (D-36 v3.48) and the phrase each row reads under."""
_EVENT_ORDER = {k: i for i, k in enumerate(EVENT_KINDS)}


def record_events(graph: Graph) -> list[dict[str, Any]]:
    """What happened lately on the record, newest first (D-36 v3.48).

    Events come from the ledger's active lines (a revoked line is credit withdrawn, not
    news, D-18), each dated by its merge record; and from every standing gloss and
    explainer version (``words``), with its approvals (``signatures``), each dated by the
    version's own ``date``. A ``proof`` line whose artifact is a partial or reduction is a
    ``partial`` event. One day's events of one kind on one target make one row.

    Returns:
        ``[{day: "YYYY-MM-DD", kind, phrase, target, count, items: [{path, identity,
        node}]}]``: days newest first; within a day, kinds in :data:`EVENT_KINDS` order and
        targets by id; items in record order. Never the build's clock (ruling 2).
    """
    ix = _ix(graph)
    revoked = {rf.record.revokes for rf in graph.ledger
               if isinstance(rf.record, m.Revocation) and ix.present(rf.path)}
    rows: dict[tuple[str, str, str], list[dict[str, Any]]] = {}

    def add(day: str, kind: str, target: str, item: dict[str, Any]) -> None:
        rows.setdefault((day, kind, target), []).append(item)

    lines = sorted((rf for rf in graph.ledger if isinstance(rf.record, m.LedgerLine)),
                   key=lambda rf: (rf.record.merge_seq, rf.record.k, rf.path))
    for rf in lines:
        rec = rf.record
        assert isinstance(rec, m.LedgerLine)
        if rf.path in revoked or not ix.present(rf.path):
            continue
        date = ix.merge_date.get(rec.merge_seq)
        if date is None:
            continue
        kind: str = rec.line
        if kind == "proof" and rec.artifact.endswith(("-partial.lean", "-reduction.lean")):
            kind = "partial"
        add(date[:10], kind, rec.target,
            {"path": rec.artifact, "identity": rec.identity, "node": rec.node})
    for tid, t in graph.targets.items():
        for nid, n in t.nodes.items():
            words: list[Any] = sorted([*n.glosses, *n.explainers],
                           key=lambda rf: (norm_date(rf.record.date), rf.path))
            for w in words:
                if not ix.present(w.path):
                    continue
                day = norm_date(w.record.date)[:10]
                add(day, "words", tid, {"path": w.path, "identity": w.record.author,
                                        "node": nid})
                for sig in ix.approved(tid, w.record):
                    add(day, "signatures", tid, {"path": w.path, "identity": sig.signer,
                                                 "node": nid})
    out: list[dict[str, Any]] = [{"day": day, "kind": kind, "phrase": EVENT_KINDS.get(kind, kind), "target": tid,
            "count": len(items), "items": items}
           for (day, kind, tid), items in rows.items()]
    out.sort(key=lambda r: (r["target"]))
    out.sort(key=lambda r: _EVENT_ORDER.get(r["kind"], len(_EVENT_ORDER)))
    out.sort(key=lambda r: r["day"], reverse=True)
    return out


def words_chains(graph: Graph, target: str, node: str, kind: str) -> list[dict[str, Any]]:
    """The node's gloss (``kind="gloss"``) or explainer (``"explainer"``) version chains
    (ruling 11, D-3 v3.30/v3.31), withdrawn versions absent.

    A chain starts at a version with no ``supersedes``; each later version whose
    ``supersedes`` names a member joins it; the current version is the chain's latest.

    Returns:
        ``[{describes, current, history}]`` in record order (date, path) of the chains'
        first versions; ``current`` and each of ``history`` (oldest first, current last)
        are ``{path, author, date, label, sections: [{steps, text, drafted_with}],
        approvals: [signer] (verified approvals only, embedded or approval/v1 records,
        ruling 14), section_states (:func:`network.record.approvals.section_states`),
        supersedes}``; each chain also has ``reads``, the version a reader is shown
        (the newest with no pending section, v3.31).

    Raises:
        LemmataError: ``unknown-node``. ValueError: an unknown ``kind``.
    """
    from network.record import approvals  # imports this module

    ix = _ix(graph)
    _check(ix, target, node)
    n = ix.node(target, node)
    if kind not in ("gloss", "explainer"):
        raise ValueError(f"no words kind {kind!r}")
    recs: list[Any] = n.glosses if kind == "gloss" else n.explainers
    versions = sorted(((norm_date(rf.record.date), rf.path, rf.record) for rf in recs
                       if ix.present(rf.path)), key=lambda x: (x[0], x[1]))
    chains: list[dict[str, Any]] = []
    member: dict[str, int] = {}
    for date, path, rec in versions:
        view = {"path": path, "author": rec.author, "date": date,
                "label": getattr(rec, "label", None),
                "sections": [{"steps": list(s.steps), "text": s.text,
                              "drafted_with": list(s.drafted_with)} for s in rec.sections],
                "approvals": list(dict.fromkeys(
                    a["by"] for a in approvals.approvals_of(graph, target, n, path))),
                "section_states": approvals.section_states(graph, target, n, path),
                "supersedes": rec.supersedes}
        at = member.get(rec.supersedes) if rec.supersedes else None
        if at is None:
            at = len(chains)
            chains.append({"describes": rec.describes, "current": view, "history": []})
        chains[at]["history"].append(view)
        chains[at]["current"] = view
        member[path] = at
    for c in chains:  # v3.31: a change over verified words is read once approved
        c["reads"] = approvals.reading_version(graph, target, n,
                                               [v["path"] for v in c["history"]])
    return chains


#: Kinds of file :func:`words_needed` lists (D-28 list_words_needed, D-3 v3.30/v3.44).
WORDS_KINDS = ("statement", "witness", "relation", "proof", "partial")
_WORDS_FILES = {"Statement": "statement", "Witness": "witness", "Relation": "relation"}


def words_needed(graph: Graph, target: str | None = None,
                 kind: str | None = None) -> list[dict[str, Any]]:
    """Every Lean file and merged proof of the record that still lacks words (D-28
    list_words_needed, notation notes 2026-10-05/06; D-3 v3.30/v3.31/v3.44).

    What needs words, and which words count:

    * ``statement``, ``witness``, ``relation``: a node's Statement.lean (not a root's: its
      words of record are the target's curated informal statement, D-6, D-9),
      Witness.lean and Relation.lean need a gloss chain describing the file.
    * ``proof``: a node's merged Proof.lean and its recorded alternates need an explainer
      chain (D-3 v3.30); only these, since the gate accepts an explainer only on a node
      with a merged proof (``explainer-without-proof``).
    * ``partial``: a merged partial or reduction (its file under attempts/) needs a gloss
      or an explainer chain (v3.44).

    A file lacks words when no chain of the counting kind with a non-withdrawn version
    describes it (``why`` = ``no-gloss`` / ``no-explainer`` / ``no-words``), or when every
    such chain's current version describes bytes other than the file's current SHA-256
    (``why`` = ``words-describe-earlier-text``). Definition modules are not listed: the
    record has no place for a target-level gloss yet. Outlines are not yet products, so
    ``outline`` is None. Nothing is ranked (D-25): the order is target, node, file path.

    Args:
        graph: the loaded record.
        target: keep only this target's files, or None for all.
        kind: keep only this kind (one of :data:`WORDS_KINDS`), or None.

    Returns:
        ``[{target, node, file, sha256, kind, words, why, status, outline}]`` where
        ``words`` is ``gloss``, ``explainer`` or ``gloss-or-explainer`` and ``status`` the
        node's derived status.

    Raises:
        LemmataError: ``unknown-node`` when ``target`` names no target. ValueError: an
            unknown ``kind`` (the service checks it first).
    """
    from network.errors import LemmataError

    if kind is not None and kind not in WORDS_KINDS:
        raise ValueError(f"no words kind {kind!r}")
    if target is not None and target not in graph.targets:
        raise LemmataError("unknown-node", f"no target {target}")
    ix = _ix(graph)
    out: list[dict[str, Any]] = []
    for tid in sorted(graph.targets) if target is None else [target]:
        t = graph.targets[tid]
        for nid in sorted(t.nodes):
            n = t.nodes[nid]
            wanted: list[tuple[str, str, str, str]] = []  # (file, sha, kind, words)
            for name, k in _WORDS_FILES.items():
                lf = n.files.get(name)
                if lf is None or (k == "statement" and ix.is_root(tid, nid)):
                    continue
                wanted.append((lf.path, lf.sha256, k, "gloss"))
            proof = n.files.get("Proof")
            if proof is not None:
                wanted.append((proof.path, proof.sha256, "proof", "explainer"))
                wanted.extend((a.path, a.sha256, "proof", "explainer")
                              for a in n.attempts if a.kind == "alternate")
            wanted.extend((a.path, a.sha256, "partial", "gloss-or-explainer")
                          for a in n.attempts
                          if a.kind in ROUTE_KINDS and ix.is_merged(a.path, a.sha256))
            if not any(kind in (None, w[2]) for w in wanted):
                continue
            chains = {"gloss": words_chains(graph, tid, nid, "gloss"),
                      "explainer": words_chains(graph, tid, nid, "explainer")}
            status = ix.status(tid, nid)
            for path, sha, k, words in sorted(wanted):
                if kind is not None and k != kind:
                    continue
                kinds = ("gloss", "explainer") if words == "gloss-or-explainer" else (words,)
                found = [c for w in kinds for c in chains[w] if c["describes"] == path]
                if not found:
                    why = {"gloss": "no-gloss", "explainer": "no-explainer"}.get(words, "no-words")
                elif not any(_describes_current(n, c, sha) for c in found):
                    why = "words-describe-earlier-text"
                else:
                    continue
                out.append({"target": tid, "node": nid, "file": path, "sha256": sha,
                            "kind": k, "words": words, "why": why, "status": status,
                            "outline": None})
    return out


def _describes_current(n: Node, chain: dict[str, Any], sha: str) -> bool:
    """Whether ``chain``'s current version names ``sha`` as the text it describes."""
    path = chain["current"]["path"]
    named = {rf.path: rf.record.describes_sha256 for rf in n.glosses}
    named.update({rf.path: rf.record.describes_sha256 for rf in n.explainers})
    return named.get(path) == sha


# --- registrations in public registries (D-10 v3.37) ---------------------------------------


def registrations(graph: Graph, target: str | None = None) -> list[dict[str, Any]]:
    """Every registration of a target in a public registry, as the record holds it (D-3,
    D-10 v3.37, D-28 ``list_registrations``).

    A registration record counts when a curator of its target or a listed steward signed
    it while holding the role (ruling 14); one a withdrawal record (v3.27) names is set
    aside. Per (target, registry, registry id) the latest counting record (by date, then
    path) is the one read. Answered in the record's order (target, date, path), ranking
    nothing.

    Args:
        target: a target id, or None for every target.

    Returns:
        ``[{target, registry, registry_id, version, state, repository, commit,
        graph_commit, proof, attestation, by, date, path, superseded: [paths]}]``;
        ``superseded`` lists the earlier counting records of the same registry id.

    Raises:
        KeyError: no such target.
    """
    ix = _ix(graph)
    tids = sorted(graph.targets) if target is None else [graph.targets[target].id]
    out: list[dict[str, Any]] = []
    for tid in tids:
        by_id: dict[tuple[str, str], list[tuple[str, str, m.Registration]]] = {}
        for rf in graph.targets[tid].registrations:
            rec = rf.record
            if rf.path in ix.withdrawn or not ix.role_signed(rf.path, rec, rec.by, rec.date,
                                                             tid):
                continue
            by_id.setdefault((rec.registry, rec.registry_id), []).append(
                (norm_date(rec.date), rf.path, rec))
        rows = []
        for recs in by_id.values():
            recs.sort(key=lambda x: (x[0], x[1]))
            date, path, rec = recs[-1]
            rows.append((date, path, {
                "target": tid, "registry": rec.registry, "registry_id": rec.registry_id,
                "version": rec.version, "state": rec.state, "repository": rec.repository,
                "commit": rec.commit, "graph_commit": rec.graph_commit, "proof": rec.proof,
                "attestation": rec.attestation, "by": rec.by, "date": rec.date, "path": path,
                "superseded": [p for _d, p, _r in recs[:-1]]}))
        out.extend(row for _d, _p, row in sorted(rows, key=lambda x: (x[0], x[1])))
    return out
