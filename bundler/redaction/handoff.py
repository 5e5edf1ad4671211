"""Encrypted hand-off files between the two redaction passes (and between processes).

Pass one (rules) and pass two (literal propagation) run at different times,
and with several files in different processes, so pass one's output has to
wait on disk. It never waits readable: every record is AES-256-GCM under a key
the coordinating process generated and keeps in memory (the pool's workers
get it through their start-up arguments, never through a file). Records are
``[u32 length][nonce 12][ciphertext+tag]``; the associated data binds the
record index and marks the last one, so truncation or reordering fails loudly.
"""

from __future__ import annotations

import os
import secrets
import struct
from collections.abc import Iterable, Iterator
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

_LENGTH = struct.Struct(">I")
RECORD = 1 << 20


class HandoffError(Exception):
    """A hand-off file is damaged (truncated, reordered, or written with another key)."""


def new_key() -> bytes:
    return AESGCM.generate_key(bit_length=256)


def write(path: Path, key: bytes, chunks: Iterable[bytes]) -> int:
    """Encrypt ``chunks`` into ``path`` (created 0600); returns the plaintext size."""
    aead = AESGCM(key)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    size = 0
    index = 0
    pending = b""
    with os.fdopen(fd, "wb") as out:

        def emit(data: bytes, last: bool) -> None:
            nonlocal index
            nonce = secrets.token_bytes(12)
            sealed = aead.encrypt(nonce, data, _aad(index, last))
            out.write(_LENGTH.pack(len(sealed) + 12) + nonce + sealed)
            index += 1

        for chunk in chunks:
            size += len(chunk)
            pending += chunk
            while len(pending) > RECORD:
                emit(pending[:RECORD], False)
                pending = pending[RECORD:]
        emit(pending, True)
    return size


def read(path: Path, key: bytes) -> Iterator[bytes]:
    aead = AESGCM(key)
    with path.open("rb") as handle:
        index = 0
        while True:
            head = handle.read(4)
            if len(head) != 4:
                raise HandoffError("hand-off file truncated")
            (length,) = _LENGTH.unpack(head)
            body = handle.read(length)
            if len(body) != length:
                raise HandoffError("hand-off file truncated")
            last = handle.peek(1)[:1] == b"" if hasattr(handle, "peek") else False
            try:
                data = aead.decrypt(body[:12], body[12:], _aad(index, last))
            except InvalidTag as exc:
                raise HandoffError("hand-off file damaged") from exc
            if data:
                yield data
            if last:
                return
            index += 1


def _aad(index: int, last: bool) -> bytes:
    return b"bundler-redact-handoff/1|%d|%d" % (index, int(last))
