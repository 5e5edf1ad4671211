"""The streaming WinZip AES-256 (AE-2) writer.

Members are streamed through pyzipper's ``open(ZipInfo, 'w')`` in 1 MiB
writes, deflated and encrypted incrementally, with their sha256 computed on
the way, so memory stays bounded whatever the member sizes. Encryption is
explicit (``nbits=256``, ``force_wz_aes_version=2``): AE-2 stores no CRC of
the plaintext, which would otherwise leak information about small members.

The writer fails closed. Without a password nothing is created; if pyzipper
does not set up AES-256/AE-2 for an entry, the write stops before any content
byte; after closing, :mod:`bundler.archive.integrity.written` re-reads the file and
proves every entry is AES-256 AE-2 with a valid MAC before the file is
published under its final name (:mod:`bundler.archive.atomic`). Any error or
Ctrl-C removes the temporary file.

A member its readers would refuse for its compression ratio (over 16 MiB, past
200:1: one log line repeated) is not refused here, which lost the whole bundle: as
it is closed, it is taken back and stored uncompressed, still AES-256 AE-2
(:mod:`bundler.archive.uncompressed`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import stat
import zlib
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import pyzipper
from pyzipper.zipfile_aes import AESZipEncrypter, AESZipInfo

from ..errors import EncryptionError, OutputError
from ._chunks import rechunk
from .atomic import AtomicOutput
from .integrity.written import WrittenMember, verify_written
from .limits import ReaderLimits
from .names import member_name_problem, printable_name
from .sealed import AES_KWARGS, PreSealed, SealedParts
from .secret import Secret
from .uncompressed import compresses_too_well, pour, take_back

DEFAULT_COMPRESSLEVEL = 6
MEMBER_MODE = stat.S_IFREG | 0o600

VerifyMode = Literal["mac", "full"]


def dos_date_time(moment: datetime) -> tuple[int, int, int, int, int, int]:
    """UTC wall-clock fields for a zip entry (DOS time: 1980..2107, 2-second steps)."""
    utc = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    if utc.year < 1980:
        return (1980, 1, 1, 0, 0, 0)
    if utc.year > 2107:
        return (2107, 12, 31, 23, 59, 58)
    return (utc.year, utc.month, utc.day, utc.hour, utc.minute, utc.second)


class EncryptedZipWriter:
    """Write an encrypted zip member by member; publish it atomically on :meth:`commit`.

    Usage::

        with EncryptedZipWriter(path, password=secret, created_at=now) as zw:
            zw.write_member("logs/1.log", chunks)
            zw.commit()          # close, verify, rename; without it, nothing is left

    A failure inside :meth:`write_member` aborts the whole writer: a zip with
    a half-written member is never published.
    """

    def __init__(
        self,
        path: Path,
        *,
        password: Secret,
        created_at: datetime,
        compresslevel: int = DEFAULT_COMPRESSLEVEL,
        overwrite: bool = False,
        comment: bytes = b"",
        verify: VerifyMode = "mac",
        limits: ReaderLimits | None = None,
    ) -> None:
        if not isinstance(password, Secret) or not password.reveal():
            raise EncryptionError("no password: refusing to write an unencrypted bundle")
        if not 0 <= compresslevel <= 9:
            raise ValueError("compresslevel must be 0..9")
        self.path = Path(path)
        self._password = password
        self._date_time = dos_date_time(created_at)
        self._compresslevel = compresslevel
        self._verify: VerifyMode = verify
        self._limits = limits
        """What the post-write check holds the bundle to: a builder's room's limits (small
        in tests), or None: the readers' defaults."""
        self._members: dict[str, WrittenMember] = {}
        self._handle: io.BufferedIOBase | None = None
        self._output = AtomicOutput(self.path, overwrite=overwrite)
        self._open = True
        try:
            self._zip = pyzipper.AESZipFile(
                self._output.file,
                "w",
                compression=pyzipper.ZIP_DEFLATED,
                compresslevel=compresslevel,
                encryption=pyzipper.WZ_AES,
                encryption_kwargs=dict(AES_KWARGS),
            )
            self._zip.setpassword(password.reveal())
            self._zip.comment = comment
        except Exception as exc:
            self._output.discard()
            self._open = False
            raise EncryptionError(f"cannot set up AES encryption ({type(exc).__name__})") from exc

    @property
    def members(self) -> dict[str, WrittenMember]:
        """What was written so far, in order."""
        return dict(self._members)

    def write_member(self, name: str, chunks: Iterable[bytes]) -> WrittenMember:
        """Stream one member; returns its sha256, size and compressed size."""
        self._require_open()
        problem = member_name_problem(name)
        if problem:
            self.abort()
            raise ValueError(f"invalid member name {printable_name(name)!r}: {problem}")
        if name in self._members:
            self.abort()
            raise ValueError(f"member {printable_name(name)!r} written twice")
        try:
            return self._write(name, chunks)
        except BaseException:
            self.abort()
            raise

    def write_precompressed(
        self, name: str, deflated: Iterable[bytes], *, size: int, sha256: str
    ) -> WrittenMember:
        """Store one member whose raw deflate stream was made elsewhere; only encrypt it here.

        ``deflated`` is a raw deflate stream (``wbits=-15``, as
        :mod:`bundler.archive.deflate` makes it) of ``size`` plaintext bytes
        whose sha256 is ``sha256``; the caller vouches for both (``bundler
        redact`` re-inflates and re-hashes every stream before it gets here).
        AE-2 stores no CRC, so nothing else about the plaintext is needed; the
        sizes go in the local header's zip64 field and the central directory,
        as for any member. Members up to 4 MiB are still inflated and hashed by
        the post-write check.
        """
        return self._store(name, size, lambda: self._write_deflated(name, deflated, size, sha256))

    def write_preencrypted(
        self, name: str, sealed: Iterable[bytes], *, size: int, sha256: str
    ) -> WrittenMember:
        """Store one member deflated and encrypted elsewhere (:func:`.sealed.seal`); only copy it.

        ``sealed`` is the member's AE-2 stream under this bundle's password:
        encryption header, ciphertext of a raw deflate stream of ``size``
        plaintext bytes hashing to ``sha256``, authentication code. Nothing is
        decrypted here; :meth:`commit`'s post-write check verifies every
        entry's code with the password (and inflates and hashes members up to
        4 MiB), so a stream sealed under another password, or damaged, fails
        the bundle there.
        """
        return self._store(name, size, lambda: self._write_sealed(name, sealed, size, sha256))

    def _store(self, name: str, size: int, write: Callable[[], WrittenMember]) -> WrittenMember:
        """Check a member prepared elsewhere, then write it; any failure aborts the zip."""
        self._require_open()
        problem = member_name_problem(name)
        if problem or name in self._members or size < 0:
            self.abort()
            raise ValueError(
                f"invalid member {printable_name(name)!r}: {problem or 'written twice or bad size'}"
            )
        try:
            return write()
        except BaseException:
            self.abort()
            raise

    def _write_sealed(
        self, name: str, sealed: Iterable[bytes], size: int, sha256: str
    ) -> WrittenMember:
        try:
            parts = SealedParts(sealed)
        except ValueError as exc:
            raise EncryptionError(
                f"the sealed stream of {printable_name(name)!r} is truncated"
            ) from exc
        encrypter = PreSealed(parts.header)
        handle = self._open_entry(name, encrypter=encrypter)
        handle._compressor = None  # deflated and encrypted already: copied as it comes
        for piece in parts.body():
            with _translated(self.path, name):
                handle.write(piece)
        encrypter.mac = parts.mac
        return self._close_raw(handle, name, size, sha256)

    def _write_deflated(
        self, name: str, deflated: Iterable[bytes], size: int, sha256: str
    ) -> WrittenMember:
        handle = self._open_entry(name)
        handle._compressor = None  # the stream is deflate already: encrypt it as it comes
        for piece in deflated:
            with _translated(self.path, name):
                handle.write(piece)
        return self._close_raw(handle, name, size, sha256)

    def _close_raw(self, handle: Any, name: str, size: int, sha256: str) -> WrittenMember:
        """Close an entry written as deflate (or sealed) bytes: sizes of the plaintext, no CRC."""
        # pyzipper counted the compressed bytes as the file size; the entry records the
        # plaintext's (the CRC is not stored with AE-2: finalize_zipinfo zeroes it).
        handle._file_size = size
        handle._crc = 0
        with _translated(self.path, name):
            handle.close()
        self._handle = None
        return self._settle(
            handle._zinfo, WrittenMember(name, sha256, size, handle._zinfo.compress_size)
        )

    def _settle(self, info: Any, written: WrittenMember) -> WrittenMember:
        """Record a closed entry; one its readers would refuse for its ratio is stored instead."""
        if compresses_too_well(written.size, written.compressed_size):
            written = self._store_uncompressed(info, written)
        self._members[written.name] = written
        return written

    def _store_uncompressed(self, info: Any, first: WrittenMember) -> WrittenMember:
        """Take the entry back and write it again stored, from its own ciphertext
        (:mod:`.uncompressed`): the same bytes, proven by their size and sha256."""
        name = first.name
        with _translated(self.path, name):
            aside = take_back(self._zip, info)
        with aside:
            handle = self._open_entry(name, pyzipper.ZIP_STORED)

            def write(piece: bytes) -> None:
                with _translated(self.path, name):
                    handle.write(piece)

            reader = pour(aside, info, self._password.reveal(), write)
            if not reader.matches(first):
                raise EncryptionError(
                    f"cannot store {printable_name(name)!r} uncompressed: it does not read "
                    "back as written (size or sha256); nothing was written"
                )
            with _translated(self.path, name):
                handle.close()
        self._handle = None
        return WrittenMember(
            name, first.sha256, first.size, handle._zinfo.compress_size, uncompressed=True
        )

    def _open_entry(
        self, name: str, method: int = pyzipper.ZIP_DEFLATED, encrypter: PreSealed | None = None
    ) -> Any:
        info = AESZipInfo(name, date_time=self._date_time)
        info.compress_type = method
        info._compresslevel = self._compresslevel
        info.external_attr = MEMBER_MODE << 16
        if encrypter is not None:  # this entry only: pyzipper asks the zip for its encrypter
            self._zip.get_encrypter = lambda: encrypter
        try:
            with _translated(self.path, name):
                handle = self._handle = self._zip.open(info, "w", force_zip64=True)
        finally:
            self._zip.__dict__.pop("get_encrypter", None)
        _require_aes(handle)
        return handle

    def _write(self, name: str, chunks: Iterable[bytes]) -> WrittenMember:
        handle = self._open_entry(name)
        info = handle._zinfo
        digest = hashlib.sha256()
        size = 0
        for piece in rechunk(chunks):  # errors raised by the caller's chunks pass unchanged
            digest.update(piece)
            size += len(piece)
            with _translated(self.path, name):
                handle.write(piece)
        with _translated(self.path, name):
            handle.close()
        self._handle = None
        return self._settle(info, WrittenMember(name, digest.hexdigest(), size, info.compress_size))

    def commit(self) -> Path:
        """Close the zip, re-verify it from disk, and publish it under its final name."""
        self._require_open()
        try:
            with _translated(self.path, "central directory"):
                self._zip.close()
            self._output.sync()
            verify_written(
                self._output.temp,
                self._password,
                self._members,
                mode=self._verify,
                limits=self._limits,
            )
            final = self._output.publish()
        except BaseException:
            self.abort()
            raise
        self._open = False
        return final

    def abort(self) -> None:
        """Drop everything written; the final path is untouched. Idempotent."""
        if not self._open:
            return
        self._open = False
        if self._handle is not None:
            # Mark the entry closed without pyzipper's close(), which would write more.
            io.BufferedIOBase.close(self._handle)
            self._handle = None
        zf: Any = getattr(self, "_zip", None)
        if zf is not None:
            # Release pyzipper's state without writing: the file is deleted next.
            zf._writing = False
            with contextlib.suppress(Exception):
                zf.fp = None
        self._output.discard()

    def _require_open(self) -> None:
        if not self._open:
            raise RuntimeError("this bundle writer is closed (committed or aborted)")

    def __enter__(self) -> EncryptedZipWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.abort()  # a no-op after commit()


def _require_aes(handle: Any) -> None:
    """Fail closed unless pyzipper set up AES-256 AE-2 for this entry (before any content)."""
    encrypter = getattr(handle, "_encrypter", None)
    if (
        not isinstance(encrypter, AESZipEncrypter)
        or encrypter.aes_strength != 3
        or encrypter.force_wz_aes_version != 2
    ):
        raise EncryptionError("pyzipper did not set up AES-256 (AE-2) encryption; nothing written")


@contextlib.contextmanager
def _translated(path: Path, member: str) -> Any:
    """pyzipper and OS errors → one-line bundler errors (never the password, never content)."""
    try:
        yield
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    except (RuntimeError, ValueError, zlib.error, pyzipper.BadZipFile) as exc:
        raise EncryptionError(
            f"encryption failed while writing {printable_name(member)!r} ({type(exc).__name__})"
        ) from exc
