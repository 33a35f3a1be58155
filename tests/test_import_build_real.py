"""The Lean-marked build of an imported collection (issue 28; D-9, D-10): every module an
import lands compiles against the pinned Mathlib (needs Lean; skipped here).

The Formal Conjectures Erdős snapshot at upstream 488aade (the archive in
``tests/fixtures/registries``, the same bytes as ``../shared/registries``) is imported
whole into a copy of ``graph/`` (:func:`tests.importfixtures.fc_real_checkout`,
:func:`tests.importfixtures.graph_copy`, recorded at the upstream commit so the gate-specs
pin the Formal Conjectures revision ``lemmata toolchain install`` prepares). The imported
targets are those the import landed a ``Statement.lean`` for; each sampled target's landed
statements and every definitions module of the target are built the way the gate builds a
statement: a workspace written from the target's gate-spec with the toolchain's prebuilt
pins (:func:`network.gate.steps.step3_build.write_plan`), ``lake build`` through the real
adapter (:meth:`network.gate.lean.lean_toolchain.LeanToolchain.build`) inside the gate's
bubblewrap sandbox, under the gate-spec's caps. Every module must compile; a ``sorry``
statement compiles with a warning, which is fine. A failure names each target whose build
failed, its error messages by module and the tail of lake's log.

The sample: 12 targets, every k-th of the imported target ids in sorted order
(k = ⌊targets / 12⌋), each in its own workspace. ``LEMMATA_IMPORT_BUILD_ALL=1`` builds
every imported target instead, :data:`CHUNK` targets to a workspace, a failed workspace
rebuilt target by target to name the failures.

The toolchain and the pin directories are found where ``lemmata toolchain install`` puts
them for the user running the tests (elan's home, ``~/.cache/lemmata/pins``; ``ELAN_HOME``
and ``LEMMATA_PINS_ROOT`` override), not in the per-test HOME ``tests/conftest.py`` sets.
The project's CI runs this file in its ``lean`` job (``pytest -m lean``).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest

from network import ids
from network.errors import LemmataError
from network.gate.lean.detect import detect_toolchain
from network.gate.lean.lean_toolchain import LeanToolchain
from network.gate.lean.toolchain import BuildResult
from network.gate.sandbox.sandbox import Sandbox
from network.gate.sandbox.workspace import Source, node_source, pins_key
from network.gate.steps.step3_build import write_plan
from network.importers import write_files
from network.importers.formal_conjectures import plan_formal_conjectures_import
from network.record.models import GateSpec
from network.record.read.loader import load_graph
from tests.importfixtures import FC_REAL_COMMIT, fc_real_checkout, graph_copy

pytestmark = [
    pytest.mark.lean,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("lean") is None or shutil.which("lake") is None,
                       reason="needs a real Lean toolchain: lean and lake are not on PATH"),
]

#: targets built by default
SAMPLE = 12
#: targets to one workspace with LEMMATA_IMPORT_BUILD_ALL=1 (one ``lake build`` each, kept
#: well inside the gate-spec's wall-clock cap)
CHUNK = 8
#: read at import, before tests/conftest.py points HOME at a per-test folder
_HOME = Path.home()
ELAN_HOME = Path(os.environ.get("ELAN_HOME") or _HOME / ".elan")
PINS_ROOT = Path(os.environ.get("LEMMATA_PINS_ROOT") or _HOME / ".cache" / "lemmata" / "pins")


@dataclass(frozen=True)
class Imported:
    """One imported target: its id, gate-spec and the sources its build holds (every
    definitions module of the target, then each landed Statement.lean)."""

    tid: str
    spec: GateSpec
    sources: tuple[Source, ...]


def sample(tids: list[str], n: int = SAMPLE) -> list[str]:
    """Every k-th of ``tids`` in sorted order, ``n`` of them (all when there are fewer)."""
    tids = sorted(tids)
    if len(tids) <= n:
        return tids
    return tids[::len(tids) // n][:n]


def import_collection(tmp: Path) -> list[Imported]:
    """Import the whole Erdős snapshot into a copy of ``graph/``; every target the import
    landed a Statement.lean for, with its build's sources, read from the written graph."""
    co, _ = fc_real_checkout(tmp / "fc")
    graph_dir = graph_copy(tmp)
    plan = plan_formal_conjectures_import(co, graph_dir, source_commit=FC_REAL_COMMIT)
    write_files(graph_dir, plan.files)
    graph = load_graph(graph_dir)
    out: list[Imported] = []
    for tid, t in sorted(graph.targets.items()):
        landed = [(nid, n.files["Statement"].path) for nid, n in sorted(t.nodes.items())
                  if "Statement" in n.files and n.files["Statement"].path in plan.files]
        if not landed:
            continue
        # the target's defs as the gate's plan holds them (network/gate/steps/plan.py)
        defs = [Source(ids.defs_module_name(tid, stem),
                       PurePosixPath("Lemmata") / tid / "Defs" / f"{stem}.lean",
                       graph.source.read(lf.path)) for stem, lf in sorted(t.defs.items())]
        stmts = [node_source(tid, nid, "Statement", graph.source.read(path))
                 for nid, path in landed]
        out.append(Imported(tid, t.gate_spec, (*defs, *stmts)))
    return out


