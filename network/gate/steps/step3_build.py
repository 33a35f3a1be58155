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
from network.gate.lean.olean_screen import screen_carried
from network.gate.lean.toolchain import (
    BuildResult,
    Toolchain,
)
from network.gate.result import Diagnostic, StepResult
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.workspace import (
    OleanArtifact,
    Source,
    Workspace,
    place_carried,
    write_workspace,
)
from network.gate.steps.context import _fail
from network.record import models as m

#: how the names through which Lean runs compiled code while checking a term are spelled
#: in a compiled file: ``Lean.reduceBool``/``Lean.reduceNat`` (the kernel's
#: ``reduce_native`` runs the IR of their constant argument, src/kernel/type_checker.cpp;
#: Meta's ``whnf`` does the same through ``reduceNative?`` and ``evalConstCheck``) and the
#: axioms ``Lean.ofReduceBool``/``Lean.ofReduceNat``, whose types hold them. A name's
#: string components are stored as plain UTF-8 in an olean's compacted region, so any
#: reference to one of them shows these bytes
NATIVE_REDUCTION_BYTES = (b"reduceBool", b"ReduceBool", b"reduceNat", b"ReduceNat")


def native_reduction_findings(artifacts: Sequence[OleanArtifact]) -> list[Diagnostic]:
    """Every carried compiled file that names native reduction (:data:`NATIVE_REDUCTION_BYTES`),
    as ``native-code-used``, read before any check imports or replays it (attack 3).

    Why before step 4 and not at step 5: the kernel replay (leanchecker) and the Meta
    checkers evaluate ``Lean.reduceBool c`` by *running* ``c``'s compiled code, in the check
    process, where an imported module supplies it (a merged proof of another node may hold
    a ``def c : Bool`` doing IO through ``(act).run ()``, which the screen cannot tell from
    arithmetic). Source never spells the names (the import-time screen refuses them), but
    the compiled files are the build's, and the build ran the contributor's code: a
    ``native_decide`` runs it at elaboration, and on GitHub the unprivileged job that
    produced them is the contributor's. So a file holding ``Lean.ofReduceBool c true rfl``
    could make leanchecker exit 0 before it met a forged theorem, and step 5 (after the
    replay) would come too late. A ``native_decide`` proof on a toolchain before v4.29 holds
    ``Lean.ofReduceBool`` too and is refused here, waiver or not: its replay needs its own
    module's compiled code, which leanchecker does not load, so it could not pass step 4
    anyway; from v4.29 native_decide writes a ``_native`` axiom instead, judged at step 5.
    """
    out: list[Diagnostic] = []
    for art in artifacts:
        for ext, data in art.files:
            hit = next((w for w in NATIVE_REDUCTION_BYTES if w in data), None)
            if hit is not None:
                out.append(Diagnostic("native-code-used",
                                      f"{art.module}'s {ext} names native reduction "
                                      f"({hit.decode()}); the checks would run compiled code",
                                      None))
    return out


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
        result or None, the check workspace or None); a carried file naming native
        reduction (:func:`native_reduction_findings`) is such a failure, and so is a
        carried module the olean screen refuses
        (:func:`~network.gate.lean.olean_screen.screen_carried`: an extension entry outside
        the inert set, ``olean-extension-entry``, or no bound report). A failed scratch build returns
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
    native = native_reduction_findings(built.artifacts)
    if native:  # refused before any check imports or replays a carried file (attack 3)
        return built, StepResult.refused(4, native), None
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
    # the carried oleans' extension entries, read as data before any checker imports them
    # (issue 32): anything outside the inert set, or no bound report, refuses
    screened = screen_carried(tc, check, [a.module for a in built.artifacts], sandbox, caps)
    if screened is not None:
        return built, screened, None
    return built, None, check
