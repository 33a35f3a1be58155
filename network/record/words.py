"""Words: a node's gloss and explainer chains and every file still lacking words (ruling 11,
D-3 v3.30/v3.31/v3.44, D-28 list_words_needed). A derivation above
:mod:`network.record.approvals`, which reads the derivation index (issue 34: no circle).
"""

from __future__ import annotations

from typing import Any

from network.errors import LemmataError
from network.record import approvals, outlines
from network.record.derive._common import ROUTE_KINDS, norm_date
from network.record.derive._index import _check, _ix
from network.record.read.loader import Graph, Node


def words_chains(graph: Graph, target: str, node: str, kind: str) -> list[dict[str, Any]]:
    """The node's gloss (``kind="gloss"``) or explainer (``"explainer"``) version chains
    (ruling 11, D-3 v3.30/v3.31), withdrawn versions absent.

    A chain starts at a version with no ``supersedes``; each later version whose
    ``supersedes`` names a member joins it; the current version is the chain's latest.

    Returns:
        ``[{describes, current, history}]`` in record order (date, path) of the chains'
        first versions; ``current`` and each of ``history`` (oldest first, current last)
        are ``{path, author, date, label, sections: [{steps, text, drafted_with}],
        approvals: [signer] (verified approvals only, embedded or approval/v1 records,
        ruling 14), section_states (:func:`network.record.approvals.section_states`),
        supersedes}``; each chain also has ``reads``, the version a reader is shown
        (the newest with no pending section, v3.31).

    Raises:
        LemmataError: ``unknown-node``. ValueError: an unknown ``kind``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    n = ix.node(target, node)
    if kind not in ("gloss", "explainer"):
        raise ValueError(f"no words kind {kind!r}")
    recs: list[Any] = n.glosses if kind == "gloss" else n.explainers
    versions = sorted(((norm_date(rf.record.date), rf.path, rf.record) for rf in recs
                       if ix.present(rf.path)), key=lambda x: (x[0], x[1]))
    chains: list[dict[str, Any]] = []
    member: dict[str, int] = {}
    for date, path, rec in versions:
        view = {"path": path, "author": rec.author, "date": date,
                "label": getattr(rec, "label", None),
                "sections": [{"steps": list(s.steps), "text": s.text,
                              "drafted_with": list(s.drafted_with)} for s in rec.sections],
                "approvals": list(dict.fromkeys(
                    a["by"] for a in approvals.approvals_of(graph, target, n, path))),
                "section_states": approvals.section_states(graph, target, n, path),
                "supersedes": rec.supersedes}
        at = member.get(rec.supersedes) if rec.supersedes else None
        if at is None:
            at = len(chains)
            chains.append({"describes": rec.describes, "current": view, "history": []})
        chains[at]["history"].append(view)
        chains[at]["current"] = view
        member[path] = at
    for c in chains:  # v3.31: a change over verified words is read once approved
        c["reads"] = approvals.reading_version(graph, target, n,
                                               [v["path"] for v in c["history"]])
    return chains


#: Kinds of file :func:`words_needed` lists (D-28 list_words_needed, D-3 v3.30/v3.44).
WORDS_KINDS = ("statement", "witness", "relation", "proof", "partial")
_WORDS_FILES = {"Statement": "statement", "Witness": "witness", "Relation": "relation"}


def words_needed(graph: Graph, target: str | None = None,
                 kind: str | None = None) -> list[dict[str, Any]]:
    """Every Lean file and merged proof of the record that still lacks words (D-28
    list_words_needed, notation notes 2026-10-05/06; D-3 v3.30/v3.31/v3.44).

    What needs words, and which words count:

    * ``statement``, ``witness``, ``relation``: a node's Statement.lean (not a root's: its
      words of record are the target's curated informal statement, D-6, D-9),
      Witness.lean and Relation.lean need a gloss chain describing the file.
    * ``proof``: a node's merged Proof.lean and its recorded alternates need an explainer
      chain (D-3 v3.30); only these, since the gate accepts an explainer only on a node
      with a merged proof (``explainer-without-proof``).
    * ``partial``: a merged partial or reduction (its file under attempts/) needs a gloss
      or an explainer chain (v3.44).

    A file lacks words when no chain of the counting kind with a non-withdrawn version
    describes it (``why`` = ``no-gloss`` / ``no-explainer`` / ``no-words``), or when every
    such chain's current version describes bytes other than the file's current SHA-256
    (``why`` = ``words-describe-earlier-text``). Definition modules are not listed: the
    record has no place for a target-level gloss yet. ``outline`` is the path of the
    gate's outline of that file's current bytes (``outline/<proof>.json``, D-3 v3.30), or
    None when the post-merge job wrote none (no toolchain) or the file changed since. Nothing is ranked (D-25): the order is target, node, file path.

    Args:
        graph: the loaded record.
        target: keep only this target's files, or None for all.
        kind: keep only this kind (one of :data:`WORDS_KINDS`), or None.

    Returns:
        ``[{target, node, file, sha256, kind, words, why, status, outline}]`` where
        ``words`` is ``gloss``, ``explainer`` or ``gloss-or-explainer`` and ``status`` the
        node's derived status.

    Raises:
        LemmataError: ``unknown-node`` when ``target`` names no target. ValueError: an
            unknown ``kind`` (the service checks it first).
    """
    if kind is not None and kind not in WORDS_KINDS:
        raise ValueError(f"no words kind {kind!r}")
    if target is not None and target not in graph.targets:
        raise LemmataError("unknown-node", f"no target {target}")
    ix = _ix(graph)
    out: list[dict[str, Any]] = []
    for tid in sorted(graph.targets) if target is None else [target]:
        t = graph.targets[tid]
        for nid in sorted(t.nodes):
            n = t.nodes[nid]
            wanted: list[tuple[str, str, str, str]] = []  # (file, sha, kind, words)
            for name, k in _WORDS_FILES.items():
                lf = n.files.get(name)
                if lf is None or (k == "statement" and ix.is_root(tid, nid)):
                    continue
                wanted.append((lf.path, lf.sha256, k, "gloss"))
            proof = n.files.get("Proof")
            if proof is not None:
                wanted.append((proof.path, proof.sha256, "proof", "explainer"))
                wanted.extend((a.path, a.sha256, "proof", "explainer")
                              for a in n.attempts if a.kind == "alternate")
            wanted.extend((a.path, a.sha256, "partial", "gloss-or-explainer")
                          for a in n.attempts
                          if a.kind in ROUTE_KINDS and ix.is_merged(a.path, a.sha256))
            if not any(kind in (None, w[2]) for w in wanted):
                continue
            chains = {"gloss": words_chains(graph, tid, nid, "gloss"),
                      "explainer": words_chains(graph, tid, nid, "explainer")}
            status = ix.status(tid, nid)
            shown = outlines.current(n, graph)  # the gate-signed outlines of these bytes
            for path, sha, k, words in sorted(wanted):
                if kind is not None and k != kind:
                    continue
                kinds = ("gloss", "explainer") if words == "gloss-or-explainer" else (words,)
                found = [c for w in kinds for c in chains[w] if c["describes"] == path]
                if not found:
                    why = {"gloss": "no-gloss", "explainer": "no-explainer"}.get(words, "no-words")
                elif not any(_describes_current(n, c, sha) for c in found):
                    why = "words-describe-earlier-text"
                else:
                    continue
                out.append({"target": tid, "node": nid, "file": path, "sha256": sha,
                            "kind": k, "words": words, "why": why, "status": status,
                            "outline": next((o.path for o in shown
                                             if o.record.proof == path), None)})
    return out


def _describes_current(n: Node, chain: dict[str, Any], sha: str) -> bool:
    """Whether ``chain``'s current version names ``sha`` as the text it describes."""
    path = chain["current"]["path"]
    named = {rf.path: rf.record.describes_sha256 for rf in n.glosses}
    named.update({rf.path: rf.record.describes_sha256 for rf in n.explainers})
    return named.get(path) == sha
