"""The kernels step 4 runs, the public soundness record, and whether a pin is known unsound
(D-4 step 4; issue 37).

A kernel check is only as good as the kernels that run it. Lean's own kernel has published
bugs that give an axiom-free proof of ``False`` through the ordinary checked path, which no
axiom check can see (``#print axioms`` shows nothing for them); the second kernels have had
bugs of their own. So the gate keeps the public soundness record as data,
``network/gate/soundness/record.json``: one entry per published bug, with its sources, the
toolchain releases that fix it, and for each checker whether it was fooled (``fooled``,
``not-fooled`` or ``unknown``; unknown counts as fooled).

A verdict may pass only where every listed kernel bug is caught: for each entry, at least
one kernel step 4 runs for the target (:func:`kernel_set`) is unaffected at its version.
Otherwise step 4 fails closed with ``toolchain-known-unsound`` naming the bugs
(:func:`known_unsound`). It needs no Lean, so it is reported beside step 2's findings, by
the precheck, on the target's page and by ``get_node``.

The kernels (names as the record's ``checkers``):

* ``lean``: the official kernel in process, ``leanchecker`` replaying the compiled modules;
  its version is the pinned toolchain's.
* ``lean-export``: the official kernel replaying a lean4export export (Comparator's own
  replay), run when the gate-spec selects Comparator; the toolchain's version.
* ``nanoda`` and ``lean4lean``: independent kernels, each at the commit the record's
  ``pins`` name (their version); one the record cannot pin is not run
  (:func:`independent_kernels`; today lean4lean, for which no source names a commit
  carrying its fix).

Step 4 then requires every kernel of the set to report, each at its expected version, and
every one to accept (:func:`judge_kernels`): a kernel that refuses while another accepts is
``kernel-disagreement``, never a pass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from network.errors import define
from network.record.models import GateSpec

define("toolchain-known-unsound", 4, 422,
       "The target's pinned toolchain, with the kernels step 4 runs for it, is known to "
       "accept a proof of False: for some published soundness bug, every one of those "
       "kernels is affected (or not known to be unaffected) at its version, so no verdict "
       "on this pin can be trusted.",
       "Re-pin the target to a toolchain the soundness record lists as fixed "
       "(`lemmata target repin TARGET --toolchain …`); the detail names the bugs, and "
       "network/gate/soundness/record.json cites each.")
define("kernel-disagreement", 4, 422,
       "The kernels step 4 runs disagree: at least one accepted the compiled modules and at "
       "least one refused them. A disagreement means a kernel bug somewhere, so it is a "
       "finding, never a pass.",
       "Report it to the gate's operators with the log: the refusing kernel's message says "
       "which declaration it rejected. Do not resubmit the same bytes.")
define("kernel-set-incomplete", 4, 500,
       "A kernel step 4 must run for this target did not report, or reported another "
       "version than the pinned one, so the replay cannot count.",
       "Install the pinned kernels (`lemmata toolchain install`); this is a gate fault.")

Status = Literal["fooled", "not-fooled", "unknown"]
KernelName = Literal["lean", "lean-export", "nanoda", "lean4lean"]
#: kernels that come with the pinned Lean toolchain (their version is the pin's)
TOOLCHAIN_KERNELS = frozenset({"lean", "lean-export", "leanchecker"})
#: independent kernels, each pinned by commit in the record's ``pins``
EXTERNAL_KERNELS: tuple[KernelName, ...] = ("nanoda", "lean4lean")

_URL = Annotated[str, StringConstraints(pattern=r"^https://\S+$", max_length=400)]
#: a release as Lean tags it: ASCII digits, no leading zeros (``v4.33.01`` or Arabic-Indic
#: digits, which ``\d`` would take, read as nothing, so as affected: fail closed)
_NUM = r"(0|[1-9][0-9]*)"
_VERSION = re.compile(rf"^v?{_NUM}\.{_NUM}\.{_NUM}(?:-rc{_NUM})?$")
_NIGHTLY = re.compile(r"^nightly-([0-9]{4}-[0-9]{2}-[0-9]{2})$")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolchainRange(_Frozen):
    """The Lean releases a toolchain bug affects: every release before the first fixed one
    on its own release line (``fixed``, e.g. ``["v4.32.2", "v4.33.0"]``), every nightly
    before ``fixed_nightly`` (a date; None: every nightly counts as affected), and nothing
    before ``introduced`` when a source names it."""

    fixed: list[Annotated[str, StringConstraints(pattern=_VERSION.pattern)]] = []
    fixed_nightly: Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}$")] | None = None
    introduced: Annotated[str, StringConstraints(pattern=_VERSION.pattern)] | None = None


class Defence(_Frozen):
    """Where the gate holds against a checker-level bypass, and the tests that show it."""

    where: Annotated[str, StringConstraints(max_length=300)]
    tests: list[Annotated[str, StringConstraints(max_length=300)]] = []


class SoundnessEntry(_Frozen):
    """One published soundness bug (``kind: kernel``) or checker-level bypass (``kind:
    bypass``), cited (``sources``, at least one)."""

    id: Annotated[str, StringConstraints(min_length=1, max_length=120)]
    kind: Literal["kernel", "bypass"]
    summary: Annotated[str, StringConstraints(min_length=1, max_length=2000)]
    sources: list[_URL] = Field(min_length=1)
    toolchains: ToolchainRange | None = None
    checkers: dict[str, Status] = {}
    fixed_commits: dict[str, list[Annotated[str, StringConstraints(
        pattern=r"^[0-9a-f]{40}$")]]] = {}
    defence: Defence | None = None


class KernelPin(_Frozen):
    """An independent kernel's repository and the commit the gate runs."""

    repo: _URL
    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")] | None
    sources: list[_URL] = []


