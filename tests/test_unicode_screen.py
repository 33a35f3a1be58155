"""Text a person reads as Lean reads it (issue 37 part 2; D-4 step 2).

Step 2 refuses, before any Lean runs, a hidden character anywhere in a submitted Lean file
(``lean-format-character``: a bidi override reorders what the reviewer sees while Lean
reads the bytes in order, Trojan Source, CVE-2021-42574) and a look-alike identifier in a
file that states something (``lean-mixed-script-identifier``,
``lean-confusable-identifier``). Legitimate mathematics passes: Greek letters, subscripts
and the letterlike symbols Lean reads in names, and every file of the real Formal
Conjectures Erdős snapshot. Each attack below is something that would pass a naive check
without meeting its intent.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from network.errors import LemmataError
from network.gate.diff import diff_commits
from network.gate.lean.toolchain import MissingToolchain
from network.gate.result import Diagnostic
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.gate.screens import unicode_screen as us
from network.gate.steps.step2 import run_steps_1_2
from network.importers.formal_conjectures import plan_formal_conjectures_import
from network.record.read.loader import load_graph
from network.unicode_text import char_label, hidden_characters, is_hidden, skeleton
from tests.graphs import GraphBuilder, git_commit, sha256_hex
from tests.importfixtures import FC_REAL_ARCHIVE, commit_all, fc_real_checkout, graph_copy
from tests.test_layering import graph as import_graph

T = "demo"
ND = f"targets/{T}/nodes"
TS = "20260105T000000Z"
UNICODE_CODES = {"lean-format-character", "lean-mixed-script-identifier",
                 "lean-confusable-identifier"}
_LABELS = "-- approach: a route\n-- licence: CC-BY-4.0\n"


# --- helpers ---------------------------------------------------------------------------


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[GraphBuilder, str]:
    b = GraphBuilder(tmp_path / "g")
    b.base()
    b.target(T)
    b.node(T, "root")
    b.node(T, "lemma", proof="theorem stmt_lemma : True := trivial\n")
    b.merge([f"{ND}/lemma/Proof.lean"])
    return b, git_commit(b.root, "base")


def _propose(b: GraphBuilder, statement: str | bytes, witness: str = "",
             relation: str = "-- root → variant\n") -> str:
    """A variant proposal whose Statement.lean is ``statement``; returns its path."""
    d = f"{ND}/variant-x"
    stmt = statement if isinstance(statement, bytes) else statement.encode("utf-8")
    b.write(f"{d}/Statement.lean", stmt)
    b.write(f"{d}/Witness.lean", witness or "example : True := trivial\n")
    b.write(f"{d}/Relation.lean", relation)
    b.write_yaml(f"{d}/META.yaml", {
        "schema": "meta/v1", "id": "variant-x", "target": T, "declaration": "v",
        "statement_hash": sha256_hex(stmt), "origin": "variant",
        "variant": {"of": "root", "relation": "partial"}})
    return f"{d}/Statement.lean"


def _write(b: GraphBuilder, where: str, text: str) -> str:
    """Put ``text`` in one kind of contributor Lean file; returns its path."""
    if where == "proof":
        return b.proof(T, "root", text)
    if where == "refutation":
        return b.proof(T, "root", text, kind="Refutation")
    if where == "vacuity":
        return b.proof(T, "root", text, kind="Vacuity")
    if where == "alternate":
        return b.partial(T, "lemma", TS, "alice", text, kind="alternate")
    if where == "partial":
        return b.partial(T, "root", TS, "alice", _LABELS + text)
    if where == "reduction":
        return b.partial(T, "root", TS, "alice", _LABELS + text, kind="reduction")
    if where == "hole-witness":
        b.partial(T, "root", TS, "alice", _LABELS + "theorem stmt_root : True := trivial\n")
        return b.write(f"{ND}/root/attempts/{TS}-alice-partial.h1.witness.lean", text)
    if where == "statement":
        return _propose(b, text)
    if where == "witness":
        _propose(b, "theorem v : True := sorry\n", witness=text)
        return f"{ND}/variant-x/Witness.lean"
    _propose(b, "theorem v : True := sorry\n", relation=text)
    return f"{ND}/variant-x/Relation.lean"


KINDS = ["proof", "refutation", "vacuity", "alternate", "partial", "reduction",
         "hole-witness", "statement", "witness", "relation"]
STATEMENT_KINDS = {"partial", "reduction", "hole-witness", "statement", "witness",
                   "relation"}


def _step2(b: GraphBuilder, base: str) -> list[Diagnostic]:
    head = git_commit(b.root, "head")
    r = run_steps_1_2(diff_commits(b.root, base, head), load_graph(b.root, commit=base),
                      "alice")
    return list(r.step2.diagnostics)


def _unicode(found: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in found if d.code in UNICODE_CODES]


def _codes(text: str) -> list[str]:
    return [p.code for p in us.identifier_problems(text)]


# --- through the gate ------------------------------------------------------------------


def test_a_bidi_override_in_a_statement_comment_is_refused_by_the_whole_gate(
        repo: tuple[GraphBuilder, str]) -> None:
    """Trojan Source: the comment's U+202E reorders what the reviewer reads; Lean reads the
    bytes. Without a toolchain the gate still reports the step-2 finding, and refuses."""
    b, base = repo
    text = ("theorem v : 1 = 1 := by\n"
            "  -- the claim is \u202e ) 2 = 1 ( \u2066\n"
            "  sorry\n")
    path = _propose(b, text)
    head = git_commit(b.root, "trojan")
    out = run_gate(b.root, base, head, toolchain=MissingToolchain, sandbox=Sandbox(),
                   submitter="alice", mode="precheck")
    assert out.verdict == "fail"
    [run] = out.runs
    step2 = next(s for s in run.steps if s.step == 2)
    assert not step2.ok
    [d] = [d for d in step2.diagnostics if d.code == "lean-format-character"]
    at = text.encode("utf-8").index("\u202e".encode())
    assert d.path == path and d.line == 2
    assert d.message == (f"U+202E RIGHT-TO-LEFT OVERRIDE at byte {at} (line 2, column 19); "
                         "1 more in this file")
    assert not any(s.step == 3 for s in run.steps)  # nothing built


def test_a_cyrillic_bound_variable_beside_a_latin_one_is_refused(
        repo: tuple[GraphBuilder, str]) -> None:
    b, base = repo
    path = _propose(b, "theorem v (a \u0430 : Nat) (h : a = 1) : \u0430 = 1 := sorry\n")
    [d] = _unicode(_step2(b, base))
    assert (d.code, d.path, d.line) == ("lean-confusable-identifier", path, 1)
    assert "`a` (line 1) and `\u0430` (line 1)" in d.message


@pytest.mark.parametrize(("label", "text", "expected"), [
    ("bom-at-start", "\ufefftheorem v : True := sorry\n",
     "U+FEFF ZERO WIDTH NO-BREAK SPACE at byte 0 (line 1, column 1)"),
    ("zwj-in-string", 'theorem v : "ab" = "a\u200db" := sorry\n',
     "U+200D ZERO WIDTH JOINER at byte 21 (line 1, column 22)"),
    ("isolate-in-doc", "/-- the sum \u2066of n -/\ntheorem v : True := sorry\n",
     "U+2066 LEFT-TO-RIGHT ISOLATE at byte 12 (line 1, column 13)"),
    ("soft-hyphen-in-comment", "-- Funk\u00adtionen\ntheorem v : True := sorry\n",
     "U+00AD SOFT HYPHEN at byte 7 (line 1, column 8)"),
])
def test_a_hidden_character_in_a_statement_is_refused_at_step_2(
        repo: tuple[GraphBuilder, str], label: str, text: str, expected: str) -> None:
    b, base = repo
    path = _propose(b, text)
    [d] = _unicode(_step2(b, base))
    assert (d.code, d.path, d.message) == ("lean-format-character", path, expected)


@pytest.mark.parametrize(("label", "data"), [
    ("utf-16-with-bom", "theorem v : True := sorry -- \u202e\n".encode("utf-16")),
    ("overlong-rlo", b"theorem v : True := sorry -- \xf0\x82\x80\xae\n"),
    ("cesu-surrogate", b"theorem v : True := sorry -- \xed\xa0\x80\xed\xb0\x80\n"),
    ("latin-1-nel", b"theorem v : True := sorry -- a\x85b\n"),
])
def test_an_encoding_that_hides_a_character_is_no_utf8(
        repo: tuple[GraphBuilder, str], label: str, data: bytes) -> None:
    """A character smuggled past the screen in another encoding (UTF-16, an overlong or
    surrogate UTF-8 form, a Latin-1 NEL byte) is no UTF-8: refused before any rule reads
    it (``not-utf8``), never decoded leniently."""
    b, base = repo
    path = _propose(b, data)
    assert ("not-utf8", path) in [(d.code, d.path) for d in _step2(b, base)]


def test_greek_subscript_and_letterlike_names_pass(repo: tuple[GraphBuilder, str]) -> None:
    """``hε``, ``x₀``, ``α`` beside ``a``, ``ι`` beside ``i``, ``ℝ`` beside ``R``: the names
    mathematics writes, which TR39's plain skeleton would call confusable."""
    b, base = repo
    _propose(b, "theorem v {α ι : Type} (a : α) (i : ι) (R : Type) (ε δ : ℝ) (x₀ : ℝ)\n"
                "    (hε : 0 < ε) (hδpos : 0 < δ) (p : ℕ) (ρ : ℝ) (𝒜 : Set ℕ) (N : ℕ)\n"
                "    (f : ℕ → ℝ) (hf : ∀ n, f n = ρ) : ∃ y γ : ℝ, y = γ := sorry\n")
    assert _unicode(_step2(b, base)) == []


