"""A local stand-in for GitHub's OAuth web flow and ``GET /user`` (issue 13).

A real HTTP server (threaded, on 127.0.0.1, an ephemeral port) playing the documented
protocol of an OAuth app ("Authorizing OAuth apps", the web application flow):

1. ``GET /login/oauth/authorize?client_id&redirect_uri&state[&scope&login&allow_signup
   &code_challenge&code_challenge_method]``: the person signed in to this "GitHub"
   (:attr:`GitHubStandin.person`) authorizes, and the browser is redirected to
   ``redirect_uri?code=<code>&state=<state>``; with :attr:`GitHubStandin.deny` set, to
   ``redirect_uri?error=access_denied&error_description=...&state=<state>``. An unknown
   ``client_id`` or a ``redirect_uri`` off the app's callback is an error page (404/400),
   never a redirect.
2. ``POST /login/oauth/access_token`` (form: ``client_id``, ``client_secret``, ``code``,
   ``redirect_uri``, ``code_verifier``): a code is single use and ten minutes long; a bad
   one answers HTTP 200 with ``{"error": "bad_verification_code", ...}`` as GitHub does.
   The answer is JSON when ``Accept: application/json``, else form-encoded.
3. ``GET /user`` with ``Authorization: Bearer <token>`` (or ``token <token>``):
   ``{"login", "id", "type"}``, or 401 ``{"message": "Bad credentials"}``.

Every request is kept in :attr:`GitHubStandin.requests` for the tests to read.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

CODE_TTL_S = 600


@dataclass
class _Code:
    login: str
    client_id: str
    redirect_uri: str
    challenge: str | None
    method: str | None
    at: float
    used: bool = False


@dataclass
class GitHubStandin:
    """The stand-in's state; :meth:`start` serves it and returns the base URL.

    Attributes:
        client_id, client_secret: the one OAuth app registered here.
        callback: the app's registered callback URL (``redirect_uri`` must start with it).
        person: the GitHub login signed in to this "GitHub" in the browser.
        deny: the person declines the authorization.
        requests: ``(method, path, query or form)`` of every request served.
    """

    client_id: str = "Iv1.standin"
    client_secret: str = "standin-secret"
    callback: str = ""
    person: str = "alice"
    deny: bool = False
    requests: list[tuple[str, str, dict[str, str], dict[str, str]]] = field(
        default_factory=list)
    codes: dict[str, _Code] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base(self) -> str:
        """``http://127.0.0.1:<port>``."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def oauth_url(self) -> str:
        """What ``settings.github_oauth_url`` names: ``<base>/login/oauth``."""
        return f"{self.base}/login/oauth"

    def start(self) -> str:
        """Serve on an ephemeral port of 127.0.0.1 in a daemon thread; the base URL."""
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: Any) -> None:
                return

            def _send(self, status: int, body: bytes, ctype: str,
                      headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def _json(self, status: int, obj: Any) -> None:
                self._send(status, json.dumps(obj).encode(), "application/json; charset=utf-8")

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
                with standin._lock:
                    standin.requests.append(("GET", parts.path, query, dict(self.headers)))
                if parts.path == "/login/oauth/authorize":
                    self._authorize(query)
                elif parts.path == "/user":
                    self._user()
                else:
                    self._json(404, {"message": "Not Found"})

            def do_POST(self) -> None:
                parts = urlsplit(self.path)
                n = int(self.headers.get("Content-Length") or 0)
                form = {k: v[-1] for k, v in parse_qs(self.rfile.read(n).decode()).items()}
                with standin._lock:
                    standin.requests.append(("POST", parts.path, form, dict(self.headers)))
                if parts.path == "/login/oauth/access_token":
                    self._access_token(form)
                else:
                    self._json(404, {"message": "Not Found"})

            def _authorize(self, q: dict[str, str]) -> None:
                if q.get("client_id") != standin.client_id:
                    self._send(404, b"<h1>404</h1> unknown client_id", "text/html")
                    return
                redirect = q.get("redirect_uri") or standin.callback
                if not redirect.startswith(standin.callback):
                    self._send(400, b"redirect_uri is not associated with this application",
                               "text/html")
                    return
                state = q.get("state", "")
                if standin.deny:
                    back = {"error": "access_denied",
                            "error_description": "The user has denied your application "
                                                 "access.", "state": state}
                else:
                    code = secrets.token_hex(10)
                    with standin._lock:
                        standin.codes[code] = _Code(
                            standin.person, standin.client_id, redirect,
                            q.get("code_challenge"), q.get("code_challenge_method"),
                            time.time())
                    back = {"code": code, "state": state}
                sep = "&" if "?" in redirect else "?"
                self._send(302, b"", "text/html", {"Location": redirect + sep + urlencode(back)})

            def _access_token(self, f: dict[str, str]) -> None:
                def refuse(error: str, description: str) -> None:
                    self._answer({"error": error, "error_description": description,
                                  "error_uri": "https://docs.github.com/apps/"
                                               "troubleshooting-oauth-app-access-token-"
                                               "request-errors"})

                if f.get("client_id") != standin.client_id or \
                        f.get("client_secret") != standin.client_secret:
                    refuse("incorrect_client_credentials",
                           "The client_id and/or client_secret passed are incorrect.")
                    return
                with standin._lock:
                    code = standin.codes.get(f.get("code", ""))
                    fresh = code is not None and not code.used and \
                        time.time() - code.at < CODE_TTL_S
                    if code is not None:
                        code.used = True
                if code is None or not fresh:
                    refuse("bad_verification_code", "The code passed is incorrect or expired.")
                    return
                if f.get("redirect_uri") and f["redirect_uri"] != code.redirect_uri:
                    refuse("redirect_uri_mismatch", "The redirect_uri MUST match the "
                           "registered callback URL for this application.")
                    return
                if code.challenge is not None:
                    verifier = f.get("code_verifier", "")
                    made = base64.urlsafe_b64encode(
                        hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                    if code.method != "S256" or made != code.challenge:
                        refuse("bad_verification_code", "The code_verifier does not match "
                               "the code_challenge.")
                        return
                token = "gho_" + secrets.token_hex(18)
                with standin._lock:
                    standin.tokens[token] = code.login
                self._answer({"access_token": token, "scope": "", "token_type": "bearer"})

            def _answer(self, obj: dict[str, str]) -> None:
                if "application/json" in (self.headers.get("Accept") or ""):
                    self._json(200, obj)
                else:
                    self._send(200, urlencode(obj).encode(),
                               "application/x-www-form-urlencoded")

            def _user(self) -> None:
                scheme, _, value = (self.headers.get("Authorization") or "").partition(" ")
                login = standin.tokens.get(value.strip()) \
                    if scheme.lower() in ("bearer", "token") else None
                if login is None:
                    self._json(401, {"message": "Bad credentials",
                                     "documentation_url": "https://docs.github.com/rest"})
                    return
                self._json(200, {"login": login, "id": abs(hash(login)) % 10_000_000,
                                 "type": "User"})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self.base

    def stop(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def last(self, path: str) -> dict[str, str]:
        """The query or form of the latest request to ``path``."""
        return [q for _m, p, q, _h in self.requests if p == path][-1]
