"""`lemmata toolchain install/status`: elan and lake driven as documented; failures named."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from network.cli import main
from network.errors import LemmataError
from network.gate.lean.install import distinct_specs, install_toolchains, package_imports
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


FC = LakePackage(name="formal_conjectures",
                 url="https://github.com/google-deepmind/formal-conjectures",
                 rev="488aade228ec37880b8fec178c173c07d279bb53")
FC_SPEC = GateSpec(lean_toolchain="leanprover/lean4:v4.34.0", mathlib=MATHLIB, packages=[FC])


def _lean(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def test_package_imports_reads_headers_not_comments(tmp_path: Path) -> None:
    """Issue 28: the modules built in a pin directory are those the graph's Lean files of that
    pin import from its packages, read from the token stream: a commented-out import is none,
    the toolchain's, Mathlib's and the graph's own modules are never built there, and a core-only pin
    (no packages) asks for nothing."""
    _lean(tmp_path, "targets/erdos-1/nodes/root/Statement.lean",
          "module\n/- import Evil.Module -/\npublic import FormalConjecturesUtil\n"
          "import Mathlib.Data.Nat.Basic\nimport Lean.Elab\n\ntheorem t : True := trivial\n")
    _lean(tmp_path, "targets/erdos-1/defs/Defs.lean",
          "import Mathlib\nimport Lemmata.«erdos-1».Defs\n-- import Other\n")
    _lean(tmp_path, "targets/core-1/nodes/root/Statement.lean", "import Std\n")
    got = package_imports(tmp_path, {"erdos-1": FC_SPEC, "core-1": CORE})
    assert got == {MATHLIB.rev: ["FormalConjecturesUtil"]}  # Mathlib's come from its cache


def test_install_builds_the_imported_package_modules_in_the_pin(tmp_path: Path) -> None:
    """Issue 28: Mathlib's cache holds no Formal Conjectures olean and a gate workspace reads
    the pin's packages read-only, so install builds the imported package modules in the pin
    directory after the cache (`lake build +M`, Lake's module target spec)."""
    rec = Recorder()
    install_toolchains([FC_SPEC], pins_root=tmp_path / "pins", elan="elan",
                       elan_home=tmp_path / "elan", run=rec,
                       modules={MATHLIB.rev: ["FormalConjecturesUtil", "Mathlib"]})
    lake = str(tmp_path / "elan/toolchains/leanprover--lean4---v4.34.0/bin/lake")
    assert rec.calls[-1] == ((lake, "build", "+FormalConjecturesUtil", "+Mathlib"),
                             tmp_path / "pins" / MATHLIB.rev)
    assert [c[0][1:] for c in rec.calls[1:3]] == [("update", "--keep-toolchain"),
                                                 ("exe", "cache", "get")]


def test_a_failed_package_build_names_the_step(tmp_path: Path) -> None:
    rec = Recorder(fail_on="+FormalConjecturesUtil")
    with pytest.raises(LemmataError) as exc:
        install_toolchains([FC_SPEC], pins_root=tmp_path / "pins", elan="elan",
                           elan_home=tmp_path / "elan", run=rec,
                           modules={MATHLIB.rev: ["FormalConjecturesUtil"]})
    assert "build the pinned packages' modules the graph imports exited 1" in exc.value.detail


def test_the_sample_graph_builds_formal_conjectures_utilities(repo_root: Path) -> None:
    """The sample graph's imported Erdős targets import FormalConjecturesUtil from their
    pinned Formal Conjectures package: install builds it in that pin."""
    from network.record.read.loader import load_graph

    g = load_graph(repo_root / "graph")
    specs = {tid: t.gate_spec for tid, t in g.targets.items()}
    got = package_imports(repo_root / "graph", specs)
    assert any("FormalConjecturesUtil" in mods for mods in got.values())
    assert not any(m.split(".")[0] in ("Lemmata", "Init", "Lean") for ms in got.values()
                   for m in ms)
