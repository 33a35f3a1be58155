"""``lemmata toolchain install`` and ``status``: get the pinned Lean toolchains (issue 6).

For every distinct pin in the graph's gate-specs it runs, with elan and lake:

1. ``elan toolchain install <lean_toolchain>``;
2. in the pin directory ``<pins_root>/<mathlib rev or core>`` (the one
   :mod:`network.gate.sandbox.workspace` reads), a lake project requiring exactly the pinned
   packages, then ``lake update --keep-toolchain`` there (never in a gate workspace, LEAN_NOTES)
   and ``lake exe cache get`` for Mathlib's prebuilt oleans;
3. ``lake build +M …`` there for every module the graph's Lean files of that pin import from
   its packages (:func:`package_imports`), such as Formal Conjectures' ``FormalConjecturesUtil``:
   Mathlib's cache holds no other package's oleans, and a gate workspace reads the pin's
   packages read-only, so a module not built here could never be built at all (issue 28).

Nothing is downloaded by this module itself: elan and lake do the fetching, so where the
network does not allow it, the step that failed is named with its exit status and output.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from network import proc
from network.errors import LemmataError, define
from network.gate.lean.detect import detect_toolchain
from network.gate.sandbox.workspace import lakefile_text, lean_toolchain_text, pins_key
from network.gate.screens.lean_text_rules import import_lines
from network.record.models import GateSpec

define("toolchain-install-failed", None, 500,
       "Installing a pinned Lean toolchain or its Mathlib cache failed.",
       "Read the named step and its output; install elan (https://github.com/leanprover/elan) "
       "or allow the network it needs, then run `lemmata toolchain install` again.")

INSTALL_TIMEOUT_S = 3600.0
#: module roots the Lean toolchain ships itself (``Init``, ``Std``, ``Lean``, ``Lake``): lake
#: knows no target for them, and they are never built in a pin directory
CORE_MODULE_ROOTS = frozenset({"Init", "Std", "Lean", "Lake"})
#: the root of the graph's own modules (:func:`network.ids.module_path`,
#: :func:`network.ids.defs_module_name`): the gate's workspace builds those
GRAPH_MODULE_ROOT = "Lemmata"
#: one component of a module name lake's ``+M`` target takes as written (no «» quoting)
_COMPONENT = re.compile(r"[^\W\d][\w'!?]*")


def package_imports(graph: Path, specs: Mapping[str, GateSpec]) -> dict[str, list[str]]:
    """The modules the graph's Lean files import from their targets' pinned packages, per
    pin directory (issue 28: what ``lemmata toolchain install`` must build there).

    Args:
        graph: the graph checkout; every ``targets/<tid>/**/*.lean`` of each target in
            ``specs`` is read (imports from the token stream, :func:`import_lines`).
        specs: target id → its gate-spec.

    Returns:
        :func:`network.gate.sandbox.workspace.pins_key` → the sorted module names, without the
        toolchain's own (:data:`CORE_MODULE_ROOTS`), the graph's (:data:`GRAPH_MODULE_ROOT`)
        or, where the pin has Mathlib, Mathlib's (its cache brings them; asking lake for
        ``+Mathlib`` would re-check thousands of modules, or build them where the cache
        fell short);
        a name lake cannot take as ``+M`` (quoted with «») is left out, and its gate build
        then fails closed. A pin with neither Mathlib nor packages gets no entry.
    """
    out: dict[str, set[str]] = {}
    for tid, spec in sorted(specs.items()):
        if spec.mathlib is None and not spec.packages:
            continue
        mods = out.setdefault(pins_key(spec), set())
        for path in sorted((graph / "targets" / tid).rglob("*.lean")):
            if not path.is_file() or path.is_symlink():
                continue
            for mod in import_lines(path.read_text("utf-8", errors="replace")):
                parts = mod.split(".")
                if (parts[0] in CORE_MODULE_ROOTS or parts[0] == GRAPH_MODULE_ROOT
                        or (parts[0] == "Mathlib" and spec.mathlib is not None)
                        or not all(_COMPONENT.fullmatch(c) for c in parts)):
                    continue
                mods.add(mod)
    return {key: sorted(mods) for key, mods in out.items()}


@dataclass(frozen=True)
class InstallStep:
    """One command the installer ran: its name, argv, exit status and output tail."""

    name: str
    argv: tuple[str, ...]
    rc: int
    output: str


@dataclass
class _Steps:
    """Runs the installer's commands one by one, keeping each as an :class:`InstallStep`;
    the first that exits non-zero raises ``toolchain-install-failed`` naming it, its exit
    status and its output's tail."""

    run: Callable[..., proc.Completed]
    say: Callable[[str], None]
    done: list[InstallStep] = field(default_factory=list)

    def __call__(self, name: str, argv: list[str], cwd: Path | None = None) -> str:
        self.say(f"{name}: {' '.join(argv)}")
        out = self.run(argv, cwd=cwd, timeout_s=INSTALL_TIMEOUT_S)
        tail = (out.out + out.err)[-2000:]
        self.done.append(InstallStep(name, tuple(argv), out.rc, tail))
        if out.rc != 0:
            raise LemmataError("toolchain-install-failed",
                               f"{name} exited {out.rc}: {tail.strip() or '(no output)'}")
        return out.out


