"""Attacks on the people of the site (issue 13), each written as a test that fails if the
attack succeeds: the web session (cookies, CSRF, Origin, CORS, return_to, the OAuth
state, login case, squatting), and hand-opened pull requests carrying role records the
service would refuse (a role held on one target used on another, replayed or forged
approval-key signatures, records filed for someone else, rewritten or deleted records,
the root shelved, a non-steward's registration). Each attack is fed the input built to
pass the check it aims at and must be refused with its own catalog code.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import select

from network import signing
from network.api import db
from network.api.people import web_session
from network.api.submit.records import dump_yaml, gate_findings
from network.record import models as m
from network.record.read.loader import Graph, load_graph
from network.record.unverified import unverified
from tests.api_support import forge_service
from tests.graphs import BUILDER_APPROVAL_KEY_ID, GraphBuilder, git_commit
from tests.test_api_panel import GLOSS, as_person
from tests.test_web_session import (
    ORIGIN,
    SITE,
    Web,
    _web,
    authorize,
    csrf,
    refused,
    sign_in,
    signed_up,
    site,
    start,
)


@pytest.fixture()
def web(tmp_path: Path) -> Iterator[Web]:
    """tests/test_web_session.py's service, site and GitHub stand-in."""
    yield from _web(tmp_path)


@pytest.fixture()
def panel_env(tmp_path: Path) -> Iterator[Any]:
    """tests/test_api_panel.py's service: demo with stewards steve, sam and sara bound to
    their logins, carol's gloss on its root."""

    from tests.api_support import Api
    from tests.test_api_panel import _build
    from tests.test_api_records import Env

    b = _build(tmp_path / "graph")
    with forge_service(tmp_path / "graph", tmp_path) as (client, app, forge, clock):
        yield Env(Api(client, app, clock, b), forge)


# --- hand-opened pull requests: the gate refuses what the service refuses ----------------

T, O = "demo", "other"
TS = "20260301T000000Z"
DATE = "2026-03-01T00:00:00Z"


@pytest.fixture()
def b(tmp_path: Path) -> GraphBuilder:
    """demo (steward steve) and other (steward olaf), each with root and n1; curator
    ``curator``; owner ``olga``."""
    g = GraphBuilder(tmp_path / "g").base(schema="policy/v2", owner="olga")
    g.target(T)
    g.target(O, steward="olaf")
    for tid in (T, O):
        g.node(tid, "root")
        g.node(tid, "n1")
    return g


def codes(g: Graph, files: dict[str, bytes | None], submitter: str) -> list[str]:
    return [d.code for d in gate_findings(g, files, submitter)]


ROLE = {"role-not-permitted", "role-key-unbound"}


def role_refused(found: list[str]) -> bool:
    """Refused for the role the act rests on (step 1's plan or step 2's signature)."""
    return bool(found) and set(found) <= ROLE


def _motion(b: GraphBuilder, tid: str, who: str, *, signer: str | None = None,
            text: str = "Raise the threshold.") -> dict[str, Any]:
    rec = {"schema": "motion/v1", "target": tid, "kind": "threshold", "text": text,
           "by": who, "date": DATE}
    return b.signed(m.Motion, rec, signer or who)


def _shelving(b: GraphBuilder, who: str, subject: str) -> dict[str, Any]:
    rec = {"schema": "shelving/v1", "subject": subject, "cause": "not now", "by": who,
           "date": DATE}
    return b.signed(m.Shelving, rec, who)


def test_a_steward_of_one_target_cannot_act_on_another(b: GraphBuilder) -> None:
    g = load_graph(b.root)
    mp = f"targets/{O}/panel/motions/{TS}-steve.yaml"
    assert codes(g, {mp: dump_yaml(_motion(b, O, "steve"))}, "steve") == ["motion-not-member"]
    sp = f"targets/{O}/nodes/n1/shelving/{TS}-steve.yaml"
    assert role_refused(codes(g, {sp: dump_yaml(_shelving(b, "steve", "n1"))}, "steve"))
    reg = b.signed(m.Registration, {
        "schema": "registration/v1", "registry": "palomar", "registry_id": "x-1",
        "graph_commit": "a" * 40, "state": "submitted", "by": "steve", "date": DATE}, "steve")
    rp = f"targets/{O}/registrations/2026-03-01-1.yaml"
    assert role_refused(codes(g, {rp: dump_yaml(reg)}, "steve"))
    # and on its own target each is admitted: the refusal is the target's, not the record's
    assert codes(g, {f"targets/{T}/nodes/n1/shelving/{TS}-steve.yaml":
                     dump_yaml(_shelving(b, "steve", "n1"))}, "steve") == []
    assert codes(g, {f"targets/{T}/registrations/2026-03-01-1.yaml": dump_yaml(reg)},
                 "steve") == []


def test_a_registration_by_a_non_steward_is_refused(b: GraphBuilder) -> None:
    g = load_graph(b.root)
    reg = b.signed(m.Registration, {
        "schema": "registration/v1", "registry": "palomar", "registry_id": "x-1",
        "graph_commit": "a" * 40, "state": "registered", "by": "mallory", "date": DATE},
        "mallory")
    rp = f"targets/{T}/registrations/2026-03-01-1.yaml"
    assert role_refused(codes(g, {rp: dump_yaml(reg)}, "mallory"))
    unsigned = {k: v for k, v in reg.items() if k != "signature"}
    assert "role-act-unsigned" in codes(g, {rp: dump_yaml(unsigned)}, "mallory")


