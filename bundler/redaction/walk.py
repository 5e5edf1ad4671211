"""Walk a source tree for ``bundler redact``: regular files only, symlinks never followed.

A symlink may point at ``/etc/shadow`` or anywhere outside the tree
(redaction.md §5 case 69), so it is never opened: it is reported as skipped,
with where it points when that is outside the source. Devices, sockets and
FIFOs are skipped too (reading a FIFO would block forever).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError

REPLACED_MEMBERS = frozenset({"manifest.json", "redaction-report.json"})
"""An input bundle's own index files do not describe the redacted copy; new ones are written."""


@dataclass(frozen=True)
class SourceFile:
    path: Path
    rel: str
    size: int


@dataclass
class Walk:
    files: list[SourceFile] = field(default_factory=list)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(f.size for f in self.files)


def walk(src: Path) -> Walk:
    """Regular files under ``src`` (or ``src`` itself), in a stable order.

    ``src`` itself is followed when it is a symlink (``/var/log/app`` often is
    one): the user named it, as ``find -H`` and ``tar`` follow their
    arguments. Links *inside* the tree are never followed.
    """
    try:
        info = src.stat()
    except OSError as exc:
        raise InputError(f"cannot read {src}: {exc.strerror}") from None
    result = Walk()
    if stat.S_ISREG(info.st_mode):
        result.files.append(SourceFile(Path(os.path.realpath(src)), src.name, info.st_size))
        return result
    if not stat.S_ISDIR(info.st_mode):
        raise InputError(f"{src} is not a regular file or a directory")
    root = src.resolve()
    _walk_dir(root, root, result)
    result.files.sort(key=lambda f: f.rel)
    return result


def _walk_dir(root: Path, folder: Path, result: Walk) -> None:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        rel = folder.relative_to(root).as_posix() or "."
        result.skipped.append((rel, "special_file", f"unreadable directory: {exc.strerror}"))
        return
    for entry in entries:
        path = Path(entry.path)
        rel = path.relative_to(root).as_posix()
        if entry.is_symlink():
            result.skipped.append((rel, "symlink", _link_detail(root, path)))
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError as exc:
            result.skipped.append((rel, "special_file", f"unreadable: {exc.strerror}"))
            continue
        if stat.S_ISDIR(info.st_mode):
            _walk_dir(root, path, result)
        elif stat.S_ISREG(info.st_mode):
            if rel in REPLACED_MEMBERS:
                result.skipped.append(
                    (rel, "policy", "an input bundle's index; a new one is written")
                )
                continue
            result.files.append(SourceFile(path, rel, info.st_size))
        else:
            result.skipped.append(
                (rel, "special_file", "not a regular file (device, socket or FIFO)")
            )


def _link_detail(root: Path, path: Path) -> str:
    """Why a link was left out, in words a reader can act on (never where it points: a
    target path can hold anything, and the report travels with the bundle).

    A loop raised ``RuntimeError`` out of ``Path.resolve`` (Python 3.11) and ended
    the run as an internal error; ``os.path.realpath`` does not raise.
    """
    try:
        target = Path(os.path.realpath(path.parent / os.readlink(path)))
        exists = os.path.exists(target)
    except (OSError, ValueError):
        return "symbolic link (not followed)"
    if not exists:
        loop = _is_loop(path)
        return f"symbolic link {'loop' if loop else 'to nothing (dangling)'} (not followed)"
    if not target.is_relative_to(root):
        return "symbolic link pointing outside the source tree (not followed)"
    return "symbolic link (not followed; its target is redacted where it is)"


def _is_loop(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def open_regular(path: Path) -> int:
    """Open for reading: no symlink swapped in after the walk is followed, and what was
    a regular file at the walk must still be one.

    A FIFO put in a file's place read as an empty file (non-blocking: no
    writer), a device as endless bytes (``/dev/zero`` with ``--keep-binary``):
    either is refused as an :class:`OSError` here, one ``fstat`` per file.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "no longer a regular file")
    return fd
