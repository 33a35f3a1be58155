"""The step-3 sandbox: run an untrusted command under bubblewrap, or refuse (D-4 step 3).

Elaborating a contributor's Lean file runs their code (D-4 step 3, v3.27), so every build
the gate or a precheck makes runs through :meth:`Sandbox.run`:

* **No network.** ``--unshare-all`` gives the command its own network namespace holding only
  a loopback device that is down; nothing outside, not even the host's 127.0.0.1, is
  reachable.
* **No secrets.** ``--clearenv`` plus an explicit allowlist: the child sees ``PATH``,
  ``HOME``, ``TMPDIR``, ``LANG``, ``LC_ALL`` and exactly what the caller passes in ``env``
  (the toolchain's variables). Nothing of the caller's environment is inherited.
* **Read-only view.** The new root is an empty tmpfs remounted read-only; the system
  directories (``/usr`` and its links), the toolchain directories and the graph or work
  tree are bound read-only at their own paths; one scratch directory is the only writable
  place.
* **Caps** from ``gate-spec.json`` (:class:`~network.record.models.Caps`): ``RLIMIT_AS``
  (memory, MiB) and ``RLIMIT_CPU`` (seconds, per process) through util-linux ``prlimit``;
  wall-clock seconds through coreutils ``timeout -s KILL`` inside, with a backstop kill of
  the whole namespace outside; threads through ``LEAN_NUM_THREADS`` (lake has no ``-j``,
  LEAN_NOTES) which the toolchain adapter also passes to ``lean -j``.
* **Lifetime.** ``--die-with-parent`` and ``--new-session``; the command is pid 1's child
  in its own pid namespace, so when it or the sandbox dies every descendant dies.
* **Two layouts** (issue 10, D-4 v3.27). The contributor's build binds only its throwaway
  scratch workspace writable (``LeanToolchain.layout``). A check run binds the gate's check
  workspace, the carried oleans and its input folder read-only, and a fresh per-run output
  folder as its scratch, the only writable place (``LeanToolchain.check_layout``). The
  probe's write attempts cover every read-only bind, so a check workspace left writable
  fails the probe.

It fails closed. When bubblewrap, ``prlimit`` or ``timeout`` is missing, when user
namespaces are refused, or when the probe run before every command finds the network
reachable or a write outside scratch succeeding, :meth:`Sandbox.run` raises
``sandbox-unavailable``. Nothing here ever runs a command unsandboxed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from network import proc
from network.errors import LemmataError, define
from network.gate.sandbox import safe_io
from network.record.models import Caps
from network.record.read import blob_cache

define("sandbox-unavailable", 3, 503,
       "The build sandbox could not be set up or failed its probe (bubblewrap missing, user "
       "namespaces refused, network reachable or a write outside scratch succeeded).",
       "Run the gate where bubblewrap works (Debian package bubblewrap, unprivileged user "
       "namespaces enabled); the gate never builds unsandboxed.")

KilledBy = Literal["memory", "cpu", "wall"]

#: Environment variables every sandboxed command gets (their values are set here, never
#: copied from the caller).
BASE_ENV_NAMES = ("PATH", "HOME", "TMPDIR", "LANG", "LC_ALL")

#: Host paths bound read-only when present: the system, never /etc, /home or /root whole.
SYSTEM_RO_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_RO_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime",
                   "/etc/nsswitch.conf", "/etc/passwd", "/etc/group")

#: Seconds the outer backstop waits past the inner wall-clock kill.
BACKSTOP_GRACE_S = 30.0
#: Exit status of a child killed by signal N, as bubblewrap reports it: 128 + N.
_SIGKILL_RC = 128 + 9
_SIGXCPU_RC = 128 + 24
_SIGSEGV_RC = 128 + 11
_SIGABRT_RC = 128 + 6
#: Lines a process prints when an allocation fails under RLIMIT_AS. Used only to label a
#: failure (``killed_by``), never to turn a failure into a pass.
_OOM_MARKERS = ("MemoryError", "out of memory", "Out of memory", "std::bad_alloc",
                "Cannot allocate memory", "memory exhausted", "failed to allocate")


@dataclass(frozen=True)
class Bind:
    """One host path made visible inside the sandbox at the same absolute path.

    Attributes:
        path: absolute host path (a directory or a file).
        writable: True only for the scratch directory; everything else is read-only.
    """

    path: Path
    writable: bool = False


def _refuse_cache_bind(host: Path) -> None:
    """Refuse a bind that would show the record cache (network/record/read/blob_cache.py) to a
    sandboxed command: the cache is trusted to hold only what the loader wrote.

    Raises:
        LemmataError: ``sandbox-unavailable`` when ``host`` is the configured cache
            folder, holds it, or lies inside it.
    """
    cache = blob_cache.configured()
    if cache is None:
        return
    inner, outer = cache.directory.resolve(), host.resolve()
    if inner == outer or outer in inner.parents or inner in outer.parents:
        raise LemmataError("sandbox-unavailable", f"bind path {host} would expose the "
                           f"record cache {cache.directory}")


@dataclass(frozen=True)
class SandboxLayout:
    """What the sandboxed command can see (D-4 step 3).

    Attributes:
        scratch: absolute path of the one writable directory; created if missing. HOME
            is ``scratch/home`` and TMPDIR ``scratch/tmp``.
        read_only: absolute host paths bound read-only at the same path: the graph or
            work tree, the toolchain (elan toolchain dir, lean sysroot) and prebuilt
            packages. Missing paths are refused, not skipped.
        path_dirs: directories (inside the sandbox) put first on PATH, e.g. the
            toolchain's ``bin``; ``/usr/bin:/bin`` follow.
    """

    scratch: Path
    read_only: tuple[Path, ...] = ()
    path_dirs: tuple[Path, ...] = ()

    def binds(self) -> tuple[Bind, ...]:
        """Every bind in mount order: read-only paths first, then scratch (writable)."""
        return tuple(Bind(p) for p in self.read_only) + (Bind(self.scratch, True),)


@dataclass(frozen=True)
class SandboxResult:
    """What one sandboxed command did.

    Attributes:
        rc: exit status; 128+N when killed by signal N (bubblewrap's convention).
        stdout: standard output, UTF-8 with replacement.
        stderr: standard error, the same.
        killed_by: None, or which cap ended it: "memory" (RLIMIT_AS; an allocation failed
            or the process died of it), "cpu" (RLIMIT_CPU), "wall" (the wall-clock cap).
        wall_s: seconds the command ran, measured outside.
        argv: the command as given (not the bubblewrap wrapper).
    """

    rc: int
    stdout: str
    stderr: str
    killed_by: KilledBy | None
    wall_s: float
    argv: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when the command exited 0 and no cap ended it."""
        return self.rc == 0 and self.killed_by is None


@dataclass(frozen=True)
class ProbeReport:
    """What the probe saw inside the sandbox; :meth:`Sandbox.probe` refuses unless all hold.

    Attributes:
        network_denied: every connection attempt (host loopback listener, public IPs) failed.
        outside_writes_denied: every write outside scratch failed.
        scratch_writable: a write inside scratch succeeded.
        env_names: the environment variable names visible inside, sorted.
        detail: what the probe printed, for diagnostics.
    """

    network_denied: bool
    outside_writes_denied: bool
    scratch_writable: bool
    env_names: tuple[str, ...]
    detail: str = ""


class SandboxRunner(Protocol):
    """What the toolchain adapter needs of a sandbox: :meth:`Sandbox.run`'s signature.

    :class:`Sandbox` is the only product implementation; tests may inject a fake.
    """

    def run(self, argv: Sequence[str], layout: SandboxLayout, caps: Caps, *,
            cwd: Path | None = None, env: Mapping[str, str] | None = None,
            stdin: bytes | None = None) -> SandboxResult:
        """Run ``argv`` sandboxed, ``stdin`` its standard input (none: empty); raise
        ``sandbox-unavailable`` rather than run unsandboxed."""
        ...


@dataclass
class Sandbox:
    """A bubblewrap sandbox factory; builds nothing and touches nothing until :meth:`run`.

    Args:
        bwrap: the bubblewrap binary; None finds ``bwrap`` on ``search_path``.
        prlimit: util-linux ``prlimit``; None finds it on ``search_path``.
        timeout: coreutils ``timeout``; None finds it on ``search_path``.
        search_path: the PATH used to find the three tools; None means ``/usr/bin:/bin``
            (never the caller's PATH, which a contributor cannot influence anyway, but
            which a test can replace to simulate a missing bwrap).
        probe_python: the interpreter the probe runs inside (its prefix is bound
            read-only); None uses the interpreter running this code.

    Implements D-4 step 3 and DESIGN.md "Security posture".
    """

    bwrap: str | Path | None = None
    prlimit: str | Path | None = None
    timeout: str | Path | None = None
    search_path: str | None = None
    probe_python: str | Path | None = None
    _resolved: dict[str, str] = field(default_factory=dict, init=False, repr=False)

    # --- tools -------------------------------------------------------------------------

    def _tool(self, name: str, given: str | Path | None) -> str:
        """Resolve one required host tool or refuse with ``sandbox-unavailable``."""
        if name in self._resolved:
            return self._resolved[name]
        if given is not None:
            p = Path(given)
            found = str(p) if p.is_file() and os.access(p, os.X_OK) else None
        else:
            found = shutil.which(name, path=self.search_path or "/usr/bin:/bin")
        if not found:
            raise LemmataError("sandbox-unavailable",
                               f"{name} not found ({given or 'on PATH'}); refusing to run "
                               "anything unsandboxed")
        self._resolved[name] = found
        return found

    def tools(self) -> dict[str, str]:
        """The resolved absolute paths of bwrap, prlimit and timeout.

        Raises:
            LemmataError: ``sandbox-unavailable`` when one is missing.
        """
        return {"bwrap": self._tool("bwrap", self.bwrap),
                "prlimit": self._tool("prlimit", self.prlimit),
                "timeout": self._tool("timeout", self.timeout)}

    # --- command construction (pure) ---------------------------------------------------

    def environment(self, layout: SandboxLayout, caps: Caps,
                    env: Mapping[str, str] | None = None) -> dict[str, str]:
        """The complete environment the command sees: the allowlist plus ``env``.

        ``env`` must not redefine ``HOME``/``TMPDIR`` (they live in scratch); it may
        extend ``PATH`` only through ``layout.path_dirs``.

        Raises:
            ValueError: ``env`` names a base variable or a key that is not a plain name.
        """
        scratch = layout.scratch
        path = ":".join([*(str(d) for d in layout.path_dirs), "/usr/bin", "/bin"])
        out = {"PATH": path, "HOME": str(scratch / "home"), "TMPDIR": str(scratch / "tmp"),
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "LEAN_NUM_THREADS": str(caps.threads)}
        for k, v in (env or {}).items():
            if k in BASE_ENV_NAMES or not k.replace("_", "").isalnum() or "\0" in v:
                raise ValueError(f"environment variable {k!r} may not be set by the caller")
            out[k] = v
        return out

    def command(self, argv: Sequence[str], layout: SandboxLayout, caps: Caps, *,
                cwd: Path | None = None, env: Mapping[str, str] | None = None,
                extra_ro: Sequence[Path] = ()) -> list[str]:
        """The full host argv: bwrap [isolation] -- prlimit [caps] -- timeout -- argv.

        Args:
            argv: the command to run inside, program first.
            layout: what it sees.
            caps: memory (MiB → RLIMIT_AS bytes), cpu seconds (RLIMIT_CPU), wall seconds.
            cwd: working directory inside; default the scratch directory.
            env: extra environment variables (see :meth:`environment`).
            extra_ro: further read-only binds for this command only (the probe's python).

        Raises:
            LemmataError: ``sandbox-unavailable`` when a tool is missing or a bound path
                does not exist.
            ValueError: ``argv`` is empty or its program starts with "-".
        """
        if not argv or str(argv[0]).startswith("-"):
            raise ValueError(f"not a command: {list(argv)[:1]}")
        tools = self.tools()
        cmd = [tools["bwrap"], "--unshare-all", "--die-with-parent", "--new-session",
               "--cap-drop", "ALL", "--clearenv", "--uid", "65534", "--gid", "65534",
               "--hostname", "lemmata-sandbox"]
        for name, value in sorted(self.environment(layout, caps, env).items()):
            cmd += ["--setenv", name, value]
        for p in SYSTEM_RO_PATHS:
            host = Path(p)
            if host.is_symlink():
                cmd += ["--symlink", os.readlink(host), p]
            elif host.is_dir():
                cmd += ["--ro-bind", p, p]
        for p in SYSTEM_RO_FILES:
            cmd += ["--ro-bind-try", p, p]
        cmd += ["--proc", "/proc", "--dev", "/dev"]
        for bind in (*(Bind(Path(p)) for p in extra_ro), *layout.binds()):
            host = bind.path
            if not host.is_absolute():
                raise LemmataError("sandbox-unavailable", f"bind path {host} is not absolute")
            if not host.exists():
                raise LemmataError("sandbox-unavailable", f"bind path {host} does not exist")
            _refuse_cache_bind(host)
            cmd += ["--bind" if bind.writable else "--ro-bind", str(host), str(host)]
        if any(_under_dev(b.path) for b in layout.binds()):
            # bwrap's --dev is a fresh tmpfs, writable inside; a workspace on /dev/shm
            # (network.gate.sandbox.scratch) has its bind points made in it, so remount it
            # read-only once they are made: scratch stays the only writable place.
            cmd += ["--remount-ro", "/dev"]
        cmd += ["--chdir", str(cwd or layout.scratch), "--remount-ro", "/"]
        mem_bytes = caps.memory_mib * 1024 * 1024
        cmd += ["--", tools["prlimit"], f"--as={mem_bytes}:{mem_bytes}",
                f"--cpu={caps.cpu_s}:{caps.cpu_s + 5}", "--core=0:0",
                "--", tools["timeout"], "-s", "KILL", f"{caps.wall_s}s", *argv]
        return cmd

    # --- running -----------------------------------------------------------------------

    def _prepare(self, layout: SandboxLayout) -> None:
        """Create scratch, its home and tmp; refuse a relative scratch path.

        ``home`` and ``tmp`` are made without following links: an earlier run in the same
        scratch may have planted ``home`` → a host folder (issue 10). Such a link is
        refused (``build-output-refused``), never followed.
        """
        if not layout.scratch.is_absolute():
            raise LemmataError("sandbox-unavailable", "scratch must be an absolute path")
        layout.scratch.mkdir(parents=True, exist_ok=True)
        for name in ("home", "tmp"):
            if not safe_io.lexists(layout.scratch, name):
                safe_io.make_dir(layout.scratch, name)
            elif not stat.S_ISDIR(os.lstat(layout.scratch / name).st_mode):
                raise LemmataError("build-output-refused",
                                   f"scratch/{name} is a link or not a folder")

    def _exec(self, argv: Sequence[str], layout: SandboxLayout, caps: Caps, *,
              cwd: Path | None, env: Mapping[str, str] | None,
              extra_ro: Sequence[Path] = (), stdin: bytes | None = None) -> SandboxResult:
        """Run once without probing (the probe itself uses this)."""
        self._prepare(layout)
        cmd = self.command(argv, layout, caps, cwd=cwd, env=env, extra_ro=extra_ro)
        start = time.monotonic()
        try:
            done = proc.run(cmd, env={"PATH": "/usr/bin:/bin"},
                            timeout_s=caps.wall_s + BACKSTOP_GRACE_S, input_bytes=stdin)
        except LemmataError as exc:
            if exc.code != "subprocess-timeout":
                raise LemmataError("sandbox-unavailable", f"bubblewrap failed: {exc}") from exc
            return SandboxResult(_SIGKILL_RC, "", str(exc), "wall",
                                 time.monotonic() - start, tuple(argv))
        elapsed = time.monotonic() - start
        if done.rc == 1 and done.err.startswith("bwrap:"):
            # bubblewrap's own set-up failure (e.g. namespaces refused): never a result.
            raise LemmataError("sandbox-unavailable", done.err.strip()[:500])
        return SandboxResult(done.rc, done.out, done.err,
                             classify_kill(done.rc, done.err, elapsed, caps),
                             elapsed, tuple(argv))

    def probe(self, layout: SandboxLayout, caps: Caps) -> ProbeReport:
        """Check, inside this exact layout, that the network is denied and writes fail.

        Opens a TCP listener on the host's 127.0.0.1 for the duration, then runs a small
        Python program inside that tries to connect to it and to public addresses, tries
        to write to /, /tmp, every read-only bind and scratch's parent, and lists its
        environment.

        Returns:
            The report, when every property holds.

        Raises:
            LemmataError: ``sandbox-unavailable`` when a tool is missing, bubblewrap cannot
                start, or any property fails (D-4 step 3: fail closed).
        """
        python = Path(self.probe_python or os.path.realpath(sys.executable))
        prefix = Path(sys.base_prefix if self.probe_python is None else python.parent.parent)
        extra = [] if str(prefix).startswith("/usr") else [prefix]
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            listener.settimeout(0.1)
            port = listener.getsockname()[1]
            targets = [str(p) for p in layout.read_only] + ["/", "/tmp", "/usr",
                                                             str(layout.scratch.parent)]
            script = _PROBE_SCRIPT
            probe_caps = Caps(cpu_s=30, memory_mib=max(512, min(caps.memory_mib, 2048)),
                              wall_s=30, threads=1)
            res = self._exec([str(python), "-I", "-S", "-c", script, str(port),
                              json.dumps(targets), str(layout.scratch)],
                             layout, probe_caps, cwd=None, env=None, extra_ro=extra)
            try:
                conn, _ = listener.accept()
                conn.close()
                reached_host = True
            except OSError:
                reached_host = False
        finally:
            listener.close()
        try:
            seen = json.loads(res.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError) as exc:
            raise LemmataError("sandbox-unavailable",
                               f"probe printed no report (rc {res.rc}): "
                               f"{res.stderr.strip()[:300]}") from exc
        report = ProbeReport(
            network_denied=not reached_host and not any(seen.get("connected", [True])),
            outside_writes_denied=not any(seen.get("wrote", [True])),
            scratch_writable=bool(seen.get("scratch_ok")),
            env_names=tuple(sorted(seen.get("env", []))),
            detail=res.stdout.strip()[-1000:],
        )
        problems = []
        if not report.network_denied:
            problems.append("a network connection succeeded")
        if not report.outside_writes_denied:
            problems.append("a write outside scratch succeeded")
        if not report.scratch_writable:
            problems.append("scratch is not writable")
        allowed = set(self.environment(layout, caps))
        leaked = [n for n in report.env_names if n not in allowed and n != "PWD"]
        if leaked:
            problems.append(f"unexpected environment variables inside: {leaked}")
        if problems:
            raise LemmataError("sandbox-unavailable", "sandbox probe failed: "
                               + "; ".join(problems))
        return report

    def run(self, argv: Sequence[str], layout: SandboxLayout, caps: Caps, *,
            cwd: Path | None = None, env: Mapping[str, str] | None = None,
            stdin: bytes | None = None) -> SandboxResult:
        """Probe this layout, then run ``argv`` in it under ``caps`` (D-4 step 3).

        Args:
            argv: the command, program first, resolved inside the sandbox's PATH.
            layout: scratch (writable) and read-only binds.
            caps: gate-spec caps: ``memory_mib`` (MiB), ``cpu_s`` (CPU seconds per
                process), ``wall_s`` (seconds), ``threads``.
            cwd: working directory inside; default scratch.
            env: toolchain variables to add to the allowlisted environment.
            stdin: the command's standard input (a checker's nonce, issue 32); None
                gives it an empty one.

        Returns:
            A :class:`SandboxResult`; a non-zero ``rc`` or a ``killed_by`` is a result,
            not an exception.

        Raises:
            LemmataError: ``sandbox-unavailable`` when the sandbox cannot be set up or its
                probe fails; the command is then never run.
        """
        self.probe(layout, caps)
        return self._exec(argv, layout, caps, cwd=cwd, env=env, stdin=stdin)


def _under_dev(path: Path) -> bool:
    """True when ``path`` lies below ``/dev`` (where bwrap's ``--dev`` mounts its tmpfs)."""
    return Path("/dev") in Path(os.path.abspath(path)).parents


def classify_kill(rc: int, stderr: str, elapsed_s: float, caps: Caps) -> KilledBy | None:
    """Which cap ended a command, from its exit status, stderr and run time.

    * "wall": ``timeout -s KILL`` fired (status 137 or 124) at or after ``caps.wall_s``.
    * "cpu": killed by SIGXCPU (152), or SIGKILL before the wall cap (RLIMIT_CPU's hard
      limit).
    * "memory": a non-zero exit whose stderr names a failed allocation, or SIGSEGV/SIGABRT
      with such a line (RLIMIT_AS makes allocations fail rather than kill).

    A zero ``rc`` is never labelled. The label only explains a failure; it never makes one.
    """
    if rc == 0:
        return None
    if rc in (_SIGKILL_RC, 124) and elapsed_s >= caps.wall_s - 0.5:
        return "wall"
    if rc == _SIGXCPU_RC:
        return "cpu"
    if any(m in stderr for m in _OOM_MARKERS):
        return "memory"
    if rc == _SIGKILL_RC:
        return "cpu"
    return None


_PROBE_SCRIPT = r"""
import json, os, socket, sys
port = int(sys.argv[1]); targets = json.loads(sys.argv[2]); scratch = sys.argv[3]
connected = []
for host, p in (("127.0.0.1", port), ("1.1.1.1", 53), ("8.8.8.8", 443),
                ("2606:4700:4700::1111", 53)):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM); s.settimeout(2)
    try:
        s.connect((host, p)); connected.append(True)
    except OSError:
        connected.append(False)
    finally:
        s.close()
wrote = []
for t in targets:
    path = os.path.join(t, ".lemmata-probe-write")
    try:
        with open(path, "w") as f:
            f.write("x")
        wrote.append(True)
    except OSError:
        wrote.append(False)
ok = False
try:
    with open(os.path.join(scratch, ".lemmata-probe"), "w") as f:
        f.write("x")
    os.remove(os.path.join(scratch, ".lemmata-probe"))
    ok = True
except OSError:
    pass
print(json.dumps({"connected": connected, "wrote": wrote, "scratch_ok": ok,
                  "env": sorted(os.environ)}))
"""
