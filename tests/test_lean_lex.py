"""The gate's Lean lexer (network/gate/screens/lean_lex.py) and the static scans built on it:
forbidden tokens hidden or faked through comments, strings, char literals, raw strings and
«» names; what Pygments alone would mis-read; fail-closed ambiguity (issue 9, D-4 step 2,
D-3 v3.28)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers import Lean4Lexer

from network.errors import CATALOG
from network.gate.artifacts import (
    annex_citations,
    forbidden_option_findings,
    import_lines,
    partial_label_findings,
    statement_command_findings,
    strip_comments,
)
from network.gate.screens import lean_lex

SKIP = "debug.skipKernelTC"


def codes(text: str) -> list[str]:
    return [d.code for d in forbidden_option_findings(text, "P.lean")]


def test_the_lexer_is_pygments_lean4() -> None:
    assert issubclass(lean_lex._LeanLexer, Lean4Lexer)
    assert "lean-lex-ambiguous" in CATALOG


def test_tokens_concatenate_to_the_text() -> None:
    text = ('/-- doc /- nested -/ -/\ntheorem «a b».c : True := by\n  -- line\n'
            '  have := "s\\"t"; have := \'"\'; exact r#"x"y"#\n')
    lexed = lean_lex.lex(text)
    assert "".join(t.text for t in lexed.tokens) == text
    assert lexed.ambiguities == []


@pytest.mark.parametrize("text", [
    f"set_option {SKIP} true\ntheorem t : True := trivial\n",
    f"set_option /- a comment between -/ {SKIP} true\n",
    f"set_option\n  {SKIP} true in\ntheorem t : True := trivial\n",
    "set_option debug.«skipKernelTC» true\n",
    "set_option «debug».skipKernelTC true\n",
    f"/- a /- nested -/ still a comment -/ set_option {SKIP} true\n",
    # Pygments alone ends a doc comment at the first -/ (Lean nests it): no hiding there
    f"/-- doc /- inner -/ -/ set_option {SKIP} true\n",
    # a char literal holding a quote: Pygments alone opens a string there
    f"def c := '\"'\nset_option {SKIP} true\n-- \"\n",
    # a raw string with a quote inside: Pygments alone ends it at the first quote
    f'def s := r#"a"b"#\nset_option {SKIP} true\n-- "\n',
    # a «»-quoted name holding a quote: Pygments alone opens a string inside it
    f'def «x"» := 1\nset_option {SKIP} true\n-- "\n',
    # a doc comment hiding a quote after its nested comment
    f'/-- /- -/ " -/ set_option {SKIP} true --"\n',
    "prelude\nimport Lean\n",
    # the option named some other way: a name literal, a string, an identifier
    ("run_cmd Lean.Elab.Command.modifyScope fun s => "
     "{ s with opts := s.opts.setBool `debug.skipKernelTC true }\n"),
    'def n := String.toName "debug.skipKernelTC"\n',
    f'def s := "set_option {SKIP} true"\n',
    f"«set_option» {SKIP} true\n",
])
def test_a_hidden_forbidden_option_is_found(text: str) -> None:
    assert codes(text) == ["forbidden-option"], text


@pytest.mark.parametrize("text", [
    f"-- set_option {SKIP} true\ntheorem t : True := trivial\n",
    f"/- set_option {SKIP} true -/\ntheorem t : True := trivial\n",
    f"/- outer /- inner -/ set_option {SKIP} true -/\ntheorem t : True := trivial\n",
    'def s := "set_option maxHeartbeats 0"\n',
    'def s := "escaped \\" set_option pp.all true"\n',
    'def s := r#"set_option " prelude"#\n',
    'def s := "prelude"\n',
    "import Mathlib\n/-- `prelude` in a doc comment -/\ntheorem t : True := trivial\n",
    "theorem t : True := trivial -- prelude\n",
    "def Foo.prelude := 1\n",
    "set_option maxHeartbeats 400000 in\ntheorem t : True := trivial\n",
    "theorem t : 'a' = 'a' := rfl\n",
])
def test_a_faked_forbidden_option_is_not_a_finding(text: str) -> None:
    assert codes(text) == [], text


@pytest.mark.parametrize(("text", "why"), [
    ("theorem t : True := trivial\n/- never closed\n", "comment"),
    ('def s := "never closed\n', "string"),
    ('def s := s!"{"}"}"\n', "interpolated"),
    ('def s := r#"never closed"\n', "string"),
])
def test_what_the_lexer_cannot_place_fails_closed(text: str, why: str) -> None:
    found = forbidden_option_findings(text, "P.lean")
    assert [d.code for d in found] == ["lean-lex-ambiguous"]
    assert why in found[0].message
    assert [d.code for d in statement_command_findings(text, "S.lean")][:1] == [
        "lean-lex-ambiguous"]


def test_strip_comments_keeps_lines_and_strings() -> None:
    text = 'a /- gone1\ngone2 -/ b "-- kept" -- gone3\nd\n'
    out = strip_comments(text)
    assert out.count("\n") == text.count("\n")
    assert '"-- kept"' in out and "gone" not in out


def test_import_lines_read_the_module_systems_header() -> None:
    text = "module\n\npublic import Mathlib.Data.Nat\nimport all Foo.Bar\nmeta import Baz\n"
    assert import_lines(text) == ["Mathlib.Data.Nat", "Foo.Bar", "Baz"]


def test_import_lines_read_the_header() -> None:
    text = ("/- header -/ import Mathlib.Data.Nat\nimport Lemmata.demo.«lemma».Proof -- use\n"
            "import A B\n-- import Fake\ndef s := \"import Nope\"\nimport Late\n")
    assert import_lines(text) == ["Mathlib.Data.Nat", "Lemmata.demo.«lemma».Proof", "A", "B"]
    assert import_lines("/-\nimport Hidden\n-/\ntheorem t : True := trivial\n") == []


def test_annex_citations_are_real_line_comments() -> None:
    sha = "a" * 64
    text = (f"-- annex: {sha}\n/-\n-- annex: {'b' * 64}\n-/\n"
            f'def s := "\n-- annex: {"c" * 64}\n"\n  -- annex: {"D" * 64}\n')
    assert annex_citations(text) == [(sha, 1), ("d" * 64, 8)]


def test_partial_labels_inside_a_block_comment_do_not_count() -> None:
    text = ("/-\n-- approach: split\n-- licence: CC-BY-4.0\n-/\n"
            "theorem t : True := sorry\n")
    assert [d.message for d in partial_label_findings(text, "p.lean")] == [
        "missing `-- approach:` before the first hole", "missing `-- licence:`"]


# --- D-3 v3.28: what a statement may hold ---------------------------------------------


def test_statement_commands_are_allowlisted() -> None:
    ok = "import Mathlib\nopen Nat\n/-- doc -/\ntheorem t (n : ℕ) : n = n := sorry\n"
    assert statement_command_findings(ok, "S.lean") == []
    bad = ok + "#eval IO.println \"hi\"\nrun_cmd pure ()\n"
    assert [d.line for d in statement_command_findings(bad, "S.lean")] == [5, 6]


@pytest.mark.parametrize("text", [
    "theorem t : True := sorry #eval IO.println \"x\"\n",
    "open Nat in #print axioms Nat.add\n",
    "theorem t : True := sorry\n  initialize pure ()\n",
    "def x := 1 attribute [simp] x\n",
    "/- c -/ run_cmd pure ()\n",
    f"set_option {SKIP} true in\ntheorem t : True := sorry\n",
    "macro \"x\" : term => `(1)\n",
])
def test_a_command_after_another_on_its_line_is_refused(text: str) -> None:
    assert "statement-command-refused" in {
        d.code for d in statement_command_findings(text, "S.lean")}, text


@pytest.mark.parametrize("text", [
    ("import Mathlib\n\nopen scoped BigOperators\n\nnamespace Foo\n\n/-- The statement. -/\n"
     "theorem bar (n : ℕ) (h : 0 < n) :\n    n ≠ 0 := by\n  sorry\n\nend Foo\n"),
    "noncomputable section\n@[simp] theorem t : True := sorry\nend\n",
    'theorem t : "#eval" = "#eval" := sorry\n',
    "/-- doc with #eval and run_cmd inside -/\ntheorem t : True := sorry\n",
    "theorem t (prefix' : List Nat) : prefix'.length = prefix'.length := sorry\n",
    "theorem t : #[1, 2].size = 2 := sorry\n",
])
def test_ordinary_statements_pass(text: str) -> None:
    assert statement_command_findings(text, "S.lean") == [], text


def test_the_graphs_statements_meet_v3_28() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "graph"
    statements = sorted(root.glob("targets/*/nodes/*/Statement.lean"))
    assert statements
    for path in statements:
        text = path.read_text("utf-8")
        assert statement_command_findings(text, str(path)) == [], path
        assert forbidden_option_findings(text, str(path)) == [], path


# --- a property: where the lexer vouches, it agrees with Lean's tokenizer rules -------------

_CHAR = re.compile(r"'(?!')(?:\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[^\n])|[^\\'])'")


def _is_letter_like(c: str) -> bool:
    """``isLetterLike`` of lean4 src/Init/Meta/Defs.lean, written here from its text (not
    from the lexer's tables): Greek α–ω but λ, Α–Ω but Π and Σ, ϊ–ϻ, ἀ–῾, ℀–⅏, 𝒜–𝖟, and the
    Latin-1 and Latin Extended-A letters (× and ÷ excepted)."""
    v = ord(c)
    return ((0x3B1 <= v <= 0x3C9 and v != 0x3BB) or (0x391 <= v <= 0x3A9 and v != 0x3A0
            and v != 0x3A3) or 0x3CA <= v <= 0x3FB or 0x1F00 <= v <= 0x1FFE
            or 0x2100 <= v <= 0x214F or 0x1D49C <= v <= 0x1D59F
            or (0xC0 <= v <= 0xFF and v not in (0xD7, 0xF7)) or 0x100 <= v <= 0x17F)


def _is_id_first(c: str) -> bool:
    return c.isascii() and (c.isalpha() or c == "_") or _is_letter_like(c)


def _is_id_rest(c: str) -> bool:
    v = ord(c)
    return (_is_id_first(c) or (c.isascii() and c.isdigit()) or c in "'!?"
            or 0x2080 <= v <= 0x2089 or 0x2090 <= v <= 0x209C or 0x1D62 <= v <= 0x1D6A
            or v == 0x2C7C)


def _reference_classes(text: str) -> str | None:
    """Per character: ``c`` code, ``m`` comment, ``s`` literal, read by a small scanner
    written from Lean's tokenizer (src/Lean/Parser/Basic.lean: ``whitespace`` and
    ``finishCommentBlock``; ``tokenFnAux``, which opens a string at ``"``, a char literal
    at any token start whose ``'`` is not followed by ``'`` (``charLitFnAux``: one
    character, a newline too, or an escape), a number at a digit, and otherwise a token or
    a name (``identFnAux``: ``isIdFirst isIdRest*``, ``«»`` parts, ``.`` between parts);
    ``rawStrLitFnAux``); None where Lean would stop with an error (an unclosed comment or
    literal). Core's token ``]'`` (``a[i]'h``) is the one token holding a ``'`` it knows."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        # after `x.` (or a projection's `.`) `r` is a name part: `x.r"…"` is the name
        # `x.r` and an ordinary string (attack 3)
        after_dot = i > 0 and text[i - 1] == "."
        if text.startswith(("\\/", "/\\", "]'"), i):  # ∨ and ∧ in ASCII; `a[i]'h`
            j = i + 2
            out += "cc"
        elif text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out += "m" * (j - i)
        elif text.startswith("/-", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("-/", j):
                    depth, j = depth - 1, j + 2
                elif text.startswith("/-", j):
                    depth, j = depth + 1, j + 2
                else:
                    j += 1
            if depth:
                return None
            out += "m" * (j - i)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                return None
            j += 1
            out += "s" * (j - i)
        elif c == "'" and text[i + 1:i + 2] != "'":
            mt = _CHAR.match(text, i)
            # charLitFnAux fails ("missing end of character literal"): an error, so the
            # file never builds; read on as code, as the old scanner did
            j = mt.end() if mt is not None else i + 1
            out += ("s" if mt is not None else "c") * (j - i)
        elif c.isascii() and c.isdigit():
            j = i + 1
            while j < n and text[j].isascii() and text[j].isdigit():
                j += 1
            out += "c" * (j - i)
        elif c == "r" and not after_dot and (mt := re.compile(r'r(#*)"').match(text, i)):
            end = text.find('"' + mt.group(1), mt.end())
            if end < 0:
                return None
            j = end + 1 + len(mt.group(1))
            out += "s" * (j - i)
        elif _is_id_first(c):
            j = i + 1
            while j < n and _is_id_rest(text[j]):
                j += 1
            out += "c" * (j - i)
        elif c == "«":
            end = text.find("»", i)
            if end < 0:
                return None
            j = end + 1
            out += "c" * (j - i)
        else:
            j = i + 1
            out += "c"
        i = j
    return "".join(out)


def _lexer_classes(lexed: lean_lex.Lexed) -> str:
    cls = {"comment": "m", "doc": "m", "string": "s", "raw": "s", "char": "s"}
    return "".join(cls.get(t.kind, "c") * len(t.text) for t in lexed.tokens)


_PIECES = ["/-", "-/", "--", "/--", '"', "'", 'r#"', '"#', 'r"', "«", "»", 's!"', "{", "}",
           "\\", "\n", "a", " ", "x'", "'a'", "]", "-", "/", "#", "\\/", "`a", "x.r", ".",
           # issue 32: where Lean opens a char literal and the old lexer did not
           "!", "?", "ᶜ", "ˣ", "ᵀ", "ⁿ", "λ", "é", "₀", "x₀", "2", "[(0)]!", "∅ᶜ", "'\"'",
           "'\n'", "(", "⟨", ","]


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.text(alphabet=list("/-'\"r#«»\\a \nx!{}s`].?ᶜλé₀2("), max_size=40),
                 st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)))
