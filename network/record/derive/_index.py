"""The memoised index over one :class:`~network.record.read.loader.Graph` (private).

:class:`_Index` is everything derived from one Graph, memoised: merged files, trust
(ruling 14), withdrawals (D-18 v3.27), the stewards' panel (D-32 v3.34), routes, shelving
(D-14 v3.47), statuses and closures (ruling 1, D-12 v3.42). :func:`_ix` is the one cache
of indexes: each is kept on its Graph object (``Graph.derive_index``) and freed with it;
:func:`_check` refuses an unknown node. Every
public derivation of :mod:`network.record.derive` reads through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from network import ids
from network.record import models as m
from network.record import panel_roles, trust
from network.record.derive._common import (
    CLOSED,
    ROUTE_KINDS,
    Label,
    NodeFlags,
    ReviewState,
    TargetStatus,
    _removals_need_two,
    _TargetIndex,
    norm_date,
)
from network.record.derive._shared import root_vouched_ix, target_status_ix
from network.record.read.loader import Graph, Node, RecordFile, Target
from network.record.read.target_scan import TargetScan, scan_targets


class _Index:
    """Everything derived from one Graph, memoised (private; use the module functions)."""

    def __init__(self, g: Graph,
                 carry: tuple[_Index, list[RecordFile[m.Attestation]]] | None = None) -> None:
        """Index ``g``; with ``carry`` (the index of a graph ``g`` only adds attestations
        and merge records to, under the same keys, and the attestations it adds:
        :func:`carry_index`), the attestation and merge facts are taken from it and only
        the added records are read."""
        self.g = g
        self.now: str | None = norm_date(g.merges[-1].record.date) if g.merges else None
        self._attestation_facts(carry)
        self.unverified: set[str] = set(self.att_unverified)
        self._merge_facts(carry[0] if carry is not None else None)
        self._curators: dict[str, set[str]] = {}
        self._verified: dict[tuple[str, bool, bool], bool] = {}
        self.withdrawn: set[str] = set()
        # the few nodes of each target holding records read across targets (issue 17)
        self.scans: Mapping[str, TargetScan] = scan_targets(
            g, carry[0].scans if carry is not None else None)
        self.steward_records: dict[str, list[RecordFile[m.Steward]]] = {
            tid: [rf for rf in t.stewards if self._steward_verified(tid, rf)]
            for tid, t in g.targets.items()}
        self.panel: panel_roles.Panel | None = None  # steward records as filed, for now
        self.withdrawn = self._withdrawn()
        self.panel = panel_roles.derive_panel(self)  # D-32 v3.34: stewards in force
        self.unverified.update(self.panel.state.unverified)
        # each target's index on first use: a scoped graph (network/record/read/scoped.py)
        # reads the nodes of its own targets alone
        self.t = _TargetIndexes(self)
        self._status: dict[tuple[str, str], str] = {}
        self._by_closure: dict[tuple[str, str], bool] = {}
        self._closable: dict[tuple[str, str], bool] = {}
        self._shelved: dict[tuple[str, str], bool] = {}
        self._in_progress: set[tuple[str, tuple[str, str]]] = set()
        self._target_status: dict[str, TargetStatus] = {}
        self._reviews: dict[str, ReviewState | None] = {}
        self._routes: dict[tuple[str, str], list[str]] = {}
        self._text: dict[str, str] = {}
        self._dirs: dict[ids.NodeRef, str] = {}
        self._ready: dict[tuple[str, str], str | None] = {}
        self._facts: dict[tuple[str, str], tuple[int, list[str], list[tuple[str, int]]]] = {}
        self._flags: dict[tuple[str, str], NodeFlags] = {}
        self._claimable: dict[tuple[str, str], tuple[bool, str | None]] = {}
        self._labels: dict[tuple[str, str], Label] = {}
        #: what an incremental update learnt of the products derived from this graph,
        #: for the next update (network/record/products/incremental.py); never read by a derivation
        self.products_memo: dict[str, Any] = {}

    # -- basic facts ------------------------------------------------------------------

    def _attestation_facts(
            self, carried: tuple[_Index, list[RecordFile[m.Attestation]]] | None) -> None:
        """Merged (path, SHA-256) pairs, first attestation dates, attestations by node and
        the pass attestations no gate key signs (ruling 14); and, over every verdict, the
        targets of the attestations judged at each graph commit (``commit_targets``) and
        the latest timestamp's day (``att_latest_day``, ``""`` with none). Each
        attestation is judged alone, so a carried index's facts stand and only the
        attestations added are read."""
        atts = self.g.attestations
        if carried is None:
            self.merged: set[tuple[str, str]] = set()
            self.att_date: dict[str, str] = {}
            self.atts_by_node: dict[tuple[str, str], list[m.Attestation]] = {}
            self.att_unverified: set[str] = set()
            self.commit_targets: dict[str, frozenset[str]] = {}
            self.att_latest_day = ""
        else:
            carry, atts = carried
            self.merged = set(carry.merged)
            self.att_date = dict(carry.att_date)
            self.atts_by_node = dict(carry.atts_by_node)  # a list is copied before it grows
            self.att_unverified = set(carry.att_unverified)
            self.commit_targets = dict(carry.commit_targets)
            self.att_latest_day = carry.att_latest_day
        for att in atts:  # every verdict: what an incremental update plans by (issue 17)
            a = att.record
            self.commit_targets[a.graph_commit] = (
                self.commit_targets.get(a.graph_commit, frozenset())
                | attestation_targets(a))
            self.att_latest_day = max(self.att_latest_day, a.timestamp[:10])
        copied: set[tuple[str, str]] = set()
        passed = [att for att in atts if att.record.verdict == "pass"]
        signed = trust.gate_signed_paths(passed, self.g.keys)  # only a pass is a verdict
        for att in passed:
            a = att.record
            if att.path not in signed:
                self.att_unverified.add(att.path)
                continue
            key = (a.target, a.node)
            if carried is not None and key not in copied:
                copied.add(key)
                self.atts_by_node[key] = list(self.atts_by_node.get(key, ()))
            self.atts_by_node.setdefault(key, []).append(a)
            for art in a.artifacts:
                self.merged.add((art.path, art.sha256))
                prev = self.att_date.get(art.path)
                ts = norm_date(a.timestamp)
                if prev is None or ts < prev:
                    self.att_date[art.path] = ts

    def _merge_facts(self, carry: _Index | None) -> None:
        """Each merge's date, the first merge naming a path or a merge commit, the latest
        merge's day (``merge_latest_day``, ``""`` with none): ``carry``'s facts stand when
        the old merge log is a prefix of this one."""
        merges = self.g.merges
        n_old = len(carry.g.merges) if carry is not None else 0
        if carry is None or n_old > len(merges) or (
                n_old and merges[n_old - 1].path != carry.g.merges[-1].path):
            self.merge_seq_of: dict[str, int] = {}
            self.merge_date: dict[int, str] = {}
            self.merge_commit_seq: dict[str, int] = {}
            self.merge_latest_day = ""
        else:
            self.merge_seq_of = dict(carry.merge_seq_of)
            self.merge_date = dict(carry.merge_date)
            self.merge_commit_seq = dict(carry.merge_commit_seq)
            self.merge_latest_day = carry.merge_latest_day
            merges = merges[n_old:]
        for mr in merges:
            rec = mr.record
            self.merge_latest_day = max(self.merge_latest_day, rec.date[:10])
            self.merge_date[rec.seq] = norm_date(rec.date)
            self.merge_commit_seq.setdefault(rec.merge_commit, rec.seq)
            for p in rec.artifacts:
                self.merge_seq_of.setdefault(p, rec.seq)

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
            for n in self.scans[tid].acted:
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
        """The node's directory as a string (``network.ids.node_dir``), memoised: the
        ref's ids were checked when it was made, so it is joined as text."""
        d = self._dirs.get(n.ref)
        if d is None:
            d = self._dirs[n.ref] = f"targets/{n.ref.target}/nodes/{n.ref.node}"
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
        # only a judgment of the node's own files re-attests it: a target-level record
        # (an approach, a re-pin, a binding) is attested under the root too, and checks
        # nothing of the root's proof
        inside = f"{self.dir_of(self.node(tid, nid))}/"
        for a in self.atts_by_node.get((tid, nid), []):
            seq = self.merge_commit_seq.get(a.graph_commit)
            if seq is not None and seq >= since_seq and any(
                    x.path.startswith(inside) for x in a.artifacts):
                return True
        return False

    def dormant(self, tid: str) -> bool:
        return target_status_ix(self, tid).status == "dormant"


