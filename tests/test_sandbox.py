"""The step-3 sandbox (D-4 step 3, DESIGN.md "Security posture"), proved with ordinary
commands: no network, no writes outside scratch, caps kill, no secrets, fails closed."""

from __future__ import annotations

import json
import shutil
import socket
import sys
from pathlib import Path

import pytest

from network.errors import CATALOG, LemmataError
from network.gate.sandbox.sandbox import Sandbox, SandboxLayout, classify_kill
from network.record.models import Caps

PY = "/usr/bin/python3" if Path("/usr/bin/python3").is_file() else sys.executable

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap", path="/usr/bin:/bin") is None,
                                 reason="bubblewrap is not installed here")


@pytest.fixture
def layout(tmp_path: Path) -> SandboxLayout:
    graph = tmp_path / "graph"
    graph.mkdir()
    (graph / "Statement.lean").write_text("theorem t : True := trivial\n")
    return SandboxLayout(scratch=tmp_path / "scratch", read_only=(graph,))


def py(code: str) -> list[str]:
    return [PY, "-I", "-S", "-c", code]


def test_sandbox_unavailable_is_in_the_catalog() -> None:
    assert CATALOG["sandbox-unavailable"].step == 3


def test_missing_bwrap_refuses_by_path(layout: SandboxLayout) -> None:
    sb = Sandbox(search_path="/nonexistent")
    with pytest.raises(LemmataError) as exc:
        sb.run(["true"], layout, Caps())
    assert exc.value.code == "sandbox-unavailable"


def test_missing_bwrap_refuses_by_injected_path(layout: SandboxLayout, tmp_path: Path) -> None:
    with pytest.raises(LemmataError) as exc:
        Sandbox(bwrap=tmp_path / "no-bwrap").run(["true"], layout, Caps())
    assert exc.value.code == "sandbox-unavailable"


