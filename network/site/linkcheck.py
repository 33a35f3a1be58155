"""An internal link checker over a built site (D-36 "no broken internal links").

Every ``href`` and ``src`` of every HTML file that is not an absolute URL (scheme or
``//``), ``mailto:`` or a bare query must name a file of the output; a ``#fragment`` must
name an ``id`` on the page it points to. CSS ``url(...)`` references are checked too.
"""

from __future__ import annotations

import html
import posixpath
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

    Links are resolved as strings against the set of files written (no file-system call
    per link), so checking 10,000 pages takes seconds.

    Returns:
        A list of :class:`BrokenLink`; empty when every link resolves.
    """
    out = Path(out)
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    pages = sorted(f for f in files if f.endswith(".html"))
    ids: dict[str, set[str]] = {}
    broken: list[BrokenLink] = []
    pending: list[tuple[str, str, str, str]] = []
    for rel in pages:
        links, ids[rel] = _scan((out / rel).read_text(encoding="utf-8"))
        here = posixpath.dirname(rel)
        seen: set[str] = set()
        for link in links:
            if link in seen or _external(link) or link.startswith("?"):
                continue
            seen.add(link)
            parts = urlsplit(link)
            if parts.path:
                target = posixpath.normpath(posixpath.join(here, unquote(parts.path)))
                if target not in files and posixpath.join(target, "index.html") in files:
                    target = posixpath.join(target, "index.html")
            else:
                target = rel
            if target not in files:
                broken.append(BrokenLink(rel, link, "no such file"))
            elif parts.fragment and target.endswith(".html"):
                pending.append((rel, link, target, unquote(parts.fragment)))
    for rel, link, target, fragment in pending:
        if target not in ids:
            ids[target] = _scan((out / target).read_text(encoding="utf-8"))[1]
        if fragment not in ids[target]:
            broken.append(BrokenLink(rel, link, "no such id on the page"))
    for css in sorted(f for f in files if f.endswith(".css")):
        for raw in _CSS_URL_RE.findall((out / css).read_text(encoding="utf-8")):
            link = raw.strip("'\" ")
            if _external(link) or link.startswith(("data:", "#")):
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(css),
                                                       urlsplit(link).path))
            if target not in files:
                broken.append(BrokenLink(css, link, "no such file"))
    return broken