def test_an_omicron_beside_a_latin_o_is_refused(repo: tuple[GraphBuilder, str]) -> None:
    b, base = repo
    _propose(b, "theorem v (o : Nat) (\u03bf : Nat) : o = \u03bf := sorry\n")
    [d] = _unicode(_step2(b, base))
    assert d.code == "lean-confusable-identifier"
    assert "`o` (line 1) and `\u03bf` (line 1)" in d.message and "skeleton `o`" in d.message


@pytest.mark.parametrize("where", KINDS)
def test_every_kind_of_lean_file_is_screened_for_hidden_characters(
        repo: tuple[GraphBuilder, str], where: str) -> None:
    b, base = repo
    path = _write(b, where, "theorem stmt_root : True := trivial -- \u202e\n")
    assert ("lean-format-character", path) in [(d.code, d.path) for d in _step2(b, base)]


@pytest.mark.parametrize("where", KINDS)
def test_names_are_screened_where_something_is_stated(
        repo: tuple[GraphBuilder, str], where: str) -> None:
    """A statement, witness, relation, partial (its holes become statements) and hole
    witness: refused; a proof, refutation, vacuity proof or alternate: the kernel checks
    it against the statement whatever its names read as, so only hidden characters are
    screened there."""
    b, base = repo
    path = _write(b, where, "theorem stmt_root (a \u0430 : Nat) : True := trivial\n")
    found = [(d.code, d.path) for d in _step2(b, base)]
    assert (("lean-confusable-identifier", path) in found) == (where in STATEMENT_KINDS)


