"""Step 2's panel rules (D-32 v3.34) and approval rules (D-3 v3.31/v3.33, ruling 11): who
may open a motion, cast a vote, record a write-up event or approve sections of words.

Called from :func:`network.gate.records.actors.actor_findings` for each added ``motion/v1``,
``vote/v1``, ``writeup/v2`` and ``approval/v1`` record, against the base graph; "now" is
the base's merge log (ruling 2). Each refusal has its own code:

* ``motion-not-member``: a motion by someone neither on the target's panel nor its curator;
* ``motion-subject-invalid``: an invite naming no invitee or one already on the panel, a
  verify-writeup naming no write-up of the target, an invitee or subject on a kind that
  takes none;
* ``vote-motion-unknown``: a vote naming no motion of the target at base;
* ``vote-not-member``: a vote by someone neither on the panel as it stood when the motion
  opened nor a curator;
* ``vote-duplicate``: a second vote by one voter on one motion (at base or in the pull
  request);
* ``vote-window-closed``: a vote once the motion's window has closed on the merge log or
  the motion is decided;
* ``writeup-unknown``: a write-up event naming no write-up of the target, or an opening
  record that is neither drafted nor written;
* ``writeup-signer-not-steward``: a ``signed`` event by someone neither steward nor
  curator;
* ``writeup-not-author``: an event only a listed author records, by anyone else;
* ``approval-words-invalid``: an approval naming no standing version of its node, other
  bytes than the version's, or a section the version lacks.

Signatures are judged as every role act is (:func:`network.record.trust.
check_role_signature`: ``role-act-unsigned``, ``role-key-unbound``,
``role-signature-invalid``).
"""

from __future__ import annotations

from network.errors import LemmataError, define
from network.gate.result import Diagnostic
from network.record import approvals, derive, panel, trust
from network.record import models as m
from network.record.read.loader import Graph

define("motion-not-member", 2, 403,
       "A motion is opened by a member of the target's panel (a steward in force) or a "
       "curator (D-32 v3.34).",
       "Ask a steward of the target to open it, or become one (POST /stewards).")
define("motion-subject-invalid", 2, 422,
       "The motion does not name what it would do: an invite names an invitee not already "
       "on the panel, a verify-writeup names a write-up of the target (its first record's "
       "path), and other kinds name neither (D-32 v3.34).",
       "Name `invitee` for an invite and `subject` for a verify-writeup motion; read the "
       "target's row of targets/index.json for its panel and write-ups.")
define("vote-motion-unknown", 2, 422,
       "The vote names no motion of this target on the record.",
       "Name the graph path of a merged motion of the target (its row of "
       "targets/index.json lists them).")
define("vote-not-member", 2, 403,
       "Only a member of the panel as it stood when the motion opened, or a curator of the "
       "target, votes on it (D-32 v3.34).",
       "Leave the vote to the panel; a steward admitted later votes on later motions.")
define("vote-duplicate", 2, 409,
       "This voter has already voted on this motion: one vote per member (D-32 v3.34).",
       "Nothing to do: the first vote stands.")
define("vote-window-closed", 2, 409,
       "The motion's window (vote_window_days after it opened, on the merge log) has "
       "closed, or the motion is already decided (D-32 v3.34).",
       "Open a new motion if the question is still live.")
define("writeup-unknown", 2, 422,
       "The write-up event names no write-up of this target, or a write-up is opened by an "
       "event other than drafted or written (D-32 v3.34).",
       "Open a write-up with event drafted or written, then name its path in `writeup`.")
define("writeup-signer-not-steward", 2, 403,
       "A write-up is signed by a steward of the target or a curator (D-32 v3.34).",
       "Become a steward of the target first (POST /stewards).")
define("writeup-not-author", 2, 403,
       "Only a listed author of the write-up (its opener or a steward who signed it) "
       "records its release, arXiv identifier, journal, acceptance, rejection, withdrawal "
       "or a new written version (D-32 v3.34).",
       "Ask one of the write-up's listed authors to record it.")