def test_a_vote_on_another_targets_motion_is_refused(b: GraphBuilder) -> None:
    mp = f"targets/{O}/panel/motions/20260201T000000Z-olaf.yaml"
    b.write_yaml(mp, _motion(b, O, "olaf"))
    b.merge([mp], date="2026-02-01T00:00:00Z", target=O, node="root", artifact_kind="motion")
    g = load_graph(b.root)
    vote = b.signed(m.Vote, {"schema": "vote/v1", "motion": mp, "vote": "yes", "by": "steve",
                             "date": DATE}, "steve")
    # filed under steve's own target, naming olaf's motion
    assert codes(g, {f"targets/{T}/panel/votes/{TS}-steve.yaml": dump_yaml(vote)},
                 "steve") == ["vote-motion-unknown"]
    # filed under other, where steve sits on no panel
    assert codes(g, {f"targets/{O}/panel/votes/{TS}-steve.yaml": dump_yaml(vote)},
                 "steve") == ["vote-not-member"]


def test_a_forged_approval_key_signature_is_refused(b: GraphBuilder) -> None:
    g = load_graph(b.root)
    body = {"schema": "motion/v1", "target": T, "kind": "threshold", "text": "x", "by": "steve",
            "date": DATE}
    # a key of the attacker's own, under the network approval key's id
    sig = signing.sign(m.Motion.model_validate(body), Ed25519PrivateKey.generate(),
                       "approval", BUILDER_APPROVAL_KEY_ID, "steve")
    rec = {**body, "signature": sig.model_dump()}
    mp = f"targets/{T}/panel/motions/{TS}-steve.yaml"
    assert codes(g, {mp: dump_yaml(rec)}, "steve") == ["role-signature-invalid"]
    # the gate key is no role's key, even over the right body
    gated = b.signed(m.Motion, body, "steve", kind="gate")
    assert codes(g, {mp: dump_yaml(gated)}, "steve") == ["role-key-unbound"]


def test_an_approval_signature_replayed_onto_another_record_is_refused(
        b: GraphBuilder) -> None:
    g = load_graph(b.root)
    mp = f"targets/{T}/panel/motions/{TS}-steve.yaml"
    signed = _motion(b, T, "steve")
    assert codes(g, {mp: dump_yaml(signed)}, "steve") == []
    # the same signature over another body (text, kind or target changed)
    for change in ({"text": "Lower the threshold."}, {"kind": "significance"}):
        assert codes(g, {mp: dump_yaml({**signed, **change})}, "steve") == \
            ["role-signature-invalid"], change
    moved = {**_motion(b, T, "olaf")}
    assert codes(g, {f"targets/{O}/panel/motions/{TS}-olaf.yaml": dump_yaml(moved)},
                 "olaf") == ["motion-subject-invalid"]  # demo's motion filed under other
    # steve's signed shelving of demo/n1 carried by another's pull request
    shelf = _shelving(b, "steve", "n1")
    assert "actor-not-submitter" in codes(
        g, {f"targets/{T}/nodes/n1/shelving/{TS}-olaf.yaml": dump_yaml(shelf)}, "olaf")
    # the same signature with another signer named in the envelope
    resigned = {**shelf, "by": "olaf", "signature": {**shelf["signature"], "signer": "olaf"}}
    assert codes(g, {f"targets/{O}/nodes/n1/shelving/{TS}-olaf.yaml": dump_yaml(resigned)},
                 "olaf") == ["role-signature-invalid"]


def test_a_hand_opened_shelving_of_the_root_or_of_another_nodes_subject_is_refused(
        b: GraphBuilder) -> None:
    g = load_graph(b.root)
    root = f"targets/{T}/nodes/root/shelving/{TS}-steve.yaml"
    assert codes(g, {root: dump_yaml(_shelving(b, "steve", "root"))}, "steve") == \
        ["shelving-root"]
    # filed under n1, naming the root (the subject is keyed alone by derive)
    under = f"targets/{T}/nodes/n1/shelving/{TS}-steve.yaml"
    assert codes(g, {under: dump_yaml(_shelving(b, "steve", "root"))}, "steve") == \
        ["shelving-subject-foreign"]
    foreign = _shelving(b, "steve", f"targets/{O}/nodes/n1/attempts/{TS}-olaf-partial.lean")
    assert "shelving-subject-foreign" in codes(g, {under: dump_yaml(foreign)}, "steve")


