"""Finding the toolchain a gate-spec pins (DESIGN.md "Lean", D-4 step 1): the real adapter
(:class:`~network.gate.lean.lean_toolchain.LeanToolchain`) when elan's directory for the pin or
``PATH`` holds ``lean`` and ``lake``, else :class:`~network.gate.lean.toolchain.MissingToolchain`,
which fails closed with ``toolchain-missing``.

It sits above both the protocol (:mod:`network.gate.lean.toolchain`) and the adapter that
implements it, so neither imports the other upward (issue 34: no circle).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from network.gate.lean.lean_toolchain import LeanToolchain
from network.gate.lean.toolchain import MissingToolchain, Toolchain, toolchain_dir_name
from network.record.models import GateSpec

__all__ = ["detect_toolchain"]


def detect_toolchain(spec: GateSpec, *, search_path: str | None = None,
                     elan_home: Path | None = None,
                     pins_root: Path | None = None) -> Toolchain:
    """Find the real toolchain for ``spec``'s pin, or return :class:`MissingToolchain`.

    Looks, in order, for the elan toolchain directory ``<elan_home>/toolchains/<pin>/bin``
    holding ``lean`` and ``lake``, then for ``lean`` and ``lake`` on ``search_path``.
    Whether the found version matches the pin is :meth:`Toolchain.describe`'s answer.

    Args:
        spec: the target's gate-spec (pins).
        search_path: a PATH string; None means the process's PATH. An empty string finds
            nothing on PATH.
        elan_home: elan's home; None means ``~/.elan``.
        pins_root: where the gate image keeps prebuilt lake packages per Mathlib rev
            (see :mod:`network.gate.sandbox.workspace`); None means ``~/.cache/lemmata/pins``.

    Returns:
        A :class:`~network.gate.lean.lean_toolchain.LeanToolchain` or a
        :class:`MissingToolchain`. There is no way to get any other implementation here.

    Implements DESIGN.md "Lean" and D-4 step 1.
    """
    home = elan_home if elan_home is not None else Path.home() / ".elan"
    searched: list[str] = []
    bindir = home / "toolchains" / toolchain_dir_name(spec.lean_toolchain) / "bin"
    searched.append(str(bindir))
    lean = bindir / "lean"
    lake = bindir / "lake"
    if lean.is_file() and lake.is_file():
        return LeanToolchain(spec, bindir=bindir,
                             pins_root=pins_root or Path.home() / ".cache/lemmata/pins")
    searched.append(f"PATH={search_path if search_path is not None else '<process PATH>'}")
    if search_path != "":
        found_lean = shutil.which("lean", path=search_path)
        found_lake = shutil.which("lake", path=search_path)
        if found_lean and found_lake:
            return LeanToolchain(spec, bindir=Path(found_lean).resolve().parent,
                                 pins_root=pins_root or Path.home() / ".cache/lemmata/pins")
    return MissingToolchain(spec, tuple(searched))
