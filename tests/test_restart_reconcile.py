"""A restart completes or clears every half-made write (issue 39).

A record write is a submissions-index row ``opening`` → the forge's pull request → the
row ``open`` (network/api/submit/openings.py). The service is killed inside it with the record
path's step hook (``mid_open``: the row written, the forge not yet asked; ``after_open``:
the forge answered, the row not yet ``open``), as kill -9 would: nothing after the step
runs. A fresh service over the same database and forge (the
restart) settles the row as it starts, with no lease to wait out: expired when no pull
request exists, the pull request's number and state when one does. The client's retry is
then accepted (``mid_open``) or refused ``record-copy`` naming the real pull request
(``after_open``), and everything merges through the LocalForge queue.

SQLite throughout; the kills also on PostgreSQL (127.0.0.1:5432, skipped when absent).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2
import pytest
import yaml
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from network import up
from network.api import db
from network.api.app import create_app
from network.api.graphs import GraphProvider
from network.api.settings import ServiceSettings
from network.api.submit import openings
from network.forge.local import LocalForge
from network.gate.queue import queue as Q
from network.gate.sandbox.sandbox import Sandbox
from network.record.read.loader import load_graph
from tests.api_support import PG_URL, FakeClock, auth, github_verifier, pg_schema
from tests.graphs import (
    BUILDER_APPROVAL_KEY,
    BUILDER_APPROVAL_KEY_ID,
    BUILDER_GATE_KEY,
    BUILDER_GATE_KEY_ID,
)
from tests.test_api_records import PM, _build

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

LEASE = 600


class Crash(Exception):
    """Stands in for kill -9 at a step: nothing in the record path catches an exception
    between the step and the HTTP boundary, so the database and the forge are left as a
    killed process leaves them; the test then drops that process (an Exception, not a
    BaseException, only so the in-process client survives to be closed)."""


@dataclass
class Running:
    """One service process: its client, app and forge object."""

    client: TestClient
    app: Any
    forge: LocalForge

    @property
    def svc(self) -> Any:
        return self.app.state.svc

    def postmortem(self, token: str, route: str) -> Any:
        return self.client.post("/postmortems", headers=auth(token), json={
            "target_id": "demo", "node_id": "root",
            "yaml": yaml.safe_dump({**PM, "route": route})})

    def rows(self) -> dict[str, db.SubmissionRow]:
        with self.svc.sessions() as s:
            return {r.id: r for r in s.execute(select(db.SubmissionRow)).scalars()}


@dataclass
class Network:
    """A data folder, database and forge that outlive the service processes over them."""

    root: Path
    clock: FakeClock
    database_url: str | None = None
    connect_args: dict[str, Any] | None = None

    @property
    def forge_path(self) -> Path:
        return self.root / "forge.git"

    @contextmanager
    def start(self, hook: Callable[[str], None] | None = None, *,
              forge_at_start: bool = True) -> Iterator[Running]:
        """Start a service process: a fresh engine, forge object and app (its openings
        begin, and the writes of a process that is gone settle, as the app is built).
        ``forge_at_start=False`` gives the service its forge only once built."""
        settings = ServiceSettings(data_dir=self.root / "data", graph=self.forge_path,
                                   database_url=self.database_url, opening_lease_s=LEASE)
        (self.root / "data").mkdir(exist_ok=True)
        engine = db.make_engine(settings.resolved_database_url(),
                                connect_args=self.connect_args)
        db.migrate(engine)
        forge = LocalForge(self.forge_path, sessionmaker(engine, expire_on_commit=False),
                           clock=self.clock)
        path = self.forge_path

        def version() -> str:
            return str(pygit2.Repository(str(path)).references["refs/heads/main"].target)

        app = create_app(settings, graph_loader=GraphProvider(
            lambda: load_graph(path, "refs/heads/main"), version),
            github_verifier=github_verifier, clock=self.clock,
            forge=forge if forge_at_start else None,
            engine_connect_args=self.connect_args,
            keys={"approval": (BUILDER_APPROVAL_KEY_ID, BUILDER_APPROVAL_KEY)})
        app.state.svc.forge = forge
        if hook is not None:
            app.state.svc.extra[openings.STEP_HOOK] = hook
        try:
            with TestClient(app) as client:
                yield Running(client, app, forge)
        finally:
            engine.dispose()


def _network(root: Path, database_url: str | None = None,
             connect_args: dict[str, Any] | None = None) -> Network:
    _build(root / "graph")
    LocalForge.seed(root / "forge.git", root / "graph")
    return Network(root, FakeClock(), database_url, connect_args)


@pytest.fixture(params=["sqlite", "postgresql"])
def net(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Network]:
    if request.param == "sqlite":
        yield _network(tmp_path)
        return
    with pg_schema("lemmata_restart") as schema:
        yield _network(tmp_path, PG_URL, {"options": f"-csearch_path={schema}"})


@pytest.fixture()
def lite(tmp_path: Path) -> Network:
    return _network(tmp_path)


def kill_at(step: str, occurrence: int = 1) -> Callable[[str], None]:
    """A step hook raising :class:`Crash` the ``occurrence``-th time ``step`` is reached."""
    seen: list[str] = []

    def hook(name: str) -> None:
        assert name in openings.STEPS
        seen.append(name)
        if name == step and seen.count(step) == occurrence:
            raise Crash(step)

    return hook


def token(run: Running, who: str = "alice") -> str:
    r = run.client.post("/tokens", json={"pseudonym": who, "dco": "1.1",
                                         "proof": {"kind": "github", "token": f"gh-{who}"}})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def merge_all(forge: LocalForge) -> list[Q.QueueItem]:
    """Queue passes until one handles nothing (at most 4)."""
    done: list[Q.QueueItem] = []
    for _ in range(4):
        items = Q.process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                                gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)
        if not items:
            return done
        done += items
    raise AssertionError("the queue never settled")


def routes_on_main(forge: LocalForge) -> set[str]:
    g = load_graph(forge.path, "refs/heads/main")
    out = set()
    for a in g.targets["demo"].nodes["root"].attempts:
        if a.kind == "postmortem":
            blob = forge.repo.revparse_single(f"refs/heads/main:{a.path}")
            assert isinstance(blob, pygit2.Blob)
            out.add(str(yaml.safe_load(blob.data)["route"]))
    return out


def the_one_opening(run: Running) -> db.SubmissionRow:
    [row] = [r for r in run.rows().values() if r.state == "opening"]
    return row


# --- a kill at each step of the record path ------------------------------------------


def test_killed_mid_open_the_restart_expires_the_row_and_the_retry_merges(
        net: Network) -> None:
    with net.start(kill_at("mid_open")) as first:
        tok = token(first)
        with pytest.raises(Crash):
            first.postmortem(tok, "a route")
        ghost = the_one_opening(first)
        assert ghost.pull_request is None and first.forge.list_all() == []
    with net.start() as second:  # the restart: no lease waited out
        row = second.rows()[ghost.id]
        assert (row.state, row.pull_request) == ("expired", None)
        assert row.closed_at is not None
        retry = second.postmortem(tok, "a route")
        assert retry.status_code == 201, retry.text
        number = int(retry.json()["pull_request"])
        items = merge_all(second.forge)
        assert [(i.number, i.verdict) for i in items] == [(number, "pass")]
        assert second.forge.get(number).state == "merged"
        assert routes_on_main(second.forge) == {"a route"}
        assert second.rows()[ghost.id].state == "expired"


def test_killed_after_open_the_restart_records_the_pull_request(net: Network) -> None:
    with net.start(kill_at("after_open")) as first:
        tok = token(first)
        with pytest.raises(Crash):
            first.postmortem(tok, "a route")
        row = the_one_opening(first)
        [pr] = first.forge.list_all()
        assert row.pull_request is None and openings.mark(row.id) in pr.body
    with net.start() as second:
        settled = second.rows()[row.id]
        assert (settled.state, settled.pull_request) == ("open", str(pr.number))
        assert settled.head_sha == pr.head_sha
        retry = second.postmortem(tok, "a route")
        assert retry.status_code == 409 and retry.json()["code"] == "record-copy", retry.text
        detail = retry.json()["detail"]
        assert f"pull request {pr.number}," in detail and "None" not in detail
        assert len(second.forge.list_all()) == 1  # nothing opened twice
        read = second.client.get(f"/submissions/{row.id}")
        assert read.status_code == 200 and read.json()["pull_request"] == str(pr.number)
        merge_all(second.forge)
        assert second.forge.get(pr.number).state == "merged"
        assert routes_on_main(second.forge) == {"a route"}
        # the index follows the forge: the row reads merged, and one row holds the PR
        assert second.client.get(f"/submissions/{row.id}").json()["state"] == "merged"
        assert len(second.rows()) == 1


def test_a_merged_pull_request_of_a_killed_write_reads_merged_at_restart(
        lite: Network) -> None:
    with lite.start(kill_at("after_open")) as first:
        tok = token(first)
        with pytest.raises(Crash):
            first.postmortem(tok, "a route")
        row = the_one_opening(first)
        [pr] = first.forge.list_all()
        merge_all(first.forge)  # the queue, another thread, merged it before the restart
    with lite.start() as second:
        settled = second.rows()[row.id]
        assert (settled.state, settled.pull_request) == ("merged", str(pr.number))
        assert settled.closed_at is not None
        assert second.postmortem(tok, "another route").status_code == 201


# --- what a live process may still be opening keeps its lease --------------------------


def test_a_write_in_flight_is_not_expired_by_its_own_process(lite: Network) -> None:
    """At ``mid_open`` the row is this process's own: a reconcile (a queue pass, another
    write's copy check) leaves it ``opening``, and the write ends ``open``."""
    seen: dict[str, str] = {}
    running: list[Running] = []

    def hook(name: str) -> None:
        if name == "mid_open":
            run = running[0]
            ended = openings.reconcile_pending(run.svc)
            row = the_one_opening(run)
            seen["ended"], seen["state"] = ",".join(sorted(ended)), row.state

    with lite.start(hook) as run:
        running.append(run)
        r = run.postmortem(token(run), "a route")
        assert r.status_code == 201, r.text
        assert seen == {"ended": "", "state": "opening"}
        assert run.rows()[r.json()["submission_id"]].state == "open"


