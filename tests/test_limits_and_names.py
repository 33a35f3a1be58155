"""Limits that count failures and never block success, one name rule, one credential per
request, and a contract that says what it refuses (issue 39, parts 3 and 4).

The in-process service of tests/api_support.py (graph: target ``demo`` with steward
``steve``); bounded loops, no timing asserted.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from fastapi.testclient import TestClient

from network.api.deps import client_address
from network.api.identity import confusables
from network.api.service import Caller, authenticate, rate_count, sha256_hex
from network.cli import main
from network.errors import LemmataError
from tests.api_support import Api, auth, make_api

CLAIM = {"target": "demo", "node": "root"}


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    yield from make_api(tmp_path)


def _code(r: Any) -> str:
    return str(r.json().get("code"))


# --- the invalid-token limiter counts failures only ---------------------------------------


def test_a_valid_token_after_700_bad_ones_from_the_same_address_claims(api: Api) -> None:
    good = api.token("alice")["token"]
    codes = [api.client.post("/claims", json=CLAIM, headers=auth(f"lmt_guess{i}")).status_code
             for i in range(700)]
    limit = api.svc.settings.rate_auth_failures_per_address
    assert set(codes[:limit]) == {401} and set(codes[limit:]) == {429}
    r = api.client.post("/claims", json=CLAIM, headers=auth(good))
    assert r.status_code == 201, r.text
    assert api.client.get("/claims/mine", headers=auth(good)).status_code == 200
    assert api.client.post("/claims", json=CLAIM,
                           headers=auth("lmt_still_bad")).status_code == 429


def test_a_valid_token_passes_past_the_limit_over_mcp_callers_too(api: Api) -> None:
    good = api.token("alice")["token"]
    caller = Caller(token="bad", address="mcp-client")
    limit = api.svc.settings.rate_auth_failures_per_address
    for _ in range(limit + 3):
        with pytest.raises(LemmataError):
            authenticate(api.svc, caller.token, caller.address_hash)
    assert authenticate(api.svc, good, caller.address_hash).pseudonym == "alice"


def test_one_bad_token_from_many_addresses_meets_the_prefix_limit(api: Api) -> None:
    """A token's failures count against its prefix whatever address sends it; a good
    token from the same fresh address still passes."""
    good = api.token("alice")["token"]
    limit = api.svc.settings.rate_auth_failures_per_address
    codes = []
    for i in range(limit + 1):
        c = TestClient(api.app, client=(f"198.51.100.{i % 250 + 1}", 1000 + i))
        codes.append(c.post("/claims", json=CLAIM, headers=auth("lmt_leaked_and_retired"))
                     .status_code)
    assert codes[-1] == 429 and set(codes[:-1]) == {401}, codes[-3:]
    fresh = TestClient(api.app, client=("203.0.113.9", 1))
    assert fresh.post("/claims", json=CLAIM, headers=auth(good)).status_code == 201
    key = f"token-prefix:{sha256_hex('lmt_leaked_and_retired'[:12])}:auth-failures"
    assert rate_count(api.svc, key) == limit + 1


def test_x_forwarded_for_from_an_untrusted_peer_is_ignored(api: Api) -> None:
    """With no trusted proxy (the default) a rotating X-Forwarded-For changes nothing: the
    peer's address is the one counted and limited."""
    limit = api.svc.settings.rate_auth_failures_per_address
    codes = [api.client.post("/claims", json=CLAIM, headers={
        **auth(f"lmt_bad{i}"), "X-Forwarded-For": f"192.0.2.{i % 250 + 1}"}).status_code
        for i in range(limit + 1)]
    assert codes[-1] == 429
    assert rate_count(api.svc, f"address:{sha256_hex('testclient')}:auth-failures") == limit + 1
    assert rate_count(api.svc, f"address:{sha256_hex('192.0.2.1')}:auth-failures") == 0


@pytest.fixture()
def proxied(tmp_path: Path) -> Iterator[Api]:
    yield from make_api(tmp_path, settings={"trusted_proxies": ["10.0.0.0/8"]})


def test_x_forwarded_for_from_a_trusted_proxy_names_the_client(proxied: Api) -> None:
    proxy = TestClient(proxied.app, client=("10.1.2.3", 5555))
    r = proxy.post("/claims", json=CLAIM, headers={
        **auth("lmt_bad"), "X-Forwarded-For": "6.6.6.6, 192.0.2.44, 10.9.9.9"})
    assert r.status_code == 401
    svc = proxied.svc
    assert rate_count(svc, f"address:{sha256_hex('192.0.2.44')}:auth-failures") == 1
    assert rate_count(svc, f"address:{sha256_hex('6.6.6.6')}:auth-failures") == 0
    assert rate_count(svc, f"address:{sha256_hex('10.1.2.3')}:auth-failures") == 0


