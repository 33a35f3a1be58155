"""An attacker's review of the formalization review's service routes and MCP tools (D-9
v3.39, D-28 v3.39, D-35 "reviews"; issue 27): network/api/records/reviews.py,
review_routes.py, the review rows of network/api/tools.py and ``/me``'s
``intent_questions``.

Each test states one attack in its docstring and asserts the SAFE behaviour, so it fails
where there is a hole. ``HOLE`` marks an attack that got through on commit dbb8b98 and is
refused since (one is kept open as a strict xfail, its reason given); ``HOLDS`` one the
service already refused. The environments
are tests/test_api_reviews.py's: the gate scenarios' ``demo`` with its review built by
tests/review_support.py (steward and intent signer ``steve``, curators ``curator`` and
``cora``; candidates C1 the registry's by ``alice``, C2 ``carol``'s, C3 a model's by
``dave``), served over a LocalForge.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from sqlalchemy import update

from network.api import db
from network.api.identity.identity import revoke_tokens
from network.record.read.loader import load_graph
from tests.gate_scenarios import ND, S_ROOT
from tests.review_support import C1, C2, C3, Review, module_of
from tests.test_api_records import Env
from tests.test_api_reviews import G_LEAN, OPEN, _as, _env_of, _opened, _post, _refused

#: a text only C2's Lean holds: what a blind caller must never be shown
C2_MARK = "3 ≤ n"


@pytest.fixture()
def opened(tmp_path: Path) -> Iterator[Env]:
    yield from _env_of(tmp_path, _opened)


@pytest.fixture()
def complete(tmp_path: Path) -> Iterator[Env]:
    yield from _env_of(tmp_path, lambda r: r.complete())


def _two_targets(r: Review) -> None:
    """demo (no review yet) beside ``other``, whose steward is ``olga`` and whose curator
    is ``oscar`` (curator of ``other`` alone)."""
    r.b.target("other", steward="olga")
    r.b.curators([{"pseudonym": "curator", "targets": ["*"]},
                  {"pseudonym": "cora", "targets": ["*"]},
                  {"pseudonym": "oscar", "targets": ["other"]}])
    for who in ("olga", "oscar"):
        r.b.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                                 "github": who, "since": "2026-01-01"})


@pytest.fixture()
def two(tmp_path: Path) -> Iterator[Env]:
    yield from _env_of(tmp_path, _two_targets)


def _bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _no_pr(env: Env) -> None:
    assert env.prs() == [], [p.title for p in env.prs()]


def _mcp(env: Env, calls: list[tuple[str, dict[str, Any]]],
         headers: dict[str, str] | None = None) -> list[tuple[bool, dict[str, Any]]]:
    """Run ``calls`` over the service's streamable-HTTP MCP endpoint; each answer as
    ``(is_error, payload)``."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> list[tuple[bool, dict[str, Any]]]:
        transport = httpx2.ASGITransport(app=env.api.app)
        async with (
            httpx2.AsyncClient(transport=transport, base_url="http://testserver",
                               headers=headers or {}) as http,
            Client(streamable_http_client("http://testserver/mcp", http_client=http)) as c,
        ):
            out = []
            for name, args in calls:
                res = await c.call_tool(name, args)
                out.append((bool(res.is_error), json.loads(res.content[0].text)))
            return out

    return anyio.run(run)


# === the blind rule ======================================================================


def test_blind_an_open_candidate_unlocks_nothing(opened: Env) -> None:
    """HOLDS. Attack: gina files a candidate (its pull request open, not merged) and reads
    GET /reviews/demo with her token, hoping an open candidate counts as "her own on the
    record". Safe: no Lean is shown until her candidate merges."""
    tok = opened.api.token("gina")["token"]
    r = _post(opened, "/reviews/demo/candidates", {"lean": G_LEAN, "read_others": False}, tok)
    assert r.status_code == 201, r.text
    body = opened.client.get("/reviews/demo", headers=_bearer(tok))
    assert body.json()["lean_shown"] is False
    assert C2_MARK not in body.text


def test_blind_reads_beside_get_review_carry_no_lean(opened: Env) -> None:
    """HOLDS. Attack: an anonymous caller reads the other review reads (GET /review-pairs,
    GET /review-questions, GET /reviews/demo/questions) and the intent signer's /me,
    looking for a candidate's Lean there. Safe: none holds another candidate's Lean."""
    for url in ("/review-pairs", "/review-pairs?target_id=demo", "/review-questions",
                "/reviews/demo/questions"):
        r = opened.client.get(url)
        assert r.status_code == 200, r.text
        assert C2_MARK not in r.text and "sorry" not in r.text, url
    _as(opened, "steve")
    me = opened.client.get("/me")
    assert me.status_code == 200 and C2_MARK not in me.text


def test_blind_the_tools_hold_the_rule_whichever_way_the_token_comes(opened: Env) -> None:
    """HOLDS. Attack over MCP: an outsider (erin, no candidate) calls get_review with no
    argument but an ``Authorization`` header; an author's token in the header with an
    outsider's in the argument; list_open_pairs and list_review_questions. Safe: only the
    author's own token shows the Lean, two different tokens are ``credentials-conflict``,
    and the list tools carry no Lean."""
    erin = opened.api.token("erin")["token"]
    carol = opened.api.token("carol")["token"]
    [(e1, outsider), (e2, pairs), (e3, questions)] = _mcp(opened, [
        ("get_review", {"target_id": "demo"}),
        ("list_open_pairs", {}),
        ("list_review_questions", {"target_id": "demo"}),
    ], headers=_bearer(erin))
    assert not (e1 or e2 or e3)
    assert outsider["lean_shown"] is False
    assert C2_MARK not in json.dumps(outsider, ensure_ascii=False)
    assert C2_MARK not in json.dumps(pairs, ensure_ascii=False)
    assert C2_MARK not in json.dumps(questions, ensure_ascii=False)
    [(c_err, conflict)] = _mcp(opened, [("get_review", {"target_id": "demo", "token": erin})],
                               headers=_bearer(carol))
    assert c_err and conflict["code"] == "credentials-conflict"
    [(a_err, author)] = _mcp(opened, [("get_review", {"target_id": "demo"})],
                             headers=_bearer(carol))
    assert not a_err and author["lean_shown"] is True


