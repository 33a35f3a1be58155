"""The anti-echo check of D-4 step 6: an ``answer(…)`` that restates what it answers.

A Formal Conjectures statement that asks for a value is written with ``answer(sorry)``
(DESIGN.md "Importing from public registries"; D-10): its root is a question, held and
never claimable (:func:`network.record.derive.is_question`). Progress comes through
variants that fill the answer. A filled answer can cheat: ``R N = answer(R N)`` holds by
``rfl`` and answers nothing. Formal Conjectures issue #4923 found such statements
closable that way. The gate refuses them in two layers:

* **syntactic** (:func:`answer_echoes`): no Lean needed, so the finding is reported even
  where no toolchain is installed (the gate runs it beside step 2, issue 9). The theorem's
  type is read through :mod:`network.gate.lean_lex` (comments, strings and nesting as
  Lean reads them): leading ``∀ …,`` prefixes and ``… →`` hypotheses are dropped, the
  conclusion splits at its top-level ``↔`` (else its first top-level ``=``, ``≤``, ``≥``,
  ``<=``, ``>=``), and one side is ``answer(T)`` whose ``T``, compared token by token
  after dropping whitespace, comments, redundant parentheses and nested ``answer(…)``
  wrappers, is the other side. Either side may hold the answer (swapped sides are the
  same echo). Refused as ``answer-restates-target``.
* **definitional** (:func:`definitional_echo`): what the syntax cannot see — ``id T``,
  ``(T : ℕ)``, ``T + 0``, an unfolded definition — goes through the
  :class:`~network.gate.toolchain.Toolchain`'s ``defeq``: the statement's type against a
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

from network.errors import define
from network.gate.lean_lex import Token, lex
from network.gate.result import Diagnostic
from network.gate.sandbox import SandboxRunner
from network.gate.toolchain import TermRef, Toolchain
from network.gate.workspace import Source, Workspace, node_source
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
_RELATIONS = ("=", "≤", "≥", "<=", ">=")
_DECL_KEYWORDS = ("theorem", "lemma")
_SORRY = ("sorry",)
PROBE_STEM = "AnswerProbe"
"""The file stem of the probe module (:func:`answer_probe`), ``Lemmata.<t>.<n>.AnswerProbe``."""
PROBE_SUFFIX = "answer_probe"
"""The probe theorem is the statement's declaration with this last component added."""


