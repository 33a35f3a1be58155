"""Step 3: the sandboxed build in two trust domains (D-4 step 3, v3.27; issue 10): the
pull request's sources build in a throwaway scratch workspace, the checks run in a fresh
check workspace built from base bytes, with only the contributed modules' hash-checked
oleans carried over.

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from network.errors import LemmataError
from network.gate.result import StepResult
from network.gate.sandbox import SandboxRunner
from network.gate.steps.context import _fail
from network.gate.toolchain import (
    BuildResult,
    Toolchain,
)
from network.gate.workspace import (
    Source,
    Workspace,
    place_carried,
    write_workspace,
)
from network.record import models as m


def write_plan(work_dir: Path, name: str, spec: m.GateSpec, plan_sources: Sequence[Source],
               toolchain: Toolchain) -> Workspace:
    """Write a check workspace of ``plan_sources`` under ``work_dir/name`` with the
    toolchain's prebuilt pins (when it has any); raises what :func:`write_workspace` raises.

    For sources that are all merged base bytes (the post-merge job): the gate builds it
    itself and checks in it; nothing of a pull request's own is in it."""
    return _write(work_dir, name, spec, plan_sources, toolchain)


def _write(work_dir: Path, name: str, spec: m.GateSpec, sources: Sequence[Source],
           toolchain: Toolchain, *, role: Literal["scratch", "check"] = "check",
           withheld: Sequence[Source] = ()) -> Workspace:
    pins_root = getattr(toolchain, "pins_root", None)
    return write_workspace(work_dir / name, spec, sources,
                           pins_root=pins_root if isinstance(pins_root, Path) else None,
                           role=role, withheld=withheld)


def build_two_domains(tc: Toolchain, sandbox: SandboxRunner, work_dir: Path, name: str,
                      spec: m.GateSpec, sources: Sequence[Source], contributed: Sequence[str],
                      caps: m.Caps) -> tuple[BuildResult, StepResult | None, Workspace | None]:
    """Build the pull request's sources in a throwaway scratch workspace, then a fresh check
    workspace from base bytes only, with the contributed modules' oleans carried over
    hash-checked (issue 10; D-4 step 3, v3.27).

    Returns:
        (the scratch build, the failure of the check workspace's set-up as a step-4
        result or None, the check workspace or None). A failed scratch build returns
        (build, None, None): step 3's to report.

    Raises:
        LemmataError: what :func:`write_workspace` raises (``toolchain-mismatch``,
            ``hostile-path``).
    """
    held = set(contributed)
    scratch = _write(work_dir, f"{name}-scratch", spec, sources, tc, role="scratch")
    built = tc.build(scratch, [s.module for s in sources], sandbox, caps,
                     export=[s.module for s in sources if s.module in held])
    if not built.ok:
        return built, None, None
    base = [s for s in sources if s.module not in held]
    check = _write(work_dir, f"{name}-check", spec, base, tc,
                   withheld=[s for s in sources if s.module in held])
    trusted = tc.build(check, [s.module for s in base], sandbox, caps)
    if not trusted.ok:
        return built, _fail(4, trusted.code or "lean-build-failed",
                            "the gate's own build of the base files failed: "
                            + (trusted.log or "")[-400:]), None
    try:
        check = place_carried(check, built.artifacts)
    except LemmataError as exc:
        return built, _fail(4, exc.code, exc.detail), None
    return built, None, check
