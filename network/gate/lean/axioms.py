"""Axiom identity for step 5 (D-4 step 5, v3.27; issue 10 "Axiom and pin identity").

A name alone does not identify an axiom: a contributor can declare ``axiom propext …`` in
a ``prelude`` module, or a ``Classical.choice`` of their own. So an allowed axiom counts
only when three things match a table pinned per toolchain and shipped with the package,
``network/gate/axioms/<elan dir name of the pin>.json``:

* its name;
* the module that declares it (``Init.Core`` for ``propext`` and ``Quot.sound``,
  ``Init.Prelude`` for ``Classical.choice``, as lean4's ``src/Init/Core.lean`` and
  ``src/Init/Prelude.lean`` declare them);
* the SHA-256 of its identity key: the checker programs' ``constKey`` (Common.lean), the
  universe parameters, ``|``, and a structural text of the type (de Bruijn indices, no
  binder names, infos or metadata).

A table entry whose ``type_sha256`` is null, an axiom the table does not list, a toolchain
with no table, or a report without identities all refuse (``axiom-identity-mismatch``):
fail closed. The shipped values were derived by hand from those source declarations (each
entry carries its key text, so a reader can redo the derivation); the ``lean``-marked
test ``tests/test_toolchain_real.py::test_axiom_table_matches_lean`` compares them with
what the pinned Lean reports, and a wrong value refuses, never passes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from network.errors import define
from network.gate.lean.toolchain import AxiomIdentity, toolchain_dir_name
from network.gate.sandbox.workspace import name_components

define("axiom-identity-mismatch", 5, 422,
       "An axiom the gate-spec allows by name is not the pinned one: it is declared in "
       "another module, has another type, or the toolchain's axiom table cannot identify it.",
       "Use Lean's own propext, Classical.choice and Quot.sound (never a declaration of "
       "your own with their names); a gate operator adds the pinned toolchain's table to "
       "network/gate/axioms/.")

NATIVE_AXIOMS = frozenset({"Lean.ofReduceBool", "Lean.ofReduceNat", "Lean.trustCompiler"})


def is_native_axiom(name: str) -> bool:
    """An axiom that trusts the compiler: the three pre-4.29 names, or any name with a
    component starting ``_native`` (lean4 PR #12217, LEAN_NOTES "Native evaluation")."""
    try:
        parts = name_components(name)
    except ValueError:
        parts = [name]
    return name in NATIVE_AXIOMS or any(c.startswith("_native") for c in parts)


def type_sha256(type_key: str) -> str:
    """SHA-256 hex of an identity key as the checkers print it (UTF-8)."""
    return hashlib.sha256(type_key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PinnedAxiom:
    """One allowed axiom as the pinned toolchain declares it.

    Attributes:
        name: the full name, e.g. ``Quot.sound``.
        module: the declaring module, e.g. ``Init.Core``.
        type_sha256: SHA-256 of its identity key; None means not yet known (refuses).
        type_key: the key text itself (for readers re-deriving it), may be empty.
    """

    name: str
    module: str
    type_sha256: str | None
    type_key: str = ""


def table_name(pin: str) -> str:
    """The table file for a pin: ``leanprover/lean4:v4.34.0`` →
    ``leanprover--lean4---v4.34.0.json``."""
    return toolchain_dir_name(pin) + ".json"


@cache
def pinned_table(pin: str) -> Mapping[str, PinnedAxiom] | None:
    """The axiom table shipped for exactly ``pin``, or None when there is none.

    Raises:
        ValueError: the file exists but is not a well-formed table (a packaging fault).
    """
    path = resources.files("network.gate") / "axioms" / table_name(pin)
    if not path.is_file():
        return None
    return parse_table(json.loads(path.read_text("utf-8")), pin)


def parse_table(raw: Any, pin: str) -> Mapping[str, PinnedAxiom]:
    """A table file's JSON → name → :class:`PinnedAxiom`.

    Raises:
        ValueError: not a table for ``pin``, or an entry's hash is not its key's.
    """
    if not isinstance(raw, dict) or raw.get("toolchain") != pin \
            or not isinstance(raw.get("axioms"), dict):
        raise ValueError(f"{table_name(pin)} is not an axiom table for {pin}")
    out: dict[str, PinnedAxiom] = {}
    for name, entry in raw["axioms"].items():
        sha = entry.get("type_sha256")
        key = str(entry.get("type_key") or "")
        if sha is not None and key and type_sha256(key) != sha:
            raise ValueError(f"{table_name(pin)}: {name}'s type_sha256 is not its key's")
        out[name] = PinnedAxiom(name, str(entry["module"]), sha, key)
    return out


def identity_problems(axioms: Sequence[str], identities: Sequence[AxiomIdentity],
                      allowed: Sequence[str], pin: str) -> list[str]:
    """Why allowed-by-name ``axioms`` are not the pinned ones ([] when every one is).

    Judged here: the axioms whose names are in ``allowed``, and any other the pin's table
    lists (the compiler-trusting ``Lean.ofReduceBool``/``Lean.ofReduceNat`` of toolchains
    before v4.29, which a native_decide waiver may admit by name). The rest are refused by
    name already (sorry, not permitted). Each judged axiom must have exactly one identity
    in ``identities`` whose module and type hash equal the table's for ``pin``.
    """
    table = pinned_table(pin)
    wanted = [a for a in axioms if a in set(allowed) or (table is not None and a in table)]
    if not wanted:
        return []
    if table is None:
        return [(f"no axiom table is pinned for {pin}, so {', '.join(wanted)} cannot be "
                 "identified")]
    by_name: dict[str, list[AxiomIdentity]] = {}
    for ident in identities:
        by_name.setdefault(ident.name, []).append(ident)
    out: list[str] = []
    for a in wanted:
        entry = table.get(a)
        got = by_name.get(a, [])
        if entry is None or entry.type_sha256 is None:
            out.append(f"the axiom table for {pin} has no identity for {a}")
        elif len(got) != 1:
            out.append(f"the checker reported {len(got)} identities for {a}")
        elif got[0].module != entry.module:
            out.append(f"{a} is declared in {got[0].module or 'the checked file'}, "
                       f"not {entry.module}")
        elif got[0].type_sha256 != entry.type_sha256:
            out.append(f"{a} has another type than {entry.module}'s")
    return out