def test_role_records_are_never_rewritten_deleted_or_added_outside_their_place(
        b: GraphBuilder) -> None:
    b.write_yaml("names/steve.yaml", b.signed(m.DisplayName, {
        "schema": "display-name/v1", "pseudonym": "steve", "name": "Steve S.",
        "date": "2026-02-01T00:00:00Z"}, "steve"))
    git_commit(b.root, "graph")
    g = load_graph(b.root)
    steward = f"targets/{T}/stewards/steve.yaml"
    # the steward record rewritten (olaf's name in it) or deleted by hand
    rewritten = b.read(steward).replace(b"steve", b"olaf")
    assert "record-deleted" in codes(g, {steward: rewritten}, "olaf")
    assert codes(g, {steward: None}, "steve") == ["record-deleted"]
    # policy.json's owner changed, a key of one's own published, curators.json deleted
    import json

    pol = json.loads(b.read("policy.json"))
    assert "path-not-permitted" in codes(
        g, {"policy.json": json.dumps({**pol, "owner": "mallory"}).encode()}, "mallory")
    key = signing.public_key_record(Ed25519PrivateKey.generate(), "mallory-approval",
                                    "approval", "2026-01-01")
    assert "path-not-permitted" in codes(g, {"keys/mallory-approval.json": json.dumps(
        key.model_dump(mode="json", by_alias=True, exclude_none=True)).encode()}, "mallory")
    assert codes(g, {"curators.json": None}, "mallory") != []
    # steve's signed display name replayed: under mallory's name, or over steve's by mallory
    name = b.read("names/steve.yaml")
    assert "actor-not-submitter" in codes(g, {"names/mallory.yaml": name}, "mallory")
    other = b.signed(m.DisplayName, {"schema": "display-name/v1", "pseudonym": "steve",
                                     "name": "Mallory", "date": DATE}, "steve")
    assert "actor-not-submitter" in codes(g, {"names/steve.yaml": dump_yaml(other)},
                                          "mallory")
    assert codes(g, {"names/steve.yaml": None}, "steve") == ["record-deleted"]


def test_an_invitation_is_accepted_only_by_its_invitee(b: GraphBuilder) -> None:
    mp = f"targets/{T}/panel/motions/20260110T000000Z-steve.yaml"
    b.write_yaml(mp, b.signed(m.Motion, {
        "schema": "motion/v1", "target": T, "kind": "invite", "text": "Invite eve.",
        "invitee": "eve", "by": "steve", "date": "2026-01-10T00:00:00Z"}, "steve"))
    g = load_graph(b.root)

    def accept(who: str, signer: str | None = None) -> dict[str, Any]:
        return b.signed(m.StewardAct, {
            "schema": "steward/v4", "pseudonym": who, "target": T, "action": "join",
            "date": DATE, "real_name": f"Real {who}", "commitment": "Read it.",
            "admitted_by": "panel", "invitation": mp}, signer or who)

    path = f"targets/{T}/steward-acts/{TS}-%s.yaml"
    assert codes(g, {path % "eve": dump_yaml(accept("eve"))}, "eve") == []
    assert codes(g, {path % "mallory": dump_yaml(accept("mallory"))}, "mallory") == \
        ["steward-invitation-unknown"]
    # eve's own acceptance, carried by mallory
    assert "steward-act-not-own" in codes(g, {path % "mallory": dump_yaml(accept("eve"))},
                                          "mallory")
    # the invitation of demo used on other
    moved = {**accept("eve"), "target": O}
    assert codes(g, {f"targets/{O}/steward-acts/{TS}-eve.yaml": dump_yaml(
        b.signed(m.StewardAct, moved, "eve"))}, "eve") != []


# --- the web session ------------------------------------------------------------------------


def test_a_login_in_another_case_is_the_same_identity_never_a_second(web: Web) -> None:
    signed_up(web, "alice", "alice")
    for login in ("ALICE", "Alice"):
        other = web.browser()
        assert sign_in(web, login, other).status_code == 302
        assert other.get("/session", headers=ORIGIN).json()["pseudonym"] == "alice"
        refused(other.post("/session/pseudonym", json={"pseudonym": f"x{login}", "dco": "1.1"},
                           headers=site(other)), "github-login-bound")
    with web.svc.sessions() as s:
        assert [i.pseudonym for i in s.execute(select(db.IdentityRow)).scalars()] == ["alice"]


@pytest.mark.parametrize("return_to", [
    "https://site.test%40evil.example/", "https://site.test:443@evil.example/",
    "https:/\\evil.example/", "https:evil.example/", "\\\\evil.example/",
    "https://evil.example#https://site.test/", "https://site.test\t.evil.example/",
    "https://site.test\n/", " https://site.test/", "https://site.test%2f%2fevil.example/",
    "data:text/html,https://site.test/", "https://site.test:0/", "https://site.test:99999/",
    "https://[::1]/", "https://site.test\u3002evil.example/", "ftp://site.test/",
    "https://user:pw@site.test/"])
def test_more_return_to_tricks_are_refused(web: Web, return_to: str) -> None:
    refused(start(web.client, return_to), "return-to-refused")


@pytest.mark.parametrize("origin", [
    "https://site.test, https://evil.example", " https://site.test", "https://site.test.",
    "https://SITE.test.evil.example", "https://site.test@evil.example",
    "https://evil.example/https://site.test", "file://", "https://site.test:8443",
    "http://site.test:443"])
def test_origin_look_alikes_are_refused(web: Web, origin: str) -> None:
    signed_up(web)
    refused(web.client.post("/test/whoami", headers={"Origin": origin,
                                                     "X-CSRF-Token": csrf(web.client)}),
            "session-cross-origin")


@pytest.mark.parametrize("origin", ["https://evil.example", "null", f"{SITE}/",
                                    "http://site.test", "https://site.test:8443"])
