"""The record's YAML loader gives exactly what PyYAML's safe loader gives, errors included
(network.record.loader.RecordYamlLoader)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from network.record.loader import RecordYamlLoader
from tests.sitegraph import build_rich_graph

SAFE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

DOCUMENTS = [
    "",
    "# only a comment\n",
    "schema: meta/v1\nid: 'root--h1'\ntarget: demo\nk: 3\n",
    "a: yes\nb: No\nc: on\nd: OFF\ne: true\nf: ~\ng: null\nh:\ni: ''\n",
    "a: 0x1F\nb: 0o17\nc: 017\nd: 1_000\ne: 1:20\nf: -0\ng: +12\n",
    "a: 1.5\nb: .inf\nc: -.INF\nd: .nan\ne: 1e3\nf: 6.8523015e+5\ng: 1_0.5\n",
    "a: 2026-01-02\nb: 2026-01-02T03:04:05Z\nc: 2026-01-02 03:04:05.5 +01:00\nd: '2026-01-02'\n",
    "a: [1, two, 3.0, null]\nb:\n  - x\n  - {y: 1, z: [a, b]}\nc: {}\nd: []\n",
    "a: |\n  line one\n  line two\nb: >\n  folded\n  text\nc: \"esc\\u00e9\\n\"\n",
    "base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\n",
    "list: &l [1, 2]\nagain: *l\n",
    "a: 1\na: 2\nb: 3\n",
    "? [1, 2]\n: unhashable\n",
    "? {a: 1}\n: unhashable\n",
    "1: int key\n2.5: float key\ntrue: bool key\n~: null key\n2026-01-01: date key\n",
    "a: !!str 12\nb: !!int '12'\nc: !!float '1'\nd: !!binary aGVsbG8=\n",
    "a: !!set {x, y}\nb: !!omap [{x: 1}, {y: 2}]\nc: !!pairs [{x: 1}]\n",
    "a: !custom tag\n",
    "a: !!timestamp not-a-date\n",
    "a: !!int nope\n",
    "- a\n- b: c\n  d: e\n- - nested\n",
    "plain scalar document\n",
    "--- \na: 1\n...\n",
    "a: 1\n---\nb: 2\n",
    "a: [1, 2\n",
    "a: b: c\n",
    "\ta: 1\n",
    "a: \"unterminated\n",
    "a: 'it''s'\nb: \"tab\\tthere\"\nc: unicode é ü —\n",
    "a: 2026-13-45\n",
    "recursive: &r [*r]\n",
    "a: &x 1\nb: *x\n",
]


def _load(text: str, loader: Any) -> tuple[str, Any]:
    try:
        return "ok", yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        return "error", str(exc)
    except Exception as exc:  # noqa: BLE001 - compared, not swallowed
        return "raised", f"{type(exc).__name__}: {exc}"


def _same(a: Any, b: Any, seen: set[tuple[int, int]] | None = None) -> bool:
    """Equal, with equal types all the way down (True is not 1, date is not str)."""
    seen = set() if seen is None else seen
    if type(a) is not type(b):
        return False
    if isinstance(a, (dict, list, tuple)):
        if (id(a), id(b)) in seen:
            return True
        seen.add((id(a), id(b)))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(k, k2, seen) and _same(a[k], b[k2], seen)
                                          for k, k2 in zip(a, b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y, seen) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


@pytest.mark.parametrize("text", DOCUMENTS)
def test_same_result_as_the_safe_loader(text: str) -> None:
    want = _load(text, SAFE)
    got = _load(text, RecordYamlLoader)
    assert got[0] == want[0]
    assert _same(got[1], want[1]), (got, want)


def test_aliases_share_objects_as_the_safe_loader_does() -> None:
    got = yaml.load("a: &l [1]\nb: *l\n", Loader=RecordYamlLoader)
    assert got["a"] is got["b"]


def test_every_yaml_record_of_a_rich_graph(tmp_path: Path) -> None:
    build_rich_graph(tmp_path / "g", commit=False)
    texts = [p.read_text(encoding="utf-8") for p in sorted((tmp_path / "g").rglob("*.yaml"))]
    assert len(texts) > 10
    for text in texts:
        want, got = _load(text, SAFE), _load(text, RecordYamlLoader)
        assert got[0] == want[0] == "ok" and _same(got[1], want[1]), text
