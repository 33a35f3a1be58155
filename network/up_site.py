"""The static site server of ``lemmata up`` (issue 15, issue 17): the built site served
read-only over loopback with ETag, 304 and gzip (:mod:`network.static_http`), the site's
Content-Security-Policy as a header (issue 13), and ``GET /live/claims.json``, the live
claims the frontier and node pages overlay (D-25, ruling 14). :mod:`network.up` runs it
and re-exports every public name here.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from network.errors import LemmataError, define

define("listen-failed", None, 500, "The network could not listen on an address it needs.",
       "Another process probably holds the port: stop it, or pass --port / --site-port.")


# --- the static site server -------------------------------------------------------------


#: Where the site server answers the live claims (the site's frontier and node pages read it).
LIVE_CLAIMS_PATH = "/live/claims.json"


#: What the site server calls itself in ``Server`` (issue 39: no library or version named).
_SERVER_NAME = "lemmata-site"


class _QuietHandler(SimpleHTTPRequestHandler):
    live: Callable[[], bytes] | None = None
    csp: str | None = None

    def log_message(self, format: str, *args: Any) -> None:
        return

    def version_string(self) -> str:
        """``Server: lemmata-site``, never ``SimpleHTTP/0.6 Python/3.x`` (issue 39)."""
        return _SERVER_NAME

    def end_headers(self) -> None:
        if self.csp:  # the site's policy as a header: frame-ancestors counts only here
            self.send_header("Content-Security-Policy", self.csp)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")  # issue 39, as the service's
        super().end_headers()

    def list_directory(self, path: Any) -> None:
        """A folder without an ``index.html`` is not listed: ``404`` (issue 39)."""
        self.send_error(404, "Not found")

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] == LIVE_CLAIMS_PATH and self.live is not None:
            try:
                body = self.live()
            except Exception:  # the service's state is unreadable: the page keeps its dashes
                logging.getLogger(__name__).exception("site: live claims unavailable")
                self.send_error(503)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
            return
        if self._send_file():  # ETag, 304 and gzip (network/static_http.py, issue 17)
            return
        super().do_GET()

    def _send_file(self) -> bool:
        from network import static_http

        fs = Path(self.translate_path(self.path))
        if fs.is_dir() and self.path.split("?", 1)[0].endswith("/"):
            fs = fs / "index.html"
        if not fs.is_file():
            return False  # directories, redirects and 404s: SimpleHTTPRequestHandler's
        try:
            out = static_http.answer(fs, self.headers.get("Accept-Encoding") or "",
                                     self.headers.get("If-None-Match"))
        except OSError:
            return False
        self.send_response(out.status)
        for k, v in out.headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(out.body)
        return True


def live_claims_json(svc: Any) -> bytes:
    """The live claims the site's frontier and node pages overlay (D-25, ruling 14; issue
    15 "Who is working on what"): ``{"as_of": ISO 8601, "nodes": {"<target>/<node>":
    {"holders": n, "since": ISO, "claims": [{"pseudonym", "claimed_at", "expires_at"}]}}}``,
    each node's holders oldest first, from the service's registry in its public view (the
    one ``GET /frontier.json`` overlays: no claim id); service state, never written into the
    site or the record.
    """
    from network.api.frontier import claims
    from network.api.service import iso

    now = svc.now()
    nodes = {f"{t}/{n}": {"holders": len(held), "since": min(h["claimed_at"] for h in held),
                          "claims": [{k: h[k] for k in ("pseudonym", "claimed_at", "expires_at")}
                                     for h in held]}
             for (t, n), held in sorted(claims.registry(svc, now).items())}
    return json.dumps({"as_of": iso(now), "nodes": nodes}, sort_keys=True).encode()


@contextmanager
def static_server(root: Path, host: str, port: int,
                  live: Callable[[], bytes] | None = None, *,
                  csp: str | None = None) -> Iterator[ThreadingHTTPServer]:
    """Serve ``root`` read-only over HTTP on ``host:port`` in a thread until the block ends;
    with ``live``, ``GET /live/claims.json`` answers its bytes (:func:`live_claims_json`);
    with ``csp``, every answer carries it as its ``Content-Security-Policy`` header
    (:func:`network.site.csp.header_policy`, issue 13).

    Raises:
        LemmataError: ``listen-failed`` when ``host:port`` cannot be bound.
    """
    class _SiteHandler(_QuietHandler):
        pass

    _SiteHandler.live = staticmethod(live) if live is not None else None
    _SiteHandler.csp = csp
    handler = partial(_SiteHandler, directory=str(root))
    try:
        server = ThreadingHTTPServer((host, port), handler)
    except OSError as exc:
        raise LemmataError("listen-failed", f"the site server cannot listen on {host}:{port}: "
                           f"{exc.strerror or exc}") from exc
    thread = threading.Thread(target=server.serve_forever, name="site", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