def test_a_preflight_from_another_origin_gets_no_cors_grant(web: Web, origin: str) -> None:
    pre = {"Origin": origin, "Access-Control-Request-Method": "POST",
           "Access-Control-Request-Headers": "content-type,x-csrf-token"}
    for path in ("/stewards", "/proof-reviews", "/votes", "/session/pseudonym", "/session",
                 "/me", "/shelvings", "/pertinence-signatures"):
        r = web.client.options(path, headers=pre)
        assert "access-control-allow-origin" not in r.headers, (path, r.headers)
        got = web.client.get(path, headers={"Origin": origin})
        assert "access-control-allow-origin" not in got.headers, (path, got.headers)


def test_a_csrf_token_of_another_persons_session_is_refused(web: Web) -> None:
    signed_up(web, "alice", "alice")
    bob = web.browser()
    assert sign_in(web, "bob", bob).status_code == 302
    assert bob.post("/session/pseudonym", json={"pseudonym": "bob", "dco": "1.1"},
                    headers=site(bob)).status_code == 200
    theirs = csrf(bob)
    refused(web.client.post("/test/whoami", headers={**ORIGIN, "X-CSRF-Token": theirs}),
            "csrf-missing")
    # and the token still works once, for its own session: it was not spent by the refusal
    assert bob.post("/test/whoami", headers={**ORIGIN, "X-CSRF-Token": theirs}).json()[
        "pseudonym"] == "bob"


def test_an_ended_session_and_its_tokens_stay_dead(web: Web) -> None:
    signed_up(web)
    old_cookie = web.client.cookies.get(web_session.COOKIE)
    spare = csrf(web.client)
    assert web.client.post("/session/end", headers=site(web.client)).status_code == 200
    web.client.cookies.set(web_session.COOKIE, old_cookie)  # the cookie kept by hand
    refused(web.client.post("/test/whoami", headers={**ORIGIN, "X-CSRF-Token": spare}),
            "session-invalid")
    assert web.client.get("/session", headers=ORIGIN).json() == {"signed_in": False}
    web.client.cookies.clear()
    assert sign_in(web, "alice").status_code == 302  # a new session: the old token is not its
    refused(web.client.post("/test/whoami", headers={**ORIGIN, "X-CSRF-Token": spare}),
            "csrf-missing")


def test_a_callback_with_an_error_spends_its_state(web: Web) -> None:
    r = start(web.client)
    url = httpx.URL(authorize(r.headers["location"]))
    state = url.params["state"]
    base = str(url).split("?")[0]
    refused(web.client.get(base, params={"state": state, "error": "access_denied"},
                           follow_redirects=False), "oauth-denied")
    # the same state again, now with the real code: spent
    refused(web.client.get(str(url), follow_redirects=False), "oauth-state-invalid")
    # error and code together are a denial, never a session
    r = start(web.client)
    url = httpx.URL(authorize(r.headers["location"]))
    refused(web.client.get(str(url.copy_merge_params({"error": "access_denied"})),
                           follow_redirects=False), "oauth-denied")
    with web.svc.sessions() as s:
        assert s.execute(select(db.WebSessionRow)).first() is None


@pytest.mark.parametrize("pseudonym", ["STEVE", "Steve", "st\u0435ve", "steve\u200b",
                                       "ste\u0301ve"])
def test_a_look_alike_of_a_role_pseudonym_is_refused(web: Web, pseudonym: str) -> None:
    """``steve`` stewards the demo target in the graph, bound to no login."""
    assert sign_in(web, "mallory").status_code == 302
    r = web.client.post("/session/pseudonym", json={"pseudonym": pseudonym, "dco": "1.1"},
                        headers=site(web.client))
    assert r.json().get("code") in {"pseudonym-reserved", "pseudonym-confusable",
                                    "pseudonym-invalid"}, (pseudonym, r.text)
    with web.svc.sessions() as s:
        assert s.execute(select(db.IdentityRow)).first() is None


def test_a_read_with_a_foreign_origin_is_refused(web: Web) -> None:
    signed_up(web)
    refused(web.client.get("/me", headers={"Origin": "https://evil.example"}),
            "session-cross-origin")


# --- the person routes -------------------------------------------------------------------



ROUTES: list[tuple[str, dict[str, Any]]] = [
    ("/stewards", {"target_id": "demo", "action": "join", "real_name": "S",
                   "commitment": "c"}),
    ("/proof-reviews", {"pull_request": 1, "decision": "approve"}),
    ("/approvals", {"words": GLOSS, "sections": [0]}),
    ("/motions", {"target_id": "demo", "kind": "threshold", "text": "t"}),
    ("/votes", {"motion": "targets/demo/panel/motions/20260101T000000Z-steve.yaml",
                "vote": "yes"}),
    ("/writeups", {"target_id": "demo", "stage": "drafted"}),
    ("/literature/confirm", {"literature": "targets/demo/nodes/root/literature/x.yaml",
                             "action": "confirm"}),
    ("/shelvings", {"target_id": "demo", "node_id": "root", "action": "shelved",
                    "scope": "root", "cause": "c"}),
    ("/registrations", {"target_id": "demo", "registry_id": "x", "wrapper_commit": "a" * 40,
                        "graph_commit": "a" * 40}),
    ("/pertinence-signatures", {"target_id": "demo", "node_id": "root"}),
    ("/me/name", {"name": "Sam"}),
    # a curator's acts (issue 40)
    ("/status-records", {"target_id": "demo", "declaration": "known-result",
                         "reasoning": "r"}),
    ("/withdrawals", {"record": "targets/demo/status/2026-01-01-1.yaml", "reason": "r"}),
    ("/corrections", {"line": "ledger/000001-1.json", "reason": "r"}),
]


