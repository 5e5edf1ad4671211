"""A member that compresses too well, written again uncompressed, so every reader opens it.

bundler's readers refuse a member over ``ratio_floor`` (16 MiB) that expands more than
``max_ratio`` (200) times: a zip bomb's shape (:func:`.zipscan.ratio_refused`). A crash
loop's log, one line over and over, has that shape too, and the writer refused it: the
whole bundle was lost (``doctor``), or the whole run (``redact``). Such a member is now
stored (``ZIP_STORED``, still AES-256 AE-2): about 1:1, every byte kept, and the readers'
limit unchanged, since a stored member expands to no more than its bytes on disk.

The ratio is known only when the entry is closed, on every path: the writer's own
deflate, a pool worker's deflate stream, a stream a worker also encrypted
(:mod:`.sealed`), a member joined from segments. So the writer takes the closed entry
back (:func:`take_back`) rather than guessing earlier: one place for every path, paid
only by such members, and the member's plaintext is not asked for twice (doctor's pass
two counts its redactions as it streams; ``redact`` has only ciphertext left). The
entry's data, salt to MAC, is under 1/200 of the member: it is copied aside (ciphertext,
in memory up to :data:`ASIDE_IN_MEMORY`), the file is cut back to the entry's local
header and the entry dropped from pyzipper's directory (``filelist``, ``NameToInfo``,
``start_dir``), as if it had never been written. :func:`pour` then decrypts that copy
(its MAC checked) and inflates it into the writer's new entry, with the post-write
check's own reader; the writer requires the size and sha256 it had, and the post-write
check maps and verifies the result.
"""

from __future__ import annotations

import tempfile
import zlib
from collections.abc import Callable, Sequence
from typing import IO, Any

import pyzipper

from ..errors import EncryptionError
from ._chunks import CHUNK_SIZE
from .integrity import written
from .integrity.written import ContentReader, derive_keys, local_header, mac_matches
from .limits import MiB
from .names import printable_name
from .zipscan import ratio_refused

ASIDE_IN_MEMORY = 8 * MiB
"""A taken-back entry's ciphertext is held in memory up to this, then in a temporary file
(an 8 GiB member, the readers' limit, has at most ~41 MB of it at 200:1)."""
NAMED = 3
"""Members a note names; the rest are counted."""


def compresses_too_well(size: int, compressed_size: int) -> bool:
    """Whether the readers, with their default limits, would refuse this entry's ratio.

    The limits the post-write check applies (``written.READER_LIMITS``, looked up here at
    each call: one definition): ``BUNDLER_MAX_RATIO`` set where a bundle is written says
    nothing about where it is read."""
    return ratio_refused(size, compressed_size, written.READER_LIMITS) is not None


def take_back(zf: Any, info: pyzipper.ZipInfo) -> IO[bytes]:
    """Remove ``info``, the entry just closed, from ``zf``; return its data (salt to MAC).

    Fails closed (:class:`EncryptionError`) unless that entry is the last thing written
    and its data ends where the directory would start, so nothing else is cut."""
    label = printable_name(info.filename)
    fp = zf.fp
    if zf._writing or not zf.filelist or zf.filelist[-1] is not info:
        raise _cannot(label, "it is not the last entry written")
    local_header(fp, info)
    start = fp.tell()
    if start + info.compress_size != zf.start_dir:
        raise _cannot(label, "its data does not end where the directory starts")
    aside: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=ASIDE_IN_MEMORY)  # noqa: SIM115
    try:
        fp.seek(start)
        left = info.compress_size
        while left > 0:
            piece = fp.read(min(left, CHUNK_SIZE))
            if not piece:
                raise _cannot(label, "the file ends inside it")
            aside.write(piece)
            left -= len(piece)
        aside.seek(0)
    except BaseException:
        aside.close()
        raise
    fp.seek(info.header_offset)
    fp.truncate()
    zf.filelist.pop()
    del zf.NameToInfo[info.filename]
    zf.start_dir = info.header_offset
    return aside


def pour(
    data: IO[bytes], info: pyzipper.ZipInfo, password: bytes, sink: Callable[[bytes], object]
) -> ContentReader:
    """Decrypt and inflate ``data`` (:func:`take_back`'s copy of ``info``) into ``sink``.

    The post-write check's own reader does it (:class:`~.integrity.written.ContentReader`),
    hashing as it goes: its ``matches`` then says whether it was the member first written.
    Raises :class:`EncryptionError` if the password does not open it, it does not inflate,
    or its MAC does not match (after the last piece: the caller then discards its work)."""
    label = printable_name(info.filename)
    keys = derive_keys(data, password)
    if keys is None:
        raise _cannot(label, "it does not open with the bundle password")
    reader = ContentReader(keys, info.compress_type, label, sink)
    try:
        intact = mac_matches(data, info, keys, reader)
    except zlib.error as exc:
        raise _cannot(label, "it does not inflate") from exc
    if not intact:
        raise _cannot(label, "its AES authentication failed")
    return reader


def _cannot(label: str, why: str) -> EncryptionError:
    """The one-line error of a member that cannot be stored again (the writer then aborts)."""
    return EncryptionError(f"cannot store {label!r} uncompressed: {why}; nothing was written")


def uncompressed_note(names: Sequence[str]) -> str | None:
    """One line for the person who wrote the bundle: which members are stored uncompressed.

    Only the size of the bundle differs (every byte is kept), but a 20 MB bundle where
    a few hundred KB were expected deserves a reason."""
    if not names:
        return None
    shown = ", ".join(printable_name(name) for name in names[:NAMED])
    if len(names) > NAMED:
        shown += f" and {len(names) - NAMED} more"
    they = "it compresses" if len(names) == 1 else "they compress"
    limits = written.READER_LIMITS
    floor = limits.ratio_floor
    over = f"{floor // MiB} MiB" if floor % MiB == 0 else f"{floor} bytes"
    return (
        f"stored uncompressed, every byte kept: {shown} ({they} past the "
        f"{limits.max_ratio:g}:1 bundler's readers accept for a member over {over})"
    )