def test_statement_bearing_paths_follow_the_layout() -> None:
    n = f"{ND}/root"
    bearing = [f"{n}/Statement.lean", f"{n}/Witness.lean", f"{n}/Relation.lean",
               f"targets/{T}/defs/Foo.lean", f"{n}/attempts/{TS}-alice-partial.lean",
               f"{n}/attempts/{TS}-alice-reduction.h2.witness.lean"]
    other = [f"{n}/Proof.lean", f"{n}/Refutation.lean", f"{n}/Vacuity.lean",
             f"{n}/Context.lean", f"{n}/attempts/{TS}-alice-alternate.lean",
             f"{n}/Statement.lean.bak", "Statement.lean", f"{n}/sub/Statement.lean"]
    assert all(us.statement_bearing(p) for p in bearing)
    assert not any(us.statement_bearing(p) for p in other)


# --- the rules, one by one --------------------------------------------------------------


REFUSED_NAMES = {
    # Latin with Cyrillic, Armenian, Cherokee inside one component
    "cyrillic-in-word": ("theorem t (f\u043e\u043ebar : Nat) : True := sorry\n",
                         "lean-mixed-script-identifier"),
    "armenian-in-word": ("theorem t (h\u0531 : Nat) : True := sorry\n",
                         "lean-mixed-script-identifier"),
    "cherokee-in-word": ("theorem t (\u13aab : Nat) : True := sorry\n",
                         "lean-mixed-script-identifier"),
    # a Greek letter drawn as a Latin one inside a Latin word: Greek is allowed, not so
    "greek-capital-alpha-in-word": ("theorem t (h\u0391 : Nat) : True := sorry\n",
                                    "lean-mixed-script-identifier"),
    "omicron-in-word": ("def N\u03bft : Prop := True\n", "lean-mixed-script-identifier"),
    # «»-quoted components are identifiers too
    "guillemets": ("theorem t (a : Nat) («\u0430» : Nat) : a = «\u0430» := sorry\n",
                   "lean-confusable-identifier"),
    # a name after @ (explicit arguments)
    "after-at": ("theorem t (a : Nat) : @«\u0430» = a := sorry\n",
                 "lean-confusable-identifier"),
    # an identifier split across a dot: each component is compared, and whole names
    "dotted-component": ("theorem t : Nat.\u0430dd 1 2 = 3 := sorry\n",
                         "lean-mixed-script-identifier"),
    "dotted-collision": ("theorem t (h : P) : h.a = h.\u0430 := sorry\n",
                         "lean-confusable-identifier"),
    "quoted-dot-whole-name": ("theorem t : «\u0430.b» = a.b := sorry\n",
                              "lean-confusable-identifier"),
    # NFC and NFD: Lean does not normalise, so these are two names that look the same
    "nfc-beside-nfd": ("theorem t (caf\u00e9 : Nat) («cafe\u0301» : Nat) : True := sorry\n",
                       "lean-confusable-identifier"),
    "nfd-alone": ("theorem t («cafe\u0301» : Nat) : True := sorry\n",
                  "lean-confusable-identifier"),
    "kelvin-sign": ("theorem t (\u212a : Nat) : True := sorry\n", "lean-confusable-identifier"),
    "ohm-beside-omega": ("theorem t (\u2126 \u03a9 : Nat) : True := sorry\n",
                         "lean-confusable-identifier"),
    # a whole-script look-alike of an ASCII name, with no pair in the file
    "cyrillic-alone": ("theorem t («\u0441\u043e\u0435» : Nat) : True := sorry\n",
                       "lean-confusable-identifier"),
    "long-s": ("theorem t (\u017foo : Nat) : True := sorry\n", "lean-confusable-identifier"),
    "phi-variants": ("theorem t (\u03c6 \u03d5 : Nat) : True := sorry\n",
                     "lean-confusable-identifier"),
    # a Cyrillic letter glued to a Latin one that Lean would refuse to read is still seen
    "glued-after-number": ("theorem t : 2\u0430b = ab := sorry\n",
                           "lean-mixed-script-identifier"),
    # a name literal is code
    "name-literal": ("theorem t : `a = `\u0430 := sorry\n", "lean-confusable-identifier"),
}

