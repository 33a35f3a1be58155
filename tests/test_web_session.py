"""GitHub sign-in and the web session (issue 13, D-35 v3.33, ruling 9, ruling 14).

The service runs in process (FastAPI's TestClient on ``https://testserver``, so the
cookie jar keeps and sends the Secure cookies as a browser does) over a LocalForge; GitHub
is :class:`tests.github_standin.GitHubStandin`, a real HTTP server on 127.0.0.1 the
service's authlib client talks to, and which the "browser" (httpx) visits for the
authorize step. Every refusal is fed the input built to pass its check.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import httpx
import pygit2
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import select

from network.api import db
from network.api.app import create_app
from network.api.graphs import GraphProvider
from network.api.identity import identity
from network.api.people import web_session
from network.api.settings import ServiceSettings
from network.api.submit.records import gate_findings
from network.cli import main
from network.errors import CATALOG, LemmataError
from network.forge.local import LocalForge
from network.gate.artifacts import Kind
from network.gate.diff import diff_commits
from network.gate.steps.step2 import run_steps_1_2
from network.record import models as m
from network.record.read.loader import load_graph
from tests.api_support import (
    PG_URL,
    FakeClock,
    auth,
    build_graph,
    github_verifier,
    pg_schema,
)
from tests.github_standin import GitHubStandin
from tests.graphs import BUILDER_APPROVAL_KEY, BUILDER_APPROVAL_KEY_ID, git_commit

SERVICE = "https://testserver"
SITE = "https://site.test"
PAGE = f"{SITE}/targets/demo.html"
ORIGIN = {"Origin": SITE}


@dataclass
class Web:
    """The service, its forge, the GitHub stand-in and the clock."""

    client: TestClient
    app: Any
    clock: FakeClock
    forge: LocalForge
    gh: GitHubStandin
    root: Path

    @property
    def svc(self) -> Any:
        return self.app.state.svc

    def browser(self) -> TestClient:
        """Another browser on the same service: an empty cookie jar."""
        return TestClient(self.app, base_url=SERVICE)


def _web(tmp_path: Path, **settings: Any) -> Iterator[Web]:
    gh = GitHubStandin(callback=f"{SERVICE}/auth/github/callback")
    gh.start()
    build_graph(tmp_path / "graph")
    forge_path = tmp_path / "forge.git"
    LocalForge.seed(forge_path, tmp_path / "graph")

    def load_main() -> Any:
        return load_graph(forge_path, "refs/heads/main")

    def version() -> str:
        return str(pygit2.Repository(str(forge_path)).references["refs/heads/main"].target)

    clock = FakeClock()
    opts: dict[str, Any] = {
        "data_dir": tmp_path / "data", "graph": forge_path, "public_url": SERVICE,
        "site_origin": SITE, "github_client_id": gh.client_id,
        "github_client_secret": gh.client_secret, "github_oauth_url": gh.oauth_url,
        "github_api_url": gh.base, **settings}
    app = create_app(ServiceSettings(**opts), graph_loader=GraphProvider(load_main, version),
                     github_verifier=github_verifier, clock=clock,
                     keys={"approval": (BUILDER_APPROVAL_KEY_ID, BUILDER_APPROVAL_KEY)})

    @app.post("/test/whoami", status_code=201)
    def whoami(p: web_session.PersonDep) -> dict[str, Any]:
        """A person route as the other helpers' routes declare it (tests only)."""
        return {"id": p.who.id, "pseudonym": p.who.pseudonym, "login": p.login,
                "transport": p.caller.transport}

    try:
        with TestClient(app, base_url=SERVICE) as client:
            forge = LocalForge(forge_path, app.state.svc.sessions, clock=clock)
            app.state.svc.forge = forge
            yield Web(client, app, clock, forge, gh, tmp_path)
    finally:
        gh.stop()


@pytest.fixture()
def web(tmp_path: Path) -> Iterator[Web]:
    yield from _web(tmp_path)


def start(c: TestClient, return_to: str = PAGE) -> httpx.Response:
    return c.get("/auth/github/start", params={"return_to": return_to},
                 follow_redirects=False)


