"""The anti-echo check of D-4 step 6: an ``answer(…)`` that restates what it answers.

A Formal Conjectures statement that asks for a value is written with ``answer(sorry)``
(DESIGN.md "Importing from public registries"; D-10): its root is a question, held and
never claimable (:func:`network.record.derive.is_question`). Progress comes through
variants that fill the answer. A filled answer can cheat: ``R N = answer(R N)`` holds by
``rfl`` and answers nothing. Formal Conjectures issue #4923 found such statements
closable that way. The gate refuses them in two layers:

* **syntactic** (:func:`answer_echoes`): no Lean needed, so the finding is reported even
  where no toolchain is installed (the gate runs it beside step 2, issue 9). The theorem's
  type is read through :mod:`network.gate.screens.lean_lex` (comments, strings and nesting as
  Lean reads them; its declarations by the importers' command reader,
  :mod:`network.gate.screens.lean_commands`, issue 28) and taken apart as Lean's precedences
  nest it: a binder ``∀``/``∃ …,`` (or ``fun``, a big operator, ``if``) reaches to the
  end wherever it stands, then the top-level ``↔`` (whose two sides are also compared), ``→``,
  ``∨``, ``∧``, then ``¬``, down to each relation (the first top-level ``=``, ``≤``,
  ``≥``, ``<=``, ``>=``, ``∣``, ``⊆``, ``≍``, or ``Eq a b``/``Iff p q``/``HEq a b`` applied
  to two arguments; ``=Θ[…]``-style asymptotics are not relations). Wherever one side
  of such a relation is ``answer(T)``, ``T`` is compared token by token with the other
  side after dropping whitespace, comments, redundant parentheses and nested
  ``answer(…)`` wrappers. Either side may hold the answer (swapped sides are the same
  echo), and a hypothesis or a conjunct is read like the conclusion. An equal pair is
  refused as ``answer-restates-target``. A relation inside a term (an argument of a
  function) is not reached.
* **definitional** (:func:`definitional_echo`): what the syntax cannot see — ``id T``,
  ``(T : ℕ)``, ``T + 0``, an unfolded definition — goes through the
  :class:`~network.gate.lean.toolchain.Toolchain`'s ``defeq``: the statement's type against a
  probe whose answer is replaced by the other side (:func:`echo_probe_text`); the two
  are definitionally equal exactly when the answer is definitionally the other side.
  Refused as ``answer-defeq-target``; without a toolchain the check answers
  ``toolchain-missing`` (fail closed), never a pass.

A statement that passes both still asks a person at step 9 when it would settle its
target (D-4 v3.20): whether the answer really answers is mathematics, not Lean.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from network.errors import LemmataError, define
from network.gate.lean.toolchain import TermRef, Toolchain
from network.gate.result import Diagnostic
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.workspace import Source, Workspace, node_source
from network.gate.screens.lean_commands import declaration_parts, read_commands
from network.gate.screens.lean_lex import Token, lex
from network.record.models import Caps

define("answer-restates-target", 6, 422,
       "The statement's answer(…) restates the other side of its relation, so it holds by "
       "rfl without answering anything (Formal Conjectures issue #4923; D-4 step 6).",
       "Fill answer(…) with an explicit value (a number, a closed form, True or False), "
       "not the expression the question asks about.")
define("answer-defeq-target", 6, 422,
       "The statement's answer(…) is definitionally the other side of its relation (the "
       "same term after unfolding and computing), so it holds by rfl without answering "
       "(Formal Conjectures issue #4923; D-4 step 6).",
       "Fill answer(…) with an explicit value, not a disguised copy of the expression the "
       "question asks about (id …, a type ascription, an unfolded definition).")

_OPEN = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "⦃": "⦄", "⟦": "⟧"}
_CLOSE = set(_OPEN.values())
_RELATIONS = ("=", "≤", "≥", "<=", ">=", "∣", "⊆", "≍")
_PREFIX_RELATIONS = {"Eq": "=", "Iff": "↔", "HEq": "≍"}
"""Relations written as a function applied to its two sides (``Eq a b``, ``Iff p q``)."""
_DECL_KEYWORDS = ("theorem", "lemma")
_SORRY = ("sorry",)
PROBE_STEM = "AnswerProbe"
"""The file stem of the probe module (:func:`answer_probes`), ``Lemmata.<t>.<n>.AnswerProbe``."""
PROBE_SUFFIX = "answer_probe"
"""The probe theorem is the statement's declaration with this last component added."""


