"""A small disk under a lab worker's home: a tmpfs of a given size, filled on demand.

A worker's working directory (its ``flux.toml`` and the ``.flux/`` Flux writes under)
gets a tmpfs of its own, mounted before the worker starts, so filling it fills the
worker's disk and nothing else: the server, the other workers and the host keep their
space, as when one worker host's data volume runs out. :meth:`SmallDisk.fill` writes a
filler file until the kernel says ENOSPC (or until only ``leave_bytes`` are left);
:meth:`SmallDisk.fill_inodes` creates empty files until no inode is left (a tmpfs mounted
with ``nr_inodes``), which is ENOSPC too while blocks are free; :meth:`SmallDisk.close`
unmounts (the lab calls it after stopping the worker, in its stop path). Needs root.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

FILLER = "lab-disk-filler.bin"
INODE_FILLERS = "lab-inode-fillers"
CHUNK = b"\0" * 65536


class DiskUnavailable(RuntimeError):
    """No tmpfs mounts here (not root, no mount(8), or the kernel refuses)."""


class SmallDisk:
    """A tmpfs of ``size_bytes`` mounted at ``path`` (an empty directory, made here), holding
    at most ``inodes`` files and directories when given (the kernel's default otherwise)."""

    def __init__(self, path: Path, size_bytes: int, inodes: int | None = None) -> None:
        if os.geteuid() != 0 or shutil.which("mount") is None:
            raise DiskUnavailable("mounting a tmpfs needs root and mount(8)")
        self.path = path
        self.size_bytes = size_bytes
        self._mounted = False
        path.mkdir(parents=True, exist_ok=True)
        options = f"size={size_bytes},mode=0755" + (f",nr_inodes={inodes}" if inodes else "")
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "lab-disk", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise DiskUnavailable(f"mount tmpfs at {path}: {done.stderr.strip()}")
        self._mounted = True

    def fill(self, leave_bytes: int = 0) -> int:
        """Write a filler file until the volume is full, or until a chunk more would leave
        less than ``leave_bytes`` available; return the bytes written.

        Unbuffered, a write that only partly fits returns short and the next one fails
        with ENOSPC: not one byte more fits when this returns with ``leave_bytes`` 0.
        """
        written = 0
        with (self.path / FILLER).open("ab", buffering=0) as filler:
            while leave_bytes <= 0 or self.available_bytes() - len(CHUNK) >= leave_bytes:
                try:
                    written += filler.write(CHUNK) or 0
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    return written
        return written

    def available_bytes(self) -> int:
        """What an unprivileged write may still use, as ``df`` reads it."""
        stats = os.statvfs(self.path)
        return stats.f_bavail * stats.f_frsize

    def fill_inodes(self) -> int:
        """Create empty files until no inode is left; return how many were made."""
        folder = self.path / INODE_FILLERS
        folder.mkdir(exist_ok=True)
        made = 0
        while True:
            try:
                (folder / str(made)).touch(exist_ok=False)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                return made
            made += 1

    def free(self) -> None:
        """Delete the fillers: the volume has room (and inodes) again."""
        (self.path / FILLER).unlink(missing_ok=True)
        shutil.rmtree(self.path / INODE_FILLERS, ignore_errors=True)

    def close(self) -> None:
        """Unmount (lazily if something still holds it open). Safe to call twice."""
        if not self._mounted:
            return
        done = subprocess.run(["umount", str(self.path)], capture_output=True, check=False)
        if done.returncode != 0:
            subprocess.run(["umount", "-l", str(self.path)], capture_output=True, check=False)
        self._mounted = False