def find_elan(search_path: str | None = None, elan_home: Path | None = None) -> str | None:
    """``elan`` on ``search_path`` (None: the process PATH) or in ``<elan_home>/bin``."""
    home = elan_home if elan_home is not None else Path.home() / ".elan"
    candidate = home / "bin" / "elan"
    if candidate.is_file():
        return str(candidate)
    return shutil.which("elan", path=search_path)


def distinct_specs(specs: Sequence[GateSpec]) -> list[GateSpec]:
    """One spec per (toolchain, pin directory), in first-seen order."""
    seen: set[tuple[str, str]] = set()
    out: list[GateSpec] = []
    for spec in specs:
        key = (spec.lean_toolchain, pins_key(spec))
        if key not in seen:
            seen.add(key)
            out.append(spec)
    return out


def install_toolchains(
    specs: Sequence[GateSpec],
    *,
    pins_root: Path,
    elan: str | None,
    elan_home: Path | None = None,
    run: Callable[..., proc.Completed] = proc.run,
    say: Callable[[str], None] = lambda _line: None,
    modules: Mapping[str, Sequence[str]] | None = None,
) -> list[InstallStep]:
    """Install every pinned toolchain and prepare its pin directory.

    Args:
        specs: the gate-specs whose pins to install.
        pins_root: where pin directories are prepared (``~/.cache/lemmata/pins``).
        elan: the elan executable (from :func:`find_elan`), or None.
        elan_home: elan's home, to find ``lake`` of an installed toolchain.
        run: the subprocess wrapper (tests pass a recorder).
        say: progress lines.
        modules: pin directory (:func:`network.gate.sandbox.workspace.pins_key`) → the
            package modules to build there (:func:`package_imports`); none when absent.

    Returns:
        Every step run, in order.

    Raises:
        LemmataError: ``toolchain-install-failed`` naming the step that failed, its exit
            status and the tail of its output; or that elan is missing.
    """
    if elan is None:
        raise LemmataError("toolchain-install-failed",
                           "elan is not installed on this machine (looked on PATH and in "
                           "~/.elan/bin); install it, then run this again")
    home = elan_home if elan_home is not None else Path(elan).resolve().parent.parent
    step = _Steps(run, say)

    for spec in distinct_specs(specs):
        step("install toolchain", [elan, "toolchain", "install", spec.lean_toolchain])
        bindir = home / "toolchains" / spec.lean_toolchain.replace("/", "--").replace(
            ":", "---") / "bin"
        lake = str(bindir / "lake")
        pin_dir = pins_root / pins_key(spec)
        pin_dir.mkdir(parents=True, exist_ok=True)
        (pin_dir / "lean-toolchain").write_text(lean_toolchain_text(spec), "utf-8")
        (pin_dir / "lakefile.toml").write_text(lakefile_text(spec), "utf-8")
        (pin_dir / "Lemmata.lean").write_text("", "utf-8")
        if spec.mathlib is None and not spec.packages:
            continue
        step("resolve pinned packages", [lake, "update", "--keep-toolchain"], cwd=pin_dir)
        if spec.mathlib is not None:
            step("fetch the Mathlib cache", [lake, "exe", "cache", "get"], cwd=pin_dir)
        wanted = (modules or {}).get(pins_key(spec), ())
        if wanted:
            step("build the pinned packages' modules the graph imports",
                 [lake, "build", *(f"+{m}" for m in wanted)], cwd=pin_dir)
    return step.done


