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

**Two trust domains** (issue 10; D-4 v3.27 "a verdict rests on a second run that executes
none of the contributor's code"; DESIGN.md "Security posture"):

* a **scratch** workspace (``role="scratch"``) holds every source, the contributor's
  included; step 3 builds it with the whole folder bound writable. Anything in it may have
  been rewritten by elaboration-time code: oleans of the statement, ``lakefile.toml``,
  ``lean-toolchain``, links planted anywhere. The gate reads back exactly one thing: the
  contributor's modules' compiled files (:func:`export_oleans`), each read without
  following links (:mod:`network.gate.sandbox.safe_io`), size-capped and SHA-256 recorded.
* a **check** workspace (``role="check"``, fresh) is written by the gate from base bytes
  only (the node's Statement, Witness, the target's defs, the merged proofs a use line
  imports, gate-made hole statements), with packages read-only from the pin directory; the
  gate builds it there itself (its only writable run), then :func:`place_carried` writes the
  carried files into a host-only folder ``<root>.host/carried/lib/lean`` that no sandbox
  ever gets write access to, and the checks run with the workspace bound read-only and a
  fresh per-run output folder as their only writable place. A carried module named like a
  module the check workspace builds, or whose olean path the trusted build already filled,
  is refused (``build-output-refused``): it could otherwise shadow a trusted olean.
* checker requests, the checkers' sources and Comparator's config are written into fresh
  host-only ``<root>.host/<run>/in`` folders before the run and bound read-only
  (:func:`new_run`); the host never writes into a folder a sandbox wrote.

Why hash-checked oleans and not lean4export data: the gate's checkers
(``network/gate/lean/*.lean``) are Lean programs that ``importModules`` the statement and
the solution, and leanchecker replays an olean; lean4export's NDJSON would need every
checker rewritten as an NDJSON reader. The cost is stated plainly: a crafted olean is
mmapped by the check run, so a loader exploit could forge that run's report, though not
write anything anywhere (the run's only writable folder is its own output). Where the
gate-spec asks for Comparator (``kernel.replay == "comparator"``), Comparator does the
export itself from a never-built workspace (:func:`write_workspace` with every source, see
``LeanToolchain.run_comparator``), as its README's assumption 2 requires.

Facts this rests on, read in the tools' sources:

* lake writes a module's compiled files to ``<pkg>/.lake/build/lib/lean/<Mod/Path>`` with
  the extensions ``olean``, ``olean.server``, ``olean.private``, ``ilean`` (also ``ir``,
  ``trace``): lean4 src/lake/Lake/Config/Module.lean (``oleanFile``, ``oleanServerFile``,
  ``oleanPrivateFile``, ``ileanFile``: ``leanLibPath ext`` under ``pkg.leanLibDir``), and
  src/lake/Lake/Config/Package.lean (``leanLibDir := buildDir / config.leanLibDir``).
* ``lake env`` sets ``LEAN_PATH`` to ``ws.leanPath ++ lakeEnv.leanPath`` where
  ``lakeEnv.leanPath = lake.libDir :: initLeanPath`` and ``initLeanPath`` is the existing
  ``LEAN_PATH``: lean4 src/lake/Lake/Config/Workspace.lean (``augmentedLeanPath``,
  ``augmentedEnvVars``) and src/lake/Lake/Config/Env.lean (``compute``, ``leanPath``). So an
  existing ``LEAN_PATH`` is kept, *after* every package's own lib folder: the carried folder
  passed that way can never shadow a trusted olean of the workspace or its packages.
* Comparator assumes the challenge, its imports and the lakefile are trusted, and that the
  solution (or any adversarial file) was never compiled before; it builds challenge and
  solution itself, writing ``.lake``: leanprover/comparator README.md ("Given the following
  assumptions" 1-2, "Internals" 1-3).

Not confirmed here (no Lean on this machine): that ``lake env`` in a read-only check
workspace writes nothing under ``.lake`` once the gate's own build ran there. If it tried,
the write fails and so does the check run: closed, never a pass.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from network import ids
from network.errors import LemmataError, define
from network.gate.sandbox import safe_io
from network.record.models import GateSpec

define("toolchain-mismatch", 1, 503,
       "The installed Lean toolchain or prebuilt packages differ from gate-spec.json's pins.",
       "Install exactly the pinned toolchain and Mathlib revision (elan, lake exe cache get).")

ROOT_PACKAGE = "lemmata_gate"
LIBRARY = "Lemmata"
MANIFEST_VERSION = "1.1.0"
#: Where lake puts the root package's compiled modules (Lake Module.lean, Package.lean).
LIB_DIR = PurePosixPath(".lake/build/lib/lean")
#: The compiled files of one module that cross from scratch, ``olean`` first (required);
#: the others exist only for module-system files or when lake writes them.
OLEAN_EXTS = ("olean", "olean.server", "olean.private", "ilean")
#: Cap on one compiled file read back from scratch (bytes).
MAX_OLEAN_BYTES = 256 * 1024 * 1024

Role = Literal["scratch", "check"]


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
class CarriedFile:
    """One compiled file carried from scratch into a check workspace.

    Attributes:
        module: the module it belongs to.
        path: its path below the carried lib folder (``Lemmata/<t>/<n>/Proof.olean``).
        sha256: SHA-256 of its bytes as read from scratch, 64 lowercase hex digits.
    """

    module: str
    path: PurePosixPath
    sha256: str


@dataclass(frozen=True)
class OleanArtifact:
    """A contributor module's compiled files, read from scratch without following links.

    Attributes:
        module: the module name.
        source_path: its source's workspace-relative path (``Lemmata/<t>/<n>/Proof.lean``).
        files: (extension, bytes) for each of :data:`OLEAN_EXTS` present, ``olean`` first.
    """

    module: str
    source_path: PurePosixPath
    files: tuple[tuple[str, bytes], ...] = field(repr=False)

    @property
    def hashes(self) -> dict[str, str]:
        """Extension → SHA-256 hex of that file's bytes."""
        return {ext: hashlib.sha256(data).hexdigest() for ext, data in self.files}


@dataclass(frozen=True)
class Workspace:
    """A written lake workspace.

    Attributes:
        root: absolute path of the workspace directory.
        spec: the gate-spec it was written from.
        sources: the Lean files it holds.
        pins_dir: the pin directory its packages come from; None for none.
        role: ``scratch`` (the contributor's build: bound writable, trusted for nothing
            but the carried oleans) or ``check`` (gate-owned: built by the gate from base
            bytes, then bound read-only to every check run).
        host_dir: ``<root>.host``, a folder only the host writes (per-run request folders,
            the carried oleans); never bound writable into a sandbox.
        withheld: the contributor's sources a check workspace does not hold (their oleans
            are carried instead); Comparator gets them as source in a fresh workspace.
        carried: the carried files, once :func:`place_carried` wrote them.
        carried_dir: the lib folder holding them (``<host_dir>/carried/lib/lean``).
    """

    root: Path
    spec: GateSpec
    sources: tuple[Source, ...]
    pins_dir: Path | None = None
    role: Role = "check"
    host_dir: Path | None = None
    withheld: tuple[Source, ...] = ()
    carried: tuple[CarriedFile, ...] = ()
    carried_dir: Path | None = None

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
        ``lean-toolchain``, ``lakefile.toml``, each source and, in a check workspace, each
        carried file as ``carried/<path>``. Read without following links."""
        rels = ["lean-toolchain", "lakefile.toml", *(str(s.path) for s in self.sources)]
        out = {rel: safe_io.read_file(self.root, rel) for rel in rels}
        if self.carried_dir is not None:
            for c in self.carried:
                out[f"carried/{c.path}"] = safe_io.read_file(self.carried_dir, c.path)
        return dict(sorted(out.items()))


def require_check(workspace: Workspace) -> None:
    """Refuse to check in a scratch workspace: its files are the contributor's to rewrite.

    Raises:
        ValueError: ``workspace.role`` is ``scratch`` (a gate bug, never a verdict).
    """
    if workspace.role != "check":
        raise ValueError(f"checks never run in the scratch workspace {workspace.root}")


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
                    pins_root: Path | None = None, *, role: Role = "check",
                    withheld: Sequence[Source] = ()) -> Workspace:
    """Write a lake workspace for ``sources`` under ``root`` (created; must be empty).

    Writes ``lean-toolchain``, ``lakefile.toml``, ``lake-manifest.json`` and the sources,
    all before any sandbox runs there, and creates the host-only folder ``<root>.host``.
    No root module ``Lemmata.lean`` is written (:func:`root_module_text` says why).

    Args:
        root: absolute directory to write.
        spec: the gate-spec whose pins it follows.
        sources: the Lean files, with the exact bytes to write.
        pins_root: where pin directories live; None writes no packages (a target without
            Mathlib or packages needs none; one with them then fails to build).
        role: ``scratch`` for the contributor's build, ``check`` for the gate's own.
        withheld: (check workspaces) the contributor's sources kept out of it.

    Returns:
        The :class:`Workspace`.

    Raises:
        LemmataError: ``toolchain-mismatch`` when the pin directory's manifest disagrees
            with the gate-spec, ``hostile-path`` when a source path escapes the workspace.
        FileExistsError: ``root`` exists and is not empty, or ``<root>.host`` exists.
    """
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty")
    host_dir = root.parent / f"{root.name}.host"
    host_dir.mkdir()
    pins_dir = (pins_root / pins_key(spec)) if pins_root is not None else None
    template: dict[str, Any] | None = None
    if pins_dir is not None and (pins_dir / "lake-manifest.json").is_file():
        template = json.loads((pins_dir / "lake-manifest.json").read_text("utf-8"))
    needs_packages = spec.mathlib is not None or bool(spec.packages)
    manifest = manifest_for(spec, template if needs_packages else None)
    for src in sources:
        rel = src.path
        if rel.is_absolute() or ".." in rel.parts or not str(rel).endswith(".lean"):
            raise LemmataError("hostile-path", f"source path {rel} is not a relative .lean path")
    safe_io.write_new(root, "lean-toolchain", lean_toolchain_text(spec).encode())
    safe_io.write_new(root, "lakefile.toml", lakefile_text(spec).encode())
    safe_io.write_new(root, "lake-manifest.json",
                      (json.dumps(manifest, indent=2) + "\n").encode())
    if needs_packages and pins_dir is not None:
        (root / ".lake").mkdir()
        (root / ".lake" / "packages").symlink_to(pins_dir / ".lake" / "packages")
    for src in sources:
        safe_io.write_new(root, src.path, src.data)
    return Workspace(root, spec, tuple(sources), pins_dir if needs_packages else None,
                     role, host_dir, tuple(withheld))


def olean_path(source_path: PurePosixPath, ext: str = "olean") -> PurePosixPath:
    """Where lake writes a module's ``ext`` file below :data:`LIB_DIR`:
    ``Lemmata/t/n/Proof.lean`` → ``Lemmata/t/n/Proof.olean`` (Lake Module.lean)."""
    return source_path.with_name(source_path.name[: -len(".lean")] + "." + ext)


def export_oleans(scratch: Workspace, modules: Sequence[str]) -> tuple[OleanArtifact, ...]:
    """Read ``modules``' compiled files from a built scratch workspace (issue 10).

    Every file is read with :func:`network.gate.sandbox.safe_io.read_optional` (no link followed,
    regular files only, at most :data:`MAX_OLEAN_BYTES`); ``.olean`` must exist.

    Raises:
        KeyError: a module the workspace does not hold.
        LemmataError: ``build-output-refused`` for a link, a special file, an oversize file
            or a missing ``.olean``.
    """
    out: list[OleanArtifact] = []
    for m in modules:
        src = scratch.source(m)
        files: list[tuple[str, bytes]] = []
        for ext in OLEAN_EXTS:
            data = safe_io.read_optional(scratch.root, LIB_DIR / olean_path(src.path, ext),
                                         max_bytes=MAX_OLEAN_BYTES)
            if data is None and ext == "olean":
                raise LemmataError("build-output-refused",
                                   f"the build left no {olean_path(src.path)} for {m}")
            if data is not None:
                files.append((ext, data))
        out.append(OleanArtifact(m, src.path, tuple(files)))
    return tuple(out)


def place_carried(check: Workspace, artifacts: Sequence[OleanArtifact]) -> Workspace:
    """Write carried compiled files into ``<host_dir>/carried/lib/lean`` (host-only) and
    return the check workspace that knows them.

    Refuses (``build-output-refused``) an artifact whose module the check workspace holds,
    or whose olean path its trusted build already filled (a name collision would let the
    contributor's file shadow, or be shadowed by, a trusted one).

    Raises:
        ValueError: ``check`` is not a check workspace, or already has carried files.
        LemmataError: ``build-output-refused``.
    """
    require_check(check)
    if check.carried_dir is not None or check.host_dir is None:
        raise ValueError("carried files are placed once, into a workspace with a host folder")
    held = {s.module for s in check.sources}
    for art in artifacts:
        if art.module in held:
            raise LemmataError("build-output-refused",
                               f"{art.module} is a module the gate builds itself")
        for ext in OLEAN_EXTS:
            if safe_io.lexists(check.root, LIB_DIR / olean_path(art.source_path, ext)):
                raise LemmataError("build-output-refused",
                                   f"{art.module}'s {ext} collides with a trusted file")
    carried_dir = safe_io.make_dir(check.host_dir, "carried/lib/lean")
    carried: list[CarriedFile] = []
    for art in artifacts:
        for ext, data in art.files:
            rel = olean_path(art.source_path, ext)
            safe_io.write_new(carried_dir, rel, data)
            carried.append(CarriedFile(art.module, rel, hashlib.sha256(data).hexdigest()))
    placed = dataclasses.replace(check, carried=tuple(carried), carried_dir=carried_dir)
    verify_carried(placed)
    return placed


def verify_carried(workspace: Workspace) -> None:
    """Re-read every carried file (no link followed) and compare it with the SHA-256
    recorded when it was read from scratch; the check runs call this before each run.

    Raises:
        LemmataError: ``build-output-refused`` when a file changed or went missing.
    """
    if workspace.carried_dir is None:
        return
    for c in workspace.carried:
        try:
            data = safe_io.read_file(workspace.carried_dir, c.path, max_bytes=MAX_OLEAN_BYTES)
        except FileNotFoundError:
            data = b""
        if hashlib.sha256(data).hexdigest() != c.sha256:
            raise LemmataError("build-output-refused",
                               f"carried {c.path} no longer has the hash read from scratch")


def new_run(workspace: Workspace, label: str) -> tuple[Path, Path]:
    """A fresh pair of folders for one sandboxed run: ``in`` (the host writes the run's
    inputs there now; bound read-only) and ``out`` (empty; the run's only writable place,
    never written by the host). Both live under the host-only ``host_dir``.

    Raises:
        ValueError: the workspace has no host folder.
    """
    if workspace.host_dir is None:
        raise ValueError("the workspace has no host folder")
    run = Path(tempfile.mkdtemp(prefix=f"{label}-", dir=workspace.host_dir))
    return safe_io.make_dir(run, "in"), safe_io.make_dir(run, "out")


def root_module_text(modules: Sequence[str]) -> str:
    """A root module importing ``modules`` (no longer written into a workspace, issue 17).

    ``lake build Lemmata`` never needed it: the name resolves to the ``lean_lib`` target
    before any module (lean4 src/lake/Lake/CLI/Build.lean ``resolveTargetInWorkspace``:
    target declarations first, modules last), and a library builds the modules its globs
    select plus their local imports (src/lake/Lake/Build/Library.lean
    ``recCollectLocalModules`` over src/lake/Lake/Config/Module.lean
    ``LeanLib.getModuleArray``). The glob ``Lemmata.+`` is ``Glob.submodules``
    (src/lake/Lake/Load/Toml.lean ``Glob.ofString?``: ``+`` → ``.submodules``), "all
    submodules of the specified module, but not the module itself"
    (src/lake/Lake/Config/Glob.lean). So every ``Lemmata/**.lean`` file is built and
    ``Lemmata.lean`` never was, unless a file imported it; and a file that did would have
    imported a node's Statement and Proof together, which declare the same theorem name
    (an import clash, the build fails). Without the file such an import fails as a missing
    module: closed either way, and the workspace holds only the sources."""
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
