"""The precheck → submission → merge-queue flow of the service, shared by its tests and by
``tests/fixtures/toolchain/make_api_recordings.py`` (which records the stand-in's answers
for exactly these bytes; nothing here parses Lean).

The graph is :func:`tests.gate_scenarios.base_repo` (target ``demo``) plus a tutorial
target whose one node is ``tutorial/tutorial`` (D-27). A :class:`FlowNet` is one network on
disk — a LocalForge bare repository seeded from that graph with the network's keys
published, the service's SQLite state beside it — and :meth:`FlowNet.start` serves a fresh
app over it with uvicorn on a free loopback port, so a restart is a second ``start`` over
the same folder.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2
from sqlalchemy.orm import sessionmaker

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import BASE_LEMMA_PROOF, PROOF_MID, Scenario, _used, base_repo

from network.api import db
from network.api.app import create_app
from network.api.graphs import GraphProvider
from network.api.settings import ServiceSettings
from network.forge.local import LocalForge
from network.gate.queue.queue import QueueItem, process_queue
from network.gate.sandbox.sandbox import Sandbox
from network.record.read.loader import load_graph
from network.up import DataDir, ensure_keys, publish_keys, serve_in_thread
from tests.api_support import START, FakeClock, github_verifier
from tests.graphs import git_commit

TUTORIAL_STATEMENT = ("theorem Tutorial.double_lt (m n : Nat) (h : m < n) : 2 * m + 1 < 2 * n "
                      ":= by\n  sorry\n")
TUTORIAL_WITNESS = "theorem Tutorial.double_lt.witness : ∃ m n : Nat, m < n := ⟨0, 1, by decide⟩\n"
TUTORIAL_PROOF = ("theorem Tutorial.double_lt (m n : Nat) (h : m < n) : 2 * m + 1 < 2 * n "
                  ":= by\n  omega\n")
#: a second, different proof of demo/mid (a racer's)
PROOF_MID_RACER = ("import Lemmata.demo.«base-lemma».Proof\n\n"
                   "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n"
                   "  exact (by simpa using Demo.base_lemma n)\n")
#: PROOF_MID with other comments and spacing: a copy under D-25 v3.21
PROOF_MID_COPY = ("import Lemmata.demo.«base-lemma».Proof\n\n-- my own proof!\n"
                  "theorem   Demo.mid (n : Nat) : n + 0 + 0 = n := by\n"
                  "  /- the lemma does it -/ simpa using Demo.base_lemma n\n")


def flow_scenario() -> Scenario:
    """What the toolchain answers in this flow: everything checks; the demo proofs use
    base-lemma's proof module (their declared use line), the tutorial uses nothing."""
    def used(args: dict[str, Any]) -> dict[str, Any]:
        return _used(BASE_LEMMA_PROOF) if "demo" in args["module"] else _used()
    return Scenario("api-flow", {}, {"used_constants": used})


def build_flow_graph(root: Path) -> Path:
    """The flow's graph in ``root`` (a git work tree), committed; returns ``root``."""
    b, _ = base_repo(root)
    b.target("tutorial", cls="tutorial", steward=None, title="Tutorial")
    b.node("tutorial", "tutorial", statement=TUTORIAL_STATEMENT, witness=TUTORIAL_WITNESS,
           declaration="Tutorial.double_lt", tutorial=True)
    git_commit(root, "tutorial target")
    return root


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class FlowNet:
    """One network on disk: forge, keys and service state under ``data``.

    Attributes:
        data: the data directory (network.up layout).
        toolchain: what prechecks and the merge queue use (the recorded stand-in, or a
            recording one in make_api_recordings.py).
        clock: the service's and the forge's clock.
    """

    data: Path
    toolchain: Any
    clock: FakeClock = field(default_factory=lambda: FakeClock(START))
    settings_over: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def create(cls, tmp: Path, toolchain: Any, **settings: Any) -> FlowNet:
        """Build the graph and seed the forge in ``tmp``; publish the keys."""
        graph = build_flow_graph(tmp / "graph")
        data = DataDir(tmp / "data")
        data.root.mkdir(parents=True, exist_ok=True)
        LocalForge.seed(data.forge, graph, when=int(START) - 86400)
        net = cls(data.root, toolchain, settings_over=settings)
        publish_keys(net.forge(), ensure_keys(data), "2026-01-01")
        return net

    @property
    def dd(self) -> DataDir:
        """The data directory's paths."""
        return DataDir(self.data)

    def forge(self) -> LocalForge:
        """A LocalForge over the network's repository and database."""
        engine = db.make_engine(self.dd.database_url)
        db.migrate(engine)
        return LocalForge(self.dd.forge, sessionmaker(engine, expire_on_commit=False),
                          clock=self.clock)

    def app(self) -> Any:
        """A fresh service app over the same folder (what a restart builds)."""
        settings = ServiceSettings(data_dir=self.data, database_url=self.dd.database_url,
                                   graph=self.dd.forge, **self.settings_over)
        forge_path = self.dd.forge

        def main_sha() -> str:
            return str(pygit2.Repository(str(forge_path)).references["refs/heads/main"].target)

        provider = GraphProvider(lambda: load_graph(forge_path, "refs/heads/main"), main_sha)
        return create_app(settings, graph_loader=provider, forge=self.forge(),
                          toolchain=self.toolchain, keys=ensure_keys(self.dd),
                          sandbox=Sandbox(), clock=self.clock,
                          github_verifier=github_verifier)

    @contextmanager
    def serve(self) -> Iterator[tuple[str, Any]]:
        """Serve a fresh app with uvicorn on a free loopback port until the block ends;
        yields (base URL, app)."""
        app = self.app()
        port = free_port()
        with serve_in_thread(app, "127.0.0.1", port, start_timeout_s=20):
            yield f"http://127.0.0.1:{port}", app

    def run_queue(self) -> list[QueueItem]:
        """One merge-queue pass with the network's gate key and the same toolchain."""
        keys = ensure_keys(self.dd)
        key_id, key = keys["gate"]
        return process_queue(self.forge(), toolchain=self.toolchain, sandbox=Sandbox(),
                             gate_key=key, key_id=key_id)

    def main_graph(self) -> Any:
        """The record at main."""
        return load_graph(self.dd.forge, "refs/heads/main")