def toolchain_status(specs: dict[str, GateSpec], *, search_path: str | None = None,
                     elan_home: Path | None = None) -> dict[str, str]:
    """Target id → a sentence saying whether its pinned toolchain is installed here."""
    out: dict[str, str] = {}
    for tid, spec in sorted(specs.items()):
        tc = detect_toolchain(spec, search_path=search_path, elan_home=elan_home)
        info = tc.describe()
        out[tid] = (f"{spec.lean_toolchain}: installed (Lean {info.lean_version})" if info.ok
                    else f"{spec.lean_toolchain}: not checkable here ({info.code}: "
                         f"{info.detail})")
    return out


#: how each independent kernel is built from its pinned checkout, and the binary it leaves
#: (nanoda_lib README "Usage": ``cargo build --release``; lean4lean and lean4export are
#: lake packages whose executables land in ``.lake/build/bin``)
KERNEL_BUILDS: dict[str, tuple[tuple[str, ...], str]] = {
    "nanoda": (("cargo", "build", "--release"), "target/release/nanoda_bin"),
    "lean4lean": (("lake", "build", "lean4lean"), ".lake/build/bin/lean4lean"),
}


def install_kernels(
    *,
    pins_root: Path,
    run: Callable[..., proc.Completed] = proc.run,
    say: Callable[[str], None] = lambda _line: None,
    git: str = "git",
) -> list[InstallStep]:
    """Build every independent kernel of the soundness record's ``pins`` at its pinned
    commit (issue 37) into ``<pins_root>/tools/``: the binary step 4 runs
    (:data:`network.gate.lean.kernel_replay.KERNEL_BINARIES`) and ``<binary>.commit`` naming the
    commit, which the replay reports as the kernel's version. The checkout is verified to
    be exactly that commit (``git rev-parse HEAD``) before anything is built; a kernel the
    record pins no commit for is skipped with a line saying so (step 4 then refuses, never
    passes).

    Returns:
        Every step run, in order.

    Raises:
        LemmataError: ``toolchain-install-failed`` naming the step that failed.
    """
    from network.gate.lean.kernel_replay import KERNEL_BINARIES
    from network.gate.lean.kernels import soundness_record

    tools = pins_root / "tools"
    step = _Steps(run, say)

    for name, (build, built) in KERNEL_BUILDS.items():
        pin = soundness_record().pins.get(name)
        if pin is None or pin.commit is None:
            say(f"{name}: the soundness record pins no commit; step 4 will refuse until it does")
            continue
        src = tools / "src" / name
        if src.exists():
            shutil.rmtree(src)
        src.parent.mkdir(parents=True, exist_ok=True)
        step(f"fetch {name}", [git, "clone", "--quiet", pin.repo, str(src)])
        step(f"check out {name}", [git, "-C", str(src), "checkout", "--quiet", "--detach",
                                   pin.commit])
        head = step(f"verify {name}", [git, "-C", str(src), "rev-parse", "HEAD"]).strip()
        if head != pin.commit:
            raise LemmataError("toolchain-install-failed",
                               f"{name} checked out {head}, pinned {pin.commit}")
        step(f"build {name}", list(build), cwd=src)
        binary = tools / KERNEL_BINARIES[name]
        shutil.copy2(src / built, binary)
        (tools / f"{KERNEL_BINARIES[name]}.commit").write_text(pin.commit + "\n", "ascii")
    return step.done