def authorize(location: str) -> str:
    """The browser at GitHub's authorize page: the redirect back to the callback."""
    back = httpx.get(location, follow_redirects=False)
    assert back.status_code == 302, back.text
    return back.headers["location"]


def sign_in(w: Web, login: str = "alice", c: TestClient | None = None) -> httpx.Response:
    """The whole browser round trip; the callback's answer."""
    c = c or w.client
    w.gh.person = login
    r = start(c)
    assert r.status_code == 302, r.text
    return c.get(authorize(r.headers["location"]), follow_redirects=False)


def csrf(c: TestClient) -> str:
    body = c.get("/session", headers=ORIGIN).json()
    assert body["signed_in"], body
    return str(body["csrf_token"])


def site(c: TestClient) -> dict[str, str]:
    """What the site's script sends with an act: its Origin and a fresh CSRF token."""
    return {**ORIGIN, "X-CSRF-Token": csrf(c)}


def refused(r: httpx.Response, code: str) -> None:
    assert r.json().get("code") == code, r.text
    assert r.status_code == CATALOG[code].http_status, r.text


def signed_up(w: Web, login: str = "alice", pseudonym: str = "alice") -> dict[str, Any]:
    assert sign_in(w, login).status_code == 302
    r = w.client.post("/session/pseudonym", json={"pseudonym": pseudonym, "dco": "1.1"},
                      headers=site(w.client))
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


# --- the flow ------------------------------------------------------------------------------


def test_sign_in_creates_the_logins_one_identity_and_files_its_signed_binding(web: Web) -> None:
    r = start(web.client)
    assert r.status_code == 302
    loc = httpx.URL(r.headers["location"])
    assert str(loc).startswith(f"{web.gh.oauth_url}/authorize?")
    q = dict(loc.params)
    assert q["client_id"] == web.gh.client_id and q["response_type"] == "code"
    assert q["redirect_uri"] == f"{SERVICE}/auth/github/callback"
    assert q["code_challenge_method"] == "S256" and q["state"] and q["code_challenge"]
    oauth = SimpleCookie(r.headers["set-cookie"])[web_session.OAUTH_COOKIE]
    assert oauth["samesite"].lower() == "lax" and oauth["secure"] and oauth["httponly"]
    assert oauth["path"] == "/auth/"

    back = web.client.get(authorize(str(loc)), follow_redirects=False)
    assert back.status_code == 302 and back.headers["location"] == PAGE
    cookies = [h for k, h in back.headers.multi_items() if k == "set-cookie"]
    sess = next(SimpleCookie(h)[web_session.COOKIE] for h in cookies
            if h.startswith(web_session.COOKIE + "="))
    assert sess["httponly"] and sess["secure"] and sess["samesite"].lower() == "strict"
    assert sess["path"] == "/" and not sess["domain"] and sess["max-age"] == str(8 * 3600)
    token_req = web.gh.last("/login/oauth/access_token")
    assert token_req["client_secret"] == web.gh.client_secret and token_req["code_verifier"]
    with web.svc.sessions() as s:  # stored hashed, never the cookie's value
        row = s.execute(select(db.WebSessionRow)).scalar_one()
        assert row.session_hash != sess.value and len(row.session_hash) == 64

    first = web.client.get("/session", headers=ORIGIN).json()
    assert first["signed_in"] and first["needs_pseudonym"] and first["login"] == "alice"
    assert first["pseudonym"] is None
    refused(web.client.post("/test/whoami", headers=site(web.client)),
            "session-needs-pseudonym")

    body = web.client.post("/session/pseudonym", json={"pseudonym": "Alice", "dco": "1.1"},
                           headers=site(web.client)).json()
    assert body["pseudonym"] == "Alice" and body["login"] == "alice"
    assert not body["needs_pseudonym"] and body["csrf_token"]
    assert body["roles"] == {"curator": [], "steward": []}
    pr = web.forge.get(int(body["binding"]["pull_request"]))
    assert pr.author == "Alice"
    diff = diff_commits(web.forge.path, pr.base_sha, pr.head_sha)
    base = load_graph(web.forge.path, pr.base_sha)
    res = run_steps_1_2(diff, base, pr.author)
    assert res.step1.ok and res.step2.ok, res.step2.diagnostics
    assert {a.kind for a in res.artifacts} == {Kind.IDENTITY}
    web.forge.merge(pr.number)
    graph = load_graph(web.forge.path, "refs/heads/main")
    rec = graph.identities["Alice"]
    assert rec.github == "alice" and rec.signature is not None
    assert rec.signature.kind == "approval" and rec.signature.signer == "Alice"

    who = web.client.post("/test/whoami", headers=site(web.client))
    assert who.status_code == 201 and who.json()["pseudonym"] == "Alice"
    assert who.json()["login"] == "alice" and who.json()["transport"] == "web"


