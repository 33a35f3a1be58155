"""Reconciling record writes left ``opening`` (issue 16: a crashed write never jams).

A record write (``network.api.records.open_record_pr``) reserves its place in the
submissions index as an ``opening`` row, asks the forge for the pull request, and turns
the row ``open``. A process killed between the two leaves the row ``opening``; it counts
as live, so the same record resubmitted would be refused for ever as a copy of "pull
request None". The pull request body carries the row's mark (:func:`mark`), so
:func:`reconcile` can settle a row older than ``settings.opening_lease_s``:

* a pull request on the forge authored by the row's identity carries its mark: the row
  takes that pull request's number, head and state (open, merged or closed), as if the
  write had finished (a mark copied into another author's pull request is ignored);
* none does: the row becomes ``expired``, which blocks nothing; a write still in flight
  that answers later turns it ``open`` as usual.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from network.api import db
from network.api.service import Service
from network.errors import LemmataError

#: The row states that block a copy (the index's live states).
LIVE_STATES = ("open", "opening")

_MARK_RE = re.compile(r"<!-- lemmata-submission: (s_[0-9a-f]{24}) -->")


def mark(submission_id: str) -> str:
    """The line a record write's pull request body carries: an HTML comment (invisible on
    GitHub) naming the ``opening`` row it fulfils."""
    return f"<!-- lemmata-submission: {submission_id} -->"


def marked(body: str | None) -> set[str]:
    """The submission ids whose marks ``body`` carries."""
    return set(_MARK_RE.findall(body or ""))


def _forge_prs(forge: Any) -> list[Any]:
    """Every pull request the forge knows (``list_all``), else its open ones."""
    lister = getattr(forge, "list_all", None) or getattr(forge, "list_open", None)
    return list(lister()) if lister is not None else []


def reconcile(svc: Service, rows: Iterable[db.SubmissionRow]) -> set[str]:
    """Settle the ``opening`` rows among ``rows`` older than the opening lease.

    Args:
        rows: index rows (any states); only stale ``opening`` ones are touched.

    Returns:
        The ids of the rows that are no longer live (expired, or whose pull request
        already merged or closed).

    The forge is asked once, and only when a stale row exists. A forge that cannot be
    reached leaves every row as it was (it is tried again by the next write).
    """
    now = svc.now()
    stale = [r for r in rows if r.state == "opening"
             and r.opened_at <= now - svc.settings.opening_lease_s]
    if not stale:
        return set()
    forge = svc.forge
    try:
        prs = _forge_prs(forge) if forge is not None else []
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
    ended: set[str] = set()
    with db.transaction(svc.sessions) as s:
        for r in stale:
            row = s.get(db.SubmissionRow, r.id)
            if row is None or row.state != "opening":
                continue
            pr = by_mark.get(row.id)
            if pr is None:
                row.state, row.closed_at = "expired", now
            else:
                url_of = getattr(forge, "pull_request_url", None)
                row.state = pr.state
                row.pull_request = str(pr.number)
                row.pull_request_url = url_of(pr.number) if callable(url_of) else None
                row.head_sha = pr.head_sha
                if pr.state != "open":
                    row.closed_at = now
            r.state, r.pull_request = row.state, row.pull_request
            if row.state not in LIVE_STATES:
                ended.add(row.id)
    return ended
