"""One forked worker for the record's bulk work (reading a large work tree, rendering
products): run a function in a child process and take its dict of results back through a
pipe. Whatever the child fails to deliver, the caller computes itself, so a worker can
only save time, never change a result.

Only :func:`may_fork` decides whether forking is safe (one thread, more than one CPU);
:class:`ForkedCall` assumes it was asked.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


def may_fork() -> bool:
    """Whether this process may fork a worker: fork exists, more than one CPU is ours, and
    no other thread runs (a fork copies no other thread, nor the locks it holds)."""
    if not hasattr(os, "fork") or threading.active_count() != 1:
        return False
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cpus or 1) >= 2


class ForkedCall(Generic[V]):
    """``fn()`` running in a forked child, its ``dict[str, V]`` read back on demand.

    Args:
        fn: called in the child; its dict is pickled to the parent. Any exception there
            makes :meth:`result` return ``{}``.
    """

    def __init__(self, fn: Callable[[], dict[str, V]]) -> None:
        read_fd, write_fd = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: compute, send, and leave without running any cleanup
            code = 1
            try:
                os.close(read_fd)
                out = fn()
                with os.fdopen(write_fd, "wb") as fh:
                    pickle.dump(out, fh, protocol=pickle.HIGHEST_PROTOCOL)
                code = 0
            finally:
                os._exit(code)
        os.close(write_fd)
        self.read_fd = read_fd

    def result(self) -> dict[str, V]:
        """The child's results (waiting for it), or ``{}`` when it failed."""
        try:  # unpickled as it arrives: the pickle's bytes are never held whole
            with os.fdopen(self.read_fd, "rb") as fh:
                out: dict[str, V] | None = pickle.load(fh)  # our own child's bytes
        except Exception:  # noqa: BLE001 - a broken transfer: the caller computes instead
            out = None
        self.read_fd = -1
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        return out if status == 0 and isinstance(out, dict) else {}

    def close(self) -> None:
        """Stop and reap the child if it was never waited for."""
        if self.pid:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(self.pid, 0)
            self.pid = 0
        if self.read_fd >= 0:
            os.close(self.read_fd)
            self.read_fd = -1
