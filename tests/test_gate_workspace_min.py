"""Workspaces hold only what the check needs (issue 17): the import closure of the plan's
own files within what the whole-target workspace offered, never O(target) for a route; no
root module; scratch on tmpfs where one exists, and the sandbox still binds it correctly.

The verdict-equivalence argument: a Lean module's elaboration depends only on its own
bytes, its transitive imports and the lakefile/toolchain; every check names modules of the
plan. So a workspace closed under imports (every module a held file imports that the
whole-target workspace held is held too) gives each held module the same environment, and
an import the whole-target workspace could not satisfy is unsatisfied in both (the build
fails closed). :func:`test_every_plan_is_import_closed_within_the_full_pool` holds that
property on every artifact kind; the scenario suites (tests/test_gate_run.py,
tests/test_gate_trust_domains.py, tests/test_gate_codes.py) hold the verdicts.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from network import ids
from network.gate.artifacts import Artifact, Kind, import_lines
from network.gate.sandbox.scratch import SCRATCH_ENV, scratch_base
from network.gate.sandbox.workspace import write_workspace
from network.gate.steps.context import _unquote
from network.gate.steps.plan import WorkPlan, add_route_statements, plan_workspace, ws_defs
from network.record.read.loader import Graph, load_graph
from tests.graphs import GraphBuilder

T = "demo"
ND = f"targets/{T}/nodes"
N_SIBLINGS = 1000


def _stmt(decl: str, imports: tuple[str, ...] = ()) -> str:
    head = "".join(f"import {m}\n" for m in imports)
    return f"{head}theorem {decl} : True := by\n  sorry\n"


def _graph(root: Path, n: int = N_SIBLINGS) -> Graph:
    """root ← mid (a hole of root's route) ← n siblings; defs A (imports B), B, C; mid's
    statement imports Defs.A; sib0's proof is merged."""
    b = GraphBuilder(root)
    b.base()
    b.target(T)
    b.write(f"targets/{T}/defs/A.lean", f"import {ids.defs_module_name(T, 'B')}\ndef a := 1\n")
    b.write(f"targets/{T}/defs/B.lean", "def b := 2\n")
    b.write(f"targets/{T}/defs/C.lean", "def c := 3\n")
    b.node(T, "root", statement=_stmt("Demo.root"), declaration="Demo.root")
    route = b.partial(T, "root", "20260101T000000Z", "bob",
                      "-- approach: split\ntheorem Demo.root : True := sorry\n")
    b.hole(T, "root", 1, route, statement=_stmt("Demo.root.h1", (ids.defs_module_name(T, "A"),)),
           declaration="Demo.root.h1", nid="mid")
    for i in range(n):
        b.node(T, f"sib{i}", statement=_stmt(f"Demo.sib{i}"), declaration=f"Demo.sib{i}",
               proof=(f"theorem Demo.sib{i} : True := trivial\n" if i == 0 else None))
    return load_graph(root)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Graph:
    return _graph(tmp_path_factory.mktemp("big"))


def _partial(g: Graph, text: str, node: str = "mid") -> WorkPlan:
    path = f"{ND}/{node}/attempts/20260301T000000Z-alice-partial.lean"
    return plan_workspace(g, {path: text.encode()}, Artifact(Kind.PARTIAL, T, node, [path], path))


def _proof(g: Graph, text: str, node: str = "mid") -> WorkPlan:
    path = f"{ND}/{node}/Proof.lean"
    return plan_workspace(g, {path: text.encode()}, Artifact(Kind.PROOF, T, node, [path], path))


def _mods(plan: WorkPlan) -> set[str]:
    return {_unquote(s.module) for s in plan.sources}


def test_a_partial_on_a_1000_node_target_holds_o_route_files(big: Graph) -> None:
    plan = _partial(big, "theorem Demo.root.h1 : True := by\n  have h : True := sorry\n"
                         "  exact h\n")
    mods = _mods(plan)
    # own statement, the partial, root's statement (ancestor: offload rule), the target's
    # three defs (a handful per target, as before); none of the 1,000 siblings
    assert mods == {_unquote(ids.module_name(T, "mid", "Statement")),
                    _unquote(plan.solution_module or ""),
                    _unquote(ids.module_name(T, "root", "Statement")),
                    _unquote(ids.defs_module_name(T, "A")),
                    _unquote(ids.defs_module_name(T, "B")),
                    _unquote(ids.defs_module_name(T, "C"))}
    assert len(plan.sources) <= 6 < N_SIBLINGS
    assert set(plan.ancestor_statements) == {"root"}
    assert plan.other_statements == {}
    # the carried-witness workspace offers every def, as before
    assert {d.module for d in ws_defs(plan)} == {ids.defs_module_name(T, s) for s in "ABC"}


def test_a_partial_importing_an_undeclared_sibling_statement_still_sees_it(big: Graph) -> None:
    """Hostile: the sibling's Statement is taken in (the whole-target workspace held it),
    and step 8 maps its module to the sibling, so a term using it is undeclared-dependency
    exactly as before."""
    sib = ids.module_name(T, "sib7", "Statement")
    plan = _partial(big, f"import {sib}\ntheorem Demo.root.h1 : True := by\n"
                         "  have h : True := Demo.sib7\n  exact h\n")
    assert _unquote(sib) in _mods(plan)
    assert plan.node_of_module[_unquote(sib)] == "sib7"
    assert "sib7" not in plan.use_nodes  # a statement import is no use line
    assert len(plan.sources) <= 7


def test_a_proof_importing_a_sibling_statement_gets_no_such_module(big: Graph,
                                                                   tmp_path: Path) -> None:
    """Hostile: a proof's whole-target workspace never held other statements, nor does the
    minimal one; no root module re-exports anything, so the import is unsatisfied and lake
    fails the build (closed), as before."""
    sib = ids.module_name(T, "sib7", "Statement")
    plan = _proof(big, f"import {sib}\ntheorem Demo.root.h1 : True := Demo.sib7\n")
    assert _unquote(sib) not in _mods(plan)
    spec = big.targets[T].gate_spec
    ws = write_workspace(tmp_path / "ws", spec, plan.sources)
    assert not (ws.root / ids.module_path(T, "sib7", "Statement")).exists()
    assert not (ws.root / "Lemmata.lean").exists()
    lean_files = {p.relative_to(ws.root).as_posix() for p in ws.root.rglob("*.lean")}
    assert lean_files == {str(s.path) for s in plan.sources}


def test_an_import_of_a_module_outside_the_plan_is_never_substituted(big: Graph) -> None:
    """An import naming no graph module (a typo, another target, the root ``Lemmata``) adds
    nothing: nothing stands in for it, so the build fails closed."""
    plan = _partial(big, "import Lemmata\nimport Lemmata.demo.nosuch.Statement\n"
                         "import Lemmata.other.sib7.Statement\n"
                         "theorem Demo.root.h1 : True := sorry\n")
    assert all(m.startswith("Lemmata.demo.") for m in _mods(plan))
    assert "Lemmata" not in _mods(plan)
    assert len(plan.sources) <= 6


def test_use_lines_close_transitively_and_their_imports_too(big: Graph) -> None:
    proof = ids.module_name(T, "sib0", "Proof")
    plan = _proof(big, f"import {proof}\ntheorem Demo.root.h1 : True := Demo.sib0\n")
    assert plan.use_nodes == ["sib0"]
    assert _unquote(proof) in _mods(plan)
    assert _unquote(ids.defs_module_name(T, "A")) in _mods(plan)  # mid's statement imports A


def test_the_post_merge_route_workspace_still_holds_every_statement(big: Graph) -> None:
    """D-12 v3.38: the post-merge job tests each hole against every other node; it calls
    add_route_statements on the gate's plan (idempotent)."""
    plan = _partial(big, "theorem Demo.root.h1 : True := sorry\n")
    before = len(plan.sources)
    add_route_statements(big, T, "mid", plan)
    add_route_statements(big, T, "mid", plan)
    assert len({s.module for s in plan.sources}) == len(plan.sources)
    assert set(plan.other_statements) == {f"sib{i}" for i in range(N_SIBLINGS)}
    assert set(plan.ancestor_statements) == {"root"}
    assert len(plan.sources) == before + N_SIBLINGS


def _full_pool(g: Graph, plan: WorkPlan, route: bool) -> set[str]:
    """What the whole-target workspace of the same kind held: the plan's own files, every
    def, and for a route every node's statement."""
    t = g.targets[T]
    pool = {_unquote(ids.defs_module_name(T, s)) for s in t.defs} | _mods(plan)
    if route:
        pool |= {_unquote(ids.module_name(T, n, "Statement")) for n, node in t.nodes.items()
                 if "Statement" in node.files}
    return pool


@pytest.mark.parametrize("kind", ["proof", "partial", "witness", "speculative"])
def test_every_plan_is_import_closed_within_the_full_pool(big: Graph, kind: str,
                                                          tmp_path: Path) -> None:
    """The property the verdicts rest on: every module a held file imports that the
    whole-target workspace held is held here too."""
    sib = ids.module_name(T, "sib3", "Statement")
    text = (f"import {sib}\nimport {ids.module_name(T, 'sib0', 'Proof')}\n"
            f"import {ids.defs_module_name(T, 'C')}\ntheorem Demo.root.h1 : True := sorry\n")
    if kind == "proof":
        plan, route = _proof(big, text), False
    elif kind == "partial":
        plan, route = _partial(big, text), True
    elif kind == "witness":
        path = f"{ND}/mid/Witness.lean"
        plan = plan_workspace(big, {path: text.encode()},
                              Artifact(Kind.WITNESS, T, "mid", [path], path))
        route = False
    else:
        nd = f"{ND}/fresh"
        gb = GraphBuilder(tmp_path / "fresh")
        gb.node(T, "fresh", statement=text, declaration="Demo.fresh", speculative=True)
        head = {f"{nd}/{f}": gb.read(f"{nd}/{f}") for f in ("META.yaml", "Statement.lean")}
        plan = plan_workspace(big, head, Artifact(Kind.SPECULATIVE, T, "fresh", list(head),
                                                  f"{nd}/Statement.lean"))
        route = False
    pool = _full_pool(big, plan, route)
    held = _mods(plan)
    for src in plan.sources:
        for mod in import_lines(src.data.decode()):
            if _unquote(mod) in pool:
                assert _unquote(mod) in held, (kind, src.module, mod)
    assert _unquote(ids.defs_module_name(T, "C")) in held
    assert (_unquote(sib) in held) == route
    assert len(plan.sources) < 12


def test_scratch_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile
    assert scratch_base("tmp") == Path(tempfile.gettempdir()).resolve()
    assert scratch_base(str(tmp_path / "s")) == tmp_path / "s" and (tmp_path / "s").is_dir()
    with pytest.raises(ValueError):
        scratch_base("relative/dir")
    monkeypatch.setenv(SCRATCH_ENV, str(tmp_path / "e"))
    assert scratch_base() == tmp_path / "e"
    monkeypatch.delenv(SCRATCH_ENV)
    auto = scratch_base()
    shm = Path("/dev/shm")
    if shm.is_dir() and "tmpfs" in subprocess.run(["stat", "-f", "-c", "%T", str(shm)],
                                                  capture_output=True, text=True,
                                                  check=False).stdout:
        assert auto == shm
    else:
        assert auto == Path(tempfile.gettempdir()).resolve()


@pytest.mark.skipif(shutil.which("bwrap", path="/usr/bin:/bin") is None
                    or not Path("/dev/shm").is_dir(), reason="needs bubblewrap and /dev/shm")
def test_the_sandbox_binds_a_workspace_on_dev_shm_read_only_with_scratch_writable() -> None:
    """bwrap's --dev makes a fresh /dev tmpfs where the bind points under /dev/shm are made;
    without a read-only remount the probe's write to scratch's parent would succeed (and
    refuse every run). The command remounts /dev read-only after the binds."""
    import tempfile

    from network.gate.sandbox.sandbox import Sandbox, SandboxLayout
    from network.record.models import Caps
    base = Path(tempfile.mkdtemp(prefix="lemmata-test-", dir="/dev/shm"))
    try:
        ro = base / "check"
        ro.mkdir()
        (ro / "f.lean").write_text("x")
        scratch = base / "run" / "out"
        scratch.mkdir(parents=True)
        layout = SandboxLayout(scratch=scratch, read_only=(ro,))
        cmd = Sandbox().command(["/bin/true"], layout, Caps())
        assert ["--remount-ro", "/dev"] == cmd[cmd.index("--remount-ro"):][:2]
        targets = [str(ro), str(base), str(base / "run"), "/dev", "/dev/shm"]
        script = ("for p in " + " ".join(targets) + "; do "
                  "(echo x > $p/w) 2>/dev/null && echo WROTE $p || echo DENIED $p; done; "
                  f"echo x > {scratch}/ok && echo WROTE scratch")
        res = Sandbox().run(["/bin/sh", "-c", script], layout, Caps(wall_s=20))
        assert res.rc == 0, res.stderr
        seen = dict(reversed(ln.split(" ", 1)) for ln in res.stdout.strip().splitlines())
        assert seen.pop("scratch") == "WROTE" and (scratch / "ok").is_file()
        assert set(seen) == set(targets) and set(seen.values()) == {"DENIED"}, seen
        assert not (ro / "w").exists() and not (base / "w").exists()
    finally:
        shutil.rmtree(base, ignore_errors=True)
