"""Give memory the process freed back to the system (glibc's ``malloc_trim``; a no-op elsewhere).

Lives in the lowest layer that needs it: the accelerator trims after compiling its
database (:mod:`.accel`), and doctor after its collector threads end
(:mod:`bundler.collect.memory`). Python objects live in pymalloc's arenas, which are
mapped on their own; memory a C library frees goes back to glibc's heaps instead, and
stays resident there until trimmed, however little of it is reused.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

_libc: ctypes.CDLL | None = None


def release_free_memory() -> bool:
    """Return the free pages of every glibc malloc arena to the system. True if any were."""
    libc = glibc()
    if libc is None:
        return False
    try:
        return bool(libc.malloc_trim(0))
    except AttributeError:  # not glibc (musl has no malloc_trim)
        return False


def glibc() -> ctypes.CDLL | None:
    """The C library on Linux, loaded once; None elsewhere or when it cannot be loaded."""
    global _libc
    if _libc is None and sys.platform.startswith("linux"):
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        except OSError:
            return None
    return _libc