@pytest.mark.parametrize(("path", "body"), ROUTES)
@pytest.mark.parametrize("field", ["by", "pseudonym", "author", "signer", "curator",
                                   "steward", "signature", "who"])
def test_no_person_route_takes_a_body_field_naming_an_actor(
        panel_env: Any, path: str, body: dict[str, Any], field: str) -> None:
    as_person(panel_env, "steve")
    r = panel_env.client.post(path, json={**body, field: "sam"})
    if path == "/stewards" and field == "steward":
        # the one body field naming another: a curator's `admit` alone takes it (issue 13);
        # on a join it is refused with its own code
        refused(r, "steward-admit-unnamed")
    else:
        refused(r, "bad-request")
        # refused for the actor field itself, not for a body short of something else
        assert r.json()["detail"] == f"body.{field}: Extra inputs are not permitted", r.text
    assert panel_env.prs() == []


@pytest.mark.parametrize(("path", "body", "code"), [
    ("/shelvings", {"target_id": "demo", "node_id": "root", "action": "shelved",
                    "scope": "root", "cause": "c"},
     "role-not-permitted"),
    ("/registrations", {"target_id": "demo", "registry_id": "x", "wrapper_commit": "a" * 40,
                        "graph_commit": "a" * 40}, "role-not-permitted"),
    ("/pertinence-signatures", {"target_id": "demo", "node_id": "root"}, "role-not-permitted"),
    ("/motions", {"target_id": "demo", "kind": "threshold", "text": "t"}, "motion-not-member"),
    ("/approvals", {"words": GLOSS, "sections": [0]}, "role-not-permitted"),
    ("/stewards", {"target_id": "demo", "action": "step-down"}, "steward-not-in-force"),
    ("/stewards", {"target_id": "demo", "action": "join", "real_name": "M", "commitment": "c"},
     "steward-invitation-required"),
])
def test_a_non_steward_is_refused_every_steward_act_before_a_pull_request(
        panel_env: Any, path: str, body: dict[str, Any], code: str) -> None:
    as_person(panel_env, "mallory")
    r = panel_env.client.post(path, json=body)
    refused(r, code)
    assert panel_env.prs() == []


# --- races through the merge queue --------------------------------------------------------


@pytest.fixture()
def race(tmp_path: Path) -> Any:
    """t1 and t2 (open problems with no steward, a cap of one stewardship each) over a
    LocalForge; sam and tess bound to their logins."""
    import pygit2
    from fastapi.testclient import TestClient

    from network.api.app import create_app
    from network.api.graphs import GraphProvider
    from network.api.settings import ServiceSettings
    from network.forge.local import LocalForge
    from network.record.products.products import write_products
    from tests.api_support import FakeClock, github_verifier
    from tests.graphs import BUILDER_APPROVAL_KEY

    root = tmp_path / "graph"
    g = GraphBuilder(root).base(schema="policy/v2", owner="olga", steward_cap=1)
    for tid in ("t1", "t2"):
        g.target(tid, steward=None)
        g.node(tid, "root")
        g.node(tid, "n1")
    for who in ("sam", "tess"):
        g.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                                 "github": who, "since": "2026-01-01"})
    write_products(load_graph(root), root)
    git_commit(root, "graph")
    forge_path = tmp_path / "forge.git"
    LocalForge.seed(forge_path, root, when=1_790_000_000)

    def version() -> str:
        return str(pygit2.Repository(str(forge_path)).references["refs/heads/main"].target)

    clock = FakeClock()
    app = create_app(ServiceSettings(data_dir=tmp_path / "data", graph=forge_path),
                     graph_loader=GraphProvider(
                         lambda: load_graph(forge_path, "refs/heads/main"), version),
                     github_verifier=github_verifier, clock=clock,
                     keys={"approval": (BUILDER_APPROVAL_KEY_ID, BUILDER_APPROVAL_KEY)})
    with TestClient(app) as client:
        svc = app.state.svc
        svc.forge = LocalForge(forge_path, svc.sessions, clock=clock)
        yield {"client": client, "app": app, "forge": svc.forge, "path": forge_path,
               "clock": clock}


def _as(race: Any, who: str) -> None:
    from network.api.service import Caller, authenticate

    r = race["client"].post("/tokens", json={"pseudonym": who, "dco": "1.1", "proof": {
        "kind": "github", "token": f"gh-{who}"}})
    assert r.status_code in (200, 201), r.text
    person = web_session.Person(caller=Caller(token=None, address="t", who=authenticate(
        race["app"].state.svc, r.json()["token"])), login=who)
    race["app"].dependency_overrides[web_session.person] = lambda: person


