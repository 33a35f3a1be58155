"""The MCP adapter (D-28): the tool ↔ route bijection, and a real MCP client over
streamable HTTP against the app in process."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from fastapi.routing import APIRoute
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from network.api.tools import NO_TOOL, TOOLS, tool_by_route
from tests.api_support import Api, build_graph, make_api


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    """An :class:`Api` over a fresh graph and a fresh SQLite database."""
    yield from make_api(tmp_path)



def _app_routes(api: Api) -> set[tuple[str, str]]:
    out = set()
    for route in api.app.routes:
        methods = getattr(route, "methods", None)
        for method in (methods or {"*"}) - {"HEAD"}:
            out.add((method, route.path))
    return out


def test_every_tool_has_its_route_and_calls_the_same_function(api: Api) -> None:
    routes = {(m, r.path): r for r in api.app.routes if isinstance(r, APIRoute)
              for m in r.methods}
    assert len({op.tool for op in TOOLS}) == len(TOOLS)
    for op in TOOLS:
        route = routes.get((op.method, op.path))
        assert route is not None, f"tool {op.tool} has no route {op.method} {op.path}"
        assert route.endpoint.__lemmata_op__ is op.function, op.tool
        assert route.endpoint.__lemmata_auth__ == op.auth, op.tool


def test_every_agent_facing_route_has_a_tool(api: Api) -> None:
    by_route = tool_by_route()
    for method, path in _app_routes(api):
        if (method, path) in by_route:
            continue
        assert (method, path) in NO_TOOL or ("*", path) in NO_TOOL, \
            f"route {method} {path} has no MCP tool and no recorded reason (D-28 bijection)"
    for key in NO_TOOL:  # no stale exemptions
        method, path = key
        assert any(p == path and (method in ("*", m)) for m, p in _app_routes(api)), key


def test_descriptions_tell_the_agent_what_to_do_next() -> None:
    texts = {op.tool: op.description for op in TOOLS}
    assert "remembers" in texts["get_token"] and "operator" in texts["get_token"]
    assert "recovery_code" in texts["get_token"]
    assert "release_claim" in texts["claim_node"]
    for op in TOOLS:
        assert len(op.description) > 40, op.tool


async def _with_client(api: Api, body: Any) -> Any:
    transport = httpx2.ASGITransport(app=api.app)
    async with (
        httpx2.AsyncClient(transport=transport, base_url="http://testserver") as http,
        Client(streamable_http_client("http://testserver/mcp", http_client=http)) as client,
    ):
        return await body(client)


def _payload(result: Any) -> Any:
    if getattr(result, "structured_content", None):
        sc = result.structured_content
        return sc.get("result", sc) if isinstance(sc, dict) else sc
    return json.loads(result.content[0].text)


def test_mcp_client_over_streamable_http(api: Api) -> None:
    async def body(client: Client) -> dict[str, Any]:
        listed = await client.list_tools()
        info = await client.call_tool("server_info", {})
        node = await client.call_tool("get_node", {"target_id": "demo", "node_id": "root",
                                                   "include": ["annex"]})
        refused = await client.call_tool("claim_node", {"target_id": "demo",
                                                        "node_id": "root"})
        receipt = await client.call_tool("get_token", {
            "pseudonym": "mcp-agent", "dco": "1.1",
            "proof": {"kind": "github", "token": "gh-mcpagent"}})
        token = _payload(receipt)["token"]
        claimed = await client.call_tool("claim_node", {"target_id": "demo", "node_id": "root",
                                                        "ttl": 7200, "token": token})
        mine = await client.call_tool("list_my_claims", {"token": token})
        return {"tools": {t.name for t in listed.tools}, "info": info, "node": node,
                "refused": refused, "claimed": claimed, "mine": mine}

    out = anyio.run(_with_client, api, body)
    assert out["tools"] == {op.tool for op in TOOLS}
    assert _payload(out["info"])["graph_id"] == "test-graph"
    node = _payload(out["node"])
    assert node["meta"]["id"] == "root" and node["sections"] == ["annex"]
    assert out["refused"].is_error
    err = json.loads(out["refused"].content[0].text.split(": ", 1)[-1]
                     if not out["refused"].content[0].text.startswith("{")
                     else out["refused"].content[0].text)
    assert err["code"] == "token-missing" and err["http_status"] == 401
    claimed = _payload(out["claimed"])
    assert claimed["ttl_s"] == 7200 and claimed["pseudonym"] == "mcp-agent"
    assert _payload(out["mine"])["claims"][0]["claim_id"] == claimed["claim_id"]
    # the same registry is what the plain route sees
    front = api.client.get("/frontier.json").json()["nodes"]
    assert next(e for e in front if e["node"] == "root" and e["target"] == "demo")[
        "claim_status"] == "claimed"


@pytest.mark.slow
def test_mcp_over_stdio(tmp_path: Path) -> None:
    """``lemmata mcp`` speaks MCP on stdin/stdout (the SDK's stdio client)."""
    from mcp import StdioServerParameters

    build_graph(tmp_path / "graph")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "network.cli", "mcp", "--data", str(tmp_path / "data"),
              "--graph", str(tmp_path / "graph")],
        cwd=str(Path(__file__).resolve().parents[1]),
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
             "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )

    async def run() -> tuple[set[str], Any]:
        async with Client(params) as client:
            listed = await client.list_tools()
            info = await client.call_tool("list_targets", {})
            return {t.name for t in listed.tools}, info

    names, info = anyio.run(run)
    assert names == {op.tool for op in TOOLS}
    assert "demo" in json.dumps(_payload(info))
