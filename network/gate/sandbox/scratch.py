"""Where the gate writes its scratch: the per-run work folders holding its workspaces
(issue 17). A documented setting, read from the environment here and nowhere else (the
toolchain and workspace modules read no environment, tests/test_toolchain.py)::

    LEMMATA_GATE_SCRATCH=auto   # default: /dev/shm when it is a writable tmpfs, else $TMPDIR
    LEMMATA_GATE_SCRATCH=tmp    # always the temp dir (tempfile.gettempdir())
    LEMMATA_GATE_SCRATCH=/path  # that folder (created when missing)

A workspace is many small files written once, built and read a few times, then thrown
away, so on tmpfs it never reaches a disk. The sandbox binds a workspace under ``/dev``
correctly: bwrap's ``--dev /dev`` is a fresh tmpfs inside the sandbox where the bind
points are made, and :meth:`network.gate.sandbox.sandbox.Sandbox.command` remounts it read-only
after the binds (tests/test_sandbox.py), so scratch stays the only writable place and the
probe's write to scratch's parent still fails.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

#: The setting that says where the gate's scratch (its workspaces) goes (issue 17):
#: ``auto`` (the default, also when unset or empty) picks :data:`TMPFS_DIR` when it is a
#: writable tmpfs folder, else the temp dir (:func:`tempfile.gettempdir`, ``$TMPDIR``);
#: ``tmp`` always the temp dir; an absolute path that folder (created when missing).
SCRATCH_ENV = "LEMMATA_GATE_SCRATCH"
#: The tmpfs the gate prefers: workspaces are many small files written once and read by
#: the build, so they need never reach a disk.
TMPFS_DIR = Path("/dev/shm")


def _is_tmpfs(folder: Path, mounts: Path = Path("/proc/mounts")) -> bool:
    """True when ``folder`` is the mount point of a tmpfs (Linux ``/proc/mounts``)."""
    try:
        lines = mounts.read_text("utf-8", "replace").splitlines()
    except OSError:
        return False
    want = str(folder.resolve())
    return any(len(f) >= 3 and f[1] == want and f[2] == "tmpfs"
               for f in (ln.split() for ln in lines))


def scratch_base(setting: str | None = None) -> Path:
    """The folder the gate makes its per-run work folders in (issue 17).

    Args:
        setting: the value of :data:`SCRATCH_ENV`; None reads the environment.

    Returns:
        An absolute, existing folder: :data:`TMPFS_DIR` under ``auto`` when it is a
        writable tmpfs, else the temp dir; ``tmp``: the temp dir; a path: that folder.

    Raises:
        ValueError: the setting is neither ``auto``, ``tmp`` nor an absolute path.

    The sandbox binds a workspace under ``/dev`` correctly: it remounts its own ``/dev``
    read-only once the binds are made (:meth:`network.gate.sandbox.sandbox.Sandbox.command`), so
    the only writable place stays scratch.
    """
    value = (os.environ.get(SCRATCH_ENV, "") if setting is None else setting).strip()
    if value in ("", "auto"):
        if TMPFS_DIR.is_dir() and os.access(TMPFS_DIR, os.W_OK | os.X_OK) \
                and _is_tmpfs(TMPFS_DIR):
            return TMPFS_DIR
        return Path(tempfile.gettempdir()).resolve()
    if value == "tmp":
        return Path(tempfile.gettempdir()).resolve()
    path = Path(value)
    if not path.is_absolute():
        raise ValueError(f"{SCRATCH_ENV} must be auto, tmp or an absolute path, not {value!r}")
    path.mkdir(parents=True, exist_ok=True)
    return path
