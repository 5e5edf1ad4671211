"""The encrypted spool: where a run's members wait, unreadable, until the zip is written.

Collection takes minutes and the final zip can only be written once every
member is known (literal propagation needs them all), so members must wait on
disk. Every byte that waits is encrypted with AES-256-GCM under a key that
exists only in this process's memory: a crash, a ``kill -9`` or a curious
user with access to the temp folder finds ciphertext whose key is gone.

Each member is one file of records ``[u32 length][ciphertext+tag]``, 1 MiB of
plaintext per record. The nonce is ``file id || record index`` (never reused
under one key); the associated data also marks the last record, so a
truncated, reordered or swapped file fails to decrypt instead of reading
short. One file per member lets collectors write concurrently without a
global lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import struct
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ..errors import OutputError
from ._chunks import CHUNK_SIZE, rechunk

_LENGTH = struct.Struct(">I")
_AAD_PREFIX = b"bundler-spool/1"
SPOOL_SUFFIX = ".spool.tmp-bundler"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SpoolFile:
    """One spooled stream: where it is and what it held (plaintext size and sha256).

    Slotted, its path made when asked for: a bundle holds one per member until it
    is sealed (10,600 at 1,000 hosts), and a ``Path`` and a ``__dict__`` each were
    ~3 MB of a fleet's doctor run."""

    file_id: int
    folder: Path
    size: int
    sha256: str

    @property
    def path(self) -> Path:
        return self.folder / _file_name(self.file_id)


class EncryptedSpool:
    """Encrypted temporary storage for byte streams; :meth:`wipe` forgets everything."""

    def __init__(self, folder: Path | None = None, *, prefix: str = ".bundler.") -> None:
        self._aead = AESGCM(AESGCM.generate_key(bit_length=256))
        try:
            self.folder = Path(tempfile.mkdtemp(prefix=prefix, suffix=SPOOL_SUFFIX, dir=folder))
        except OSError as exc:
            where = folder or tempfile.gettempdir()
            raise OutputError(f"cannot create a spool folder in {where}: {exc.strerror}") from exc
        self._lock = threading.Lock()
        self._next_id = 0
        self._wiped = False

    def write(self, chunks: Iterable[bytes]) -> SpoolFile:
        """Encrypt a stream into a new spool file. On any error the file is removed."""
        with self._lock:
            if self._wiped:
                raise RuntimeError("the spool was wiped")
            file_id = self._next_id
            self._next_id += 1
        path = self.folder / _file_name(file_id)
        digest = hashlib.sha256()
        size = 0
        out = self._guard(lambda: _create_private(path))
        try:
            index = 0
            held: bytes | None = None
            for piece in rechunk(chunks, CHUNK_SIZE):  # the caller's errors pass unchanged
                digest.update(piece)
                size += len(piece)
                if held is not None:
                    self._write_record(out, self._seal(file_id, index, held, final=False))
                    index += 1
                held = piece
            self._write_record(out, self._seal(file_id, index, held or b"", final=True))
            self._guard(out.close)
        except BaseException:
            with contextlib.suppress(OSError):
                out.close()
            _remove(path)
            raise
        return SpoolFile(file_id, self.folder, size, digest.hexdigest())

    def _write_record(self, out: IO[bytes], record: bytes) -> None:
        self._guard(lambda: out.write(record))

    def _guard(self, action: Callable[[], T]) -> T:
        """Our own file operations: an OS error becomes a one-line OutputError."""
        try:
            return action()
        except OSError as exc:
            raise OutputError(f"cannot write the spool in {self.folder}: {exc.strerror}") from exc

    def read(self, spooled: SpoolFile) -> Iterator[bytes]:
        """Decrypt a spool file record by record (1 MiB pieces)."""
        index = 0
        try:
            with spooled.path.open("rb") as handle:
                while True:
                    head = handle.read(_LENGTH.size)
                    if len(head) != _LENGTH.size:
                        raise _damaged()
                    (length,) = _LENGTH.unpack(head)
                    if length > CHUNK_SIZE + 16:
                        raise _damaged()
                    record = handle.read(length)
                    plain, final = self._open(spooled.file_id, index, record)
                    if plain:
                        yield plain
                    if final:
                        if handle.read(1):
                            raise _damaged()
                        return
                    index += 1
        except FileNotFoundError as exc:
            raise OutputError("a spooled member disappeared from the spool folder") from exc

    def delete(self, spooled: SpoolFile) -> None:
        _remove(spooled.path)

    def wipe(self) -> None:
        """Remove every spool file and the folder; the key goes with this object."""
        with self._lock:
            self._wiped = True
        shutil.rmtree(self.folder, ignore_errors=True)

    def _seal(self, file_id: int, index: int, plain: bytes, *, final: bool) -> bytes:
        nonce = struct.pack(">IQ", file_id, index)
        sealed = self._aead.encrypt(nonce, plain, _aad(file_id, index, final))
        return _LENGTH.pack(len(sealed)) + sealed

    def _open(self, file_id: int, index: int, record: bytes) -> tuple[bytes, bool]:
        nonce = struct.pack(">IQ", file_id, index)
        for final in (False, True):
            with contextlib.suppress(InvalidTag):
                return self._aead.decrypt(nonce, record, _aad(file_id, index, final)), final
        raise _damaged()


def _file_name(file_id: int) -> str:
    return f"{file_id:08d}.bin"


def _aad(file_id: int, index: int, final: bool) -> bytes:
    return _AAD_PREFIX + struct.pack(">IQ?", file_id, index, final)


def _damaged() -> OutputError:
    return OutputError("the encrypted spool was damaged on disk; the bundle cannot be finished")


def _create_private(path: Path) -> IO[bytes]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(path, flags, 0o600), "wb", buffering=CHUNK_SIZE)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
