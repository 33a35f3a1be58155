"""The record's YAML loader gives exactly what PyYAML's safe loader gives, errors included
(network.record.read.loader.RecordYamlLoader)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from network.record.read.loader import RecordYamlLoader
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


# --- the line-shaped subset read without libyaml (network.record.read.parse._line_yaml) -----

LINE_DOCUMENTS = [
    "schema: meta/v1\nid: 'root--h1'\ntarget: demo\nk: 3\nhole:\n  parent: 'root'\n  k: 1\n",
    "a: yes\nb: No\nc: on\nd: OFF\ne: true\nf: null\ng:\nh: Null\n",
    "a: 0x1F\nb: 0o17\nc: 017\nd: 1_000\ne: 1:20\nf: 0\ng: 190:20:30\n",
    "a: 1.5\nb: .inf\nc: .NaN\nd: 1e3\ne: 6.8523015e+5\nf: 1_0.5\ng: .\nh: ...\n",
    "a: 2026-01-02\nb: 2026-01-02T03:04:05Z\nc: '2026-01-02'\nd: 2026-13-45\n",
    "a: http://x.org/y\nb: a:b\nc: a:\nd: x: y\n",
    "a: 'it''s'\nb: '#x'\nc: 'é ⊢ False'\nd: ' pad '\ne: ''\n",
    "a: x # comment\n",
    "a: x \n",
    "yes: 1\n",
    "null: 1\n",
    "_: 1\n",
    "a:\n  b:\n    c: 1\n",
    "a: 1\n  b: 2\n",
    "a:\n  b: 1\nc: 2\n  d: 3\n",
    "a:\n\n  b: 1\n",
    "a: 1\na: 2\n",
    "a:\n  x: 1\na: 2\n",
    "a: 1",
    "a: 1\r\n",
    "\ufeffa: 1\n",
    "a: 'x\x85y'\n",
    "a: 'x\u2028y'\n",
    "a: 'tab\there'\n",
    "a: x@y\nb: a - b\nc: a -b\nd: -x\ne: +1\nf: /p\n",
    "a: @x\n",
    "k" * 64 + ": 1\n",
    "k" * 65 + ": 1\n",
]


def _line_same(text: str) -> None:
    from network.record.read.parse import _line_yaml

    got = _line_yaml(text)
    want = _load(text, SAFE)
    if got is None:
        return  # libyaml decides
    assert want[0] == "ok", (text, want)
    assert _same(got, want[1]), (text, got, want)


@pytest.mark.parametrize("text", LINE_DOCUMENTS)
def test_the_line_shaped_subset_reads_as_the_safe_loader(text: str) -> None:
    _line_same(text)


def test_the_line_shaped_subset_is_read_without_libyaml() -> None:
    from network.record.read.parse import _line_yaml

    assert _line_yaml(LINE_DOCUMENTS[0]) == {
        "schema": "meta/v1", "id": "root--h1", "target": "demo", "k": 3,
        "hole": {"parent": "root", "k": 1}}
    assert _line_yaml("a: 'it''s'\n") is None and _line_yaml("a: x # c\n") is None
    assert _line_yaml("a:\n  b:\n    c: 1\n") is None and _line_yaml("yes: 1\n") is None


_KEYS = st.one_of(st.sampled_from(["a", "b", "_", "_x", "yes", "No", "null", "on", "y", "n",
                                    "key1", "inf"]),
                  st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True))
_SPECIAL = st.sampled_from([
    "1", "-1", "+1", "0x1F", "0o17", "017", "1_000", "1:20", "1.5", ".inf", "-.inf", ".nan",
    "1e3", "6.8e+5", "2026-01-02", "2026-01-02T03:04:05Z", "2026-1-2 3:04:05", "2026-13-45",
    "true", "False", "OFF", "~", "null", "...", "---", ".", "-", "- x", "a: b", "a:b", "a:",
    "a #b", "a#b", "@x", "x@y", "`x", "&a", "*a", "!x", "[1]", "{}", "|", ">", "?", "%x",
    "é", "x\t", "x "])
_PLAINISH = st.one_of(st.text(alphabet="abXY019_./@+ -:", min_size=1, max_size=12),
                      st.text(alphabet="ab #'~\t\u00e9", min_size=1, max_size=4))
_QUOTED = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]),
                  max_size=8).map(lambda t: "'" + t + "'")
_VALUES = st.one_of(st.just(""), _SPECIAL, _PLAINISH, _PLAINISH, _QUOTED,
                    st.text(alphabet="ab '", max_size=6).map(lambda t: "'" + t + "'"))


@settings(max_examples=4000, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "", "", "  ", "  ", "    ", " "]), _KEYS,
                          st.sampled_from([": ", ": ", ": ", ": ", ":", " : "]), _VALUES),
                min_size=1, max_size=3))
def test_generated_documents_read_as_the_safe_loader(
        lines: list[tuple[str, str, str, str]]) -> None:
    text = "".join(f"{indent}{key}{sep if value else sep.rstrip()}{value}\n"
                   for indent, key, sep, value in lines)
    _line_same(text)


def test_a_lone_surrogate_is_left_to_libyaml() -> None:
    """Not reachable from bytes decoded strictly, but the fast path must not accept what
    libyaml refuses (found by review)."""
    from network.record.read.parse import _line_yaml

    assert _line_yaml("k: '\ud800'\n") is None
    assert _load("k: '\ud800'\n", SAFE)[0] != "ok"


@pytest.mark.parametrize("text", [
    "k: " + "1:" * 300_000 + "1\n",
    "k: !!int " + "1:" * 300_000 + "1\n",
    "k: [" + "1:" * 300_000 + "1]\n",
    "a:\n  b: " + "1:" * 300_000 + "1\n",
])
def test_a_base60_integer_past_the_limit_is_malformed_at_once(text: str) -> None:
    """Building ``1:1:...:1`` takes time quadratic in its length (a minute for a 1 MB
    record, found by review); past 4,300 characters, as Python's own limit on decimal
    digits, the record does not read."""
    from network.record.read.parse import SEXAGESIMAL_MAX_CHARS, _parse_text

    assert _parse_text("x.yaml", text)[0] == "malformed-yaml"  # unguarded: "ok", minutes on
    ok = "k: " + ("1:" * SEXAGESIMAL_MAX_CHARS)[: SEXAGESIMAL_MAX_CHARS - 1] + "1\n"
    assert _parse_text("x.yaml", ok) == ("ok", yaml.load(ok, Loader=SAFE))
