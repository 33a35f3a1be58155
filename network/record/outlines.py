"""Which of a node's outline records describe its proofs' current bytes (D-3 v3.30).

The post-merge job writes ``outline/<proof>.json`` once per merge of a proof and never
deletes one. A proof's bytes can change after its outline was written (a tutorial node's
rehearsal slot re-merges Proof.lean, D-27), and an outline that could not be rebuilt is not
written (fail closed), so the old file stays. An outline is shown for a proof only while
its ``proof_sha256`` is the SHA-256 of the bytes the node holds at that path now, and only
when it names its own target, node and a file of that node: otherwise it speaks of other
bytes, and the page and ``get_node`` show none.

An outline is also shown only when it is the gate's word (ruling 14): its signature is a
``gate`` signature that verifies with a gate key of ``keys/`` valid on the date of the
merge it names (``merge_seq``). ``outline/`` is a gate-only path (no pull request may
write it), but a file on main that no gate key signed (written by hand, by an operator's
push, or before the key existed) is no outline of the gate's.
"""

from __future__ import annotations

from network.record import models as m
from network.record import trust
from network.record.read.loader import Graph, Node, RecordFile


def file_hashes(n: Node) -> dict[str, str]:
    """``{graph path: SHA-256 hex}`` of the node's Lean files and attempts now."""
    out = {lf.path: lf.sha256 for lf in n.files.values()}
    out.update({a.path: a.sha256 for a in n.attempts})
    return out


def merge_date(graph: Graph, seq: int) -> str | None:
    """The date of the merge record numbered ``seq`` (``log/merges/<seq>.json``), or None
    when the graph holds none."""
    return next((rf.record.date for rf in graph.merges if rf.record.seq == seq), None)


def gate_signed(graph: Graph, rf: RecordFile[m.Outline]) -> bool:
    """Whether the outline record ``rf`` carries a gate signature that verifies with a gate
    key of ``graph.keys`` valid on the date of its merge (``merge_seq``; none: False).
    Remembered per file bytes and key record, as attestations are
    (:func:`network.record.trust.gate_signed_record`)."""
    date = merge_date(graph, rf.record.merge_seq)
    return date is not None and trust.gate_signed_record(
        rf.record, rf.record.signature, graph.keys, date, rf.sha256)


def current(n: Node, graph: Graph) -> list[RecordFile[m.Outline]]:
    """The node's outline records that describe the current bytes of a file of this node
    (record order kept): ``target``/``node`` name where the record is filed,
    ``proof_sha256`` is the hash of ``proof``'s bytes now, and the gate signed it
    (:func:`gate_signed`)."""
    hashes = file_hashes(n)
    return [rf for rf in n.outlines
            if rf.record.target == n.ref.target and rf.record.node == n.ref.node
            and hashes.get(rf.record.proof) == rf.record.proof_sha256
            and gate_signed(graph, rf)]


def for_file(n: Node, graph: Graph, path: str) -> m.Outline | None:
    """The outline of the node's file ``path`` as its bytes are now, or None."""
    return next((rf.record for rf in current(n, graph) if rf.record.proof == path), None)
