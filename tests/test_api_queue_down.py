"""The service refuses a write while the merge queue is down (issue 16).

A write that opens a pull request (a submission, a postmortem, any record write) answers
``queue-down`` (503, Retry-After) while the injected monitor says the queue is down: its
runner thread died or stopped, its last passes failed, or (a queue in another process)
its heartbeat is missing or stale. Reads and token issuance keep working, nothing is
opened, and once the queue runs again writes are accepted.

The runner is ``lemmata up``'s own (:class:`network.up.QueueRunner` over
:func:`network.up._queue_loop`) in a real thread; only its pass is a test double, told
to pass, fail or die (a BaseException, as a thread killed outright).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import up
from network.api.service import HeartbeatQueue, RunnerQueue
from network.api.settings import ServiceSettings
from network.errors import CATALOG, LemmataError
from network.gate.queue import queue as Q
from tests.api_support import auth
from tests.test_api_records import PM, Env, _env

MAX_FAILURES = 3


class Killed(BaseException):
    """Stands in for a thread killed outright: no ``except Exception`` catches it."""


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env]:
    yield from _env(tmp_path, {"queue_max_failures": MAX_FAILURES})


class Runner:
    """``lemmata up``'s runner over ``env``'s forge, its pass scripted by :attr:`mode`."""

    def __init__(self, env: Env, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.mode = "ok"
        self.stop = threading.Event()
        self.health = Q.health_for(env.forge, fresh=True)

        def one_pass(forge: Any, **kw: Any) -> list[Q.QueueItem]:
            if self.mode == "die":
                raise Killed()
            if self.mode == "fail":
                raise LemmataError("sandbox-unavailable", "no bubblewrap here")
            return []

        monkeypatch.setattr(Q, "process_queue", one_pass)
        keys = {"gate": ("gate-1", Ed25519PrivateKey.generate())}
        data = up.DataDir(tmp / "data")
        self.runner = up.QueueRunner(lambda: threading.Thread(
            target=up._queue_loop, args=(data, env.forge, keys, self.stop, 0.02, "note",
                                         lambda spec: None),
            kwargs={"max_backoff_s": 0.05}, daemon=True), self.health)
        env.api.svc.queue = RunnerQueue(self.health.snapshot, self.runner.alive,
                                        MAX_FAILURES)

    def close(self) -> None:
        self.stop.set()
        self.runner.join(timeout=10)


@pytest.fixture()
def runner(env: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runner]:
    r = Runner(env, tmp_path, monkeypatch)
    yield r
    r.close()


def until(cond: Callable[[], bool]) -> None:
    """Poll ``cond`` until it holds (a deadline only so a broken runner fails the test)."""
    deadline = time.monotonic() + 30
    while not cond():
        assert time.monotonic() < deadline, "the runner never got there"
        time.sleep(0.01)


_n = iter(range(10_000))


def postmortem(env: Env, token: str) -> Any:
    return env.post("/postmortems", {"target_id": "demo", "node_id": "root", "yaml":
                                     yaml.safe_dump({**PM, "route": f"route {next(_n)}"})},
                    token)


def refused_down(r: Any) -> dict[str, Any]:
    assert r.status_code == CATALOG["queue-down"].http_status == 503, r.text
    assert r.json()["code"] == "queue-down", r.text
    assert int(r.headers["Retry-After"]) >= 1
    return r.json()  # type: ignore[no-any-return]


def reads_and_tokens_work(env: Env, who: str) -> None:
    for path in ("/frontier.json", "/targets/demo", "/submissions.json", "/errors.json"):
        assert env.client.get(path).status_code == 200, path
    assert env.api.token(who)["token"]  # POST /tokens: 201


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_dead_runner_refuses_writes_reads_go_on_and_a_restart_accepts_them(
        env: Env, runner: Runner) -> None:
    tok = env.api.token("alice")["token"]
    runner.runner.start()
    until(lambda: runner.health.snapshot()["passes"] >= 1)
    assert postmortem(env, tok).status_code == 201
    opened = len(env.prs())
    runner.mode = "die"
    until(lambda: not runner.runner.alive())
    body = refused_down(postmortem(env, tok))
    assert "not running" in body["detail"]
    refused_down(env.post("/submissions", {"precheck_id": "pre-x"}, tok))  # submit_proof
    assert len(env.prs()) == opened  # nothing opened, nothing half-written
    reads_and_tokens_work(env, "bob")
    info = env.client.get("/info.json").json()["service"]["queue"]
    assert info["up"] is False and "not running" in info["down_reason"]
    # `lemmata up`'s supervisor restarts it; writes are accepted again
    runner.mode = "ok"
    passes = int(runner.health.snapshot()["passes"])  # type: ignore[call-overload]
    assert runner.runner.supervise(runner.stop) is True
    until(lambda: int(runner.health.snapshot()["passes"]) > passes)  # type: ignore[call-overload]
    assert postmortem(env, tok).status_code == 201
    assert env.client.get("/info.json").json()["service"]["queue"]["up"] is True
    assert runner.health.snapshot()["restarts"] == 1
    # stopped on purpose: down again
    runner.close()
    assert runner.health.snapshot()["state"] == "stopped"
    assert runner.runner.supervise(runner.stop) is False  # no restart once stopping
    assert "not running" in refused_down(postmortem(env, tok))["detail"]


def test_failing_passes_in_a_row_are_down_until_one_passes(env: Env, runner: Runner) -> None:
    tok = env.api.token("alice")["token"]
    runner.mode = "fail"
    runner.runner.start()
    until(lambda: int(runner.health.snapshot()["failures_in_a_row"])  # type: ignore[call-overload]
          >= MAX_FAILURES)
    body = refused_down(postmortem(env, tok))
    assert "sandbox-unavailable" in body["detail"]
    reads_and_tokens_work(env, "bob")
    runner.mode = "ok"
    until(lambda: runner.health.snapshot()["failures_in_a_row"] == 0)
    assert postmortem(env, tok).status_code == 201


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_queue_in_another_process_is_heard_by_its_heartbeat(env: Env, tmp_path: Path,
                                                             runner: Runner) -> None:
    """``lemmata serve`` over a LocalForge: no heartbeat, or a stale one, or one saying
    the runner died, is down; a fresh one from a live runner is up."""
    tok = env.api.token("alice")["token"]
    beat = tmp_path / "data" / Q.HEARTBEAT_FILE
    beat.parent.mkdir(parents=True, exist_ok=True)
    env.api.svc.queue = HeartbeatQueue(beat, stale_s=60, max_failures=MAX_FAILURES)
    assert "heartbeat" in refused_down(postmortem(env, tok))["detail"]  # none yet
    beat.write_text("{not json")  # unreadable: no heartbeat either
    refused_down(postmortem(env, tok))
    runner.runner.start()
    until(lambda: runner.health.snapshot()["passes"] >= 1)
    runner.runner.beat(beat, env.api.clock(), every_s=0)
    assert postmortem(env, tok).status_code == 201
    env.api.clock.advance(61)  # the queue's process went quiet
    assert "no heartbeat for 61 s" in refused_down(postmortem(env, tok))["detail"]
    reads_and_tokens_work(env, "bob")
    runner.runner.beat(beat, env.api.clock(), every_s=0)
    assert postmortem(env, tok).status_code == 201
    runner.mode = "die"
    until(lambda: not runner.runner.alive())
    runner.runner.beat(beat, env.api.clock(), every_s=0)
    assert "not running" in refused_down(postmortem(env, tok))["detail"]


def test_serve_over_a_local_forge_hears_the_heartbeat_github_knows_no_queue(
        env: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from network.cli import _service_parts

    data = tmp_path / "served"
    data.mkdir()
    (data / "forge.git").symlink_to(env.forge.path)
    parts = _service_parts(ServiceSettings(data_dir=data, queue_stale_s=30))
    assert isinstance(parts["queue"], HeartbeatQueue)
    assert parts["queue"].path == data / Q.HEARTBEAT_FILE and parts["queue"].stale_s == 30
    monkeypatch.setenv("LEMMATA_GITHUB_TOKEN", "t")
    gh = _service_parts(ServiceSettings(data_dir=data, forge="github", github_repo="o/r"))
    assert "queue" not in gh  # Actions judge there: the service refuses nothing for it


def test_without_a_monitor_writes_are_never_refused_for_the_queue(env: Env) -> None:
    assert env.api.svc.queue is None
    tok = env.api.token("alice")["token"]
    assert postmortem(env, tok).status_code == 201
    assert "queue" not in env.client.get("/info.json").json()["service"]
    assert env.client.get("/submissions.json", headers=auth(tok)).status_code == 200


@pytest.mark.parametrize("text", [
    '{"at": NaN, "alive": true, "health": {}}',        # json reads NaN: never stale
    '{"at": Infinity, "alive": true, "health": {}}',
    '{"at": 1000, "alive": "false", "health": {}}',     # a string is no live runner
    '{"at": 100000, "alive": true, "health": {}}',      # from the future
])
def test_a_heartbeat_that_cannot_go_stale_is_down(tmp_path: Path, text: str) -> None:
    """A heartbeat whose ``at`` is not finite, or far ahead of the clock, or whose
    ``alive`` is not a boolean, says the queue is down rather than up for ever."""
    beat = tmp_path / Q.HEARTBEAT_FILE
    beat.write_text(text)
    queue = HeartbeatQueue(beat, stale_s=60)
    assert not queue.state(1000.0).up
    beat.write_text('{"at": 990, "alive": true, "health": {}}')  # a fresh one is up
    assert queue.state(1000.0).up
