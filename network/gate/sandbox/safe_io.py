"""Reading what a sandbox left behind, and writing host files, without following links.

A sandboxed command can write anything under the directories bound writable into it: a
symlink where the gate later reads (``Proof.olean`` → ``~/.ssh/id_ed25519``), a symlinked
folder where the gate later writes (``.lemmata-checkers`` → ``/etc``), a FIFO that blocks a
reader, a file of many gigabytes. Every host read of sandbox output therefore goes through
this module (issue 10; D-4 v3.27; DESIGN.md "Security posture"):

* a path is walked one component at a time from an opened root, each folder opened with
  ``O_NOFOLLOW | O_DIRECTORY`` relative to its parent's descriptor (as
  ``/proc/self/fd/<fd>/<name>``, or ``dir_fd`` where /proc is absent), so no component,
  the root's last one included, may be a symlink;
* the file itself is opened with ``O_NOFOLLOW | O_NONBLOCK``, must be a regular file
  (``fstat``), and is read up to a size cap;
* host writes (checker requests, Comparator's config, carried oleans) go
  only into folders no sandbox ever had write access to, and still use the same walk with
  ``O_CREAT | O_EXCL | O_NOFOLLOW``, so even a planted link could not redirect them.

Anything refused raises :class:`LemmataError` with ``build-output-refused``.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from network.errors import LemmataError, define

define("build-output-refused", 3, 422,
       "A file the sandboxed build left for the gate is not a plain file within the size cap "
       "(a symlink, a folder, a device or FIFO, too large), or names a module the gate builds "
       "itself.",
       "Do not plant links or special files in the build tree, and do not name a module "
       "after one the gate builds (elaboration-time code that does is refused).")

#: Default cap on one file read back from a sandbox (bytes): 256 MiB.
MAX_READ_BYTES = 256 * 1024 * 1024

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


#: Open "name in the folder of descriptor fd" as ``/proc/self/fd/<fd>/<name>``: the magic
#: link names exactly the folder already opened (never a path an attacker can swap), and
#: the path stays absolute for audit hooks (the tests' write guard resolves it); without
#: /proc, plain ``dir_fd`` calls do the same.
_PROC_FD = os.path.isdir("/proc/self/fd")


def _at(fd: int, name: str) -> str:
    return f"/proc/self/fd/{fd}/{name}"


def _open_at(fd: int, name: str, flags: int, mode: int = 0o777) -> int:
    if _PROC_FD:
        return os.open(_at(fd, name), flags, mode)
    return os.open(name, flags, mode, dir_fd=fd)


def _mkdir_at(fd: int, name: str, mode: int = 0o755) -> None:
    if _PROC_FD:
        os.mkdir(_at(fd, name), mode)
    else:
        os.mkdir(name, mode, dir_fd=fd)


def _lstat_at(fd: int, name: str) -> os.stat_result:
    if _PROC_FD:
        return os.stat(_at(fd, name), follow_symlinks=False)
    return os.stat(name, dir_fd=fd, follow_symlinks=False)


def _refuse(detail: str, rel: str | None = None) -> LemmataError:
    """``build-output-refused``; ``rel`` is workspace-relative, so it stays in the detail
    (a LemmataError's ``path`` names graph files)."""
    return LemmataError("build-output-refused", detail)


def _parts(rel: str | PurePosixPath) -> list[str]:
    """The components of a relative path; refuses absolute paths, ``.``, ``..`` and ''."""
    p = PurePosixPath(rel)
    if p.is_absolute() or not p.parts:
        raise _refuse(f"not a relative path: {str(rel)!r}", str(rel))
    parts = list(p.parts)
    for c in parts:
        if c in ("", ".", "..") or "/" in c or "\0" in c:
            raise _refuse(f"bad path component {c!r} in {str(rel)!r}", str(rel))
    return parts


def open_root(root: Path) -> int:
    """Open the directory ``root`` (absolute) whose last component must not be a symlink.

    Raises:
        LemmataError: ``build-output-refused`` when it is a link or not a directory.
        FileNotFoundError: it does not exist.
    """
    try:
        return os.open(root, _DIR_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _refuse(f"{root} is not a plain directory ({exc.strerror})") from exc


def _walk(root_fd: int, parts: Sequence[str], *, create: bool, rel: str) -> int:
    """Open the folder ``parts`` below ``root_fd`` component by component (never following a
    link); with ``create``, missing folders are made (0o755). Returns a new descriptor."""
    fd = os.dup(root_fd)
    try:
        for c in parts:
            try:
                nfd = _open_at(fd, c, _DIR_FLAGS)
            except FileNotFoundError:
                if not create:
                    raise
                _mkdir_at(fd, c)
                nfd = _open_at(fd, c, _DIR_FLAGS)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise _refuse(f"{rel}: component {c!r} is a link or not a folder",
                                  rel) from exc
                raise
            os.close(fd)
            fd = nfd
        return fd
    except BaseException:
        os.close(fd)
        raise


def read_file(root: Path, rel: str | PurePosixPath, *,
              max_bytes: int = MAX_READ_BYTES) -> bytes:
    """The bytes of the regular file ``root/rel``, read without following any link.

    Args:
        root: an absolute directory (its own last component must not be a link).
        rel: a relative path below it.
        max_bytes: refuse a file longer than this.

    Raises:
        FileNotFoundError: a component is absent.
        LemmataError: ``build-output-refused`` for a link, a non-regular file or a file
            over ``max_bytes``.
    """
    got = read_optional(root, rel, max_bytes=max_bytes)
    if got is None:
        raise FileNotFoundError(f"{root}/{rel}")
    return got


def read_optional(root: Path, rel: str | PurePosixPath, *,
                  max_bytes: int = MAX_READ_BYTES) -> bytes | None:
    """As :func:`read_file`, but None when the file (or a folder on its way) is absent."""
    parts = _parts(rel)
    srel = "/".join(parts)
    try:
        rfd = open_root(root)
    except FileNotFoundError:
        return None
    try:
        try:
            dfd = _walk(rfd, parts[:-1], create=False, rel=srel)
        except FileNotFoundError:
            return None
        try:
            try:
                ffd = _open_at(dfd, parts[-1], _READ_FLAGS)
            except FileNotFoundError:
                return None
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
                    raise _refuse(f"{srel} is a link or not a regular file", srel) from exc
                raise
        finally:
            os.close(dfd)
    finally:
        os.close(rfd)
    try:
        st = os.fstat(ffd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(f"{srel} is not a regular file", srel)
        if st.st_size > max_bytes:
            raise _refuse(f"{srel} is {st.st_size} bytes, over the cap of {max_bytes}", srel)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(ffd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise _refuse(f"{srel} grew over the cap of {max_bytes} bytes", srel)
        return b"".join(chunks)
    finally:
        os.close(ffd)


def lexists(root: Path, rel: str | PurePosixPath) -> bool:
    """Whether anything (a link included, never followed) is at ``root/rel``.

    A folder on the way that is a link counts as present: something is planted there.
    """
    parts = _parts(rel)
    try:
        rfd = open_root(root)
    except FileNotFoundError:
        return False
    try:
        try:
            dfd = _walk(rfd, parts[:-1], create=False, rel="/".join(parts))
        except FileNotFoundError:
            return False
        except LemmataError:
            return True
        try:
            _lstat_at(dfd, parts[-1])
            return True
        except FileNotFoundError:
            return False
        finally:
            os.close(dfd)
    finally:
        os.close(rfd)


def write_new(root: Path, rel: str | PurePosixPath, data: bytes, *, mode: int = 0o644) -> None:
    """Create the file ``root/rel`` (and its missing folders) holding ``data``.

    The file must not exist (``O_EXCL``); no component is followed if it is a link. Use it
    only on host-only folders, or on a workspace before any sandbox ran in it.

    Raises:
        FileExistsError: something is already at ``rel``.
        LemmataError: ``build-output-refused`` when a folder on the way is a link.
    """
    parts = _parts(rel)
    srel = "/".join(parts)
    rfd = open_root(root)
    try:
        dfd = _walk(rfd, parts[:-1], create=True, rel=srel)
        try:
            ffd = _open_at(dfd, parts[-1], _WRITE_FLAGS, mode)
        finally:
            os.close(dfd)
    finally:
        os.close(rfd)
    try:
        view = memoryview(data)
        while view:
            n = os.write(ffd, view)
            view = view[n:]
    finally:
        os.close(ffd)


def make_dir(root: Path, rel: str | PurePosixPath) -> Path:
    """Create the folder ``root/rel`` fresh (its parents as needed, the last one must not
    exist), never following a link; returns its path.

    Raises:
        FileExistsError: it already exists.
    """
    parts = _parts(rel)
    rfd = open_root(root)
    try:
        dfd = _walk(rfd, parts[:-1], create=True, rel="/".join(parts))
        try:
            _mkdir_at(dfd, parts[-1])
        finally:
            os.close(dfd)
    finally:
        os.close(rfd)
    return root.joinpath(*parts)
