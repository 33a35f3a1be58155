"""What the post-merge job writes, and how its bytes are made (D-4, D-19, D-34).

:class:`PostMerge` is the job's answer (the files to commit on main, path → bytes, and
notes on what was not written); :class:`OverlaySource` lays those pending files over the
merged main so the job's derivations see the post-merge state before it is committed.
The encoders give every written record one byte form: sorted, indented JSON or YAML,
gate-signed when a key is given, file names stamped ``20260102T030405Z``. The ledger
(:mod:`network.gate.postmerge.postmerge_ledger`), the holes (:mod:`network.gate.postmerge.postmerge_holes`),
closure (:mod:`network.gate.postmerge.postmerge_closure`) and the job itself
(:mod:`network.gate.postmerge.postmerge`, which re-exports every name here, issue 17) write through
them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import signing
from network.errors import LemmataError, Problem
from network.record import derive
from network.record import models as m
from network.record.read.source import Source as GraphSource


@dataclass
class PostMerge:
    """What the post-merge job writes.

    Attributes:
        seq: the merge record's sequence number.
        files: graph path → exact bytes to commit on main.
        notes: what was not written and why (e.g. holes without a toolchain).
        holes: hole node ids written.
        lemma_edges: (parent, existing node) pairs recorded as lemmas.
        closed: (target, node) closed by closure.
    """

    seq: int
    files: dict[str, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    holes: list[str] = field(default_factory=list)
    lemma_edges: list[tuple[str, str]] = field(default_factory=list)
    closed: list[tuple[str, str]] = field(default_factory=list)


class OverlaySource:
    """A graph snapshot with pending files laid over it (None deletes), so derivations see
    the post-merge state before it is committed. Implements the record's Source protocol."""

    def __init__(self, base: GraphSource, files: Mapping[str, bytes | None]) -> None:
        self.base = base
        self.overlay = dict(files)
        self.commit: str | None = None
        self.label = f"{base.label}+{len(self.overlay)} pending"

    def files(self, problems: list[Problem]) -> dict[str, int]:
        """Every path with its size in bytes."""
        out = dict(self.base.files(problems))
        for path, data in self.overlay.items():
            if data is None:
                out.pop(path, None)
            else:
                out[path] = len(data)
        return out

    def read(self, path: str) -> bytes:
        """The bytes of one file. Raises LemmataError ``missing-file``."""
        if path in self.overlay:
            data = self.overlay[path]
            if data is None:
                raise LemmataError("missing-file", "deleted", path=path)
            return data
        return self.base.read(path)


def _dump_json(record: m.Record) -> bytes:
    return (json.dumps(record.model_dump(by_alias=True, exclude_none=True), sort_keys=True,
                       indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _dump_yaml(obj: object) -> bytes:
    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=True).encode("utf-8")


def _sign(record: m.Record, key: Ed25519PrivateKey | None, key_id: str) -> m.Record:
    if key is None:
        return record
    return record.model_copy(update={"signature": signing.sign(record, key, "gate", key_id,
                                                                "gate")})


def _compact(date: str) -> str:
    """``2026-01-02T03:04:05Z`` → ``20260102T030405Z`` (file-name timestamps)."""
    d = derive.norm_date(date)
    return d.replace("-", "").replace(":", "")
