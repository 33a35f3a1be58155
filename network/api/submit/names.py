"""Collision-free record file names, chosen before a pull request opens (issue 16).

The service names a record it writes ``<ts>-<pseudonym><suffix>`` (``docs/record.md``;
the loader's ``TS_RE``), where ``<ts>`` is the service clock's second. Two writes of the
same kind by one identity on one node in the same second would get the same name and
the second pull request would conflict with the first for ever. :func:`record_path`
reserves each name in the ``file_names`` table (a primary key, so writers in different
processes cannot both win) and, when the plain name is taken — reserved by another
write, or already on main — adds a tag: ``<ts>.<8 hex>-<pseudonym><suffix>``. The tag
sits between the timestamp's ``Z`` and the ``-``, where no pseudonym can reach, so the
file still parses to the same time and author. Names reserved longer ago than the
opening lease are purged: a name can only collide with one chosen in the same second.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError

from network.api import db
from network.api.service import Service
from network.errors import LemmataError, define

define("name-unavailable", None, 503,
       "The service found no free file name for the record in this second (issue 16).",
       "Retry in a second; nothing was opened.")

#: ``strftime`` form of the timestamp that starts a record file name (UTC, seconds).
TS_FORMAT = "%Y%m%dT%H%M%SZ"

#: Attempts to find a free tagged name before giving up (each is a fresh 32-bit tag).
_TRIES = 8


def stamp(now: float) -> str:
    """Epoch seconds → the file-name timestamp ``YYYYMMDDTHHMMSSZ`` (UTC, whole seconds)."""
    return datetime.fromtimestamp(int(now), UTC).strftime(TS_FORMAT)


def tagged(ts: str, tag: str) -> str:
    """The timestamp ``ts`` (``...Z``) with its tiebreak tag: ``<ts>.<tag>``; the loader's
    ``TS_RE`` reads the time from ``ts`` and the tag apart (8 lowercase hex)."""
    return f"{ts}.{tag}"


def _taken_on_main(svc: Service, path: str) -> bool:
    try:
        return path in svc.graphs.snapshot().graph.files
    except LemmataError:
        return False


def _reserve(svc: Service, path: str, now: int) -> bool:
    """Insert ``path`` into ``file_names``; False when another write holds it."""
    try:
        with db.transaction(svc.sessions) as s:
            s.add(db.FileNameRow(path=path, created_at=now))
            s.flush()
    except IntegrityError:
        return False
    return True


def record_path(svc: Service, directory: str, pseudonym: str, suffix: str) -> str:
    """A record file path no other write has: ``<directory>/<ts>-<pseudonym><suffix>``,
    or ``<directory>/<ts>.<tag>-<pseudonym><suffix>`` when that one is taken.

    Args:
        directory: the graph directory, e.g. ``targets/t/nodes/root/attempts``.
        pseudonym: the author (the token's pseudonym).
        suffix: what follows the pseudonym: ``.yaml`` or ``-postmortem.yaml``.

    Returns:
        The graph path, reserved in ``file_names`` (a second call in the same second gets
        another path).

    Raises:
        LemmataError: ``name-unavailable`` when no free name was found in a few tries
            (only a broken database or an adversarial clock gets there).
    """
    now = svc.now()
    ts = stamp(svc.clock())
    with db.transaction(svc.sessions) as s:
        s.execute(delete(db.FileNameRow).where(
            db.FileNameRow.created_at < now - svc.settings.opening_lease_s))
    plain = f"{directory}/{ts}-{pseudonym}{suffix}"
    if not _taken_on_main(svc, plain) and _reserve(svc, plain, now):
        return plain
    for _ in range(_TRIES):
        path = f"{directory}/{tagged(ts, secrets.token_hex(4))}-{pseudonym}{suffix}"
        if not _taken_on_main(svc, path) and _reserve(svc, path, now):
            return path
    raise LemmataError("name-unavailable", f"no free file name in {directory} for "
                       f"{pseudonym} at {ts}")


def record_stamp(svc: Service, directory: str, pseudonym: str, suffix: str) -> str:
    """The timestamp part (``<ts>`` or ``<ts>.<tag>``) of the path :func:`record_path`
    reserves, for callers that build the name themselves (the Lean attempts of
    ``network.api.submit.precheck.build_bundle``).

    Raises:
        LemmataError: ``name-unavailable``.
    """
    name = record_path(svc, directory, pseudonym, suffix).rsplit("/", 1)[1]
    return name[: -len(f"-{pseudonym}{suffix}")]
