"""Account for every byte of a bundle's file: what is not a member or zip structure is a problem.

Readers that look only at members miss what an attacker (or a careless tool)
puts around them: a plaintext secret prepended to the zip, in a gap between
members, after the end record, in a directory entry that carries data, in a
per-file comment, in an unknown extra field, or in the zip comment. None of
those bytes is encrypted or authenticated, and no member scan ever sees them.

:func:`map_bytes` maps the whole file from the central directory: each
member's local header (its name must repeat the directory's; its extra
fields must be the zip64 sizes or the AES parameters, with their values),
its data, its data descriptor, the central directory (every byte of it
inside an entry), the zip64 end records, the end record and its comment
(only one bundler writes, :func:`~bundler.archive.sealing.is_own_comment`).
Whatever is left over is reported, with the neighbouring members named. A
bundle bundler wrote maps completely; nothing here needs the password.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import pyzipper
from pyzipper import zipfile as pz

from ..names import printable_name
from ..sealing import is_own_comment
from . import IntegrityProblem, ProblemKind

LOCAL = struct.Struct("<IHHHHHIIIHH")
LOCAL_SIG = 0x04034B50
CENTRAL_FIXED = 46
END_FIXED = 22
ZIP64_END = struct.Struct("<IQHHIIQQQQ")
ZIP64_END_SIG = 0x06064B50
ZIP64_LOCATOR = struct.Struct("<IIQI")
ZIP64_LOCATOR_SIG = 0x07064B50
DESCRIPTOR_SIG = b"PK\x07\x08"
ZIP64_EXTRA, AES_EXTRA = 0x0001, 0x9901
AES_METHOD = 99
DATA_DESCRIPTOR_FLAG, UTF8_FLAG = 0x08, 0x800
MAX_LISTED = 20
"""Problems listed per bundle; a thoroughly mangled file says 'and N more'."""


@dataclass(frozen=True)
class Region:
    """Bytes ``[start, end)`` that belong to ``owner`` (a member name or a zip structure)."""

    start: int
    end: int
    owner: str


class _Findings:
    def __init__(self) -> None:
        self.problems: list[IntegrityProblem] = []

    def add(self, kind: ProblemKind, member: str | None, message: str) -> None:
        self.problems.append(IntegrityProblem(kind, member, message))


def map_bytes(
    handle: BinaryIO, zf: pyzipper.AESZipFile, end_record: list[object]
) -> list[IntegrityProblem]:
    """Every byte of the file that no member or zip structure accounts for, as problems.

    ``end_record`` is pyzipper's parsed end record (``_EndRecData``), with
    the zip64 values when there are zip64 records.
    """
    handle.seek(0, 2)
    file_size = handle.tell()
    found = _Findings()
    regions: list[Region] = []
    infos: list[pyzipper.ZipInfo] = zf.infolist()
    for info in infos:
        regions += _member_regions(handle, info, found)
    regions += _directory_regions(handle, zf, infos, end_record, file_size, found)
    _gaps(regions, file_size, found)
    problems = found.problems
    if len(problems) > MAX_LISTED:
        rest = len(problems) - MAX_LISTED
        extra = IntegrityProblem("stray_bytes", None, f"... and {rest} more layout problems")
        problems = [*problems[:MAX_LISTED], extra]
    return problems


def _label(info: pyzipper.ZipInfo) -> str:
    return repr(printable_name(info.filename))


def _raw_name(info: pyzipper.ZipInfo) -> bytes:
    encoding = "utf-8" if info.flag_bits & UTF8_FLAG else "cp437"
    name: bytes = info.orig_filename.encode(encoding, "surrogateescape")
    return name


def _member_regions(handle: BinaryIO, info: pyzipper.ZipInfo, found: _Findings) -> Iterator[Region]:
    """The local header, data and data descriptor of one member, checked against the directory."""
    name, label = info.filename, _label(info)
    if info.is_dir() and (info.compress_size or info.file_size):
        found.add(
            "stray_bytes",
            name,
            f"directory entry {label} carries {info.compress_size} bytes of data",
        )
    handle.seek(info.header_offset)
    fixed = handle.read(LOCAL.size)
    if len(fixed) != LOCAL.size or LOCAL.unpack(fixed)[0] != LOCAL_SIG:
        found.add("foreign_structure", name, f"member {label} has no local header where listed")
        return
    _, _, flags, method, _, _, _, _, _, name_len, extra_len = LOCAL.unpack(fixed)
    local_name = handle.read(name_len)
    local_extra = handle.read(extra_len)
    if local_name != _raw_name(info):
        found.add("foreign_structure", name, f"member {label}: its local header names another file")
    aes = bool(info.flag_bits & 0x1 and getattr(info, "wz_aes_version", None))
    expected_method = AES_METHOD if aes else info.compress_type
    if (flags ^ info.flag_bits) & (DATA_DESCRIPTOR_FLAG | 0x1) or method != expected_method:
        found.add("foreign_structure", name, f"member {label}: local header and directory disagree")
    _check_extra(local_extra, info, found, where="local header")
    header_end = info.header_offset + LOCAL.size + name_len + extra_len
    yield Region(info.header_offset, header_end, name)
    data_end = header_end + info.compress_size
    yield Region(header_end, data_end, name)
    if flags & DATA_DESCRIPTOR_FLAG:
        length = _descriptor_length(handle, data_end, info)
        if length is None:
            found.add(
                "foreign_structure",
                name,
                f"member {label}: its data descriptor disagrees with the directory",
            )
        else:
            yield Region(data_end, data_end + length, name)


def _descriptor_length(handle: BinaryIO, at: int, info: pyzipper.ZipInfo) -> int | None:
    """Length of the data descriptor at ``at`` whose values match the directory, or None.

    Four shapes exist: with or without its signature, with 4- or 8-byte sizes.
    """
    handle.seek(at)
    raw = handle.read(24)
    expected = (info.CRC, info.compress_size, info.file_size)
    bodies = [(raw[4:], 4)] if raw[:4] == DESCRIPTOR_SIG else []
    bodies.append((raw, 0))
    for body, signature in bodies:
        for fmt in ("<III", "<IQQ"):
            size = struct.calcsize(fmt)
            if len(body) >= size and struct.unpack_from(fmt, body) == expected:
                return signature + size
    return None


def _check_extra(extra: bytes, info: pyzipper.ZipInfo, found: _Findings, *, where: str) -> None:
    """Only the zip64 sizes and the AES parameters, well-formed and with the entry's values."""
    label = _label(info)
    pos = 0
    while pos < len(extra):
        if pos + 4 > len(extra):
            found.add(
                "foreign_structure",
                info.filename,
                f"member {label}: {len(extra) - pos} stray bytes in its {where}'s extra field",
            )
            return
        field_id, size = struct.unpack_from("<HH", extra, pos)
        body = extra[pos + 4 : pos + 4 + size]
        pos += 4 + size
        if len(body) != size:
            found.add(
                "foreign_structure",
                info.filename,
                f"member {label}: truncated extra field in its {where}",
            )
            return
        if field_id == ZIP64_EXTRA and _zip64_ok(body, info):
            continue
        if field_id == AES_EXTRA and _aes_ok(body):
            continue
        if field_id in METADATA_EXTRAS and METADATA_EXTRAS[field_id](body):
            continue
        found.add(
            "foreign_structure",
            info.filename,
            f"member {label}: unknown or malformed extra field 0x{field_id:04x} "
            f"({size} bytes) in its {where}",
        )


