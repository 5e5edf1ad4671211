"""Doctor's malloc settings: large blocks stay mapped on their own after big ones were freed.

Checked in a fresh interpreter (the settings are per process, once), through glibc's own
count of mmapped blocks (``mallinfo2().hblks``): by default, freeing a 1 MiB block raises
the mmap threshold past it, so the next 512 KiB block comes from the heap and its pages
stay resident after it is freed; with doctor's settings it is mapped, and unmapped on free.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

PROBE = textwrap.dedent(
    """
    import ctypes, sys

    from bundler.collect.memory import glibc, limit_malloc_arenas

    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
            "fsmblks", "uordblks", "fordblks", "keepcost")]

    libc = glibc()
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    libc.mallinfo2.restype = MallInfo2
    if sys.argv[1] == "tuned":
        assert limit_malloc_arenas() is True
    libc.free(libc.malloc(1 << 20))  # a big block freed: glibc's dynamic threshold rises
    before = libc.mallinfo2().hblks
    block = libc.malloc(512 << 10)
    print(libc.mallinfo2().hblks - before)
    libc.free(block)
    """
)


def mapped_blocks_after_a_big_free(mode: str) -> int:
    env = {  # glibc's own defaults, whatever the test run was started with
        k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "GLIBC_TUNABLES"))
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc only")
def test_with_doctors_settings_a_large_block_is_mapped_on_its_own() -> None:
    assert mapped_blocks_after_a_big_free("default") == 0  # the probe can tell the difference
    assert mapped_blocks_after_a_big_free("tuned") == 1
