"""Informal text as markdown with its mathematics typeset (D-36; issue 15).

Every piece of prose the site shows a reader — a target's informal statement (an imported
docstring among them), a gloss's or explainer's sections, a postmortem's words, an approach
record's cause, a crux's note — is CommonMark, with TeX between ``$…$`` or ``\\(…\\)``
(inline) and ``$$…$$`` or ``\\[…\\]`` (display). The parser is markdown-it-py (the one
markdown library of the project) with a maths rule of this module, so a ``$`` inside a
code span stays a dollar. References become links: bare ``http(s)://`` addresses,
``erdosproblems.com/N`` and ``arXiv:NNNN.NNNNN``. Raw HTML is escaped, and a link that is
not ``http(s)`` or ``mailto`` is shown as its text (the site is not the repository).

The build first collects every formula (:func:`formulas`), typesets them all in one
KaTeX run (:func:`network.site.mathtex.typeset`), then renders (:func:`render`). A formula
KaTeX refuses is shown as its TeX source in a ``code.tex-error`` element saying so; a
formula the build did not typeset (no Node.js) is left as ``\\(…\\)`` for the browser.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markupsafe import Markup, escape

from network.site.mathtex import Typeset

REFERENCE_RE = re.compile(
    r"(?P<url>https?://[^\s<>()\[\]{}\"']*[^\s<>()\[\]{}\"'.,;:!?])"
    r"|(?P<erdos>(?<![\w/.])(?:www\.)?erdosproblems\.com/(?P<n>\d+)\b)"
    r"|(?P<arxiv>\barXiv:(?P<ax>\d{4}\.\d{4,5}(?:v\d+)?)\b)"
)
"""The references a text may name without markdown link syntax."""
SAFE_SCHEMES = ("http://", "https://", "mailto:")


def reference_url(m: re.Match[str]) -> str:
    """The address a :data:`REFERENCE_RE` match links to."""
    if m.group("url"):
        return m.group("url")
    if m.group("erdos"):
        return f"https://www.erdosproblems.com/{m.group('n')}"
    return f"https://arxiv.org/abs/{m.group('ax')}"


def _closing_dollar(src: str, start: int, end: int) -> int:
    """Index of the ``$`` closing an inline formula opened just before ``start``, or -1:
    the next ``$`` not escaped and not followed by a digit (so "$5 and $6" stays text).
    Unlike pandoc, a space before it is allowed: imported docstrings write ``$a < ⋯ $``."""
    i = start
    while True:
        i = src.find("$", i, end)
        if i < 0:
            return -1
        if src[i - 1] == "\\":
            i += 1
            continue
        if i + 1 < end and src[i + 1].isdigit():
            i += 1
            continue
        return i


def _math_rule(state: StateInline, silent: bool) -> bool:
    """The inline maths rule: ``$$…$$``, ``\\[…\\]`` (display), ``$…$``, ``\\(…\\)``."""
    src, pos, end = state.src, state.pos, state.posMax
    display: bool
    if src.startswith("$$", pos):
        close = src.find("$$", pos + 2, end)
        if close < 0 or close == pos + 2:
            return False
        tex, after, display = src[pos + 2:close], close + 2, True
    elif src.startswith("\\[", pos) or src.startswith("\\(", pos):
        closer = "\\]" if src[pos + 1] == "[" else "\\)"
        close = src.find(closer, pos + 2, end)
        if close < 0 or close == pos + 2:
            return False
        tex, after, display = src[pos + 2:close], close + 2, src[pos + 1] == "["
    elif src.startswith("$", pos):
        if pos + 1 >= end or src[pos + 1].isspace():
            return False
        close = _closing_dollar(src, pos + 1, end)
        if close < 0:
            return False
        tex, after, display = src[pos + 1:close], close + 1, False
    else:
        return False
    if not silent:
        tok = state.push("math_display" if display else "math_inline", "", 0)
        tok.content = html.unescape(tex.strip())  # `&#60;` in an imported docstring is `<`
        tok.markup = "$$" if display else "$"
    state.pos = after
    return True


def focusable_display(html: str) -> str:
    """KaTeX's display HTML with its scroll box (``span.katex-display``, which scrolls
    sideways where a formula is wider than a phone) given ``tabindex="0"``, so a keyboard
    can reach and scroll it (WCAG 2.1.1; axe-core ``scrollable-region-focusable``; issue
    15). Other HTML is returned unchanged."""
    return html.replace('<span class="katex-display">',
                        '<span class="katex-display" tabindex="0">', 1)


def _math_html(tex: str, display: bool, env: dict[str, Any]) -> str:
    math: Typeset | None = env.get("math")
    table = (math.html if display else math.inline) if math else {}
    errors = (math.errors if display else math.inline_errors) if math else {}
    html = table.get(tex)
    if html is not None:
        if display:
            html = focusable_display(html)
        return f'<span class="math{" display" if display else ""}">{html}</span>'
    delim = ("$$", "$$") if display else ("$", "$")
    if tex in errors:
        return (f'<code class="tex-error" title="KaTeX cannot typeset this: '
                f'{escape(errors[tex])}"><span class="visually-hidden">TeX KaTeX could not '
                f'typeset: </span>{escape(delim[0] + tex + delim[1])}</code>')
    if math is not None and math.server_side:
        return f'<code class="tex-error">{escape(delim[0] + tex + delim[1])}</code>'
    client = ("\\[", "\\]") if display else ("\\(", "\\)")
    return f'<span class="math tex">{escape(client[0] + tex + client[1])}</span>'


def _link_references(state: Any) -> None:
    """Core rule: references in plain text become links; unsafe links become text."""
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        out: list[Token] = []
        depth = 0
        dropped: list[bool] = []
        for tok in block.children:
            if tok.type == "link_open":
                href = str(tok.attrGet("href") or "")
                unsafe = not href.startswith(SAFE_SCHEMES)
                dropped.append(unsafe)
                depth += 1
                if unsafe:
                    continue
            elif tok.type == "link_close":
                depth -= 1
                if dropped and dropped.pop():
                    continue
            elif tok.type == "text" and depth == 0 and REFERENCE_RE.search(tok.content):
                out.extend(_split_references(tok.content))
                continue
            out.append(tok)
        block.children = out


def _split_references(text: str) -> list[Token]:
    toks: list[Token] = []
    last = 0
    for m in REFERENCE_RE.finditer(text):
        if m.start() > last:
            toks.append(Token("text", "", 0, content=text[last:m.start()]))
        toks.append(Token("link_open", "a", 1, attrs={"href": reference_url(m)}))
        toks.append(Token("text", "", 0, content=m.group(0)))
        toks.append(Token("link_close", "a", -1))
        last = m.end()
    if last < len(text):
        toks.append(Token("text", "", 0, content=text[last:]))
    return toks


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The one markdown parser of informal text: CommonMark, tables, raw HTML escaped,
    the maths rule and the reference links."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.inline.ruler.before("escape", "math", _math_rule)
    md.core.ruler.push("references", _link_references)

    def inline_rule(self: Any, tokens: Sequence[Token], idx: int, options: Any,
                    env: dict[str, Any]) -> str:
        return _math_html(tokens[idx].content, False, env)

    def display_rule(self: Any, tokens: Sequence[Token], idx: int, options: Any,
                     env: dict[str, Any]) -> str:
        return _math_html(tokens[idx].content, True, env)

    md.add_render_rule("math_inline", inline_rule)
    md.add_render_rule("math_display", display_rule)
    return md


@lru_cache(maxsize=1)
def title_parser() -> MarkdownIt:
    """The parser of titles and labels: only the maths rule (no markdown, no reference
    links), so a title typesets its formulas and stays valid inside a link."""
    md = MarkdownIt("zero", {"html": False})
    md.inline.ruler.before("text", "math", _math_rule)
    md.add_render_rule("math_inline", lambda self, tokens, idx, options, env:
                       _math_html(tokens[idx].content, False, env))
    md.add_render_rule("math_display", lambda self, tokens, idx, options, env:
                       _math_html(tokens[idx].content, True, env))
    return md


def render_title(text: str | None, math: Typeset | None) -> Markup:
    """A title or label (``Erdős Problem 424: Sequence generated by $a_i a_j - 1$``) as
    phrasing HTML: its ``$…$`` formulas from ``math`` (inline; a formula absent from
    ``math`` marked as :func:`render` marks it), everything else escaped text (issue 15:
    imported titles carry TeX). None or empty gives empty markup."""
    if not text:
        return Markup("")
    return Markup(title_parser().renderInline(text, {"math": math}))


def formulas(texts: Iterable[str | None]) -> tuple[list[str], list[str]]:
    """Every formula of ``texts``, as ``(display, inline)`` TeX sources (distinct, in order
    met), for one KaTeX run."""
    md = parser()
    display: dict[str, None] = {}
    inline: dict[str, None] = {}
    for text in texts:
        if not text or ("$" not in text and "\\(" not in text and "\\[" not in text):
            continue
        for block in md.parse(text):
            for tok in block.children or []:
                if tok.type == "math_display":
                    display[tok.content] = None
                elif tok.type == "math_inline":
                    inline[tok.content] = None
    return list(display), list(inline)


def render(text: str | None, math: Typeset | None, *, inline: bool = False) -> Markup:
    """``text`` as HTML: paragraphs (or, with ``inline``, phrasing content only), its
    formulas from ``math`` (or marked as :mod:`this module <network.site.informal>` says),
    its references linked. None or empty gives empty markup."""
    if not text:
        return Markup("")
    md = parser()
    env: dict[str, Any] = {"math": math}
    if inline:
        return Markup(md.renderInline(text, env))
    return Markup(md.render(text, env))


_CODE_SPAN = re.compile(r"`+([^`]+?)`+")


def render_code_spans(text: str | None) -> Markup:
    """A plain sentence (the footer's ``toolchain_note``) as phrasing HTML: each
    span in backticks a ``<code>`` element, everything else escaped text, so no backtick is
    shown raw (issue 35 item 10). An unpaired backtick is dropped. None or empty gives
    empty markup."""
    if not text:
        return Markup("")
    out = Markup("")
    at = 0
    for m in _CODE_SPAN.finditer(text):
        out += escape(text[at:m.start()]) + Markup("<code>{}</code>").format(m.group(1))
        at = m.end()
    return out + escape(text[at:].replace("`", ""))