class UpstreamFact(_Frozen):
    """A fact about upstream Lean the gate's wiring relies on, with its release."""

    fact: Annotated[str, StringConstraints(min_length=1, max_length=2000)]
    version: str | None = None
    sources: list[_URL] = Field(min_length=1)


class SoundnessRecord(_Frozen):
    """``network/gate/soundness/record.json`` (format ``lemmata-soundness-record/v1``)."""

    format: Literal["lemmata-soundness-record/v1"]
    as_of: Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}$")]
    checkers: dict[str, str]
    pins: dict[str, KernelPin] = {}
    upstream: list[UpstreamFact] = []
    entries: list[SoundnessEntry]


@cache
def soundness_record() -> SoundnessRecord:
    """The shipped soundness record, validated.

    Raises:
        pydantic.ValidationError: the shipped file does not follow the format (a gate bug;
            tests/test_kernels.py holds it valid).
    """
    raw = (resources.files("network.gate") / "soundness" / "record.json").read_text("utf-8")
    return SoundnessRecord.model_validate(json.loads(raw))


@dataclass(frozen=True)
class Kernel:
    """One kernel of step 4's set: its name (the record's checker name) and its version
    (the toolchain's ``4.34.1`` for Lean's own kernels, a commit for the others; None never
    counts as fixed, and step 4 refuses a verdict at it)."""

    name: str
    version: str | None


def _version_key(v: str) -> tuple[int, int, int, float]:
    m = _VERSION.match(v)
    if m is None:
        raise ValueError(f"not a release version: {v!r}")
    rc = float(m.group(4)) if m.group(4) else float("inf")
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), rc


def pin_tag(pin: str) -> str:
    """``leanprover/lean4:v4.34.1`` → ``v4.34.1``; a nightly keeps ``nightly-…``."""
    return pin.rsplit(":", 1)[-1]


def toolchain_fixed(pin: str, rng: ToolchainRange) -> bool:
    """Whether the pinned toolchain (``leanprover/lean4:v4.34.1`` or ``…:nightly-YYYY-MM-DD``)
    carries the fix: a release ≥ a listed fix on that fix's own major.minor line, or ≥ the
    largest listed fix (a later line's release candidate before that counts as affected);
    a nightly on or after ``fixed_nightly``; a release before ``introduced`` was never
    affected. Anything unreadable counts as affected (fail closed)."""
    tag = pin_tag(pin)
    night = _NIGHTLY.match(tag)
    if night is not None:
        return rng.fixed_nightly is not None and night.group(1) >= rng.fixed_nightly
    try:
        v = _version_key(tag)
    except ValueError:
        return False
    # before the introducing release's line position: a release candidate of that very
    # release already carries the bug
    if rng.introduced is not None and v[:3] < _version_key(rng.introduced)[:3]:
        return True
    fixes = [_version_key(f) for f in rng.fixed]
    if not fixes:
        return False
    if v >= max(fixes):
        return True
    return any(v >= f and v[:2] == f[:2] for f in fixes)