define("approval-words-invalid", 2, 422,
       "The approval does not name a standing gloss or explainer version of its node by "
       "its exact bytes, or it names a section the version does not have (D-3 v3.31, "
       "ruling 11).",
       "Name the version's graph path, its SHA-256, and 0-based section indices within it; "
       "file the approval under the version's own node.")


def _judge(base: Graph, rec: m.Motion | m.Vote | m.Writeup | m.Approval, actor: str,
           holds: trust.RoleCheck, path: str, what: str) -> list[Diagnostic]:
    now = derive.now(base)
    for when in dict.fromkeys(d for d in (rec.date, now) if d is not None):
        try:
            trust.check_role_signature(rec, rec.signature, actors=frozenset({actor}),
                                       holds=holds, at_date=when, keys=base.keys,
                                       identities=base.identities)
        except LemmataError as exc:
            return [Diagnostic(exc.code, f"{what}: {exc.detail}", path)]
    return []


def _base_date(base: Graph, rec_date: str) -> str:
    return derive.now(base) or derive.norm_date(rec_date)


def findings(base: Graph, tid: str, path: str, rec: m.Record,
             batch: list[tuple[str, m.Record]]) -> list[Diagnostic]:
    """Every panel or approval finding on the record ``rec`` added at ``path`` under target
    ``tid`` (``batch``: every record the pull request adds, for duplicates within it);
    empty for another kind. See the module docstring for the codes."""
    if isinstance(rec, m.Motion):
        return _motion(base, tid, path, rec)
    if isinstance(rec, m.Vote):
        return _vote(base, tid, path, rec, batch)
    if isinstance(rec, m.Writeup):
        return _writeup(base, tid, path, rec)
    if isinstance(rec, m.Approval):
        return _approval(base, tid, path, rec)
    return []


def _motion(base: Graph, tid: str, path: str, rec: m.Motion) -> list[Diagnostic]:
    when = _base_date(base, rec.date)
    if rec.target != tid:
        return [Diagnostic("motion-subject-invalid", f"target {rec.target!r} is not the "
                           f"folder's {tid!r}", path)]
    if not panel.may_open(base, tid, rec.by, when):
        return [Diagnostic("motion-not-member", f"{rec.by} is neither on {tid}'s panel "
                           f"({', '.join(panel.panel_at(base, tid, when)) or 'empty'}) nor "
                           "its curator", path)]
    bad = None
    if rec.kind == "invite":
        if rec.invitee is None or rec.subject is not None:
            bad = "an invite names an invitee and no subject"
        elif rec.invitee in panel.panel_at(base, tid, when):
            bad = f"{rec.invitee} is already on the panel"
    elif rec.kind == "verify-writeup":
        if rec.invitee is not None or rec.subject is None or \
                panel.writeup_stage(base, tid, rec.subject) is None:
            bad = "a verify-writeup motion names a write-up of the target as its subject"
    elif rec.invitee is not None or rec.subject is not None:
        bad = f"a {rec.kind} motion names neither an invitee nor a subject"
    if bad is not None:
        return [Diagnostic("motion-subject-invalid", bad, path)]
    return _judge(base, rec, rec.by, lambda who, d: panel.may_open(base, tid, who, d), path,
                  "a motion is a panel member's or curator's signed act")


