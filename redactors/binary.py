"""What a member is, from its first bytes: text, UTF-16 text, gzip, or binary (and which).

Binary files cannot be redacted without corrupting them (troubleshoot PR#1947)
and may still hold ASCII secrets (a SQLite file, a core dump), so they are
left out unless the user explicitly keeps them. UTF-16 text (Windows exports)
is transcoded and redacted like any text; gzip is decompressed, redacted and
recompressed; nested zip/tar archives are left out (their names and contents
would escape redaction).
"""

from __future__ import annotations

from dataclasses import dataclass

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
    kind: str  # "text" | "utf-16-le" | "utf-16-be" | "gzip" | "binary" | "archive"
    detail: str = ""


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
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) and _looks_utf16(
        head[2:], head[:2] == b"\xff\xfe"
    ):
        return Sniff("utf-16-le" if head[:2] == b"\xff\xfe" else "utf-16-be", "UTF-16 text")
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
        odd = sample[1::2]
        if (
            len(odd) > 16
            and odd.count(0) > 0.8 * len(odd)
            and sample[0::2].count(0) < 0.1 * len(odd)
        ):
            return Sniff("utf-16-le", "UTF-16 text without BOM")
        if zeros > max(8, len(sample) // 100) and not _nul_separated_text(sample):
            return Sniff("binary", "contains NUL bytes")
    if control_bytes(sample) > len(sample) // 10:
        return Sniff("binary", "mostly control bytes")
    return Sniff("text")


def _looks_utf16(body: bytes, little: bool) -> bool:
    """A BOM alone proves nothing (Latin-1 text may start with 0xFF 0xFE): check the zeros."""
    high = body[1::2] if little else body[0::2]
    return len(high) < 4 or high.count(0) >= 0.5 * len(high)


def _nul_separated_text(sample: bytes) -> bool:
    """``/proc/<pid>/environ`` and ``find -print0``: text records separated by NUL."""
    fields = [f for f in sample.split(b"\0") if f]
    printable = record_text_bytes(sample)
    return bool(fields) and printable > 0.95 * len(sample)


OPAQUE_STREAMS = frozenset({"bzip2 archive", "xz archive", "zstd archive"})
"""Compressed streams nothing here decompresses (gzip is decompressed)."""


def opaque(found: Sniff) -> bool:
    """Whether a scan of the bytes as they are could miss what they hold: an archive
    (a tar excepted: its members are plain bytes) or a compressed stream."""
    return (found.kind == "archive" and found.detail != "tar archive") or (
        found.kind == "gzip" or found.detail in OPAQUE_STREAMS
    )
