"""``lemmata up``'s site server (network/up_site.py) lists no folder, names no library or
version, and sends ``Referrer-Policy: no-referrer`` (issue 39)."""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from network.up_site import static_server


@pytest.fixture()
def site(tmp_path: Path) -> Iterator[tuple[str, int]]:
    root = tmp_path / "site"
    (root / "targets" / "demo").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / "index.html").write_text("<p>home</p>", encoding="utf-8")
    (root / "targets" / "demo" / "index.html").write_text("<p>demo</p>", encoding="utf-8")
    (root / "targets" / "secret-name.html").write_text("x", encoding="utf-8")
    (root / "assets" / "site.css").write_text("p{}", encoding="utf-8")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    with static_server(root, "127.0.0.1", port, csp="default-src 'self'"):
        yield "127.0.0.1", port


def _get(site: tuple[str, int], path: str, method: str = "GET") -> tuple[int, dict[str, str],
                                                                          bytes]:
    conn = http.client.HTTPConnection(*site, timeout=10)
    try:
        conn.request(method, path)
        res = conn.getresponse()
        return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["/targets/", "/assets/", "/assets/?C=M;O=D"])
def test_a_folder_without_index_is_not_listed(site: tuple[str, int], path: str) -> None:
    status, headers, body = _get(site, path)
    assert status == 404, (path, status)
    assert b"secret-name" not in body and b"site.css" not in body
    assert b"Directory listing" not in body
    assert headers.get("referrer-policy") == "no-referrer"


def test_a_folder_with_an_index_answers_it(site: tuple[str, int]) -> None:
    status, _, body = _get(site, "/targets/demo/")
    assert status == 200 and body == b"<p>demo</p>"
    status, headers, _ = _get(site, "/targets/demo")  # the slash is added, not a listing
    assert status == 301 and headers["location"].endswith("/targets/demo/")


@pytest.mark.parametrize("path, method", [("/index.html", "GET"), ("/", "GET"),
                                          ("/nothing-here", "GET"), ("/assets/", "HEAD"),
                                          ("/assets/site.css", "HEAD")])
def test_every_answer_names_no_version_and_sends_no_referrer(site: tuple[str, int],
                                                             path: str, method: str) -> None:
    _, headers, _ = _get(site, path, method)
    assert headers["server"] == "lemmata-site", headers
    assert "python" not in headers["server"].lower()
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-content-type-options"] == "nosniff"
