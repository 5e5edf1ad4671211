"""Safe extraction: nothing is ever written outside the target folder, nothing half-written.

Member names were already vetted by the reader (relative, no ``..``, no
backslashes, no links). Extraction adds the other half: the *destination*
may contain symlinks planted to redirect writes, so no link is ever followed.
Every folder is opened relative to its parent with ``O_NOFOLLOW`` (``openat``
style, no path re-resolution, no race), every file is created with
``O_EXCL | O_NOFOLLOW`` under a temporary name, filled from the verifying
reader, and renamed only after its sha256 matched the manifest. A failure
removes everything this run created. A file that replaces one already there
(``--force``) waits under its temporary name until every member has verified,
so a failure also leaves every existing file as it was. Files are 0600,
folders 0700.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import OutputError, UsageError
from .atomic import TEMP_SUFFIX
from .names import printable_name
from .reader import BundleReader

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


@dataclass(frozen=True)
class ExtractResult:
    folder: Path
    files: int
    """Members written: new files and the files they replaced alike."""
    bytes: int


Replacement = tuple[tuple[str, ...], str]
"""A verified member's path parts and the temporary name it waits under to replace a file."""


def extract_bundle(reader: BundleReader, dest: Path, *, overwrite: bool = False) -> ExtractResult:
    """Extract every sound member of ``reader`` under ``dest``."""
    if os.open not in os.supports_dir_fd or os.mkdir not in os.supports_dir_fd:
        raise UsageError("safe extraction needs a POSIX system (openat)")
    dest = Path(dest)
    names = reader.names()
    created_root = _prepare_root(dest, overwrite=overwrite)
    root = os.open(dest, _DIR_FLAGS)
    created: list[tuple[str, ...]] = []
    replacements: list[Replacement] = []
    total = 0
    try:
        _check_names_fit(names, root, dest)
        for name in names:
            try:
                total += _extract_member(reader, root, name, dest, created, replacements, overwrite)
            except OSError as exc:  # disk full, a name this file system refuses, ...
                raise OutputError(
                    f"cannot write member {printable_name(name)!r} under {dest}: "
                    f"{exc.strerror or type(exc).__name__}; nothing extracted is left behind"
                ) from exc
        _replace_existing(root, dest, replacements)
    except BaseException:
        _discard(root, dest, replacements)
        os.close(root)
        if created_root:
            shutil.rmtree(dest, ignore_errors=True)
        else:
            _remove_created(dest, created)
        raise
    os.close(root)
    return ExtractResult(dest, len(names), total)


def _check_names_fit(names: list[str], root: int, dest: Path) -> None:
    """Refuse, before writing anything, a member whose path this file system cannot hold.

    Member names may be up to 1024 characters, but most file systems cap one
    path component at 255 bytes (``NAME_MAX``); the temporary name used while
    a file is verified is shorter than its final name, so checking the final
    names is enough.
    """
    try:
        name_max = os.fpathconf(root, "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    for name in names:
        for part in name.split("/"):
            if len(os.fsencode(part)) > name_max:
                raise OutputError(
                    f"member {printable_name(name)!r} has a path component longer than "
                    f"{name_max} bytes, which {dest} cannot hold; nothing was extracted"
                )


def _prepare_root(dest: Path, *, overwrite: bool) -> bool:
    """Create ``dest`` (True) or accept an existing, link-free one (False)."""
    if dest.is_symlink():
        raise OutputError(f"{dest} is a symbolic link; refusing to extract through it")
    if not dest.exists():
        if not dest.parent.is_dir():
            raise OutputError(f"folder {dest.parent} does not exist")
        try:
            dest.mkdir(mode=0o700)
        except OSError as exc:
            raise OutputError(f"cannot create {dest}: {exc.strerror}") from exc
        return True
    if not dest.is_dir():
        raise OutputError(f"{dest} exists and is not a folder")
    if any(dest.iterdir()) and not overwrite:
        raise OutputError(f"{dest} is not empty", hint="use --force to extract into it anyway")
    _refuse_escaping_links(dest)
    return False


def _refuse_escaping_links(dest: Path) -> None:
    root = dest.resolve()
    for folder, dirs, files in os.walk(dest, followlinks=False):
        for item in (*dirs, *files):
            path = Path(folder) / item
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                inside = path.relative_to(dest)
                raise OutputError(f"{dest} contains a symbolic link pointing outside it ({inside})")


def _extract_member(
    reader: BundleReader,
    root: int,
    name: str,
    dest: Path,
    created: list[tuple[str, ...]],
    replacements: list[Replacement],
    overwrite: bool,
) -> int:
    """Write one verified member: a new file at once, a replacement only at the end."""
    parts = tuple(name.split("/"))
    parent = _open_parents(root, parts[:-1], dest, created)
    temp = f".{parts[-1][:64]}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    waiting = False
    try:
        size = _write_verified(reader, name, parent, temp)
        try:
            existing = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            existing = None
        if existing is not None and (not overwrite or stat.S_ISDIR(existing.st_mode)):
            raise OutputError(f"{dest.joinpath(*parts)} already exists", hint="use --force")
        if existing is None:
            os.rename(temp, parts[-1], src_dir_fd=parent, dst_dir_fd=parent)
            created.append(parts)
        else:
            replacements.append((parts, temp))
            waiting = True
        return size
    finally:
        if not waiting:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=parent)
        if parent != root:
            os.close(parent)