def test_blind_a_revoked_token_is_refused_not_read_as_anyone(opened: Env) -> None:
    """HOLDS. Attack: carol (an author) has her tokens revoked by the operator; her old
    token still sent to GET /reviews/demo and get_review. Safe: ``token-invalid``, never
    the author's view (and never silently the anonymous one)."""
    carol = opened.api.token("carol")["token"]
    revoke_tokens(opened.api.svc, pseudonym="carol")
    r = opened.client.get("/reviews/demo", headers=_bearer(carol))
    _refused(r, "token-invalid", 401)
    [(err, body)] = _mcp(opened, [("get_review", {"target_id": "demo", "token": carol})])
    assert err and body["code"] == "token-invalid"


def test_blind_cached_answers_never_cross_between_callers(opened: Env) -> None:
    """HOLDS. Attack on caches: the anonymous answer is cacheable; an author's answer holds
    the Lean. A shared cache must never hand the author's answer to anyone, nor the
    anonymous one to a token holder; an anonymous revalidation with the anonymous ETag
    must not be answered with Lean. Safe: the anonymous answer varies on Authorization,
    every token holder's is ``no-store``, and a 304 carries no body."""
    anon = opened.client.get("/reviews/demo")
    assert "authorization" in anon.headers["vary"].lower()
    etag = anon.headers["etag"]
    carol = opened.api.token("carol")["token"]
    erin = opened.api.token("erin")["token"]
    for tok in (carol, erin):
        r = opened.client.get("/reviews/demo", headers={**_bearer(tok), "If-None-Match": etag})
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        assert "etag" not in r.headers
    again = opened.client.get("/reviews/demo", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    gz = opened.client.get("/reviews/demo", headers={**_bearer(carol),
                                                     "Accept-Encoding": "gzip"})
    assert gz.headers["cache-control"] == "no-store"


def test_blind_a_refusal_names_no_declaration_of_another_candidate(tmp_path: Path) -> None:
    """HOLE (low: the graph's files are public over plain git, so the blind rule is a
    courtesy). Attack: the blind view lists each candidate's ``declaration`` and concepts,
    not the other names its Lean declares. carol's candidate also declares a helper
    ``Zed.secret_helper``. An outsider submits a candidate declaring only the namespace
    ``Zed`` and reads step 2's ``review-declaration-taken`` detail, which names the other
    candidate's clashing declaration in full (``Zed / Zed.secret_helper``): guessing a
    namespace is enough to read every name under it, one refusal per candidate. Safe:
    the refusal names the caller's own clashing name and the other candidate's path,
    never a name of the other Lean that the blind view withholds.
    Fails now: the detail holds ``secret_helper``."""
    lean = ("def Zed.secret_helper (n : Nat) : Prop := 3 ≤ n\n\n"
            "theorem Demo.c2 (n : Nat) (h : Zed.secret_helper n) : n ≠ 0 := by\n  sorry\n")

    def build(r: Review) -> None:
        r.open()
        r.candidate(C2, lean, declaration="Demo.c2")

    for env in _env_of(tmp_path, build):
        tok = env.api.token("erin")["token"]
        probe = ("def Zed : Nat := 0\n\n"
                 "theorem Demo.e (n : Nat) (h : 2 < n) : n ≠ 1 := by\n  sorry\n")
        blind = env.client.get("/reviews/demo", headers=_bearer(tok)).json()
        assert blind["lean_shown"] is False
        assert "secret_helper" not in json.dumps(blind)  # the view withholds it ...
        r = _post(env, "/reviews/demo/candidates", {"lean": probe, "read_others": False,
                                                    "declaration": "Demo.e"}, tok)
        assert r.status_code == 409 and r.json()["code"] == "review-declaration-taken"
        assert "secret_helper" not in r.json()["detail"], r.json()["detail"]  # ... and this
        _no_pr(env)


# === person routes signed with the approval key ==========================================


@pytest.mark.parametrize(("route", "body"), [
    ("answers", {"question": "Q", "answer": "Yes.", "by": "steve"}),
    ("answers", {"question": "Q", "answer": "Yes.", "login": "steve"}),
    ("answers", {"question": "Q", "answer": "Yes.", "signature": {"signer": "steve"}}),
    ("signatures", {"role": "intent", "decision": "send-back", "cluster": [C1],
                    "by": "steve"}),
    ("signatures", {"role": "intent", "decision": "send-back", "cluster": [C1],
                    "login": "steve"}),
    ("signatures", {"role": "independent", "decision": "send-back", "cluster": [C1],
                    "target": "other"}),
])
def test_person_a_body_names_no_other_signer(opened: Env, route: str,
                                             body: dict[str, Any]) -> None:
    """HOLDS. Attack: erin, signed in, sends the intent signer's answer or signature with
    body fields naming steve (``by``, ``login``, a ``signature``) or another target, hoping
    the service signs with the approval key for someone else. Safe: ``bad-request``
    (unknown field), nothing signed, nothing opened."""
    _as(opened, "erin")
    q = opened.review.paths["question"]  # type: ignore[attr-defined]
    body = {**body, "question": q} if route == "answers" else body
    _refused(_post(opened, f"/reviews/demo/{route}", body), "bad-request", 422)
    _no_pr(opened)


def test_person_a_bearer_token_is_no_session(opened: Env) -> None:
    """HOLDS. Attack: steve's bearer token (an agent's credential, e.g. leaked from an MCP
    client) sent to the person routes: answering, signing, opening. Safe:
    ``session-missing``; the approval key signs only for a signed-in person."""
    tok = opened.api.token("steve")["token"]
    q = opened.review.paths["question"]  # type: ignore[attr-defined]
    for path, body in (("/reviews/demo/answers", {"question": q, "answer": "Yes."}),
                       ("/reviews/demo/signatures", {"role": "intent",
                                                     "decision": "send-back",
                                                     "cluster": [C1, C2]}),
                       ("/reviews", OPEN)):
        _refused(_post(opened, path, body, tok), "session-missing", 401)
    _no_pr(opened)


@pytest.mark.parametrize(("who", "change", "code"), [
    ("olga", {}, "review-opener-role"),                    # steward of another target
    ("olga", {"role": "background"}, "review-opener-role"),
    ("oscar", {"role": "curator"}, "review-opener-role"),  # curator of another target
    ("oscar", {"role": "background"}, "review-opener-role"),
    ("steve", {"intent_signer": "olga"}, "review-intent-signer-not-steward"),
    ("steve", {"intent_signer": "cora"}, "review-intent-signer-not-steward"),  # a curator
    ("steve", {"intent_signer": "Steve"}, "review-intent-signer-not-steward"),
])
def test_person_opening_on_a_target_one_holds_no_role_on(two: Env, who: str,
                                                         change: dict[str, Any],
                                                         code: str) -> None:
    """HOLDS. Attack: a steward or a curator of *another* target opens demo's review (as
    steward, curator or background), or a steward of demo names as intent signer someone
    who is a steward elsewhere, only a curator, or a case variant of the steward. Safe:
    refused with the gate's code before a pull request opens."""
    _as(two, who)
    r = _post(two, "/reviews", {**OPEN, **change})
    assert r.json().get("code") == code, r.text
    _no_pr(two)


@pytest.mark.parametrize("cluster", [
    ["targets/demo/nodes/root/Statement.lean"],
    [C3, "targets/demo/nodes/root/Statement.lean"],
    ["curators.json"],
])
def test_person_a_signature_cluster_names_only_candidates_of_the_review(
        opened: Env, cluster: list[str]) -> None:
    """HOLE. Attack: erin, signed in, files a ``send-back`` (no grade, so step 2 reads no
    cluster) whose ``cluster`` names files that exist but are no candidate of demo's
    review: the root's Statement.lean, curators.json, beside a real candidate. (A path
    that does not exist is refused already, ``dangling-reference``.) The service signs it
    with the approval key and opens it. Safe: a signature, whatever its decision, signs
    for candidates of this review (``review-candidate-unknown``), so the network's key
    never vouches for a record whose cluster is not candidates.
    Fails now: 201, a signed pull request opens."""
    _as(opened, "erin")
    r = _post(opened, "/reviews/demo/signatures", {
        "role": "independent", "decision": "send-back", "cluster": cluster})
    assert r.status_code in (409, 422), r.text
    _no_pr(opened)


def test_person_an_accept_is_not_replayed(tmp_path: Path) -> None:
    """HOLDS. Attack: erin's independent accept is on main and counts; she (or a script
    holding her session) posts the same accept again, hoping to add a second counting
    signature or to move the grade. Safe: ``review-signature-repeated``, nothing opens."""
    def signed(r: Review) -> None:
        r.complete()
        r.sign("independent", "erin")

    for env in _env_of(tmp_path, signed):
        _as(env, "erin")
        r = _post(env, "/reviews/demo/signatures", {"role": "independent",
                                                    "decision": "accept", "cluster": [C1, C2]})
        _refused(r, "review-signature-repeated", 409)
        _as(env, "cora")  # a second independent signer while that role counts already
        r = _post(env, "/reviews/demo/signatures", {"role": "independent",
                                                    "decision": "accept", "cluster": [C1, C2]})
        _refused(r, "review-signature-repeated", 409)
        _no_pr(env)


def test_person_the_intent_role_is_the_intent_signers(complete: Env) -> None:
    """HOLDS. Attack: cora, a curator of every target, signs as ``intent`` or answers a
    question; steve, the intent signer, signs as ``independent`` to earn both roles.
    Safe: ``review-signer-role`` / ``review-answer-not-intent-signer``."""
    _as(complete, "cora")
    body = {"role": "intent", "decision": "accept", "cluster": [C1, C2]}
    _refused(_post(complete, "/reviews/demo/signatures", body), "review-signer-role", 403)
    _as(complete, "steve")
    _refused(_post(complete, "/reviews/demo/signatures", {**body, "role": "independent"}),
             "review-signer-role", 403)
    _no_pr(complete)


# === agents' routes: hostile bodies =======================================================


def _candidate(env: Env, lean: str, tok: str, **more: Any) -> Any:
    return _post(env, "/reviews/demo/candidates",
                 {"lean": lean, "read_others": False, **more}, tok)


@pytest.mark.parametrize(("lean", "why"), [
    (G_LEAN.replace("sorry", "sorry\n\n#eval IO.println \"hi\""), "#eval"),
    (G_LEAN + "\ninitialize ioRef : IO.Ref Nat ← IO.mkRef 0\n", "initialize"),
    (G_LEAN.replace("3 ≤ n", "3 ≤ n\u202e"), "bidi override"),
    (G_LEAN.replace("n ≠ 0", "n ≠ 0\u0000"), "NUL"),
    (G_LEAN.replace("(n : Nat)", "(n : Nat) (h0 : n \u2260 0 \u200b)"), "zero width"),
    (G_LEAN.replace("Demo.g.Big n", "Demo.g.Bіg n"), "Cyrillic look-alike"),
    (G_LEAN + "\nset_option debug.skipKernelTC true\n", "kernel off"),
    (G_LEAN + "\naxiom Demo.g.cheat : False\n", "axiom"),
    ("@[implemented_by Demo.g.Big]\n" + G_LEAN, "attribute"),
])
def test_agent_a_hostile_candidate_is_refused_before_a_pr(opened: Env, lean: str,
                                                          why: str) -> None:
    """HOLDS. Attack: a candidate whose Lean runs code at elaboration or import (``#eval``,
    ``initialize``), hides characters (bidi override, NUL, zero width), names a look-alike,
    turns the kernel off, adds an axiom or an attribute. Safe: a catalog code
    (4xx) before any pull request opens."""
    tok = opened.api.token("gina")["token"]
    r = _candidate(opened, lean, tok)
    assert 400 <= r.status_code < 500 and r.json().get("code"), (why, r.text)
    _no_pr(opened)


def test_agent_a_lone_surrogate_is_a_catalog_refusal(opened: Env) -> None:
    """HOLDS. Attack: JSON lets a string carry a lone surrogate (``\\ud800``), which is no
    Unicode scalar and has no UTF-8 form. Sent as a candidate's or an exhibit's ``lean``
    (the service hashes ``lean.encode('utf-8')``), as a question or as an answer. Safe: a
    4xx catalog refusal, never a 500, nothing opened."""
    tok = opened.api.token("gina")["token"]
    raw = json.dumps({"lean": "theorem Demo.s : True := sorry\n-- \ud800\n",
                      "models": ["m"]})
    r = opened.client.post("/reviews/demo/candidates", content=raw.encode(),
                           headers={**_bearer(tok), "Content-Type": "application/json"})
    assert 400 <= r.status_code < 500 and r.json().get("code"), (r.status_code, r.text)
    raw = json.dumps({"kind": "negation", "candidate": C3, "theorem": "Demo.c3.neg",
                      "lean": "theorem Demo.c3.neg : True := trivial -- \ud800\n"})
    r = opened.client.post("/reviews/demo/exhibits", content=raw.encode(),
                           headers={**_bearer(tok), "Content-Type": "application/json"})
    assert 400 <= r.status_code < 500 and r.json().get("code"), (r.status_code, r.text)
    raw = json.dumps({"question": "Is \ud800 meant?", "case": "n = 3"})
    r = opened.client.post("/reviews/demo/questions", content=raw.encode(),
                           headers={**_bearer(tok), "Content-Type": "application/json"})
    assert 400 <= r.status_code < 500 and r.json().get("code"), (r.status_code, r.text)
    _no_pr(opened)


def test_agent_a_body_that_is_not_utf8_is_a_catalog_refusal(opened: Env) -> None:
    """HOLDS. Attack: a request body whose bytes are not UTF-8 (Latin-1 text in the Lean).
    Safe: ``bad-request`` (a catalog code), nothing opened."""
    tok = opened.api.token("gina")["token"]
    raw = b'{"lean": "theorem Demo.s : True := sorry -- \xe9\xff", "read_others": false}'
    r = opened.client.post("/reviews/demo/candidates", content=raw,
                           headers={**_bearer(tok), "Content-Type": "application/json"})
    assert 400 <= r.status_code < 500 and r.json().get("code"), r.text
    _no_pr(opened)


def test_agent_the_roots_statement_is_only_the_registrys(tmp_path: Path) -> None:
    """HOLDS. Attack: the root's Statement.lean (its bytes, or with a comment and spaces
    added) filed as a person's or a model's candidate, to earn a person-written candidate
    in the cluster (expert-attested) without writing one. Safe:
    ``review-root-not-registry`` before a pull request opens."""
    def only_opened(r: Review) -> None:
        r.open()

    for env in _env_of(tmp_path, only_opened):
        root = load_graph(env.forge.path, "refs/heads/main").text(f"{ND}/root/Statement.lean")
        assert root == S_ROOT
        tok = env.api.token("gina")["token"]
        for lean, more in ((root, {}), ("-- mine\n" + root.replace("\n", "\n\n"), {}),
                           (root, {"models": ["m"], "read_others": None})):
            r = _candidate(env, lean, tok, **more)
            assert r.json().get("code") == "review-root-not-registry", r.text
        _no_pr(env)


def test_agent_the_roots_statement_renamed_is_still_the_registrys(opened: Env) -> None:
    """HOLE (gate rule, review_rules._candidate; the service inherits it). Attack: once the
    registry's candidate holds ``Demo.main`` (``review-declaration-taken`` forbids it to
    anyone else), the root's statement can only come back under another name, and the
    copy rule compares whole texts, comments and whitespace aside, so the name alone
    defeats it. gina files the root's statement renamed (``Demo.p``, binders ``m``/``hm``)
    as her own person-written candidate, or as a candidate that imports the registry
    candidate's module and states ``type_of% @Demo.main``. Either joins the root's cluster
    by two trivial ``implies`` exhibits and is the "person-written candidate" that lifts
    the grade to expert-attested, which ``review-root-not-registry`` exists to stop.
    Safe: ``review-root-not-registry`` (or a refused import of another candidate's module)
    before a pull request opens.
    Fails now: 201 for both."""
    tok = opened.api.token("gina")["token"]
    imported = (f"import {module_of(C1)}\n\n"
                "theorem Demo.q : type_of% @Demo.main := by\n  sorry\n")
    renamed_decl = "/-- mine -/\ntheorem Demo.p (n : Nat) (h : 2 < n) : n ≠ 0 := by\n  sorry\n"
    codes = [_candidate(opened, lean, tok).json().get("code") for lean in (imported,
                                                                         renamed_decl)]
    assert codes == ["review-candidate-import", "review-root-not-registry"], codes
    _no_pr(opened)


@pytest.mark.xfail(strict=True, reason="NOT FIXED: the root's statement with its binders "
                   "renamed is a false claim of authorship the text alone cannot tell; "
                   "`read_others` and origin stay the author's claims, shown as such")
def test_agent_the_roots_statement_with_renamed_binders(opened: Env) -> None:
    """HOLE, kept open (see the xfail reason). Attack: the root's statement with its
    declaration and binders renamed, filed as a person's candidate."""
    tok = opened.api.token("gina")["token"]
    renamed = "theorem Demo.p (m : Nat) (hm : 2 < m) : m ≠ 0 := by\n  sorry\n"
    assert _candidate(opened, renamed, tok).json().get("code") is not None


@pytest.mark.parametrize(("more", "code"), [
    ({"origin": "registry", "registry": {"name": "FC", "repository": "https://x.org",
                                         "evil": "1"}}, "invalid-record"),
    ({"origin": "registry", "registry": {"name": "FC", "repository": "file:///etc"}},
     "invalid-record"),
    ({"registry": {"name": "FC", "repository": "https://x.org"}}, "invalid-record"),
    ({"models": ["m" * 300]}, "invalid-record"),
    ({"models": [f"model-{i}" for i in range(21)]}, "bad-request"),
    ({"models": ["a" * 100_000] * 20}, None),
    ({"concepts": {"big": "Demo.nowhere"}}, "review-concept-undeclared"),
    ({"concepts": {"big": "Demo.c2"}}, "review-concept-undeclared"),
    ({"declaration": "«Demo.g»"}, "invalid-record"),
    ({"declaration": "Demo.c2"}, "review-declaration-undeclared"),
    ({"mutant_of": "targets/demo/review/candidates/20260102T000009Z-zed.yaml",
      "defect_class": "other"}, None),
    ({"mutant_of": "targets/other/review/candidates/20260102T000001Z-carol.yaml",
      "defect_class": "other"}, "review-mutant-of"),
    ({"origin": "registry", "registry": {"name": "FC", "repository": "https://x.org"},
      "wraps": C2, "read_others": None}, "review-wraps-unknown"),
    ({"mutant_of": "targets/demo/review/candidates/../../nodes/root/x.yaml",
      "defect_class": "other"}, "invalid-record"),
])
def test_agent_hostile_candidate_fields(opened: Env, more: dict[str, Any],
                                        code: str | None) -> None:
    """HOLDS. Attack: a candidate whose ``registry`` carries extra keys or a non-https
    repository, a registry block on a person's candidate, a ``models`` list too long or
    too large, concepts mapped to names its Lean does not declare (or to another
    candidate's theorem), a declaration with «», a declaration another candidate holds,
    a mutant of a candidate the review does not hold or of another target's, a wrapper of
    a person's candidate, a path with ``..``. Safe: refused with a catalog code, nothing opened."""
    tok = opened.api.token("gina")["token"]
    r = _candidate(opened, G_LEAN, tok, **more)
    assert 400 <= r.status_code < 500, r.text
    if code is not None:
        assert r.json().get("code") == code, r.text
    else:
        assert r.json().get("code"), r.text
    _no_pr(opened)


def test_agent_a_declaration_the_lean_does_not_declare(opened: Env) -> None:
    """HOLE. Attack: a candidate whose body names ``declaration`` ``Demo.ghost`` while its
    Lean declares only ``Demo.g``; the concept is mapped to ``Demo.ghost`` too, which the
    concept rule then counts as declared (step 2 adds the record's own declaration to the
    Lean's names). The service reads the Lean's declarations already when ``declaration``
    is absent. Safe: refused before a pull request opens (the gate refuses it at step 4,
    where Lean finds no ``Demo.ghost``; the command reader sees it without Lean).
    Fails now: 201, a doomed pull request opens."""
    tok = opened.api.token("gina")["token"]
    r = _candidate(opened, G_LEAN, tok, declaration="Demo.ghost",
                   concepts={"big": "Demo.ghost"})
    assert r.status_code in (409, 422), r.text
    _no_pr(opened)


def test_agent_an_exhibit_theorem_the_lean_does_not_declare(opened: Env) -> None:
    """HOLE. Attack: a negation exhibit of C3 whose record names ``theorem``
    ``Demo.c3.ghost`` while its Lean declares only ``Demo.c3.neg``. Step 2 reads the
    exhibit's Lean for nothing but hidden characters and import-time code, so the service
    opens it; the gate refuses it at step 4 (the theorem is not found). Safe: refused
    before a pull request opens (the command reader the service already uses for a
    candidate's ``declaration`` sees it without Lean).
    Fails now: 201, a doomed pull request opens."""
    tok = opened.api.token("bob")["token"]
    r = _post(opened, "/reviews/demo/exhibits", {
        "kind": "negation", "candidate": C3, "theorem": "Demo.c3.ghost",
        "lean": "theorem Demo.c3.neg : ¬ ∀ (n : Nat) (h : 2 < n), n = 0 :=\n"
                "  fun hf => absurd (hf 3 (by decide)) (by decide)\n"}, tok)
    assert r.status_code in (409, 422), r.text
    _no_pr(opened)


def test_agent_an_open_copy_with_a_comment_added(opened: Env) -> None:
    """HOLE. Attack (or accident): gina's candidate is open; hank files the same Lean with
    a comment and blank lines added. The service compares open candidates byte for byte
    (``lean_sha256``), the gate compares comments and whitespace aside, so both open; the
    second is refused by the gate once the first merges (``review-candidate-copy``).
    Safe (D-25 v3.21: identical, comments and whitespace aside, to one merged or open is
    refused before a pull request opens): ``review-candidate-copy``, one pull request.
    Fails now: 201, a second pull request opens."""
    gina = opened.api.token("gina")["token"]
    hank = opened.api.token("hank")["token"]
    assert _candidate(opened, G_LEAN, gina).status_code == 201
    r = _candidate(opened, "-- hank's own\n" + G_LEAN.replace("\n\n", "\n\n\n"), hank)
    _refused(r, "review-candidate-copy", 409)
    assert len(opened.prs()) == 1


@pytest.mark.parametrize(("route", "body", "code"), [
    ("exhibits", {"kind": "negation", "candidate": "targets/demo/review/candidates/"
                  "../../nodes/root/Statement.yaml", "theorem": "Demo.x", "lean": "x"},
     "invalid-record"),
    ("exhibits", {"kind": "implies", "candidate": C1,
                  "other": "targets/other/review/candidates/20260102T000001Z-carol.yaml",
                  "theorem": "Demo.x", "lean": "theorem Demo.x : True := trivial\n"},
     "review-candidate-unknown"),
    ("exhibits", {"kind": "probe-holds", "candidate": C1,
                  "test": "targets/other/review/tests/20260103T000001Z-bob.yaml",
                  "theorem": "Demo.x", "lean": "theorem Demo.x : True := trivial\n"},
     "review-test-unknown"),
    ("exhibits", {"kind": "negation", "candidate": C3, "theorem": "Demo.c3",
                  "lean": "theorem Demo.c3 : True := trivial\n"}, "review-exhibit-theorem"),
    ("exhibits", {"kind": "negation", "candidate": C3, "theorem": "Demo.c3.n",
                  "lean": "initialize x : Nat ← pure 0\ntheorem Demo.c3.n : True := "
                          "trivial\n"}, None),
    ("exhibits", {"kind": "negation", "candidate": C3, "theorem": "Demo.c3.n",
                  "lean": "theorem Demo.c3.n : True := trivial\n#eval (0 : Nat)\n"}, None),
    ("exhibits", {"kind": "negation", "candidate": C3, "theorem": "Demo.c3.n",
                  "lean": "theorem Demo.c3.n : True := trivial\u202e\n"}, None),
    ("exhibits", {"kind": "negation", "candidate": C3, "theorem": "Demo.c3.n",
                  "lean": "set_option debug.skipKernelTC true\n"
                          "theorem Demo.c3.n : True := trivial\n"}, None),
    ("attempts", {"candidate": "../../../etc/passwd", "screen": "proves", "tool": "t",
                  "budget": "1 s"}, "invalid-record"),
    ("attempts", {"candidate": C1, "other": C1, "tool": "t", "budget": "1 s"},
     "invalid-record"),
    ("questions", {"question": "Why?", "case": "n = 0",
                   "raised_by": "targets/demo/review/../../../curators.json"},
     "invalid-record"),
    ("questions", {"question": "Why?", "case": "n = 0",
                   "raised_by": "targets/demo/nodes/root/Statement.lean"},
     "dangling-reference"),
    ("questions", {"question": "Why?", "case": "n = 0",
                   "candidates": ["targets/other/review/candidates/x.yaml"]},
     "review-candidate-unknown"),
    ("tests", {"concept": "big", "args": ["(by exact 3)"], "source": "computation"},
     None),
    ("tests", {"concept": "big", "args": ["3) (sorryAx Nat"], "source": "computation"},
     None),
    ("tests", {"concept": "big", "args": ["3"], "source": "answer", "expected": "holds",
               "answer": "targets/other/review/answers/20260103T000001Z-steve.yaml"},
     None),
])
def test_agent_hostile_act_fields(tmp_path: Path, route: str, body: dict[str, Any],
                                  code: str | None) -> None:
    """HOLDS. Attack: an exhibit, attempt, question or intent test naming ``..`` paths,
    another target's candidates, tests or answers, a node file as what raised a question,
    a negation under the candidate's own theorem name, Lean that runs code at import or
    elaboration, hides characters or turns the kernel off, and intent-test arguments that
    smuggle a tactic block or close the probe's parenthesis. Safe: a catalog code before a
    pull request opens."""
    def build(r: Review) -> None:
        r.open(concepts=["big"])
        r.three_candidates()

    for env in _env_of(tmp_path, build):
        tok = env.api.token("bob")["token"]
        r = _post(env, f"/reviews/demo/{route}", body, tok)
        assert 400 <= r.status_code < 500, r.text
        if code is not None:
            assert r.json().get("code") == code, r.text
        else:
            assert r.json().get("code"), r.text
        _no_pr(env)


def test_agent_a_lean_past_the_body_limit_is_refused_with_a_code(opened: Env) -> None:
    """HOLDS. Attack: a candidate whose Lean is under the route's 1 000 000-character cap
    but past the body limit in bytes (400 000 ``≤``, 1.2 MB in UTF-8). Safe: a catalog
    code, never a 500, nothing opened. (A 999 000-byte ASCII Lean is accepted: the
    policy's ``max_file_bytes`` is 1 000 000, so that is the record's rule, not a hole.)"""
    tok = opened.api.token("gina")["token"]
    wide = "-- " + "≤" * 400_000 + "\n"
    r = _candidate(opened, G_LEAN + wide, tok)
    assert 400 <= r.status_code < 500 and r.json().get("code"), r.text[:300]
    _no_pr(opened)


# === auth, the DCO and rate limits =========================================================

_AGENT_ROUTES = {
    "candidates": {"lean": G_LEAN, "read_others": False},
    "exhibits": {"kind": "negation", "candidate": C3, "theorem": "Demo.c3.n",
                 "lean": "theorem Demo.c3.n : True := trivial\n"},
    "attempts": {"candidate": C1, "screen": "proves", "tool": "t", "budget": "1 s"},
    "tests": {"concept": "big", "args": ["3"], "source": "computation"},
    "questions": {"question": "Why?", "case": "n = 0"},
}


def test_auth_every_agent_route_needs_a_live_token(opened: Env) -> None:
    """HOLDS. Attack: each agent write with no token, a made-up token, a token revoked by
    the operator, a session cookie instead of a token. Safe: ``token-missing`` /
    ``token-invalid``, nothing opened."""
    gina = opened.api.token("gina")["token"]
    revoke_tokens(opened.api.svc, pseudonym="gina")
    for route, body in _AGENT_ROUTES.items():
        path = f"/reviews/demo/{route}"
        _refused(_post(opened, path, body), "token-missing", 401)
        _refused(_post(opened, path, body, "lmt_" + "x" * 40), "token-invalid", 401)
        _refused(_post(opened, path, body, gina), "token-invalid", 401)
    _no_pr(opened)


def test_auth_a_stale_dco_refuses_every_review_write(opened: Env) -> None:
    """HOLDS. Attack: an identity whose DCO acceptance is older than the current text
    (D-23 v3.37) files candidates, exhibits, attempts, tests and questions, and (signed in)
    answers and signs. Safe: ``dco-not-accepted`` everywhere, nothing opened."""
    from network.api.people import web_session
    from network.api.service import Caller, authenticate

    gina = opened.api.token("gina")["token"]
    steve = _as(opened, "steve")
    with db.transaction(opened.api.svc.sessions) as s:
        s.execute(update(db.IdentityRow).where(db.IdentityRow.pseudonym.in_(["gina", "steve"]))
                  .values(dco_version="1.0"))
    # the session as the real dependency reads it: the identity as the database holds it now
    person = web_session.Person(caller=Caller(token=None, address="t",
                                              who=authenticate(opened.api.svc, steve)),
                                login="steve")
    opened.api.app.dependency_overrides[web_session.person] = lambda: person
    for route, body in _AGENT_ROUTES.items():
        _refused(_post(opened, f"/reviews/demo/{route}", body, gina), "dco-not-accepted",
                 403)
    q = opened.review.paths["question"]  # type: ignore[attr-defined]
    _refused(_post(opened, "/reviews/demo/answers", {"question": q, "answer": "x"}),
             "dco-not-accepted", 403)
    _refused(_post(opened, "/reviews/demo/signatures", {
        "role": "intent", "decision": "send-back", "cluster": [C1, C2]}),
        "dco-not-accepted", 403)
    _no_pr(opened)


def test_auth_writes_are_rate_limited_per_identity(tmp_path: Path) -> None:
    """HOLDS. Attack: one identity floods the review with questions (each a pull request
    for a person to read). Safe: past ``rate_writes_per_identity`` the service answers
    ``rate-limited`` and opens no more."""
    from tests.api_support import Api, forge_service
    from tests.review_support import review_repo

    r = review_repo(tmp_path / "graph")
    _opened(r)
    r.commit()
    with forge_service(tmp_path / "graph", tmp_path,
                       settings={"rate_writes_per_identity": 3}) as (client, app, forge,
                                                                    clock):
        env = Env(Api(client, app, clock, r.b), forge)
        tok = env.api.token("gina")["token"]
        codes = []
        for i in range(5):
            resp = _post(env, "/reviews/demo/questions",
                         {"question": f"Question {i}?", "case": f"n = {i}"}, tok)
            codes.append(resp.json().get("code") if resp.status_code != 201 else 201)
        assert codes[:3] == [201, 201, 201] and codes[3:] == ["rate-limited"] * 2, codes
        assert len(env.prs()) == 3


def test_auth_refusals_leave_no_branch_and_no_row(opened: Env) -> None:
    """HOLDS. Attack: a burst of refused acts (every agent route with a bad body, a person
    act by the wrong person, a review id that is no target id) hoping one leaves a branch
    pushed on the forge or an ``open`` row in the submissions index that later blocks a
    real act. Safe: the forge's refs and the index are as they were; nothing opened."""
    import subprocess

    def refs() -> str:
        return subprocess.run(["git", "-C", str(opened.forge.path), "for-each-ref"],
                              capture_output=True, text=True, check=True).stdout

    before = refs()
    tok = opened.api.token("bob")["token"]
    zed = "targets/demo/review/candidates/20260102T000009Z-zed.yaml"
    spoil = {"candidates": {"lean": "#eval 1\n"}, "exhibits": {"candidate": zed},
             "attempts": {"candidate": zed}, "tests": {"concept": "nope"},
             "questions": {"raised_by": "targets/demo/nodes/root/META.yaml"}}
    for route, body in _AGENT_ROUTES.items():
        r = _post(opened, f"/reviews/demo/{route}", {**body, **spoil[route]}, tok)
        assert 400 <= r.status_code < 500, (route, r.text)
    for rid in ("DEMO", "demo..", "-demo"):
        r = _post(opened, f"/reviews/{rid}/questions", _AGENT_ROUTES["questions"], tok)
        assert r.json().get("code") == "bad-target-id", r.text
    _as(opened, "erin")
    q = opened.review.paths["question"]  # type: ignore[attr-defined]
    _refused(_post(opened, "/reviews/demo/answers", {"question": q, "answer": "x"}),
             "review-answer-not-intent-signer", 403)
    assert refs() == before
    with db.transaction(opened.api.svc.sessions) as s:
        assert s.query(db.SubmissionRow).count() == 0
    _no_pr(opened)


# === the MCP tools ==========================================================================


def test_mcp_refusals_name_the_tools_arguments(opened: Env) -> None:
    """HOLDS. Attack on the contract: a tool refusal whose ``field`` names the route's
    argument (``review_id``) rather than the tool's (``target_id``) sends an agent to fix
    an argument it does not have. Safe: the field is one of the tool's own arguments (or
    none): ``raised_by``, ``registry.evil``; the review-not-open refusal says
    ``target_id``."""
    gina = opened.api.token("gina")["token"]
    calls = [
        ("file_review_question", {"target_id": "demo", "question": "Q?", "case": "c",
                                  "raised_by": "x/../y", "token": gina}),
        ("submit_candidate", {"target_id": "demo", "lean": G_LEAN, "models": ["m"],
                              "registry": {"name": "FC", "repository": "https://x.org",
                                           "evil": 1}, "origin": "registry",
                              "token": gina}),
        ("get_review", {"target_id": "Bad_Id"}),
        ("submit_candidate", {"target_id": "nope", "lean": G_LEAN, "token": gina}),
    ]
    out = _mcp(opened, calls)
    assert all(err for err, _ in out), out
    assert [b["code"] for _, b in out] == ["invalid-record", "invalid-record",
                                           "bad-target-id", "target-not-found"]
    assert [b["field"] for _, b in out] == ["raised_by", "registry.evil", None, None]
    _no_pr(opened)


def test_mcp_a_too_long_models_list_names_the_tools_argument(opened: Env) -> None:
    """HOLE (contract). Attack: ``submit_candidate`` with ``models`` whose names joined by
    ``, `` pass 200 characters (one long name, or 500 short ones: the tool's schema sets no
    bound on the list, the route 20). The record's ``model`` field is refused, and the
    refusal's ``field`` is ``model``: no argument of the tool or the route is called that,
    so an agent cannot tell what to fix. Safe: the refusal names ``models``.
    Fails now: ``field`` is ``model``."""
    gina = opened.api.token("gina")["token"]
    out = _mcp(opened, [
        ("submit_candidate", {"target_id": "demo", "lean": G_LEAN, "models": ["m" * 300],
                              "token": gina}),
        ("submit_candidate", {"target_id": "demo", "lean": G_LEAN,
                              "models": [f"m{i}" for i in range(500)], "token": gina}),
    ])
    r = _post(opened, "/reviews/demo/candidates", {"lean": G_LEAN, "models": ["m" * 300]},
              gina)
    fields = [b.get("field") for _, b in out] + [r.json().get("field")]
    assert all(err for err, _ in out) and r.status_code == 422
    assert fields == ["models", "models", "models"], fields
    _no_pr(opened)


def test_mcp_a_record_level_refusal_has_no_empty_field(opened: Env) -> None:
    """HOLE (contract). Attack: a body whose fields are each valid but whose combination the
    record's model refuses (an attempt naming neither ``screen`` nor ``other``; an intent
    test ``cited`` without a citation; a person's candidate without ``read_others``). The
    ``invalid-record`` refusal's ``field`` is the empty string: neither ``null`` (no one
    field) nor an argument name. Safe: ``field`` is null or an argument of the tool.
    Fails now: ``field`` is ``""``."""
    gina = opened.api.token("gina")["token"]
    out = _mcp(opened, [
        ("file_review_attempt", {"target_id": "demo", "candidate": C1, "tool": "t",
                                 "budget": "1 s", "token": gina}),
        ("file_review_test", {"target_id": "demo", "concept": "big", "args": ["3"],
                              "source": "cited", "token": gina}),
        ("submit_candidate", {"target_id": "demo", "lean": G_LEAN, "token": gina}),
    ])
    assert [b["code"] for _, b in out] == ["invalid-record"] * 3
    assert all(b["field"] != "" for _, b in out), [b["field"] for _, b in out]
    _no_pr(opened)


def test_mcp_the_person_acts_have_no_tool(opened: Env) -> None:
    """HOLDS. Attack: an agent looks for a tool that answers, signs or opens a review
    (the approval key signs only for a signed-in person). Safe: no such tool; a call is
    ``route-not-found``."""
    from network.api.tools import TOOLS

    assert not {op.path for op in TOOLS} & {"/reviews", "/reviews/{review_id}/answers",
                                            "/reviews/{review_id}/signatures"}
    [(err, body)] = _mcp(opened, [("answer_review_question", {"target_id": "demo"})])
    assert err and body["code"] == "route-not-found"


# === /me =====================================================================================


def test_me_intent_questions_are_the_intent_signers_alone(opened: Env) -> None:
    """HOLDS. Attack: cora (curator of every target) and carol (an author) read /me hoping
    to see the intent signer's waiting questions, or a candidate's Lean; /me without a
    session. Safe: their ``intent_questions`` are empty; no session is
    ``session-missing``."""
    for who in ("cora", "carol"):
        _as(opened, who)
        me = opened.client.get("/me")
        assert me.status_code == 200, me.text
        assert me.json()["waiting"]["intent_questions"] == []
        assert C2_MARK not in me.text
    _as(opened, None)
    _refused(opened.client.get("/me"), "session-missing", 401)


def test_me_an_answered_question_leaves_the_list(tmp_path: Path) -> None:
    """HOLDS. Attack on the notice: an answer filed by someone who is not the intent signer
    (in git, unsigned) must not take a question off the intent signer's /me. Safe: the
    question still waits."""
    def forged(r: Review) -> None:
        _opened(r)
        r.answer(r.paths["question"], by="erin", signed=False)

    for env in _env_of(tmp_path, forged):
        _as(env, "steve")
        items = env.client.get("/me").json()["waiting"]["intent_questions"]
        assert [i["path"] for i in items] == [env.review.paths["question"]]  # type: ignore[attr-defined]

