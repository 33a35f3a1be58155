"""One data directory (issue 11): ``lemmata up``, ``serve``, ``mcp`` and ``token`` default
to the same folder, and a second process on a running network's data directory serves
the same state (its SQLite in WAL mode, or the PostgreSQL URL it records), or says why it
cannot (``data-dir-other-database``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from network import cli, up
from network.api.app import create_app
from network.api.settings import ServiceSettings
from network.errors import LemmataError
from tests.api_support import auth, github_verifier
from tests.graphs import GraphBuilder, git_commit

ROOT = Path(__file__).resolve().parents[1]
CLAIM = {"target": "demo", "node": "root"}


def test_the_cli_defaults_name_one_data_directory(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """up, serve, mcp and token, given no --data, all choose the same folder, and serve
    and mcp open the database file up keeps there."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEMMATA_DATA_DIR", raising=False)
    monkeypatch.delenv("LEMMATA_DATABASE_URL", raising=False)
    chosen: list[Any] = []

    def capture_up(data_root: Path, graph_dir: Path, **_: Any) -> int:
        chosen.append(Path(data_root))
        return 0

    class Stop(Exception):
        """Ends serve/mcp once the app is asked for."""

    def capture_app(settings: ServiceSettings, **_: Any) -> Any:
        chosen.append(settings)
        raise Stop

    monkeypatch.setattr(up, "run", capture_up)
    monkeypatch.setattr("network.api.app.create_app", capture_app)

    def choose(*args: str) -> Any:
        chosen.clear()
        CliRunner().invoke(cli.main, list(args))
        assert len(chosen) == 1, args
        return chosen[0]

    up_dir = choose("up")
    assert up_dir == Path(".lemmata") == ServiceSettings().data_dir
    want_db = f"sqlite:///{(tmp_path / '.lemmata' / 'state.db').resolve()}"
    assert up.DataDir(up_dir).database_url == "sqlite:///.lemmata/state.db"
    for command in ("serve", "mcp"):
        settings = choose(command)
        assert settings.data_dir == up_dir, command
        assert settings.resolved_database_url() == want_db, command
    r = CliRunner().invoke(cli.main, ["token", "list"])
    assert r.exit_code == 1 and "network-state-missing" in r.output
    # issue 35, item 7: outside the checkout it names the folder it read and how to point
    assert str((tmp_path / ".lemmata").resolve()) in r.output
    assert "--data CHECKOUT/.lemmata" in r.output and "LEMMATA_DATA_DIR" in r.output
    # $LEMMATA_DATA_DIR moves them all together
    monkeypatch.setenv("LEMMATA_DATA_DIR", str(tmp_path / "net"))
    assert choose("up") == tmp_path / "net"
    assert choose("serve").data_dir == tmp_path / "net"
    assert choose("mcp").data_dir == tmp_path / "net"


def _up_data_dir(tmp_path: Path) -> up.DataDir:
    """A ``lemmata up`` data directory: its forge seeded from a project's graph/."""
    project = tmp_path / "project"
    b = GraphBuilder(project / "graph")
    b.base()
    b.target("demo")
    b.node("demo", "root")
    git_commit(project, "graph")
    data = up.DataDir(tmp_path / ".lemmata")
    data.root.mkdir()
    up.seed_forge(data.forge, project / "graph")
    return data


@pytest.fixture()
def running(tmp_path: Path) -> Iterator[tuple[up.DataDir, TestClient]]:
    """The network's own service, set up as ``lemmata up`` sets it up (its database named
    in service.json, its forge's main served), on the real clock."""
    data = _up_data_dir(tmp_path)
    data.bind_database(data.database_url, given=False)
    st = ServiceSettings(data_dir=data.root, database_url=data.database_url, graph=data.forge)
    app = create_app(st, graph_loader=data.graph_provider(), github_verifier=github_verifier)
    with TestClient(app) as client:
        yield data, client


def _token(client: TestClient, pseudonym: str) -> str:
    r = client.post("/tokens", json={"pseudonym": pseudonym, "dco": "1.1",
                                     "proof": {"kind": "github", "token": f"gh-{pseudonym}"}})
    assert r.status_code in (200, 201), r.text
    return str(r.json()["token"])


def _holders(body: dict[str, Any]) -> list[str]:
    entry = next(e for e in body["nodes"] if e["target"] == "demo" and e["node"] == "root")
    return [h["pseudonym"] for h in entry["live_claims"]]


