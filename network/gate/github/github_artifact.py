"""The unprivileged job's artifact as the trusted job reads it, and the build it stands in
for (DESIGN.md ruling 14; D-4 v3.27, issue 10's two trust domains).

:func:`read_export` reads the folder ``lemmata gate export`` uploaded
(:mod:`network.gate.github.github_export`) as untrusted data: no link followed, regular files
only, every compiled file's bytes checked against its SHA-256, sizes capped
(``trusted-artifact-malformed``), the pull request and head it names held to the event's
(``trusted-artifact-mismatch``). :class:`ExportedBuild` is the toolchain the trusted job
judges under: the scratch build runs nothing and hands over those compiled files, the
check workspace's own build refuses any module holding the pull request's bytes
(``trusted-build-refused``), and the checks that read compiled files (steps 4-8) go to
the real toolchain. :mod:`network.gate.github.github_trusted`, the job that judges, signs and
merges, re-exports every name here (issue 17).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from network.errors import LemmataError, define
from network.gate.github.github_export import BLOB_DIR, EXPORT_FORMAT, EXPORT_MANIFEST
from network.gate.lean.toolchain import BuildResult, Toolchain
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.workspace import OLEAN_EXTS, OleanArtifact, Workspace
from network.record import models as m

define("trusted-artifact-malformed", None, 422,
       "The unprivileged job's artifact is missing, not in the export format, too large, "
       "holds a link or a non-regular file, or a compiled file whose bytes do not match "
       "its SHA-256.",
       "Rerun the gate workflow; an artifact edited by hand is refused.")
define("trusted-artifact-mismatch", None, 422,
       "The artifact names another pull request or another head commit than the event "
       "(or was built from other source bytes): nothing it holds is used.",
       "Nothing to do: the trusted job judges the event's pull request only.")
define("trusted-build-refused", 3, 422,
       "The trusted job was asked to build a module holding bytes of a file the pull "
       "request adds or changes; it elaborates no contributor code, so the build is "
       "refused.",
       "Nothing to do: this is the gate refusing to run the pull request's code.")

#: caps on what is read from the artifact (bytes)
MAX_MANIFEST_BYTES = 4 * 1024 * 1024
MAX_BLOB_BYTES = 512 * 1024 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024
_HEX64_RE = re.compile(r"[0-9a-f]{64}")
#: what :class:`ExportedBuild` passes to the real toolchain: the checks that read compiled
#: files (steps 4-8) and the pin directory; never a build
DELEGATED = frozenset({"replay", "check_statement", "check_witness", "used_constants",
                       "extract_holes", "hazards", "defeq", "check_relation",
                       "join_relation", "olean_entries", "pins_root"})


# --- the artifact ---------------------------------------------------------------------


@dataclass(frozen=True)
class ExportedModule:
    """One contributor module's compiled files from the artifact.

    Attributes:
        module: the Lean module name.
        source_path: its workspace path as the unprivileged job saw it (a claim).
        source_sha256: the SHA-256 of the source the unprivileged job says it built (a
            claim; compared with the bytes the trusted job reads from git).
        files: extension (``olean``, ...) → the file's bytes, each matching its SHA-256.
    """

    module: str
    source_path: str
    source_sha256: str
    files: Mapping[str, bytes]


@dataclass(frozen=True)
class Export:
    """The parsed, hash-checked artifact (:mod:`network.gate.github.github_export`)."""

    pull_request: int
    head_sha: str
    modules: Mapping[str, ExportedModule] = field(default_factory=dict)


def _read_regular(dir_fd: int, name: str, limit: int) -> bytes:
    """Read ``name`` in the directory ``dir_fd`` without following a link: a regular file
    of at most ``limit`` bytes, else ``trusted-artifact-malformed``."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError as exc:
        raise LemmataError("trusted-artifact-malformed", f"{name}: {exc.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise LemmataError("trusted-artifact-malformed", f"{name} is not a regular file")
        if st.st_size > limit:
            raise LemmataError("trusted-artifact-malformed",
                               f"{name} is {st.st_size} bytes (at most {limit})")
        chunks: list[bytes] = []
        got = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            got += len(chunk)
            if got > limit:
                raise LemmataError("trusted-artifact-malformed", f"{name} grew past {limit}")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _open_dir(path: str | Path, dir_fd: int | None = None) -> int:
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        raise LemmataError("trusted-artifact-malformed",
                           f"{path}: not a directory ({exc.strerror})") from None


def read_export(folder: Path, *, pull_request: int, head_sha: str) -> Export:
    """Read and check the unprivileged job's artifact against the event's facts.

    Every file is opened relative to the folder without following links; blobs are named
    by their SHA-256 and their bytes must hash to it. The artifact's ``pull_request`` and
    ``head_sha`` are claims: they must equal the event's, and are never used otherwise.

    Args:
        folder: where ``actions/download-artifact`` put the artifact.
        pull_request, head_sha: the event's pull request and head (what is judged).

    Raises:
        LemmataError: ``trusted-artifact-malformed``; ``trusted-artifact-mismatch``.
    """
    top = _open_dir(folder)
    try:
        raw = _read_regular(top, EXPORT_MANIFEST, MAX_MANIFEST_BYTES)
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise LemmataError("trusted-artifact-malformed", f"{EXPORT_MANIFEST}: {exc}") \
                from None
        if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
            raise LemmataError("trusted-artifact-malformed",
                               f"{EXPORT_MANIFEST} is not {EXPORT_FORMAT}")
        claimed_pr, claimed_head = data.get("pull_request"), data.get("head_sha")
        if claimed_pr != pull_request or claimed_head != head_sha:
            raise LemmataError("trusted-artifact-mismatch",
                               f"the artifact names #{claimed_pr} at {claimed_head!r}; the "
                               f"event is #{pull_request} at {head_sha}")
        mods = data.get("modules") or {}
        if not isinstance(mods, dict):
            raise LemmataError("trusted-artifact-malformed", "modules is not an object")
        blobs = _open_dir(BLOB_DIR, top) if mods else -1
        total = 0
        out: dict[str, ExportedModule] = {}
        try:
            for module, row in sorted(mods.items()):
                files_in = row.get("files") if isinstance(row, dict) else None
                src_sha = row.get("source_sha256") if isinstance(row, dict) else None
                src_path = row.get("source_path") if isinstance(row, dict) else None
                if not isinstance(files_in, dict) or not isinstance(src_sha, str) \
                        or not _HEX64_RE.fullmatch(src_sha) or not isinstance(src_path, str):
                    raise LemmataError("trusted-artifact-malformed", f"module {module!r}")
                files: dict[str, bytes] = {}
                for suffix, digest in files_in.items():
                    if suffix not in OLEAN_EXTS or not isinstance(digest, str) \
                            or not _HEX64_RE.fullmatch(digest):
                        raise LemmataError("trusted-artifact-malformed",
                                           f"{module}: file {suffix!r} → {digest!r}")
                    body = _read_regular(blobs, digest, MAX_BLOB_BYTES)
                    total += len(body)
                    if total > MAX_TOTAL_BYTES:
                        raise LemmataError("trusted-artifact-malformed",
                                           f"more than {MAX_TOTAL_BYTES} bytes")
                    if hashlib.sha256(body).hexdigest() != digest:
                        raise LemmataError("trusted-artifact-malformed",
                                           f"{module}{suffix}: bytes do not match {digest}")
                    files[suffix] = body
                if "olean" not in files:
                    raise LemmataError("trusted-artifact-malformed", f"{module} has no .olean")
                out[str(module)] = ExportedModule(str(module), src_path, src_sha, files)
        finally:
            if blobs >= 0:
                os.close(blobs)
        return Export(pull_request, head_sha, out)
    finally:
        os.close(top)


# --- the build step, replaced -----------------------------------------------------------


class ExportedBuild:
    """A :class:`~network.gate.lean.toolchain.Toolchain` under which step 3 elaborates no
    contributor code (ruling 14, D-4 v3.27).

    The gate builds in two domains (:func:`network.gate.run.build_two_domains`): a
    scratch build of every source that exports the contributed modules' compiled files,
    then the gate's own build of a fresh check workspace from base bytes, into which those
    files are carried. Here the scratch build runs nothing: the contributed modules'
    files come from the artifact, each only if it was built from exactly the bytes the
    workspace holds. A build without ``export`` (the check workspace's) is passed to the
    real toolchain only when no module in it holds bytes of a file the pull request adds
    or changes, unless they are that very module's bytes at base
    (``trusted-build-refused`` otherwise). Steps 4-8 are the real toolchain's
    (:data:`DELEGATED`).

    Args:
        inner: the real toolchain for this target (``detect_toolchain(spec)``).
        export: the checked artifact.
        base_hashes: module → SHA-256 at base
            (:func:`~network.gate.github.github_export.base_module_hashes`).
        pr_hashes: SHA-256 of every file's bytes the pull request adds or changes.
    """

    def __init__(self, inner: Toolchain, export: Export, base_hashes: Mapping[str, str],
                 pr_hashes: AbstractSet[str]) -> None:
        self.inner = inner
        self.export = export
        self.base_hashes = dict(base_hashes)
        self.pr_hashes = frozenset(pr_hashes)
        self.carried: list[str] = []
        self.built: list[tuple[str, ...]] = []

    @property
    def spec(self) -> m.GateSpec:
        """The inner toolchain's gate-spec."""
        return self.inner.spec

    def __getattr__(self, name: str) -> Any:
        """The inner toolchain's checks (steps 4-8) and its pins; anything else (a method
        this wrapper does not know, which might build contributor code) is refused."""
        if name in DELEGATED:
            return getattr(self.inner, name)
        raise AttributeError(f"ExportedBuild does not pass {name!r} to the toolchain")

    def describe(self) -> Any:
        """The inner toolchain's :meth:`~network.gate.lean.toolchain.Toolchain.describe`."""
        return self.inner.describe()

    def build(self, workspace: Workspace, modules: Sequence[str], sandbox: SandboxRunner,
              caps: m.Caps, export: Sequence[str] = ()) -> BuildResult:
        """The artifact's files for ``export`` (building nothing), or the real build of
        base modules only (see the class docstring).

        Returns ``lean-build-failed`` for an exported module the artifact lacks (its
        build failed in the gate workflow, or it was left out), and
        ``trusted-artifact-mismatch`` for one built from other bytes.
        """
        mods = tuple(modules)
        if export:
            carried: list[OleanArtifact] = []
            for mod in export:
                src = workspace.source(mod)
                got = self.export.modules.get(mod)
                if got is None:
                    return BuildResult(False, "lean-build-failed", mods,
                                       log=f"{mod}: no compiled files in the artifact (its "
                                       "build failed in the gate workflow, or it was left out)")
                if got.source_sha256 != src.sha256 or got.source_path != str(src.path):
                    return BuildResult(False, "trusted-artifact-mismatch", mods,
                                       log=f"{mod}: the artifact was built from "
                                       f"{got.source_path}@{got.source_sha256}; the pull "
                                       f"request holds {src.path}@{src.sha256}")
                carried.append(OleanArtifact(mod, src.path, tuple(
                    (ext, got.files[ext]) for ext in OLEAN_EXTS if ext in got.files)))
            self.carried += [a.module for a in carried]
            return BuildResult(True, None, mods, rc=0,
                               log=f"nothing built here: {len(carried)} module(s) from the "
                               "gate workflow's artifact", artifacts=tuple(carried))
        foreign = [mod for mod in mods
                   if (sha := workspace.source(mod).sha256) in self.pr_hashes
                   and self.base_hashes.get(mod) != sha]
        if foreign:
            return BuildResult(False, "trusted-build-refused", mods,
                               log="the trusted job builds none of the pull request's bytes; "
                               "asked to build " + ", ".join(foreign))
        self.built.append(mods)
        return self.inner.build(workspace, mods, sandbox, caps)
