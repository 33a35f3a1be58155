"""Stewards in force: a target's panel, derived from its steward records (D-32 v3.17,
v3.33, v3.34; D-6 v3.17; D-22 v3.33).

A target's panel is the set of its stewards whose records are in force: a join
(``steward/v3`` under ``stewards/<pseudonym>.yaml``, or ``steward/v4`` under
``steward-acts/<ts>-<pseudonym>.yaml``) not ended by the steward's step-down, by a
curator's withdrawal of a v3 record, or by lapse: no signed act on the target for
``steward_lapse_months``. Every date is the merge log's (ruling 2); a record not in the
log (a work tree, a pull request judged against its base) is dated by its own field.

Admission (D-32 v3.33/v3.34), judged by :func:`act_finding` for the gate and by the
derivation alike, so what step 2 admits is what this module counts:

- the first steward of a target is admitted under ``steward_admission``: ``open`` lets
  them admit themselves (``admitted_by: self``, signed by the steward, by SSH or through
  the site's approval key); ``reviewed`` needs a curator of the target, named in
  ``admitted_by`` and signing;
- once a target has a steward, a new one joins by a passed invitation motion and their own
  acceptance (``admitted_by: panel`` and ``invitation``) or by a curator adding them;
- no person holds more than ``steward_cap`` stewardships at once;
- a step-down is the steward's own act, and only of a stewardship in force.

The numbers are policy.json's (:func:`policy_numbers`, policy/v2; a policy/v1 graph reads
the defaults D-32 v3.34 names). Whether an invitation motion passed is the panel's motion
derivation's to say; it reaches this module as an :data:`InvitationJudge` through
:func:`invitation_passed`, and until motion records exist no motion can have passed.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from network.errors import define
from network.record import models as m
from network.record import trust

if TYPE_CHECKING:
    from network.record.read.loader import Graph, Node, RecordFile
    from network.record.read.target_scan import TargetScan

define("steward-already-in-force", 2, 409,
       "A steward join names someone who already stands as a steward of the target "
       "(D-32 v3.34).",
       "Nothing to do: the stewardship is in force. Step down first to change its words.")
define("steward-cap-reached", 2, 409,
       "A steward join would give the person more stewardships in force than policy.json's "
       "steward_cap (D-32 v3.34).",
       "Step down from one of your stewardships first (POST /stewards action step-down).")
define("steward-invitation-required", 2, 403,
       "A target that already has a steward admits a new one only by a passed invitation "
       "motion and the invitee's acceptance, or by a curator adding them (D-32 v3.34).",
       "Ask the target's panel to invite you (POST /motions kind invite), then accept the "
       "invitation, or ask a curator of the target to add you.")
define("steward-invitation-unknown", 2, 403,
       "A steward join by invitation names no passed invite motion of the target for this "
       "invitee (D-32 v3.34).",
       "Name the graph path of the invite motion that passed for you on this target; until "
       "it has passed, wait for its window to close.")
define("steward-admission-reviewed", 2, 403,
       "policy.json sets steward_admission: reviewed, so a first steward is admitted by a "
       "curator of the target, named in admitted_by and signing the record (D-32 v3.33).",
       "Ask a curator of the target to admit you; they check your identity (D-22) and sign.")
define("steward-admitted-by-not-curator", 2, 403,
       "A steward record's admitted_by names someone who does not curate the target "
       "(D-32 v3.33/v3.34).",
       "admitted_by is self (open admission), panel (an accepted invitation) or a curator "
       "of the target (curators.json).")
define("steward-act-not-own", 2, 403,
       "A steward act is signed by someone other than the steward it names: a join or "
       "step-down is the steward's own act, and a curator's admission is signed by the "
       "curator admitted_by names (D-32 v3.17/v3.33).",
       "Sign your own join or step-down; a curator adding a steward names themselves in "
       "admitted_by and signs.")
define("steward-not-in-force", 2, 409,
       "A step-down names someone who is not a steward of the target in force (D-32 v3.17).",
       "Only a standing steward steps down; check targets/index.json for the panel.")

Admission = Literal["open", "reviewed"]


@dataclass(frozen=True)
class PolicyNumbers:
    """The roles' numbers a derivation reads from policy.json (D-22 v3.33, D-32 v3.34).

    Attributes:
        owner: the owner's pseudonym (curators.json's signer), or None.
        steward_admission: ``open`` or ``reviewed``.
        steward_lapse_months: months without a signed act before a steward lapses.
        steward_cap: the most stewardships one person holds at once.
        vote_window_days: a motion's window, in days.
        vote_threshold: a motion passes when its yes votes reach a majority of the votes
            counted in this sense: ``yes > vote_threshold * counted`` (0.5, exclusive: more
            than half).
        vote_minimum: counted votes required when the panel has three or more members.
    """

    owner: str | None = None
    steward_admission: Admission = "open"
    steward_lapse_months: int = 6
    steward_cap: int = 5
    vote_window_days: int = 14
    vote_threshold: float = 0.5
    vote_minimum: int = 2


_TARGET_OVERRIDES = ("steward_admission", "vote_window_days", "vote_threshold",
                     "vote_minimum")
"""The numbers a target's target.yaml ``policy`` may override (ruling 13); the owner, the
cap and the lapse are the graph's alone (a person's stewardships span targets)."""


def policy_numbers(graph: Graph, target: str | None = None) -> PolicyNumbers:
    """The roles' numbers of ``graph`` (policy/v2's fields; a policy/v1 graph reads the
    defaults D-32 v3.34 names), with ``target``'s target.yaml overrides applied when
    given (ruling 13). This is the one accessor the panel's motions and votes read
    ``vote_window_days``, ``vote_threshold`` and ``vote_minimum`` from.

    Raises:
        Nothing: an override of the wrong type is ignored (the schema of target.yaml's
        ``policy`` is open), never applied.
    """
    p = graph.policy
    base = PolicyNumbers()
    if isinstance(p, m.PolicyV2):
        base = PolicyNumbers(p.owner, p.steward_admission, p.steward_lapse_months,
                             p.steward_cap, p.vote_window_days, p.vote_threshold,
                             p.vote_minimum)
    t = graph.targets.get(target) if target is not None else None
    if t is None or not t.record.policy:
        return base
    values = {k: getattr(base, k) for k in PolicyNumbers.__dataclass_fields__}
    for k in _TARGET_OVERRIDES:
        v = t.record.policy.get(k)
        if k == "steward_admission" and v in ("open", "reviewed"):
            values[k] = v
        elif k == "vote_threshold" and isinstance(v, (int, float)) \
                and not isinstance(v, bool) and 0 <= v < 1:
            values[k] = float(v)
        elif k != "steward_admission" and k != "vote_threshold" and isinstance(v, int) \
                and not isinstance(v, bool) and v >= 1:
            values[k] = v
    return PolicyNumbers(**values)


InvitationJudge = Callable[["Graph", "PanelState", str, str, str], bool]
"""``judge(graph, state, target, invitee, motion_path)``: whether ``motion_path`` is a
passed invite motion of ``target`` naming ``invitee`` (D-32 v3.34; the panel's motions).
``state`` is the stewardships as read so far: ``state.panel(target, opened_at)`` is the
panel as it stood when the motion opened. The judge is called while derive builds its
index, so it reads records and ``state`` only, never :mod:`network.record.derive` of the
same graph."""


def no_invitation_passes(graph: Graph, state: PanelState, target: str, invitee: str,
                         motion_path: str) -> bool:
    """The invitation judge while the record holds no motion kind: no invite motion can
    have passed, so a join by invitation is refused (``steward-invitation-unknown``)."""
    return False


def invitation_passed(graph: Graph, state: PanelState, target: str, invitee: str,
                      motion_path: str) -> bool:
    """The one invitation judge the gate and derive use (D-32 v3.34): whether
    ``motion_path`` is a standing, signed ``invite`` motion of ``target`` naming
    ``invitee`` that has passed.

    It reads records and ``state`` only (derive calls it while building its index):
    dates are the merge log's (ruling 2), the motion's opener must have been a panel
    member (``state.panel`` as it stood when the motion opened) or a curator and have
    signed it; the voters are that panel; only votes cast count, one per voter, signed and
    merged before ``vote_window_days`` closed. A lone steward's invitation passes on the
    steward's own act (opening it, or a yes vote); else it passes once the window has
    closed on the record's clock, when yes votes exceed ``vote_threshold`` of those
    counted and, on a panel of three or more, at least ``vote_minimum`` were counted
    (:mod:`network.record.panel` derives every motion the same way for the products).
    A withdrawn motion or vote counts for nothing.
    """
    import datetime as dt

    t = graph.targets.get(target)
    if t is None:
        return False
    rf = next((r for r in t.motions if r.path == motion_path), None)
    if rf is None or rf.record.kind != "invite" or rf.record.invitee != invitee:
        return False
    withdrawn = {w.record.withdraws for w in t.withdrawals}
    if rf.path in withdrawn:
        return False
    merged = _merge_dates(graph)
    numbers = policy_numbers(graph, target)
    curators = _curators(graph, target)
    rec = rf.record
    opened = _full(merged.get(rf.path) or rec.date)
    voters = [s.pseudonym for s in state.panel(target, opened)]

    def signed(body: Any, who: str, date: str, allowed: set[str]) -> bool:
        try:
            trust.check_role_signature(body, body.signature, actors=frozenset({who}),
                                       holds=lambda w, _d: w in allowed, at_date=date,
                                       keys=graph.keys, identities=graph.identities)
        except Exception:  # noqa: BLE001 - any refusal: the act counts for nothing
            return False
        return True

    if not signed(rec, rec.by, rec.date, set(voters) | curators):
        return False
    in_place = not voters
    body = sorted(curators) if in_place else voters
    closes = (dt.datetime.strptime(opened, "%Y-%m-%dT%H:%M:%SZ")
              + dt.timedelta(days=numbers.vote_window_days)).strftime("%Y-%m-%dT%H:%M:%SZ")
    counted: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    votes = sorted((v for v in t.votes if v.record.motion == motion_path
                    and v.path not in withdrawn),
                   key=lambda v: (_full(merged.get(v.path) or v.record.date), v.path))
    for v in votes:
        when = _full(merged.get(v.path) or v.record.date)
        who = v.record.by
        if who in seen or who not in body or when > closes \
                or not signed(v.record, who, v.record.date, set(body)):
            continue
        seen.add(who)
        counted.append((when, who, v.record.vote))
    if len(body) == 1 and not in_place:
        lone = body[0]
        if rec.by == lone:
            return True
        first = next((vote for _d, w, vote in counted if w == lone), None)
        if first == "yes":
            return True
    if state.clock is None or _full(state.clock) < closes:
        return False
    n = len(counted)
    yes = sum(1 for _d, _w, vote in counted if vote == "yes")
    enough = n >= 1 and (len(body) < 3 or n >= numbers.vote_minimum)
    return enough and yes > numbers.vote_threshold * n


def _merge_dates(graph: Graph) -> dict[str, str]:
    """Each path's merge-log date (the first merge that added it; ruling 2)."""
    out: dict[str, str] = {}
    for mr in sorted(graph.merges, key=lambda r: r.record.seq):
        for p in mr.record.artifacts:
            out.setdefault(p, mr.record.date)
    return out


def _curators(graph: Graph, target: str) -> set[str]:
    """The curators of ``target`` in curators.json (``*`` curates every target)."""
    return {c.pseudonym for c in graph.curators.curators
            if "*" in c.targets or target in c.targets}


def add_months(date: str, months: int) -> str:
    """``date`` (ISO, bare or full) plus ``months`` calendar months, as a full ISO UTC
    timestamp; a day past the new month's end falls on its last day (2026-08-31 + 6 →
    2027-02-28)."""
    full = date if len(date) > 10 else f"{date}T00:00:00Z"
    y, mo, d = int(full[:4]), int(full[5:7]), int(full[8:10])
    total = y * 12 + (mo - 1) + months
    y, mo = divmod(total, 12)
    mo += 1
    d = min(d, calendar.monthrange(y, mo)[1])
    return f"{y:04d}-{mo:02d}-{d:02d}{full[10:]}"


@dataclass
class Stewardship:
    """One person's stewardship of one target, from its join to its end.

    Attributes:
        target, pseudonym: whose, of what.
        path: the join record's graph path.
        since: when the stewardship runs from: a v4 join's merge date (ruling 2; its own
            date while unmerged), a v3 record's own ``since`` (the field it was signed on).
        lapse_from: the date its lapse is counted from: the join's merge date, or None
            for a join the merge log does not date (a seed's record, a work tree): ruling 2
            dates lapses from the log alone, so such a join starts no lapse clock.
        admitted_by: ``self``, ``panel`` or the admitting curator's pseudonym.
        real_name, affiliation: as the join gives them.
        ended: when it ended (step-down, withdrawal or lapse), or None while in force.
        how_ended: ``step-down``, ``withdrawn``, ``lapsed`` or None.
    """

    target: str
    pseudonym: str
    path: str
    since: str
    admitted_by: str
    real_name: str
    affiliation: str | None
    ended: str | None = None
    how_ended: str | None = None
    lapse_from: str | None = None

    @property
    def self_admitted(self) -> bool:
        """Admitted by themselves under open admission: the site says so (D-32 v3.33)."""
        return self.admitted_by == "self"


class RoleIndex(Protocol):
    """What the derivation needs of derive's index: the graph, who curates a target,
    whether a signature verifies, when a path merged, which v3 records are withdrawn, and
    each target's nodes holding role-signed acts (``scans``)."""

    g: Graph
    now: str | None
    withdrawn: set[str]
    scans: Mapping[str, TargetScan]

    def curators_of(self, tid: str) -> set[str]: ...

    def signature_verifies(self, body: Any, sig: m.Signature | None, signer: str,
                           at_date: str) -> bool: ...

    def merged_date(self, path: str) -> str | None: ...


@dataclass
class PanelState:
    """Stewardships as the acts read so far leave them (one pass in date order)."""

    numbers: PolicyNumbers
    clock: str | None = None
    by_key: dict[tuple[str, str], list[Stewardship]] = field(default_factory=dict)
    activity: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    unverified: set[str] = field(default_factory=set)

    def current(self, tid: str, who: str, at: str) -> Stewardship | None:
        """``who``'s stewardship of ``tid`` in force at ``at``, lapse counted."""
        runs = self.by_key.get((tid, who))
        if not runs or runs[-1].ended is not None:
            return None
        s = runs[-1]
        return None if self.lapsed(s, at) else s

    def lapsed(self, s: Stewardship, at: str) -> bool:
        """Whether ``s`` has lapsed by ``at``: ``steward_lapse_months`` after the
        steward's last signed act on the target. Time is the merge log's (ruling 2): a
        date past the log's newest merge is judged at that merge, and with no merge log
        there is no clock, so nothing lapses."""
        if self.clock is None or s.lapse_from is None:
            return False
        at = min(_full(at), _full(self.clock))
        last = self.last_act(s.target, s.pseudonym, s.lapse_from, at)
        return add_months(last, self.numbers.steward_lapse_months) <= at

    def last_act(self, tid: str, who: str, since: str, at: str) -> str:
        """The newest of ``since`` and ``who``'s signed acts on ``tid`` up to ``at``."""
        best = _full(since)
        for d in self.activity.get((tid, who), ()):
            if best < d <= _full(at):
                best = d
        return best

    def panel(self, tid: str, at: str) -> list[Stewardship]:
        """The stewardships of ``tid`` in force at ``at``."""
        out = []
        for (t, who) in self.by_key:
            if t == tid:
                s = self.current(t, who, at)
                if s is not None:
                    out.append(s)
        return sorted(out, key=lambda s: (s.since, s.path))

    def held_by(self, who: str, at: str) -> int:
        """How many stewardships ``who`` holds in force at ``at``, over every target."""
        return sum(1 for (t, w) in self.by_key if w == who and self.current(t, w, at))


def _full(date: str) -> str:
    return date if len(date) > 10 else f"{date}T00:00:00Z"


def _dated(ix: RoleIndex, path: str) -> str | None:
    """The merge log's date of ``path`` as a full timestamp, or None (ruling 2)."""
    d = ix.merged_date(path)
    return _full(d) if d is not None else None


def expected_signer(act: m.StewardAct) -> str:
    """Who signs a steward/v4 act: the curator ``admitted_by`` names for a curator's
    admission, else the steward it names (D-32 v3.17/v3.33)."""
    if act.action == "join" and act.admitted_by not in (None, "self", "panel"):
        assert act.admitted_by is not None
        return act.admitted_by
    return act.pseudonym


def act_finding(state: PanelState, graph: Graph, curators: set[str], act: m.StewardAct,
                at: str, judge: InvitationJudge = invitation_passed,
                ) -> tuple[str, str] | None:
    """D-32's panel rule for one steward/v4 act, as ``(code, detail)``, or None when the
    act may stand (its signature is judged apart, :func:`expected_signer`).

    Args:
        state: the stewardships as of the act (:func:`derive_panel` or the base graph's).
        graph: the graph (policy, targets).
        curators: the curators of the act's target.
        act: the record.
        at: the act's date (the merge log's, or the base graph's now for a pull request).
        judge: whether an invitation motion passed.

    Codes: ``steward-act-not-own``, ``steward-already-in-force``, ``steward-cap-reached``,
    ``steward-invitation-required``, ``steward-invitation-unknown``,
    ``steward-admission-reviewed``, ``steward-admitted-by-not-curator``,
    ``steward-not-in-force``.
    """
    tid, who = act.target, act.pseudonym
    sig = act.signature
    if sig is not None and sig.signer != expected_signer(act):
        return ("steward-act-not-own", (f"signed by {sig.signer!r}; this {act.action} of "
                f"{who} is signed by {expected_signer(act)!r}"))
    numbers = policy_numbers(graph, tid)
    if act.action == "step-down":
        if state.current(tid, who, at) is None:
            return ("steward-not-in-force", f"{who} is not a steward of {tid} in force")
        return None
    if state.current(tid, who, at) is not None:
        return ("steward-already-in-force", f"{who} already stands as steward of {tid}")
    held = state.held_by(who, at)
    if held >= state.numbers.steward_cap:
        return ("steward-cap-reached", (f"{who} holds {held} stewardships; steward_cap is "
                f"{state.numbers.steward_cap}"))
    if act.admitted_by == "panel":
        assert act.invitation is not None
        if not judge(graph, state, tid, who, act.invitation):
            return ("steward-invitation-unknown", (f"{act.invitation} is no passed invite "
                    f"motion of {tid} naming {who}"))
        return None
    if act.admitted_by == "self":
        panel = state.panel(tid, at)
        if panel:
            return ("steward-invitation-required", (f"{tid} has stewards "
                    f"({', '.join(s.pseudonym for s in panel)}): join by invitation or by "
                    "a curator"))
        if numbers.steward_admission == "reviewed":
            return ("steward-admission-reviewed", (f"{tid} admits its first steward by a "
                    "curator"))
        return None
    if act.admitted_by not in curators:
        return ("steward-admitted-by-not-curator", (f"admitted_by {act.admitted_by!r} "
                f"does not curate {tid}"))
    return None


def _signed_acts(g: Graph, scans: Mapping[str, TargetScan]
                 ) -> Iterator[tuple[str, str, str, m.Signature, Any, str]]:
    """(target, actor, path, signature, signed body, own date) of every role-signed record
    of a target that counts as a steward's act for lapse (D-32 v3.34): shelvings,
    literature readings, withdrawals, words approvals, and the panel's motions and
    votes. ``scans`` lists each target's nodes holding such records
    (:func:`network.record.read.target_scan.scan_targets`)."""
    for tid, t in g.targets.items():
        recs: list[RecordFile[Any]] = [*t.withdrawals, *t.motions, *t.votes]
        scan = scans[tid]
        for n in scan.acted:
            recs += [*n.shelvings, *n.literature, *n.withdrawals]
        worded: tuple[Node, ...] = scan.worded
        for rf in recs:
            rec = rf.record
            if rec.signature is not None:
                yield tid, rec.by, rf.path, rec.signature, rec, rec.date
        for n in worded:
            for chain in (n.glosses, n.explainers):
                for wrf in chain:
                    for sig in wrf.record.approvals:
                        yield (tid, sig.signer, wrf.path, sig,
                               trust.approval_body(wrf.record), wrf.record.date)


@dataclass
class Panel:
    """Every stewardship of a graph, as :func:`derive_panel` derives it.

    Attributes:
        state: the final state (each person's runs per target).
        now: the record's clock (ruling 2), or None when nothing merged.
    """

    state: PanelState
    now: str | None

    def in_force(self, tid: str) -> list[Stewardship]:
        """``tid``'s panel now: stewardships not stepped down, withdrawn or lapsed."""
        return self.state.panel(tid, self.now or "9999-12-31T23:59:59Z")

    def holds(self, tid: str, who: str, date: str) -> bool:
        """Whether ``who`` stood as steward of ``tid`` on ``date``: a run began on or
        before it and had not ended (stepped down, withdrawn or lapsed) by then."""
        return self.run_at(tid, who, date) is not None

    def run_at(self, tid: str, who: str, date: str) -> Stewardship | None:
        """``who``'s stewardship of ``tid`` that stood on ``date`` (ISO-8601 date or
        timestamp): begun on or before it, not ended (step-down, withdrawal) or lapsed by
        then (D-32 v3.34), or None. Raises nothing."""
        for s in self.state.by_key.get((tid, who), ()):
            if _full(s.since) > _full(date):
                continue
            end = s.ended
            if (end is None or _full(date) < end) and not self.state.lapsed(s, date):
                return s
        return None

    def at(self, tid: str, date: str) -> list[Stewardship]:
        """``tid``'s panel as it stood on ``date`` (ISO-8601 date or timestamp): every
        stewardship, v3 record or v4 act alike, that :meth:`holds` on it, in join order
        (``since``, then the join's path). What a motion's panel is counted from (D-32
        v3.34; :func:`network.record.panel.panel_at`)."""
        runs = [s for (t, who) in self.state.by_key if t == tid
                for s in [self.run_at(t, who, date)] if s is not None]
        return sorted(runs, key=lambda s: (s.since, s.path))


def derive_panel(ix: RoleIndex, judge: InvitationJudge = invitation_passed) -> Panel:
    """Read every steward record of the graph once, in merge-log order (ruling 2), into
    the stewardships it leaves (D-32 v3.17/v3.33/v3.34).

    A v3 record counts as a join when the steward it names or a curator signed it
    (it merged as a curator's pull request; ``admitted_by`` is read from its signer); a
    v4 act counts when :func:`act_finding` finds nothing and its :func:`expected_signer`
    signed it. A record a curator's standing withdrawal names counts for nothing (D-18
    v3.27). Whatever does not count is in ``state.unverified``.
    """
    g = ix.g
    numbers = policy_numbers(g)
    state = PanelState(numbers, ix.now)
    for tid, who, path, sig, body, own in _signed_acts(g, ix.scans):
        if sig.signer == who and ix.signature_verifies(body, sig, who, own):
            state.activity.setdefault((tid, who), []).append(
                _full(ix.merged_date(path) or own))
    events: list[tuple[str, str, str, RecordFile[Any]]] = []
    for tid, t in g.targets.items():
        for rf in t.stewards:
            events.append((_full(ix.merged_date(rf.path) or rf.record.since), rf.path, tid, rf))
        for af in t.steward_acts:
            events.append((_full(ix.merged_date(af.path) or af.record.date), af.path, tid, af))
    for at, path, tid, rf in sorted(events, key=lambda e: (e[0], e[1])):
        rec = rf.record
        cur = ix.curators_of(tid)
        if isinstance(rec, m.Steward):
            signer = rec.signature.signer if rec.signature is not None else ""
            if (path in ix.withdrawn or (signer != rec.pseudonym and signer not in cur)
                    or not ix.signature_verifies(rec, rec.signature, signer, rec.since)
                    or state.current(tid, rec.pseudonym, at) is not None
                    or state.held_by(rec.pseudonym, at) >= numbers.steward_cap):
                state.unverified.add(path)
                continue
            state.by_key.setdefault((tid, rec.pseudonym), []).append(Stewardship(
                tid, rec.pseudonym, path, _full(rec.since),
                "self" if signer == rec.pseudonym else signer, rec.real_name,
                rec.affiliation, lapse_from=_dated(ix, path)))
            continue
        assert isinstance(rec, m.StewardAct)
        if rec.target != tid or path in ix.withdrawn \
                or act_finding(state, g, cur, rec, at, judge) is not None \
                or not ix.signature_verifies(rec, rec.signature, expected_signer(rec),
                                             rec.date):
            state.unverified.add(path)
            continue
        if rec.action == "step-down":
            s = state.current(tid, rec.pseudonym, at)
            assert s is not None
            s.ended, s.how_ended = at, "step-down"
            continue
        assert rec.real_name is not None and rec.admitted_by is not None
        state.by_key.setdefault((tid, rec.pseudonym), []).append(Stewardship(
            tid, rec.pseudonym, path, at, rec.admitted_by, rec.real_name, rec.affiliation,
            lapse_from=_dated(ix, path)))
    for runs in state.by_key.values():
        last = runs[-1]
        if last.ended is None and ix.now is not None and last.lapse_from is not None:
            lapse = add_months(state.last_act(last.target, last.pseudonym,
                                              last.lapse_from, ix.now),
                               numbers.steward_lapse_months)
            if lapse <= ix.now:
                last.ended, last.how_ended = lapse, "lapsed"
    return Panel(state, ix.now)
