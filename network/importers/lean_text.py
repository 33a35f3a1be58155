"""Reading a Formal Conjectures–style Lean file without elaborating it (D-10).

This is a text reader, not a Lean parser: it finds the file's top-level commands the way
the Formal Conjectures sources are laid out (each command starts in column 0; continuation
lines are indented), after masking comments and string literals so that brackets, ``:=``
and keywords inside them are never read as code. What it cannot read it refuses with a
catalog code; it never guesses what a statement means. The gate (D-4) is what compiles.

Shapes: offsets are indices into the ``str`` text; every returned text is a slice of the
original file, so imported statements keep the upstream bytes.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from network.errors import LemmataError, define

define("import-malformed-lean", None, 422,
       "A Lean file of the registry could not be read: an unterminated comment or string, "
       "or a declaration whose parts could not be found.",
       "Fix the file upstream (or pick another commit) and import again.")

_OPEN = {"(": ")", "[": "]", "{": "}", "⦃": "⦄"}
_CLOSE = {v: k for k, v in _OPEN.items()}
_MODIFIERS = r"(?:(?:private|protected|noncomputable|nonrec|unsafe|partial)\s+)*"
_DECL_RE = re.compile(
    _MODIFIERS + r"(?P<kw>theorem|lemma|def|abbrev|instance|structure|inductive|class|"
    r"example|opaque|axiom)\b\s*(?P<name>[^\s:(\[{⦃]*)"
)
DEF_KEYWORDS = frozenset({"def", "abbrev", "instance", "structure", "inductive", "class",
                          "opaque"})
THEOREM_KEYWORDS = frozenset({"theorem", "lemma"})


def mask(text: str) -> str:
    """``text`` with every comment and string literal blanked to spaces (newlines kept).

    Lean block comments nest (``/- /- -/ -/``); doc comments ``/--`` and module docs
    ``/-!`` are block comments. The result has the same length as ``text``.

    Raises:
        LemmataError: ``import-malformed-lean`` on an unterminated comment or string.
    """
    out = list(text)
    i, n, depth = 0, len(text), 0

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    start = 0
    while i < n:
        if depth:
            if text.startswith("/-", i):
                depth += 1
                i += 2
            elif text.startswith("-/", i):
                depth -= 1
                i += 2
                if not depth:
                    blank(start, i)
            else:
                i += 1
        elif text.startswith("/-", i):
            depth, start = 1, i
            i += 2
        elif text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise LemmataError("import-malformed-lean",
                                   f"unterminated string at line {text.count(chr(10), 0, i) + 1}")
            blank(i + 1, j)
            i = j + 1
        else:
            i += 1
    if depth:
        raise LemmataError("import-malformed-lean",
                           f"unterminated comment opened at line {text.count(chr(10), 0, start) + 1}")
    return "".join(out)


def matching(masked: str, i: int) -> int:
    """Index just past the bracket closing the one at ``masked[i]``.

    Raises:
        LemmataError: ``import-malformed-lean`` when brackets do not balance.
    """
    stack: list[str] = []
    for k in range(i, len(masked)):
        c = masked[k]
        if c in _OPEN:
            stack.append(_OPEN[c])
        elif c in _CLOSE:
            if not stack or stack.pop() != c:
                break
            if not stack:
                return k + 1
    raise LemmataError("import-malformed-lean", f"unbalanced bracket at offset {i}")


def top_level(masked: str, pattern: str) -> int:
    """Index of the first match of ``pattern`` (a regex) outside every bracket, or -1."""
    depth = 0
    rx = re.compile(pattern)
    for k, c in enumerate(masked):
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0 and rx.match(masked, k):
            return k
    return -1


def _comment_end(text: str, i: int) -> int:
    """Index just past the (nested) block comment starting at ``text[i]``."""
    depth, k = 0, i
    while k < len(text):
        if text.startswith("/-", k):
            depth += 1
            k += 2
        elif text.startswith("-/", k):
            depth -= 1
            k += 2
            if not depth:
                return k
        else:
            k += 1
    raise LemmataError("import-malformed-lean", "unterminated comment")


@dataclass
class Command:
    """One top-level command with the doc comment and attributes written before it.

    Attributes:
        kind: the keyword (``theorem``, ``def``, ``namespace``, ``open``, ...), ``comment``
            for a stand-alone comment, ``moddoc`` for a ``/-!`` module doc.
        name: the declared name as written (``erdos_242.variants.known_result``), if any.
        namespace: the enclosing namespaces joined by dots ("" at top level).
        doc: the ``/-- … -/`` doc comment text, verbatim, or None.
        attrs: each ``@[…]`` attribute block's inside text, verbatim.
        prefix: ``open … in`` lines that scope this declaration, verbatim.
        text: the command itself, verbatim, trailing whitespace removed.
        masked: ``text`` with comments and strings blanked.
        line: the 1-based line the command starts on.
    """

    kind: str
    name: str | None
    namespace: str
    doc: str | None
    attrs: list[str]
    prefix: list[str]
    text: str
    masked: str
    line: int
    modifiers: list[str] = field(default_factory=list)

    @property
    def full_name(self) -> str:
        """The declaration's full Lean name: namespace-qualified unless ``_root_.``. An
        anonymous declaration (``instance : Foo …``) has none; it is labelled
        ``<anonymous instance, line L>`` so a report can still name it."""
        if self.name is None:
            return f"<anonymous {self.kind}, line {self.line}>"
        if self.name.startswith("_root_."):
            return self.name[len("_root_."):]
        return f"{self.namespace}.{self.name}" if self.namespace else self.name


def commands(text: str) -> list[Command]:
    """Split a Lean file into its top-level commands, in file order.

    Returns:
        Every command; ``doc``/``attrs``/``prefix`` attached to the declaration they precede.

    Raises:
        LemmataError: ``import-malformed-lean`` on unterminated comments or strings, or an
            unbalanced attribute.
    """
    masked = mask(text)
    candidates: list[int] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        if line[:1] and not line[:1].isspace():
            candidates.append(pos)
        pos += len(line)
    inside = _inside_offsets(text, candidates) | _inside_brackets(masked, candidates)
    starts = [c for c in candidates if c not in inside]
    starts.append(len(text))
    out: list[Command] = []
    ns: list[str | None] = []
    doc: str | None = None
    attrs: list[str] = []
    prefix: list[str] = []
    for a, b in itertools.pairwise(starts):
        k = a
        while k < b:
            if text.startswith("/--", k):
                end = _comment_end(text, k)
                doc = text[k:end]
                k = _skip_ws(text, end, b)
            elif text.startswith("/-", k):
                end = _comment_end(text, k)
                kind = "moddoc" if text.startswith("/-!", k) else "comment"
                out.append(Command(kind, None, _ns(ns), None, [], [], text[k:end],
                                   masked[k:end], _line(text, k)))
                k = _skip_ws(text, end, b)
            elif text.startswith("--", k):
                nl = text.find("\n", k, b)
                end = b if nl < 0 else nl
                if k == 0 or text[k - 1] == "\n":  # a column-0 comment: kept, for review
                    out.append(Command("comment", None, _ns(ns), None, [], [],
                                       text[k:end].rstrip(), masked[k:end].rstrip(),
                                       _line(text, k)))
                k = _skip_ws(text, end, b)
            elif text.startswith("@[", k):
                end = matching(masked, k + 1)
                attrs.append(text[k + 2:end - 1])
                k = _skip_ws(text, end, b)
            else:
                break
        if k >= b:
            continue
        body, mbody = text[k:b].rstrip(), masked[k:b].rstrip()
        lineno = _line(text, k)
        first = mbody.split(None, 1)[0] if mbody.strip() else ""
        m = _DECL_RE.match(mbody)
        if first in ("open", "set_option") and re.search(r"\bin\s*$", mbody):
            prefix.append(body)
            continue
        if m:
            mods = mbody[: m.start("kw")].split()
            cmd = Command(m.group("kw"), m.group("name") or None, _ns(ns), doc, attrs,
                          prefix, body, mbody, lineno, mods)
            doc, attrs, prefix = None, [], []
        else:
            cmd = Command(first, None, _ns(ns), None, [], [], body, mbody, lineno)
            if first == "namespace":
                ns.append(mbody.split()[1] if len(mbody.split()) > 1 else "")
            elif first == "section" or mbody.startswith("noncomputable section"):
                ns.append(None)
            elif first == "end" and ns:
                ns.pop()
        out.append(cmd)
    return out


def _inside_offsets(text: str, offsets: list[int]) -> set[int]:
    """Those of ``offsets`` (ascending) that lie inside a comment or string opened earlier."""
    wanted = iter(offsets)
    nxt = next(wanted, None)
    out: set[int] = set()
    i, depth, in_str = 0, 0, False
    while nxt is not None:
        while nxt is not None and nxt <= i:
            if depth > 0 or in_str:
                out.add(nxt)
            nxt = next(wanted, None)
        if nxt is None or i >= len(text):
            break
        if in_str:
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == '"':
                in_str = False
            i += 1
        elif depth:
            if text.startswith("/-", i):
                depth, i = depth + 1, i + 2
            elif text.startswith("-/", i):
                depth, i = depth - 1, i + 2
            else:
                i += 1
        elif text.startswith("/-", i):
            depth, i = 1, i + 2
        elif text.startswith("--", i):
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
        elif text[i] == '"':
            in_str, i = True, i + 1
        else:
            i += 1
    return out


def _inside_brackets(masked: str, offsets: list[int]) -> set[int]:
    """Those of ``offsets`` (ascending) that lie inside an open bracket: a column-0 line
    that continues an attribute or a term (``@[…,\n"https://…"]``) starts no command."""
    out: set[int] = set()
    depth, prev = 0, 0
    for off in offsets:
        for c in masked[prev:off]:
            if c in _OPEN:
                depth += 1
            elif c in _CLOSE:
                depth = max(0, depth - 1)
        prev = off
        if depth > 0:
            out.add(off)
    return out


def _skip_ws(text: str, i: int, end: int) -> int:
    while i < end and text[i].isspace():
        i += 1
    return i


def _line(text: str, i: int) -> int:
    return text.count("\n", 0, i) + 1


def _ns(stack: list[str | None]) -> str:
    return ".".join(s for s in stack if s)


@dataclass(frozen=True)
class TheoremParts:
    """A theorem split at its top-level ``:`` and ``:=``.

    Attributes:
        binders: the text between the name and the ``:`` (may be empty).
        conclusion: the text between ``:`` and ``:=``.
        signature: everything before ``:=``, trailing whitespace removed.
        body: everything after ``:=``, stripped.
        sorry_body: whether the body is exactly ``sorry`` or ``by sorry`` (any spacing).
    """

    binders: str
    conclusion: str
    signature: str
    body: str
    sorry_body: bool


def theorem_parts(cmd: Command) -> TheoremParts:
    """Split a theorem command into binders, conclusion and body.

    Raises:
        LemmataError: ``import-malformed-lean`` when no top-level ``:=`` or ``:`` is found.
    """
    m = _DECL_RE.match(cmd.masked)
    if not m or cmd.name is None:
        raise LemmataError("import-malformed-lean", f"line {cmd.line}: not a named theorem")
    name_end = m.end("name")
    assign = top_level(cmd.masked, r":=")
    if assign < 0:
        raise LemmataError("import-malformed-lean",
                           f"line {cmd.line}: theorem {cmd.name} has no ':=' body")
    colon_rel = top_level(cmd.masked[name_end:assign], r":(?!=)")
    if colon_rel < 0:
        raise LemmataError("import-malformed-lean",
                           f"line {cmd.line}: theorem {cmd.name} has no ':' before its type")
    colon = name_end + colon_rel
    body_masked = " ".join(cmd.masked[assign + 2:].split())
    return TheoremParts(
        binders=cmd.text[name_end:colon].strip(),
        conclusion=cmd.text[colon + 1:assign].strip(),
        signature=cmd.text[:assign].rstrip(),
        body=cmd.text[assign + 2:].strip(),
        sorry_body=body_masked in {"sorry", "by sorry"},
    )


# --- the answer(...) convention --------------------------------------------------------

_ANSWER_RE = re.compile(r"\banswer\s*\(")


def answer_terms(conclusion: str) -> list[str]:
    """The inside text of every ``answer(…)`` in a conclusion, whitespace-stripped.

    Raises:
        LemmataError: ``import-malformed-lean`` when an ``answer(`` is not closed.
    """
    masked = mask(conclusion)
    out = []
    for m in _ANSWER_RE.finditer(masked):
        open_at = m.end() - 1
        close = matching(masked, open_at)
        out.append(conclusion[open_at + 1:close - 1].strip())
    return out


def is_question(conclusion: str) -> bool:
    """Whether the statement asks for a value: it contains ``answer(sorry)`` (D-10)."""
    return any(t == "sorry" for t in answer_terms(conclusion))


def normalize_term(term: str) -> str:
    """A term compared syntactically: comments dropped, whitespace collapsed, spaces next to
    brackets removed, and redundant parentheses around the whole term removed."""
    t = " ".join(mask(term).split())
    t = re.sub(r"\s*([()\[\]{}])\s*", r"\1", t)
    while t.startswith("(") and matching(t, 0) == len(t):
        t = t[1:-1].strip()
    return t


_RELATIONS = (r"↔|<->", r"(?<![:=<>≠!])=(?![=>])|≤|≥|<=|>=")


def _strip_foralls(masked: str, text: str) -> tuple[str, str]:
    """Drop leading ``∀ binders,`` quantifier prefixes (top-level comma ends each)."""
    while masked.lstrip().startswith("∀"):
        off = len(masked) - len(masked.lstrip())
        comma = top_level(masked[off:], r",")
        if comma < 0:
            break
        masked, text = masked[off + comma + 1:], text[off + comma + 1:]
    return masked, text


def unhedged_answer(conclusion: str) -> str | None:
    """The answer term, when the statement's ``answer(…)`` is an unhedged copy of the target
    expression; None otherwise (D-4 step 9, D-10; Formal Conjectures issue #4923).

    Precisely: after dropping leading ``∀ …,`` prefixes, the conclusion splits at its first
    top-level relation — ``↔`` if one is at top level, else the first of ``=``, ``≤``,
    ``≥`` — into two sides; one side is exactly ``answer(T)`` with ``T`` not ``sorry``, and
    ``normalize_term(T) == normalize_term(other side)``. Such a statement is closed by
    ``rfl`` (or ``le_rfl``) without answering anything. A copy nested deeper, or equal only
    up to unfolding, notation or type ascription, is not detected.

    Raises:
        LemmataError: ``import-malformed-lean`` when brackets do not balance.
    """
    masked, text = _strip_foralls(mask(conclusion), conclusion)
    for rel in _RELATIONS:
        k = top_level(masked, rel)
        if k < 0:
            continue
        m = re.compile(rel).match(masked, k)
        assert m is not None
        left, right = text[:k].strip(), text[m.end():].strip()
        for side, other in ((left, right), (right, left)):
            s = normalize_term(side)
            mm = re.fullmatch(r"answer\s*\((.*)\)", s, re.DOTALL)
            if mm and matching(s, s.index("(")) == len(s):
                term = mm.group(1).strip()
                if term != "sorry" and normalize_term(term) == normalize_term(other):
                    return answer_terms(side)[0]
        return None
    return None
