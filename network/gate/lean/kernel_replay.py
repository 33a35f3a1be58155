"""Step 4's replay in every kernel of the set (issue 37; D-4 step 4, v3.16, v3.27).

:meth:`network.gate.lean.lean_toolchain.LeanToolchain.replay` calls :func:`replay_kernels`. Each
kernel runs in the check domain (the check workspace, its carried oleans and the run's input
folder read-only, a fresh output folder the only writable place; see
:meth:`~network.gate.lean.lean_toolchain.LeanToolchain.check_layout`), under the target's caps
with one thread, and answers a :class:`~network.gate.lean.kernels.KernelVerdict`:

* ``lean``: ``lake env leanchecker [--fresh] M`` per module (LEAN_NOTES "Kernel replay":
  exit 0 clean, 1 on a problem).
* ``nanoda``: the checked declarations and everything they use are exported with ``lake
  env lean4export M… -- decl…`` (LEAN_NOTES "lean4export": NDJSON on stdout), redirected
  into the run's output folder; nanoda then checks that file. Its binary takes one
  argument, a JSON configuration (nanoda_lib README, "Usage"; :func:`nanoda_config`).
* ``lean4lean``: ``lake env lean4lean [--fresh] M`` per module, lean4lean's own replay of
  the compiled module into its kernel (digama0/lean4lean Main.lean: "``lake exe lean4lean
  Mathlib.Data.Nat.Basic`` to check a single file", ``--fresh`` into an empty
  environment).

The independent kernels' binaries are ``<pins_root>/tools/nanoda_bin`` and
``<pins_root>/tools/lean4lean``, each with a ``<name>.commit`` file beside it naming the
commit it was built from (``lemmata toolchain install`` writes both from the soundness
record's pins); the commit is the version the verdict reports, and step 4 refuses a
kernel at another commit than the pinned one. A binary or commit file that is missing
answers ``not-run`` with ``toolchain-missing``: never a pass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from network.errors import LemmataError
from network.gate.lean.kernels import KernelVerdict, replayed_kernels
from network.gate.sandbox.sandbox import SandboxResult, SandboxRunner
from network.gate.sandbox.workspace import Workspace
from network.record.models import Caps, GateSpec


class CheckRunner(Protocol):
    """What a replay needs of the toolchain adapter: one sandboxed check run
    (:meth:`network.gate.lean.lean_toolchain.LeanToolchain._run_check` implements it; typed here
    so this module does not import the adapter that calls it, issue 34): the pins, the
    helper binaries, the toolchain's own tools and one sandboxed check run."""

    spec: GateSpec
    pins_root: Path
    lean4export: Path | None
    nanoda: Path | None

    def _tool(self, name: str) -> Path: ...

    def _helper(self, given: Path | None, name: str) -> Path | None: ...

    def _run_check(self, sandbox: SandboxRunner, workspace: Workspace, label: str,
                   inputs: Mapping[str, bytes], argv: Callable[[Path], Sequence[str]],
                   caps: Caps, extra_read_only: Sequence[Path] = (),
                   stdin: bytes | None = None) -> SandboxResult: ...


#: the binary of each independent kernel under ``<pins_root>/tools/``
KERNEL_BINARIES = {"nanoda": "nanoda_bin", "lean4lean": "lean4lean"}
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
EXPORT_FILE = "export.ndjson"


def kernel_commit(tools: Path, name: str) -> str | None:
    """The commit ``<tools>/<binary>.commit`` names for kernel ``name`` (40 hex), or None
    when the file is missing or holds anything else."""
    try:
        text = (tools / f"{KERNEL_BINARIES[name]}.commit").read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if _COMMIT.match(text) else None


def nanoda_config(export_file: Path) -> dict[str, object]:
    """nanoda's configuration for one export file. nanoda type-checks; which axioms a proof
    may use is step 5's, read from the gate's own checker report. So every axiom the export
    declares is admitted (``unsafe_permit_all_axioms``, which nanoda_lib's ``Config``
    requires ``unpermitted_axiom_hard_error`` be off beside), as Lake's own external-kernel
    runner skips rather than refuses them for an export holding every axiom in scope (lean4
    PR #15145, ``runExternalKernel``): an export always declares ``sorryAx``, and a partial
    or a waived ``native_decide`` proof uses axioms outside the allowlist by design. Nat and
    String literals are checked with nanoda's extensions, as Lean's kernel does
    (``nat_extension``, ``string_extension``; the lean-kernel-arena runs use both)."""
    return {"export_file_path": str(export_file), "use_stdin": False,
            "unsafe_permit_all_axioms": True, "unpermitted_axiom_hard_error": False,
            "nat_extension": True, "string_extension": True}


def _verdict(name: str, version: str | None, res: SandboxResult) -> KernelVerdict:
    log = (res.stdout + res.stderr)[-4000:]
    if res.killed_by is not None:
        return KernelVerdict(name, version, "not-run", "resource-cap-exceeded",
                             f"{name} hit the {res.killed_by} cap")
    if res.rc != 0:
        return KernelVerdict(name, version, "refuse", "kernel-replay-failed", log)
    return KernelVerdict(name, version, "accept", None, log)


