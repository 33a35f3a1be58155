"""`lemmata up`: data directory, keys, forge seeded with graph/'s history, resume (issue 6)."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import urllib.request
from pathlib import Path

import pygit2
import pytest

from network import up
from tests.graphs import GraphBuilder, git_commit


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A project repository whose graph/ folder has two commits of history."""
    root = tmp_path / "project"
    b = GraphBuilder(root / "graph")
    b.base()
    b.target("demo", cls="calibration", calibration=True)
    b.node("demo", "root")
    git_commit(root, "first graph commit")
    (root / "README.md").write_text("not part of the graph\n")
    git_commit(root, "a commit outside graph/")
    b.node("demo", "variant-weak", variant={"of": "root", "relation": "related"},
           origin="variant")
    git_commit(root, "second graph commit")
    return root


def test_seed_forge_keeps_the_graph_history(project: Path, tmp_path: Path) -> None:
    sha, written = up.seed_forge(tmp_path / "forge.git", project / "graph")
    assert written == 2
    repo = pygit2.Repository(str(tmp_path / "forge.git"))
    head = repo.get(sha)
    assert head.message == "second graph commit"
    assert head.parents[0].message == "first graph commit"
    assert "policy.json" in head.tree and "README.md" not in head.tree
    again = up.seed_forge(tmp_path / "forge.git", project / "graph")
    assert again == (sha, 0)


def test_uncommitted_graph_files_get_one_more_commit(project: Path, tmp_path: Path) -> None:
    (project / "graph" / "targets" / "demo" / "nodes" / "root" / "Proof.lean").write_text("x\n")
    sha, written = up.seed_forge(tmp_path / "forge.git", project / "graph")
    assert written == 3
    repo = pygit2.Repository(str(tmp_path / "forge.git"))
    assert "targets/demo/nodes/root/Proof.lean" in repo.get(sha).tree


def test_a_committed_folder_now_a_file_is_replaced(project: Path, tmp_path: Path) -> None:
    """A work-tree file where the history holds a folder is one more commit, not a crash."""
    nodes = project / "graph" / "targets" / "demo" / "nodes"
    shutil.rmtree(nodes / "variant-weak")
    (nodes / "variant-weak").write_text("a file now\n")
    sha, written = up.seed_forge(tmp_path / "forge.git", project / "graph")
    assert written == 3
    repo = pygit2.Repository(str(tmp_path / "forge.git"))
    entry = repo[sha].peel(pygit2.Commit).tree["targets/demo/nodes/variant-weak"]
    assert isinstance(entry, pygit2.Blob) and entry.data == b"a file now\n"


def test_keys_are_created_once(tmp_path: Path) -> None:
    data = up.DataDir(tmp_path / "data")
    first = up.ensure_keys(data)
    second = up.ensure_keys(data)
    assert {k: v[0] for k, v in first.items()} == {k: v[0] for k, v in second.items()}
    assert oct((data.keys / "gate.pem").stat().st_mode & 0o777) == "0o600"


def test_a_foreign_directory_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "mine.txt").write_text("x\n")
    from network.errors import LemmataError

    with pytest.raises(LemmataError) as exc:
        up.run(data, tmp_path, port=free_port(), site_port=free_port())
    assert exc.value.code == "data-dir-invalid"


def _run_once(data: Path, graph: Path) -> dict[str, object]:
    stop = threading.Event()
    seen: dict[str, object] = {}

    def ready(urls: dict[str, str]) -> None:
        with urllib.request.urlopen(urls["api"] + "/info.json", timeout=10) as resp:
            seen["info"] = json.loads(resp.read())
        with urllib.request.urlopen(urls["site"] + "/", timeout=10) as resp:
            seen["site_status"] = resp.status
        stop.set()

    rc = up.run(data, graph, port=free_port(), site_port=free_port(), stop=stop, ready=ready)
    seen["rc"] = rc
    return seen