PASSING_NAMES = {
    "greek-math": "theorem t {α : Type} (a : α) (hε : 0 < ε) (x₀ : ℝ) (hδpos : 0 < δ) : True",
    "cyrillic-in-comment": "-- \u0430 and a\n/-- \u0430 -/\ntheorem t (a : Nat) : True",
    "cyrillic-in-string": 'theorem t (a : Nat) : "\u0430" = "a"',
    "cyrillic-char-literal": "theorem t (a : Char) : '\u0430' ≠ a",
    "equal-names-written-two-ways": "theorem t (\u03b1 : Nat) : «\u03b1» = \u03b1",
    "ascii-only-pair": "theorem t (I : Ideal R) (l : ℕ) (m rn : ℕ) : True",
    "letterlike-beside-latin": "theorem t (N : ℕ) (R : Type) (C : ℂ) (Z : ℤ) (l : ℓ) : True",
    "han-beside-latin": "theorem t («x値» : Nat) : True",
    "mathlib-postfix-notation": "theorem t (s : Set α) (A : Matrix n n ℝ) : sᶜ = sᶜ ∧ Aᵀ = Aᵀ",
    "lambda-is-a-token": "theorem t : (λx => x) = fun (x : Nat) => x",
}


@pytest.mark.parametrize("label", list(REFUSED_NAMES))
def test_each_look_alike_name_is_refused(label: str) -> None:
    text, code = REFUSED_NAMES[label]
    assert code in _codes(text), (label, us.identifier_problems(text))


