"""Approvals of words, section by section, and each section's derived state (D-3
v3.31/v3.33, Foundation ruling 11).

An approval is an append-only ``approval/v1`` record under the node of the words it signs
(``targets/<t>/nodes/<n>/approvals/<ts>-<pseudonym>.yaml``) naming one gloss or explainer
version by path and SHA-256 and the sections it approves. It counts when:

* its ``words`` is a standing (not withdrawn) version of that node, of those exact bytes,
  and every section index it names exists;
* it is signed by its ``by`` (:mod:`network.record.trust`), who on its date is a steward of
  the target or a curator (ruling 14). A steward's or curator's own version is final once
  they sign it (v3.33), so the author may be the signer when they hold the role.

Embedded approvals (``Words.approvals``, signed over :func:`network.record.trust.
approval_body`) are still read: each verified one approves every section of its version.

A section's state is one of:

* ``verified``: an approval names it; or its version supersedes one whose section at the
  same index has the same steps and text and is verified (unchanged words stay verified);
* ``pending``: not verified, and the superseded version has a verified section: a
  person's change over verified words waits for approval (v3.31);
* ``drafted``: a model drafted it (``drafted_with`` not empty);
* ``written``: a person wrote it.

The approval earns the words' author the write-up line once (D-19, D-3 v3.33), never the
signer: :func:`credited_version` is what the post-merge job reads.
"""

from __future__ import annotations

from typing import Any

from network.record import models as m
from network.record.derive._common import norm_date
from network.record.derive._index import _ix
from network.record.read.loader import Graph, Node, RecordFile

SECTION_STATES = ("drafted", "written", "verified", "pending")


def version_of(node: Node, path: str) -> RecordFile[Any] | None:
    """The gloss or explainer version of ``node`` at ``path``, or None."""
    return _version(node, path)


def _version(node: Node, path: str) -> RecordFile[Any] | None:
    versions: list[RecordFile[Any]] = [*node.glosses, *node.explainers]
    return next((rf for rf in versions if rf.path == path), None)


def approval_counts(graph: Graph, target: str, node: Node,
                    rf: RecordFile[m.Approval]) -> bool:
    """Whether the approval record ``rf`` on ``node`` counts (see the module docstring).

    Raises: nothing; an approval that does not count is simply not read."""
    ix = _ix(graph)
    rec = rf.record
    if not ix.present(rf.path):
        return False
    ver = _version(node, rec.words)
    if ver is None or not ix.present(ver.path) or ver.sha256 != rec.words_sha256:
        return False
    if not rec.sections or max(rec.sections) >= len(ver.record.sections):
        return False
    return ix.role_signed(rf.path, rec, rec.by, rec.date, target)


def approvals_of(graph: Graph, target: str, node: Node, words: str) -> list[dict[str, Any]]:
    """The approvals that count of the version at ``words``: ``[{path, by, date,
    sections}]`` in record order (date, path); an embedded approval reads ``{path: the
    version's own path, by: signer, date: the version's date, sections: all}``."""
    ix = _ix(graph)
    ver = _version(node, words)
    if ver is None or not ix.present(ver.path):
        return []
    out: list[dict[str, Any]] = []
    for sig in ix.approved(target, ver.record):
        out.append({"path": ver.path, "by": sig.signer, "date": norm_date(
            ver.record.date), "sections": list(range(len(ver.record.sections)))})
    recs = sorted((rf for rf in node.approvals if rf.record.words == words),
                  key=lambda rf: (norm_date(rf.record.date), rf.path))
    for rf in recs:
        if approval_counts(graph, target, node, rf):
            out.append({"path": rf.path, "by": rf.record.by,
                        "date": norm_date(rf.record.date),
                        "sections": sorted(set(rf.record.sections))})
    return out


def section_states(graph: Graph, target: str, node: Node, words: str,
                   _depth: int = 0) -> list[str]:
    """Each section's state of the version at ``words``, in section order (one of
    :data:`SECTION_STATES`); empty for a path that is no version of ``node``."""
    ver = _version(node, words)
    if ver is None:
        return []
    rec: m.Words = ver.record
    approved: set[int] = set()
    for a in approvals_of(graph, target, node, words):
        approved.update(a["sections"])
    prev = _version(node, rec.supersedes) if rec.supersedes else None
    prev_states: list[str] = []
    if prev is not None and _depth < 1000:
        prev_states = section_states(graph, target, node, prev.path, _depth + 1)
    over_verified = "verified" in prev_states
    out: list[str] = []
    for i, sec in enumerate(rec.sections):
        if i in approved:
            out.append("verified")
            continue
        if prev is not None and i < len(prev_states) and prev_states[i] == "verified":
            old = prev.record.sections[i]
            if old.text == sec.text and list(old.steps) == list(sec.steps):
                out.append("verified")
                continue
        if over_verified:
            out.append("pending")
        elif sec.drafted_with:
            out.append("drafted")
        else:
            out.append("written")
    return out


def credited_version(graph: Graph, target: str, node: Node,
                     rf: RecordFile[m.Approval]) -> RecordFile[Any] | None:
    """The words version an approval record earns its author the write-up line for (D-19,
    D-3 v3.33: "it earns once, on the write-up line, as the author's work"), or None when
    the approval does not count or the version earned it already (a ledger line names it,
    or the version carries a verified embedded approval)."""
    if not approval_counts(graph, target, node, rf):
        return None
    ver = _version(node, rf.record.words)
    if ver is None:
        return None
    ix = _ix(graph)
    if ix.approved(target, ver.record):
        return None
    if any(isinstance(ln.record, m.LedgerLine) and ln.record.line == "writeup"
           and ln.record.artifact == ver.path for ln in graph.ledger):
        return None
    return ver


def reading_version(graph: Graph, target: str, node: Node, chain: list[str]) -> str | None:
    """The version a reader is shown of a chain (``chain``: its version paths, oldest
    first): the newest with no pending section, so a person's change over verified words
    is not read as the words until approved (v3.31). None for an empty chain."""
    for path in reversed(chain):
        if "pending" not in section_states(graph, target, node, path):
            return path
    return chain[-1] if chain else None
