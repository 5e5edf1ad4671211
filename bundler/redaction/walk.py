"""Walk a source tree for ``bundler redact``: regular files only, symlinks never followed.

A symlink may point at ``/etc/shadow`` or anywhere outside the tree
(redaction.md §5 case 69), so it is never opened: it is reported as skipped,
with where it points when that is outside the source. Devices, sockets and
FIFOs are skipped too (reading a FIFO would block forever).
"""

from __future__ import annotations

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
    """Regular files under ``src`` (or ``src`` itself), in a stable order."""
    try:
        info = src.lstat()
    except OSError as exc:
        raise InputError(f"cannot read {src}: {exc.strerror}") from None
    result = Walk()
    if stat.S_ISREG(info.st_mode):
        result.files.append(SourceFile(src, src.name, info.st_size))
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
    try:
        target = (path.parent / os.readlink(path)).resolve()
    except OSError:
        return "symbolic link (not followed)"
    if not target.is_relative_to(root):
        return "symbolic link pointing outside the source tree (not followed)"
    return "symbolic link (not followed; its target is redacted where it is)"


def open_regular(path: Path) -> int:
    """Open for reading without following a symlink swapped in after the walk."""
    return os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
