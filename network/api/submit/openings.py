"""Reconciling record writes left ``opening`` (issue 16: a crashed write never jams; issue
39: a restart completes or clears every half-made write).

A record write (``network.api.submit.records.open_record_pr``) reserves its place in the
submissions index as an ``opening`` row, asks the forge for the pull request, and turns
the row ``open``. A process killed between the two leaves the row ``opening``; it counts
as live, so the same record resubmitted would be refused as a copy of a pull request that
may never exist. The pull request body carries the row's mark (:func:`mark`), so
:func:`reconcile` can settle a row whose writer is gone:

* a pull request on the forge authored by the row's identity carries its mark: the row
  takes that pull request's number, head and state (open, merged or closed), as if the
  write had finished (a mark copied into another author's pull request is ignored);
* none does: the row becomes ``expired``, which blocks nothing; a write still in flight
  that answers later turns it ``open`` as usual.

Which writer is gone (:func:`is_dead`): each :class:`~network.api.service.Service` keeps,
in memory, the ids of the rows it is opening right now (:func:`in_flight`) and the time its
openings began (:func:`start`, called when the app is built). A row it is not opening and
that was opened no later than that start was written by a process that is no longer
writing it (one service process per database: the process before a restart), and is
settled at once; any other ``opening`` row (another live process's) only once it is older
than ``settings.opening_lease_s``. :func:`reconcile_pending` settles every such row; it runs
when the app is built (:func:`start`), in each pass of ``lemmata up``'s merge-queue loop,
and before each write's copy check (through :func:`reconcile`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, select

from network.api import db
from network.api.service import Service
from network.errors import LemmataError

#: The row states that block a copy (the index's live states).
LIVE_STATES = ("open", "opening")

#: The record path's steps a test's hook hears (``svc.extra[STEP_HOOK]``, tests only: the
#: crash tests of issue 39 raise there as kill -9 would): ``mid_open`` once the ``opening``
#: row is written and before the forge is asked, ``after_open`` once the forge answered
#: and before the row turns ``open``.
STEPS = ("mid_open", "after_open")
STEP_HOOK = "record_step_hook"

#: a record pull request's mark: ``sub-`` and 20 hex digits, the one form of a submission id
#: on every path (issue 35, item 7); ``s_`` and 24 hex digits, the form record writes took
#: before, still read so a write cut off before the change is reconciled
_MARK_RE = re.compile(r"<!-- lemmata-submission: (sub-[0-9a-f]{20}|s_[0-9a-f]{24}) -->")
_OPENINGS = "openings"
_INIT = threading.Lock()


@dataclass
class _Openings:
    """What one service process knows of its own record writes."""

    started_at: int
    """Epoch seconds when its openings began (:func:`start`)."""
    ids: set[str] = field(default_factory=set)
    """The submission ids it is opening now."""
    lock: threading.Lock = field(default_factory=threading.Lock)


def _openings(svc: Service) -> _Openings:
    """This service's :class:`_Openings`, begun now when :func:`start` was never called
    (a Service built by hand: every row it writes is still opened after this)."""
    state = svc.extra.get(_OPENINGS)
    if state is None:
        with _INIT:
            state = svc.extra.setdefault(_OPENINGS, _Openings(svc.now()))
    assert isinstance(state, _Openings)
    return state


def start(svc: Service) -> set[str]:
    """Begin this service's openings now and settle every ``opening`` row left by a
    process that is gone (:func:`reconcile_pending`). Called once, when the app is built,
    before it serves anything.

    Returns:
        The ids of the rows that are no longer live.
    """
    _openings(svc)
    return reconcile_pending(svc)


def step(svc: Service, name: str) -> None:
    """Tell the test's step hook, if any, that the record path reached ``name``
    (:data:`STEPS`)."""
    hook: Callable[[str], None] | None = svc.extra.get(STEP_HOOK)
    if hook is not None:
        hook(name)


@contextmanager
def in_flight(svc: Service, submission_id: str) -> Iterator[None]:
    """Count ``submission_id`` as being opened by this process while the block runs: its
    ``opening`` row is live (it keeps the lease) until the block ends, however it ends."""
    state = _openings(svc)
    with state.lock:
        state.ids.add(submission_id)
    try:
        yield
    finally:
        with state.lock:
            state.ids.discard(submission_id)


def is_dead(svc: Service, row: db.SubmissionRow, now: int) -> bool:
    """Whether ``row`` is an ``opening`` row no process may still be opening: this process
    is not opening it and it was opened no later than this process's start (its writer
    is gone), or it is older than ``settings.opening_lease_s`` (any writer has given up)."""
    if row.state != "opening":
        return False
    if row.opened_at <= now - svc.settings.opening_lease_s:
        return True
    state = _openings(svc)
    with state.lock:
        ours = row.id in state.ids
    return not ours and row.opened_at <= state.started_at


def mark(submission_id: str) -> str:
    """The line a record write's pull request body carries: an HTML comment (invisible on
    GitHub) naming the ``opening`` row it fulfils."""
    return f"<!-- lemmata-submission: {submission_id} -->"


def marked(body: str | None) -> set[str]:
    """The submission ids whose marks ``body`` carries."""
    return set(_MARK_RE.findall(body or ""))


def follow(row: db.SubmissionRow) -> str:
    """What a refusal naming ``row`` tells the caller to follow: its pull request (and
    where to read it), else the submission itself while its pull request is being opened
    (never "pull request None")."""
    if row.pull_request:
        where = f", {row.pull_request_url}" if row.pull_request_url else ""
        return f"pull request {row.pull_request}{where}"
    return f"its pull request still opening: GET /submissions/{row.id}"


def _forge_prs(forge: Any) -> list[Any]:
    """Every pull request the forge knows (``list_all``), else its open ones."""
    lister = getattr(forge, "list_all", None) or getattr(forge, "list_open", None)
    return list(lister()) if lister is not None else []


def reconcile_pending(svc: Service) -> set[str]:
    """Settle every ``opening`` row of the index whose writer is gone (:func:`is_dead`)
    with the forge (:func:`reconcile`). The forge is asked only when such a row exists.

    Returns:
        The ids of the rows that are no longer live.
    """
    with svc.sessions() as s:
        rows = list(s.execute(select(db.SubmissionRow).where(
            db.SubmissionRow.state == "opening")).scalars())
    return reconcile(svc, rows)


def reconcile(svc: Service, rows: Iterable[db.SubmissionRow]) -> set[str]:
    """Settle the ``opening`` rows among ``rows`` whose writer is gone (:func:`is_dead`).

    Args:
        rows: index rows (any states); only dead ``opening`` ones are touched, and are
            updated in place to their new state and pull request.

    Returns:
        The ids of the rows that are no longer live (expired, or whose pull request
        already merged or closed).

    The forge is asked once, and only when a dead row exists; without a forge, or with
    one that cannot be reached, every row stays as it was (the next write, start or
    queue pass tries again).
    """
    now = svc.now()
    stale = [r for r in rows if is_dead(svc, r, now)]
    forge = svc.forge
    if not stale or forge is None:
        return set()
    try:
        prs = _forge_prs(forge)
    except LemmataError:
        return set()
    authors = {r.id: (r.pseudonym or "").casefold() for r in stale}
    by_mark: dict[str, Any] = {}
    for pr in prs:
        for sid in marked(getattr(pr, "body", "")):
            # only a pull request authored by the row's own identity fulfils it: a mark
            # copied into someone else's pull request is ignored
            if authors.get(sid) == str(getattr(pr, "author", "")).casefold():
                by_mark.setdefault(sid, pr)
    url_of = getattr(forge, "pull_request_url", None)
    ended: set[str] = set()
    with db.transaction(svc.sessions) as s:
        for r in stale:
            row = s.get(db.SubmissionRow, r.id)
            if row is None or not is_dead(svc, row, now):
                continue
            pr = by_mark.get(row.id)
            if pr is None:
                row.state, row.closed_at = "expired", now
            else:
                row.state = pr.state
                row.pull_request = str(pr.number)
                row.pull_request_url = url_of(pr.number) if callable(url_of) else None
                row.head_sha = pr.head_sha
                if pr.state != "open":
                    row.closed_at = now
                    row.close_code = getattr(pr, "close_code", None)
                    row.close_detail = getattr(pr, "close_detail", None)
                # the index may have taken it for a hand-opened one meanwhile: one row
                s.execute(delete(db.SubmissionRow).where(
                    db.SubmissionRow.opened_by_service == 0,
                    db.SubmissionRow.pull_request == f"local/{pr.number}"))
            r.state, r.pull_request = row.state, row.pull_request
            r.pull_request_url = row.pull_request_url
            if row.state not in LIVE_STATES:
                ended.add(row.id)
    return ended
