"""Shared set-up of the service tests: a tiny graph, a movable clock, an in-process client.

The client is FastAPI's TestClient over the app :func:`network.api.app.create_app` builds
on a temporary data folder (STYLE.md rule 8, datasette's ``ds_client``). GitHub is never
called: the verifier maps a GitHub token ``gh-<login>`` to ``<login>``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from network.api.app import create_app
from network.api.settings import ServiceSettings
from network.errors import LemmataError
from tests.graphs import (
    BUILDER_APPROVAL_KEY,
    BUILDER_APPROVAL_KEY_ID,
    GraphBuilder,
    git_commit,
)

START = 1_790_000_000.0  # 2026-09-21T14:13:20Z, the tests' "now"


class FakeClock:
    """A clock tests move by hand: epoch seconds, starting at :data:`START`."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds``."""
        self.now += seconds


def github_verifier(token: str) -> str:
    """``gh-<login>`` → ``<login>``; anything else is refused as GitHub would."""
    if not token.startswith("gh-") or len(token) < 4:
        raise LemmataError("proof-invalid", "GitHub refused the token")
    return token[3:]


def build_graph(root: Path, *, extra_nodes: int = 0, **policy: Any) -> GraphBuilder:
    """A small valid graph, committed: target ``demo`` (steward ``steve``) with ``root``,
    ``proved`` (a merged proof) and ``n1``..``n<extra_nodes>``; target ``lonely`` with no
    steward (claims refused, D-6 v3.17); a committed frontier.json product."""
    b = GraphBuilder(root)
    b.base(**policy)
    b.target("demo")
    b.node("demo", "root")
    b.node("demo", "proved")
    proof = b.proof("demo", "proved")
    for i in range(1, extra_nodes + 1):
        b.node("demo", f"n{i}")
    b.target("lonely", steward=None)
    b.node("lonely", "root")
    b.merge([proof], date="2026-01-02")
    from network.record.products.products import write_products
    from network.record.read.loader import load_graph

    write_products(load_graph(root), root)
    git_commit(root, "graph")
    return b


@dataclass
class Api:
    """What a service test gets: the client, the app, the clock and helpers."""

    client: TestClient
    app: Any
    clock: FakeClock
    graph: GraphBuilder

    @property
    def svc(self) -> Any:
        """The app's :class:`network.api.service.Service`."""
        return self.app.state.svc

    def token(self, pseudonym: str = "alice", login: str | None = None) -> dict[str, Any]:
        """Issue a token through ``POST /tokens`` with a GitHub proof; the receipt."""
        r = self.client.post("/tokens", json={
            "pseudonym": pseudonym, "dco": "1.1",
            "proof": {"kind": "github", "token": f"gh-{login or pseudonym.lower()}"}})
        assert r.status_code == 201, r.text
        return r.json()  # type: ignore[no-any-return]


def auth(token: str) -> dict[str, str]:
    """The bearer header for ``token``."""
    return {"Authorization": f"Bearer {token}"}


def make_api(tmp_path: Path, *, settings: dict[str, Any] | None = None,
             graph_policy: dict[str, Any] | None = None, extra_nodes: int = 0,
             engine_connect_args: dict[str, Any] | None = None) -> Iterator[Api]:
    """Build graph, app and client in ``tmp_path``; yields an :class:`Api` with the app's
    lifespan running (the MCP session manager is started)."""
    b = build_graph(tmp_path / "graph", extra_nodes=extra_nodes, **(graph_policy or {}))
    clock = FakeClock()
    st = ServiceSettings(data_dir=tmp_path / "data", graph=tmp_path / "graph", **(settings or {}))
    app = create_app(st, github_verifier=github_verifier, clock=clock,
                     engine_connect_args=engine_connect_args,
                     keys={"approval": (BUILDER_APPROVAL_KEY_ID, BUILDER_APPROVAL_KEY)})
    with TestClient(app) as client:
        yield Api(client, app, clock, b)


@contextmanager
def forge_service(graph: Path, tmp_path: Path, *, clock: FakeClock | None = None,
                  when: int | None = None, settings: dict[str, Any] | None = None,
                  ) -> Iterator[tuple[TestClient, Any, Any, FakeClock]]:
    """The service over a LocalForge seeded from the committed work tree ``graph``: the
    forge at ``tmp_path/forge.git`` (its clock ``when``, default LocalForge's), the data
    folder ``tmp_path/data``, graph reads from the forge's main, the builder's approval
    key, and ``svc.forge`` set. Yields ``(client, app, forge, clock)`` with the app's
    lifespan running."""
    import pygit2

    from network.api.graphs import GraphProvider
    from network.forge.local import LocalForge
    from network.record.read.loader import load_graph

    clock = clock or FakeClock()
    forge_path = tmp_path / "forge.git"
    if when is None:
        LocalForge.seed(forge_path, graph)
    else:
        LocalForge.seed(forge_path, graph, when=when)

    def version() -> str:
        return str(pygit2.Repository(str(forge_path)).references["refs/heads/main"].target)

    st = ServiceSettings(data_dir=tmp_path / "data", graph=forge_path, **(settings or {}))
    app = create_app(st, graph_loader=GraphProvider(
        lambda: load_graph(forge_path, "refs/heads/main"), version),
        github_verifier=github_verifier, clock=clock,
        keys={"approval": (BUILDER_APPROVAL_KEY_ID, BUILDER_APPROVAL_KEY)})
    with TestClient(app) as client:
        svc = app.state.svc
        svc.forge = LocalForge(forge_path, svc.sessions, clock=clock)
        yield client, app, svc.forge, clock


PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
"""The test PostgreSQL server (trust auth, database ``test``)."""


@contextmanager
def pg_schema(prefix: str = "lemmata_test") -> Iterator[str]:
    """A fresh schema ``<prefix>_<12 hex>`` on the test PostgreSQL server, dropped with
    everything in it afterwards; skips the test when psycopg or the server is absent.
    Open it with ``connect_args={"options": f"-csearch_path={schema}"}``."""
    psycopg = pytest.importorskip("psycopg")
    try:
        conn = psycopg.connect("host=127.0.0.1 port=5432 dbname=test user=postgres",
                               connect_timeout=3, autocommit=True)
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"PostgreSQL at 127.0.0.1:5432 unreachable: {exc}")
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield schema
    finally:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        conn.close()
