"""The site's person controls without a browser (issue 13 "Site controls", D-36 v3.33):
every built page carries the strict Content-Security-Policy and no inline script or
handler; a site built with its service names it, loads session.js and gives the script
what it reads (page kind, target, node, words versions, literature proposal); a site
built without one has no controls at all; the service URL cannot smuggle a CSP source;
``lemmata up``'s site server sends the policy as a header with ``frame-ancestors``; the
docs page's screenshots exist, are referenced and are small."""

from __future__ import annotations

import re
import socket
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pydantic import ValidationError

from network.site.build import ASSETS, PROSE, SCREENS, build_site
from network.site.config import SiteConfig
from network.site.csp import header_policy, meta_policy, service_origin
from tests.site_support import require_dot
from tests.sitegraph import T, build_rich_graph

SERVICE = "http://127.0.0.1:8123"


class _Page(HTMLParser):
    """Every tag of one page with its attributes, and the text inside each <script>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.script_text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.script_text.append(data)


def _parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def _main(page: _Page) -> dict[str, str]:
    return next(a for t, a in page.tags if t == "main")


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The rich graph (plus a literature proposal awaiting on root--h1) built with the
    service (as ``SERVICE/``, trailing slash) and without one."""
    require_dot()
    root = tmp_path_factory.mktemp("controls")
    b, _ = build_rich_graph(root / "graph", commit=False)
    b.literature(T, "root--h1", "20260109T000000Z", "dave", "known-true", signed=False)
    with_service, without = root / "with", root / "without"
    report = build_site(SiteConfig(graph=root / "graph", out=with_service, strict=True,
                                   service_url=SERVICE + "/"))
    assert report.warnings == []
    build_site(SiteConfig(graph=root / "graph", out=without, strict=True))
    return with_service, without


def _pages(out: Path) -> list[Path]:
    pages = sorted(out.rglob("*.html"))
    assert len(pages) > 20
    return pages


def test_every_page_carries_the_policy_and_no_inline_script(sites: tuple[Path, Path]) -> None:
    for out, service in zip(sites, (SERVICE, None), strict=True):
        policy = meta_policy(service)
        for path in _pages(out):
            page = _parse(path)
            metas = [a for t, a in page.tags if t == "meta"
                     and a.get("http-equiv", "").lower() == "content-security-policy"]
            assert [m["content"] for m in metas] == [policy], path
            # the policy comes before anything that loads: right after the charset
            assert page.tags[2:4] == [("meta", {"charset": "utf-8"}), ("meta", metas[0])], path
            assert page.script_text == [], path
            for tag, attrs in page.tags:
                handlers = [k for k in attrs if k.lower().startswith("on")]
                assert handlers == [], (path, tag, handlers)
                for k in ("href", "src", "action", "formaction"):
                    assert not attrs.get(k, "").strip().lower().startswith("javascript:"), path
                if tag == "script":
                    assert attrs.get("src"), (path, attrs)
                    assert "://" not in attrs["src"], (path, attrs)  # only the site's own
            assert "<style" not in path.read_text(encoding="utf-8"), path


def test_the_policy_is_strict() -> None:
    policy = meta_policy(SERVICE)
    directives = dict(d.split(" ", 1) for d in policy.split("; "))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == "'self'"
    assert directives["connect-src"] == f"'self' {SERVICE}"
    assert directives["form-action"] == "'none'"
    assert directives["base-uri"] == "'none'" and directives["object-src"] == "'none'"
    assert "unsafe" not in directives["script-src"] + directives["style-src"]
    assert "frame-ancestors" not in policy  # ignored in a meta element
    assert header_policy(SERVICE) == policy + "; frame-ancestors 'none'"
    assert meta_policy(None).count("connect-src 'self';") == 1


def test_the_site_names_its_service_and_loads_the_script(sites: tuple[Path, Path]) -> None:
    out, _ = sites
    assert (out / "assets" / "session.js").read_bytes() == (ASSETS / "session.js").read_bytes()
    for path in _pages(out):
        page = _parse(path)
        rel = "../" * len(path.relative_to(out).parent.parts)
        scripts = [a["src"] for t, a in page.tags if t == "script"]
        assert f"{rel}assets/session.js" in scripts, path
        bar = [a for t, a in page.tags if t == "div" and a.get("id") == "session"]
        assert [b["data-service"] for b in bar] == [SERVICE], path
        assert bar[0]["data-me"] == f"{rel}me.html", path
        live = [a for t, a in page.tags if a.get("id") == "act-answers"]
        assert live == [{"id": "act-answers", "class": "act-answers", "role": "status",
                         "aria-live": "polite"}], path
    me = _parse(out / "me.html")
    assert _main(me)["data-page"] == "me"
    assert _main(me)["data-node-href"] == "targets/{target}/nodes/{node}.html"


def test_a_site_without_a_service_has_no_controls(sites: tuple[Path, Path]) -> None:
    _, out = sites
    assert not (out / "me.html").exists()
    for path in _pages(out):
        text = path.read_text(encoding="utf-8")
        assert "session.js" not in text and "data-service" not in text, path
        assert 'id="session"' not in text and "act-answers" not in text, path


