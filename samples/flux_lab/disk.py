"""A small disk under a lab worker's home: a tmpfs of a given size, filled on demand.

A worker's working directory (its ``flux.toml`` and the ``.flux/`` Flux writes under)
gets a tmpfs of its own, mounted before the worker starts, so filling it fills the
worker's disk and nothing else: the server, the other workers and the host keep their
space, as when one worker host's data volume runs out. :meth:`SmallDisk.fill` writes a
filler file until the kernel says ENOSPC; :meth:`SmallDisk.close` unmounts (the lab
calls it after stopping the worker, in its stop path). Needs root.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

FILLER = "lab-disk-filler.bin"
CHUNK = b"\0" * 65536


class DiskUnavailable(RuntimeError):
    """No tmpfs mounts here (not root, no mount(8), or the kernel refuses)."""


class SmallDisk:
    """A tmpfs of ``size_bytes`` mounted at ``path`` (an empty directory, made here)."""

    def __init__(self, path: Path, size_bytes: int) -> None:
        if os.geteuid() != 0 or shutil.which("mount") is None:
            raise DiskUnavailable("mounting a tmpfs needs root and mount(8)")
        self.path = path
        self.size_bytes = size_bytes
        self._mounted = False
        path.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size_bytes},mode=0755", "lab-disk", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise DiskUnavailable(f"mount tmpfs at {path}: {done.stderr.strip()}")
        self._mounted = True

    def fill(self) -> int:
        """Write a filler file until the volume is full; return the bytes written.

        Unbuffered, a write that only partly fits returns short and the next one fails
        with ENOSPC: not one byte more fits when this returns.
        """
        written = 0
        with (self.path / FILLER).open("ab", buffering=0) as filler:
            while True:
                try:
                    written += filler.write(CHUNK) or 0
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    return written

    def free(self) -> None:
        """Delete the filler: the volume has room again."""
        (self.path / FILLER).unlink(missing_ok=True)

    def close(self) -> None:
        """Unmount (lazily if something still holds it open). Safe to call twice."""
        if not self._mounted:
            return
        done = subprocess.run(["umount", str(self.path)], capture_output=True, check=False)
        if done.returncode != 0:
            subprocess.run(["umount", "-l", str(self.path)], capture_output=True, check=False)
        self._mounted = False