@pytest.mark.parametrize("label", list(PASSING_NAMES))
def test_legitimate_names_pass(label: str) -> None:
    assert us.identifier_problems(PASSING_NAMES[label] + " := sorry\n") == []


def test_messages_name_both_identifiers_and_never_carry_a_hidden_character() -> None:
    [p] = us.identifier_problems("theorem t (a : Nat)\n  (h : «f\u043e\u202e» = 1) : True\n"
                                 "theorem s («f\u043e\u202e» : Nat) : True\n")
    assert p.code == "lean-mixed-script-identifier" and p.line == 2
    assert "<U+202E>" in p.why and "\u202e" not in p.why
    [p] = us.identifier_problems("theorem t (o : Nat) :\n  \u03bf = o := sorry\n")
    assert "`o` (line 1) and `\u03bf` (line 2)" in p.why


def test_a_mixed_name_is_reported_once_not_also_as_a_collision() -> None:
    found = us.identifier_problems("theorem t (foobar f\u043e\u043ebar : Nat) : True\n")
    assert [p.code for p in found] == ["lean-mixed-script-identifier"]


# --- hidden characters, attacks -----------------------------------------------------------


@pytest.mark.parametrize(("label", "text", "char"), [
    ("crlf-file", "theorem v : True := by\r\n  -- \u202e x\r\n  trivial\r\n", "\u202e"),
    ("lone-cr", "theorem v : True := trivial -- a\rtheorem w : False := sorry\n", "\r"),
    ("line-separator", "theorem v : True := trivial -- a\u2028theorem w : False\n", "\u2028"),
    ("paragraph-separator", "-- \u2029\n", "\u2029"),
    ("next-line", "-- a\x85theorem w : False\n", "\x85"),
    ("form-feed", "-- a\x0cb\n", "\x0c"),
    ("null", 'theorem v : "a\x00" = "a" := sorry\n', "\x00"),
    ("tag-character", "-- \U000e0041\n", "\U000e0041"),
    ("variation-selector", "theorem v : True := trivial -- a\ufe0f\n", "\ufe0f"),
    ("hangul-filler-in-string", 'theorem v : "\u3164" = "" := sorry\n', "\u3164"),
    ("combining-grapheme-joiner", "-- a\u034fb\n", "\u034f"),
    ("arabic-letter-mark", "-- \u061c\n", "\u061c"),
    ("zero-width-space-in-name", "theorem v\u200b : True := trivial\n", "\u200b"),
    ("raw-char-literal", "theorem v : '\u200b' = '\u200b' := rfl\n", "\u200b"),
    ("raw-string", 'theorem v : r"\u202e" = r"" := sorry\n', "\u202e"),
    ("rlm", "-- \u200f\n", "\u200f"),
    ("unassigned", "-- \U000e01f0\U0003ffff\n", "\U000e01f0"),
    ("noncharacter", "-- \ufffe\n", "\ufffe"),
])
def test_each_hidden_character_is_found_with_its_byte_offset(label: str, text: str,
                                                             char: str) -> None:
    [d] = us.format_character_findings(text, "P.lean")
    at = text.index(char)
    line = text[:at].count("\n") + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    assert d.message.startswith(f"{char_label(char)} at byte {len(text[:at].encode())} "
                                f"(line {line}, column {col})"), d.message
    assert d.line == line


def test_what_is_not_hidden_passes() -> None:
    """CRLF line ends, tabs, escapes that *name* a format character, no-break and thin
    spaces (drawn; Formal Conjectures uses them in doc comments), private use."""
    text = ('theorem v : "\\u{202E}" = "\\u{202E}" ∧ \'\\u{200B}\' = \'\\u{200B}\' := by\r\n'
            "\t-- \u00a0 \u2009 \ue000 ℝ 𝒜 α\r\n  sorry\r\n")
    assert us.format_character_findings(text, "P.lean") == []


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(codec="utf-8"), max_size=60))
def test_hidden_characters_are_found_where_they_are(text: str) -> None:
    """Property: the screen finds exactly the code points :func:`is_hidden` names (a CR
    before a LF excepted), each with the byte offset and line of its UTF-8 encoding."""
    want = [i for i, c in enumerate(text)
            if is_hidden(c) and not (c == "\r" and text[i + 1:i + 2] == "\n")]
    assert hidden_characters(text) == want
    for h in us.hidden_in(text):
        assert h.byte == len(text[:h.offset].encode("utf-8"))
        assert h.line == text[:h.offset].count("\n") + 1
    found = us.format_character_findings(text, "P.lean")
    assert bool(found) == bool(want)


