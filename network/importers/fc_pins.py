"""The toolchain, Mathlib and network pins a Formal Conjectures import writes into a
target's gate-spec (D-4 step 1, issue 32); split from
:mod:`network.importers.formal_conjectures` (issue 17's size rule), which re-exports them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from network.importers import GraphView, running_network_commit
from network.importers.fc_checkout import Checkout
from network.record import models as m

DEFAULT_TOOLCHAIN = "leanprover/lean4:v4.34.0"
DEFAULT_MATHLIB = m.LakePackage(name="mathlib",
                                url="https://github.com/leanprover-community/mathlib4",
                                rev="5ed2965256430c3649e86755f9576b54eca72435")

@dataclass
class _Pins:
    toolchain: str
    mathlib: m.LakePackage | None
    source: str
    network_commit: str | None = None  # the graph's, else this checkout's (issue 32)


def read_pins(co: Checkout, graph: GraphView) -> _Pins:
    """Toolchain and Mathlib pins: the checkout's ``lean-toolchain`` and
    ``lake-manifest.json``, else the graph's common pins, else the module defaults."""
    raw = co.read("lean-toolchain")
    toolchain = raw.decode("utf-8", "replace").strip() if raw else ""
    mathlib: m.LakePackage | None = None
    manifest = co.read("lake-manifest.json")
    if manifest:
        try:
            for pkg in json.loads(manifest).get("packages", []):
                if isinstance(pkg, dict) and pkg.get("name") == "mathlib":
                    mathlib = m.LakePackage(name="mathlib", url=str(pkg.get("url", "")).removesuffix(".git"),
                                            rev=str(pkg.get("rev", "")))
        except (ValueError, AttributeError):
            mathlib = None
    ok_tc = bool(re.fullmatch(
        r"leanprover/lean4:(v\d+\.\d+\.\d+(-rc\d+)?|nightly-\d{4}-\d{2}-\d{2})", toolchain))
    network = graph.common_network_commit() or running_network_commit()
    if ok_tc and mathlib is not None:
        return _Pins(toolchain, mathlib, "checkout", network)
    common = graph.common_pins()
    if common is not None:
        return _Pins(common[0], common[1], "graph", network)
    return _Pins(DEFAULT_TOOLCHAIN, DEFAULT_MATHLIB, "default", network)


_PIN_WORDS = {
    "checkout": "read from the checkout's lean-toolchain and lake-manifest.json",
    "graph": "not readable from the checkout; taken from the pins the graph's targets use",
    "default": "not readable from the checkout and none in the graph; the importer's defaults",
}