def _queue(race: Any) -> dict[int, Any]:
    from network.gate.queue.queue import process_queue
    from network.gate.sandbox.sandbox import Sandbox
    from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID
    from tests.standin import RecordedToolchain

    items = process_queue(race["forge"], toolchain=RecordedToolchain, sandbox=Sandbox(),
                          gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)
    return {i.number: i for i in items}


JOIN = {"action": "join", "real_name": "Real Name", "commitment": "I will read it."}


def test_two_joins_opened_at_once_cannot_pass_the_cap_or_admission_together(
        race: Any) -> None:
    from network.record import derive

    c = race["client"]
    _as(race, "sam")
    a = c.post("/stewards", json={"target_id": "t1", **JOIN})
    b2 = c.post("/stewards", json={"target_id": "t2", **JOIN})  # a second stewardship
    _as(race, "tess")
    t = c.post("/stewards", json={"target_id": "t1", **JOIN})  # a second self-join on t1
    assert [r.status_code for r in (a, b2, t)] == [201, 201, 201], (a.text, b2.text, t.text)
    done = _queue(race)
    merged = {n for n, i in done.items() if i.merge_sha}
    assert merged == {int(a.json()["pull_request"])}, {n: (i.verdict, i.outcome)
                                                       for n, i in done.items()}
    main = load_graph(race["path"], "refs/heads/main")
    assert derive.stewards_of(main, "t1") == ["sam"]
    assert derive.stewards_of(main, "t2") == []


def test_a_stepped_down_steward_acts_no_more(race: Any) -> None:
    c = race["client"]
    _as(race, "sam")
    assert c.post("/stewards", json={"target_id": "t1", **JOIN}).status_code == 201
    _queue(race)
    race["clock"].advance(3600)
    shelve = {"target_id": "t1", "node_id": "n1", "action": "shelved", "scope": "n1",
              "cause": "not now"}
    r = c.post("/stewards", json={"target_id": "t1", "action": "step-down"})
    assert r.status_code == 201, r.text
    assert any(i.merge_sha for i in _queue(race).values())
    race["clock"].advance(3600)
    refused(c.post("/shelvings", json=shelve), "role-not-permitted")
    refused(c.post("/motions", json={"target_id": "t1", "kind": "threshold", "text": "t"}),
            "motion-not-member")
    refused(c.post("/stewards", json={"target_id": "t1", "action": "step-down"}),
            "steward-not-in-force")


def test_a_motion_does_not_pass_on_forged_foreign_or_strangers_votes(b: GraphBuilder) -> None:
    from network.record import panel

    b.steward(T, "sam")
    b.steward(T, "sara")
    mp = f"targets/{T}/panel/motions/20260201T000000Z-steve.yaml"
    b.write_yaml(mp, b.signed(m.Motion, {
        "schema": "motion/v1", "target": T, "kind": "threshold", "text": "t", "by": "steve",
        "date": "2026-02-01T00:00:00Z"}, "steve"))
    b.merge([mp], date="2026-02-01T00:00:00Z", target=T, node="root", artifact_kind="motion")
    attacker = Ed25519PrivateKey.generate()

    def cast(tid: str, who: str, ts: str, *, forged: bool = False) -> str:
        body = {"schema": "vote/v1", "motion": mp, "vote": "yes", "by": who,
                "date": f"2026-02-0{ts[7]}T00:00:00Z"}
        if forged:
            sig = signing.sign(m.Vote.model_validate(body), attacker, "approval",
                               BUILDER_APPROVAL_KEY_ID, who)
            rec = {**body, "signature": sig.model_dump()}
        else:
            rec = b.signed(m.Vote, body, who)
        path = f"targets/{tid}/panel/votes/{ts}-{who}.yaml"
        b.write_yaml(path, rec)
        b.merge([path], date=body["date"], target=tid, node="root", artifact_kind="vote")
        return path

    cast(T, "sam", "20260202T000000Z", forged=True)
    cast(T, "sara", "20260203T000000Z", forged=True)
    cast(T, "mallory", "20260204T000000Z")  # signed, but on no panel
    cast(O, "olaf", "20260205T000000Z")  # another target's steward, filed under his own
    b.merge_record([mp], "2026-03-01T00:00:00Z")  # the window closes
    g = load_graph(b.root)
    st = panel.motion_state(g, T, mp)
    assert st is not None and st["yes"] == 0 and st["state"] == "failed", st
    assert not panel.motion_passed(g, T, mp)
    forged = [v["path"] for v in st["votes"] if v["by"] in ("sam", "sara")]
    assert forged and all(p in unverified(g) for p in forged)


