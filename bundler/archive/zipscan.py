"""Open a zip that may be hostile, and refuse it before any member is decompressed.

Checked from the central directory alone (cheap, no password needed):

* the end record: entry count and central-directory size within limits, so a
  forged directory cannot make the parser allocate millions of entries;
* every name: relative, no ``..``, no backslash, no NUL or control character
  (:mod:`bundler.archive.names`), no duplicates;
* every type: regular files only (no symlinks, devices, FIFOs);
* sizes: per member, in total, and the compression ratio of large members;
* layout: members may not overlap each other or the central directory (the
  overlapping-entries zip bomb);
* compression: stored or deflate only.

Whether a member is AES-256 AE-2 encrypted is reported, not refused here:
the reader treats an unencrypted (or AE-1) member as an integrity problem.
What lies around the members is mapped byte by byte by
:mod:`bundler.archive.integrity.bytemap`.
"""

from __future__ import annotations

import errno
import stat
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NoReturn

import pyzipper
from pyzipper import zipfile as pz

from ..errors import CorruptArchive, HostileArchive, InputError, NotABundle
from .aeskeys import aes_zipfile
from .limits import ReaderLimits
from .names import member_name_problem, printable_name
from .zipkind import has_end_record

ZIP_MAGIC = b"PK\x03\x04"
LOCAL_HEADER_MIN = 30
CENTRAL_ENTRY_MAX = 2048
"""Upper bound of one central-directory record we accept (46 + name + extras + comment)."""
ALLOWED_METHODS = {pyzipper.ZIP_STORED, pyzipper.ZIP_DEFLATED}


@dataclass(frozen=True)
class Entry:
    """A member as the central directory describes it."""

    name: str
    size: int
    compressed_size: int
    encrypted: bool
    """True only for WinZip AES-256 AE-2 (what bundler writes)."""
    info: pyzipper.ZipInfo
    aes_version: int = 0
    """1 or 2 for WinZip AES (AE-1 stores a plaintext CRC of every member: refused)."""

    @property
    def is_dir(self) -> bool:
        return self.name.endswith("/")


def open_zip(
    path: Path, limits: ReaderLimits
) -> tuple[BinaryIO, pyzipper.AESZipFile, list[object]]:
    """The open file, its parsed central directory and end record; refuses a non-zip."""
    if not path.exists():
        raise InputError(f"{path} does not exist")
    if not path.is_file():
        raise InputError(f"{path} is not a file")
    if path.stat().st_size == 0:
        raise NotABundle(f"{path} is empty: not a bundle")
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        # Only for the wording of an error: a zip is known by its end record, not its first bytes.
        looks_like_zip = handle.read(4) == ZIP_MAGIC or has_end_record(path)
        handle.seek(0)
        end = _check_end_record(handle, path, limits, looks_like_zip=looks_like_zip)
        with _zip_errors(path, looks_like_zip=looks_like_zip):
            return handle, aes_zipfile(handle), end
    except BaseException:
        handle.close()
        raise


def scan_entries(zf: pyzipper.AESZipFile, limits: ReaderLimits) -> dict[str, Entry]:
    """Every entry by name, in archive order, after the safety checks above."""
    infos = zf.infolist()
    if len(infos) > limits.max_members:
        raise HostileArchive(
            f"the bundle has {len(infos)} members (limit {limits.max_members}; "
            "raise BUNDLER_MAX_MEMBERS if genuine)"
        )
    entries: dict[str, Entry] = {}
    total = 0
    for info in infos:
        entry = _check_entry(info, limits)
        if entry.name in entries:
            raise HostileArchive(f"member {printable_name(entry.name)!r} appears twice")
        entries[entry.name] = entry
        total += entry.size
        if total > limits.max_total_bytes:
            raise HostileArchive(
                f"the bundle expands to more than {limits.max_total_bytes} bytes "
                "(raise BUNDLER_MAX_TOTAL_BYTES if it is genuine)"
            )
    _check_no_overlap(infos, zf.start_dir)
    return entries


def check_manifest_size(entry: Entry, limits: ReaderLimits) -> None:
    """Refuse a manifest over ``max_manifest_bytes``: it is read whole, into memory.

    One definition for the reader (before it reads the manifest) and the post-write
    check (before a bundle is published), so doctor never seals one its readers refuse."""
    if entry.size > limits.max_manifest_bytes:
        raise HostileArchive(
            f"manifest.json is {entry.size} bytes (limit {limits.max_manifest_bytes}; "
            "raise BUNDLER_MAX_MANIFEST_BYTES if genuine)"
        )


