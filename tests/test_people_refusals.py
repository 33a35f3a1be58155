"""The person routes' refusals through the real web session (issue 13 "Done when", D-35
v3.33, D-23 v3.37): no dependency override, the GitHub stand-in, the cookie, the Origin
and the single-use CSRF token exactly as a browser sends them.

tests/test_web_session.py already feeds each session check its attack on a test route
(``/test/whoami``): a forged cookie (``test_a_forged_cookie_is_refused``), a cross-origin
request (``test_a_cross_origin_request_is_refused``), a replayed or foreign CSRF token
(``test_a_replayed_or_foreign_csrf_token_is_refused``), an expired session
(``test_an_expired_session_is_refused``) and a second identity for the same login
(``test_a_second_identity_for_the_same_login_is_refused``). Those are not repeated here.
This file shows the same checks hold on the real person routes (every POST route that
takes a session, read off the app: each attack once per route), that a person who is no
steward is refused a steward's act with the act's own code, and that an identity whose
DCO acceptance is older than the current text is refused every person write with
``dco-not-accepted``; each refusal opens no pull request.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from sqlalchemy import update

from network.api import db
from network.api.people import web_session
from tests.test_web_session import (
    ORIGIN,
    Web,
    _web,
    csrf,
    refused,
    sign_in,
    signed_up,
    site,
)

#: A body each person route accepts far enough to reach its guard (the target and node
#: of tests.api_support.build_graph's ``demo``).
BODIES: dict[str, dict[str, Any]] = {
    "/literature/confirm": {"literature": "targets/demo/nodes/root/literature/x.yaml",
                            "action": "confirm"},
    "/shelvings": {"target_id": "demo", "node_id": "proved", "action": "shelved",
                   "scope": "statement", "cause": "does not serve"},
    "/registrations": {"target_id": "demo", "registry_id": "r1", "wrapper_commit": "0" * 40,
                       "graph_commit": "0" * 40},
    "/approvals": {"words": "targets/demo/nodes/root/gloss/x.yaml", "sections": [0]},
    "/motions": {"target_id": "demo", "kind": "threshold", "text": "A threshold."},
    "/votes": {"motion": "targets/demo/panel/motions/x.yaml", "vote": "yes"},
    "/writeups": {"target_id": "demo", "stage": "drafted", "title": "On demo"},
    "/proof-reviews": {"pull_request": 1, "decision": "approve"},
    "/pertinence-signatures": {"target_id": "demo", "node_id": "root"},
    "/status-records": {"target_id": "demo", "declaration": "active",
                        "reasoning": "Work goes on."},
    "/withdrawals": {"record": "targets/demo/nodes/root/literature/x.yaml",
                     "reason": "Withdrawn."},
    "/corrections": {"line": "ledger/000001-1.json", "reason": "Corrected."},
    "/stewards": {"target_id": "lonely", "action": "join", "real_name": "Alice A",
                  "commitment": "I will read what closes here."},
    # D-9 v3.39: the formalization review's person acts ({review_id} is the target id)
    "/reviews": {"target": "demo", "role": "steward", "words": "The words.",
                 "intent_signer": "steve"},
    "/reviews/{review_id}/answers": {"question": "targets/demo/review/questions/x.yaml",
                                     "answer": "Yes."},
    "/reviews/{review_id}/signatures": {"role": "independent", "decision": "accept",
                                        "cluster": ["targets/demo/review/candidates/x.yaml"]},
}
#: The session's own routes: signing out and choosing the pseudonym (which is where the
#: DCO is accepted) are not person acts.
SESSION_OWN = {"/session/end", "/session/pseudonym"}


def _person_posts() -> list[str]:
    """Every POST route of the app that takes a web session, less the session's own."""
    import tempfile

    from network.api.app import create_app
    from network.api.settings import ServiceSettings

    with tempfile.TemporaryDirectory() as d:
        app = create_app(ServiceSettings(data_dir=Path(d) / "data", graph=Path(d)))
        return sorted(r.path for r in app.routes if isinstance(r, APIRoute)
                      and "POST" in r.methods
                      and getattr(r.endpoint, "__lemmata_auth__", None) == "session"
                      and r.path not in SESSION_OWN)