def test_hand_opened_pull_requests_carrying_refused_records_never_merge(race: Any) -> None:
    """The records the service refuses, opened by hand on the forge (plain git, no
    service), signed as the service would sign them: the queue closes each with the gate's
    own code and main keeps none of them."""
    import json

    from network.record import derive

    c, forge = race["client"], race["forge"]
    _as(race, "sam")
    assert c.post("/stewards", json={"target_id": "t1", **JOIN}).status_code == 201
    _queue(race)
    g = GraphBuilder(Path(race["path"]).parent / "scratch")  # a signer, not a graph
    date = "2026-09-25T00:00:00Z"
    shelf = g.signed(m.Shelving, {"schema": "shelving/v1", "subject": "root", "cause": "c",
                                  "by": "sam", "date": date}, "sam")
    binding = g.signed(m.Identity, {"schema": "identity/v1", "pseudonym": "trudy",
                                    "github": "SAM", "since": "2026-09-25"}, "trudy")
    reg = g.signed(m.Registration, {
        "schema": "registration/v1", "registry": "palomar", "registry_id": "x",
        "graph_commit": "a" * 40, "state": "registered", "by": "tess", "date": date}, "tess")
    cur = g.signed(m.CuratorsV2, {"schema": "curators/v2", "date": date, "curators": [
        {"pseudonym": "curator", "targets": ["*"]}, {"pseudonym": "sam", "targets": ["*"]}]},
        "sam")
    name = g.signed(m.DisplayName, {"schema": "display-name/v1", "pseudonym": "sam",
                                    "name": "Not Sam", "date": date}, "sam")
    join = g.signed(m.StewardAct, {
        "schema": "steward/v4", "pseudonym": "tess", "target": "t1", "action": "join",
        "date": date, "real_name": "T", "commitment": "c", "admitted_by": "self"}, "tess")
    cases = {
        "shelving-root": ("sam", {"targets/t1/nodes/root/shelving/20260925T000000Z-sam.yaml":
                                  dump_yaml(shelf)}),
        "identity-login-bound": ("trudy", {"identities/trudy.yaml": dump_yaml(binding)}),
        "role-not-permitted": ("tess", {"targets/t1/registrations/2026-09-25-1.yaml":
                                        dump_yaml(reg)}),
        "curators-not-owner-signed": ("sam", {"curators.json": (json.dumps(
            cur, indent=2) + "\n").encode()}),
        "actor-not-submitter": ("tess", {"names/sam.yaml": dump_yaml(name)}),
        "steward-invitation-required": ("tess", {
            "targets/t1/steward-acts/20260925T000000Z-tess.yaml": dump_yaml(join)}),
    }
    opened = {code: forge.open_pull_request(files=files, title=code, body="by hand",
                                            author=who).number
              for code, (who, files) in cases.items()}
    done = _queue(race)
    for code, number in opened.items():
        pr = forge.get(number)
        assert pr.state == "closed" and not done[number].merge_sha, (code, pr)
        assert pr.close_code == code, (code, pr.close_code, pr.close_detail)
    main = load_graph(race["path"], "refs/heads/main")
    assert derive.stewards_of(main, "t1") == ["sam"]
    assert "trudy" not in main.identities and "sam" not in {
        c.pseudonym for c in main.curators.curators}


def test_a_binding_of_a_pseudonym_differing_only_in_case_is_refused(tmp_path: Path) -> None:
    """``identities/Pat.yaml`` beside ``identities/pat.yaml``: pseudonyms compare without
    case (the service's key, a review's same_person, the role binding read by
    network/api/identity/pseudonyms.py), so a second login under the same name must not land, even
    signed by the approval key (the service refuses it as pseudonym-reserved)."""
    b = GraphBuilder(tmp_path / "g").base()
    b.target(T)
    b.node(T, "root")
    b.write_yaml("identities/pat.yaml", b.signed(m.Identity, {
        "schema": "identity/v1", "pseudonym": "pat", "github": "pat",
        "since": "2026-01-01"}, "pat"))
    git_commit(b.root, "graph")
    g = load_graph(b.root)
    for name in ("Pat", "PAT"):
        rec = b.signed(m.Identity, {"schema": "identity/v1", "pseudonym": name,
                                    "github": "mallory", "since": "2026-09-01"}, name)
        assert codes(g, {f"identities/{name}.yaml": dump_yaml(rec)}, name) == \
            ["identity-pseudonym-taken"], name
    free = b.signed(m.Identity, {"schema": "identity/v1", "pseudonym": "patty",
                                 "github": "mallory", "since": "2026-09-01"}, "patty")
    assert codes(g, {"identities/patty.yaml": dump_yaml(free)}, "patty") == []


def test_a_bearer_token_is_no_person(web: Web) -> None:
    """An agent's token on a person route: only a person holds these roles (D-35)."""
    tok = web.client.post("/tokens", json={"pseudonym": "agent", "dco": "1.1", "proof": {
        "kind": "github", "token": "gh-agent"}}).json()["token"]
    for path, body in ROUTES:
        if path == "/me/name":  # a name is any identity's own act (D-3 v3.37): bearer too
            continue
        r = web.browser().post(path, json=body, headers={"Authorization": f"Bearer {tok}",
                                                         **ORIGIN})
        refused(r, "session-missing")
    assert web.forge.list_all() == []


def test_a_words_write_on_a_session_needs_the_site_and_a_csrf_token(web: Web) -> None:
    signed_up(web)
    body = {"target_id": "demo", "node_id": "root", "text": "It holds.", "kind": "gloss"}
    refused(web.client.post("/glosses", json=body, headers=ORIGIN), "csrf-missing")
    refused(web.client.post("/glosses", json=body, headers={
        "Origin": "https://evil.example", "X-CSRF-Token": csrf(web.client)}),
        "session-cross-origin")
    refused(web.client.post("/glosses/withdrawals", json={"gloss": "x"}, headers={
        "X-CSRF-Token": csrf(web.client)}), "session-cross-origin")