def _unbuilt_packages(spec: GateSpec) -> list[str]:
    """The pinned packages (Mathlib aside) whose pin-directory copy holds no compiled
    modules: the sandbox binds packages read-only, so a module importing one cannot build."""
    packages = PINS_ROOT / pins_key(spec) / ".lake" / "packages"
    return [p.name for p in spec.packages
            if not (packages / p.name / ".lake" / "build" / "lib" / "lean").is_dir()]


def _failure(t: Imported, built: BuildResult) -> str:
    """A build failure as a paragraph: the target, its modules' errors, lake's log tail."""
    errors = [f"    {msg.file_name}:{msg.line}:{msg.column}: {msg.data.strip()[:400]}"
              for msg in built.messages if msg.severity == "error"]
    how = [f"lake exit {built.rc}"] if built.rc >= 0 else []
    how += [f"killed by the {built.killed_by} cap"] if built.killed_by else []
    said = f" ({', '.join(how)})" if how else ""
    head = (f"{t.tid}: {built.code or 'build failed'}{said}; "
            f"modules {', '.join(s.module for s in t.sources)}")
    lines = [head, *errors, "    log tail: " + built.log[-1500:].replace("\n", "\n    ")]
    unbuilt = _unbuilt_packages(t.spec) if built.code == "lean-build-failed" else []
    if unbuilt:
        lines.append(f"    note: {', '.join(unbuilt)} has no compiled modules under "
                     f"{PINS_ROOT / pins_key(t.spec)}/.lake/packages (the sandbox binds it "
                     "read-only, so a module importing it cannot build there)")
    return "\n".join(lines)


class _Builder:
    """Builds groups of imported targets as the gate builds a statement: one workspace
    per group written by :func:`write_plan`, one sandboxed ``lake build``."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.sandbox = Sandbox()
        self.toolchains: dict[str, LeanToolchain | BuildResult] = {}
        self.runs = 0

    def toolchain(self, spec: GateSpec) -> LeanToolchain | BuildResult:
        """The real adapter for ``spec``'s pin, or why there is none (a failed result)."""
        key = spec.model_dump_json()
        if key not in self.toolchains:
            tc = detect_toolchain(spec, elan_home=ELAN_HOME, pins_root=PINS_ROOT)
            info = tc.describe()
            if not isinstance(tc, LeanToolchain) or not info.ok:
                self.toolchains[key] = BuildResult(
                    False, info.code or "toolchain-missing", (),
                    log=f"{spec.lean_toolchain}: {info.detail} (looked in {ELAN_HOME} and "
                        "on PATH; `lemmata toolchain install --graph graph` installs it)")
            else:
                self.toolchains[key] = tc
        return self.toolchains[key]

    def build(self, group: list[Imported], messages: bool) -> BuildResult:
        """``lake build`` of every source of ``group`` (they share one gate-spec); with
        ``messages``, each module's ``lean --json`` messages too. A workspace the gate
        could not write (``toolchain-mismatch``: the pin directory lacks a pinned package)
        is a failed result, as the gate reports it."""
        spec = group[0].spec
        tc = self.toolchain(spec)
        if isinstance(tc, BuildResult):
            return tc
        sources = [s for t in group for s in t.sources]
        self.runs += 1
        try:
            ws = write_plan(self.work, f"build-{self.runs}", spec, sources, tc)
        except LemmataError as exc:
            return BuildResult(False, exc.code, (), log=exc.detail)
        return tc.build(ws, [s.module for s in sources] if messages else [], self.sandbox,
                        spec.caps)

    def failures(self, group: list[Imported]) -> list[str]:
        """The failures of ``group``: built together, then (when that fails and the group
        has more than one target) target by target, each with its messages."""
        if len(group) > 1 and self.build(group, messages=False).ok:
            return []
        out: list[str] = []
        for t in group:
            built = self.build([t], messages=True)
            if not built.ok:
                out.append(_failure(t, built))
            elif any(msg.severity == "error" for msg in built.messages):
                out.append(_failure(t, built) + "\n    (lake exited 0, lean --json "
                           "reported errors)")
        return out


def _groups(targets: list[Imported], size: int) -> list[list[Imported]]:
    """``targets`` in runs of at most ``size`` sharing one gate-spec, in order."""
    out: list[list[Imported]] = []
    for t in targets:
        if out and len(out[-1]) < size and out[-1][0].spec == t.spec:
            out[-1].append(t)
        else:
            out.append([t])
    return out


def test_imported_modules_compile_against_the_pinned_mathlib(tmp_path: Path) -> None:
    imported = import_collection(tmp_path / "import")
    assert len(imported) > 300, len(imported)
    every = os.environ.get("LEMMATA_IMPORT_BUILD_ALL") == "1"
    by_id = {t.tid: t for t in imported}
    chosen = [by_id[tid] for tid in (sorted(by_id) if every else sample(list(by_id)))]
    assert len(chosen) == (len(imported) if every else SAMPLE)
    builder = _Builder(tmp_path / "work")
    failures: list[str] = []
    for group in _groups(chosen, CHUNK if every else 1):
        failures += builder.failures(group)
    modules = sum(len(t.sources) for t in chosen)
    print(f"\nbuilt {len(chosen)} of {len(imported)} imported targets ({modules} modules, "
          f"{builder.runs} builds): {len(failures)} failed")
    assert failures == [], (f"{len(failures)} of {len(chosen)} imported targets did not "
                            "compile:\n" + "\n\n".join(failures))