def test_a_login_with_a_token_signs_in_as_that_same_identity(web: Web) -> None:
    tok = web.client.post("/tokens", json={"pseudonym": "bob", "dco": "1.1",
                                           "proof": {"kind": "github", "token": "gh-bob"}})
    assert tok.status_code == 201
    assert sign_in(web, "bob").status_code == 302
    view = web.client.get("/session", headers=ORIGIN).json()
    assert view["pseudonym"] == "bob" and not view["needs_pseudonym"]
    with web.svc.sessions() as s:
        ident = s.execute(select(db.IdentityRow)).scalar_one()
    assert web.client.post("/test/whoami", headers=site(web.client)).json()["id"] == ident.id
    # the session and the token write as one identity on the words routes too
    for headers in (site(web.client), auth(tok.json()["token"])):
        r = web.client.post("/glosses/withdrawals", json={"record": "targets/demo/nope",
                                                          "reason": "x"}, headers=headers)
        refused(r, "withdrawal-subject-invalid")  # authenticated: the operation judged it


def test_session_end_and_the_anonymous_answer(web: Web) -> None:
    assert web.client.get("/session").json() == {"signed_in": False}
    signed_up(web)
    kept = web.client.cookies.get(web_session.COOKIE)
    r = web.client.post("/session/end", headers=site(web.client))
    assert r.status_code == 200 and r.json() == {"signed_in": False}
    assert web.client.cookies.get(web_session.COOKIE) is None  # deleted
    assert web.client.get("/session", headers=ORIGIN).json() == {"signed_in": False}
    refused(web.client.post("/test/whoami", headers={**ORIGIN, "X-CSRF-Token": "x"}),
            "session-missing")
    web.client.cookies.set(web_session.COOKIE, kept or "")  # the ended cookie, replayed
    refused(web.client.post("/test/whoami", headers={**ORIGIN, "X-CSRF-Token": "x"}),
            "session-invalid")


# --- the refusals ----------------------------------------------------------------------------


def test_a_forged_cookie_is_refused(web: Web) -> None:
    signed_up(web)
    token = csrf(web.client)
    real = web.client.cookies.get(web_session.COOKIE)
    assert real
    web.client.cookies.clear()
    # a cookie of the right shape, and the real one with one character changed
    for forged in ("A" * 43, real[:-1] + ("B" if real[-1] != "B" else "C")):
        web.client.cookies.set(web_session.COOKIE, forged)
        refused(web.client.post("/test/whoami", headers={**ORIGIN, "X-CSRF-Token": token}),
                "session-invalid")
        web.client.cookies.clear()
    web.client.cookies.set(web_session.COOKIE, "forged")
    refused(web.client.post("/test/whoami", headers={**ORIGIN, "X-CSRF-Token": token}),
            "session-invalid")
    assert web.client.get("/session", headers=ORIGIN).json() == {"signed_in": False}


@pytest.mark.parametrize("origin", [
    "https://evil.example", "http://site.test", "https://site.test:8443",
    "https://site.test.evil.example", "null", "https://site.test/", None])
def test_a_cross_origin_request_is_refused(web: Web, origin: str | None) -> None:
    signed_up(web)
    headers = {"X-CSRF-Token": csrf(web.client)}
    if origin is not None:
        headers["Origin"] = origin
    refused(web.client.post("/test/whoami", headers=headers), "session-cross-origin")
    if origin is not None:  # GET /session answers no other origin a CSRF token
        refused(web.client.get("/session", headers={"Origin": origin}),
                "session-cross-origin")