@dataclass(frozen=True)
class AnswerEcho:
    """One ``answer(…)`` filled in a statement's top-level relation.

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


def _strip_binders(toks: list[Token]) -> list[Token]:
    """Drop ``∀ …,`` prefixes and ``… →`` hypotheses: what is left is the conclusion."""
    while toks:
        if toks[0].text in ("∀", "forall", "∀'"):
            comma = next((i for i in _top_level(toks) if toks[i].text == ","), -1)
            if comma < 0:
                return toks
            toks = toks[comma + 1:]
            continue
        arrows = [i for i in _top_level(toks) if toks[i].text in ("→", "->")]
        iff = [i for i in _top_level(toks) if _relation_at(toks, i) == "↔"]
        if arrows and not iff:  # `→` binds tighter than `↔`: `A → B ↔ C` is an iff
            toks = toks[arrows[-1] + 1:]
            continue
        return toks
    return toks


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


def _answer_inner(side: list[Token]) -> list[Token] | None:
    """``T`` when the side is exactly ``answer(T)`` (redundant parentheses aside)."""
    while side and side[0].text == "(" and _match(side, 0) == len(side) - 1:
        side = side[1:-1]
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


def answer_echoes(text: str) -> list[AnswerEcho]:
    """Every ``answer(T)`` (``T`` not ``sorry``) that is one side of a theorem's top-level
    relation, with the syntactic verdict (see the module docstring for the exact rule).

    Args:
        text: a Statement.lean (decoded UTF-8).

    Returns:
        One :class:`AnswerEcho` per theorem whose conclusion has such a side; ``restates``
        says whether ``T`` is the other side token for token. A text the lexer cannot
        vouch for gives ``[]``: step 2 refuses it (``lean-lex-ambiguous``).

    Implements D-4 step 6's anti-echo check, syntactic layer (issue 12; Formal
    Conjectures issue #4923).
    """
    lexed = lex(text)
    if lexed.ambiguities:
        return []
    out: list[AnswerEcho] = []
    for name, _line, typ in _theorem_types(_code(lexed.tokens)):
        concl = _strip_binders(list(typ))
        top = _top_level(concl)
        rel_at = next((i for i in top if _relation_at(concl, i) == "↔"), None)
        if rel_at is None:
            rel_at = next((i for i in top if _relation_at(concl, i) not in (None, "↔")), None)
        if rel_at is None:
            continue
        rel = _relation_at(concl, rel_at)
        assert rel is not None
        width = 2 if concl[rel_at].text == "<-" else 1
        left, right = concl[:rel_at], concl[rel_at + width:]
        if not left or not right:
            continue
        for side, other in ((left, right), (right, left)):
            inner = _answer_inner(side)
            if inner is None or not inner or tuple(t.text for t in _unwrap(inner)) == _SORRY:
                continue
            same = [t.text for t in _unwrap(list(inner))] == [t.text for t in _unwrap(other)]
            a_span, o_span = _span(text, side), _span(text, other)
            a_tok = next(t for t in side if t.text == "answer")
            out.append(AnswerEcho(
                name, a_tok.line, rel, text[_span(text, inner)[0]:_span(text, inner)[1]],
                text[o_span[0]:o_span[1]], same, (a_tok.start, a_span[1]), o_span))
            break
    return out


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
    ``probe_decl``. Its type is definitionally the statement's exactly when ``T`` is
    definitionally the other side (everything else is the same text in the same scope).

    Raises:
        ValueError: ``probe_decl`` is not a plain dotted name.
    """
    if not probe_decl or not all(p.isidentifier() for p in probe_decl.split(".")):
        raise ValueError(f"not a plain declaration name: {probe_decl!r}")
    a0, a1 = echo.answer_span
    o0, o1 = echo.other_span
    swapped = text[:a0] + "answer(" + text[o0:o1] + ")" + text[a1:]
    code = _code(lex(swapped).tokens)
    for i, t in enumerate(code):
        if t.kind == "keyword" and t.text in _DECL_KEYWORDS:
            name, end = _dotted_name(code, i + 1)
            if name == echo.decl:
                last = code[end - 1]
                return (swapped[:code[i + 1].start] + probe_decl
                        + swapped[last.start + len(last.text):])
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
    """The definitional layer's second module for one statement (:func:`answer_probe`).

    Attributes:
        source: the probe module (built with the statement, in the contributor's scratch
            domain, its olean carried like the statement's: issue 10, D-4 v3.27).
        decl: the probe theorem's full name, ``<statement decl>.answer_probe``.
        line: the line of the statement's ``answer``.
    """

    source: Source
    decl: str
    line: int


def answer_probe(target: str, node: str, statement: bytes, decl: str) -> AnswerProbe | None:
    """The probe for a proposed statement whose filled ``answer(T)`` the syntactic layer
    did not call a copy; None when it has none (no filled answer, or one already refused).

    Only the first theorem with such a side is probed (a Statement.lean declares one).

    Raises:
        LemmataError: ``bad-target-id``/``bad-node-id`` (from :func:`node_source`).
    """
    text = statement.decode("utf-8", "replace")
    echoes = answer_echoes(text)
    if not echoes or any(e.restates for e in echoes):
        return None
    e = echoes[0]
    probe_decl = f"{decl}.{PROBE_SUFFIX}"
    written = f"{e.decl}.{PROBE_SUFFIX}"
    try:
        body = echo_probe_text(text, e, written)
    except ValueError:
        return None  # a name the probe cannot rename: step 4 holds the declaration anyway
    return AnswerProbe(node_source(target, node, PROBE_STEM, body.encode("utf-8")),
                       probe_decl, e.line)
