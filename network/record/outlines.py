"""Which of a node's outline records describe its proofs' current bytes (D-3 v3.30).

The post-merge job writes ``outline/<proof>.json`` once per merge of a proof and never
deletes one. A proof's bytes can change after its outline was written (a tutorial node's
rehearsal slot re-merges Proof.lean, D-27), and an outline that could not be rebuilt is not
written (fail closed), so the old file stays. An outline is shown for a proof only while
its ``proof_sha256`` is the SHA-256 of the bytes the node holds at that path now, and only
when it names its own target, node and a file of that node: otherwise it speaks of other
bytes, and the page and ``get_node`` show none.
"""

from __future__ import annotations

from network.record import models as m
from network.record.loader import Node, RecordFile


def file_hashes(n: Node) -> dict[str, str]:
    """``{graph path: SHA-256 hex}`` of the node's Lean files and attempts now."""
    out = {lf.path: lf.sha256 for lf in n.files.values()}
    out.update({a.path: a.sha256 for a in n.attempts})
    return out


def current(n: Node) -> list[RecordFile[m.Outline]]:
    """The node's outline records that describe the current bytes of a file of this node
    (record order kept): ``target``/``node`` name where the record is filed and
    ``proof_sha256`` is the hash of ``proof``'s bytes now."""
    hashes = file_hashes(n)
    return [rf for rf in n.outlines
            if rf.record.target == n.ref.target and rf.record.node == n.ref.node
            and hashes.get(rf.record.proof) == rf.record.proof_sha256]


def for_file(n: Node, path: str) -> m.Outline | None:
    """The outline of the node's file ``path`` as its bytes are now, or None."""
    return next((rf.record for rf in current(n) if rf.record.proof == path), None)
