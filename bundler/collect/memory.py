"""Keep a many-threaded collection from growing its memory with every thread it starts.

glibc gives each new thread its own malloc arena (up to 8 per core) and keeps
freed memory in it. A run that starts a thread per SSH connection (paramiko's
transport threads) on top of its collector pool then grows its resident size
with the number of hosts, although the Python heap stays bounded. Capping the
arenas (what ``MALLOC_ARENA_MAX=2`` does) keeps peak RSS flat; the GIL already
serializes most allocations, so the lost allocator parallelism costs nothing.

What the collector threads freed still stays in their arenas once they end, where
the main thread's next steps (normalizing, the live verdict) cannot use it (~17 MiB
of the peak at 1,000 hosts): :func:`release_free_memory`, from
:mod:`redactors.memory`, returns it.
"""

from __future__ import annotations

import sys

from redactors.memory import glibc, release_free_memory

__all__ = ["limit_malloc_arenas", "release_free_memory"]

M_ARENA_MAX = -8
"""``mallopt`` parameter number (glibc ``malloc.h``)."""
ARENAS = 2

_done = False


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas for this process (once; a no-op elsewhere). True if applied."""
    global _done
    if _done or not sys.platform.startswith("linux"):
        return _done
    libc = glibc()
    if libc is None:
        return False
    try:
        _done = bool(libc.mallopt(M_ARENA_MAX, arenas))
    except AttributeError:  # not glibc (musl has no mallopt arenas)
        return False
    return _done
