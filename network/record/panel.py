"""The panel of a target: motions, votes and write-ups, all derived from the record
(D-32 v3.34; Foundation rulings 1, 2 and 14).

A target's panel is the set of its stewards whose records are in force
(:func:`network.record.derive.holds_role` with stewards only). It decides by motions
(``motion/v1`` under ``targets/<t>/panel/motions/``), each opened by a panel member or a
curator, voted on by signed ``vote/v1`` records (``targets/<t>/panel/votes/``):

* A motion opens on its merge date (the merge log, ruling 2; the record's own date when
  the log does not name it) and is decided when ``vote_window_days`` have passed on the
  merge log (:func:`network.record.derive.now`).
* The panel is counted as it stood when the motion opened. On ``significance`` and
  ``threshold`` motions the votes of stewards holding proof credit on the target (an
  active ``proof`` ledger line) are not counted; if no counted voter remains, the target's
  curators vote in the panel's place (and so for a target with no steward at all).
* Only votes cast count, one per voter (the first, in record order), merged before the
  window closes, signed by their voter. It passes when the yes votes are more than
  ``vote_threshold`` of the votes counted (0.5: a majority), at least one vote was counted,
  and, when the voting body has three or more members, at least ``vote_minimum`` were.
* A motion on a target whose voting body is one steward passes on that steward's own act:
  opening it, or a yes vote. So a lone steward's invitation passes at once and the
  invitee's acceptance (the steward form) is all that remains.

Write-ups (``writeup/v2`` under ``targets/<t>/writeups/``) hold one stage each, derived by
:func:`writeup_stage` from ``drafted`` up to ``accepted``, or ``withdrawn``.

Every number comes from policy.json through :func:`panel_policy`, the one accessor.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from network.errors import LemmataError
from network.record import derive, trust
from network.record import models as m
from network.record.read.loader import Graph, RecordFile

MOTION_KINDS = ("invite", "verify-writeup", "threshold", "significance")
CREDIT_BARRED = frozenset({"significance", "threshold"})
"""Motions on which a proof-credit holder's vote is not counted (D-32 v3.34, D-21 v3.17)."""
WRITEUP_STAGES = ("drafted", "written", "steward-signed", "panel-verified", "released",
                  "on-arxiv", "submitted", "accepted")
"""A write-up's stages in order; ``withdrawn`` stands beside them (D-32 v3.34)."""
AUTHOR_EVENTS = frozenset({"released", "on-arxiv", "submitted", "accepted", "rejected",
                           "withdrawn"})
"""Write-up events only a listed author may record."""



@dataclass(frozen=True)
class PanelPolicy:
    """The panel's numbers (D-32 v3.34: "every number below is a value in policy.json")."""

    vote_window_days: int
    vote_threshold: float
    vote_minimum: int

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"vote_window_days": self.vote_window_days,
                "vote_threshold": self.vote_threshold, "vote_minimum": self.vote_minimum}


def panel_policy(graph: Graph, target: str | None = None) -> PanelPolicy:
    """The panel's policy values: policy.json's ``vote_window_days`` (14),
    ``vote_threshold`` (0.5) and ``vote_minimum`` (2), with ``target``'s target.yaml
    overrides (ruling 13), read through the one accessor of the roles' numbers
    (:func:`network.record.panel_roles.policy_numbers`)."""
    from network.record.panel_roles import policy_numbers

    n = policy_numbers(graph, target)
    return PanelPolicy(n.vote_window_days, n.vote_threshold, n.vote_minimum)


def _parse(date: str) -> dt.datetime:
    return dt.datetime.strptime(derive.norm_date(date), "%Y-%m-%dT%H:%M:%SZ")


