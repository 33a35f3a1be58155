"""The lake workspace the gate builds in, written from gate-spec pins alone (D-4 step 1).

A submission's own ``lakefile``, ``lean-toolchain`` and ``lake-manifest.json`` are ignored
(step 1; artifacts.py refuses them at step 2). The gate writes its own:

* ``lean-toolchain``: the gate-spec's ``lean_toolchain``, one line.
* ``lakefile.toml``: one library ``Lemmata`` (module layout from
  :func:`network.ids.module_path`), ``require`` entries for the pinned Mathlib and packages,
  no ``leanOptions`` or ``moreLeanArgs`` (LEAN_NOTES pitfalls).
* ``lake-manifest.json``: copied from the gate image's prebuilt pin directory, after checking
  that its revisions are exactly the gate-spec's; ``lake update`` is never run.
* ``.lake/packages``: a link to the pin directory's prebuilt packages (read-only in the
  sandbox).

Pin directories (prepared once per Mathlib revision when the gate image is built, from a
trusted project, never from a submission): ``<pins_root>/<mathlib rev>/`` for a target that
pins Mathlib, ``<pins_root>/core/`` for one that needs only Lean's core library; each holds
``lake-manifest.json`` and ``.lake/packages/<name>/`` with built oleans (``lake exe cache
get``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from network import ids
from network.errors import LemmataError
from network.record.models import GateSpec

ROOT_PACKAGE = "lemmata_gate"
LIBRARY = "Lemmata"
CHECKER_DIR = ".lemmata-checkers"
MANIFEST_VERSION = "1.1.0"


@dataclass(frozen=True)
class Source:
    """One Lean file the workspace holds.

    Attributes:
        module: its Lean module name (from :func:`network.ids.module_name` or
            :func:`network.ids.defs_module_name`).
        path: its path relative to the workspace root (``Lemmata/<target>/<node>/X.lean``).
        data: its exact bytes.
    """

    module: str
    path: PurePosixPath
    data: bytes

    @property
    def sha256(self) -> str:
        """SHA-256 of ``data``, 64 lowercase hex digits."""
        return hashlib.sha256(self.data).hexdigest()


def node_source(target: str, node: str, file_stem: str, data: bytes) -> Source:
    """A node file as a workspace source, named and placed by :mod:`network.ids` (ruling 3).

    Raises:
        LemmataError: ``bad-target-id`` or ``bad-node-id``.
    """
    return Source(ids.module_name(target, node, file_stem),
                  ids.module_path(target, node, file_stem), data)


@dataclass(frozen=True)
class Workspace:
    """A written lake workspace.

    Attributes:
        root: absolute path of the workspace directory (writable: lake writes ``.lake``).
        spec: the gate-spec it was written from.
        sources: the Lean files it holds.
        pins_dir: the pin directory its packages come from; None for none.
    """

    root: Path
    spec: GateSpec
    sources: tuple[Source, ...]
    pins_dir: Path | None = None

    def source(self, module: str) -> Source:
        """The source of ``module``.

        Raises:
            KeyError: the workspace holds no such module.
        """
        for s in self.sources:
            if s.module == module:
                return s
        raise KeyError(module)

    def input_files(self) -> dict[str, bytes]:
        """Every input file's exact bytes as on disk now, by workspace-relative path:
        ``lean-toolchain``, ``lakefile.toml`` and each source."""
        rels = ["lean-toolchain", "lakefile.toml", *(str(s.path) for s in self.sources)]
        return {rel: (self.root / rel).read_bytes() for rel in sorted(rels)}


def lean_toolchain_text(spec: GateSpec) -> str:
    """The ``lean-toolchain`` file: the pin and a newline (LEAN_NOTES "Pins")."""
    return spec.lean_toolchain + "\n"


def _toml_str(value: str) -> str:
    """A TOML basic string; the inputs are already pattern-checked by the models."""
    return json.dumps(value)


def lakefile_text(spec: GateSpec) -> str:
    """The gate's ``lakefile.toml``: the library and the pinned requires, nothing else.

    No ``leanOptions``/``moreLeanArgs``: options would be part of what is trusted.
    """
    lines = [f"name = {_toml_str(ROOT_PACKAGE)}", f"defaultTargets = [{_toml_str(LIBRARY)}]",
             ""]
    for pkg in ([spec.mathlib] if spec.mathlib else []) + list(spec.packages):
        lines += ["[[require]]", f"name = {_toml_str(pkg.name)}", f"git = {_toml_str(pkg.url)}",
                  f"rev = {_toml_str(pkg.rev)}", ""]
    lines += ["[[lean_lib]]", f"name = {_toml_str(LIBRARY)}",
              f"globs = [{_toml_str(LIBRARY + '.+')}]", ""]
    return "\n".join(lines)


def pins_key(spec: GateSpec) -> str:
    """The pin directory name for ``spec``: the Mathlib rev, or ``core``."""
    return spec.mathlib.rev if spec.mathlib else "core"


def manifest_for(spec: GateSpec, template: dict[str, Any] | None) -> dict[str, Any]:
    """The workspace's ``lake-manifest.json`` from the pin directory's manifest.

    Every gate-spec package must appear in ``template`` with exactly its pinned ``rev``;
    transitive packages (batteries, aesop, ...) are taken as the trusted template lists
    them.

    Raises:
        LemmataError: ``toolchain-mismatch`` when a pin is absent or at another revision.
    """
    wanted = ([spec.mathlib] if spec.mathlib else []) + list(spec.packages)
    packages: list[dict[str, Any]] = list((template or {}).get("packages", []))
    by_name = {str(p.get("name")): p for p in packages if isinstance(p, dict)}
    for pkg in wanted:
        have = by_name.get(pkg.name)
        if have is None or have.get("rev") != pkg.rev:
            raise LemmataError("toolchain-mismatch",
                               f"prebuilt packages lack {pkg.name} at {pkg.rev} "
                               f"(found {have.get('rev') if have else 'nothing'})")
    return {"version": MANIFEST_VERSION, "packagesDir": ".lake/packages",
            "packages": packages if wanted else [], "name": ROOT_PACKAGE, "lakeDir": ".lake"}


def write_workspace(root: Path, spec: GateSpec, sources: Sequence[Source],
                    pins_root: Path | None = None) -> Workspace:
    """Write a lake workspace for ``sources`` under ``root`` (created; must be empty).

    Args:
        root: absolute directory to write; it becomes the sandbox's scratch.
        spec: the gate-spec whose pins it follows.
        sources: the Lean files, with the exact bytes to write.
        pins_root: where pin directories live; None writes no packages (a target without
            Mathlib or packages needs none; one with them then fails to build).

    Returns:
        The :class:`Workspace`.

    Raises:
        LemmataError: ``toolchain-mismatch`` when the pin directory's manifest disagrees
            with the gate-spec, ``hostile-path`` when a source path escapes the workspace.
        FileExistsError: ``root`` exists and is not empty.
    """
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty")
    pins_dir = (pins_root / pins_key(spec)) if pins_root is not None else None
    template: dict[str, Any] | None = None
    if pins_dir is not None and (pins_dir / "lake-manifest.json").is_file():
        template = json.loads((pins_dir / "lake-manifest.json").read_text("utf-8"))
    needs_packages = spec.mathlib is not None or bool(spec.packages)
    manifest = manifest_for(spec, template if needs_packages else None)
    (root / "lean-toolchain").write_text(lean_toolchain_text(spec), "utf-8")
    (root / "lakefile.toml").write_text(lakefile_text(spec), "utf-8")
    (root / "lake-manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    if needs_packages and pins_dir is not None:
        (root / ".lake").mkdir()
        (root / ".lake" / "packages").symlink_to(pins_dir / ".lake" / "packages")
    for src in sources:
        rel = src.path
        if rel.is_absolute() or ".." in rel.parts or not str(rel).endswith(".lean"):
            raise LemmataError("hostile-path", f"source path {rel} is not a relative .lean path")
        dest = root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(src.data)
    return Workspace(root, spec, tuple(sources), pins_dir if needs_packages else None)


def root_module_text(modules: Sequence[str]) -> str:
    """``Lemmata.lean``: imports every module to build, so ``lake build Lemmata`` builds
    them without passing «»-quoted names on lake's command line."""
    return "".join(f"import {m}\n" for m in modules)


