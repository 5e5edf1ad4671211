"""Is this file a zip? Decided by its end record, the way 7-Zip and ``unzip`` decide.

The first bytes prove nothing: a zip may carry a self-extractor stub, padding
or a single stray byte in front and every zip tool still opens it. What makes
a file a zip is an end-of-central-directory record in its last 64 KiB + 22
bytes (the record plus the longest comment). A file without one that still
holds zip record signatures is a damaged or padded zip: a reader that must
account for every byte refuses it instead of treating it as opaque data.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, Literal

END_SIG = b"PK\x05\x06"
END_SIZE = 22
MAX_COMMENT = 0xFFFF
ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x01\x02", END_SIG, b"PK\x06\x06", b"PK\x06\x07")
SCAN_CHUNK = 1 << 20

ZipKind = Literal["zip", "damaged-zip", "plain", "empty"]


def zip_kind(path: Path) -> ZipKind:
    """``zip`` (an end record is found), ``damaged-zip``, ``plain`` or ``empty``.

    Raises :class:`OSError` when the file cannot be read.
    """
    with path.open("rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        if size == 0:
            return "empty"
        tail_start = max(0, size - END_SIZE - MAX_COMMENT)
        handle.seek(tail_start)
        tail = handle.read()
        if _has_end_record(tail):
            return "zip"
        handle.seek(0)
        return "damaged-zip" if _has_zip_signature(handle) else "plain"


def has_end_record(path: Path) -> bool:
    """Whether an end record can be found in the file's last 64 KiB + 22 bytes (cheap)."""
    with path.open("rb") as handle:
        handle.seek(0, 2)
        handle.seek(max(0, handle.tell() - END_SIZE - MAX_COMMENT))
        return _has_end_record(handle.read())


def _has_end_record(tail: bytes) -> bool:
    """An end record whose fixed part fits in the file (what zip readers search for)."""
    return tail.rfind(END_SIG, 0, max(0, len(tail) - END_SIZE + len(END_SIG))) >= 0


def _has_zip_signature(handle: BinaryIO) -> bool:
    """Any zip record signature anywhere in the file (read in bounded chunks)."""
    overlap = b""
    while chunk := handle.read(SCAN_CHUNK):
        window = overlap + chunk
        if any(sig in window for sig in ZIP_SIGNATURES):
            return True
        overlap = window[-3:]
    return False
