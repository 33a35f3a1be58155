"""The merge-queue runner's health (issue 16): :class:`QueueHealth`, shared in-process by
the runner's thread and the service's ``GET /info.json`` (:func:`health_for`,
:func:`health_if_running`), and the heartbeat file a runner writes in its data directory
for a service in another process (:func:`write_heartbeat`, :func:`read_heartbeat`).
"""

from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path


class QueueHealth:
    """The merge-queue runner's health, written by its thread and read by the service's
    ``GET /info.json`` (issue 16): thread-safe.

    :meth:`snapshot` gives ``{"state": "starting"|"running"|"retrying"|"stopped",
    "passes": int, "last_pass_at": int | None (seconds since the epoch),
    "failures_in_a_row": int, "restarts": int, "last_error": {"code", "detail", "at"} | None,
    "next_try_in_s": float | None}``.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = "starting"
        self._passes = 0
        self._last_pass_at: int | None = None
        self._failures = 0
        self._restarts = 0
        self._last_error: dict[str, object] | None = None
        self._next_try: float | None = None

    def passed(self, now: float) -> None:
        """A pass completed at ``now`` (seconds since the epoch)."""
        with self._lock:
            self._state, self._passes, self._last_pass_at = "running", self._passes + 1, int(now)
            self._failures, self._next_try = 0, None

    def failed(self, code: str, detail: str, now: float, retry_in_s: float) -> None:
        """A pass raised (``code``, ``detail``) at ``now``; the next try is in
        ``retry_in_s`` seconds."""
        with self._lock:
            self._state, self._failures = "retrying", self._failures + 1
            self._last_error = {"code": code, "detail": detail[:500], "at": int(now)}
            self._next_try = round(retry_in_s, 3)

    def restarted(self) -> None:
        """The runner loop itself was restarted after an exception."""
        with self._lock:
            self._restarts += 1

    def stopped(self) -> None:
        """The runner stopped (the service is shutting down)."""
        with self._lock:
            self._state = "stopped"

    @property
    def failures_in_a_row(self) -> int:
        """Passes that raised since the last one that completed."""
        with self._lock:
            return self._failures

    def snapshot(self) -> dict[str, object]:
        """The health as plain JSON data (see the class doc)."""
        with self._lock:
            return {"state": self._state, "passes": self._passes,
                    "last_pass_at": self._last_pass_at, "failures_in_a_row": self._failures,
                    "restarts": self._restarts,
                    "last_error": dict(self._last_error) if self._last_error else None,
                    "next_try_in_s": self._next_try}


_HEALTH: dict[str, QueueHealth] = {}
_HEALTH_LOCK = threading.Lock()


def health_for(forge: object, *, fresh: bool = False) -> QueueHealth:
    """The :class:`QueueHealth` of the runner over ``forge`` (keyed by its repository
    path), created on first use, or anew with ``fresh`` (a runner starting); the runner
    and the service share it."""
    key = str(Path(getattr(forge, "path", "")).resolve())
    with _HEALTH_LOCK:
        if fresh or key not in _HEALTH:
            _HEALTH[key] = QueueHealth()
        return _HEALTH[key]


def health_if_running(forge: object) -> dict[str, object] | None:
    """The snapshot of a runner's health over ``forge``, or None when no runner in this
    process has registered one (the service then says nothing about a queue)."""
    if forge is None or getattr(forge, "path", None) is None:
        return None
    key = str(Path(forge.path).resolve())  # type: ignore[attr-defined]
    with _HEALTH_LOCK:
        h = _HEALTH.get(key)
    return None if h is None else h.snapshot()


#: The heartbeat a merge-queue runner writes in its data directory (issue 16), for a
#: service in another process (``lemmata serve``) to learn whether the queue is up.
HEARTBEAT_FILE = "queue-heartbeat.json"

#: Seconds between two heartbeats while the runner lives.
HEARTBEAT_S = 5.0


def write_heartbeat(path: Path, snapshot: dict[str, object], *, alive: bool,
                    now: float) -> None:
    """Write ``{"at": now (epoch s), "alive": alive, "pid": …, "health": snapshot}`` to
    ``path`` atomically (temporary file, then rename), so a reader never sees half of it.

    Raises:
        OSError: the disk refuses the write (the runner logs it and beats again later).
    """
    data = json.dumps({"at": round(now, 3), "alive": alive, "pid": os.getpid(),
                       "health": snapshot}, sort_keys=True).encode("utf-8")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def read_heartbeat(path: Path) -> dict[str, object] | None:
    """The heartbeat at ``path`` (:func:`write_heartbeat`'s form), or None when there is
    none or it cannot be read as one: not JSON, no finite ``at``, no boolean ``alive`` (a
    missing or unreadable heartbeat tells nothing about a live queue)."""
    try:
        raw = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("at"), int | float) \
            or not math.isfinite(raw["at"]) or not isinstance(raw.get("health"), dict) \
            or not isinstance(raw.get("alive"), bool):
        return None  # NaN or Infinity (json reads both) would never go stale
    return raw
