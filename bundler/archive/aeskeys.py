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
"""

from __future__ import annotations

from typing import IO, Any, ClassVar

import pyzipper
from Cryptodome.Cipher import AES
from Cryptodome.Hash import HMAC, SHA1
from Cryptodome.Protocol.KDF import PBKDF2
from Cryptodome.Util import Counter
from pyzipper.zipfile_aes import (
    WZ_KEY_LENGTHS,
    WZ_SALT_LENGTHS,
    AESZipDecrypter,
    AESZipExtFile,
)

ROUNDS = 1000
"""WinZip AES: PBKDF2-HMAC-SHA1 with 1,000 iterations."""
VERIFIER = 2

KeyCache = dict[tuple[bytes, bytes], bytes]


def key_material(cache: KeyCache, pwd: bytes, header: bytes, strength: int) -> bytes:
    """AES key, HMAC key and password verifier for one member (derived once per salt)."""
    key = (pwd, header)
    found = cache.get(key)
    if found is None:
        salt = header[: WZ_SALT_LENGTHS[strength]]
        length = 2 * WZ_KEY_LENGTHS[strength] + VERIFIER
        # the stub says str; PBKDF2 takes bytes as they are (a password need not be UTF-8)
        found = PBKDF2(pwd, salt, count=ROUNDS, dkLen=length)  # type: ignore[arg-type]
        cache[key] = found
    return found


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
        counter = Counter.new(nbits=128, little_endian=True)
        self.decypter = AES.new(material[:length], AES.MODE_CTR, counter=counter)
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