def affected(entry: SoundnessEntry, kernel: Kernel, pin: str) -> bool:
    """Whether ``kernel`` (at its version, on toolchain ``pin``) may be fooled by ``entry``:
    ``not-fooled`` never is; ``fooled`` or ``unknown`` (or no word) is, unless the fix is in:
    for Lean's own kernels the pin carries it (:func:`toolchain_fixed`), for an independent
    kernel its pinned commit is one the entry lists as fixed."""
    status = entry.checkers.get(kernel.name, "unknown")
    if status == "not-fooled":
        return False
    if kernel.name in TOOLCHAIN_KERNELS:
        return entry.toolchains is None or not toolchain_fixed(pin, entry.toolchains)
    return kernel.version is None or kernel.version not in entry.fixed_commits.get(
        kernel.name, [])


def independent_kernels(record: SoundnessRecord | None = None) -> tuple[Kernel, ...]:
    """The independent kernels the gate runs beside Lean's own: each of
    :data:`EXTERNAL_KERNELS` the record pins a commit for, at that commit. A kernel the
    record cannot pin (no source shows a commit carrying its fixes) is left out: the gate
    cannot say which build it would run, so it catches nothing."""
    rec = record or soundness_record()
    out: list[Kernel] = []
    for name in EXTERNAL_KERNELS:
        pin = rec.pins.get(name)
        if pin is not None and pin.commit is not None:
            out.append(Kernel(name, pin.commit))
    return tuple(out)


def kernel_set(spec: GateSpec, record: SoundnessRecord | None = None) -> tuple[Kernel, ...]:
    """The kernels step 4 runs for ``spec``: Lean's own (``lean``, and ``lean-export`` when
    the gate-spec selects Comparator), then every kernel of :func:`independent_kernels`
    (Comparator's optional second kernel is nanoda, one of them). Order: as listed, no
    repeats. The independent kernels are the gate's choice, never a gate-spec's: a target
    cannot opt out of them."""
    lean, *independent = replayed_kernels(spec, record)
    export = (Kernel("lean-export", lean.version),) if spec.kernel.replay == "comparator" \
        else ()
    return (lean, *export, *independent)


def replayed_kernels(spec: GateSpec, record: SoundnessRecord | None = None
                     ) -> tuple[Kernel, ...]:
    """The kernels step 4's replay must report (:meth:`network.gate.lean.toolchain.Toolchain.
    replay`): Lean's own (``lean``) and every one of :func:`independent_kernels`.
    Comparator's ``lean-export`` answers through the statement check instead, whose refusal
    fails step 4 on its own, so it counts in :func:`kernel_set` but is not asked of the
    replay."""
    return (Kernel("lean", pin_tag(spec.lean_toolchain).removeprefix("v")),
            *independent_kernels(record))


def known_unsound(spec: GateSpec, record: SoundnessRecord | None = None
                  ) -> tuple[SoundnessEntry, ...]:
    """The record's kernel bugs that no kernel of :func:`kernel_set` catches on ``spec``'s
    pin (empty: the pin may pass). Bypass entries never count here: the gate holds against
    them by design (each names its defence)."""
    rec = record or soundness_record()
    # only the kernels every artifact meets: Comparator's own replay checks a proof's
    # statement alone, so it is no defence for a statement, witness or variant
    kernels = replayed_kernels(spec, rec)
    return tuple(e for e in rec.entries if e.kind == "kernel"
                 and all(affected(e, k, spec.lean_toolchain) for k in kernels))


def unsound_detail(bugs: Sequence[SoundnessEntry], spec: GateSpec) -> str:
    """One line naming the bugs, for the finding, the precheck and the pages."""
    kernels = ", ".join(k.name for k in kernel_set(spec))
    return (f"{spec.lean_toolchain} with the kernels {kernels} is known unsound: "
            + ", ".join(b.id for b in bugs)
            + " (network/gate/soundness/record.json cites each)")


@dataclass(frozen=True)
class KernelVerdict:
    """One kernel's answer on step 4's replay.

    Attributes:
        name: the kernel (:data:`KernelName`).
        version: its version as run (toolchain version or commit).
        verdict: ``accept``, ``refuse`` or ``not-run`` (it could not run: missing, capped).
        code: the catalog code of a refusal or of why it did not run.
        detail: the kernel's message tail.
    """

    name: str
    version: str | None
    verdict: Literal["accept", "refuse", "not-run"]
    code: str | None = None
    detail: str = ""


