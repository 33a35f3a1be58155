"""The one wrapper for every subprocess the network starts (STYLE.md rule 3).

It strips leaked ``GIT_*`` variables (one the caller means is passed as ``git_env``),
always sets a timeout, never uses a shell, and turns a failure to start or a timeout into
a :class:`~network.errors.LemmataError`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from network.errors import LemmataError

DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Completed:
    """What a finished subprocess returned.

    Attributes:
        rc: the exit status; negative for death by signal (-9 for SIGKILL).
        out: standard output, decoded as UTF-8 with replacement.
        err: standard error, decoded the same way.
        argv: the command that ran.
        raw_out: standard output as bytes, undecoded (a CGI's binary answer).
    """

    rc: int
    out: str
    err: str
    argv: tuple[str, ...]
    raw_out: bytes = b""


def clean_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a child gets: ``env`` (or ours) without any ``GIT_*`` variable."""
    base = dict(os.environ if env is None else env)
    return {k: v for k, v in base.items() if not k.startswith("GIT_")}


def run(
    argv: Sequence[str],
    *,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    input_bytes: bytes | None = None,
    git_env: Mapping[str, str] | None = None,
) -> Completed:
    """Run ``argv`` to completion and return its exit status and output.

    Args:
        argv: program and arguments; never passed through a shell.
        cwd: working directory.
        env: the complete child environment (``GIT_*`` stripped); None means ours.
        timeout_s: wall-clock limit in seconds; the child is killed when it passes.
        input_bytes: bytes written to the child's standard input.
        git_env: ``GIT_*`` variables the caller sets on purpose (``git http-backend``'s
            CGI environment, issue 11), added after the leaked ones are stripped.

    Returns:
        A :class:`Completed`; a non-zero ``rc`` is not an error here.

    Raises:
        LemmataError: ``subprocess-timeout`` when the limit passed, ``subprocess-failed``
            when the program could not be started.
        ValueError: a ``git_env`` key that does not start with ``GIT_``.
    """
    args = tuple(str(a) for a in argv)
    child_env = clean_env(env)
    for key, value in (git_env or {}).items():
        if not key.startswith("GIT_"):
            raise ValueError(f"git_env holds {key!r}, not a GIT_ variable")
        child_env[key] = value
    try:
        proc = subprocess.run(
            args,
            cwd=cwd,
            env=child_env,
            input=input_bytes,
            stdin=None if input_bytes is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise LemmataError(
            "subprocess-timeout", f"{args[0]} ran past {timeout_s:g} s and was killed"
        ) from exc
    except OSError as exc:
        raise LemmataError("subprocess-failed", f"could not start {args[0]}: {exc}") from exc
    return Completed(
        rc=proc.returncode,
        out=proc.stdout.decode("utf-8", "replace"),
        err=proc.stderr.decode("utf-8", "replace"),
        argv=args,
        raw_out=proc.stdout,
    )
