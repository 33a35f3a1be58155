"""Service rules held by a test that fails when the rule is removed (issue 41, rules 6 and
7): the body limit refuses from ``Content-Length`` before reading a byte of the body
(told apart from the streamed-body counter, which refuses only once it has read past the
limit), and a target's own claim TTL caps win over policy.json's (D-25).

Each test's docstring names the removal it was run against (in a separate work tree) and
saw fail."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from network.api.app import BodyLimit
from network.errors import LemmataError
from network.record.products.products import write_products
from network.record.read.loader import load_graph
from tests.api_support import Api, auth, make_api
from tests.graphs import git_commit

LIMIT = 1000


class _Driven:
    """One request driven through :class:`BodyLimit` in front of an app that reads the
    whole body: how often the body was read, whether the app ran, what was sent."""

    def __init__(self, headers: list[tuple[bytes, bytes]], chunks: list[bytes]) -> None:
        self.headers = headers
        self.chunks = list(chunks)
        self.reads = 0
        self.app_ran = False
        self.sent: list[Message] = []

    async def _receive(self) -> Message:
        self.reads += 1
        body = self.chunks.pop(0) if self.chunks else b""
        return {"type": "http.request", "body": body, "more_body": bool(self.chunks)}

    async def _send(self, message: Message) -> None:
        self.sent.append(message)

    async def _app(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.app_ran = True
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"read"})

    def run(self) -> None:
        scope = {"type": "http", "method": "POST", "path": "/tokens", "headers": self.headers}
        asyncio.run(BodyLimit(self._app, LIMIT)(scope, self._receive, self._send))

    @property
    def status(self) -> int:
        return int(self.sent[0]["status"])

    @property
    def body(self) -> dict[str, Any]:
        return json.loads(b"".join(m.get("body", b"") for m in self.sent[1:]))  # type: ignore[no-any-return]


def test_the_body_limit_refuses_from_content_length_before_reading_the_body() -> None:
    """Issue 7's body limit (``body-too-large``, 413; ``BodyLimit`` in
    ``network/api/app.py``): a request whose ``Content-Length`` is over the limit (or not
    a number) is answered 413 at once, with the body never read and the route never run;
    a body sent without one (or under a ``Content-Length`` that lies) is counted while it
    is read and refused by the counter once past the limit, a different path with a
    different detail.

    Removal that makes it fail (applied in a separate work tree, seen failing): deleting
    the ``Content-Length`` branch of ``BodyLimit.__call__`` (leaving the counter alone);
    the body is then read and the app runs before the counter raises."""
    for value in (str(LIMIT + 1).encode(), b"10000000000", b"12abc"):
        early = _Driven([(b"content-length", value)], [b"a" * 600] * 3)
        early.run()
        assert (early.reads, early.app_ran) == (0, False), value
        assert early.status == 413 and early.body["code"] == "body-too-large"
        assert early.body["detail"].startswith("Content-Length ")

    within = _Driven([(b"content-length", str(LIMIT).encode())], [b"a" * 500] * 2)
    within.run()
    assert within.status == 200 and within.reads == 2

    for headers in ([], [(b"content-length", b"10")]):  # streamed, or a lying length
        counted = _Driven(headers, [b"a" * 600] * 3)
        with pytest.raises(LemmataError) as exc:
            counted.run()
        assert exc.value.code == "body-too-large" and exc.value.detail.startswith("body exceeds")
        assert counted.reads == 2 and counted.app_ran and counted.sent == []


@pytest.fixture()
def plain(tmp_path: Path) -> Iterator[Api]:
    """The service over the small graph of :func:`tests.api_support.build_graph`."""
    yield from make_api(tmp_path)


def test_the_service_refuses_an_oversized_body_by_its_content_length(plain: Api) -> None:
    """The same rule through the whole service: a declared oversized body is refused by
    its ``Content-Length`` (the detail says so), a streamed one by the counter.

    Removal that makes it fail (applied in a separate work tree, seen failing): deleting
    the ``Content-Length`` branch of ``BodyLimit.__call__``; both are then refused by the
    counter ("body exceeds"), after reading."""
    api = plain
    limit = api.svc.settings.max_body_bytes
    big = b'{"pseudonym": "' + b"a" * (limit + 100) + b'"}'
    r = api.client.post("/tokens", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "body-too-large"
    assert r.json()["detail"] == f"Content-Length {len(big)} exceeds {limit} bytes"

    def chunks() -> Iterator[bytes]:
        for _ in range(limit // 100_000 + 2):
            yield b"a" * 100_000

    r = api.client.post("/tokens", content=chunks(),
                        headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["detail"] == f"body exceeds {limit} bytes"


# --- D-25: a target's own claim TTL caps --------------------------------------------------

CLAIM = {"target": "demo", "node": "root"}


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    """The service over a graph whose policy.json caps claims at [1800, 86400] s, whose
    target ``demo`` caps its own at [600, 7200] s (target.yaml ``policy.claim_ttl``,
    ruling 13), and whose target ``plain`` (steward steve) sets none."""
    for a in make_api(tmp_path, graph_policy={"claim_ttl": {"min_s": 1800, "max_s": 86400}}):
        b = a.graph
        b.target("demo", policy={"claim_ttl": {"min_s": 600, "max_s": 7200}})
        b.target("plain")
        b.node("plain", "root")
        write_products(load_graph(b.root), b.root)
        git_commit(b.root, "demo caps its own claims; plain does not")
        yield a


def _claim(api: Api, token: str, target: str, ttl: int | None) -> Any:
    body: dict[str, Any] = {"target": target, "node": "root"}
    if ttl is not None:
        body["ttl_s"] = ttl
    return api.client.post("/claims", json=body, headers=auth(token))


def test_a_targets_own_claim_ttl_caps_win_over_policy_json(api: Api) -> None:
    """D-25 (a claim's TTL within the published flat caps; undeclared gets the minimum)
    with ruling 13 (a target may override the caps in target.yaml ``policy.claim_ttl``):
    on ``demo`` a TTL below policy.json's minimum but inside demo's own caps is taken, one
    inside policy.json's caps but over demo's maximum is refused, and an undeclared one
    gets demo's minimum; ``plain`` keeps policy.json's caps.

    Removal that makes it fail (applied in a separate work tree, seen failing): in
    ``network/api/frontier/claims.py`` ``ttl_caps``, ignoring the target's override (the ``if
    isinstance(override, dict)`` block deleted); demo then takes policy.json's caps."""
    alice = api.token("alice")["token"]
    bob = api.token("bob")["token"]
    carol = api.token("carol")["token"]
    r = _claim(api, alice, "demo", 600)
    assert r.status_code == 201 and r.json()["ttl_s"] == 600, r.text
    r = _claim(api, bob, "demo", 7201)
    assert r.status_code == 422 and r.json()["code"] == "claim-ttl-out-of-range"
    assert "[600, 7200]" in r.json()["detail"]
    r = _claim(api, carol, "demo", None)
    assert r.status_code == 201 and r.json()["ttl_s"] == 600
    # plain: policy.json's caps, not demo's and not the service's settings
    r = _claim(api, alice, "plain", 600)
    assert r.status_code == 422 and "[1800, 86400]" in r.json()["detail"]
    r = _claim(api, bob, "plain", None)
    assert r.status_code == 201 and r.json()["ttl_s"] == 1800