def test_another_live_process_keeps_the_lease_and_a_copy_names_the_submission(
        lite: Network) -> None:
    """A row ``opening`` since after this process started is another live process's (one
    database, two processes): it blocks a copy, named by its submission (never "pull
    request None"), until the lease passes; then it expires and the copy is accepted."""
    with lite.start() as run:
        tok = token(run)
        lite.clock.advance(5)  # the other process writes after this one started
        with pytest.raises(Crash), lite.start(kill_at("mid_open")) as other:
            other.postmortem(tok, "a route")
        # (the other process is gone too, but it started after this one: only its lease
        # tells this process so)
        ghost = the_one_opening(run)
        assert openings.reconcile_pending(run.svc) == set()
        copy = run.postmortem(tok, "a route")
        assert copy.status_code == 409 and copy.json()["code"] == "record-copy", copy.text
        detail = copy.json()["detail"]
        assert f"GET /submissions/{ghost.id}" in detail and "None" not in detail
        assert run.client.get(f"/submissions/{ghost.id}").json()["state"] == "opening"
        lite.clock.advance(LEASE + 1)
        assert openings.reconcile_pending(run.svc) == {ghost.id}
        assert run.postmortem(tok, "a route").status_code == 201


# --- lemmata up's queue loop ------------------------------------------------------------


