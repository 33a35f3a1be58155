"""The site server's ETag, 304 and gzip (network/static_http.py, network/up.py; issue 17)."""

from __future__ import annotations

import gzip
import http.client
import time
from pathlib import Path

from network import static_http
from network.up import static_server
from tests.api_flow_support import free_port


def _get(port: int, path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", path, headers=headers)
    r = c.getresponse()
    body = r.read()
    out = (r.status, {k.lower(): v for k, v in r.getheaders()}, body)
    c.close()
    return out


def test_site_files_get_etag_304_and_gzip(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "t").mkdir(parents=True)
    page = b"<html>" + b"frontier row " * 400 + b"</html>"
    (site / "index.html").write_bytes(page)
    (site / "t" / "frontier.json").write_bytes(b'{"nodes": [' + b'{"a": 1},' * 300 + b"0]}")
    (site / "tiny.json").write_bytes(b"{}")
    (site / "x.png").write_bytes(b"\x89PNG" + b"\0" * 5000)
    port = free_port()
    with static_server(site, "127.0.0.1", port, csp="default-src 'self'"):
        st, h, body = _get(port, "/", {"Accept-Encoding": "identity"})
        assert st == 200 and body == page and "content-encoding" not in h
        assert h["etag"] == static_http.body_etag(page) and h["vary"] == "Accept-Encoding"
        assert h["content-security-policy"] == "default-src 'self'"
        st, hz, raw = _get(port, "/index.html", {"Accept-Encoding": "gzip"})
        assert hz["content-encoding"] == "gzip" and gzip.decompress(raw) == page
        assert hz["etag"] == h["etag"][:-1] + '-gz"' and len(raw) < len(page)
        for inm, enc in ((h["etag"], "identity"), (hz["etag"], "gzip"), ("*", "gzip"),
                         (f'"x", W/{h["etag"]}', "identity")):
            st, _h, body = _get(port, "/", {"Accept-Encoding": enc, "If-None-Match": inm})
            assert st == 304 and body == b"", inm
        st, _, _ = _get(port, "/", {"If-None-Match": '"other"'})
        assert st == 200
        # a changed file has a new ETag
        time.sleep(0.01)
        (site / "index.html").write_bytes(page + b" ")
        st, h2, _ = _get(port, "/", {"Accept-Encoding": "identity"})
        assert h2["etag"] != h["etag"]
        for path in ("/tiny.json", "/x.png"):
            st, h, body = _get(port, path, {"Accept-Encoding": "gzip"})
            assert st == 200 and "content-encoding" not in h, path
        st, _, _ = _get(port, "/t/frontier.json", {"Accept-Encoding": "gzip"})
        assert st == 200
        st, _, _ = _get(port, "/missing.html", {})
        assert st == 404
        st, h, _ = _get(port, "/t", {})
        assert st == 301  # SimpleHTTPRequestHandler's directory redirect, unchanged