def test_a_second_service_on_the_data_directory_serves_the_same_state(
        running: tuple[up.DataDir, TestClient], monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim made through the network's service is read back by a second service that
    ``serve``/``mcp`` would build on the same folder, and the reverse."""
    data, first = running
    alice = _token(first, "alice")
    claim = first.post("/claims", json=CLAIM, headers=auth(alice))
    assert claim.status_code == 201, claim.text
    monkeypatch.chdir(data.root.parent)  # where `make run` ran: no --data needed
    settings, loader = cli._network_settings()
    assert settings.data_dir.resolve() == data.root.resolve() and loader is not None
    app = create_app(settings, graph_loader=loader, **cli._service_parts(settings))
    with TestClient(app) as second:
        mine = second.get("/claims/mine", headers=auth(alice)).json()["claims"]
        assert [m["claim_id"] for m in mine] == [claim.json()["claim_id"]]
        assert _holders(second.get("/frontier.json").json()) == ["alice"]
        assert second.get("/info.json").json()["service"]["graph_commit"] == \
            first.get("/info.json").json()["service"]["graph_commit"]
        bob = _token(first, "bob")
        assert second.post("/claims", json=CLAIM, headers=auth(bob)).status_code == 201
    assert _holders(first.get("/frontier.json").json()) == ["alice", "bob"]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_lemmata_serve_in_another_process_reads_the_claim(
        running: tuple[up.DataDir, TestClient]) -> None:
    """The real second process: ``lemmata serve --data <dir>`` on another port answers the
    claim the network's service wrote (SQLite in WAL mode, shared by both)."""
    data, first = running
    alice = _token(first, "alice")
    assert first.post("/claims", json=CLAIM, headers=auth(alice)).status_code == 201
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    env.pop("LEMMATA_DATABASE_URL", None)
    proc = subprocess.Popen([sys.executable, "-m", "network.cli", "serve", "--data",
                             str(data.root), "--port", str(port)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        body = None
        for _ in range(240):  # bounded: at most about a minute
            if proc.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/frontier.json",
                                            timeout=5) as r:
                    body = json.loads(r.read())
                break
            except OSError:
                time.sleep(0.25)
        assert body is not None, proc.stdout.read().decode() if proc.stdout and \
            proc.poll() is not None else "serve did not answer"
        assert _holders(body) == ["alice"]
        req = urllib.request.Request(f"http://127.0.0.1:{port}/claims/mine",
                                     headers=auth(alice))
        with urllib.request.urlopen(req, timeout=5) as r:
            assert [c["node"] for c in json.loads(r.read())["claims"]] == ["root"]
    finally:
        proc.terminate()
        proc.wait(30)
        if proc.stdout:
            proc.stdout.close()


def test_a_process_given_another_database_is_refused(
        running: tuple[up.DataDir, TestClient], tmp_path: Path) -> None:
    """It would serve other claims and tokens: refused before it opens anything."""
    data, _ = running
    assert json.loads((data.root / "service.json").read_text()) == {"database": "sqlite:state.db"}
    other = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    with pytest.raises(LemmataError) as exc:
        cli._network_settings(data_dir=data.root, database_url=other)
    assert exc.value.code == "data-dir-other-database"
    assert "sqlite:state.db" in exc.value.detail and "elsewhere.db" in exc.value.detail
    r = CliRunner().invoke(cli.main, ["serve", "--data", str(data.root),
                                      "--database-url", other])
    assert r.exit_code == 1 and "data-dir-other-database" in r.output
    r = CliRunner().invoke(cli.main, ["token", "list", "--data", str(data.root),
                                      "--database-url", other])
    assert r.exit_code == 1 and "data-dir-other-database" in r.output
    assert not (tmp_path / "elsewhere.db").exists()


def test_a_postgresql_network_is_named_without_its_password(tmp_path: Path) -> None:
    """A network whose service runs on PostgreSQL records the URL with the password
    masked; a process on its folder without that URL is told which one to pass, and one
    given it (whatever the password) is let through."""
    data = up.DataDir(tmp_path / "net")
    url = "postgresql+psycopg://svc:s3cret@db.internal:5432/lemmata"
    data.bind_database(url, given=True)
    text = (data.root / "service.json").read_text()
    assert "s3cret" not in text and "svc:***@db.internal:5432/lemmata" in text
    with pytest.raises(LemmataError) as exc:
        cli._network_settings(data_dir=data.root)
    assert exc.value.code == "data-dir-other-database"
    assert "postgresql+psycopg://svc:***@db.internal:5432/lemmata" in exc.value.detail
    assert "without --database-url" in exc.value.detail
    assert not (data.root / "state.db").exists()
    settings, _ = cli._network_settings(data_dir=data.root, database_url=url)
    assert settings.resolved_database_url() == url


def test_a_moved_data_directory_keeps_its_sqlite_state(tmp_path: Path) -> None:
    """service.json names a SQLite file inside the folder by its name, so the folder may
    be moved; a hostile service.json is refused, not trusted."""
    data = up.DataDir(tmp_path / "a")
    data.bind_database(f"sqlite:///{data.root / 'state.db'}", given=False)
    moved = tmp_path / "b"
    data.root.rename(moved)
    up.DataDir(moved).bind_database(f"sqlite:///{moved / 'state.db'}", given=False)
    (moved / "service.json").write_text("[1, 2]")
    with pytest.raises(LemmataError) as exc:
        up.DataDir(moved).bind_database(f"sqlite:///{moved / 'state.db'}", given=False)
    assert exc.value.code == "data-dir-invalid"


def test_an_older_serve_folder_keeps_its_database(tmp_path: Path) -> None:
    """A folder an older ``lemmata serve`` made holds ``service.sqlite3``: it stays the
    database (nothing silently starts empty); a new folder gets up's ``state.db``."""
    old = tmp_path / "old"
    old.mkdir()
    (old / "service.sqlite3").write_bytes(b"")
    assert ServiceSettings(data_dir=old).resolved_database_url().endswith("/old/service.sqlite3")
    assert ServiceSettings(data_dir=tmp_path / "new").resolved_database_url().endswith(
        "/new/state.db")
