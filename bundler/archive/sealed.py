"""A member's WinZip AES-256 (AE-2) stream made outside the zip writer, and stored by it as is.

``bundler redact`` deflates and finalizes members in pool workers; sealing
them in the coordinator afterwards (AES-CTR plus HMAC-SHA1 over every byte)
was serial. :func:`seal` lets a worker encrypt a member's raw deflate
stream itself, with pyzipper's own :class:`AESZipEncrypter` (so its salt,
PBKDF2, little-endian CTR counter from 1, and 10-byte HMAC-SHA1 code are
exactly what the writer makes), into one stream: the 18-byte encryption
header (salt and password verifier), the ciphertext, the authentication
code. The zip writer then only copies it under a local header
(:class:`PreSealed` stands in for the encrypter there), and the post-write
check (:mod:`.integrity.written`) proves each entry's MAC under the bundle
password as for any member.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from types import SimpleNamespace

from pyzipper.zipfile_aes import AESZipDecrypter, AESZipEncrypter

AES_KWARGS: dict[str, int] = {"nbits": 256, "force_wz_aes_version": 2}
"""Passed explicitly: pyzipper 0.3.x silently wrote AE-1 (plaintext CRCs)."""

HEADER_BYTES = 16 + 2
"""AES-256: a 16-byte salt and the 2-byte password verifier."""
MAC_BYTES = AESZipEncrypter.hmac_size


def seal(password: bytes, deflated: Iterable[bytes]) -> Iterator[bytes]:
    """Header, ciphertext of ``deflated`` (a raw deflate stream), authentication code.

    A new encrypter per call: every member has its own random salt, so its
    own keys, as when the writer encrypts it.
    """
    if not password:
        raise ValueError("no password: refusing to seal")
    encrypter = AESZipEncrypter(password, **AES_KWARGS)
    yield encrypter.encryption_header()
    for piece in deflated:
        if piece:
            yield encrypter.encrypt(piece)
    yield encrypter.flush()


class SealedParts:
    """A sealed stream split as it goes: :attr:`header`, then :meth:`body`, then :attr:`mac`.

    The last bytes are held back while reading, since they may be the code.
    """

    def __init__(self, sealed: Iterable[bytes]) -> None:
        self._pieces = iter(sealed)
        head = b""
        for piece in self._pieces:
            head += piece
            if len(head) >= HEADER_BYTES + MAC_BYTES:
                break
        if len(head) < HEADER_BYTES + MAC_BYTES:
            raise ValueError("a sealed member's stream is truncated")
        self.header = head[:HEADER_BYTES]
        self._held = head[HEADER_BYTES:]
        self.mac = b""

    def body(self) -> Iterator[bytes]:
        """The ciphertext; :attr:`mac` is set once it is exhausted."""
        held = self._held
        for piece in self._pieces:
            held += piece
            if len(held) > MAC_BYTES:
                yield held[:-MAC_BYTES]
                held = held[-MAC_BYTES:]
        if len(held) > MAC_BYTES:
            yield held[:-MAC_BYTES]
        self.mac = held[-MAC_BYTES:]


def unseal(password: bytes, sealed: Iterable[bytes]) -> Iterator[bytes]:
    """The raw deflate stream :func:`seal` encrypted; a wrong password or code raises."""
    parts = SealedParts(sealed)
    info = SimpleNamespace(filename="sealed member", wz_aes_strength=3)
    try:
        decrypter = AESZipDecrypter(info, password, parts.header)
    except RuntimeError as exc:  # pyzipper: "Bad password"
        raise ValueError("a sealed member does not open with this password") from exc
    for piece in parts.body():
        yield decrypter.decrypt(piece)
    if decrypter.hmac.digest()[:MAC_BYTES] != parts.mac:
        raise ValueError("a sealed member's authentication code does not match")


class PreSealed(AESZipEncrypter):  # type: ignore[misc]
    """pyzipper's encrypter for one entry whose bytes :func:`seal` encrypted already.

    It writes the sealed stream's header, passes its ciphertext through, and
    ends the entry with its authentication code. No key is derived here: the
    writer never needs the password for such an entry, and the post-write
    check verifies the code with the password.
    """

    def __init__(self, header: bytes) -> None:  # no super(): no PBKDF2, no fresh salt
        if len(header) != HEADER_BYTES:
            raise ValueError("a sealed member's header is 18 bytes")
        self.force_wz_aes_version = AES_KWARGS["force_wz_aes_version"]
        self.conditionally_include_crc = None
        self.min_bytes_to_include_crc = None
        self.salt_length = 16
        self.aes_strength = 3
        self.salt = header[:16]
        self.encpwdverify = header[16:]
        self.mac = b""

    def encrypt(self, data: bytes) -> bytes:
        return data

    def flush(self) -> bytes:
        if len(self.mac) != MAC_BYTES:
            raise ValueError("a sealed member ended without its authentication code")
        return self.mac