def test_broken_bwrap_refuses(layout: SandboxLayout, tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(LemmataError) as exc:
        Sandbox(bwrap=fake).run(["true"], layout, Caps())
    assert exc.value.code == "sandbox-unavailable"


def test_unsandboxed_bwrap_stand_in_fails_the_probe(layout: SandboxLayout, tmp_path: Path) -> None:
    """A 'bwrap' that just runs the command (no isolation) must be caught by the probe."""
    fake = tmp_path / "bwrap"
    fake.write_text('#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n')
    fake.chmod(0o755)
    with pytest.raises(LemmataError) as exc:
        Sandbox(bwrap=fake).run(["true"], layout, Caps())
    assert exc.value.code == "sandbox-unavailable"
    assert "probe failed" in exc.value.detail


@needs_bwrap
def test_probe_passes(layout: SandboxLayout) -> None:
    report = Sandbox().probe(layout, Caps())
    assert report.network_denied and report.outside_writes_denied and report.scratch_writable


@needs_bwrap
def test_host_loopback_listener_is_unreachable(layout: SandboxLayout) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    try:
        res = Sandbox().run(py(
            "import socket,sys\ns=socket.socket();s.settimeout(2)\n"
            f"try:\n s.connect(('127.0.0.1',{port}));print('CONNECTED')\n"
            "except OSError as e:\n print('REFUSED',e.errno)"), layout, Caps(wall_s=20))
    finally:
        listener.close()
    assert res.rc == 0, res.stderr
    assert "REFUSED" in res.stdout and "CONNECTED" not in res.stdout


@needs_bwrap
def test_public_ip_is_unreachable(layout: SandboxLayout) -> None:
    res = Sandbox().run(py(
        "import socket\ns=socket.socket();s.settimeout(3)\n"
        "try:\n s.connect(('1.1.1.1',443));print('CONNECTED')\n"
        "except OSError as e:\n print('REFUSED',e.errno)"), layout, Caps(wall_s=20))
    assert "REFUSED" in res.stdout and "CONNECTED" not in res.stdout


@needs_bwrap
def test_write_outside_scratch_fails(layout: SandboxLayout) -> None:
    graph = layout.read_only[0]
    res = Sandbox().run(py(
        "import json\nout={}\n"
        f"for p in [{str(graph / 'Statement.lean')!r}, {str(graph / 'new.lean')!r}, '/x', '/tmp/x']:\n"
        " try:\n  open(p,'a').write('x'); out[p]='WROTE'\n"
        " except OSError as e:\n  out[p]='DENIED'\n"
        "open('inside.txt','w').write('ok'); out['scratch']='WROTE'\n"
        "print(json.dumps(out))"), layout, Caps(wall_s=20))
    assert res.rc == 0, res.stderr
    seen = json.loads(res.stdout)
    assert seen.pop("scratch") == "WROTE"
    assert set(seen.values()) == {"DENIED"}
    assert (graph / "Statement.lean").read_text() == "theorem t : True := trivial\n"
    assert not (graph / "new.lean").exists()
    assert (layout.scratch / "inside.txt").read_text() == "ok"


@needs_bwrap
def test_a_check_run_sees_the_check_workspace_read_only(tmp_path: Path) -> None:
    """Issue 10: a check run (LeanToolchain.check_layout) binds the gate's check workspace
    read-only; its fresh output folder is the only place it can write."""
    from network.gate.lean.lean_toolchain import LeanToolchain
    from network.gate.sandbox.workspace import node_source, write_workspace
    from network.record.models import GateSpec
    spec = GateSpec.model_validate({"schema": "gate-spec/v1",
                                    "lean_toolchain": "leanprover/lean4:v4.34.0"})
    stmt = b"theorem t : True := trivial\n"
    ws = write_workspace(tmp_path / "check", spec, [node_source("t", "n", "Statement", stmt)])
    (ws.root / ".lake" / "build").mkdir(parents=True)  # as the gate's own build leaves it
    out = tmp_path / "check.host" / "run" / "out"
    out.mkdir(parents=True)
    (tmp_path / "toolchain" / "bin").mkdir(parents=True)
    layout = LeanToolchain(spec, tmp_path / "toolchain" / "bin", tmp_path).check_layout(ws, out)
    targets = [ws.root / "lakefile.toml", ws.root / "Lemmata.lean", ws.root / "new.lean",
               ws.root / ".lake" / "build" / "x.olean", ws.root / "Lemmata" / "t" / "n" /
               "Statement.lean", out / "report.json"]
    res = Sandbox().run(py(
        "import json, sys\nout={}\n"
        f"for p in {[str(t) for t in targets]!r}:\n"
        " try:\n  open(p,'a').write('x'); out[p]='WROTE'\n"
        " except OSError as e:\n  out[p]='DENIED'\n"
        "print(json.dumps(out))"), layout, Caps(wall_s=20), cwd=ws.root)
    assert res.rc == 0, res.stderr
    seen = json.loads(res.stdout)
    assert seen.pop(str(out / "report.json")) == "WROTE"
    assert set(seen.values()) == {"DENIED"} and len(seen) == 5
    assert ws.input_files()["Lemmata/t/n/Statement.lean"] == stmt
    assert not (ws.root / "new.lean").exists()


@needs_bwrap
def test_decoy_secrets_are_absent(layout: SandboxLayout, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_decoy_secret")
    monkeypatch.setenv("LEMMATA_GATE_KEY", "decoy-gate-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "decoy")
    res = Sandbox().run(["env"], layout, Caps(wall_s=20), env={"LEAN_ABORT_ON_PANIC": "1"})
    assert res.rc == 0
    names = {line.split("=", 1)[0] for line in res.stdout.splitlines()}
    assert "GITHUB_TOKEN" not in names and "LEMMATA_GATE_KEY" not in names
    assert "ghp_decoy_secret" not in res.stdout and "decoy-gate-key" not in res.stdout
    assert names <= {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LEAN_NUM_THREADS", "PWD",
                     "LEAN_ABORT_ON_PANIC"}


@needs_bwrap
def test_secret_files_of_the_host_are_not_visible(layout: SandboxLayout) -> None:
    res = Sandbox().run(["sh", "-c", "ls /root /home /etc/shadow 2>&1; echo done"], layout,
                        Caps(wall_s=20))
    assert "done" in res.stdout
    assert ".gitconfig" not in res.stdout and "shadow\n" not in res.stdout.replace("/etc/shadow:", "")


@needs_bwrap
def test_memory_cap_stops_an_oversized_allocation(layout: SandboxLayout) -> None:
    res = Sandbox().run(py("x = bytearray(3 * 1024**3)\nprint('ALLOCATED')"), layout,
                        Caps(memory_mib=256, wall_s=30))
    assert res.rc != 0 and "ALLOCATED" not in res.stdout
    assert res.killed_by == "memory"
    assert not res.ok


@needs_bwrap
def test_wall_clock_cap_kills_a_sleep(layout: SandboxLayout) -> None:
    res = Sandbox().run(["sleep", "30"], layout, Caps(wall_s=2))
    assert res.killed_by == "wall" and res.rc != 0
    assert res.wall_s < 15


@needs_bwrap
def test_cpu_cap_kills_a_spin(layout: SandboxLayout) -> None:
    res = Sandbox().run(py("while True: pass"), layout, Caps(cpu_s=1, wall_s=30))
    assert res.killed_by == "cpu" and res.rc != 0


@needs_bwrap
def test_children_die_with_the_sandbox(layout: SandboxLayout) -> None:
    res = Sandbox().run(["sh", "-c", "(sleep 60 &) ; echo started"], layout, Caps(wall_s=10))
    assert res.rc == 0 and "started" in res.stdout
    assert res.wall_s < 10


@needs_bwrap
def test_hostile_argv_is_data(layout: SandboxLayout) -> None:
    res = Sandbox().run(["echo", "$(exit 99)", "; rm -rf /"], layout, Caps(wall_s=10))
    assert res.rc == 0 and res.stdout == "$(exit 99) ; rm -rf /\n"


def test_environment_refuses_overrides(layout: SandboxLayout) -> None:
    with pytest.raises(ValueError):
        Sandbox().environment(layout, Caps(), {"HOME": "/root"})
    with pytest.raises(ValueError):
        Sandbox().environment(layout, Caps(), {"BAD NAME": "x"})


def test_classify_kill() -> None:
    caps = Caps(wall_s=10)
    assert classify_kill(0, "MemoryError", 20, caps) is None
    assert classify_kill(137, "", 10.2, caps) == "wall"
    assert classify_kill(152, "", 1, caps) == "cpu"
    assert classify_kill(1, "MemoryError", 1, caps) == "memory"
    assert classify_kill(1, "error: type mismatch", 1, caps) is None
