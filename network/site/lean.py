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