# --- the importer ------------------------------------------------------------------------


def test_the_importer_takes_a_comment_s_hidden_characters_out() -> None:
    text = "/-! Funk\u00adtionen \u202e -/\n-- a\u2028b\ntheorem t : True := trivial\n"
    new, removed = us.strip_comment_hidden_characters(text)
    assert new == "/-! Funktionen  -/\n-- a b\ntheorem t : True := trivial\n"
    assert [h.char for h in removed] == ["\u00ad", "\u202e", "\u2028"]
    assert us.format_character_findings(new, "P.lean") == []


@pytest.mark.parametrize(("label", "text"), [
    ("in-code", "theorem t\u200b : True := trivial\n"),
    ("in-string", 'theorem t : "a\u00adb" = "ab" := sorry\n'),
    ("in-char-literal", "theorem t : '\u200b' = 'a' := sorry\n"),
    # taking the soft hyphen out would close the comment early: `-/` is a token
    ("closes-a-comment", "/- a -\u00ad/ theorem hidden : False := sorry -/\n"),
    ("opens-a-comment", "/- a /\u00ad- b -/ theorem t : True := trivial\n"),
    ("unreadable-file", "/- \u00ad never closed\n"),
])
def test_the_importer_refuses_what_it_cannot_take_out(label: str, text: str) -> None:
    with pytest.raises(LemmataError) as exc:
        us.strip_comment_hidden_characters(text, "X.lean")
    assert exc.value.code == "lean-format-character"


def test_formal_conjectures_239_imports_without_its_soft_hyphen(tmp_path: Path) -> None:
    """The real snapshot's one hidden character: a soft hyphen in 239.lean's references
    block, which the statement's header carries. Imported, said, and taken out."""
    co, _ = fc_real_checkout(tmp_path / "fc")
    plan = plan_formal_conjectures_import(co, graph_copy(tmp_path), problems=["239"])
    [line] = plan.report["files"]
    assert line["status"] == "imported"
    assert line["warning"].startswith("U+00AD SOFT HYPHEN at byte 938 (line 26, column 86)")
    assert [a.target for a in plan.attention if a.code == "hidden-character-removed"] == [
        "erdos-239"]
    stmt = plan.files["targets/erdos-239/nodes/root/Statement.lean"].decode("utf-8")
    assert "Funktionen" in stmt
    for path, data in plan.files.items():
        if path.endswith(".lean"):
            text = data.decode("utf-8")
            assert us.format_character_findings(text, path) == []
            assert us.identifier_problems(text) == []


def test_the_importer_refuses_a_look_alike_name(tmp_path: Path) -> None:
    """A registry file whose statement holds a Cyrillic name beside a Latin one is that
    file's refused report line, never written."""
    co, _ = fc_real_checkout(tmp_path / "fc")
    src = co / "FormalConjectures/ErdosProblems/239.lean"
    text = src.read_text("utf-8")
    assert "∀ f : ℕ → ℝ," in text
    src.write_text(text.replace("∀ f : ℕ → ℝ,", "∀ f\u0430 : ℕ → ℝ,"), encoding="utf-8")
    commit_all(co, "a look-alike")
    plan = plan_formal_conjectures_import(co, graph_copy(tmp_path), problems=["239"])
    [line] = plan.report["files"]
    assert line["status"] == "refused" and line["code"] == "lean-mixed-script-identifier"
    assert plan.files == {}


# --- the real Formal Conjectures snapshot -----------------------------------------------