def payload(result: Any) -> Any:
    """A tool result's JSON (structured content, else the text); raises on a tool error
    with the error's JSON as the message."""
    if getattr(result, "is_error", False):
        raise AssertionError(result.content[0].text)
    if getattr(result, "structured_content", None):
        sc = result.structured_content
        return sc.get("result", sc) if isinstance(sc, dict) else sc
    return json.loads(result.content[0].text)


def tool_error(result: Any) -> dict[str, Any]:
    """The catalog JSON of a tool error."""
    assert result.is_error, result
    text = result.content[0].text
    return json.loads(text[text.index("{"):])  # type: ignore[no-any-return]


async def poll(call: Callable[[], Any], done: Callable[[Any], bool],
               timeout_s: float = 60.0) -> Any:
    """Call ``call`` until ``done(result)``; the last result."""
    import anyio

    deadline = time.monotonic() + timeout_s
    while True:
        got = await call()
        if done(got) or time.monotonic() > deadline:
            return got
        await anyio.sleep(0.05)


async def agent_flow(url: str, *, pseudonym: str = "agent", target: str = "demo",
                     node: str = "mid", proof: str = PROOF_MID,
                     claim: bool = True) -> dict[str, Any]:
    """What an agent with only the MCP endpoint does, up to an open pull request: list
    the tools, earn a token by a tutorial precheck, claim, read the bundle, precheck and
    submit. Returns every answer by step name."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    out: dict[str, Any] = {}
    async with Client(streamable_http_client(f"{url}/mcp")) as c:
        out["tools"] = {t.name for t in (await c.list_tools()).tools}
        dco = payload(await c.call_tool("get_dco", {}))["version"]
        job = payload(await c.call_tool("precheck_submission", {
            "target_id": "tutorial", "node_id": "tutorial", "artifact_type": "proof",
            "text": TUTORIAL_PROOF}))
        out["tutorial_job"] = job
        out["tutorial"] = await poll(
            lambda: _get_precheck(c, job["job_id"]),
            lambda j: j["state"] not in ("queued", "running"))
        receipt = payload(await c.call_tool("get_token", {
            "pseudonym": pseudonym, "dco": dco,
            "proof": {"kind": "precheck", "job_id": job["job_id"]}}))
        out["receipt"] = receipt
        token = receipt["token"]
        if claim:
            out["claim"] = payload(await c.call_tool("claim_node", {
                "target_id": target, "node_id": node, "ttl": 7200, "token": token}))
        out["bundle"] = payload(await c.call_tool("get_node", {
            "target_id": target, "node_id": node}))
        job2 = payload(await c.call_tool("precheck_submission", {
            "target_id": target, "node_id": node, "artifact_type": "proof", "text": proof,
            "token": token}))
        out["precheck"] = await poll(lambda: _get_precheck(c, job2["job_id"]),
                                     lambda j: j["state"] not in ("queued", "running"))
        sub = payload(await c.call_tool("submit_proof", {
            "precheck_id": job2["job_id"], "token": token}))
        out["submission"] = sub
        out["polled"] = payload(await c.call_tool("get_submission",
                                                  {"submission_id": sub["id"]}))
    return out


async def _get_precheck(c: Any, job_id: str) -> dict[str, Any]:
    return payload(await c.call_tool("get_precheck", {"job_id": job_id}))  # type: ignore[no-any-return]


async def agent_after_merge(url: str, submission_id: str, *, target: str = "demo",
                            node: str = "mid") -> dict[str, Any]:
    """After the merge queue ran: the submission, the frontier and the node."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with Client(streamable_http_client(f"{url}/mcp")) as c:
        return {
            "submission": payload(await c.call_tool("get_submission",
                                                    {"submission_id": submission_id})),
            "frontier": payload(await c.call_tool("list_frontier", {})),
            "node": payload(await c.call_tool("get_node", {"target_id": target,
                                                           "node_id": node,
                                                           "include": ["annex"]})),
        }
