"""Issue 32's first two passes, held. The ``simproc_pattern%`` family is refused (a
simproc registered with no denied word). And the screen's lexer opens a char literal exactly where
Lean's ``tokenFnAux`` does (any token start whose ``'`` is not followed by ``'``), names end
where Lean's ``identFnAux`` ends them (``isIdFirst isIdRest*``), and a char literal glued
to a token that could hold its ``'`` (a library's ``⁻¹'``, core's ``]'``) fails closed.

Before, the lexer refused to open a char literal after ``!``, ``?`` or any ``\\w``
character, so after ``…[(0)]!'"'`` or ``∅ᶜ'"'`` it read the rest of the file as a string
while Lean read code: an ``@[macro …]`` definition below passed the import-time screen.
"""

from __future__ import annotations

import pytest

from network.gate.artifacts import import_time_problems
from network.gate.screens.lean_lex import lex

MACRO = ('@[macro Lean.Parser.Term.app] def evil : Lean.Macro := fun _ => '
         'Lean.Macro.throwUnsupported\n-- "\n')


@pytest.mark.parametrize("before", [
    "def a : Nat := #[(0)][0]!'\"'\n",      # `!` ends a name? no: `]!` is a token
    "def b : Set Nat := ∅ᶜ'\"'\n",          # ᶜ is a notation token, not a name part
    "def c : Nat := xˣ'\"'\n",              # ˣ likewise
    "def d : Nat := Mᵀ'\"'\n",              # ᵀ likewise
    "def e := fun λ'\"'\n",                 # λ is a token of its own
    "def f : Char := 'x' -- ok\ndef g := ?'\"'\n",
    "def h : Nat := xⁿ'\"'\n",              # ⁿ is not Lean's isSubScriptAlnum
])
def test_a_macro_after_a_char_literal_lean_opens_is_refused(before: str) -> None:
    probs = import_time_problems(before + MACRO)
    assert probs, "the screen read the macro below as a string"
    assert {p.code for p in probs} <= {"import-time-code", "lean-lex-ambiguous"}


@pytest.mark.parametrize("text", [
    "def c : Char := 'a'\n",
    "def cs : List Char := ['a', 'b', '\\n', '\\x41', '\\u03bb']\n",
    "def p := ('a', ⟨'b', 'c'⟩)\n",
    "theorem x' (h' : True) : True := h'\n",
    "def nl : Char := '\n'\n",              # a newline is a char Lean reads
])
def test_ordinary_char_literals_and_primed_names_pass(text: str) -> None:
    assert import_time_problems(text) == []


def test_a_newline_char_literal_is_one_token() -> None:
    """``'<newline>'`` is a char literal to Lean; read otherwise, its second quote would
    open a literal Lean never opens."""
    lexed = lex("def nl : Char := '\n'\ndef s := \"x\"\n")
    assert [t.text for t in lexed.tokens if t.kind == "char"] == ["'\n'"]
    assert not lexed.ambiguities


@pytest.mark.parametrize("text", [
    "theorem t : f ⁻¹'\"'\n",               # Mathlib's `⁻¹'`: a token holding the quote
    "example := a[i]'\"'\n",                # core's `]'`
    "def q := (x)'\"'\n",
])
def test_a_char_literal_glued_to_a_token_fails_closed(text: str) -> None:
    assert lex(text).ambiguities
    assert [p.code for p in import_time_problems(text)][:1] == ["lean-lex-ambiguous"]


@pytest.mark.parametrize("text", [
    # issue 32's second pass: a simproc registered with no denied word before
    ("def f (e : Lean.Expr) : Lean.Meta.SimpM Lean.Meta.Simp.Step := pure .continue\n"
     "simproc_pattern% (_ + _ : Nat) => f\nattribute [simp] f\n"),
    "cbv_simproc_pattern% (_ + _ : Nat) => f\n",
    "builtin_simproc_pattern% (_ + _ : Nat) => f\n",
    "cbv_simproc_decl f (_ + _) := g\n",
])
def test_a_simproc_pattern_is_refused(text: str) -> None:
    assert any(p.code == "import-time-code" for p in import_time_problems(text))


@pytest.mark.parametrize("text", [
    # Formal Conjectures 488aade ErdosProblems/835 and /70: Mathlib's card notation
    "example : Nonempty {s : Finset (Fin n) // #s = k} := sorry\n",
    "theorem t : (∃ s : Finset ℕ, #s = c ∧ True) := sorry\n",
    "theorem u (s : Finset ℕ) : 0 ≤ #s := Nat.zero_le _\n",
])
def test_card_notation_in_a_term_is_data(text: str) -> None:
    """issue 32: ``#s`` after a token that expects a term is card notation, not a command
    (it was refused as ``the command #s``)."""
    assert import_time_problems(text) == []


@pytest.mark.parametrize("text", [
    "#eval IO.println \"x\"\n",
    "theorem t : True := trivial\n#print axioms t\n",
    "def x := 1 #eval x\n",
    "theorem t : True := trivial) #exit\n",
])
def test_a_hash_command_where_a_command_stands_is_refused(text: str) -> None:
    assert any(p.code == "import-time-code" for p in import_time_problems(text))
