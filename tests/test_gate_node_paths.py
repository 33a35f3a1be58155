"""The node-path table of the gate's classifier (issue 9, issue 17).

:data:`network.gate.artifacts.NODE_PATH_RULES` replaced the branches of the former
``_classify_node_path``. These tests hold the table to the layout's path table, and run
:func:`~network.gate.artifacts.classify` over every file of ``graph/`` and a list of
hostile paths (case variants, ``..``, trailing slashes, Unicode look-alikes, nested
folders, wrong extensions) on nodes in every state the table reads.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from network.gate import artifacts as A
from network.gate.diff import Change
from network.gate.result import Diagnostic
from network.record import layout
from network.record import models as m
from network.record.read.loader import Graph, LeanFile, load_graph, sha256_hex

GRAPH = Path(__file__).resolve().parents[1] / "graph"
#: bytes a synthetic merged proof holds (an alternate of these bytes is a copy)
PROOF_BYTES = b"theorem merged : True := trivial\n"
OTHER_BYTES = b"-- some other bytes\n"
STATUSES = ("added", "modified", "deleted")

#: (target, node) of a node in each state the table reads
PLAIN = ("erdos-11", "plain")
TUTORIAL = ("erdos-11", "rehearsal")
PROVED = ("erdos-11", "proved")
BLOCKED_HOLE = ("erdos-11", "root--h1")
WITNESSED_HOLE = ("erdos-11", "root--h2")
STATES = (PLAIN, TUTORIAL, PROVED, BLOCKED_HOLE, WITNESSED_HOLE)


class FakeDiff:
    """What :func:`classify` reads of a diff: its changes, entry findings and new bytes."""

    def __init__(self, change: Change, data: bytes) -> None:
        self.changes = [change]
        self.entry_findings: list[Diagnostic] = []
        self._data = data

    def new_size(self, change: Change) -> int:
        return len(self._data)

    def new_bytes(self, change: Change) -> bytes:
        return self._data


def _with_states(g: Graph) -> Graph:
    """``graph/`` plus, on one of its targets, a node in each state the table reads: plain
    (statement and witness), a tutorial node, one with a merged proof, and two holes, one
    still blocked. They are built here, so the hostile cases do not move with graph/."""
    t = g.targets[PLAIN[0]]
    root = t.nodes["root"]
    stmt = root.files["Statement"]
    proof = LeanFile(stmt.path.replace("Statement", "Proof"), sha256_hex(PROOF_BYTES),
                     len(PROOF_BYTES))

    def node(nid: str, files: dict[str, LeanFile], hole: m.HoleOf | None,
             tutorial: bool = False) -> Any:
        meta = root.meta.model_copy(update={"hole": hole, "tutorial": tutorial})
        return dataclasses.replace(root, ref=dataclasses.replace(root.ref, node=nid),
                                   meta=meta, files=files, attempts=[])

    def hole(k: int) -> m.HoleOf:
        return m.HoleOf(parent="root", route="targets/erdos-11/nodes/root/Proof.lean", k=k,
                        name=f"h{k}")

    plain = {"Statement": stmt, "Witness": root.files["Witness"]}
    t.nodes[PLAIN[1]] = node(PLAIN[1], plain, None)
    t.nodes[TUTORIAL[1]] = node(TUTORIAL[1], plain, None, tutorial=True)
    t.nodes[PROVED[1]] = node(PROVED[1], {"Statement": stmt, "Proof": proof}, None)
    t.nodes[BLOCKED_HOLE[1]] = node(BLOCKED_HOLE[1], {"Statement": stmt}, hole(1))
    t.nodes[WITNESSED_HOLE[1]] = node(WITNESSED_HOLE[1],
                                      {"Statement": stmt, "Witness": root.files["Witness"]},
                                      hole(2))
    return g


@pytest.fixture(scope="module")
def base() -> Graph:
    return _with_states(load_graph(GRAPH))


def _filled(template: str) -> str:
    return (template.replace("<ts>", "20260101T000000Z").replace("<pseudonym>", "alice")
            .replace("<k>", "1").replace("<hash>", "a" * 64).replace("<sha256>", "b" * 64))


def _variants(rel: str) -> Iterator[str]:
    """Hostile spellings of a node-relative path."""
    yield rel
    yield rel.upper()
    yield rel.lower()
    yield rel[:1].swapcase() + rel[1:]
    yield rel + "/"
    yield "./" + rel
    yield "../" + rel
    yield rel.replace("/", "//")
    yield "extra/" + rel
    head, _, last = rel.rpartition("/")
    yield f"{head}/x/{last}" if head else f"x/{last}"
    yield f"{head}/../{last}" if head else f"../../{last}"
    yield rel + ".txt"
    yield rel.replace(".lean", ".lean.bak").replace(".yaml", ".yml").replace(".json", ".JSON")
    yield rel.rsplit(".", 1)[0]
    yield rel.replace("o", "\u043e")  # Cyrillic o
    yield rel.replace("a", "\u0430").replace("e", "\u0435")  # Cyrillic a, e
    yield rel.replace(".", "\uff0e")  # fullwidth full stop
    yield rel + "\u200b"  # zero-width space
    yield rel + " "
    yield rel.replace("-", "\u2010")  # hyphen look-alike


def _node_paths() -> Iterator[tuple[str, str]]:
    """(label, path) over every template of the table, on every node state."""
    for tid, nid in STATES:
        for template in sorted(A.NODE_PATH_RULES):
            for rel in _variants(_filled(template)):
                yield f"{nid}:{template}", f"targets/{tid}/nodes/{nid}/{rel}"
        for node_spelling in (nid.upper(), nid + "/", "..", nid + "\u200b"):
            yield f"{nid}:spelling", f"targets/{tid}/nodes/{node_spelling}/Proof.lean"


def graph_paths() -> list[str]:
    return sorted(p.relative_to(GRAPH).as_posix() for p in GRAPH.rglob("*") if p.is_file())


def hostile_paths() -> list[str]:
    return sorted({p for _label, p in _node_paths()})


def _summary(base: Graph, path: str, status: str, data: bytes) -> tuple[Any, ...]:
    change = Change(path, status, 0o100644,  # type: ignore[arg-type]
                    None if status == "added" else "1" * 40,
                    None if status == "deleted" else "2" * 40)
    got = A.classify(FakeDiff(change, data), base)  # type: ignore[arg-type]
    return (tuple((a.kind.value, a.target, a.node, tuple(a.paths), a.main)
                  for a in got.artifacts),
            tuple(d.to_dict().items() for d in got.step1),
            tuple(tuple(d.to_dict().items()) for d in got.step2),
            tuple(sorted(got.oversized)))


#: the outcome of a path no row of the layout's table admits (decided before the node table)
DEFAULT = "!path-not-permitted: no path of docs/record.md's table admits this name"


def outcome(base: Graph, path: str, status: str, data: bytes) -> str:
    """One case's result in one line: each artifact as ``<kind>`` (``<kind> (rides)`` when
    the path is not its main path), each finding as ``!<code>: <message>``."""
    arts, s1, s2, _oversized = _summary(base, path, status, data)
    parts = [kind if main == path else f"{kind} (rides)" for kind, _t, _n, _p, main in arts]
    parts += [f"!{dict(d)['code']}: {dict(d)['message']}" for d in (*s1, *s2)]
    return "; ".join(parts)


def cases(paths: list[str] | None = None) -> list[tuple[str, str, bytes]]:
    """(path, status, new bytes) over ``paths`` (default: graph/'s and the hostile ones)."""
    out = []
    for path in [*graph_paths(), *hostile_paths()] if paths is None else paths:
        for status in STATUSES:
            out.append((path, status, OTHER_BYTES))
            if path.endswith("-alternate.lean"):
                out.append((path, status, PROOF_BYTES))
    return out


def test_the_table_has_a_row_for_every_node_template_of_the_layout() -> None:
    """Every node file the layout admits has exactly one row, and no row names a path the
    layout does not hold."""
    node_dir = "targets/<target>/nodes/<node>/"
    layout_rows = {r.template[len(node_dir):]: r for r in layout.PATH_TABLE
                   if r.template.startswith(node_dir)}
    assert set(A.NODE_PATH_RULES) == set(layout_rows)
    for rel, rule in A.NODE_PATH_RULES.items():
        row = layout_rows[rel]
        if row.writer in ("gate", "product"):
            assert rule.fixed is not None and rule.fixed[0] == "gate-only-path", rel
        if rule.kind is not None:  # an admitted file joins the layout's artifact kind
            assert rule.kind.value == row.kind, rel


def test_the_cases_reach_every_row_and_state(base: Graph) -> None:
    """The hostile list is not vacuous: each row admits its plain spelling on some node,
    or refuses it there with the row's own code."""
    admitted: set[str] = set()
    for template, rule in A.NODE_PATH_RULES.items():
        for tid, nid in STATES:
            path = f"targets/{tid}/nodes/{nid}/{_filled(template)}"
            assert A.node_path_rule(path) is rule, path
            arts, _s1, s2, _o = _summary(base, path, "added", OTHER_BYTES)
            if arts:
                admitted.add(template)
            if rule.fixed is not None:
                assert s2 and dict(s2[0])["code"] == rule.fixed[0], path
    assert admitted == {t for t, r in A.NODE_PATH_RULES.items() if r.kind is not None}


#: every hostile case's outcome that is not :data:`DEFAULT`, recorded from the former
#: branches of ``_classify_node_path`` while both ran (the table gave the same for each)
EXPECTED = Path(__file__).resolve().parent / "fixtures" / "gate_node_paths.json"


def _key(path: str, status: str, data: bytes) -> str:
    return f"{status} {'copy ' if data == PROOF_BYTES else ''}{path}"


def test_every_hostile_case_classifies_as_recorded(base: Graph) -> None:
    """Every hostile spelling, added, modified or deleted, on every node state, gives the
    recorded artifacts and findings (messages included), in the same order."""
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    got = {_key(*c): outcome(base, *c) for c in cases(hostile_paths())}
    assert {k: v for k, v in got.items() if v != DEFAULT} == expected
    assert len(got) > 3000 and len(expected) > 400


@pytest.mark.parametrize(("path", "status", "expected"), [
    ("plain/Proof.lean", "added", "proof"),
    ("proved/Proof.lean", "added", "!proof-already-merged: submit an alternate"),
    ("proved/Proof.lean", "modified", "!merged-proof-modified: modified a merged file"),
    ("rehearsal/Proof.lean", "modified", "proof"),
    ("plain/Refutation.lean", "added", "counterexample"),
    ("plain/Vacuity.lean", "deleted", "!merged-proof-modified: deleted a merged file"),
    ("plain/Statement.lean", "added", "!statement-changed: statements are immutable (D-8)"),
    ("plain/META.yaml", "modified", "!meta-changed: contributors never change META.yaml"),
    ("root--h1/Witness.lean", "added", "witness"),
    ("root--h2/Witness.lean", "added",
     "!witness-not-wanted: only a blocked hole takes a witness (D-29)"),
    ("plain/Relation.lean", "added", "!path-not-permitted: no artifact may add this file"),
    ("plain/attempts/20260101T000000Z-alice-partial.lean", "added", "partial"),
    ("plain/attempts/20260101T000000Z-alice-partial.h1.witness.lean", "added",
     "partial"),  # alone, a carried witness is its artifact's only (so main) path
    ("plain/attempts/20260101T000000Z-alice-alternate.lean", "added",
     "!alternate-without-proof: no merged proof"),
    ("proved/attempts/20260101T000000Z-alice-alternate.lean", "added", "alternate"),
    ("plain/attempts/20260101T000000Z-alice-postmortem.yaml", "modified",
     "!record-deleted: modified: the record is append-only"),
    ("plain/annex/" + "b" * 64 + ".yaml", "added", "annex"),
    ("plain/explainer/20260101T000000Z-alice.yaml", "added",
     "!explainer-without-proof: file it as an annex"),
    ("proved/explainer/20260101T000000Z-alice.yaml", "added", "explainer"),
    ("plain/waivers/native_decide.yaml", "added",
     ("!path-not-permitted: waivers/native_decide.yaml rides with the proof or alternate "
      "that uses native_decide")),
    ("plain/Context.lean", "added", "!gate-only-path: only the gate writes here"),
    ("plain/proof.lean", "added", DEFAULT),
    ("plain/Proof.lean/", "added", DEFAULT),
    ("plain/../Proof.lean", "added", DEFAULT),
    ("plain/extra/Proof.lean", "added", DEFAULT),
    ("plain/Pr\u043ef.lean", "added", DEFAULT),
    ("plain/Proof.lean.bak", "added", DEFAULT),
])
def test_named_cases(base: Graph, path: str, status: str, expected: str) -> None:
    """A readable sample of the recorded cases, each with its expected kind or finding."""
    full = f"targets/erdos-11/nodes/{path}"
    assert outcome(base, full, status, OTHER_BYTES) == expected


def test_no_node_file_of_graph_is_rewritten_into_an_artifact(base: Graph) -> None:
    """Every file of a node graph/ holds, modified or deleted, is refused with a finding
    and carries no artifact: the record is append-only (only a tutorial node's Proof.lean
    is a slot, and graph/'s tutorial has none)."""
    paths = [p for p in graph_paths() if "/nodes/" in p]
    assert len(paths) > 100
    for path, status, data in cases(paths):
        if status == "added":
            continue
        arts, _s1, s2, _o = _summary(base, path, status, data)
        assert not arts and s2, (path, status)