def _vote(base: Graph, tid: str, path: str, rec: m.Vote,
          batch: list[tuple[str, m.Record]]) -> list[Diagnostic]:
    mf = panel.motion_file(base, tid, rec.motion)
    if mf is None or not derive._ix(base).present(mf.path):
        return [Diagnostic("vote-motion-unknown", f"no motion {rec.motion!r} of {tid}", path)]
    if not panel.may_vote(base, tid, mf, rec.by):
        return [Diagnostic("vote-not-member", f"{rec.by} was not on {tid}'s panel when "
                           f"{rec.motion} opened, nor is a curator", path)]
    st = panel.motion_state(base, tid, rec.motion)
    assert st is not None
    if st["state"] == "void":  # its opener held no seat, or its signature fails
        return [Diagnostic("vote-motion-unknown", f"{rec.motion} is no standing motion: "
                           "its opener was neither on the panel nor a curator", path)]
    earlier = [v["path"] for v in st["votes"] if v["by"] == rec.by]
    earlier += [p for p, r in batch if p != path and isinstance(r, m.Vote)
                and r.motion == rec.motion and r.by == rec.by and p < path]
    if earlier:
        return [Diagnostic("vote-duplicate", f"{rec.by} already voted on {rec.motion}: "
                           f"{earlier[0]}", path)]
    now = derive.now(base)
    if st["state"] != "open" or (now is not None and now >= st["closes"]):
        return [Diagnostic("vote-window-closed", f"{rec.motion} opened {st['opened']} and "
                           f"closed {st['closes']} ({st['state']}); the record's now is "
                           f"{now}", path)]
    return _judge(base, rec, rec.by, lambda who, _d: panel.may_vote(base, tid, mf, who),
                  path, "a vote is a panel member's signed act")


def _writeup(base: Graph, tid: str, path: str, rec: m.Writeup) -> list[Diagnostic]:
    anyone: trust.RoleCheck = lambda _w, _d: True
    if rec.target != tid:
        return [Diagnostic("writeup-unknown", f"target {rec.target!r} is not the folder's "
                           f"{tid!r}", path)]
    if rec.writeup is None:
        if rec.event not in ("drafted", "written"):
            return [Diagnostic("writeup-unknown", f"a write-up opens with drafted or written, "
                               f"not {rec.event}", path)]
        return _judge(base, rec, rec.by, anyone, path, "a write-up record is signed")
    st = panel.writeup_stage(base, tid, rec.writeup)
    if st is None or rec.event == "drafted":
        return [Diagnostic("writeup-unknown", f"no write-up {rec.writeup!r} of {tid} (or a "
                           "later record that is drafted)", path)]
    if rec.event == "signed":
        if not derive.holds_role(base, tid, rec.by, _base_date(base, rec.date)):
            return [Diagnostic("writeup-signer-not-steward", f"{rec.by} is neither a steward "
                               f"of {tid} nor a curator", path)]
        return _judge(base, rec, rec.by, lambda who, d: derive.holds_role(base, tid, who, d),
                      path, "a write-up is signed by a steward or curator")
    if rec.by not in st["authors"]:
        return [Diagnostic("writeup-not-author", f"{rec.by} is not a listed author of "
                           f"{rec.writeup} ({', '.join(st['authors'])})", path)]
    return _judge(base, rec, rec.by, anyone, path, "a write-up record is signed")


def _approval(base: Graph, tid: str, path: str, rec: m.Approval) -> list[Diagnostic]:
    parts = path.split("/")
    t = base.targets.get(tid)
    node = t.nodes.get(parts[3]) if t is not None and len(parts) > 3 else None
    ver = approvals.version_of(node, rec.words) if node is not None else None
    if ver is None or not derive._ix(base).present(ver.path):
        return [Diagnostic("approval-words-invalid", f"{rec.words!r} is no standing version "
                           "of this node", path)]
    if ver.sha256 != rec.words_sha256:
        return [Diagnostic("approval-words-invalid", f"{rec.words} hashes to {ver.sha256}, "
                           f"not {rec.words_sha256}", path)]
    n = len(ver.record.sections)
    if max(rec.sections) >= n:
        return [Diagnostic("approval-words-invalid", f"{rec.words} has {n} section(s), "
                           f"0 to {n - 1}", path)]
    return _judge(base, rec, rec.by, lambda who, d: derive.holds_role(base, tid, who, d),
                  path, "an approval is a steward's or curator's signature")