def test_the_real_formal_conjectures_snapshot_passes_the_name_screen(tmp_path: Path) -> None:
    """Every Lean file of the Erdős snapshot (488aade): no look-alike name anywhere (the
    Cyrillic of 25 files' comments is no name); one hidden character, the soft hyphen of
    239.lean, in a comment. TR39's plain skeleton would flag ℕ/N, ℝ/R, α/a, σ/o, ι/i,
    γ/y and ρ/p in most files: :func:`lean_skeleton` keeps those apart."""
    if not FC_REAL_ARCHIVE.is_file():
        pytest.skip(f"{FC_REAL_ARCHIVE} is not here")
    with tarfile.open(FC_REAL_ARCHIVE) as tar:
        tar.extractall(tmp_path, filter="data")
    files = sorted(tmp_path.rglob("*.lean"))
    texts = {p.relative_to(tmp_path).as_posix(): p.read_text("utf-8") for p in files}
    hidden = {k: us.format_character_findings(t, k) for k, t in texts.items()}
    hidden = {k: v for k, v in hidden.items() if v}
    names = {k: us.identifier_problems(t) for k, t in texts.items()}
    names = {k: v for k, v in names.items() if v}
    idents = sum(len(us.identifiers(t)) for t in texts.values())
    plain_tr39 = sum(1 for t in texts.values() if any(
        len({i.name for i in group}) > 1 and not all(i.name.isascii() for i in group)
        for group in _by_plain_skeleton(t)))
    cyrillic_comments = sum(1 for t in texts.values()
                            if any("\u0400" <= c <= "\u04ff" for c in t))
    print(f"\n{len(files)} Lean files, {idents} identifiers; hidden characters in "
          f"{len(hidden)} file(s) {sorted(hidden)}; look-alike names in {len(names)}; "
          f"files a plain TR39 skeleton would flag: {plain_tr39}; files with Cyrillic "
          f"text: {cyrillic_comments}")
    assert len(files) > 600
    assert names == {}
    assert list(hidden) == ["FormalConjectures/ErdosProblems/239.lean"]
    [d] = hidden["FormalConjectures/ErdosProblems/239.lean"]
    assert d.message.startswith("U+00AD SOFT HYPHEN")
    new, _ = us.strip_comment_hidden_characters(texts["FormalConjectures/ErdosProblems/239.lean"])
    assert us.format_character_findings(new, "239.lean") == []
    assert plain_tr39 > 100  # why the Lean skeleton keeps mathematical letters apart


def _by_plain_skeleton(text: str) -> list[list[us.Identifier]]:
    groups: dict[str, list[us.Identifier]] = {}
    for ident in us.identifiers(text):
        for part in ident.parts:
            groups.setdefault(skeleton(part), []).append(
                us.Identifier((part,), part, ident.line, ident.start))
    return list(groups.values())


def test_this_repository_s_own_source_holds_no_hidden_character() -> None:
    """The gate's own code and tests are read by people too (Trojan Source in Python): no
    hidden character in any ``.py`` or ``.lean`` file of network/ and tests/ (fixtures and
    vendored files included but the minified axe-core build, which is not read)."""
    root = Path(__file__).resolve().parents[1]
    files = [p for d in ("network", "tests") for p in (root / d).rglob("*")
             if p.suffix in (".py", ".lean", ".md") and p.is_file()]
    assert len(files) > 300
    bad = {str(p.relative_to(root)): [char_label(t[i]) for i in hidden][:3]
           for p in files if (hidden := hidden_characters(t := p.read_text("utf-8")))}
    assert bad == {}
    assert char_label("\x01") == "U+0001 <control>"


# --- layering ----------------------------------------------------------------------------


def test_the_gate_reads_skeletons_without_the_service() -> None:
    """The skeleton moved to ``network.unicode_text``; the gate imports no ``network.api``
    module, and the service's look-alike pseudonyms still read the same function."""
    from network.api.identity import confusables

    imports = import_graph()
    bad = sorted(f"{mod} -> {t}" for mod, targets in imports.items()
                 if mod.startswith("network.gate") for t in targets
                 if t.startswith("network.api"))
    assert bad == []
    assert "network.unicode_text" in imports["network.gate.screens.unicode_screen"]
    assert confusables.skeleton is skeleton
    assert confusables.look_alike("p\u0430yp\u0430l", "paypal")