def _replace_existing(root: int, dest: Path, replacements: list[Replacement]) -> None:
    """Rename every waiting member over the file it replaces, once all of them verified."""
    while replacements:
        parts, temp = replacements[0]
        parent = _open_parents(root, parts[:-1], dest, [])
        try:
            os.rename(temp, parts[-1], src_dir_fd=parent, dst_dir_fd=parent)
        except OSError as exc:
            raise OutputError(
                f"cannot replace {dest.joinpath(*parts)}: {exc.strerror or type(exc).__name__}"
            ) from exc
        finally:
            if parent != root:
                os.close(parent)
        replacements.pop(0)


def _discard(root: int, dest: Path, replacements: list[Replacement]) -> None:
    """Remove the temporary files of replacements that will not happen."""
    for parts, temp in replacements:
        with contextlib.suppress(OSError, OutputError):
            parent = _open_parents(root, parts[:-1], dest, [])
            try:
                os.unlink(temp, dir_fd=parent)
            finally:
                if parent != root:
                    os.close(parent)


def _write_verified(reader: BundleReader, name: str, parent: int, temp: str) -> int:
    """Stream a member into ``temp``; the reader raises at the end if it does not verify."""
    fd = os.open(temp, _FILE_FLAGS, 0o600, dir_fd=parent)
    size = 0
    with os.fdopen(fd, "wb") as out:
        for chunk in reader.iter_chunks(name):
            out.write(chunk)
            size += len(chunk)
    return size


def _open_parents(
    root: int, parts: tuple[str, ...], dest: Path, created: list[tuple[str, ...]]
) -> int:
    """Open (creating as needed) each folder of ``parts`` under ``root``, following no link."""
    current = root
    for depth, part in enumerate(parts):
        try:
            os.mkdir(part, 0o700, dir_fd=current)
            created.append((*parts[: depth + 1], "/"))
        except FileExistsError:
            pass
        try:
            opened = os.open(part, _DIR_FLAGS, dir_fd=current)
        except OSError as exc:
            where = dest.joinpath(*parts[: depth + 1])
            raise OutputError(
                f"{where} is a symbolic link or not a folder; refusing to write through it"
            ) from exc
        finally:
            if current != root:
                os.close(current)
        current = opened
    return current


def _remove_created(dest: Path, created: list[tuple[str, ...]]) -> None:
    """Undo this run in an existing folder: files first, then folders deepest first."""

    def depth_then_files_first(parts: tuple[str, ...]) -> tuple[int, bool]:
        return (len([p for p in parts if p != "/"]), parts[-1] != "/")

    for parts in sorted(created, key=depth_then_files_first, reverse=True):
        path = dest.joinpath(*(p for p in parts if p != "/"))
        with contextlib.suppress(OSError):
            if parts[-1] == "/":
                path.rmdir()
            elif not path.is_symlink():
                path.unlink()