def _per_module(tc: CheckRunner, workspace: Workspace, modules: Sequence[str],
                sandbox: SandboxRunner, caps: Caps, name: str, version: str | None,
                argv: Callable[[str], list[str]], tools: Sequence[Path] = ()) -> KernelVerdict:
    """One replay per module, ``tools`` (the kernel's binary) bound read-only; the first
    refusal or failure to run answers."""
    logs: list[str] = []
    for mod in modules:
        def command(_in_dir: Path, m: str = mod) -> list[str]:
            return argv(m)
        try:
            res = tc._run_check(sandbox, workspace, name, {}, command, caps,
                                extra_read_only=tools)
        except LemmataError as exc:
            return KernelVerdict(name, version, "not-run", exc.code, exc.detail)
        v = _verdict(name, version, res)
        if v.verdict != "accept":
            return v
        logs.append(v.detail)
    return KernelVerdict(name, version, "accept", None, "\n".join(logs)[-4000:])


def _nanoda(tc: CheckRunner, workspace: Workspace, modules: Sequence[str],
            sandbox: SandboxRunner, caps: Caps, binary: Path, version: str,
            decls: Sequence[str]) -> KernelVerdict:
    """Export the modules with lean4export into a run's output folder (only ``decls`` and
    what they use, after ``--``, when given), then check that file with nanoda in a second
    run that reads it from its input folder."""
    export = tc._helper(tc.lean4export, "lean4export")
    if export is None:
        return KernelVerdict("nanoda", version, "not-run", "toolchain-missing",
                             "lean4export is not installed")
    lake = str(tc._tool("lake"))
    script = 'out="$1"; shift; exec "$@" > "$out"'
    holder: dict[str, Path] = {}

    def export_argv(in_dir: Path) -> list[str]:
        out = in_dir.parent / "out" / EXPORT_FILE  # new_run's output folder beside in/
        holder["out"] = out
        return ["/bin/sh", "-c", script, "export", str(out), lake, "env", str(export),
                *modules, *(["--", *decls] if decls else [])]
    try:
        res = tc._run_check(sandbox, workspace, "lean4export", {}, export_argv, caps,
                            extra_read_only=(export,))
    except LemmataError as exc:
        return KernelVerdict("nanoda", version, "not-run", exc.code, exc.detail)
    out_file = holder["out"]
    if res.killed_by is not None or res.rc != 0 or out_file.is_symlink() \
            or not out_file.is_file():
        return KernelVerdict("nanoda", version, "not-run", "checker-failed",
                             f"lean4export failed (rc {res.rc}): {res.stderr[-2000:]}")
    config = nanoda_config(out_file)
    try:
        run = tc._run_check(
            sandbox, workspace, "nanoda",
            {"nanoda.json": json.dumps(config, sort_keys=True).encode("utf-8")},
            lambda d: [str(binary), str(d / "nanoda.json")], caps,
            extra_read_only=(holder["out"].parent, binary))
    except LemmataError as exc:
        return KernelVerdict("nanoda", version, "not-run", exc.code, exc.detail)
    return _verdict("nanoda", version, run)


def replay_kernels(tc: CheckRunner, workspace: Workspace, modules: Sequence[str],
                   sandbox: SandboxRunner, caps: Caps, fresh: bool,
                   decls: Sequence[str] = ()) -> tuple[KernelVerdict, ...]:
    """Every kernel of :func:`network.gate.lean.kernels.replayed_kernels` on ``modules``, in
    order: ``lean`` first, then each independent kernel. A kernel that refuses does not
    stop the others: step 4 needs every verdict to tell a refusal from a disagreement
    (:func:`network.gate.lean.kernels.judge_kernels`).

    Raises:
        ValueError: ``workspace`` is a scratch workspace.
    """
    one = Caps(cpu_s=caps.cpu_s, memory_mib=caps.memory_mib, wall_s=caps.wall_s, threads=1)
    flag = ["--fresh"] if fresh else []
    lake = str(tc._tool("lake"))
    lean, *independent = replayed_kernels(tc.spec)
    out = [_per_module(tc, workspace, modules, sandbox, one, "lean", lean.version,
                       lambda m: [lake, "env", "leanchecker", *flag, m])]
    tools = tc.pins_root / "tools"
    for kernel in independent:
        name = kernel.name
        binary = (tc.nanoda if name == "nanoda" else None) or tools / KERNEL_BINARIES[name]
        commit = kernel_commit(binary.parent, name)
        if not binary.is_file() or commit is None:
            out.append(KernelVerdict(name, commit, "not-run", "toolchain-missing",
                                     f"{name} is not installed at a pinned commit "
                                     f"({binary}; `lemmata toolchain install`)"))
        elif name == "nanoda":
            out.append(_nanoda(tc, workspace, modules, sandbox, one, binary, commit, decls))
        else:
            def own(m: str, b: Path = binary) -> list[str]:
                return [lake, "env", str(b), *flag, m]
            out.append(_per_module(tc, workspace, modules, sandbox, one, name, commit, own,
                                   (binary,)))
    return tuple(out)