def _zip64_ok(body: bytes, info: pyzipper.ZipInfo) -> bool:
    """Zip64 values may only be the entry's sizes and offset (or zero, from a streaming writer)."""
    whole, disk = divmod(len(body), 8)
    if whole > 3 or disk not in (0, 4) or (disk and body[-4:] != bytes(4)):
        return False
    allowed = {0, info.file_size, info.compress_size, info.header_offset}
    return all(value in allowed for value in struct.unpack_from(f"<{whole}Q", body))


def _aes_ok(body: bytes) -> bool:
    if len(body) != 7:
        return False
    version, vendor, strength, method = struct.unpack("<H2sBH", body)
    return version in (1, 2) and vendor == b"AE" and strength in (1, 2, 3) and method in (0, 8)


def _ntfs_times_ok(body: bytes) -> bool:
    """7-Zip's NTFS times: reserved zero, one tag-1 attribute of three 8-byte times."""
    return len(body) == 32 and body[:4] == bytes(4) and body[4:8] == b"\x01\x00\x18\x00"


def _extended_time_ok(body: bytes) -> bool:
    """Info-ZIP's extended timestamp: a flags byte and at most one 4-byte time per flag."""
    if not body or body[0] & ~0x07:
        return False
    times = (len(body) - 1) // 4
    return (len(body) - 1) % 4 == 0 and times <= bin(body[0]).count("1")


def _unix_owner_ok(body: bytes) -> bool:
    """Info-ZIP's uid/gid field (version 1): two little numbers, nothing else."""
    if len(body) < 3 or body[0] != 1:
        return False
    uid_size = body[1]
    if uid_size > 8 or len(body) < 3 + uid_size:
        return False
    gid_size = body[2 + uid_size]
    return gid_size <= 8 and len(body) == 3 + uid_size + gid_size


METADATA_EXTRAS = {0x000A: _ntfs_times_ok, 0x5455: _extended_time_ok, 0x7875: _unix_owner_ok}
"""Extra fields other zip tools add when a bundle is repacked (7-Zip, Info-ZIP): numbers only.

Accepted when exactly in shape, so a repacked bundle still verifies; any
other field, or one of these with stray bytes, is reported.
"""


