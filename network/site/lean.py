"""Lean source rendered with syntax highlighting (Pygments' Lean 4 lexer), D-36 node page."""

from __future__ import annotations

from functools import lru_cache

from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name


@lru_cache(maxsize=1)
def _lexer() -> Lexer:
    return get_lexer_by_name("lean4", stripnl=False, ensurenl=True)


@lru_cache(maxsize=1)
def _formatter() -> HtmlFormatter:
    return HtmlFormatter(cssclass="highlight", linenos=False, wrapcode=True)


def highlight_lean(source: str) -> Markup:
    """Lean 4 source as highlighted HTML (``<div class="highlight"><pre tabindex="0"><code>…``).

    Pygments escapes the text; the result is marked safe for jinja2's autoescape. The
    ``pre`` scrolls sideways on a narrow screen, so it takes keyboard focus
    (``tabindex="0"``): a reader without a mouse can scroll it with the arrow keys (WCAG
    2.1.1; axe-core's ``scrollable-region-focusable``, issue 15).
    """
    html = highlight(source, _lexer(), _formatter())
    return Markup(html.replace('<div class="highlight"><pre>',
                               '<div class="highlight"><pre tabindex="0">', 1))


def pygments_css() -> str:
    """The stylesheet for :func:`highlight_lean`'s classes (a light, high-contrast style)."""
    return str(HtmlFormatter(style="default", cssclass="highlight").get_style_defs(".highlight"))


DECLARATION_COMMANDS = frozenset({"theorem", "lemma", "def", "abbrev", "example", "instance",
                                  "structure", "inductive", "class", "opaque", "axiom"})
"""The commands a Lean file's first declaration opens with (issue 29: the theorem first)."""
_MODIFIERS = frozenset({"noncomputable", "private", "protected", "partial", "unsafe",
                        "nonrec", "scoped"})


def split_preamble(source: str) -> tuple[str, str]:
    """A Lean file cut where its first declaration begins (issue 29, D-36 node page: the
    theorem first, the imports and the reference comment folded away).

    The declaration begins at the line of its docstring, attributes (``@[…]``) and
    modifiers (``noncomputable``, ``private``, …) where it has them, else at its keyword;
    the file is read with the gate's lexer, so a keyword inside a comment or a string
    never counts.

    Returns:
        ``(preamble, rest)``, which concatenate to ``source``: the imports, module
        comments, ``open`` and ``namespace`` lines before the declaration, and the
        declaration onward. ``("", source)`` when no declaration is found.
    """
    from network.gate.screens.lean_lex import lex

    toks = [t for t in lex(source).tokens if t.kind != "space"]
    first = next((i for i, t in enumerate(toks)
                  if t.kind == "keyword" and t.text in DECLARATION_COMMANDS), None)
    if first is None:
        return "", source
    k = first
    while k > 0:
        prev = toks[k - 1]
        if prev.kind == "doc" or (prev.kind == "keyword" and prev.text in _MODIFIERS):
            k -= 1
        elif prev.text == "]":
            opener = next((j for j in range(k - 2, -1, -1) if toks[j].text == "@["), None)
            if opener is None:
                break
            k = opener
        else:
            break
    cut = source.rfind("\n", 0, toks[k].start) + 1
    return source[:cut], source[cut:]
