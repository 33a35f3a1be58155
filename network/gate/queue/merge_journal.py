"""The merge queue's journal (issue 16): what one judged pull request's handling has done,
written durably before main moves, so a queue killed at any step completes the merge on
restart (:func:`network.gate.queue.queue.recover`).

:class:`MergeIntent` is the record, ``<forge>/lemmata-merge-journal/<n>.json``;
:func:`write_intent` writes it atomically (temporary file, fsync, rename, fsync of the
folder); :func:`read_intents` reads every one back, skipping what cannot be read;
:func:`clear_intent` removes it once the merge is complete. :data:`STEPS` names the step
boundaries of one pull request's handling, where a crash test's :data:`StepHook` raises.
D-4, D-5; rulings 7, 8.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from network.forge.local import LocalForge

_log = logging.getLogger("network.gate.queue.queue")


#: A step boundary hook: called with the name of the step just finished (one of
#: :data:`STEPS`). Tests only: a crash test passes one that raises a BaseException at step N
#: and restarts the queue; product code never passes one.
StepHook = Callable[[str], None]

#: The step boundaries of one pull request's handling, in order (issue 16).
STEPS = ("judged", "journaled", "published", "planned", "main-moved", "row-merged",
         "postmerge", "racer-opened", "racers-moved")

JOURNAL_DIR = "lemmata-merge-journal"


@dataclass(frozen=True)
class MergeIntent:
    """The journal's record of one judged pull request, written before anything on main
    changes and rewritten once the merge is planned (issue 16).

    Attributes:
        number: the pull request.
        head: its head commit (40 hex).
        verdict: the gate's verdict (pass, fail, bounced, held).
        files: the attestation files to publish, graph path → UTF-8 JSON text.
        base: main the next step starts from (40 hex): main when judged, then main after
            publishing once the merge is planned.
        new_main: main after the merge (40 hex: the head, or the merge commit), once
            planned; None before.
        attestations: the graph paths of the pass attestations.
        submitter: the pull request's author.
        refusal, refusal_detail: for ``fail``/``bounced``, the catalog code of the first
            failing step and where it failed (the close reason, issue 16); None otherwise.
    """

    number: int
    head: str
    verdict: str
    files: dict[str, str]
    base: str
    new_main: str | None
    attestations: tuple[str, ...]
    submitter: str
    refusal: str | None = None
    refusal_detail: str | None = None


def _journal_dir(forge: LocalForge) -> Path:
    return forge.path / JOURNAL_DIR


def write_intent(forge: LocalForge, intent: MergeIntent) -> Path:
    """Write ``intent`` durably: a temporary file, fsync, rename over
    ``<forge>/lemmata-merge-journal/<n>.json``, fsync of the folder. Returns the path.

    Raises:
        OSError: when the disk refuses the write (the merge then does not happen).
    """
    return _write_durably(_journal_dir(forge), intent.number, asdict(intent))


def _write_durably(folder: Path, number: int, body: dict[str, Any]) -> Path:
    """``body`` as ``<folder>/<number>.json``: a temporary file, fsync, rename, fsync of
    the folder (created when absent). Returns the path.

    Raises:
        OSError: when the disk refuses the write.
    """
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{number}.json"
    tmp = folder / f".{number}.json.tmp"
    data = json.dumps(body, sort_keys=True).encode("utf-8")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, final)
    dfd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
    return final


def read_intents(forge: LocalForge) -> list[MergeIntent]:
    """Every merge intent in the journal, by pull request number; an unreadable file is
    logged and skipped (a half-written temporary is never renamed into place)."""
    out: list[MergeIntent] = []
    folder = _journal_dir(forge)
    if not folder.is_dir():
        return out
    for p in folder.glob("*.json"):
        try:
            raw = json.loads(p.read_bytes())
            new_main = raw["new_main"]
            out.append(MergeIntent(
                number=int(raw["number"]), head=str(raw["head"]), verdict=str(raw["verdict"]),
                files={str(k): str(v) for k, v in dict(raw["files"]).items()},
                base=str(raw["base"]), new_main=None if new_main is None else str(new_main),
                attestations=tuple(str(a) for a in raw["attestations"]),
                submitter=str(raw["submitter"]),
                refusal=None if raw.get("refusal") is None else str(raw["refusal"]),
                refusal_detail=None if raw.get("refusal_detail") is None
                else str(raw["refusal_detail"])))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            _log.error("merge queue: journal file %s unreadable: %s", p.name, exc)
    return sorted(out, key=lambda i: i.number)


def clear_intent(forge: LocalForge, number: int) -> None:
    """Remove pull request ``number``'s intent (its merge is complete); idempotent."""
    (_journal_dir(forge) / f"{number}.json").unlink(missing_ok=True)
