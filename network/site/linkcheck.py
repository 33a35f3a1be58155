"""An internal link checker over a built site (D-36 "no broken internal links").

Every ``href`` and ``src`` of every HTML file that is not an absolute URL (scheme or
``//``), ``mailto:`` or a bare query must name a file of the output; a ``#fragment`` must
name an ``id`` on the page it points to. CSS ``url(...)`` references are checked too.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

_CSS_URL_RE = re.compile(r"url\(([^)]+)\)")


@dataclass(frozen=True)
class BrokenLink:
    """One link that resolves to nothing: the page (output-relative), the link as written
    and why it is broken."""

    page: str
    link: str
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: {self.link} ({self.reason})"


_ATTR_RE = re.compile(r"""\s(href|src|id)=(?:"([^"]*)"|'([^']*)')""")


def _scan(text: str) -> tuple[list[str], set[str]]:
    """The links (href/src) and ids of one page's HTML, entity-decoded."""
    links: list[str] = []
    found: set[str] = set()
    for name, dq, sq in _ATTR_RE.findall(text):
        value = html.unescape(dq or sq)
        if name == "id":
            found.add(value)
        else:
            links.append(value)
    return links, found


def _external(link: str) -> bool:
    parts = urlsplit(link)
    return bool(parts.scheme) or link.startswith("//")


def check_links(out: Path) -> list[BrokenLink]:
    """Every broken internal link of the site under ``out``, in page order.

    Returns:
        A list of :class:`BrokenLink`; empty when every link resolves.
    """
    out = Path(out)
    pages = sorted(p for p in out.rglob("*.html"))
    ids: dict[Path, set[str]] = {}
    links: dict[Path, list[str]] = {}
    for page in pages:
        links[page], ids[page.resolve()] = _scan(page.read_text(encoding="utf-8"))
    broken: list[BrokenLink] = []
    for page in pages:
        rel = page.relative_to(out).as_posix()
        for link in links[page]:
            if _external(link) or link.startswith("?"):
                continue
            parts = urlsplit(link)
            target = page.resolve() if not parts.path else (
                page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(BrokenLink(rel, link, "no such file"))
                continue
            if parts.fragment and target.suffix == ".html":
                if target not in ids:
                    ids[target] = _scan(target.read_text(encoding="utf-8"))[1]
                if unquote(parts.fragment) not in ids[target]:
                    broken.append(BrokenLink(rel, link, "no such id on the page"))
    for css in sorted(out.rglob("*.css")):
        rel = css.relative_to(out).as_posix()
        for raw in _CSS_URL_RE.findall(css.read_text(encoding="utf-8")):
            link = raw.strip("'\" ")
            if _external(link) or link.startswith("data:") or link.startswith("#"):
                continue
            if not (css.parent / urlsplit(link).path).resolve().is_file():
                broken.append(BrokenLink(rel, link, "no such file"))
    return broken
