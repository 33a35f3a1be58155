"""Refusals on /mcp are JSON-RPC errors the official MCP client surfaces (issue 35, item 5).

Before: a body over ``max_body_bytes`` sent to /mcp got HTTP 413 with the plain catalog body,
and the official client raised only "Server returned an error response", losing the code,
the limit and the action. Each test drives ``mcp.Client`` over the in-process app.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from network.api.mcp_errors import INVALID_REQUEST, jsonrpc_error
from tests.api_support import Api, auth, make_api

LIMIT = 4096


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    yield from make_api(tmp_path, settings={"max_body_bytes": LIMIT})


def _call(api: Api, tool: str, args: dict[str, Any],
          headers: list[tuple[str, str]] | None = None) -> Any:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> Any:
        transport = httpx2.ASGITransport(app=api.app)
        async with (
            httpx2.AsyncClient(transport=transport, base_url="http://testserver",
                               headers=headers or []) as http,
            Client(streamable_http_client("http://testserver/mcp", http_client=http)) as c,
        ):
            return await c.call_tool(tool, args)

    try:
        return anyio.run(run)
    except BaseExceptionGroup as group:  # the client's task groups wrap what it raises
        raise _first_mcp_error(group) from group


def _first_mcp_error(exc: BaseException) -> BaseException:
    from mcp.shared.exceptions import MCPError

    if isinstance(exc, MCPError):
        return exc
    for sub in getattr(exc, "exceptions", ()):
        found = _first_mcp_error(sub)
        if isinstance(found, MCPError):
            return found
    return exc


def test_an_oversized_tool_call_is_a_json_rpc_error_with_code_limit_and_action(
        api: Api) -> None:
    from mcp.shared.exceptions import MCPError

    token = api.token("alice")["token"]
    with pytest.raises(MCPError) as exc:
        _call(api, "submit_postmortem", {"target_id": "demo", "node_id": "root",
                                         "postmortem": "x" * (LIMIT * 2), "token": token})
    err = exc.value.error
    assert err.code == INVALID_REQUEST
    assert err.message.startswith("body-too-large:")
    assert err.data["code"] == "body-too-large" and err.data["limit_bytes"] == LIMIT
    assert err.data["action"] and err.data["http_status"] == 413


def test_two_authorization_headers_on_mcp_are_a_json_rpc_error(api: Api) -> None:
    from mcp.shared.exceptions import MCPError

    good = api.token("alice")["token"]
    headers = [("Authorization", f"Bearer {good}"), ("Authorization", "Bearer lmt_other")]
    with pytest.raises(MCPError) as exc:
        _call(api, "list_my_claims", {}, headers)
    assert exc.value.error.data["code"] == "credentials-conflict"


def test_plain_routes_keep_the_catalog_body(api: Api) -> None:
    r = api.client.post("/claims", content=b"{" + b" " * (LIMIT * 2) + b"}",
                        headers={**auth(api.token("alice")["token"]),
                                 "content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "body-too-large"
    assert "jsonrpc" not in r.json()


def test_a_tool_refusal_stays_a_tool_error_with_the_catalog_body(api: Api) -> None:
    res = _call(api, "claim_node", {"target_id": "demo", "node_id": "nowhere",
                                    "token": api.token("alice")["token"]})
    assert res.is_error and '"code"' in res.content[0].text


def test_jsonrpc_error_shape() -> None:
    body = {"code": "rate-limited", "detail": "slow down", "action": "wait", "path": None,
            "field": None}
    out = jsonrpc_error(body, 429, retry_after_s=7)
    assert out["id"] is None and out["jsonrpc"] == "2.0"
    assert out["error"]["data"]["retry_after_s"] == 7
    assert out["error"]["code"] == INVALID_REQUEST
    assert jsonrpc_error(body, 503)["error"]["code"] == -32603


def test_a_ttl_refusal_names_the_argument_the_tool_takes(api: Api) -> None:
    """Issue 35, item 7: claim_node takes ``ttl``; its refusal said ``ttl_s`` (the route's
    name), an argument the MCP caller never sent. The plain route keeps ``ttl_s``."""
    import json

    token = api.token("alice")["token"]
    res = _call(api, "claim_node", {"target_id": "demo", "node_id": "root", "ttl": 1,
                                    "token": token})
    body = json.loads(res.content[0].text)
    assert res.is_error and body["code"] == "claim-ttl-out-of-range", body
    assert body["detail"].startswith("ttl 1 is outside") and body["field"] == "ttl", body
    r = api.client.post("/claims", json={"target": "demo", "node": "root", "ttl_s": 1},
                        headers=auth(token))
    assert r.json()["detail"].startswith("ttl_s 1 is outside") and r.json()["field"] == "ttl_s"