def test_the_queue_loop_settles_a_killed_write_in_one_pass(
        lite: Network, monkeypatch: pytest.MonkeyPatch) -> None:
    """A service that had no forge as it started (so nothing settled then): the merge
    queue's loop settles the killed write's row after the pass that merges it."""
    with lite.start(kill_at("after_open")) as first:
        tok = token(first)
        with pytest.raises(Crash):
            first.postmortem(tok, "a route")
        row = the_one_opening(first)
    with lite.start(forge_at_start=False) as second:
        assert second.rows()[row.id].state == "opening"  # no forge to ask at start
        monkeypatch.setattr(up, "build_site", lambda *a, **k: None)
        passes: list[int] = []
        real = Q.process_queue

        def counted(forge: LocalForge, **kw: Any) -> list[Q.QueueItem]:
            items = real(forge, **kw)
            passes.append(len(items))
            return items

        monkeypatch.setattr(Q, "process_queue", counted)
        stop = threading.Event()
        keys = {"gate": (BUILDER_GATE_KEY_ID, BUILDER_GATE_KEY)}
        loop = threading.Thread(target=up._queue_loop, daemon=True, args=(
            up.DataDir(lite.root / "up"), second.forge, keys, stop, 0.01, "note",
            RecordedToolchain), kwargs={"settle_writes": lambda: openings.reconcile_pending(
                second.svc)})
        loop.start()
        try:
            deadline = time.monotonic() + 60
            while second.rows()[row.id].state == "opening":
                assert time.monotonic() < deadline, "the loop never settled the row"
                time.sleep(0.02)
        finally:
            stop.set()
            loop.join(timeout=30)
        settled = second.rows()[row.id]
        assert settled.state == "merged" and passes[0] == 1  # the pass that merged it
        assert routes_on_main(second.forge) == {"a route"}


# --- a burst with one kill ------------------------------------------------------------------


def test_a_burst_of_twelve_with_one_kill_all_reach_main(lite: Network) -> None:
    routes = [f"route {i}" for i in range(12)]
    with lite.start(kill_at("mid_open", occurrence=6)) as first:
        tok = token(first)
        accepted = []
        for route in routes[:5]:
            r = first.postmortem(tok, route)
            assert r.status_code == 201, r.text
            accepted.append(route)
        with pytest.raises(Crash):
            first.postmortem(tok, routes[5])
    with lite.start() as second:
        assert not [r for r in second.rows().values() if r.state == "opening"]
        for route in routes[5:]:  # the client retries the one cut off, then goes on
            r = second.postmortem(tok, route)
            assert r.status_code == 201, r.text
        items = merge_all(second.forge)
        assert sorted(i.verdict for i in items) == ["pass"] * 12
        assert routes_on_main(second.forge) == set(routes)
        states = sorted(r.state for r in second.rows().values())
        assert states == ["expired"] + ["open"] * 12  # open until the index next syncs
        assert second.client.get("/submissions.json").json()["submissions"] == []