@dataclass(frozen=True)
class AnswerEcho:
    """One ``answer(…)`` filled as a side of a relation the statement is built from.

    Attributes:
        decl: the theorem's name as written.
        line: the line of ``answer``.
        relation: the relation it is a side of (``↔``, ``=``, ``≤``, ...).
        answer: the answer term's text as written.
        other: the other side's text as written.
        restates: the syntactic layer's verdict: the answer is the other side.
        answer_span: character offsets ``(start, end)`` of ``answer(…)`` in the text.
        other_span: character offsets of the other side.
    """

    decl: str
    line: int
    relation: str
    answer: str
    other: str
    restates: bool
    answer_span: tuple[int, int]
    other_span: tuple[int, int]


def _code(tokens: Sequence[Token]) -> list[Token]:
    return [t for t in tokens if t.kind not in ("space", "comment", "doc")]


def _match(toks: Sequence[Token], i: int) -> int:
    """Index of the bracket closing ``toks[i]``, or -1."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text in _OPEN:
            depth += 1
        elif toks[j].text in _CLOSE:
            depth -= 1
            if depth == 0:
                return j
    return -1


def _top_level(toks: Sequence[Token]) -> list[int]:
    """Indices of the tokens at bracket depth 0 (None of a bracket's inside)."""
    out, depth = [], 0
    for i, t in enumerate(toks):
        if t.text in _OPEN:
            if depth == 0:
                out.append(i)
            depth += 1
        elif t.text in _CLOSE:
            depth -= 1
            if depth == 0:
                out.append(i)
        elif depth == 0:
            out.append(i)
    return out


def _adjacent(a: Token, b: Token) -> bool:
    return b.start == a.start + len(a.text)


def _relation_at(toks: Sequence[Token], i: int) -> str | None:
    """The relation token ``toks[i]`` starts, or None: ``↔``/``<->``, or one of
    :data:`_RELATIONS` not glued to a name (``=Θ[…]``, ``=O[…]`` are asymptotics)."""
    t = toks[i]
    if t.kind in ("string", "char", "raw", "symbol"):
        return None
    if t.text == "↔":
        return "↔"
    if t.text == "<-" and i + 1 < len(toks) and toks[i + 1].text == ">" \
            and _adjacent(t, toks[i + 1]):
        return "↔"
    if t.text in _RELATIONS:
        if i + 1 < len(toks) and toks[i + 1].kind == "name" and _adjacent(t, toks[i + 1]):
            return None
        return t.text
    return None


_BINDERS = ("∀", "forall", "∃", "exists", "∃!", "∀'")
_SCOPING = frozenset({*_BINDERS, "fun", "λ", "∑", "∏", "⋃", "⋂", "⨆", "⨅", "∫", "∮", "∀ᶠ",
                      "∃ᶠ", "Π", "Σ", "if", "let", "have", "show", "match"})
"""Tokens that open a term reaching as far right as it can (a binder's body, a big
operator's summand, an ``if``'s branches): nothing after one splits the proposition."""
_CONNECTIVES = (("↔",), ("→", "->"), ("∨",), ("∧",))
"""Top-level connectives in the order Lean's precedences nest them (``↔`` 20, ``→`` 25,
``∨`` 30, ``∧`` 35; a relation 50 binds tighter than all of them)."""


def _connective_at(toks: Sequence[Token], i: int) -> tuple[str, int] | None:
    """The connective ``toks[i]`` starts and its width in tokens, or None."""
    rel = _relation_at(toks, i)
    if rel == "↔":
        return "↔", 2 if toks[i].text == "<-" else 1
    if toks[i].kind not in ("string", "char", "raw", "symbol") and toks[i].text in (
            "→", "->", "∨", "∧"):
        return toks[i].text, 1
    return None


def _sides(toks: list[Token], out: list[tuple[str, list[Token], list[Token]]]) -> None:
    """Collect ``(relation, left, right)`` for every relation a proposition is built from
    by binders, ``¬`` and the connectives (a relation inside a term is not reached).

    A binder (``∀``/``∃ …,``, ``fun``, a big operator, ``if``) reaches as far right as it
    can wherever it stands: the connectives and relations after it are inside its body, so
    the split looks only at what stands before the first one (issue 28:
    ``answer(∃ n, 0<n ∧ n<1) = ∃ n, 0<n ∧ n<1`` is one ``=`` whose right side is the whole
    ``∃``, never an ``∧`` of two halves)."""
    while toks and toks[0].text == "(" and _match(toks, 0) == len(toks) - 1:
        toks = toks[1:-1]
    if not toks:
        return
    top = _top_level(toks)
    if toks[0].text in _BINDERS:  # a binder reaches as far right as it can
        comma = next((i for i in top if toks[i].text == ","), -1)
        if comma >= 0:
            _sides(toks[comma + 1:], out)
        return
    scope = next((i for i in top if i > 0 and toks[i].kind not in (
        "string", "char", "raw", "symbol") and toks[i].text in _SCOPING), len(toks))
    top = [i for i in top if i < scope]
    for level in _CONNECTIVES:
        cuts = [(i, c[1]) for i in top if (c := _connective_at(toks, i)) and c[0] in level]
        if not cuts:
            continue
        if level == ("↔",):  # one ↔ (it does not chain): its sides are compared too
            i, w = cuts[0]
            out.append(("↔", toks[:i], toks[i + w:]))
        start = 0
        for i, w in cuts:
            _sides(toks[start:i], out)
            start = i + w
        _sides(toks[start:], out)
        return
    if toks[0].text == "¬":
        _sides(toks[1:], out)
        return
    prefix = _PREFIX_RELATIONS.get(toks[0].text) if toks[0].kind == "name" else None
    args = _arguments(toks[1:]) if prefix else None
    if prefix and args is not None and len(args) == 2:
        out.append((prefix, args[0], args[1]))
        return
    at = next((i for i in top if _relation_at(toks, i) in _RELATIONS), None)
    if at is not None:
        rel = _relation_at(toks, at)
        assert rel is not None
        out.append((rel, toks[:at], toks[at + 1:]))


def _arguments(toks: list[Token]) -> list[list[Token]] | None:
    """The arguments of an application: each a name, a literal or a bracketed group, or
    None when anything else (an operator) stands at the top level."""
    out: list[list[Token]] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.text in _OPEN:
            j = _match(toks, i)
            if j < 0:
                return None
            out.append(toks[i:j + 1])
            i = j + 1
        elif t.kind == "name" or t.text[:1].isdigit():
            out.append([t])
            i += 1
        else:
            return None
    return out


def _unwrap(toks: list[Token]) -> list[Token]:
    """Redundant parentheses around the whole and nested ``answer(…)`` wrappers dropped."""
    while toks:
        if toks[0].text == "(" and _match(toks, 0) == len(toks) - 1:
            toks = toks[1:-1]
        elif len(toks) >= 3 and toks[0].text == "answer" and toks[0].kind == "name" \
                and toks[1].text == "(" and _match(toks, 1) == len(toks) - 1:
            toks = toks[2:-1]
        else:
            return toks
    return toks


def _bare(side: list[Token]) -> list[Token]:
    """The side without redundant parentheses around the whole."""
    while side and side[0].text == "(" and _match(side, 0) == len(side) - 1:
        side = side[1:-1]
    return side


def _answer_inner(side: list[Token]) -> list[Token] | None:
    """``T`` when the side is exactly ``answer(T)`` (redundant parentheses aside)."""
    side = _bare(side)
    if len(side) >= 3 and side[0].kind == "name" and side[0].text == "answer" \
            and side[1].text == "(" and _match(side, 1) == len(side) - 1:
        return side[2:-1]
    return None


def _span(text: str, toks: Sequence[Token]) -> tuple[int, int]:
    return toks[0].start, toks[-1].start + len(toks[-1].text)


def _dotted_name(code: Sequence[Token], i: int) -> tuple[str, int]:
    """The declaration name starting at ``code[i]`` (``Erdos1.erdos_1.variants.x`` is
    several tokens: name parts joined by adjacent dots) and the index after it."""
    j = i
    if j >= len(code) or code[j].kind != "name":
        return "", i
    j += 1
    while j + 1 < len(code) and code[j].text == "." and code[j + 1].kind == "name" \
            and _adjacent(code[j - 1], code[j]) and _adjacent(code[j], code[j + 1]):
        j += 2
    return "".join(t.text for t in code[i:j]), j


def _theorem_types(code: list[Token]) -> list[tuple[str, int, list[Token]]]:
    """``(name, line, type tokens)`` of every theorem/lemma: from the first ``:`` at depth
    0 after the name to the ``:=`` (or ``|``/``where``) at depth 0."""
    out = []
    i = 0
    while i < len(code):
        t = code[i]
        if t.kind == "keyword" and t.text in _DECL_KEYWORDS and i + 1 < len(code):
            name, j = _dotted_name(code, i + 1)
            depth, colon = 0, -1
            while j < len(code):
                x = code[j]
                if x.text in _OPEN:
                    depth += 1
                elif x.text in _CLOSE:
                    depth -= 1
                elif depth == 0 and x.text == ":":
                    colon = j
                    break
                elif depth == 0 and x.text == ":=":
                    break
                j += 1
            if colon < 0:
                i = j
                continue
            k, depth = colon + 1, 0
            while k < len(code):
                x = code[k]
                if x.text in _OPEN:
                    depth += 1
                elif x.text in _CLOSE:
                    depth -= 1
                elif depth == 0 and (x.text in (":=", "|", "where") or (
                        x.kind == "keyword" and x.text in _DECL_KEYWORDS)):
                    break
                k += 1
            out.append((name, t.line, code[colon + 1:k]))
            i = k
            continue
        i += 1
    return out


def _declared_types(text: str) -> list[tuple[str, int, list[Token]]]:
    """``(name, line, type tokens)`` of every theorem/lemma, read by the importers' command
    reader (:func:`network.gate.screens.lean_commands.read_commands`, issue 28: one reader
    for the importers and the gate), so a column-0 line or a ``where`` proof stays where Lean puts it; the token
    scan :func:`_theorem_types` where that reader refuses the text."""
    try:
        cmds = read_commands(text).commands
        out = []
        for c in cmds:
            if c.cls == "declaration" and c.kind in _DECL_KEYWORDS and c.name is not None:
                parts = declaration_parts(c, text)
                if parts.colon >= 0:
                    out.append((c.name, c.line, c.tokens[parts.colon + 1:parts.body]))
        return out
    except LemmataError:
        return _theorem_types(_code(lex(text).tokens))


def _echoes(text: str, name: str, typ: Sequence[Token]) -> list[AnswerEcho]:
    """The echo findings of one theorem type (its tokens read from ``text``)."""
    out: list[AnswerEcho] = []
    sides: list[tuple[str, list[Token], list[Token]]] = []
    _sides(list(typ), sides)
    for rel, left, right in sides:
        if not left or not right:
            continue
        for side, other in ((left, right), (right, left)):
            inner = _answer_inner(side)
            if not inner or [t.text for t in _unwrap(list(inner))] == list(_SORRY):
                continue
            bare = _bare(side)
            same = [t.text for t in _unwrap(list(inner))] == [t.text for t in _unwrap(other)]
            o_span = _span(text, other)
            i0, i1 = _span(text, inner)
            out.append(AnswerEcho(name, bare[0].line, rel, text[i0:i1],
                                  text[o_span[0]:o_span[1]], same, _span(text, bare), o_span))
            break
    return out


def restated_answer(type_text: str) -> str | None:
    """The answer term, as written, when a theorem type's ``answer(T)`` restates the other
    side of a relation it is built from (the rule of :func:`answer_echoes`); else None.
    What the importers flag as ``answer-copies-target`` is exactly what step 6 refuses
    (issue 28: one parser for both).

    Args:
        type_text: a theorem's type (the text after its ``:``), decoded.

    Implements D-4 step 6's anti-echo check, syntactic layer, for D-10 imports.
    """
    lexed = lex(type_text)
    if lexed.ambiguities:
        return None
    found = [e for e in _echoes(type_text, "", _code(lexed.tokens)) if e.restates]
    return found[0].answer if found else None


def answer_echoes(text: str) -> list[AnswerEcho]:
    """Every ``answer(T)`` (``T`` not ``sorry``) that is one side of a relation a theorem's
    type is built from, with the syntactic verdict (the module docstring gives the rule).

    Args:
        text: a Statement.lean (decoded UTF-8).

    Returns:
        One :class:`AnswerEcho` per such relation, in the order read; ``restates`` says
        whether ``T`` is the other side token for token. A text the lexer cannot
        vouch for gives ``[]``: step 2 refuses it (``lean-lex-ambiguous``).

    Implements D-4 step 6's anti-echo check, syntactic layer (issue 12; Formal
    Conjectures issue #4923).
    """
    lexed = lex(text)
    if lexed.ambiguities:
        return []
    return [e for name, _line, typ in _declared_types(text) for e in _echoes(text, name, typ)]


def syntactic_findings(text: str, path: str) -> list[Diagnostic]:
    """``answer-restates-target`` for each echo :func:`answer_echoes` finds (no Lean).

    Implements D-4 step 6's anti-echo check, syntactic layer (issue 12).
    """
    return [Diagnostic("answer-restates-target",
                       f"{e.decl}: answer({' '.join(e.answer.split())}) restates the other "
                       f"side of its {e.relation}, so the statement holds by rfl without "
                       "answering", path, e.line)
            for e in answer_echoes(text) if e.restates]


def echo_probe_text(text: str, echo: AnswerEcho, probe_decl: str) -> str:
    """The probe the definitional layer compares with: the statement's text with its
    ``answer(T)`` replaced by ``answer(<other side>)`` and the theorem renamed
    ``probe_decl`` (the statement's written name with one part added). Its type is definitionally the statement's exactly when ``T`` is
    definitionally the other side (everything else is the same text in the same scope).

    Raises:
        ValueError: ``probe_decl`` is not ``<the written name>.<identifier>``.
    """
    head, _, last = probe_decl.rpartition(".")
    if head != echo.decl or not last.isidentifier():
        raise ValueError(f"not the statement's name with one plain part added: {probe_decl!r}")
    a0, a1 = echo.answer_span
    o0, o1 = echo.other_span
    swapped = text[:a0] + "answer(" + text[o0:o1] + ")" + text[a1:]
    code = _code(lex(swapped).tokens)
    for i, t in enumerate(code):
        if t.kind == "keyword" and t.text in _DECL_KEYWORDS:
            name, end = _dotted_name(code, i + 1)
            if name == echo.decl:
                tail = code[end - 1]
                return (swapped[:code[i + 1].start] + probe_decl
                        + swapped[tail.start + len(tail.text):])
    raise ValueError(f"no theorem {echo.decl} in the text")


def definitional_echo(tc: Toolchain, ws: Workspace, statement: TermRef, probe: TermRef,
                      sandbox: SandboxRunner, caps: Caps, path: str,
                      line: int | None = None) -> list[Diagnostic]:
    """The definitional layer: ``answer-defeq-target`` when the statement's type and the
    probe's (:func:`echo_probe_text`) are definitionally equal.

    Returns:
        ``[]`` when they differ; ``[answer-defeq-target]`` when equal; the toolchain's
        code (``toolchain-missing``, ``checker-failed``, ...) when the test did not run,
        and ``checker-failed`` when the two could not be compared: fail closed.

    Implements D-4 step 6's anti-echo check, definitional layer (issue 12).
    """
    res = tc.defeq(ws, statement, probe, sandbox, caps)
    if not res.ok:
        return [Diagnostic(res.code or "checker-failed", res.detail or "defeq did not run",
                           path, line)]
    if not res.comparable:
        return [Diagnostic("checker-failed", "the statement and its answer probe could not "
                           f"be compared: {res.detail}", path, line)]
    if res.defeq:
        return [Diagnostic("answer-defeq-target",
                           f"{statement.decl}: its answer is definitionally the other side "
                           "of its relation, so it holds by rfl without answering",
                           path, line)]
    return []


@dataclass(frozen=True)
class AnswerProbe:
    """The definitional layer's second module for one statement (:func:`answer_probes`).

    Attributes:
        source: the probe module (built with the statement, in the contributor's scratch
            domain, its olean carried like the statement's: issue 10, D-4 v3.27).
        decl: the probe theorem's full name, ``<statement decl>.answer_probe``.
        line: the line of the statement's ``answer``.
    """

    source: Source
    decl: str
    line: int


def answer_probes(target: str, node: str, statement: bytes, decl: str) -> list[AnswerProbe]:
    """One probe per filled ``answer(T)`` of the statement's theorem ``decl`` (the one META
    names), each swapping that one answer for its other side; ``[]`` when there is none,
    or when the syntactic layer refuses one already (nothing is built for a refused
    statement). Probes are named ``<decl>.answer_probe`` (the first) and
    ``<decl>.answer_probe_<k>``, in modules ``AnswerProbe`` and ``AnswerProbe<k>``.

    Raises:
        LemmataError: ``bad-target-id``/``bad-node-id`` (from :func:`node_source`);
            ``checker-failed`` when a probe cannot be written (fail closed: no statement
            with a filled answer goes unprobed).
    """
    text = statement.decode("utf-8", "replace")
    echoes = answer_echoes(text)
    if any(e.restates for e in echoes):
        return []
    mine = [e for e in echoes if decl == e.decl or decl.endswith("." + e.decl)]
    out = []
    for k, e in enumerate(mine, start=1):
        suffix = PROBE_SUFFIX if k == 1 else f"{PROBE_SUFFIX}_{k}"
        try:
            body = echo_probe_text(text, e, f"{e.decl}.{suffix}")
        except ValueError as exc:
            raise LemmataError("checker-failed", f"the answer probe of {decl}: {exc}") from exc
        stem = PROBE_STEM if k == 1 else f"{PROBE_STEM}{k}"
        out.append(AnswerProbe(node_source(target, node, stem, body.encode("utf-8")),
                               f"{decl}.{suffix}", e.line))
    return out