@pytest.mark.slow
def test_up_serves_then_resumes(project: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = _run_once(data, project / "graph")
    assert first["rc"] == 0 and first["site_status"] == 200
    repo = pygit2.Repository(str(data / "forge.git"))
    main1 = str(repo.references["refs/heads/main"].target)
    keys = sorted(e.name for e in repo.get(main1).tree["keys"]
                  if not e.name.startswith("builder-"))  # the test builder's own keys
    assert len(keys) == 3 and all(k.endswith(".json") for k in keys)
    second = _run_once(data, project / "graph")
    assert second["rc"] == 0
    assert str(repo.references["refs/heads/main"].target) == main1  # nothing re-seeded
    for seen in (first, second):  # the ports differ between runs; nothing else may
        seen["info"]["service"].pop("mcp")  # type: ignore[index]
        web = seen["info"]["service"]["web_session"]  # type: ignore[index]
        assert web["site_origin"].startswith("http://127.0.0.1:")  # up sets the site's port
        web.pop("site_origin")
        web.pop("sign_in")
        queue = seen["info"]["service"].pop("queue")  # type: ignore[index]
        assert queue["state"] in ("starting", "running") and queue["last_error"] is None
    assert first["info"] == second["info"]


@pytest.mark.slow
def test_info_says_whether_proofs_can_be_checked(project: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no lean here, as on this machine
    seen = _run_once(tmp_path / "data", project / "graph")
    proofs = seen["info"]["service"]["proofs"]  # type: ignore[index]
    assert proofs["checkable"] is False
    assert proofs["targets"]["demo"]["code"] == "toolchain-missing"


@pytest.mark.slow
@pytest.mark.parametrize("which", ["service", "site"])
def test_a_taken_port_is_refused_not_reported_running(project: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      which: str) -> None:
    from network.errors import LemmataError

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        ports = {"port": taken, "site_port": free_port()} if which == "service" else \
            {"port": free_port(), "site_port": taken}
        with pytest.raises(LemmataError) as exc:
            up.run(tmp_path / "data", project / "graph", **ports)
    assert exc.value.code == "listen-failed"
    out = capsys.readouterr().out
    assert "Lemmata is running" not in out and "stopped cleanly" not in out


class _FlakyForge:
    """A forge stand-in for the runner loop: ``main_sha`` raises on the given calls (a
    fault inside the loop itself, outside any pass), else answers one commit."""

    def __init__(self, path: Path, fail_on: set[int]) -> None:
        self.path = path
        self.calls = 0
        self.fail_on = fail_on

    def main_sha(self) -> str:
        self.calls += 1
        if self.calls in self.fail_on:
            raise OSError("the disk went away")
        return "0" * 40


def test_the_queue_runner_survives_any_exception_and_reports_its_health(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 16: passes that raise (a RuntimeError, a LemmataError) are logged, recorded
    in the health /info.json shows and retried with a doubling back-off; a fault in the
    loop itself (main_sha at start-up) restarts the loop; a good pass clears the error."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from network.errors import LemmataError
    from network.gate.queue import queue as Q

    stop = threading.Event()
    calls: list[int] = []
    faults: list[BaseException] = [RuntimeError("boom"),
                                   LemmataError("sandbox-unavailable", "no bubblewrap")]
    delays: list[float] = []

    def fake_process_queue(forge, **kw):  # a test double for one pass
        calls.append(1)
        if faults:
            raise faults.pop(0)
        if len(calls) >= 4:
            stop.set()
        return []

    real_wait = stop.wait

    def quick_wait(timeout: float | None = None) -> bool:
        delays.append(float(timeout or 0))
        return real_wait(0)

    monkeypatch.setattr(Q, "process_queue", fake_process_queue)
    monkeypatch.setattr(stop, "wait", quick_wait)
    forge = _FlakyForge(tmp_path / "forge.git", fail_on={1})
    data = up.DataDir(tmp_path / "data")
    keys = {"gate": ("gate-1", Ed25519PrivateKey.generate())}
    health = Q.health_for(forge, fresh=True)
    seen: list[dict[str, object]] = []
    real_passed = health.passed

    def spy_passed(now: float) -> None:
        real_passed(now)
        seen.append(health.snapshot())

    monkeypatch.setattr(health, "passed", spy_passed)
    errors: list[dict[str, object]] = []
    real_failed = health.failed

    def spy_failed(code: str, detail: str, now: float, retry: float) -> None:
        real_failed(code, detail, now, retry)
        errors.append(health.snapshot())

    monkeypatch.setattr(health, "failed", spy_failed)
    up._queue_loop(data, forge, keys, stop, 0.5, "note", lambda spec: None,
                   max_backoff_s=0.75)
    assert len(calls) == 4  # the loop restarted after main_sha raised, then 4 passes
    snap = health.snapshot()
    assert snap["restarts"] == 1 and snap["state"] == "stopped" and snap["passes"] == 2
    assert [e["last_error"]["code"] for e in errors] == [  # type: ignore[index]
        "gate-internal-error", "sandbox-unavailable"]
    assert [e["next_try_in_s"] for e in errors] == [0.5, 0.75]  # doubled, capped
    assert seen[0]["last_error"] is not None and seen[0]["failures_in_a_row"] == 0
    assert delays[:3] == [0.5, 0.5, 0.75]  # restart wait, then the two back-offs
    assert Q.health_if_running(forge) == snap