def test_a_replayed_or_foreign_csrf_token_is_refused(web: Web) -> None:
    signed_up(web)
    headers = site(web.client)
    assert web.client.post("/test/whoami", headers=headers).status_code == 201
    refused(web.client.post("/test/whoami", headers=headers), "csrf-replayed")
    refused(web.client.post("/test/whoami", headers=ORIGIN), "csrf-missing")
    other = web.browser()
    assert sign_in(web, "alice", other).status_code == 302
    theirs = csrf(other)  # a token of another session of the same person
    refused(web.client.post("/test/whoami", headers={**ORIGIN, "X-CSRF-Token": theirs}),
            "csrf-missing")


def test_an_expired_session_is_refused(web: Web) -> None:
    signed_up(web)
    headers = site(web.client)
    web.clock.advance(8 * 3600)
    refused(web.client.post("/test/whoami", headers=headers), "session-expired")
    assert web.client.get("/session", headers=ORIGIN).json() == {"signed_in": False}


def test_a_second_identity_for_the_same_login_is_refused(web: Web) -> None:
    signed_up(web)
    refused(web.client.post("/session/pseudonym", json={"pseudonym": "alice2", "dco": "1.1"},
                            headers=site(web.client)), "github-login-bound")
    refused(web.client.post("/tokens", json={"pseudonym": "alice3", "dco": "1.1",
                                             "proof": {"kind": "github", "token": "gh-alice"}}),
            "github-login-bound")
    # a second browser signed in with the same login is the same identity, no new one
    other = web.browser()
    assert sign_in(web, "alice", other).status_code == 302
    assert other.get("/session", headers=ORIGIN).json()["pseudonym"] == "alice"
    refused(other.post("/session/pseudonym", json={"pseudonym": "alice4", "dco": "1.1"},
                       headers=site(other)), "github-login-bound")
    with web.svc.sessions() as s:
        assert [i.pseudonym for i in s.execute(select(db.IdentityRow)).scalars()] == ["alice"]


def test_a_pseudonym_refused_by_the_identity_rules_writes_nothing(web: Web) -> None:
    assert sign_in(web, "carol").status_code == 302
    for body, code in (({"pseudonym": "bad name", "dco": "1.1"}, "pseudonym-invalid"),
                       ({"pseudonym": "gate", "dco": "1.1"}, "pseudonym-reserved"),
                       ({"pseudonym": "carol", "dco": "0.9"}, "dco-not-accepted"),
                       ({"pseudonym": "steve", "dco": "1.1"}, "pseudonym-reserved")):
        refused(web.client.post("/session/pseudonym", json=body, headers=site(web.client)),
                code)
    web.svc.keys = {}
    refused(web.client.post("/session/pseudonym", json={"pseudonym": "carol", "dco": "1.1"},
                            headers=site(web.client)), "approval-key-missing")
    with web.svc.sessions() as s:
        assert s.execute(select(db.IdentityRow)).first() is None
    assert web.forge.list_all() == []


def test_a_retired_identity_gets_no_session(web: Web) -> None:
    tok = web.client.post("/tokens", json={"pseudonym": "dave", "dco": "1.1",
                                           "proof": {"kind": "github", "token": "gh-dave"}})
    assert tok.status_code == 201
    assert sign_in(web, "dave").status_code == 302
    headers = site(web.client)
    out = identity.revoke_tokens(web.svc, pseudonym="dave")
    assert out["sessions_ended"] == 1
    refused(web.client.post("/test/whoami", headers=headers), "session-invalid")
    refused(sign_in(web, "dave", web.browser()), "session-identity-retired")
    refused(web.client.post("/tokens/renew", headers=auth(tok.json()["token"])),
            "token-invalid")
    with pytest.raises(LemmataError) as exc:
        web_session.issue_sign_in_link(web.svc, pseudonym="dave", operator="olga")
    assert exc.value.code == "session-identity-retired"


def test_a_squatter_of_a_role_pseudonym_gets_no_role_and_cannot_act(web: Web) -> None:
    """``steve`` is the demo target's steward in the graph, bound to no login; an identity
    that took the name before the graph named it (inserted here as such) may be signed in
    by an operator, yet is shown no role and refused every person act."""
    with db.transaction(web.svc.sessions) as s:
        s.add(db.IdentityRow(pseudonym="steve", pseudonym_key="steve", proof_kind="precheck",
                             created_at=1, dco_version="1.1", dco_accepted_at=1))
    link = web_session.issue_sign_in_link(web.svc, pseudonym="steve", operator="olga")
    assert web.client.get(link["url"], follow_redirects=False).status_code == 302
    view = web.client.get("/session", headers=ORIGIN).json()
    assert view["pseudonym"] == "steve" and view["roles"] == {"curator": [], "steward": []}
    refused(web.client.post("/test/whoami", headers=site(web.client)), "pseudonym-reserved")