def test_where_the_lexer_vouches_it_reads_comments_and_literals_as_lean_does(text: str
                                                                              ) -> None:
    lexed = lean_lex.lex(text)
    assert "".join(t.text for t in lexed.tokens) == text
    ref = _reference_classes(text)
    if lexed.ambiguities:
        return  # refused: nothing the lexer read is trusted
    assert ref is not None, "the lexer vouches for text Lean cannot read"
    assert _lexer_classes(lexed) == ref


@pytest.mark.parametrize("text", [
    'r#"' * 20000,           # openers nothing closes: each try would scan to the end
    "«" * 50000,             # «» names that never close
    'x r##"a"# ' * 10000,    # closers of the wrong length
])
def test_hostile_repetition_reads_in_bounded_time_and_fails_closed(text: str) -> None:
    """No quadratic read (the rules' tries are bounded), and each unreadable opener is an
    ambiguity the gate refuses. Timing is not asserted (benchmarks/ say how long); a
    quadratic read of these texts would not finish within the test run."""
    lexed = lean_lex.lex(text)
    assert "".join(t.text for t in lexed.tokens) == text
    assert lexed.ambiguities
    assert [d.code for d in forbidden_option_findings(text, "P.lean")][:1] == [
        "lean-lex-ambiguous"]


def test_a_long_raw_string_that_closes_is_one_token() -> None:
    body = "set_option debug.skipKernelTC true\n" * 2000
    lexed = lean_lex.lex(f'def s := r##"{body}"##\n')
    assert lexed.ambiguities == []
    assert [t.kind for t in lexed.tokens if t.text.startswith('r##"')] == ["raw"]
