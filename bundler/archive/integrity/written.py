"""Prove a just-written bundle is what we meant to write, before it gets its final name.

The check reads the file back from disk and:

* opens it as every reader does (:mod:`bundler.archive.zipscan`, the readers' default
  :class:`~bundler.archive.limits.ReaderLimits`): a bundle its readers would refuse,
  such as a member just over the 16 MiB ratio floor that compressed past 200:1, is
  not published (one was, once; no reader could then open it; the writer now stores
  such a member uncompressed, :mod:`bundler.archive.uncompressed`, and this is the
  backstop);

and for every entry:

* the central directory lists exactly the members written, in order, with
  their sizes;
* the local header says WinZip AES (method 99), CRC zero, and its AES extra
  field says AE-2 with a 256-bit key: nothing in clear, no plaintext CRC;
* the password verifier matches and the entry's HMAC-SHA1 over its
  ciphertext is valid, so every encrypted byte on disk is the one written.

Small members (the manifest, evidence JSON, the redaction report) are also
decrypted, inflated and hashed. Large members are MAC-checked only by default
(``mode="mac"``): that costs ~1 % of the write instead of ~25 %, and a full
re-read is what ``bundler verify`` does; ``mode="full"`` re-reads everything.

Each entry is read once: the MAC is computed over the ciphertext while it is
decrypted (AES-CTR, WinZip's little-endian counter), inflated and hashed, from
the key material derived once. The entries are checked on a few threads, each
with its own file handle and nothing else shared (pyzipper's reader is not safe
to share between threads: its reads came back damaged): decryption, inflation,
hashing and the MAC all run in C without the GIL, and the check is the last
serial step between the workers' output and the published file (~1 s of an 8 s
``bundler redact`` of 171 MB, one core, before).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import struct
import threading
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO, Literal, NoReturn

import pyzipper

from schemas import MANIFEST_MEMBER

from ...errors import BundleError, EncryptionError
from .. import aeskeys
from ..limits import ReaderLimits
from ..names import printable_name
from ..secret import Secret
from ..zipscan import check_manifest_size, open_zip, scan_entries

LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
LOCAL_SIGNATURE = 0x04034B50
AES_METHOD = 99
AES_EXTRA_ID = 0x9901
AES_256 = 3
AE_2 = 2
SALT_LEN, VERIFIER_LEN, MAC_LEN = 16, 2, 10
STORED, DEFLATED = 0, 8
READ_SIZE = 128 << 10
"""Ciphertext read at a time, and the most plaintext inflated from it at a time: a
thread's buffers stay this small however well the entry compressed (doctor seals
1,000 hosts' members with its peak memory near)."""
FULL_CHECK_MAX = 4 << 20
"""Members up to this size are always fully decrypted and hashed after writing."""
CHECK_THREADS_MAX = 4
READER_LIMITS = ReaderLimits()
"""The readers' defaults (:mod:`bundler.archive.limits`), the one definition, applied to
every bundle before it is published."""


@dataclass(frozen=True, slots=True)
class WrittenMember:
    name: str
    sha256: str
    size: int
    compressed_size: int
    uncompressed: bool = False
    """Stored, not deflated: it compressed past the readers' ratio limit (:mod:`..uncompressed`)."""


def verify_written(
    path: Path,
    password: Secret,
    expected: dict[str, WrittenMember],
    *,
    mode: Literal["mac", "full"] = "mac",
    limits: ReaderLimits | None = None,
) -> None:
    """Raise :class:`EncryptionError` unless ``path`` holds exactly ``expected``, AES-256 AE-2.

    Of several bad entries, the first in the file is the one reported. ``limits``: the
    readers' defaults (None: :data:`READER_LIMITS`), or what the builder's room held the
    bundle to (tests make it small).
    """
    try:
        infos = _as_readers_open_it(path, READER_LIMITS if limits is None else limits)
        names = [info.filename for info in infos]
        if names != list(expected):
            _fail("its entries differ from the members written")
        for info in infos:
            if info.file_size != expected[info.filename].size:
                _fail(f"{printable_name(info.filename)!r} has the wrong size")
        with _EntryChecker(path, password.reveal(), expected, mode) as checker:
            threads = min(_usable_cores(), CHECK_THREADS_MAX, len(infos))
            if threads <= 1:
                for info in infos:
                    checker.check(info)
            else:
                with ThreadPoolExecutor(threads, thread_name_prefix="verify") as pool:
                    for _ in pool.map(checker.check, infos):  # in order: the first bad
                        pass  # entry's error is the one raised
    except EncryptionError:
        raise
    except Exception as exc:
        _fail(f"it cannot be read back ({type(exc).__name__})", exc)