def _directory_regions(
    handle: BinaryIO,
    zf: pyzipper.AESZipFile,
    infos: list[pyzipper.ZipInfo],
    end_record: list[object],
    file_size: int,
    found: _Findings,
) -> Iterator[Region]:
    """The central directory (every byte inside an entry), zip64 records, end record, comment."""
    directory_size = int(end_record[pz._ECD_SIZE])  # type: ignore[call-overload]
    used = 0
    for info in infos:
        used += CENTRAL_FIXED + len(_raw_name(info)) + len(info.extra) + len(info.comment)
        _check_extra(info.extra, info, found, where="directory entry")
        if info.comment:
            found.add(
                "foreign_structure",
                info.filename,
                f"member {_label(info)} has a per-file comment ({len(info.comment)} bytes)",
            )
    declared = (
        int(end_record[pz._ECD_ENTRIES_TOTAL]),  # type: ignore[call-overload]
        int(end_record[pz._ECD_ENTRIES_THIS_DISK]),  # type: ignore[call-overload]
    )
    disks = (
        int(end_record[pz._ECD_DISK_NUMBER]),  # type: ignore[call-overload]
        int(end_record[pz._ECD_DISK_START]),  # type: ignore[call-overload]
    )
    if declared != (len(infos), len(infos)) or disks != (0, 0):
        found.add(
            "foreign_structure",
            None,
            f"the end record declares {declared[0]} entries (on disk {disks[0]}); "
            f"the directory holds {len(infos)}",
        )
    if used != directory_size:
        found.add(
            "stray_bytes",
            None,
            f"the central directory holds {abs(directory_size - used)} bytes no entry accounts for",
        )
    yield Region(zf.start_dir, zf.start_dir + directory_size, "the central directory")
    location = int(end_record[pz._ECD_LOCATION])  # type: ignore[call-overload]
    yield from _zip64_regions(handle, location, found)
    comment = bytes(end_record[pz._ECD_COMMENT])  # type: ignore[call-overload]
    comment_size = int(end_record[pz._ECD_COMMENT_SIZE])  # type: ignore[call-overload]
    if location + END_FIXED + comment_size > file_size:
        found.add("foreign_structure", None, "the zip comment runs past the end of the file")
    elif not is_own_comment(comment):
        found.add(
            "foreign_structure",
            None,
            f"the zip comment ({len(comment)} bytes) is not one bundler writes",
        )
    yield Region(location, min(location + END_FIXED + comment_size, file_size), "the end record")


def _zip64_regions(handle: BinaryIO, location: int, found: _Findings) -> Iterator[Region]:
    """The zip64 end record and its locator, when the end record is preceded by them."""
    locator_at = location - ZIP64_LOCATOR.size
    if locator_at < 0:
        return
    handle.seek(locator_at)
    locator = handle.read(ZIP64_LOCATOR.size)
    if ZIP64_LOCATOR.unpack(locator)[0] != ZIP64_LOCATOR_SIG:
        return
    yield Region(locator_at, location, "the zip64 end record locator")
    record_at = locator_at - ZIP64_END.size
    handle.seek(max(record_at, 0))
    record = handle.read(ZIP64_END.size)
    if record_at < 0 or ZIP64_END.unpack(record)[0] != ZIP64_END_SIG:
        found.add("foreign_structure", None, "the zip64 end record is missing or misplaced")
        return
    if ZIP64_END.unpack(record)[1] != ZIP64_END.size - 12:
        found.add("foreign_structure", None, "the zip64 end record carries extensible data")
    yield Region(record_at, locator_at, "the zip64 end record")


def _gaps(regions: list[Region], file_size: int, found: _Findings) -> None:
    """Report every stretch of the file that no region covers (and overlapping regions)."""
    ordered = sorted(regions, key=lambda r: (r.start, r.end))
    cursor, previous = 0, None
    for region in ordered:
        if region.start > cursor:
            found.add("stray_bytes", None, _gap_message(region.start - cursor, previous, region))
        elif region.start < cursor and previous is not None and previous.owner != region.owner:
            found.add(
                "foreign_structure",
                None,
                f"{_owner(region)} overlaps {_owner(previous)}",
            )
        if region.end >= cursor:
            cursor, previous = region.end, region
    if file_size > cursor:
        found.add("stray_bytes", None, _gap_message(file_size - cursor, previous, None))


def _owner(region: Region) -> str:
    if region.owner.startswith("the "):
        return region.owner
    return f"member {printable_name(region.owner)!r}"


def _gap_message(size: int, before: Region | None, after: Region | None) -> str:
    amount = "1 byte" if size == 1 else f"{size} bytes"
    verb = "belongs" if size == 1 else "belong"
    if before is None:
        return f"{amount} before the first zip record {verb} to nothing (prepended data)"
    if after is None:
        return f"{amount} after the end record {verb} to nothing (trailing data)"
    return f"{amount} between {_owner(before)} and {_owner(after)} {verb} to nothing (a gap)"