PERSON_POSTS = _person_posts()


@pytest.fixture()
def web(tmp_path: Path) -> Iterator[Web]:
    yield from _web(tmp_path)


def test_every_person_post_route_has_a_body_here() -> None:
    assert PERSON_POSTS and set(PERSON_POSTS) <= set(BODIES), set(PERSON_POSTS) - set(BODIES)


def _post(w: Web, path: str, headers: dict[str, str]) -> Any:
    return w.client.post(path.replace("{review_id}", "demo"), json=BODIES[path],
                         headers=headers)


def test_the_session_checks_hold_on_every_person_route(web: Web) -> None:
    signed_up(web)
    for path in PERSON_POSTS:
        if web.client.get("/session", headers=ORIGIN).json() == {"signed_in": False}:
            web.client.cookies.clear()  # the last route's session expired: a new one
            assert sign_in(web).status_code == 302
        real = web.client.cookies.get(web_session.COOKIE)
        assert real
        # a forged cookie: the real one with its last character changed
        token = csrf(web.client)
        web.client.cookies.clear()
        web.client.cookies.set(web_session.COOKIE,
                               real[:-1] + ("B" if real[-1] != "B" else "C"))
        refused(_post(web, path, {**ORIGIN, "X-CSRF-Token": token}), "session-invalid")
        web.client.cookies.clear()
        web.client.cookies.set(web_session.COOKIE, real)
        # a cross-origin request with a good token
        refused(_post(web, path, {"Origin": "https://evil.example", "X-CSRF-Token": token}),
                "session-cross-origin")
        # a replayed token: spent by the first act, whatever that act's answer
        headers = site(web.client)
        first = _post(web, path, headers)
        assert first.json().get("code") not in {"csrf-missing", "csrf-replayed"}, first.text
        opened = len(web.forge.list_all())
        refused(_post(web, path, headers), "csrf-replayed")
        # an expired session
        headers = site(web.client)
        web.clock.advance(web.svc.settings.session_hours * 3600)
        refused(_post(web, path, headers), "session-expired")
        assert len(web.forge.list_all()) == opened, path  # the refused acts opened nothing


def test_a_stale_dco_acceptance_is_refused_on_every_person_route(web: Web) -> None:
    """The identity accepted DCO 1.0; the current text is 1.1 (D-23 v3.37): every person
    write is refused until POST /dco/accept, and opens nothing."""
    signed_up(web)
    before = len(web.forge.list_all())
    with db.transaction(web.svc.sessions) as s:
        s.execute(update(db.IdentityRow).where(db.IdentityRow.pseudonym == "alice")
                  .values(dco_version="1.0"))
    for path in PERSON_POSTS:
        r = _post(web, path, site(web.client))
        assert r.json().get("code") == "dco-not-accepted", (path, r.text)
        refused(r, "dco-not-accepted")
    assert len(web.forge.list_all()) == before


def test_a_steward_act_by_a_non_steward_is_refused(web: Web) -> None:
    """alice is no steward of ``demo`` (steve is): opening a motion, a steward's act, is
    refused with the panel's own code; so is stepping down from a panel she is not on."""
    signed_up(web)
    before = len(web.forge.list_all())
    refused(web.client.post("/motions", json=BODIES["/motions"], headers=site(web.client)),
            "motion-not-member")
    if "/stewards" in PERSON_POSTS:
        refused(web.client.post("/stewards", json={"target_id": "demo",
                                                   "action": "step-down"},
                                headers=site(web.client)), "steward-not-in-force")
    assert len(web.forge.list_all()) == before