def test_a_new_sign_in_ends_the_browsers_previous_session(web: Web) -> None:
    signed_up(web)
    old = web.client.cookies.get(web_session.COOKIE)
    assert sign_in(web, "alice").status_code == 302
    assert web.client.cookies.get(web_session.COOKIE) != old
    with web.svc.sessions() as s:
        rows = s.execute(select(db.WebSessionRow).order_by(db.WebSessionRow.id)).scalars().all()
    assert [r.ended_at is not None for r in rows] == [True, False]


# --- the OAuth flow's own refusals ---------------------------------------------------------------


@pytest.mark.parametrize("return_to", [
    "https://evil.example/", "http://site.test/", "https://site.test:444/",
    "https://site.test@evil.example/", "//evil.example/", "/targets/demo.html",
    "javascript:alert(1)", "https://site.test\\@evil.example/", "https://evil.example/?https://site.test/",
    "https://site.test.evil.example/"])
def test_return_to_off_the_site_is_refused(web: Web, return_to: str) -> None:
    refused(start(web.client, return_to), "return-to-refused")
    with web.svc.sessions() as s:
        assert s.execute(select(db.OAuthStateRow)).first() is None


def test_sign_in_without_an_oauth_app_answers_its_code(tmp_path: Path) -> None:
    for w in _web(tmp_path, github_client_id=None):
        refused(start(w.client), "signin-not-configured")
        info = w.client.get("/info.json").json()["service"]["web_session"]
        assert info["github_sign_in"] is False and info["site_origin"] == SITE


def test_info_publishes_the_site_and_sign_in(web: Web) -> None:
    info = web.client.get("/info.json").json()["service"]["web_session"]
    assert info == {"site_origin": SITE, "github_sign_in": True, "session_hours": 8,
                    "sign_in": f"{SERVICE}/auth/github/start?return_to=<page>"}


def test_the_state_is_single_use_short_lived_and_bound_to_the_browser(web: Web) -> None:
    r = start(web.client)
    callback = authorize(r.headers["location"])
    stranger = web.browser()  # login CSRF: the attacker's callback URL in the victim's browser
    refused(stranger.get(callback, follow_redirects=False), "oauth-state-invalid")
    refused(web.client.get(callback, follow_redirects=False), "oauth-state-invalid")  # spent

    r = start(web.client)
    callback = authorize(r.headers["location"])
    web.clock.advance(web_session.STATE_TTL_S)
    refused(web.client.get(callback, follow_redirects=False), "oauth-state-expired")

    r = start(web.client)
    url = httpx.URL(authorize(r.headers["location"]))
    forged = url.copy_merge_params({"state": "A" * 43})
    refused(web.client.get(str(forged), follow_redirects=False), "oauth-state-invalid")
    refused(web.client.get("/auth/github/callback?code=x", follow_redirects=False),
            "oauth-state-invalid")
    with web.svc.sessions() as s:
        assert s.execute(select(db.WebSessionRow)).first() is None


def test_a_denied_or_bad_code_opens_no_session(web: Web) -> None:
    web.gh.deny = True
    refused(sign_in(web), "oauth-denied")
    web.gh.deny = False
    r = start(web.client)
    url = httpx.URL(authorize(r.headers["location"]))
    bad = url.copy_merge_params({"code": "not-a-code"})
    refused(web.client.get(str(bad), follow_redirects=False), "oauth-code-invalid")
    with web.svc.sessions() as s:
        assert s.execute(select(db.WebSessionRow)).first() is None


# --- CORS ------------------------------------------------------------------------------------


