"""`lemmata toolchain install/status`: elan and lake driven as documented; failures named."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from network.cli import main
from network.errors import LemmataError
from network.gate.lean.install import distinct_specs, install_toolchains
from network.proc import Completed
from network.record.models import GateSpec, LakePackage

MATHLIB = LakePackage(name="mathlib", url="https://github.com/leanprover-community/mathlib4",
                      rev="5ed2965256430c3649e86755f9576b54eca72435")
SPEC = GateSpec(lean_toolchain="leanprover/lean4:v4.34.0", mathlib=MATHLIB)
CORE = GateSpec(lean_toolchain="leanprover/lean4:v4.34.0")


class Recorder:
    def __init__(self, fail_on: str | None = None) -> None:
        self.calls: list[tuple[tuple[str, ...], Path | None]] = []
        self.fail_on = fail_on

    def __call__(self, argv, *, cwd=None, timeout_s=0.0, **_: object) -> Completed:
        self.calls.append((tuple(argv), cwd))
        rc = 1 if self.fail_on and self.fail_on in argv else 0
        return Completed(rc, "", "could not resolve host github.com" if rc else "", tuple(argv))


def test_missing_elan_says_so() -> None:
    with pytest.raises(LemmataError) as exc:
        install_toolchains([SPEC], pins_root=Path("pins"), elan=None)
    assert exc.value.code == "toolchain-install-failed" and "elan is not installed" in str(exc.value)


def test_install_runs_elan_then_lake_in_the_pin_directory(tmp_path: Path) -> None:
    rec = Recorder()
    steps = install_toolchains([SPEC, SPEC, CORE], pins_root=tmp_path / "pins",
                               elan="/opt/elan/bin/elan", elan_home=tmp_path / "elan", run=rec)
    lake = str(tmp_path / "elan/toolchains/leanprover--lean4---v4.34.0/bin/lake")
    pin = tmp_path / "pins" / MATHLIB.rev
    assert [c[0] for c in rec.calls] == [
        ("/opt/elan/bin/elan", "toolchain", "install", "leanprover/lean4:v4.34.0"),
        (lake, "update", "--keep-toolchain"),
        (lake, "exe", "cache", "get"),
        ("/opt/elan/bin/elan", "toolchain", "install", "leanprover/lean4:v4.34.0"),
    ]
    assert rec.calls[1][1] == pin and len(steps) == 4
    assert (pin / "lean-toolchain").read_text() == "leanprover/lean4:v4.34.0\n"
    assert MATHLIB.rev in (pin / "lakefile.toml").read_text()
    assert (tmp_path / "pins" / "core" / "lakefile.toml").is_file()


def test_a_failed_download_names_the_step(tmp_path: Path) -> None:
    rec = Recorder(fail_on="cache")
    with pytest.raises(LemmataError) as exc:
        install_toolchains([SPEC], pins_root=tmp_path / "pins", elan="elan",
                           elan_home=tmp_path / "elan", run=rec)
    assert "fetch the Mathlib cache exited 1" in exc.value.detail
    assert "could not resolve host" in exc.value.detail


def test_distinct_specs() -> None:
    assert distinct_specs([SPEC, CORE, SPEC]) == [SPEC, CORE]


def test_cli_status_and_install_without_elan(repo_root: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    runner = CliRunner()
    status = runner.invoke(main, ["toolchain", "status", "--graph", str(repo_root / "graph")])
    assert status.exit_code == 0, status.output
    assert "erdos-242: leanprover/lean4:v4.34.0: not checkable here (toolchain-missing" \
        in status.output
    install = runner.invoke(main, ["toolchain", "install", "--graph", str(repo_root / "graph")])
    assert install.exit_code == 1
    assert "toolchain-install-failed" in install.output
