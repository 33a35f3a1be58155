"""What an agent receives over MCP, in bytes (issue 11): the worked-node fixture and the
measurement that ``benchmarks/agent_bytes.py`` prints and ``tests/test_api_agent_bytes.py``
holds to the goals.

The fixture is the site's rich graph (``tests/sitegraph.py``: rival routes, partials with
holes, postmortems, a literature reading and its confirmation, glosses, an explainer, a
shelving, variants) with its products committed, as ``lemmata products`` leaves a served
graph, and the claim registry of a node being worked: one live claim and one released.
The worked node is ``root--h2``: a hole of a merged partial with two postmortems, a
confirmed literature reading and its own merged partial with a hole.

Bytes are those of the JSON-RPC response body the service sends over streamable HTTP
(``json_response``), envelope included: what crosses the wire to the agent.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
from fastapi import FastAPI
from fastapi.testclient import TestClient
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from network.api.app import create_app
from network.api.settings import ServiceSettings
from tests.api_support import FakeClock, github_verifier
from tests.graphs import BUILDER_APPROVAL_KEY, BUILDER_APPROVAL_KEY_ID, git_commit
from tests.sitegraph import build_rich_graph

TARGET = "demo"
WORKED = "root--h2"
GOALS = {"get_node": 8 * 1024, "list_tools": 21 * 1024}
"""The byte goals of issue 11: ``get_node`` of a worked node, ``tools/list``. The tools
list was 16 KB for issue 11's 45 tools; the formalization review's eight (D-28 v3.39:
get_review, list_review_questions, list_open_pairs, submit_candidate, and the acts an
agent files: exhibits, attempts, intent tests, questions) add 4.2 KB (issue 27)."""


def build_fixture(tmp: Path) -> FastAPI:
    """The rich graph under ``tmp/graph`` with its products committed, and an app over it
    (not yet started)."""
    from network.record.products.products import write_products
    from network.record.read.loader import load_graph

    build_rich_graph(tmp / "graph")
    write_products(load_graph(tmp / "graph"), tmp / "graph")
    git_commit(tmp / "graph", "products")
    st = ServiceSettings(data_dir=tmp / "data", graph=tmp / "graph")
    return create_app(st, github_verifier=github_verifier, clock=FakeClock(),
                      keys={"approval": (BUILDER_APPROVAL_KEY_ID, BUILDER_APPROVAL_KEY)})


def work_the_node(client: TestClient) -> None:
    """bob claims the worked node and releases it; alice claims it and keeps it."""
    def token(who: str) -> str:
        r = client.post("/tokens", json={"pseudonym": who, "dco": "1.1",
                                          "proof": {"kind": "github", "token": f"gh-{who}"}})
        assert r.status_code == 201, r.text
        return str(r.json()["token"])

    for who, keep in (("bob", False), ("alice", True)):
        head = {"Authorization": f"Bearer {token(who)}"}
        r = client.post("/claims", json={"target": TARGET, "node": WORKED, "ttl_s": 7200},
                        headers=head)
        assert r.status_code == 201, r.text
        if not keep:
            assert client.delete(f"/claims/{r.json()['claim_id']}", headers=head).is_success


async def with_mcp(app: FastAPI, body: Callable[[Client, list[bytes]], Awaitable[Any]]) -> Any:
    """Run ``body(client, bodies)`` with an MCP client over streamable HTTP in process;
    ``bodies`` collects every response body the service sent, in order."""
    bodies: list[bytes] = []

    async def hook(resp: Any) -> None:
        await resp.aread()
        bodies.append(bytes(resp.content))

    transport = httpx2.ASGITransport(app=app)
    async with (
        httpx2.AsyncClient(transport=transport, base_url="http://testserver",
                           event_hooks={"response": [hook]}) as http,
        Client(streamable_http_client("http://testserver/mcp", http_client=http)) as client,
    ):
        return await body(client, bodies)


def prefixes(codes: list[str]) -> list[str]:
    """The pages of ``list_error_codes``: each code's first word with its hyphen."""
    return sorted({c.split("-", 1)[0] + "-" for c in codes})


def measure(app: FastAPI) -> dict[str, Any]:
    """Bytes on the wire of ``tools/list``, ``get_node`` (the worked node and the root,
    which has two routes), ``list_error_codes`` whole and per prefix page.

    Returns:
        ``{list_tools, get_node, get_node_root, list_error_codes_all,
        list_error_codes_pages: {prefix: bytes}, tools, get_node_text}``; the byte
        figures are ints, ``get_node_text`` the worked node's text block.
    """
    async def body(client: Client, bodies: list[bytes]) -> dict[str, Any]:
        out: dict[str, Any] = {}

        async def sized(name: str, call: Awaitable[Any]) -> Any:
            start = len(bodies)
            result = await call
            out[name] = sum(len(b) for b in bodies[start:])
            return result

        listed = await sized("list_tools", client.list_tools())
        out["tools"] = len(listed.tools)
        node = await sized("get_node", client.call_tool(
            "get_node", {"target_id": TARGET, "node_id": WORKED}))
        assert not node.is_error, node
        out["get_node_text"] = node.content[0].text
        await sized("get_node_root", client.call_tool(
            "get_node", {"target_id": TARGET, "node_id": "root"}))
        every = await sized("list_error_codes_all", client.call_tool("list_error_codes", {}))
        codes = [e["code"] for e in json.loads(every.content[0].text)["errors"]]
        pages: dict[str, int] = {}
        for prefix in prefixes(codes):
            start = len(bodies)
            await client.call_tool("list_error_codes", {"prefix": prefix})
            pages[prefix] = sum(len(b) for b in bodies[start:])
        out["list_error_codes_pages"] = pages
        return out

    with TestClient(app) as client:
        work_the_node(client)
        return anyio.run(with_mcp, app, body)  # type: ignore[no-any-return]
