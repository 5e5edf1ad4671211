"""Keep a many-threaded collection from growing its memory with every thread and every host.

glibc gives each new thread its own malloc arena (up to 8 per core) and keeps
freed memory in it. A run that starts a thread per SSH connection (paramiko's
transport threads) on top of its collector pool then grows its resident size
with the number of hosts, although the Python heap stays bounded. Capping the
arenas (what ``MALLOC_ARENA_MAX=2`` does) keeps peak RSS flat; the GIL already
serializes most allocations, so the lost allocator parallelism costs nothing.

glibc also raises its mmap threshold every time a large block is freed (up to 32
MiB), so once the start-up's imports and the first big responses have come and
gone, later buffers of a few hundred KiB come from the heap, and the pages they
leave stay resident under the small records collection keeps; the trim threshold
follows at twice the mmap threshold. Fixing both (what ``MALLOC_MMAP_THRESHOLD_``
does from process start) gives large buffers back when they are freed: ~3 MiB of
the peak at 1,000 hosts (bench/README.md, tenth round).

What the collector threads freed still stays in their arenas once they end, where
the main thread's next steps (normalizing, the live verdict) cannot use it (~17 MiB
of the peak at 1,000 hosts): :func:`release_free_memory`, from
:mod:`redactors.memory`, returns it.
"""

from __future__ import annotations

import sys

from redactors.memory import glibc, release_free_memory

__all__ = ["limit_malloc_arenas", "release_free_memory"]

# ``mallopt`` parameter numbers (glibc ``malloc.h``).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8

ARENAS = 2
MMAP_THRESHOLD = 256 * 1024
"""Blocks this large are mapped on their own and unmapped when freed: a 1 MiB spool
record or a response body, not the small objects collection keeps."""
TRIM_THRESHOLD = 128 * 1024
"""glibc's own default: free memory above this at the heap's top goes back."""

_done = False


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas and fix its thresholds (once; a no-op elsewhere).

    True if applied. Called before the first collector thread starts.
    """
    global _done
    if _done or not sys.platform.startswith("linux"):
        return _done
    libc = glibc()
    if libc is None:
        return False
    try:
        _done = bool(libc.mallopt(M_ARENA_MAX, arenas))
        _done = bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and _done
        _done = bool(libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)) and _done
    except AttributeError:  # not glibc (musl has no mallopt arenas)
        return False
    return _done