class _TargetIndexes(dict[str, _TargetIndex]):
    """Target id → its :class:`_TargetIndex`, each built when first read (issue 17: an
    incremental update reads only the targets a merge touched). Building one may list
    shelvings as unverified, so :meth:`all` builds every one before ``unverified`` is
    read whole."""

    def __init__(self, ix: _Index) -> None:
        super().__init__()
        self._ix = ix

    def __missing__(self, tid: str) -> _TargetIndex:
        ti = self[tid] = self._ix._target_index(self._ix.g.targets[tid])
        return ti

    def all(self) -> None:
        """Build the index of every target not built yet."""
        for tid in self._ix.g.targets:
            if tid not in self:
                self[tid]  # built by __missing__


def _ix(graph: Graph) -> _Index:
    ix = index_if_built(graph)
    return ix if ix is not None else _remember(graph, _Index(graph))


def _remember(graph: Graph, ix: _Index) -> _Index:
    """Keep ``ix`` on ``graph`` itself: the two are freed together (a module-level cache
    would keep every graph ever indexed alive, since an index holds its graph)."""
    graph.derive_index = ix
    return ix


def carry_index(old: Graph, new: Graph, added: set[str]) -> None:
    """Build ``new``'s index from ``old``'s, when ``old``'s is built, the keys are the
    same and ``new``'s attestations are ``old``'s and those at the paths ``added`` (issue
    17: an incremental update then reads only the attestations and merge records a merge
    added). The caller vouches that no attestation or merge record of ``old`` changed or
    went (:func:`network.record.products.incremental.plan_update` plans such a change in full);
    an index already built for ``new`` is kept."""
    if index_if_built(new) is not None:
        return
    prev = index_if_built(old)
    if prev is None or old.keys != new.keys:
        return
    fresh = [rf for rf in new.attestations if rf.path in added]
    if len(new.attestations) != len(old.attestations) + len(fresh):
        return
    _remember(new, _Index(new, carry=(prev, fresh)))


def index_if_built(graph: Graph) -> _Index | None:
    """``graph``'s memoised index when one is built, else None (never builds one)."""
    ix = graph.derive_index
    return ix if isinstance(ix, _Index) and ix.g is graph else None


def attestation_targets(att: m.Attestation) -> frozenset[str]:
    """The targets an attestation names: its own and each artifact path's
    (``targets/<t>/...``)."""
    out = {att.target}
    for a in att.artifacts:
        parts = a.path.split("/")
        if len(parts) >= 3 and parts[0] == "targets":
            out.add(parts[1])
    return frozenset(out)


def _check(ix: _Index, target: str, node: str) -> None:
    from network.errors import LemmataError

    if not ix.has(target, node):
        raise LemmataError("unknown-node", f"no node {target}/{node}")
