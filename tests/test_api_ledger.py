"""GET /ledger.json and get_ledger (D-19): ledger lines per identity from the record,
revoked lines kept and shown revoked (D-18), an unknown identity answered with an empty
list, hostile identity strings refused with a catalog code (STYLE.md rule 11)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from network.api import reads
from network.api.app import create_app
from network.api.settings import ServiceSettings
from tests.api_support import FakeClock, github_verifier
from tests.graphs import GraphBuilder, git_commit


def _ledger_graph(root: Path) -> dict[str, str]:
    """Target ``demo`` with a merged proof of ``proved`` credited to alice (merge 1), a
    postmortem credited to bob (merge 2) and a revocation of bob's line (merge 3);
    committed with its products. Returns the paths written."""
    b = GraphBuilder(root)
    b.base()
    b.target("demo")
    b.node("demo", "root")
    b.node("demo", "proved")
    proof = b.proof("demo", "proved")
    b.merge([proof], date="2026-01-02")
    pm = b.postmortem("demo", "root", "20260103T000000Z", "bob")
    b.merge([pm], date="2026-01-03")
    alice = b.ledger_line(1, 1, "proof", "alice", "demo", proof, node="proved")
    bob = b.ledger_line(2, 1, "attempts", "bob", "demo", pm, node="root")
    rev = b.revocation(3, 1, bob, reason="copied route")
    from network.record.products.products import write_products
    from network.record.read.loader import load_graph

    write_products(load_graph(root), root)
    git_commit(root, "graph")
    return {"proof": proof, "alice": alice, "bob": bob, "revocation": rev}


@pytest.fixture()
def ledger_api(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """A client over :func:`_ledger_graph`, and the paths it wrote."""
    paths = _ledger_graph(tmp_path / "graph")
    app = create_app(ServiceSettings(data_dir=tmp_path / "data", graph=tmp_path / "graph"),
                     github_verifier=github_verifier, clock=FakeClock())
    with TestClient(app) as client:
        yield client, paths


def test_a_merged_proofs_line_appears_for_its_identity(
        ledger_api: tuple[TestClient, dict[str, str]]) -> None:
    client, paths = ledger_api
    r = client.get("/ledger.json", params={"identity": "alice"})
    assert r.status_code == 200 and r.headers["etag"]
    body = r.json()
    assert body["identity"] == "alice" and list(body["identities"]) == ["alice"]
    [line] = body["identities"]["alice"]
    assert (line["path"], line["line"], line["target"], line["node"], line["artifact"],
            line["merge_seq"], line["revoked"]) == (
        paths["alice"], "proof", "demo", "proved", paths["proof"], 1, False)
    # pseudonyms compare without regard to case (D-19 v3.28); the key is as asked
    assert client.get("/ledger.json?identity=ALICE").json()["identities"] == {
        "ALICE": body["identities"]["alice"]}


def test_a_revoked_line_is_shown_revoked(
        ledger_api: tuple[TestClient, dict[str, str]]) -> None:
    client, paths = ledger_api
    [line] = client.get("/ledger.json?identity=bob").json()["identities"]["bob"]
    assert line["path"] == paths["bob"]
    assert line["revoked"] is True and line["revoked_by"] == paths["revocation"]


def test_all_identities_when_omitted(ledger_api: tuple[TestClient, dict[str, str]]) -> None:
    client, _paths = ledger_api
    body = client.get("/ledger.json").json()
    assert body["identity"] is None and sorted(body["identities"]) == ["alice", "bob"]


def test_an_unknown_identity_gets_an_empty_list(
        ledger_api: tuple[TestClient, dict[str, str]]) -> None:
    client, _paths = ledger_api
    r = client.get("/ledger.json?identity=nobody")
    assert r.status_code == 200 and r.json()["identities"] == {"nobody": []}


@pytest.mark.parametrize("hostile", [
    "../alice", "alice/../../etc", "dev/$(exit 99)", "alice\nbob", "ａlice", "аlice",
    "-alice", "", "a" * 40, "alice;rm -rf /", "%2e%2e", "alice\x00"])
def test_hostile_identities_get_a_catalog_error(
        ledger_api: tuple[TestClient, dict[str, str]], hostile: str) -> None:
    client, _paths = ledger_api
    r = client.get("/ledger.json", params={"identity": hostile})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "pseudonym-invalid"
    assert r.json()["action"]


def test_get_ledger_tool_answers_the_route_body(
        ledger_api: tuple[TestClient, dict[str, str]]) -> None:
    client, _paths = ledger_api
    app: Any = client.app

    async def call() -> Any:
        transport = httpx2.ASGITransport(app=app)
        async with (
            httpx2.AsyncClient(transport=transport, base_url="http://testserver") as http,
            Client(streamable_http_client("http://testserver/mcp", http_client=http)) as mcp,
        ):
            ok = await mcp.call_tool("get_ledger", {"identity": "bob"})
            bad = await mcp.call_tool("get_ledger", {"identity": "../bob"})
            return ok, bad

    ok, bad = anyio.run(call)
    payload = json.loads(ok.content[0].text)  # one compact JSON text block (issue 11)
    assert payload == reads.ledger(app.state.svc, "bob") == \
        client.get("/ledger.json?identity=bob").json()
    assert bad.is_error and "pseudonym-invalid" in bad.content[0].text
