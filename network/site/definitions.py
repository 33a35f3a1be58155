"""A target's definition modules as first-class content (issue 29, D-36 target and node
pages): each ``defs/<Stem>.lean`` read into its declarations with their docstrings, and the
definitions a Lean statement uses, found by name from the Lean tokens.

Both readings go through the gate's lexer (:func:`network.gate.screens.lean_lex.lex`), so a name
inside a comment, a docstring or a string is never taken for a use. A name bound in the
statement itself (``∀ f : ℕ → ℕ, …``, ``(r : ℕ)``) is not a use of a definition of that
name. This module reads text only; nothing here derives a fact of the record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from network.gate.screens.lean_lex import Token, lex
from network.ids import defs_module_name
from network.record.read.loader import Graph

DECLARATION_KEYWORDS = frozenset({"def", "abbrev", "theorem", "lemma", "structure",
                                  "inductive", "class", "opaque", "axiom", "instance"})
"""Commands that declare a name in a definition module (``instance`` only when named)."""
_BINDERS = frozenset({"∀", "∃", "∃!", "fun", "λ", "∑", "∏", "⋃", "⋂"})
_BRACKETS = frozenset({"(", "{", "⦃", "[", "⟨"})
_BINDER_ENDS = frozenset({":", ",", "=>", "↦", ">", "<", "≥", "≤", "∈", "∉", "⊆", "≠", "in"})


@dataclass(frozen=True)
class Definition:
    """One declaration of a definition module.

    Attributes:
        name: its name as written after the keyword (``Erdos4For``).
        full: the name with its enclosing namespaces (``Erdos4.Erdos4For``).
        keyword: the declaring command (``def``, ``abbrev``, …).
        doc: its docstring's text (between ``/--`` and ``-/``, stripped), or None.
        source: the declaration's Lean (modifiers to its last line, docstring left out).
        stem: the module's file stem (``Erdos4`` of ``defs/Erdos4.lean``).
        anchor: the fragment naming it on the target page (``def-Erdos4-Erdos4For``; Lean
            names are unique in one environment, so the full name is).
    """

    name: str
    full: str
    keyword: str
    doc: str | None
    source: str
    stem: str
    anchor: str

    def as_dict(self) -> dict[str, Any]:
        """The template's form: every attribute by name."""
        return {"name": self.name, "full": self.full, "keyword": self.keyword,
                "doc": self.doc, "source": self.source, "stem": self.stem,
                "anchor": self.anchor}


def _names(tokens: list[Token]) -> list[tuple[int, str]]:
    """``(index of the first token, dotted name)`` for each run of name tokens joined by
    glued dots (``Nat.Prime`` is one name), over code tokens in order."""
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind != "name":
            i += 1
            continue
        parts, j = [t.text], i
        while (j + 2 < len(tokens) and tokens[j + 1].text == "."
               and tokens[j + 2].kind == "name"
               and tokens[j + 1].start == tokens[j].start + len(tokens[j].text)
               and tokens[j + 2].start == tokens[j + 1].start + 1):
            parts.append(tokens[j + 2].text)
            j += 2
        out.append((i, ".".join(parts)))
        i = j + 1
    return out


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def module_definitions(text: str, stem: str) -> list[Definition]:
    """The declarations of one definition module, in source order.

    Args:
        text: the module's Lean source.
        stem: its file stem (``defs/<stem>.lean``).

    Returns:
        One :class:`Definition` per named declaration (an unnamed ``instance`` is left
        out); ``namespace X``/``end X`` qualify ``full``.
    """
    toks = [t for t in lex(text).tokens if t.kind != "space"]
    code = [t for t in toks if t.kind not in ("comment", "doc")]
    names = dict(_names(code))
    # each command starts at a keyword in the first column; a declaration's docstring
    # and modifiers start on the lines just above its keyword
    starts = sorted({_line_start(text, t.start) for t in toks
                     if t.kind in ("keyword", "doc") and t.start == _line_start(text, t.start)})
    docs: list[tuple[int, int, str]] = []  # (start, end, body) of each joined doc comment
    k = 0
    while k < len(toks):
        if toks[k].kind == "doc":
            a = toks[k].start
            while k + 1 < len(toks) and toks[k + 1].kind == "doc":
                k += 1
            z = toks[k].start + len(toks[k].text)
            docs.append((a, z, text[a:z].removeprefix("/--").removesuffix("-/").strip()))
        k += 1
    space: list[str] = []
    out: list[Definition] = []
    for i, t in enumerate(code):
        if t.kind != "keyword":
            continue
        if t.text in ("namespace", "section"):
            space.append(names.get(i + 1, "") if t.text == "namespace" else "")
        elif t.text == "end" and space:
            space.pop()
        elif t.text in DECLARATION_KEYWORDS and i + 1 in names:
            name = names[i + 1]
            line = _line_start(text, t.start)
            # modifiers (noncomputable, private, @[…]) on the keyword's line or just above
            begin = line
            doc = None
            before = [d for d in docs if d[1] <= begin and not text[d[1]:begin].strip()]
            if before:
                doc = before[-1][2]
            nxt = next((s for s in starts if s > t.start), len(text))
            source = text[begin:nxt].rstrip()
            if source.endswith("-/"):  # the next declaration's docstring, not ours
                source = text[begin:max((d[0] for d in docs if begin < d[0] < nxt),
                                        default=nxt)].rstrip()
            full = ".".join(p for p in [*space, name] if p)
            out.append(Definition(name, full, t.text, doc, source, stem,
                                  "def-" + full.replace(".", "-")))
    return out