def judge_kernels(expected: Sequence[Kernel], got: Sequence[KernelVerdict]
                  ) -> tuple[str | None, str]:
    """Step 4's reading of the kernels' answers: ``(None, "")`` when every expected kernel
    reported at its expected version and accepted; else ``(code, detail)``:

    * ``kernel-set-incomplete``: an expected kernel is missing, repeated, or at another
      version (a gate fault: the pinned kernels were not what ran);
    * a kernel that did not run keeps its own code (``toolchain-missing``,
      ``resource-cap-exceeded``, …);
    * ``kernel-disagreement``: some accepted and some refused;
    * ``kernel-replay-failed``: every kernel refused.
    """
    by_name: dict[str, KernelVerdict] = {}
    for v in got:
        if v.name in by_name:
            return "kernel-set-incomplete", f"kernel {v.name} reported twice"
        by_name[v.name] = v
    for k in expected:
        got_k = by_name.get(k.name)
        if got_k is None:
            return "kernel-set-incomplete", f"kernel {k.name} did not report"
        if k.version is None or got_k.version != k.version:
            return "kernel-set-incomplete", (f"kernel {k.name} ran at {got_k.version}, "
                                             f"pinned {k.version}")
    ran = [by_name[k.name] for k in expected]
    for v in ran:
        if v.verdict not in ("accept", "refuse"):  # not-run, or anything else
            return v.code or "toolchain-missing", f"kernel {v.name} did not run: {v.detail}"
    refused = [v for v in ran if v.verdict == "refuse"]
    if not refused:
        return None, ""
    names = ", ".join(v.name for v in refused)
    detail = f"refused by {names}: " + " | ".join(v.detail[-300:] for v in refused)
    if len(refused) < len(ran):
        accepted = ", ".join(v.name for v in ran if v.verdict == "accept")
        return "kernel-disagreement", f"accepted by {accepted}; {detail}"
    return "kernel-replay-failed", detail



class Replayed(Protocol):
    """What :func:`replay_refusal` reads of a kernel replay's answer
    (:class:`~network.gate.lean.toolchain.ReplayResult` has it)."""

    @property
    def ok(self) -> bool: ...
    @property
    def code(self) -> str | None: ...
    @property
    def log(self) -> str: ...
    @property
    def kernels(self) -> tuple[KernelVerdict, ...]: ...


def replay_refusal(expected: Sequence[Kernel], rep: Replayed) -> tuple[str, str] | None:
    """Step 4's reading of one kernel replay (issue 37), which step 4, the re-pin's drift
    report and the review's Lean share: ``(code, detail)`` when it refuses, else None.

    A replay that failed with no kernel's verdict keeps its own code; otherwise the
    kernels are judged by :func:`judge_kernels`, and a replay every kernel accepted that
    still failed keeps its own code (``kernel-replay-failed`` when it has none). The detail
    is the log's last 500 characters, or ``replay failed``.
    """
    if not rep.ok and not rep.kernels:
        return rep.code or "kernel-replay-failed", rep.log[-500:] or "replay failed"
    code, detail = judge_kernels(expected, rep.kernels)
    if code is None and not rep.ok:  # every kernel accepted yet the replay failed
        code, detail = rep.code or "kernel-replay-failed", rep.log[-500:]
    return None if code is None else (code, detail or "replay failed")

def pin_soundness(spec: GateSpec) -> dict[str, Any]:
    """What the pages, ``get_target``, ``get_node`` and ``/info.json`` say of a target's pin
    (issue 37): ``{"pinned": str, "kernels": [{"name", "version"}], "known_unsound": bool,
    "bugs": [{"id", "summary", "sources"}], "code": "toolchain-known-unsound" | None}``."""
    bugs = known_unsound(spec)
    return {"pinned": spec.lean_toolchain,
            "kernels": [{"name": k.name, "version": k.version} for k in kernel_set(spec)],
            "known_unsound": bool(bugs),
            "code": "toolchain-known-unsound" if bugs else None,
            "bugs": [{"id": b.id, "summary": b.summary, "sources": list(b.sources)}
                     for b in bugs]}
