"""A related variant's pertinence signature (D-30 v3.12; issue 18).

D-30 v3.12: the kernel protects a resolves or partial (or, from v3.46, refutes) variant's
claim on its target by the relation it proves. A related variant proves nothing; the only
claim made is its ``pertinence`` sentence (META.yaml ``variant.pertinence``: an improved
bound, a nearby case, a reformulation), and "that sentence carries one signature before
the variant is published as pertinent to the target. It is not a fidelity grade and does
not enter the ladder; it is one human act on the one claim no kernel checks."

The act is a ``pertinence/v1`` record (:class:`network.record.models.Pertinence`) under
``targets/<t>/nodes/<variant>/pertinence/<ts>-<pseudonym>.yaml`` naming its target, its
variant and the SHA-256 of the sentence's UTF-8 bytes, signed by its ``by``.

Who signs (the ruling, docs/record.md): **a steward of the target (D-32) or a curator
(D-22)**, holding the role on the record's date. D-30 names no role; these are the two
that the decisions let judge whether a statement bears on its root — a shelving, the
judgment that a statement does not serve the root, is "a steward of the target or a
curator"'s (D-14 v3.47), and a literature reading is confirmed by the same two (D-25
v3.35). The proposer of the variant may be that role holder: the act is not a fidelity
grade (so D-9's non-author rule does not reach it), and a steward's or curator's own
words are final once they sign them (D-3 v3.33).

What derives from the records here (nothing is written as a status):

* a related variant is **pertinent** exactly while one standing (not withdrawn) record
  under its node names this target and this node, carries the SHA-256 of the sentence
  META.yaml holds now, and is signed by its ``by`` holding the role on its date
  (:func:`network.record.trust.check_role_signature`, the check step 2 makes);
* a record for another sentence (the sentence changed after signing), another node or
  another target, or whose signature does not verify, counts for nothing and is listed by
  :func:`unverified`;
* a related variant with no sentence cannot be signed and reads unsigned;
* a variant of any other relation needs no signature: :func:`pertinence_state` is None.

The products carry it in each node row's ``variant`` of ``targets/<id>/graph.json``
(:func:`annotate_view`: ``pertinence_signed`` and ``pertinence_signature``), which the
target and node pages and ``get_node`` read.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from network.errors import LemmataError
from network.record import derive, trust
from network.record import models as m
from network.record.read.loader import Graph, Node, RecordFile

#: the one relation whose claim on the target rests on a signed sentence (D-30 v3.12)
SIGNED_RELATION = "related"


def sentence_sha256(sentence: str) -> str:
    """The SHA-256 (hex) of ``sentence``'s UTF-8 bytes exactly as META.yaml holds it: no
    normalisation, so any edit, whitespace included, is a new sentence (D-30 v3.12)."""
    return hashlib.sha256(sentence.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PertinenceSignature:
    """One verified signature on the sentence: the record's graph ``path``, its signer
    ``by`` (a pseudonym), its ``date`` (ISO) and the ``sentence_sha256`` it signs."""

    path: str
    by: str
    date: str
    sentence_sha256: str

    def as_json(self) -> dict[str, str]:
        """``{path, by, date, sentence_sha256}``."""
        return {"path": self.path, "by": self.by, "date": self.date,
                "sentence_sha256": self.sentence_sha256}


@dataclass(frozen=True)
class PertinenceState:
    """A related variant's pertinence (D-30 v3.12).

    Attributes:
        sentence: META.yaml's ``variant.pertinence`` now, or None when it has none.
        sentence_sha256: :func:`sentence_sha256` of it, or None.
        signature: the earliest verified signature on this very sentence, or None.
        not_counted: paths of the node's pertinence records that count for nothing (for
            another sentence, node or target, or not verifying), in record order.
    """

    sentence: str | None
    sentence_sha256: str | None
    signature: PertinenceSignature | None
    not_counted: tuple[str, ...]

    @property
    def signed(self) -> bool:
        """Whether the variant is published as pertinent to its target."""
        return self.signature is not None


def needs_signature(meta: m.Meta) -> bool:
    """Whether ``meta``'s node is a variant whose claim on its target is a sentence only
    (relation ``related``); resolves, partial and refutes variants need none."""
    return meta.variant is not None and meta.variant.relation == SIGNED_RELATION


def record_problem(graph: Graph, target: str, node: str,
                   rec: m.Pertinence) -> tuple[str, str] | None:
    """What makes ``rec``, filed under ``target``/``node`` of ``graph``, name something it
    may not — the rules step 2 and the service refuse by, and derive ignores by.

    Returns:
        None, or ``(code, detail)`` with code ``pertinence-elsewhere`` (its ``target`` or
        ``variant`` is not where it is filed: a replay), ``pertinence-not-related`` (the
        node is no variant, or its relation is proved: resolves, partial, refutes),
        ``pertinence-no-sentence`` (a related variant without a sentence) or
        ``pertinence-sentence-mismatch`` (the hash is not that of the sentence now).
        A target or node the graph lacks gives None (step 2's placement reports it).
    """
    t = graph.targets.get(target)
    if t is None or node not in t.nodes:
        return None
    if rec.target != target or rec.variant != node:
        return ("pertinence-elsewhere", (f"names {rec.target}/{rec.variant} but is filed "
                f"under {target}/{node}"))
    meta = t.nodes[node].meta
    if not needs_signature(meta):
        what = f"a {meta.variant.relation} variant" if meta.variant else "not a variant"
        return ("pertinence-not-related", (f"{target}/{node} is {what}: only a related "
                "variant's sentence is signed (D-30 v3.12)"))
    assert meta.variant is not None
    sentence = meta.variant.pertinence
    if not sentence:
        return ("pertinence-no-sentence", f"{target}/{node} carries no pertinence sentence")
    want = sentence_sha256(sentence)
    if rec.sentence_sha256 != want:
        return ("pertinence-sentence-mismatch", (f"signs {rec.sentence_sha256}, but the "
                f"sentence of {target}/{node} hashes to {want}"))
    return None


def signature_problem(graph: Graph, target: str, rec: m.Pertinence,
                      at_dates: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """Whether ``rec`` is signed by its ``by`` while holding a steward's role on
    ``target`` or a curator's, on the record's date and on each of ``at_dates``.

    Returns:
        None, or ``(code, detail)`` with :func:`network.record.trust.check_role_signature`'s
        codes ``role-act-unsigned``, ``role-key-unbound``, ``role-signature-invalid``.
    """
    if target not in graph.targets:
        return ("role-key-unbound", f"no target {target}")
    for when in dict.fromkeys((rec.date, *at_dates)):
        try:
            trust.check_role_signature(
                rec, rec.signature, actors=frozenset({rec.by}),
                holds=lambda who, d: derive.holds_role(graph, target, who, d),
                at_date=when, keys=graph.keys, identities=graph.identities)
        except LemmataError as exc:
            return (exc.code, exc.detail)
    return None


def _standing(graph: Graph, n: Node) -> list[RecordFile[m.Pertinence]]:
    gone = derive.withdrawn(graph)
    return [rf for rf in n.pertinences if rf.path not in gone]


def pertinence_state(graph: Graph, target: str, node: str) -> PertinenceState | None:
    """The node's :class:`PertinenceState`, or None when it needs no signature (not a
    related variant).

    Raises:
        LemmataError: ``unknown-node`` for a target or node the graph lacks.
    """
    t = graph.targets.get(target)
    if t is None or node not in t.nodes:
        raise LemmataError("unknown-node", f"{target}/{node}")
    n = t.nodes[node]
    if not needs_signature(n.meta):
        return None
    assert n.meta.variant is not None
    sentence = n.meta.variant.pertinence or None
    want = sentence_sha256(sentence) if sentence else None
    found: PertinenceSignature | None = None
    bad: list[str] = []
    for rf in sorted(_standing(graph, n), key=lambda r: (r.record.date, r.path)):
        rec = rf.record
        if record_problem(graph, target, node, rec) or signature_problem(graph, target, rec):
            bad.append(rf.path)
        elif found is None:
            found = PertinenceSignature(rf.path, rec.by, rec.date, rec.sentence_sha256)
    return PertinenceState(sentence, want, found, tuple(bad))


def unverified(graph: Graph) -> frozenset[str]:
    """Paths of every standing pertinence record that counts for nothing (see
    :class:`PertinenceState`'s ``not_counted``), including those under a node that needs
    no signature."""
    out: set[str] = set()
    for tid, t in graph.targets.items():
        for nid, n in t.nodes.items():
            if not n.pertinences:
                continue
            st = pertinence_state(graph, tid, nid)
            if st is None:
                out.update(rf.path for rf in _standing(graph, n))
            else:
                out.update(st.not_counted)
    return frozenset(out)


def annotate_view(graph: Graph, target: str, view: dict[str, Any]) -> dict[str, Any]:
    """``view`` (:func:`network.record.derive.graph_view` of ``target``) with each related
    variant's row ``variant`` carrying ``pertinence_signed`` (bool) and
    ``pertinence_signature`` (``{path, by, date, sentence_sha256}`` or None). Rows of
    other nodes are left as they are. ``view`` is not mutated: the result is a copy where
    it differs.
    """
    t = graph.targets[target]
    rows = []
    for row in view.get("nodes", []):
        nid = row.get("id")
        v = row.get("variant")
        if isinstance(v, dict) and nid in t.nodes:
            st = pertinence_state(graph, target, nid)
            if st is not None:
                row = {**row, "variant": {
                    **v, "pertinence_signed": st.signed,
                    "pertinence_signature": st.signature.as_json() if st.signature else None}}
        rows.append(row)
    return {**view, "nodes": rows}


def node_pertinence(graph: Graph, target: str, node: str) -> dict[str, Any] | None:
    """What ``get_node`` answers under ``pertinence``: None for a node that needs no
    signature, else ``{sentence, sentence_sha256, signed, signature, not_counted}``.

    Raises:
        LemmataError: ``unknown-node``.
    """
    st = pertinence_state(graph, target, node)
    if st is None:
        return None
    return {"sentence": st.sentence, "sentence_sha256": st.sentence_sha256,
            "signed": st.signed,
            "signature": st.signature.as_json() if st.signature else None,
            "not_counted": list(st.not_counted)}
