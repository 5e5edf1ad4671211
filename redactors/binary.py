"""What a member is, from its first bytes: text, UTF-16 or UTF-32 text, gzip, or binary (and which).

Binary files cannot be redacted without corrupting them (troubleshoot PR#1947)
and may still hold ASCII secrets (a SQLite file, a core dump), so they are
left out unless the user explicitly keeps them. UTF-16 text (Windows exports)
and UTF-32 text, little- or big-endian, with a byte-order mark or without, are
transcoded to UTF-8 and redacted like any text (a rule matches ``password=``,
not ``p\0a\0s\0s``: read as bytes, such text kept every secret and reviewed
clean); gzip is decompressed, redacted and
recompressed; nested zip/tar archives are left out (their names and contents
would escape redaction).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from .entropy import at_least

SNIFF_BYTES = 8192

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"SQLite format 3\0", "SQLite database"),
    (b"\x7fELF", "ELF executable or core dump"),
    (b"PK\x03\x04", "zip archive"),
    (b"PK\x05\x06", "zip archive"),
    (b"\x89PNG", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF", "PDF document"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\0", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7z archive"),
    (b"\x28\xb5\x2f\xfd", "zstd archive"),
    (b"MZ", "Windows executable"),
    (b"\xca\xfe\xba\xbe", "Mach-O or Java class"),
)


@dataclass(frozen=True)
class Sniff:
    kind: str  # "text" | a WIDE_TEXT encoding | "gzip" | "binary" | "archive"
    detail: str = ""


WIDE_TEXT = frozenset({"utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"})
"""Text in a fixed-width encoding of more than a byte: transcoded before any rule reads it."""

_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),  # before UTF-16's, which it begins with
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
_LANES = {
    "utf-32-le": (4, (2, 3), 0),
    "utf-32-be": (4, (0, 1), 3),
    "utf-16-le": (2, (1,), 0),
    "utf-16-be": (2, (0,), 1),
}
"""Per encoding: the code unit's width, the byte lanes that are zero in ASCII and Latin
text (and, for UTF-32, in every character but the rarest), and the lane that holds the
character itself."""


_CONTROL = bytes(c for c in range(32) if c not in (9, 10, 12, 13, 27, 0))
"""Control bytes that make a sample binary when they are a tenth of it (tab, line breaks, form
feed, escape and NUL excepted: NUL is judged on its own). Counted with ``translate``, in C: a
Python loop over the 8 KiB sample was most of the time of a small member."""
_NOT_RECORD_TEXT = bytes(c for c in range(256) if not (32 <= c < 127 or c in (0, 9, 10, 13)))


def control_bytes(sample: bytes) -> int:
    """How many bytes of ``sample`` are in :data:`_CONTROL` (those ``translate`` deletes)."""
    return len(sample) - len(sample.translate(None, _CONTROL))


def record_text_bytes(sample: bytes) -> int:
    """How many bytes of ``sample`` are printable ASCII, tab, line breaks or NUL (what is left
    once ``translate`` deletes the others)."""
    return len(sample.translate(None, _NOT_RECORD_TEXT))


def sniff(head: bytes) -> Sniff:
    """Classify a member by its first bytes (at least :data:`SNIFF_BYTES` when available)."""
    if head[:2] == b"\x1f\x8b":
        return Sniff("gzip", "gzip-compressed")
    for bom, encoding in _BOMS:
        if head.startswith(bom) and _with_bom(head[len(bom) : SNIFF_BYTES], encoding):
            return Sniff(encoding, f"{encoding[:6].upper()} text")
    for magic, detail in _MAGIC:
        if head.startswith(magic):
            if "zip" in detail or "7z" in detail:
                return Sniff("archive", detail)
            if magic == b"MZ" and b"\0" not in head[:256]:
                continue
            return Sniff("binary", detail)
    if len(head) > 262 and head[257:262] == b"ustar":
        return Sniff("archive", "tar archive")
    sample = head[:SNIFF_BYTES]
    if not sample:
        return Sniff("text")
    zeros = sample.count(0)
    if zeros:
        for encoding in _LANES:  # UTF-32 first: its zero lanes include UTF-16's
            if _without_bom(sample, encoding):
                return Sniff(encoding, f"{encoding[:6].upper()} text without BOM")
        if zeros > max(8, len(sample) // 100) and not _nul_separated_text(sample):
            return Sniff("binary", "contains NUL bytes")
    controls = control_bytes(sample)
    if controls > len(sample) // 10:
        return Sniff("binary", "mostly control bytes")
    if not sample.isascii() and not _utf8_text(sample) and _scrambled(sample, controls):
        return Sniff("binary", "compressed, encrypted or random bytes")
    return Sniff("text")


SCRAMBLED_BITS = 7.5
"""Bits per byte above which a sample of :data:`SCRAMBLED_MIN` bytes or more is compressed,
encrypted or random: 8 KiB of such bytes measure ~7.98; text in a legacy multi-byte
encoding (GBK, Shift-JIS) stays inside ~190 byte values, under ~7.6 at the very most and
~6-7 in practice; Latin-1 text ~5."""
SCRAMBLED_MIN = 4096


def _utf8_text(sample: bytes) -> bool:
    """Whether ``sample`` is UTF-8, a character cut at its end allowed."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        return False
    return True