@pytest.mark.parametrize("peer, xff, trusted, want", [
    ("203.0.113.5", ["1.2.3.4"], [], "203.0.113.5"),                 # no proxy trusted
    ("203.0.113.5", ["1.2.3.4"], ["10.0.0.0/8"], "203.0.113.5"),     # peer not trusted
    ("10.0.0.2", ["1.2.3.4"], ["10.0.0.0/8"], "1.2.3.4"),
    ("10.0.0.2", ["9.9.9.9, 1.2.3.4", "10.0.0.7"], ["10.0.0.0/8"], "1.2.3.4"),
    ("10.0.0.2", ["not-an-ip"], ["10.0.0.0/8"], "10.0.0.2"),         # garbage: the peer
    ("10.0.0.2", [], ["10.0.0.0/8"], "10.0.0.2"),
    ("::1", ["2001:db8::1"], ["::1"], "2001:db8::1"),
    ("testclient", ["1.2.3.4"], ["10.0.0.0/8"], "testclient"),
])
def test_client_address(peer: str, xff: list[str], trusted: list[str], want: str) -> None:
    assert client_address(peer, xff, trusted) == want


def test_a_trusted_proxy_setting_must_name_addresses(tmp_path: Path) -> None:
    from pydantic import ValidationError

    from network.api.settings import ServiceSettings

    with pytest.raises(ValidationError):
        ServiceSettings(data_dir=tmp_path, trusted_proxies=["proxy.example"])


# --- one credential per request -----------------------------------------------------------


def test_two_authorization_headers_are_refused(api: Api) -> None:
    good = api.token("alice")["token"]
    for first, second in ((good, "lmt_other"), ("lmt_other", good), (good, good)):
        headers = [("Authorization", f"Bearer {first}"), ("Authorization", f"Bearer {second}")]
        r = api.client.post("/claims", json=CLAIM, headers=headers)
        assert r.status_code == 400 and _code(r) == "credentials-conflict", r.text
        r = api.client.get("/claims/mine", headers=headers)
        assert _code(r) == "credentials-conflict", r.text
        assert r.headers["x-content-type-options"] == "nosniff"


def _mcp(api: Api, headers: dict[str, str], tool: str, args: dict[str, Any]) -> Any:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> Any:
        transport = httpx2.ASGITransport(app=api.app)
        async with (
            httpx2.AsyncClient(transport=transport, base_url="http://testserver",
                               headers=headers) as http,
            Client(streamable_http_client("http://testserver/mcp", http_client=http)) as c,
        ):
            return await c.call_tool(tool, args)

    result = anyio.run(run)
    text = result.content[0].text
    return result.is_error, json.loads(text[text.index("{"):])


def test_an_mcp_token_argument_that_conflicts_with_the_header_is_refused(api: Api) -> None:
    alice = api.token("alice")["token"]
    bob = api.token("bob")["token"]
    err, body = _mcp(api, auth(alice), "list_my_claims", {"token": bob})
    assert err and body["code"] == "credentials-conflict", body
    err, body = _mcp(api, auth(alice), "claim_node",
                     {"target_id": "demo", "node_id": "root", "token": "lmt_wrong"})
    assert err and body["code"] == "credentials-conflict", body
    err, body = _mcp(api, auth(alice), "list_my_claims", {"token": alice})  # the same: fine
    assert not err, body
    err, body = _mcp(api, {}, "list_my_claims", {"token": bob})  # the argument alone: fine
    assert not err, body


# --- one name rule --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["steve.", "Steve.", "s.teve", "STEVE_", "st-eve", "steve..",
                                  "admin.", "Admin_", "ad.min", "root-", "gate.", "5teve."])
def test_separators_and_case_never_make_a_reserved_or_role_name_new(api: Api,
                                                                    name: str) -> None:
    r = api.client.post("/tokens", json={"pseudonym": name, "dco": "1.1",
                                         "proof": {"kind": "github", "token": "gh-mallory"}})
    assert r.status_code in (409, 422), r.text
    assert _code(r) in ("pseudonym-reserved", "pseudonym-confusable"), r.text


def test_an_existing_name_is_imitated_by_no_separator(api: Api) -> None:
    api.token("alice")
    api.token("carla")
    for name in ("alice.", "a.lice", "carla-", "Carla_", "c.a.r.l.a"):
        r = api.client.post("/tokens", json={"pseudonym": name, "dco": "1.1",
                                             "proof": {"kind": "github", "token": "gh-mal"}})
        assert _code(r) == "pseudonym-confusable", (name, r.text)


