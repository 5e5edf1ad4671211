"""A member's WinZip AES keys derived once for as long as its bundle is open.

Opening an AES member costs a PBKDF2-HMAC-SHA1 of 1,000 rounds (1-2 ms on this
machine): for the small members of a fleet bundle, more than reading them. An
analysis reads some members twice (each worker log: once to normalize, once
for the timeline), and a 1,000-worker bundle holds ~4,000 members, so the
second derivation of every log was over a second. The zip file the reader
opens keeps each member's key material, keyed by the password and the
member's random salt and verifier, in memory only, for as long as that zip
file object lives (one reader).

Decryption, the password verifier and the HMAC check stay pyzipper's own: only
where the key material comes from differs.

Deriving ahead (:func:`derive_ahead`): every member has its own salt, and a
command that reads every member (``analyze``'s integrity pass, ``verify``)
pays one derivation each, ~4,000 at 1,000 workers, a third of the CPU of such
an analysis. ``hashlib.pbkdf2_hmac`` runs in OpenSSL with the GIL released, so
a background thread derives the keys of every member from its local header
(salt and verifier, read with ``os.pread``: the reader's file position is not
touched) while the main thread parses: on two cores that third of the work
leaves the critical path. A member opened before its turn is derived inline
and skipped by the thread: never waited on. Only the key material is computed
off-thread; nothing else reads the zip there. The keys stay in memory only.
"""

from __future__ import annotations

import hashlib
import os
import struct
import threading
from typing import IO, Any, ClassVar

import pyzipper
from Cryptodome.Cipher import AES
from Cryptodome.Hash import HMAC, SHA1
from Cryptodome.Util import Counter
from pyzipper.zipfile_aes import (
    WZ_KEY_LENGTHS,
    WZ_SALT_LENGTHS,
    AESZipDecrypter,
    AESZipExtFile,
)

from .readahead import switching

ROUNDS = 1000
"""WinZip AES: PBKDF2-HMAC-SHA1 with 1,000 iterations."""
VERIFIER = 2

_LOCAL_HEADER = struct.Struct("<4s22xHH")
"""A zip local file header: signature, then (at 26) the name and extra field lengths."""

KeyCache = dict[tuple[bytes, bytes], bytes]


def derive(pwd: bytes, header: bytes, strength: int) -> bytes:
    """AES key, HMAC key and verifier from the password and a member's salt (+ verifier).

    The one WinZip AES derivation: the reader's cache and the writer's post-write
    check (:mod:`.integrity.written`) both come here.
    """
    salt = header[: WZ_SALT_LENGTHS[strength]]
    length = 2 * WZ_KEY_LENGTHS[strength] + VERIFIER
    return hashlib.pbkdf2_hmac("sha1", pwd, salt, ROUNDS, length)


def ctr_cipher(aes_key: bytes) -> Any:
    """WinZip AES's cipher for one member: AES-CTR, a little-endian counter starting at 1.

    Its ``decrypt`` (or ``encrypt``) is applied to the member's data in order.
    """
    return AES.new(aes_key, AES.MODE_CTR, counter=Counter.new(nbits=128, little_endian=True))


def key_material(cache: KeyCache, pwd: bytes, header: bytes, strength: int) -> bytes:
    """AES key, HMAC key and password verifier for one member (derived once per salt)."""
    key = (pwd, header)
    found = cache.get(key)
    if found is None:
        found = derive(pwd, header, strength)
        cache[key] = found
    return found