def _scrambled(sample: bytes, controls: int) -> bool:
    """Not text, for bytes that are not UTF-8: a control byte in a hundred (text in a legacy
    encoding has none but tab, line breaks, form feed and escape), or the byte spread of
    compressed data.

    A raw deflate, zlib, LZMA or LZ4 stream, or encrypted or random bytes, has no signature
    the checks above know and only about one control byte in ten: read as text it was
    scanned, nothing matched what it held, and ``review`` called it clean.
    """
    if controls * 100 >= len(sample):
        return True
    if len(sample) < SCRAMBLED_MIN:
        return False
    return at_least(sample, SCRAMBLED_BITS)


def _with_bom(body: bytes, encoding: str) -> bool:
    """A BOM alone proves nothing (Latin-1 text may start with 0xFF 0xFE): check the zeros.

    Half the high bytes of UTF-16 (text in another script has few), and for UTF-32 the
    lanes no character below U+10000 sets, all but a few.
    """
    width, zero_lanes, _ = _LANES[encoding]
    body = body[: len(body) - len(body) % width]
    lanes = [body[lane::width] for lane in zero_lanes]
    if len(lanes[0]) < 4:
        return True
    share = 0.5 if width == 2 else 0.95
    return all(lane.count(0) >= share * len(lane) for lane in lanes)


def _without_bom(sample: bytes, encoding: str) -> bool:
    """Text in ``encoding`` with no BOM: its zero lanes almost all zero, its character lane
    almost never (ASCII or Latin text, as logs and exports are)."""
    width, zero_lanes, character = _LANES[encoding]
    sample = sample[: len(sample) - len(sample) % width]
    units = len(sample) // width
    if units <= 16:
        return False
    return (
        all(sample[lane::width].count(0) > 0.8 * units for lane in zero_lanes)
        and sample[character::width].count(0) < 0.1 * units
    )


def _nul_separated_text(sample: bytes) -> bool:
    """``/proc/<pid>/environ`` and ``find -print0``: text records separated by NUL."""
    fields = [f for f in sample.split(b"\0") if f]
    printable = record_text_bytes(sample)
    if len(fields) >= 16 and sum(len(f) == 1 for f in fields) > len(fields) // 2:
        return False  # one character between NULs: text in a wider encoding, not records
    return bool(fields) and printable > 0.95 * len(sample)


OPAQUE_STREAMS = frozenset({"bzip2 archive", "xz archive", "zstd archive"})
"""Compressed streams nothing here decompresses (gzip is decompressed)."""


def opaque(found: Sniff) -> bool:
    """Whether a scan of the bytes as they are could miss what they hold: an archive
    (a tar excepted: its members are plain bytes) or a compressed stream."""
    return (found.kind == "archive" and found.detail != "tar archive") or (
        found.kind == "gzip" or found.detail in OPAQUE_STREAMS
    )
