"""The C allocator's arena cap for the service process (issue 39: flat memory).

The service answers requests on many threads: uvicorn's event loop hands each sync route to
AnyIO's worker threads (up to 40), and the queue, prechecks and the sampler add more. glibc's
``malloc`` gives threads their own arenas, up to eight per core, and memory freed in one of
them is reused only by the threads that allocate there, so RSS creeps up with the number of
threads that have ever run a request, though Python holds no more objects. Measured by
``benchmarks/soak.py`` (40 requests/s, 8 minutes, 2 cores): +1.36 MB/min with glibc's
default arenas, +0.10 MB/min within the first three minutes with ``MALLOC_ARENA_MAX=2``.

:func:`cap_arenas` sets the same cap from inside the process, through glibc's own
``mallopt(M_ARENA_MAX, n)``; it applies to every arena made after the call, so the service
calls it as the app is built, before its threads start (``settings.malloc_arena_max``).

With the cap, RSS still crept up by about 0.3 MB/min over 20 minutes while Python's own
heap grew by about 0.07 MB/min (tracemalloc): freed chunks stay inside the arenas' heaps,
resident, until something hands them back. :func:`trim` is glibc's ``malloc_trim(0)``, which
returns the free pages of every arena (not only the top of the main heap) to the kernel;
the service calls it every ``settings.malloc_trim_s`` seconds from its lifespan.
"""

from __future__ import annotations

import ctypes
import ctypes.util

#: glibc's ``M_ARENA_MAX`` parameter number (``malloc.h``: ``#define M_ARENA_MAX -8``).
M_ARENA_MAX = -8


def cap_arenas(arenas: int) -> bool:
    """Cap glibc malloc's arenas at ``arenas`` for this process.

    Args:
        arenas: the most arenas (>= 1); 0 leaves glibc's default (eight per core) alone.

    Returns:
        True when the cap was set; False for 0, where the C library is not glibc (musl,
        macOS: no ``mallopt`` or no such parameter), or where glibc refused it.

    Raises:
        ValueError: ``arenas`` is negative.
    """
    if arenas < 0:
        raise ValueError(f"arenas must be 0 or more, not {arenas}")
    if arenas == 0:
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, arenas) == 1)


def trim() -> bool:
    """Hand the C allocator's free memory back to the kernel (glibc ``malloc_trim(0)``:
    every arena's free pages, released with ``madvise``).

    Returns:
        True when memory was released; False when there was none to release, or where the
        C library is not glibc (no ``malloc_trim``).
    """
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        malloc_trim = libc.malloc_trim
    except (OSError, AttributeError):
        return False
    malloc_trim.argtypes = (ctypes.c_size_t,)
    malloc_trim.restype = ctypes.c_int
    return bool(malloc_trim(0) == 1)