class KeysAhead:
    """Derive the keys of ``infos`` on a background thread; :meth:`stop` before the file closes.

    The thread only fills ``cache`` (a plain dict: each store is atomic); a
    member the main thread opens first is derived there as before and skipped
    here. While it runs the switch interval is lowered (as for a read-ahead):
    after each derivation the thread must win the GIL back from a main thread
    that holds it nearly always, and at the default 5 ms it would derive one
    key in six.
    """

    def __init__(self, cache: KeyCache, fd: int, infos: list[Any], pwd: bytes) -> None:
        self._cache = cache
        self._todo: list[tuple[bytes, int]] = []
        self._pwd = pwd
        for info in infos:
            strength: int | None = getattr(info, "wz_aes_strength", None)
            if strength is None or strength not in WZ_SALT_LENGTHS:
                continue  # not WinZip AES: pyzipper decides what to do with it
            header = _encryption_header(fd, info, WZ_SALT_LENGTHS[strength] + VERIFIER)
            if (pwd, header) not in cache:
                self._todo.append((header, strength))
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="bundler-keys", daemon=True)
        self._switching = True
        switching.acquire()
        self._thread.start()

    def _run(self) -> None:
        try:
            for header, strength in self._todo:
                if self._stopping:
                    return
                key = (self._pwd, header)
                if key not in self._cache:
                    self._cache[key] = derive(self._pwd, header, strength)
        finally:
            self._restore()

    def _restore(self) -> None:
        if self._switching:
            self._switching = False
            switching.release()

    def stop(self) -> None:
        """Stop after the key being derived, and wait for it (idempotent)."""
        self._stopping = True
        self._thread.join()


def _encryption_header(fd: int, info: Any, size: int) -> bytes:
    """A member's salt and password verifier: the first ``size`` bytes of its data.

    A header that does not parse yields bytes no member will ask for: the real
    read then derives (and fails) exactly as it would without this.
    """
    fixed = os.pread(fd, _LOCAL_HEADER.size, info.header_offset)
    if len(fixed) < _LOCAL_HEADER.size:
        return b""
    _, name_len, extra_len = _LOCAL_HEADER.unpack(fixed)
    start = info.header_offset + _LOCAL_HEADER.size + name_len + extra_len
    return os.pread(fd, size, start)


class _CachedDecrypter(AESZipDecrypter):  # type: ignore[misc]  # pyzipper is untyped
    cache: ClassVar[KeyCache] = {}

    def __init__(self, zinfo: Any, pwd: bytes, encryption_header: bytes) -> None:
        """pyzipper's ``AESZipDecrypter.__init__`` with the key material from the cache."""
        self.filename = zinfo.filename
        length = WZ_KEY_LENGTHS[zinfo.wz_aes_strength]
        verify = encryption_header[WZ_SALT_LENGTHS[zinfo.wz_aes_strength] :]
        material = key_material(self.cache, pwd, encryption_header, zinfo.wz_aes_strength)
        if material[2 * length :] != verify:
            raise RuntimeError(f"Bad password for file {zinfo.filename!r}")
        self.decypter = ctr_cipher(material[:length])
        self.hmac = HMAC.new(material[length : 2 * length], digestmod=SHA1)


class _CachedExtFile(AESZipExtFile):  # type: ignore[misc]  # pyzipper is untyped
    decrypter: ClassVar[type[_CachedDecrypter]] = _CachedDecrypter

    def setup_aeszipdecrypter(self) -> type[AESZipDecrypter]:
        super().setup_aeszipdecrypter()
        return self.decrypter


def aes_zipfile(handle: IO[bytes]) -> pyzipper.AESZipFile:
    """``pyzipper.AESZipFile(handle)`` whose members share one key cache."""
    zf = pyzipper.AESZipFile(handle)
    cache: KeyCache = {}
    decrypter = type("BundleDecrypter", (_CachedDecrypter,), {"cache": cache})
    zf.zipextfile_cls = type("BundleExtFile", (_CachedExtFile,), {"decrypter": decrypter})
    return zf


def derive_ahead(zf: pyzipper.AESZipFile, fd: int, infos: list[Any]) -> KeysAhead | None:
    """Start deriving the keys of ``infos`` (with ``zf``'s password) in the background."""
    ext = zf.zipextfile_cls
    if not zf.pwd or not issubclass(ext, _CachedExtFile):
        return None
    return KeysAhead(ext.decrypter.cache, fd, infos, zf.pwd)