def _fmt(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _dated(graph: Graph, path: str, own: str) -> str:
    """When a record took effect: its merge date, else its attestation's, else its own."""
    return derive._ix(graph).date_of(path) or derive.norm_date(own)


def panel_at(graph: Graph, target: str, date: str) -> list[str]:
    """The target's panel on ``date`` (ISO-8601 date or timestamp): the pseudonyms of the
    stewards (not curators) whose stewardship stood on it, in join order.

    Read off the one derivation of stewardships (:func:`network.record.derive.panel_state`,
    D-32 v3.33/v3.34), so a steward who joined by a ``steward/v4`` act (the steward form)
    counts exactly as one with a ``steward/v3`` record; the panel in force now is
    :func:`network.record.derive.panel_of`'s (issue 40: one steward fact). Raises nothing:
    an unknown target has no panel (``[]``)."""
    return [s.pseudonym for s in derive.panel_state(graph).at(target, date)]


def credit_holders(graph: Graph, target: str) -> frozenset[str]:
    """Identities holding proof credit on ``target``: an unrevoked ``proof`` ledger line."""
    ix = derive._ix(graph)
    revoked = {rf.record.revokes for rf in graph.ledger
               if isinstance(rf.record, m.Revocation) and ix.present(rf.path)}
    return frozenset(rf.record.identity for rf in graph.ledger
                     if isinstance(rf.record, m.LedgerLine) and rf.record.line == "proof"
                     and rf.record.target == target and rf.path not in revoked
                     and ix.present(rf.path))


def _signed(graph: Graph, rec: Any, actor: str, date: str, holds: trust.RoleCheck) -> bool:
    try:
        trust.check_role_signature(rec, rec.signature, actors=frozenset({actor}), holds=holds,
                                   at_date=date, keys=graph.keys, identities=graph.identities)
    except LemmataError:
        return False
    return True


def motion_file(graph: Graph, target: str, path: str) -> RecordFile[m.Motion] | None:
    """The motion record at ``path`` of ``target``, or None (unknown target or path)."""
    t = graph.targets.get(target)
    if t is None:
        return None
    return next((rf for rf in t.motions if rf.path == path), None)


def may_open(graph: Graph, target: str, who: str, date: str) -> bool:
    """Whether ``who`` may open a motion on ``target`` on ``date``: a panel member or a
    curator (D-32 v3.34)."""
    return who in panel_at(graph, target, date) or who in derive.curators_of(graph, target)


def voting_body(graph: Graph, target: str, rf: RecordFile[m.Motion]) -> tuple[list[str], bool]:
    """``(counted voters, curators in the panel's place)`` of a motion: the panel as it
    stood when it opened, less proof-credit holders on significance and threshold motions;
    the target's curators when none remains."""
    opened = _dated(graph, rf.path, rf.record.date)
    body = panel_at(graph, target, opened)
    if rf.record.kind in CREDIT_BARRED:
        barred = credit_holders(graph, target)
        body = [w for w in body if w not in barred]
    if body:
        return body, False
    return sorted(derive.curators_of(graph, target)), True


def may_vote(graph: Graph, target: str, rf: RecordFile[m.Motion], who: str) -> bool:
    """Whether ``who`` may cast a vote on the motion: a member of the panel as it stood
    when it opened, or a curator of the target (counted only in the panel's place)."""
    opened = _dated(graph, rf.path, rf.record.date)
    return who in panel_at(graph, target, opened) or who in derive.curators_of(graph, target)


def motion_state(graph: Graph, target: str, path: str) -> dict[str, Any] | None:
    """The derived state of the motion at ``path`` (D-32 v3.34), or None when ``path`` is
    no motion of ``target``.

    Returns:
        ``{path, kind, by, text, subject, invitee, opened, closes, voters, in_place,
        votes: [{path, by, vote, date, counted}], yes, no, state, decided}`` where
        ``state`` is ``open``, ``passed``, ``failed`` or ``void`` (a motion whose opener
        was neither a panel member nor a curator, or whose signature does not verify) and
        ``decided`` the date it was decided (None while open). Dates are ISO-8601 UTC.
    """
    rf = motion_file(graph, target, path)
    if rf is None:
        return None
    ix = derive._ix(graph)
    rec = rf.record
    pol = panel_policy(graph, target)
    opened = _dated(graph, rf.path, rec.date)
    closes = _fmt(_parse(opened) + dt.timedelta(days=pol.vote_window_days))
    voters, in_place = voting_body(graph, target, rf)
    out: dict[str, Any] = {
        "path": path, "kind": rec.kind, "by": rec.by, "text": rec.text,
        "subject": rec.subject, "invitee": rec.invitee, "opened": opened, "closes": closes,
        "voters": voters, "in_place": in_place, "votes": [], "yes": 0, "no": 0,
        "state": "open", "decided": None}
    valid = ix.present(rf.path) and _signed(
        graph, rec, rec.by, rec.date, lambda who, d: may_open(graph, target, who, d))
    if not valid:
        out["state"] = "void"
        return out
    t = graph.targets[target]
    seen: set[str] = set()
    counted: list[tuple[str, str, str]] = []  # (date, by, vote)
    votes = sorted((v for v in t.votes if v.record.motion == path and ix.present(v.path)),
                   key=lambda v: (_dated(graph, v.path, v.record.date), v.path))
    for v in votes:
        when = _dated(graph, v.path, v.record.date)
        ok = (v.record.by not in seen and when <= closes
              and v.record.by in voters and _signed(
                  graph, v.record, v.record.by, v.record.date,
                  lambda who, _d: may_vote(graph, target, rf, who)))
        if ok:
            seen.add(v.record.by)
            counted.append((when, v.record.by, v.record.vote))
        out["votes"].append({"path": v.path, "by": v.record.by, "vote": v.record.vote,
                             "date": when, "counted": ok})
    yes = sum(1 for _d, _w, vote in counted if vote == "yes")
    out["yes"], out["no"] = yes, len(counted) - yes
    if len(voters) == 1 and not in_place:
        lone = voters[0]
        if rec.by == lone:
            out["state"], out["decided"] = "passed", opened
            return out
        first = next(((d, vote) for d, w, vote in counted if w == lone), None)
        if first is not None and first[1] == "yes":
            out["state"], out["decided"] = "passed", first[0]
            return out
    now = derive.now(graph)
    if now is None or now < closes:
        return out
    n = len(counted)
    enough = n >= 1 and (len(voters) < 3 or n >= pol.vote_minimum)
    out["state"] = "passed" if enough and yes > pol.vote_threshold * n else "failed"
    out["decided"] = closes
    return out


def motions(graph: Graph, target: str) -> list[dict[str, Any]]:
    """Every motion of ``target`` with its derived state (:func:`motion_state`), in record
    order (opened, path). Raises: KeyError for an unknown target."""
    t = graph.targets[target]
    rows = [motion_state(graph, target, rf.path) for rf in t.motions
            if derive._ix(graph).present(rf.path)]
    out = [r for r in rows if r is not None]
    out.sort(key=lambda r: (r["opened"], r["path"]))
    return out


def motion_passed(graph: Graph, target: str, motion_path: str) -> bool:
    """Whether the motion at ``motion_path`` of ``target`` has passed (D-32 v3.34)."""
    st = motion_state(graph, target, motion_path)
    return st is not None and st["state"] == "passed"


def passed_invitation(graph: Graph, target: str, invitee: str) -> str | None:
    """The path of the first passed ``invite`` motion of ``target`` naming ``invitee``, or
    None (D-32 v3.34: a new steward joins by a passed motion and their own acceptance)."""
    t = graph.targets.get(target)
    if t is None:
        return None
    for st in motions(graph, target):
        if st["kind"] == "invite" and st["invitee"] == invitee and st["state"] == "passed":
            return str(st["path"])
    return None


def open_motions(graph: Graph, pseudonym: str) -> list[dict[str, Any]]:
    """What waits for ``pseudonym`` on every target's panel: open motions they may cast a
    counted vote on and have not voted on, as ``/me`` items ``{target, path, what,
    since}`` (``since`` the motion's opening date), in target then record order."""
    out: list[dict[str, Any]] = []
    for tid in sorted(graph.targets):
        for st in motions(graph, tid):
            if st["state"] != "open" or pseudonym not in st["voters"]:
                continue
            if any(v["by"] == pseudonym for v in st["votes"]):
                continue
            out.append({"target": tid, "path": st["path"],
                        "what": f"vote on the {st['kind']} motion by {st['by']} "
                                f"(closes {st['closes']})", "since": st["opened"]})
    return out


# --- write-ups ---------------------------------------------------------------------------


def _openers(graph: Graph, target: str) -> list[RecordFile[m.Writeup]]:
    ix = derive._ix(graph)
    return [rf for rf in graph.targets[target].writeups
            if rf.record.writeup is None and rf.record.event in ("drafted", "written")
            and ix.present(rf.path)]


def writeup_stage(graph: Graph, target: str, path: str) -> dict[str, Any] | None:
    """The derived standing of the write-up opened by the record at ``path`` (D-32 v3.34),
    or None when ``path`` opens no write-up of ``target``.

    Rules: the opening record (``drafted`` or ``written``, signed by its ``by``) sets
    drafted or written; a ``written`` record by a listed author makes it written; a
    ``signed`` record by a steward of the target or a curator on its date makes it
    steward-signed and its signer a listed author (D-32: "every steward who has signed the
    verified write-up or a section of it is a coauthor"); a passed ``verify-writeup``
    motion naming it makes it panel-verified; once verified, a ``released`` record by every
    listed author makes it released; then ``on-arxiv`` (with ``arxiv``), ``submitted``
    (with ``journal``) and ``accepted`` by a listed author, each only after the one before,
    a ``rejected`` record returning it to on-arxiv; a ``withdrawn`` record by a listed
    author withdraws it. Records by anyone else, or unsigned, are listed as not counted.

    Returns:
        ``{path, title, url, by, opened, stage, authors, signers, verified_by,
        records: [{path, event, by, date, counted}], arxiv, journal, doi}``.
    """
    opener = next((rf for rf in _openers(graph, target) if rf.path == path), None)
    if opener is None:
        return None
    ix = derive._ix(graph)
    o = opener.record
    opened = _dated(graph, opener.path, o.date)
    anyone: trust.RoleCheck = lambda _w, _d: True
    if not _signed(graph, o, o.by, o.date, anyone):
        return None
    recs = sorted((rf for rf in graph.targets[target].writeups
                   if rf.record.writeup == path and ix.present(rf.path)),
                  key=lambda rf: (_dated(graph, rf.path, rf.record.date), rf.path))
    authors: list[str] = [o.by]
    signers: list[str] = []
    stage: str = o.event
    rows: list[dict[str, Any]] = []
    counted: list[RecordFile[m.Writeup]] = []
    for rf in recs:  # signatures first: they fix who the listed authors are
        r = rf.record
        ok = False
        if r.event == "signed":
            ok = _signed(graph, r, r.by, r.date,
                         lambda who, d: derive.holds_role(graph, target, who, d))
            if ok and r.by not in signers:
                signers.append(r.by)
                if r.by not in authors:
                    authors.append(r.by)
        rows.append({"path": rf.path, "event": r.event, "by": r.by,
                     "date": _dated(graph, rf.path, r.date), "counted": ok})
        if ok:
            counted.append(rf)
    for row, rf in zip(rows, recs, strict=True):
        r = rf.record
        if r.event == "signed" or r.event == "drafted":
            continue
        ok = r.by in authors and _signed(graph, r, r.by, r.date, anyone)
        row["counted"] = ok
        if ok:
            counted.append(rf)
    events = sorted(counted, key=lambda rf: (_dated(graph, rf.path, rf.record.date),
                                             rf.path))
    if any(rf.record.event == "written" for rf in events):
        stage = "written"
    if signers:
        stage = "steward-signed"
    verified_by = next((st["path"] for st in motions(graph, target)
                        if st["kind"] == "verify-writeup" and st["subject"] == path
                        and st["state"] == "passed"), None)
    arxiv = journal = doi = None
    withdrawn = False
    if verified_by is not None:
        stage = "panel-verified"
        released = {rf.record.by for rf in events if rf.record.event == "released"}
        if set(authors) <= released:
            stage = "released"
            for rf in events:
                r = rf.record
                if r.event == "withdrawn":
                    withdrawn = True
                elif r.event == "on-arxiv" and r.arxiv and stage == "released":
                    stage, arxiv = "on-arxiv", r.arxiv
                elif r.event == "submitted" and r.journal and stage == "on-arxiv":
                    stage, journal = "submitted", r.journal
                elif r.event == "accepted" and stage == "submitted":
                    stage, doi = "accepted", r.doi
                elif r.event == "rejected" and stage in ("submitted", "accepted"):
                    stage = "on-arxiv"
    if any(rf.record.event == "withdrawn" for rf in events):
        withdrawn = True
    return {"path": path, "title": o.title, "url": o.url, "by": o.by, "opened": opened,
            "stage": "withdrawn" if withdrawn else stage, "authors": authors,
            "signers": signers, "verified_by": verified_by, "records": rows,
            "arxiv": arxiv, "journal": journal, "doi": doi}


def writeups(graph: Graph, target: str) -> list[dict[str, Any]]:
    """Every write-up of ``target`` (:func:`writeup_stage`), in record order (opened,
    path). Raises: KeyError for an unknown target."""
    graph.targets[target]
    rows = [writeup_stage(graph, target, rf.path) for rf in _openers(graph, target)]
    out = [r for r in rows if r is not None]
    out.sort(key=lambda r: (r["opened"], r["path"]))
    return out


def shown_writeup(rows: list[dict[str, Any]]) -> str | None:
    """The write-up the target page shows: the highest stage, the newest within a stage
    (D-32 v3.34: this ranks documents, never people); None when none stands."""
    live = [r for r in rows if r["stage"] != "withdrawn"]
    if not live:
        return None
    best = max(live, key=lambda r: (WRITEUP_STAGES.index(r["stage"]), r["opened"], r["path"]))
    return str(best["path"])


def target_panel(graph: Graph, target: str) -> dict[str, Any]:
    """The panel, its motions and the write-ups, for the target's row of
    targets/index.json (D-35 v3.34: "Reads need nothing").

    Returns:
        ``{panel: {members, policy}, motions: [...], writeups: [...], writeup_shown}``
        with members the panel in force as of :func:`network.record.derive.now`, in
        join order: exactly the pseudonyms of :func:`network.record.derive.panel_of`,
        the stewardships the target page lists (issue 40: one steward fact; D-32
        v3.33/v3.34).

    Raises:
        KeyError: no such target.
    """
    members = [s.pseudonym for s in derive.panel_of(graph, target)]
    rows = writeups(graph, target)
    return {"panel": {"members": members, "policy": panel_policy(graph, target).to_dict()},
            "motions": motions(graph, target), "writeups": rows,
            "writeup_shown": shown_writeup(rows)}


def unverified_records(graph: Graph, target: str) -> set[str]:
    """Paths of ``target``'s motions, votes, write-up records and approvals whose
    signature does not verify for their actor in the role the act needs (ruling 14):
    listed by :func:`network.record.unverified.unverified`; none of them counts."""
    from network.record import approvals

    ix = derive._ix(graph)
    t = graph.targets[target]
    anyone: trust.RoleCheck = lambda _w, _d: True
    out: set[str] = set()
    for rf in t.motions:
        if not _signed(graph, rf.record, rf.record.by, rf.record.date,
                       lambda who, d: may_open(graph, target, who, d)):
            out.add(rf.path)
    def seat(mf: RecordFile[m.Motion]) -> trust.RoleCheck:
        return lambda who, _d: may_vote(graph, target, mf, who)

    for vf in t.votes:
        mf = motion_file(graph, target, vf.record.motion)
        if mf is None or not _signed(graph, vf.record, vf.record.by, vf.record.date,
                                     seat(mf)):
            out.add(vf.path)
    for wf in t.writeups:
        if not _signed(graph, wf.record, wf.record.by, wf.record.date, anyone):
            out.add(wf.path)
    for n in t.nodes.values():
        for af in n.approvals:
            if approvals.version_of(n, af.record.words) is not None and not ix.role_signed(
                    af.path, af.record, af.record.by, af.record.date, target):
                out.add(af.path)
    return out