def test_cors_answers_only_the_site_and_only_on_session_routes(web: Web) -> None:
    pre = {"Origin": SITE, "Access-Control-Request-Method": "POST",
           "Access-Control-Request-Headers": "content-type,x-csrf-token"}
    for path in ("/session/end", "/session/pseudonym", "/test/whoami", "/glosses"):
        r = web.client.options(path, headers=pre)
        assert r.status_code == 204, (path, r.text)
        assert r.headers["access-control-allow-origin"] == SITE
        assert r.headers["access-control-allow-credentials"] == "true"
        assert "X-CSRF-Token" in r.headers["access-control-allow-headers"]
    got = web.client.get("/session", headers=ORIGIN)
    assert got.headers["access-control-allow-origin"] == SITE
    assert got.headers["cache-control"] == "no-store"
    for path, origin in (("/session/end", "https://evil.example"), ("/claims", SITE),
                         ("/tokens", SITE)):
        r = web.client.options(path, headers={**pre, "Origin": origin})
        assert "access-control-allow-origin" not in r.headers, (path, origin)
    assert "access-control-allow-origin" not in web.client.get(
        "/session", headers={"Origin": "https://evil.example"}).headers


# --- the operator's way in (ruling 14) ---------------------------------------------------------


def test_an_operator_link_opens_one_session_for_an_existing_identity(web: Web) -> None:
    runner = CliRunner()
    st = web.svc.settings
    state = ["--data", str(st.data_dir), "--graph", str(st.graph)]
    env = {"LEMMATA_PUBLIC_URL": SERVICE, "LEMMATA_SITE_ORIGIN": SITE}
    issued = runner.invoke(main, ["token", "issue", "--pseudonym", "erin", "--dco",
                                  "--operator", "olga", *state], env=env)
    assert issued.exit_code == 0, issued.output
    out = runner.invoke(main, ["session", "link", "--pseudonym", "ERIN", "--operator", "olga",
                               "--json", *state], env=env)
    assert out.exit_code == 0, out.output
    link = json.loads(out.output)
    assert link["pseudonym"] == "erin" and link["url"].startswith(f"{SERVICE}/auth/link?")
    assert link["return_to"] == f"{SITE}/"
    r = web.client.get(link["url"], follow_redirects=False)
    assert r.status_code == 302 and r.headers["location"] == f"{SITE}/"
    view = web.client.get("/session", headers=ORIGIN).json()
    assert view["pseudonym"] == "erin" and view["login"] is None
    assert web.client.post("/test/whoami", headers=site(web.client)).json()["login"] is None
    refused(web.browser().get(link["url"], follow_redirects=False), "sign-in-link-invalid")
    late = web_session.issue_sign_in_link(web.svc, pseudonym="erin", operator="olga")
    web.clock.advance(web_session.LINK_TTL_S)
    refused(web.browser().get(late["url"], follow_redirects=False), "sign-in-link-invalid")
    bad = runner.invoke(main, ["session", "link", "--pseudonym", "nobody", "--operator",
                               "olga", *state], env=env)
    assert bad.exit_code != 0 and "identity-unknown" in bad.output
    off = runner.invoke(main, ["session", "link", "--pseudonym", "erin", "--operator", "olga",
                               "--return-to", "https://evil.example/", *state], env=env)
    assert off.exit_code != 0 and "return-to-refused" in off.output


# --- the gate's rule on identities/ ------------------------------------------------------------


def _binding(pseudonym: str, login: str, *, signed: bool = True) -> dict[str, Any]:
    from network import signing

    body = {"schema": "identity/v1", "pseudonym": pseudonym, "github": login,
            "since": "2026-09-21"}
    if signed:
        sig = signing.sign(m.Identity.model_validate(body), BUILDER_APPROVAL_KEY, "approval",
                           BUILDER_APPROVAL_KEY_ID, pseudonym)
        body["signature"] = sig.model_dump()
    return body


def _yaml(rec: dict[str, Any]) -> bytes:
    from network.api.submit.records import dump_yaml

    return dump_yaml(rec)


@pytest.fixture()
def bound_graph(tmp_path: Path) -> Any:
    b = build_graph(tmp_path / "g")
    b.write_yaml("identities/alice.yaml", _binding("alice", "alice"))
    git_commit(tmp_path / "g", "alice's binding")
    return load_graph(tmp_path / "g")


