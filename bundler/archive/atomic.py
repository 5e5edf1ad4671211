"""Publish a file only when it is complete: temporary name beside it, then one rename.

A bundle is either absent or whole at its final path, whatever happens while
it is written (an exception, Ctrl-C, a full disk). The temporary file lives in
the *target* folder so the final rename never crosses file systems, and its
name ends in ``.tmp-bundler`` so a stray one (after ``kill -9``) is
recognisable and ignored by git.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from pathlib import Path
from typing import BinaryIO

from ..errors import OutputError

TEMP_SUFFIX = ".tmp-bundler"


def temp_name_for(final: Path) -> Path:
    """``.NAME.<random>.tmp-bundler`` in the same folder as ``final``."""
    return final.parent / f".{final.name}.{secrets.token_hex(6)}{TEMP_SUFFIX}"


def check_can_create(final: Path, *, overwrite: bool) -> None:
    """Refuse early (before any work) when ``final`` cannot be published."""
    if not final.parent.is_dir():
        raise OutputError(f"output folder {final.parent} does not exist")
    if final.is_dir():
        raise OutputError(f"{final} is a directory")
    if (final.exists() or final.is_symlink()) and not overwrite:
        raise OutputError(f"{final} already exists", hint="use --force to replace it")


class AtomicOutput:
    """A private (0600) temporary file that becomes ``final`` on :meth:`publish`.

    Without ``overwrite``, publishing uses a hard link, which fails atomically
    if something appeared at ``final`` meanwhile; the check in the constructor
    is only the early, friendly refusal.
    """

    def __init__(self, final: Path, *, overwrite: bool = False, mode: int = 0o600) -> None:
        self.final = Path(final)
        self.overwrite = overwrite
        check_can_create(self.final, overwrite=overwrite)
        self.temp = temp_name_for(self.final)
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
        flags |= getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(self.temp, flags, mode)
        except OSError as exc:
            folder = self.final.parent
            raise OutputError(f"cannot create a file in {folder}: {exc.strerror}") from exc
        self.file: BinaryIO = os.fdopen(fd, "w+b")
        self._done = False

    def sync(self) -> None:
        """Flush and fsync the temporary file, so a crash after publish cannot lose it."""
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
        except OSError as exc:
            raise OutputError(f"cannot write {self.final}: {exc.strerror}") from exc

    def publish(self) -> Path:
        """Give the temporary file its final name; the temporary name disappears."""
        self.sync()
        self.file.close()
        try:
            if self.overwrite:
                os.replace(self.temp, self.final)
            else:
                self._link_without_overwrite()
        except BaseException:
            self.discard()
            raise
        self._done = True
        _fsync_dir(self.final.parent)
        return self.final

    def _link_without_overwrite(self) -> None:
        try:
            os.link(self.temp, self.final)
        except FileExistsError as exc:
            raise OutputError(
                f"{self.final} already exists", hint="use --force to replace it"
            ) from exc
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                raise OutputError(f"cannot create {self.final}: {exc.strerror}") from exc
            # No hard links on this file system: fall back to a checked rename.
            if self.final.exists() or self.final.is_symlink():
                raise OutputError(
                    f"{self.final} already exists", hint="use --force to replace it"
                ) from exc
            os.rename(self.temp, self.final)
            return
        os.unlink(self.temp)

    def discard(self) -> None:
        """Close and remove the temporary file (idempotent; never raises)."""
        if self._done:
            return
        self._done = True
        with contextlib.suppress(Exception):
            self.file.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temp)


def _fsync_dir(folder: Path) -> None:
    """Persist the rename itself (best effort: not every platform can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