def target_definitions(graph: Graph, tid: str) -> list[dict[str, Any]]:
    """Every definition module of a target, in stem order (issue 29; docs/record.md
    ``defs/<Stem>.lean``).

    Returns:
        ``[{stem, path, module (its Lean module name), source, definitions:
        [Definition.as_dict()]}]``; empty when the target has no definition module.
    """
    t = graph.targets[tid]
    out = []
    for stem in sorted(t.defs):
        path = t.defs[stem].path
        text = graph.text(path)
        out.append({"stem": stem, "path": path, "module": defs_module_name(tid, stem),
                    "source": text,
                    "definitions": [d.as_dict() for d in module_definitions(text, stem)]})
    return out


def _opens_binders(code: list[Token], i: int) -> bool:
    """Whether the bracket at ``code[i]`` opens a binder group: it follows a binder
    (``∀``, ``∃``, ``fun``), the name a declaration declares, or another group's close."""
    if i == 0:
        return False
    prev = code[i - 1].text
    if prev in _BINDERS or prev in ("fun", "λ", ")", "}", "]", "⦄"):
        return True
    return (code[i - 1].kind == "name" and i >= 2 and code[i - 2].kind == "keyword"
            and code[i - 2].text in DECLARATION_KEYWORDS)


def _bound(code: list[Token]) -> set[str]:
    """The names a statement binds: after a binder (``∀ x y,``, ``fun f =>``) and in a
    bracketed binder group (``(a b : T)``, ``{x : α}``)."""
    out: set[str] = set()
    for i, t in enumerate(code):
        if t.text in _BRACKETS and not _opens_binders(code, i):
            continue  # `(f n : ℝ)` after `=>` is an ascription, not a binder group
        if t.text in _BINDERS or t.text in _BRACKETS or (t.kind == "keyword"
                                                          and t.text in ("fun", "λ")):
            run: list[str] = []
            j = i + 1
            while j < len(code) and code[j].kind == "name" or (
                    j < len(code) and code[j].text == "_"):
                run.append(code[j].text)
                j += 1
            if run and j < len(code) and code[j].text in _BINDER_ENDS:
                if t.text in _BRACKETS and code[j].text != ":":
                    continue  # `(f n)`, `{x | …}`: an application or a set, not binders
                out.update(run)
    return out


def definitions_used(text: str, definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The definitions (``Definition.as_dict()`` forms) a Lean text uses, in the order
    of their first use, each once (issue 29: each statement links every definition it
    uses).

    A use is a code token naming the definition: its short name unqualified, or its full
    name (or a tail of it: ``Erdos4.Erdos4For``, ``Erdos4For``); a name the text binds
    itself, comments, docstrings, strings and the import lines are never uses.
    """
    if not definitions:
        return []
    code = [t for t in lex(text).tokens if t.code and t.kind != "space"]
    body: list[Token] = []
    skip = False
    for t in code:  # drop `import A.B.C` lines: a module name is no use of a definition
        if t.kind == "keyword" and t.text == "import":
            skip = True
            continue
        if skip and (t.kind == "name" or t.text == "."):
            continue
        skip = False
        body.append(t)
    bound = _bound(body)
    by_name: dict[str, dict[str, Any]] = {}
    for d in definitions:
        parts = d["full"].split(".")
        for k in range(len(parts)):
            by_name.setdefault(".".join(parts[k:]), d)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for _, name in _names(body):
        hit = by_name.get(name.removeprefix("_root_."))
        if hit is None or hit["anchor"] in seen or ("." not in name and name in bound):
            continue
        seen.add(hit["anchor"])
        out.append(hit)
    return out