def _check_entry(info: pyzipper.ZipInfo, limits: ReaderLimits) -> Entry:
    name: str = info.filename
    label = printable_name(info.orig_filename)
    for candidate in {info.orig_filename, name}:
        problem = member_name_problem(
            candidate.rstrip("/") if candidate.endswith("/") else candidate
        )
        if problem:
            raise HostileArchive(f"member {label!r}: {problem}; refusing the bundle")
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind == stat.S_IFLNK:
        raise HostileArchive(f"member {label!r} is a symbolic link; refusing the bundle")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise HostileArchive(f"member {label!r} is a special file; refusing the bundle")
    if info.compress_type not in ALLOWED_METHODS:
        raise CorruptArchive(f"member {label!r} uses unsupported compression {info.compress_type}")
    if info.file_size > limits.max_member_bytes:
        raise HostileArchive(
            f"member {label!r} expands to {info.file_size} bytes "
            f"(limit {limits.max_member_bytes}; raise BUNDLER_MAX_MEMBER_BYTES if genuine)"
        )
    ratio = ratio_refused(info.file_size, info.compress_size, limits)
    if ratio is not None:
        raise HostileArchive(
            f"member {label!r} has compression ratio {ratio_text(ratio, limits.max_ratio)}:1 "
            f"(limit {limits.max_ratio:g}; raise BUNDLER_MAX_RATIO if genuine)"
        )
    aes_version = int(getattr(info, "wz_aes_version", 0) or 0) if info.flag_bits & 0x1 else 0
    encrypted = aes_version == 2 and info.wz_aes_strength == 3
    return Entry(name, info.file_size, info.compress_size, encrypted, info, aes_version)


def ratio_refused(size: int, compressed_size: int, limits: ReaderLimits) -> float | None:
    """The compression ratio of a member the readers refuse for it, or None.

    A member over ``ratio_floor`` that expands more than ``max_ratio`` times is refused
    as a possible zip bomb (a stored member never is: it expands to no more than its
    bytes). One definition for the readers (:func:`_check_entry`) and the writer, which
    stores such a member uncompressed rather than publish a bundle no reader opens
    (:mod:`bundler.archive.uncompressed`).
    """
    if size <= limits.ratio_floor:
        return None
    ratio = size / max(compressed_size, 1)
    return ratio if ratio > limits.max_ratio else None


def ratio_text(ratio: float, limit: float) -> str:
    """``ratio`` as a refusal shows it: whole, unless rounding would hide that it is past
    ``limit`` (``200.4`` against 200 reads ``200.4``, not ``200``)."""
    for digits in range(4):
        shown = f"{ratio:.{digits}f}"
        if float(shown) > limit:
            return shown
    return f"{ratio:g}"


def _check_no_overlap(infos: list[pyzipper.ZipInfo], directory_start: int) -> None:
    ordered = sorted(infos, key=lambda i: i.header_offset)
    if not ordered:
        return  # an empty zip (only an end record): nothing can overlap
    if ordered[0].header_offset < 0 or directory_start < 0:
        raise CorruptArchive("the bundle's zip directory points outside the file")
    for this, following in zip(ordered, [*ordered[1:], None], strict=True):
        name_len = len(this.orig_filename.encode("utf-8" if this.flag_bits & 0x800 else "cp437"))
        end = this.header_offset + LOCAL_HEADER_MIN + name_len + this.compress_size
        limit = following.header_offset if following is not None else directory_start
        if end > limit:
            raise HostileArchive(
                f"member {printable_name(this.filename)!r} overlaps another part of the zip "
                "(an overlapping-entries zip bomb?)"
            )


def _check_end_record(
    handle: BinaryIO, path: Path, limits: ReaderLimits, *, looks_like_zip: bool
) -> list[object]:
    with _zip_errors(path, looks_like_zip=looks_like_zip):
        end = pz._EndRecData(handle)
    if not end:
        _not_a_zip(path, looks_like_zip)
    if end[pz._ECD_ENTRIES_TOTAL] > limits.max_members:
        raise HostileArchive(
            f"the bundle declares {end[pz._ECD_ENTRIES_TOTAL]} members "
            f"(limit {limits.max_members}; raise BUNDLER_MAX_MEMBERS if genuine)"
        )
    if end[pz._ECD_SIZE] > limits.max_members * CENTRAL_ENTRY_MAX:
        raise HostileArchive("the bundle's central directory is implausibly large")
    return list(end)


@contextmanager
def _zip_errors(path: Path, *, looks_like_zip: bool) -> Iterator[None]:
    try:
        yield
    except (pyzipper.BadZipFile, EOFError, ValueError, zlib.error, struct.error) as exc:
        _not_a_zip(path, looks_like_zip, exc)
    except NotImplementedError as exc:
        raise CorruptArchive(f"{path} uses a zip feature bundler does not read") from exc
    except OSError as exc:
        if exc.errno == errno.EINVAL:  # a seek to a forged offset: the directory is damaged
            _not_a_zip(path, looks_like_zip, exc)
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _not_a_zip(path: Path, looks_like_zip: bool, cause: BaseException | None = None) -> NoReturn:
    if looks_like_zip:
        raise CorruptArchive(
            f"{path} is a truncated or corrupt zip (its central directory is unreadable)"
        ) from cause
    raise NotABundle(f"{path} is not a bundle (not a zip archive)") from cause