_COMPONENT_RE = re.compile(r"«([^«»]*)»|([^.«»]+)")


def name_components(name: str) -> list[str]:
    """Split a Lean name into its components, undoing «» quoting.

    ``Lemmata.«erdos-242».root.Statement`` → ``["Lemmata", "erdos-242", "root",
    "Statement"]``. Checker programs receive names this way (JSON arrays), so no Lean-side
    name parsing is needed.

    Raises:
        ValueError: the name is empty or malformed.
    """
    out: list[str] = []
    pos = 0
    while pos < len(name):
        m = _COMPONENT_RE.match(name, pos)
        if not m:
            raise ValueError(f"malformed Lean name {name!r}")
        out.append(m.group(1) if m.group(1) is not None else m.group(2))
        pos = m.end()
        if pos < len(name):
            if name[pos] != ".":
                raise ValueError(f"malformed Lean name {name!r}")
            pos += 1
            if pos == len(name):
                raise ValueError(f"malformed Lean name {name!r}")
    if not out:
        raise ValueError("empty Lean name")
    return out


def comparator_config(statement_module: str, solution_module: str, theorems: Sequence[str],
                      permitted_axioms: Sequence[str],
                      second_kernel: str | None = None) -> dict[str, Any]:
    """Comparator's config JSON (LEAN_NOTES "Comparator"; comparator README and Config).

    ``challenge_module`` is the statement, ``solution_module`` the proof; ``enable_nanoda``
    turns on the second kernel when the gate-spec asks for nanoda. No
    ``definition_names``: the gate never leaves definition holes to a solution.
    """
    return {
        "challenge_module": statement_module,
        "solution_module": solution_module,
        "theorem_names": list(theorems),
        "permitted_axioms": list(permitted_axioms),
        "enable_nanoda": second_kernel == "nanoda",
    }