def _as_readers_open_it(path: Path, limits: ReaderLimits) -> list[pyzipper.ZipInfo]:
    """The entries, after every check a reader makes before reading (:mod:`..zipscan`),
    with the readers' default limits: a bundle ``inspect``, ``verify``, ``analyze`` or
    ``serve`` would refuse (a member past the compression-ratio limit, too many members,
    a manifest too large) is never published. Defaults, not ``BUNDLER_MAX_*``: what this
    machine's environment allows, the recipient's reader may not. Doctor's collection
    stays within them (:mod:`..room`): this is the backstop."""
    try:
        handle, zf, _ = open_zip(path, limits)
        with handle, zf:
            entries = scan_entries(zf, limits)
            if (manifest := entries.get(MANIFEST_MEMBER)) is not None:
                check_manifest_size(manifest, limits)
            return zf.infolist()
    except BundleError as exc:
        _fail(f"bundler's readers would refuse it: {exc.message}", exc)


class _EntryChecker:
    """One entry's whole check, from any thread, on that thread's own file handle."""

    def __init__(
        self,
        path: Path,
        password: bytes,
        expected: dict[str, WrittenMember],
        mode: Literal["mac", "full"],
    ) -> None:
        self.path, self.password, self.expected, self.mode = path, password, expected, mode
        self._local = threading.local()
        self._opened = ExitStack()
        self._lock = threading.Lock()

    def __enter__(self) -> _EntryChecker:
        return self

    def __exit__(self, *_: object) -> None:
        self._opened.close()

    def check(self, info: pyzipper.ZipInfo) -> None:
        want = self.expected[info.filename]
        content = self.mode == "full" or want.size <= FULL_CHECK_MAX
        check_entry_encryption(self._raw(), info, self.password, content=want if content else None)

    def _raw(self) -> BinaryIO:
        raw: BinaryIO | None = getattr(self._local, "raw", None)
        if raw is None:
            with self._lock:
                raw = self._local.raw = self._opened.enter_context(self.path.open("rb"))
        return raw


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def check_entry_encryption(
    raw: BinaryIO,
    info: pyzipper.ZipInfo,
    password: bytes,
    *,
    content: WrittenMember | None = None,
) -> None:
    """Check one entry's local header, AES parameters, password verifier and MAC.

    With ``content``, the same read also decrypts, inflates and hashes the entry
    and compares it with what was written.
    """
    label = printable_name(info.filename)
    flags, method, crc, extra = local_header(raw, info)
    if not flags & 0x1 or method != AES_METHOD:
        _fail(f"{label!r} is not WinZip-AES encrypted")
    if crc != 0 or info.CRC != 0:
        _fail(f"{label!r} carries a plaintext CRC (AE-1)")
    version, strength, actual_method = aes_fields(extra)
    if version != AE_2 or strength != AES_256 or info.wz_aes_version != AE_2:
        _fail(f"{label!r} is not AES-256 AE-2")
    keys = derive_keys(raw, password)
    if keys is None:
        _fail(f"{label!r} does not open with the bundle password")
    reader = None if content is None else ContentReader(keys, actual_method, label)
    if not mac_matches(raw, info, keys, reader):
        _fail(f"{label!r}: AES authentication failed")
    if reader is not None and content is not None and not reader.matches(content):
        _fail(f"{label!r} reads back different content")


class ContentReader:
    """Decrypt (AES-256-CTR, little-endian counter from 1), inflate and hash as it is fed.

    ``sink``, if given, is handed the plaintext too, a bounded piece at a time: the
    writer stores an entry again uncompressed from it (:mod:`..uncompressed`)."""

    def __init__(
        self, keys: bytes, method: int, label: str, sink: Callable[[bytes], object] | None = None
    ) -> None:
        if method not in (STORED, DEFLATED):
            _fail(f"{label!r} uses compression method {method}")
        self._cipher = aeskeys.ctr_cipher(keys[:32])
        self._inflater = zlib.decompressobj(-15) if method == DEFLATED else None
        self._digest = hashlib.sha256()
        self._size = 0
        self._sink = sink

    def feed(self, ciphertext: bytes) -> None:
        data = self._cipher.decrypt(ciphertext)
        if self._inflater is None:
            self._hash(data)
            return
        while data:
            self._hash(self._inflater.decompress(data, READ_SIZE))
            data = self._inflater.unconsumed_tail

    def _hash(self, data: bytes) -> None:
        self._digest.update(data)
        self._size += len(data)
        if self._sink is not None and data:
            self._sink(data)

    def matches(self, want: WrittenMember) -> bool:
        if self._inflater is not None:
            self._hash(self._inflater.flush())
            if not self._inflater.eof or self._inflater.unused_data:
                return False
        return self._size == want.size and self._digest.hexdigest() == want.sha256