def test_the_gate_admits_a_signed_binding_of_a_free_login(bound_graph: Any) -> None:
    files = {"identities/bob.yaml": _yaml(_binding("bob", "bob"))}
    assert gate_findings(bound_graph, files, "bob", Kind.IDENTITY) == []


@pytest.mark.parametrize(("path", "rec", "submitter", "code"), [
    ("identities/mallory.yaml", _binding("mallory", "ALICE"), "mallory", "identity-login-bound"),
    ("identities/bob.yaml", _binding("bob", "bob", signed=False), "bob", "role-act-unsigned"),
    ("identities/bob.yaml", _binding("bob", "bob"), "mallory", "actor-not-submitter"),
    ("identities/bob.yaml", _binding("mallory", "bob"), "mallory", "actor-not-submitter"),
    ("identities/alice.yaml", _binding("alice", "mallory"), "alice", "record-deleted"),
])
def test_the_gate_refuses_a_binding_that_is_not_the_submitters_own_free_login(
        bound_graph: Any, path: str, rec: dict[str, Any], submitter: str, code: str) -> None:
    found = gate_findings(bound_graph, {path: _yaml(rec)}, submitter)
    assert code in {d.code for d in found}, found


def test_a_binding_signed_for_another_pseudonym_is_refused(bound_graph: Any) -> None:
    rec = _binding("mallory", "bob")
    rec["pseudonym"] = "bob"  # mallory's signature over another body, renamed
    found = gate_findings(bound_graph, {"identities/bob.yaml": _yaml(rec)}, "bob")
    assert {d.code for d in found} & {"role-key-unbound", "role-signature-invalid"}, found


# --- PostgreSQL ------------------------------------------------------------------------------


@pytest.mark.postgres
def test_sessions_and_csrf_on_postgresql(tmp_path: Path) -> None:
    with pg_schema("lemmata_websession") as schema:
        gh = GitHubStandin(callback=f"{SERVICE}/auth/github/callback", person="pat")
        gh.start()
        try:
            build_graph(tmp_path / "pgraph")
            st = ServiceSettings(data_dir=tmp_path / "pdata", graph=tmp_path / "pgraph",
                                 database_url=PG_URL, public_url=SERVICE, site_origin=SITE,
                                 github_client_id=gh.client_id,
                                 github_client_secret=gh.client_secret,
                                 github_oauth_url=gh.oauth_url, github_api_url=gh.base)
            app = create_app(st, github_verifier=github_verifier, clock=FakeClock(),
                             engine_connect_args={"options": f"-csearch_path={schema}"})
            with TestClient(app, base_url=SERVICE) as c:
                tok = c.post("/tokens", json={"pseudonym": "pat", "dco": "1.1",
                                              "proof": {"kind": "github", "token": "gh-pat"}})
                assert tok.status_code == 201
                r = c.get("/auth/github/start", params={"return_to": PAGE},
                          follow_redirects=False)
                back = c.get(authorize(r.headers["location"]), follow_redirects=False)
                assert back.status_code == 302
                h = {**ORIGIN, "X-CSRF-Token": csrf(c)}
                refused(c.post("/session/end", headers={**ORIGIN, "X-CSRF-Token": "x"}),
                        "csrf-missing")
                kept = c.cookies.get(web_session.COOKIE)
                assert c.post("/session/end", headers=h).status_code == 200
                c.cookies.set(web_session.COOKIE, kept or "")
                refused(c.post("/session/end", headers=h), "session-invalid")
                with db.transaction(app.state.svc.sessions) as s:
                    row = s.execute(select(db.WebSessionRow)).scalar_one()
                    assert row.ended_at is not None and row.identity_id is not None
                    assert s.execute(select(db.CsrfTokenRow.used_at)).scalar_one()
        finally:
            gh.stop()


def test_the_openapi_lists_the_session_refusals_on_every_person_route(web: Web) -> None:
    web.app.openapi_schema = None
    from network.api import contract

    contract.document_errors(web.app)  # the test route was added after create_app
    spec = web.client.get("/openapi.json").json()
    for path in ("/session/end", "/session/pseudonym", "/test/whoami", "/glosses"):
        documented = set(spec["paths"][path]["post"]["responses"])
        assert {"401", "403", "409", "429"} <= documented, (path, documented)