def test_pages_give_the_script_what_it_reads(sites: tuple[Path, Path]) -> None:
    out, _ = sites
    target = _main(_parse(out / "targets" / T / "index.html"))
    assert (target["data-page"], target["data-target"]) == ("target", T)
    root = _main(_parse(out / "targets" / T / "nodes" / "root.html"))
    assert root["data-root"] == "yes"
    page = _parse(out / "targets" / T / "nodes" / "root--h1.html")
    node = _main(page)
    assert (node["data-page"], node["data-target"], node["data-node"],
            node["data-root"], node["data-shelving"]) == ("node", T, "root--h1", "no", "")
    assert re.fullmatch(rf"targets/{T}/nodes/root--h1/literature/20260109T000000Z-dave\.yaml",
                        node["data-literature"]), node
    assert node["data-literature-status"] == "known-true"
    assert "partial-results" in node["data-literature-statuses"].split()
    words = [a for t, a in page.tags if "data-words" in a]
    assert {w["data-words"].split("/")[4] for w in words} == {"gloss", "explainer"}
    assert all(w["data-sections"] == "1" for w in words)
    shelved = _main(_parse(out / "targets" / T / "nodes" / "root--h3.html"))
    assert shelved["data-shelving"].startswith(f"targets/{T}/nodes/root--h3/")
    # a node whose proposal a signed reading covers has none waiting
    assert "data-literature" not in _main(_parse(out / "targets" / T / "nodes" / "root--h2.html"))


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "http://a b", "http://host;script-src *", "http://host/path",
    "http://user@host", "http://host?q=1", "http://host#x", "ftp://host", "http://'self'",
    "http://host\n", "https://host:8000 https://evil.example", "http://[::1] *", "http://::1:80",
])
def test_a_service_url_that_is_not_an_origin_is_refused(url: str, tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        SiteConfig(graph=tmp_path, out=tmp_path, service_url=url)
    with pytest.raises(ValueError):
        service_origin(url)


def test_service_origin_keeps_port_and_drops_the_slash() -> None:
    assert service_origin("https://api.example.org/") == "https://api.example.org"
    assert service_origin("http://127.0.0.1:8000") == "http://127.0.0.1:8000"
    assert service_origin("http://[::1]:8000/") == "http://[::1]:8000"


def test_up_site_server_sends_the_policy_header(sites: tuple[Path, Path]) -> None:
    from network import up

    out, _ = sites
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    url = f"http://127.0.0.1:{port}/index.html"
    with (up.static_server(out, "127.0.0.1", port, csp=header_policy(SERVICE)),
          urllib.request.urlopen(url) as res):
        assert res.headers["Content-Security-Policy"] == header_policy(SERVICE)
        assert res.headers["X-Content-Type-Options"] == "nosniff"
    with up.static_server(out, "127.0.0.1", port), urllib.request.urlopen(url) as res:
        assert res.headers["Content-Security-Policy"] is None


def test_session_js_builds_nothing_from_html_text() -> None:
    """What the service answers is only ever text in the page (an attacker's answer cannot
    become markup or code), and every act carries the cookie and a fresh token."""
    js = (ASSETS / "session.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                 "new Function", "setTimeout(\"", "srcdoc"):
        assert sink not in js, sink
    assert js.count('credentials: "include"') >= 2
    assert '"X-CSRF-Token": String(s.csrf_token' in js
    assert 'getJSON("/session").then(function (s) {' in js  # the token asked before each act


def test_docs_page_screenshots(sites: tuple[Path, Path]) -> None:
    out, _ = sites
    prose = (PROSE / "people.md").read_text(encoding="utf-8")
    used = set(re.findall(r"\]\(\.\./assets/screens/([^)]+)\)", prose))
    shots = {p.name for p in SCREENS.glob("*.png")}
    assert used and used == shots
    for name in shots:
        data = (SCREENS / name).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) < 200_000, name
        assert (out / "assets" / "screens" / name).read_bytes() == data
    page = (out / "docs" / "people.html").read_text(encoding="utf-8")
    for flow in ("Sign in", "Become steward", "Approve this proof", "Approve sections",
                 "Open a motion", "Vote yes", "confirm", "shelve"):
        assert flow in page, flow
    assert 'href="people.html"' in (out / "docs" / "index.html").read_text(encoding="utf-8")


def test_sign_in_is_what_this_network_has(tmp_path: Path) -> None:
    """Issue 35, item 8: on `make run` (no OAuth app) every page offered "Sign in with
    GitHub", which ended on a raw JSON 404 (signin-not-configured). Without an app the
    pages say how a steward signs in here; with one, the link is in the HTML itself."""
    require_dot()
    _b, _ = build_rich_graph(tmp_path / "graph", commit=False)
    operator, github = tmp_path / "operator", tmp_path / "github"
    build_site(SiteConfig(graph=tmp_path / "graph", out=operator, service_url=SERVICE))
    build_site(SiteConfig(graph=tmp_path / "graph", out=github, service_url=SERVICE,
                          sign_in="github"))
    for page in ("index.html", f"targets/{T}/index.html"):
        off = (operator / page).read_text("utf-8")
        assert "Sign in with GitHub" not in off and "/auth/github/start" not in off
        assert "lemmata session link" in off and 'data-sign-in="operator"' in off
        on = (github / page).read_text("utf-8")
        assert f'<a class="sign-in" href="{SERVICE}/auth/github/start">Sign in with GitHub</a>' \
            in on and 'data-sign-in="github"' in on
    js = (operator / "assets" / "session.js").read_text("utf-8")
    assert 'bar.dataset.signIn !== "github"' in js  # the script draws no GitHub button either