def mac_intact(path: Path, info: pyzipper.ZipInfo, password: bytes) -> bool:
    """Whether an AES entry's ciphertext still matches its MAC (tampering vs. other damage).

    Opens its own handle: the reader's handle is shared with pyzipper.
    """
    try:
        with path.open("rb") as raw:
            local_header(raw, info)
            keys = derive_keys(raw, password)
            return keys is not None and mac_matches(raw, info, keys)
    except (OSError, EncryptionError):
        return False


def mac_matches(
    raw: IO[bytes], info: pyzipper.ZipInfo, keys: bytes, reader: ContentReader | None = None
) -> bool:
    """HMAC-SHA1 over the ciphertext that follows (``raw`` is just past salt and verifier).

    ``reader``, if given, is fed the same ciphertext as it is read.
    """
    mac = hmac.new(keys[32:64], digestmod="sha1")
    left = info.compress_size - SALT_LEN - VERIFIER_LEN - MAC_LEN
    if left < 0:
        return False
    while left > 0:
        piece = raw.read(min(left, READ_SIZE))
        if not piece:
            return False
        mac.update(piece)
        if reader is not None:
            reader.feed(piece)
        left -= len(piece)
    return hmac.compare_digest(mac.digest()[:MAC_LEN], raw.read(MAC_LEN))


PasswordFit = Literal["wrong", "verifier", "authentic"]


def password_fit(
    raw: BinaryIO, info: pyzipper.ZipInfo, password: bytes, *, mac: bool
) -> PasswordFit:
    """How well ``password`` fits an AES entry: fails its verifier, passes it, or its MAC too.

    The 2-byte verifier alone lets a wrong password through once in 65,536
    tries; the MAC over the ciphertext (``mac=True``, a read of the entry's
    compressed bytes) tells a lucky wrong password from the right one.
    """
    try:
        local_header(raw, info)
        keys = derive_keys(raw, password)
        if keys is None:
            return "wrong"
        return "authentic" if mac and mac_matches(raw, info, keys) else "verifier"
    except (EncryptionError, OSError, ValueError):
        return "wrong"


def local_header(raw: BinaryIO, info: pyzipper.ZipInfo) -> tuple[int, int, int, bytes]:
    """``(flags, method, crc, extra)``; leaves ``raw`` at the entry's data."""
    raw.seek(info.header_offset)
    fixed = raw.read(LOCAL_HEADER.size)
    if len(fixed) != LOCAL_HEADER.size:
        _fail(f"{printable_name(info.filename)!r}: truncated local header")
    sig, _, flags, method, _, _, crc, _, _, name_len, extra_len = LOCAL_HEADER.unpack(fixed)
    if sig != LOCAL_SIGNATURE:
        _fail(f"{printable_name(info.filename)!r}: bad local header")
    raw.read(name_len)
    return flags, method, crc, raw.read(extra_len)


def derive_keys(raw: IO[bytes], password: bytes) -> bytes | None:
    """Read salt and verifier at the current position; the 66 key bytes, or None if wrong."""
    header = raw.read(SALT_LEN + VERIFIER_LEN)
    if len(header) != SALT_LEN + VERIFIER_LEN:
        return None
    keys = aeskeys.derive(password, header, AES_256)
    return keys if hmac.compare_digest(keys[64:66], header[SALT_LEN:]) else None


def aes_extra(extra: bytes) -> tuple[int, int]:
    """``(AE version, key strength)`` from a local header's extra fields, or ``(0, 0)``."""
    version, strength, _ = aes_fields(extra)
    return version, strength


def aes_fields(extra: bytes) -> tuple[int, int, int]:
    """``(AE version, key strength, actual compression method)``, or ``(0, 0, 0)``."""
    pos = 0
    while pos + 4 <= len(extra):
        field_id, size = struct.unpack_from("<HH", extra, pos)
        body = extra[pos + 4 : pos + 4 + size]
        if field_id == AES_EXTRA_ID and len(body) == 7:
            version, vendor, strength, method = struct.unpack("<H2sBH", body)
            if vendor == b"AE":
                return version, strength, method
        pos += 4 + size
    return 0, 0, 0


def _fail(reason: str, cause: BaseException | None = None) -> NoReturn:
    raise EncryptionError(
        f"the bundle failed verification after writing: {reason}; nothing was published"
    ) from cause