def test_an_identity_behind_the_current_dco_cannot_act_on_its_session(web: Web) -> None:
    from sqlalchemy import update

    signed_up(web)
    with db.transaction(web.svc.sessions) as s:
        s.execute(update(db.IdentityRow).values(dco_version="1.0"))
    before = len(web.forge.list_all())
    for path, body in (("/me/name", {"name": "Alice A."}),
                       ("/stewards", {"target_id": "lonely", "action": "join",
                                      "real_name": "A", "commitment": "c"})):
        refused(web.client.post(path, json=body, headers=site(web.client)),
                "dco-not-accepted")
    assert len(web.forge.list_all()) == before


def test_a_lapsed_steward_or_a_curator_of_another_target_holds_no_role(
        tmp_path: Path) -> None:
    b = GraphBuilder(tmp_path / "g").base(schema="policy/v2", owner="olga")
    b.curators([{"pseudonym": "curator", "targets": ["*"]},
                {"pseudonym": "cora", "targets": [O]}])
    for tid in (T, O, "t3"):
        b.target(tid, steward=None)
        b.node(tid, "root")
        b.node(tid, "n1")
    join = b.signed(m.StewardAct, {
        "schema": "steward/v4", "pseudonym": "sam", "target": T, "action": "join",
        "date": "2026-02-01T00:00:00Z", "real_name": "S", "commitment": "c",
        "admitted_by": "self"}, "sam")
    path = b.write_yaml(f"targets/{T}/steward-acts/20260201T000000Z-sam.yaml", join)
    b.merge([path], date="2026-02-01T00:00:00Z")
    later = b.proof("t3", "root")
    b.merge([later], date="2026-08-02T00:00:00Z")  # six months on, by the merge log
    g = load_graph(b.root)
    shelf = b.signed(m.Shelving, {"schema": "shelving/v1", "subject": "n1", "cause": "c",
                                  "by": "sam", "date": "2026-08-03T00:00:00Z"}, "sam")
    found = codes(g, {f"targets/{T}/nodes/n1/shelving/20260803T000000Z-sam.yaml":
                      dump_yaml(shelf)}, "sam")
    assert role_refused(found), found
    # backdated to when sam still stood: judged on the base's date too
    old = b.signed(m.Shelving, {"schema": "shelving/v1", "subject": "n1", "cause": "c",
                                "by": "sam", "date": "2026-03-01T00:00:00Z"}, "sam")
    found = codes(g, {f"targets/{T}/nodes/n1/shelving/20260301T000000Z-sam.yaml":
                      dump_yaml(old)}, "sam")
    assert role_refused(found), found
    cora = b.signed(m.Shelving, {"schema": "shelving/v1", "subject": "n1", "cause": "c",
                                 "by": "cora", "date": "2026-08-03T00:00:00Z"}, "cora")
    found = codes(g, {f"targets/{T}/nodes/n1/shelving/20260803T000000Z-cora.yaml":
                      dump_yaml(cora)}, "cora")
    assert role_refused(found), found
    assert codes(g, {f"targets/{O}/nodes/n1/shelving/20260803T000000Z-cora.yaml":
                     dump_yaml(cora)}, "cora") == []


def test_the_owners_pseudonym_is_a_role_no_other_login_may_take(race: Any) -> None:
    """policy.json names ``olga`` the owner, whose signature alone changes curators.json
    (D-22 v3.33): her pseudonym is worth squatting like a curator's or a steward's."""
    from network.api.identity import pseudonyms

    c = race["client"]
    for name in ("olga", "Olga"):
        r = c.post("/tokens", json={"pseudonym": name, "dco": "1.1", "proof": {
            "kind": "github", "token": "gh-mallory"}})
        assert r.json().get("code") in {"pseudonym-reserved", "pseudonym-confusable"}, r.text
    graph = race["app"].state.svc.graphs.snapshot().graph
    assert "owner" in pseudonyms.role_holders(graph)["olga"].roles


def test_the_site_reaches_every_route_a_session_may_take(web: Web) -> None:
    """POST /me/name and POST /literature take a bearer token or a web session: the site's
    script (another origin than the service) must get their CORS grant, and the session
    path keeps every check of a person route."""
    pre = {"Origin": SITE, "Access-Control-Request-Method": "POST",
           "Access-Control-Request-Headers": "content-type,x-csrf-token"}
    for path in ("/me/name", "/literature"):
        r = web.client.options(path, headers=pre)
        assert r.status_code == 204 and r.headers.get("access-control-allow-origin") == SITE, \
            (path, r.status_code, r.headers)
        r = web.client.options(path, headers={**pre, "Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in r.headers
    signed_up(web)
    refused(web.client.post("/me/name", json={"name": "A"}, headers=ORIGIN), "csrf-missing")
    refused(web.client.post("/me/name", json={"name": "A"}, headers={
        "Origin": "https://evil.example", "X-CSRF-Token": csrf(web.client)}),
        "session-cross-origin")
    r = web.client.post("/me/name", json={"name": "Alice A."}, headers=site(web.client))
    assert r.status_code == 201, r.text
    assert r.headers.get("access-control-allow-origin") == SITE
