"""The person controls of the built site (issue 13 "Site controls", D-36 v3.33) in Debian's
headless Chromium, against a small stand-in service defined here (not the real one: it
answers ``GET /session`` signed out or in, ``GET /me``, and records every POST).

It shows: signed out, the page offers "Sign in with GitHub" to the service's start route
with this page as ``return_to``; signed in, the controls the page calls for are drawn and
each act sends a fresh single-use ``X-CSRF-Token`` with the session cookie from the site's
origin, its answer (receipt or catalog refusal) landing in the aria-live region; a
``/session`` that fails, or a service that is down, leaves the read-only page with no
controls and nothing thrown into it; no CSP violation is reported anywhere.

Screenshots go to ``screenshots/site-controls/`` (git-ignored); with
``LEMMATA_UPDATE_SCREENSHOTS=1`` they rewrite the docs page's own under
``network/site/assets/screens/``.

Marked ``browser``: ``make test`` deselects it; run ``pytest -m browser``.
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, PlainTextResponse

from network.site.build import SCREENS, build_site
from network.site.config import SiteConfig
from tests.site_support import REPO, chromium, require_dot, serve
from tests.sitegraph import T, build_rich_graph

pytestmark = [pytest.mark.browser, pytest.mark.allow_outside_writes]
SHOTS = (SCREENS if os.environ.get("LEMMATA_UPDATE_SCREENSHOTS") == "1" else
         Path(os.environ.get("LEMMATA_SCREENSHOTS", str(REPO / "screenshots"))) / "site-controls")
MOTION = f"targets/{T}/panel/motions/20260110T000000Z-steve.yaml"
COOKIE = "lemmata_session"


class StandIn:
    """What the stand-in service answers and what it was sent."""

    def __init__(self) -> None:
        self.mode = "in"  # "in", "out" or "fail" (GET /session answers 500)
        self.needs_pseudonym = False
        self.roles: dict[str, list[str]] = {"curator": [], "steward": []}
        self.issued: list[str] = []
        self.used: set[str] = set()
        self.posts: list[dict[str, Any]] = []
        self.refuse: dict[str, dict[str, str]] = {}
        self.hostile: set[str] = set()  # paths whose receipt carries a script URL and markup
        self.waiting: dict[str, list[dict[str, Any]]] = {
            "literature": [], "review_questions": [],
            "held_proofs": [{"target": T, "node": "root--h1", "submission_id": 7,
                             "pull_request": 12, "what": "a proof of the root's even case",
                             "since": "2026-01-11"}],
            "motions": [{"target": T, "path": MOTION, "what": "invite bob as a steward",
                         "since": "2026-01-10"}]}
        self.numbers = itertools.count(100)


def standin_app(state: StandIn, site_origin: str) -> Any:
    """The stand-in: CORS for the site's origin with credentials, the cookie as the
    session, single-use CSRF tokens, 201 receipts or the refusals ``state.refuse`` names."""
    app = FastAPI()
    app.add_middleware(CORSMiddleware, allow_origins=[site_origin], allow_credentials=True,
                       allow_methods=["GET", "POST"],
                       allow_headers=["Content-Type", "X-CSRF-Token", "Accept"])

    def signed_in(request: Request) -> bool:
        return state.mode == "in" and request.cookies.get(COOKIE) == "good"

    @app.get("/_login")
    def login() -> Any:
        res = PlainTextResponse("signed in")
        res.set_cookie(COOKIE, "good", httponly=True, samesite="lax")
        return res

    @app.get("/session")
    def session(request: Request) -> Any:
        if state.mode == "fail":
            return JSONResponse({"code": "internal", "detail": "down", "action": "wait"}, 500)
        if not signed_in(request):
            return {"signed_in": False}
        token = f"tok-{len(state.issued)}"
        state.issued.append(token)
        return {"signed_in": True, "pseudonym": "alice", "login": "alice-gh",
                "expires_at": "2026-12-01T20:00:00Z", "csrf_token": token,
                "roles": state.roles, "needs_pseudonym": state.needs_pseudonym,
                "dco_version": "1.1"}

    @app.get("/me")
    def me(request: Request) -> Any:
        if not signed_in(request):
            return JSONResponse({"code": "session-missing", "detail": "", "action": ""}, 401)
        return {"pseudonym": "alice", "login": "alice-gh", "roles": state.roles,
                "waiting": state.waiting}

    @app.post("/{path:path}")
    async def write(path: str, request: Request) -> Any:
        token = request.headers.get("x-csrf-token", "")
        body = await request.json()
        state.posts.append({"path": "/" + path, "body": body, "token": token,
                            "origin": request.headers.get("origin"),
                            "cookie": request.cookies.get(COOKIE)})
        if not signed_in(request):
            return JSONResponse({"code": "session-missing", "detail": "no session",
                                 "action": "sign in"}, 401)
        if token not in state.issued or token in state.used:
            return JSONResponse({"code": "csrf-invalid", "detail": "token", "action": "retry"},
                                403)
        state.used.add(token)
        if "/" + path in state.refuse:
            return JSONResponse(state.refuse["/" + path], 403)
        if path == "session/end":
            state.mode = "out"
            return {"signed_in": False}
        n = next(state.numbers)
        if "/" + path in state.hostile:
            return JSONResponse({"pull_request": "<b>1</b>", "url": "javascript:alert(1)",
                                 "next": '<img src=x id="injected">'}, 201)
        return JSONResponse({"kind": path, "pull_request": n, "submission_id": n,
                             "url": f"https://forge.example/pulls/{n}",
                             "next": "The gate judges it; the page shows it after the merge."},
                            201)

    return app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def network(tmp_path: Path) -> Iterator[tuple[str, str, StandIn, Callable[[], Any]]]:
    """The built site (with a literature proposal waiting on root--h1) served beside the
    stand-in; yields ``(site base URL, service origin, state, stop the service)``."""
    from network.up import serve_in_thread

    require_dot()
    b, _ = build_rich_graph(tmp_path / "graph", commit=False)
    b.literature(T, "root--h1", "20260109T000000Z", "dave", "known-true", signed=False)
    port = free_port()
    service = f"http://127.0.0.1:{port}"
    report = build_site(SiteConfig(graph=tmp_path / "graph", out=tmp_path / "site",
                                   service_url=service, sign_in="github"))
    assert all("assets/screens/" in w for w in report.warnings), report.warnings
    state = StandIn()
    with serve(tmp_path / "site") as base:
        origin = base.rstrip("/")
        ctx = serve_in_thread(standin_app(state, origin), port=port)
        ctx.__enter__()
        stopped = []

        def stop() -> None:
            if not stopped:
                stopped.append(True)
                ctx.__exit__(None, None, None)

        try:
            yield base, service, state, stop
        finally:
            stop()


def _wait(d: Any, css: str, timeout: float = 10.0) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(d, timeout).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, css)))


def _settle(d: Any, state: StandIn, count: int) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(d, 10).until(lambda _: len(state.posts) >= count)
    WebDriverWait(d, 10).until(lambda _: d.find_elements("css selector", "#act-answers .answer"))


def _console_faults(d: Any) -> list[str]:
    """Console entries that are a thrown error or a CSP violation (a refused network
    request is the browser's own report and allowed)."""
    return [e["message"] for e in d.get_log("browser")
            if "Uncaught" in e["message"] or "Content Security Policy" in e["message"]
            or e.get("source") == "javascript"]


def _shot(el: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    el.parent.execute_script("arguments[0].scrollIntoView(true);", el)
    el.screenshot(str(SHOTS / name))


def _post(d: Any, state: StandIn, click: Callable[[], Any]) -> dict[str, Any]:
    n = len(state.posts)
    d.execute_script("document.getElementById('act-answers').textContent = '';")
    click()
    _settle(d, state, n + 1)
    return state.posts[-1]


def test_controls_in_chromium(tmp_path: Path) -> None:
    with chromium(log=True) as d, network(tmp_path) as (base, service, state, stop):
        _run(d, base, service, state, stop)


def _run(d: Any, base: str, service: str, state: StandIn, stop: Callable[[], Any]) -> None:
    css = "css selector"
    site_origin = base.rstrip("/")
    target = base + f"targets/{T}/index.html"
    node = base + f"targets/{T}/nodes/root--h1.html"

    # signed out: Sign in with GitHub, returning to this page; no control drawn
    state.mode = "out"
    d.get(target)
    link = _wait(d, "#session a.sign-in")
    href = urlsplit(link.get_attribute("href"))
    assert f"{href.scheme}://{href.netloc}" == service
    assert href.path == "/auth/github/start"
    assert parse_qs(href.query)["return_to"] == [target]
    assert not d.find_elements(css, ".person-controls")
    _shot(d.find_element(css, "header.site"), "signed-out.png")

    # signed in (the cookie on the service's host), not a steward: Become steward
    d.get(service + "/_login")
    state.mode = "in"
    d.get(target)
    facts = d.find_element(css, "table.facts").text
    _wait(d, ".target-acts form")
    assert "alice" in d.find_element(css, "#session").text
    f = d.find_element(css, ".target-acts form")
    f.find_element(css, "input[name=real_name]").send_keys("Alice Liddell")
    f.find_element(css, "textarea[name=commitment]").send_keys("To digest the result.")
    post = _post(d, state, lambda: f.find_element(css, "button[type=submit]").click())
    assert post["path"] == "/stewards"
    assert post["body"] == {"target_id": T, "action": "join", "real_name": "Alice Liddell",
                            "commitment": "To digest the result."}
    assert post["origin"] == site_origin and post["cookie"] == "good"
    assert post["token"] == state.issued[-1]
    answer = d.find_element(css, "#act-answers .answer.ok")
    pr = answer.find_element(css, "a")
    assert pr.get_attribute("href").startswith("https://forge.example/pulls/")
    assert "pull request #" in answer.text
    assert d.find_element(css, "table.facts").text == facts  # the page is not mutated
    _shot(answer, "answer.png")

    # a steward of the target: Step down, the motions with votes, Open a motion
    state.roles = {"curator": [], "steward": [T]}
    d.get(target)
    _wait(d, ".target-acts .motions button.vote")
    state.hostile.add("/votes")  # an answer is text: no script link, no markup
    post = _post(d, state, lambda: d.find_element(
        css, '.target-acts button.vote[data-vote="yes"]').click())
    assert post["path"] == "/votes" and post["body"] == {"motion": MOTION, "vote": "yes"}
    answer = d.find_element(css, "#act-answers .answer")
    assert not answer.find_elements(css, "a") and not d.find_elements(css, "#injected")
    assert '<img src=x id="injected">' in answer.text and "<b>1</b>" in answer.text
    forms = d.find_elements(css, ".target-acts form")
    assert [x.find_element(css, "button").text for x in forms] == ["Step down", "Open a motion"]
    motion = forms[1]
    motion.find_element(css, "textarea[name=text]").send_keys("Invite bob.")
    motion.find_element(css, "input[name=invitee]").send_keys("bob")
    state.refuse["/motions"] = {"code": "not-a-steward", "detail": "Only the panel may.",
                                "action": "Become a steward first."}
    post = _post(d, state, lambda: motion.find_element(css, "button").click())
    assert post["body"] == {"target_id": T, "kind": "invite", "invitee": "bob",
                            "text": "Invite bob."}
    refused = d.find_element(css, "#act-answers .answer.refused")
    assert "not-a-steward" in refused.text and "Become a steward first." in refused.text
    _shot(d.find_element(css, ".target-acts"), "target-controls.png")

    # the node page: approvals, the held proof, the literature reading, shelving
    d.get(node)
    _wait(d, ".node-acts form")
    _wait(d, ".approve form")
    words = d.find_elements(css, "[data-words]")
    assert words and len(d.find_elements(css, ".approve form")) == len(words)
    first = d.find_element(css, ".approve form")
    first.find_element(css, 'input[name=section][value="0"]').click()
    _shot(d.find_element(css, "aside.gloss"), "node-approve.png")
    post = _post(d, state, lambda: first.find_element(css, "button").click())
    assert post["path"] == "/approvals"
    assert post["body"] == {"words": words[0].get_attribute("data-words"), "sections": [0]}
    _wait(d, ".node-acts h3")
    acts = {x.find_element(css, "button").text: x
            for x in d.find_elements(css, ".node-acts form")}
    assert set(acts) == {"Approve this proof", "Send your reading", "Shelve this statement"}
    d.execute_script("document.getElementById('act-answers').textContent = '';")
    _shot(d.find_element(css, ".node-acts"), "node-acts.png")
    post = _post(d, state, lambda: acts["Approve this proof"].find_element(css, "button").click())
    assert post["path"] == "/proof-reviews"
    assert post["body"] == {"decision": "approve", "submission_id": 7}
    post = _post(d, state, lambda: acts["Send your reading"].find_element(css, "button").click())
    lit = d.find_element(css, "main").get_attribute("data-literature")
    assert lit and post["path"] == "/literature/confirm"
    assert post["body"] == {"literature": lit, "action": "confirm"}
    acts["Shelve this statement"].find_element(css, "textarea").send_keys("Does not serve.")
    post = _post(d, state, lambda: acts["Shelve this statement"].find_element(
        css, "button").click())
    assert post["body"] == {"target_id": T, "node_id": "root--h1", "action": "shelved",
                            "scope": "statement", "cause": "Does not serve."}

    # /me: what waits, each linked to its page
    d.get(base + "me.html")
    _wait(d, ".me-waiting ul.held_proofs a")
    link = d.find_element(css, ".me-waiting ul.held_proofs a").get_attribute("href")
    assert link == node
    assert d.find_element(css, ".me-waiting ul.motions a").get_attribute("href") == target

    # every act carried its own fresh token: none was sent twice
    tokens = [p["token"] for p in state.posts]
    assert len(tokens) == len(set(tokens)) and all(t in state.issued for t in tokens)

    # a login bound to no identity yet chooses its pseudonym and accepts the DCO first
    state.needs_pseudonym = True
    d.get(target)
    _wait(d, "#session form")
    assert not d.find_elements(css, ".person-controls")
    bar = d.find_element(css, "#session form")
    bar.find_element(css, "input[name=pseudonym]").send_keys("alice")
    bar.find_element(css, "input[name=dco]").click()
    state.needs_pseudonym = False
    post = _post(d, state, lambda: bar.find_element(css, "button").click())
    assert post["path"] == "/session/pseudonym"
    assert post["body"] == {"pseudonym": "alice", "dco": "1.1"}
    _wait(d, ".target-acts form")  # drawn again, now as the identity

    # sign out: the controls go, Sign in is back
    d.get(target)
    _wait(d, ".target-acts form")
    post = _post(d, state, lambda: d.find_element(css, "#session button.sign-out").click())
    assert post["path"] == "/session/end"
    _wait(d, "#session a.sign-in")
    assert not d.find_elements(css, ".person-controls")
    assert _console_faults(d) == []

    # a failing /session: the read-only page, no controls, nothing thrown
    state.mode = "fail"
    for page in (target, node, base + "me.html"):
        d.get(page)
        time.sleep(0.5)
        assert d.execute_script("return document.readyState") == "complete"
        assert not d.find_elements(css, ".person-controls")
        # the page as built: its static sign-in link (issue 40), nothing drawn over it
        assert d.find_element(css, "#session").text == "Sign in with GitHub"
    assert _console_faults(d) == []
    # the service down: the same
    stop()
    d.get(node)
    time.sleep(0.5)
    assert not d.find_elements(css, ".person-controls")
    assert d.find_element(css, "#session").text == "Sign in with GitHub"
    assert _console_faults(d) == []
    assert json.dumps(state.posts)  # everything recorded was plain JSON