def test_the_fold_is_the_look_alike_key() -> None:
    for a, b in (("steve.", "steve"), ("s.teve", "steve"), ("Steve_", "STEVE"),
                 ("github_actions", "github-actions"), ("admin.", "admin")):
        assert confusables.fold(a) == confusables.fold(b)
        assert confusables.look_alike(a, b)
        assert confusables.keys(a) & confusables.keys(b)
    for a, b in (("alice", "alicia"), ("steve", "steven"), ("bob", "bobby")):
        assert not confusables.look_alike(a, b)


def test_distinct_names_with_separators_stay_free(api: Api) -> None:
    for name in ("mary-jane", "j.doe", "x_y_z"):
        assert api.client.post("/tokens", json={
            "pseudonym": name, "dco": "1.1",
            "proof": {"kind": "github", "token": f"gh-{name}"}}).status_code == 201, name


def _issue(api: Api, pseudonym: str, graph: Path) -> Result:
    st = api.svc.settings
    return CliRunner().invoke(main, ["token", "issue", "--pseudonym", pseudonym, "--dco",
                                     "--operator", "olga", "--data", str(st.data_dir),
                                     "--graph", str(graph)])


def test_token_issue_reads_role_names_from_a_bare_repository(api: Api,
                                                             tmp_path: Path) -> None:
    """``--graph <forge>``: a bare repository is read at main, so its steward and
    reserved names are refused as POST /tokens refuses them."""
    bare = tmp_path / "forge.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(api.svc.settings.graph), str(bare)],
                   check=True, capture_output=True)
    subprocess.run(["git", "-C", str(bare), "branch", "-f", "main", "HEAD"],
                   check=False, capture_output=True)
    for name, code in (("steve", "pseudonym-reserved"), ("STEVE", "pseudonym-reserved"),
                       ("steve.", "pseudonym-confusable"), ("gate", "pseudonym-reserved"),
                       ("gate.", "pseudonym-confusable"), ("admin.", "pseudonym-confusable")):
        r = _issue(api, name, bare)
        assert r.exit_code == 1 and code in r.output, (name, r.output)
    ok = _issue(api, "newcomer", bare)
    assert ok.exit_code == 0, ok.output


def test_token_issue_refuses_when_no_graph_can_be_read(api: Api, tmp_path: Path) -> None:
    empty = tmp_path / "not-a-graph"
    empty.mkdir()
    (empty / "HEAD").write_text("ref: refs/heads/main\n")  # looks bare, holds nothing
    r = _issue(api, "steve", empty)
    assert r.exit_code == 1 and "graph-unavailable" in r.output, r.output


def test_token_issue_refuses_the_data_directorys_forge_names_whatever_graph_says(
        api: Api, tmp_path: Path) -> None:
    """In a ``lemmata up`` data directory its forge's main is what the service serves:
    a --graph elsewhere does not lift its role names."""
    forge = api.svc.settings.data_dir / "forge.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(api.svc.settings.graph), str(forge)],
                   check=True, capture_output=True)
    subprocess.run(["git", "-C", str(forge), "branch", "-f", "main", "HEAD"],
                   check=False, capture_output=True)
    other = tmp_path / "other-graph"
    shutil.copytree(api.svc.settings.graph, other)
    shutil.rmtree(other / "targets" / "demo" / "stewards", ignore_errors=True)
    r = _issue(api, "steve.", other)
    assert r.exit_code == 1 and "pseudonym-confusable" in r.output, r.output


# --- a contract that is true ----------------------------------------------------------------


def test_a_post_to_a_get_only_route_answers_405_with_allow(api: Api) -> None:
    r = api.client.post("/frontier.json")
    assert r.status_code == 405 and _code(r) == "method-not-allowed"
    assert r.headers["allow"] == "GET, HEAD"
    r = api.client.put("/claims/mine")  # DELETE /claims/{claim_id} matches it too
    assert r.status_code == 405 and r.headers["allow"] == "DELETE, GET, HEAD"
    r = api.client.get("/tokens")
    assert r.status_code == 405 and r.headers["allow"] == "POST"


def test_claims_mine_and_other_per_caller_answers_are_not_stored(api: Api) -> None:
    good = api.token("alice")["token"]
    r = api.client.get("/claims/mine", headers=auth(good))
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    r = api.client.post("/claims", json=CLAIM, headers=auth(good))
    assert r.headers["cache-control"] == "no-store"
    assert "public" in api.client.get("/frontier.json").headers["cache-control"]


@pytest.mark.parametrize("schema, field, bad", [
    ("GlossRequest", "subject", ""),
    ("WithdrawalRequest", "record", ""),
    ("DisplayNameRequest", "link", "ftp://example.org/me"),
    ("PrecheckRequest", "artifact_type", ""),
])
def test_the_schema_excludes_what_the_routes_refuse(api: Api, schema: str, field: str,
                                                    bad: str) -> None:
    import jsonschema

    spec = api.client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    prop = schemas[schema]["properties"][field]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, prop)
