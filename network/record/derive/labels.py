"""Names: a node's label and claim, a route's approach (D-3 v3.44, D-12 v3.44,
D-25 v3.44). Lean is never parsed: only comment lines are read.
"""

from __future__ import annotations

import re

from network.record import models as m
from network.record.derive._common import Label, norm_date
from network.record.derive._index import _check, _Index, _ix
from network.record.read.loader import Graph, Node

_APPROACH_RE = re.compile(r"^\s*--\s*approach:\s*(.+?)\s*$", re.MULTILINE)
_DISPLAY_RE = re.compile(r"^\s*\$\$(.+?)\$\$", re.DOTALL)
_SENTENCE_RE = re.compile(r"(.+?[.!?])(\s|$)", re.DOTALL)
_HEX64_RE = re.compile(r"[0-9a-f]{64}")


def _current_gloss(ix: _Index, n: Node, describes: str) -> m.Gloss | None:
    """The current version of the first gloss chain filed on ``describes`` (D-3 v3.31/v3.44).

    The chain starts at the earliest gloss with no ``supersedes``; its current version is
    the latest version whose supersedes links lead back to that start. Pending states of
    v3.31 are not modelled: the latest version is current.
    """
    glosses = sorted(((norm_date(rf.record.date), rf.path, rf.record) for rf in n.glosses
                      if rf.record.describes == describes and ix.present(rf.path)),
                     key=lambda x: (x[0], x[1]))
    heads = [x for x in glosses if x[2].supersedes is None]
    if not heads:
        return None
    chain = {heads[0][1]}
    current = heads[0][2]
    for _, path, rec in glosses:
        if rec.supersedes in chain:
            chain.add(path)
            current = rec
    return current


def node_label(graph: Graph, target: str, node: str) -> Label:
    """A node's label, claim and label_source (D-25 v3.44).

    The label and claim of the current version of the first statement gloss chain on the
    node (source ``gloss``); else the name its hole bore in the route that made it
    (``hole``); a root the target's title (``target``); else the node id (``id``). The claim
    is the gloss's opening ``$$…$$`` display, or None.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    key = (target, node)
    if key not in ix._labels:
        ix._labels[key] = _node_label(ix, target, node)
    return ix._labels[key]


def _node_label(ix: _Index, target: str, node: str) -> Label:
    graph = ix.g
    n = ix.node(target, node)
    stmt = n.files.get("Statement")
    gloss = _current_gloss(ix, n, stmt.path) if stmt else None
    claim: str | None = None
    gloss_path: str | None = None
    if gloss is not None:
        mt = _DISPLAY_RE.match(gloss.sections[0].text)
        claim = mt.group(1).strip() if mt else None
        for rf in n.glosses:
            if rf.record is gloss:
                gloss_path = rf.path
        if gloss.label:
            return Label(gloss.label, claim, "gloss", gloss_path)
    if n.meta.hole is not None:
        return Label(n.meta.hole.name, claim, "hole", gloss_path)
    if ix.is_root(target, node):
        return Label(graph.targets[target].record.title, claim, "target", gloss_path)
    return Label(node, claim, "id", gloss_path)


def route_approach(graph: Graph, target: str, route: str) -> tuple[str | None, str | None]:
    """A route's approach and where it came from (D-12 v3.44, D-25 v3.44).

    In order: the partial's ``-- approach:`` line (``partial``); a gloss describing the
    partial, its first sentence (``gloss``); the partial's first comment paragraph
    (``comment``); the first sentence of an annex of the node whose hash the partial cites
    (``annex``); else ``(None, None)``. Lean is never parsed: only comment lines are read.

    Raises:
        KeyError: the route is not a decomposition of a node of the target.
    """
    ix = _ix(graph)
    owner = ix.t[target].route_owner[route]
    n = ix.node(target, owner)
    text = ix.text(route)
    mt = _APPROACH_RE.search(text)
    if mt:
        return mt.group(1), "partial"
    g = _current_gloss(ix, n, route)
    if g is not None:
        return _first_sentence(g.sections[0].text), "gloss"
    para = _first_comment_paragraph(text)
    if para:
        return para, "comment"
    annex_hashes = {rf.record.sha256: rf for rf in n.annexes if ix.present(rf.path)}
    for h in _HEX64_RE.findall(text):
        if h in annex_hashes:
            md = f"{ix.dir_of(n)}/annex/{h}.md"
            return _first_sentence(ix.text(md)), "annex"
    return None, None


def _first_sentence(text: str) -> str | None:
    text = " ".join(text.split())
    if not text:
        return None
    mt = _SENTENCE_RE.match(text)
    return mt.group(1) if mt else text


def _first_comment_paragraph(text: str) -> str | None:
    lines: list[str] = []
    in_block = False
    for raw in text.splitlines():
        line = raw.strip()
        if in_block:
            end = line.find("-/")
            lines.append(line[:end] if end >= 0 else line)
            if end >= 0:
                break
            continue
        if line.startswith("/-"):
            body = line.lstrip("/-!").strip()
            end = body.find("-/")
            if end >= 0:
                lines.append(body[:end])
                break
            lines.append(body)
            in_block = True
            continue
        if line.startswith("--"):
            lines.append(line[2:].strip())
            continue
        if lines or line:
            if lines:
                break
            if line and not line.startswith("import"):
                break
    para: list[str] = []
    for ln in lines:
        if not ln.strip():
            if para:
                break
            continue
        para.append(ln.strip())
    joined = " ".join(para).strip()
    return joined or None
