"""X25519 identities and public keys for recipient-sealed bundles, in ssh-keygen style files.

``bundler keygen --out NAME`` writes two one-line text files::

    NAME      bundler-x25519-identity <base64 private key> [comment]     (mode 0600)
    NAME.pub  bundler-x25519 <base64 public key> [comment]

Each line is a type prefix, the 32 raw key bytes in standard base64, and an
optional free-text comment (one line, e.g. ``support@vendor 2024``). Lines
starting with ``#`` and blank lines are ignored when reading. A key's
fingerprint is ``SHA256:`` plus the unpadded base64 of the sha256 of the raw
public key (the OpenSSH convention), and is what manifests and errors show.

An identity file is not passphrase-protected (like age or ssh keys without a
passphrase): it is protected by its file mode, and bundler refuses to use one
that other users can read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from ..errors import OutputError, UsageError

PUBLIC_TYPE = "bundler-x25519"
IDENTITY_TYPE = "bundler-x25519-identity"
MAX_COMMENT = 200
MAX_KEY_FILE_BYTES = 16 * 1024


def fingerprint(raw_public: bytes) -> str:
    """``SHA256:<unpadded base64>`` of a raw 32-byte public key."""
    digest = hashlib.sha256(raw_public).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


@dataclass(frozen=True)
class PublicKey:
    """A recipient: what a bundle is sealed to."""

    raw: bytes
    comment: str | None = None

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.raw)

    def to_cryptography(self) -> X25519PublicKey:
        return X25519PublicKey.from_public_bytes(self.raw)

    def line(self) -> str:
        return _line(PUBLIC_TYPE, self.raw, self.comment)

    @classmethod
    def load(cls, path: Path) -> PublicKey:
        raw, comment = _read_key_line(path, PUBLIC_TYPE, "public key")
        return cls(raw, comment)


@dataclass(frozen=True)
class Identity:
    """A private X25519 key that opens bundles sealed to its public key."""

    private: X25519PrivateKey = field(repr=False)
    comment: str | None = None

    @classmethod
    def generate(cls, comment: str | None = None) -> Identity:
        return cls(X25519PrivateKey.generate(), _check_comment(comment))

    @property
    def public(self) -> PublicKey:
        raw = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return PublicKey(raw, self.comment)

    def line(self) -> str:
        raw = self.private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return _line(IDENTITY_TYPE, raw, self.comment)

    @classmethod
    def load(cls, path: Path) -> Identity:
        _refuse_shared_identity(path)
        raw, comment = _read_key_line(path, IDENTITY_TYPE, "identity")
        return cls(X25519PrivateKey.from_private_bytes(raw), comment)


def keygen(out: Path, comment: str | None = None) -> tuple[Identity, Path, Path]:
    """Create ``out`` (0600) and ``out.pub``; refuse to overwrite either."""
    identity = Identity.generate(comment)
    public_path = out.with_name(out.name + ".pub")
    for path in (out, public_path):
        if path.exists() or path.is_symlink():
            raise OutputError(f"{path} already exists; refusing to overwrite a key")
    if not out.parent.is_dir():
        raise OutputError(f"folder {out.parent} does not exist")
    _write_new(out, identity.line() + "\n", 0o600)
    try:
        _write_new(public_path, identity.public.line() + "\n", 0o644)
    except BaseException:
        out.unlink(missing_ok=True)
        raise
    return identity, out, public_path


def _line(kind: str, raw: bytes, comment: str | None) -> str:
    encoded = base64.b64encode(raw).decode()
    return f"{kind} {encoded} {comment}" if comment else f"{kind} {encoded}"


def _check_comment(comment: str | None) -> str | None:
    if comment is None or comment.strip() == "":
        return None
    comment = comment.strip()
    if len(comment) > MAX_COMMENT or any(not ch.isprintable() for ch in comment):
        raise UsageError(f"a key comment must be one printable line of at most {MAX_COMMENT} chars")
    return comment


def _write_new(path: Path, text: str, mode: int) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, mode)
    except FileExistsError as exc:
        raise OutputError(f"{path} already exists; refusing to overwrite a key") from exc
    except OSError as exc:
        raise OutputError(f"cannot create {path}: {exc.strerror}") from exc
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(text)


def _read_key_line(path: Path, kind: str, what: str) -> tuple[bytes, str | None]:
    """The one key line of ``path``; every error names the file, never its content."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_KEY_FILE_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {what} file {path}: {exc.strerror}") from exc
    if len(data) > MAX_KEY_FILE_BYTES:
        raise UsageError(f"{path} is not a bundler {what} file (too large)")
    try:
        lines = [ln.strip() for ln in data.decode("ascii").splitlines()]
    except UnicodeDecodeError:
        lines = []
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    parts = lines[0].split(maxsplit=2) if len(lines) == 1 else []
    if len(parts) < 2 or parts[0] != kind:
        hint = "use NAME.pub for --recipient and NAME for --identity" if lines else None
        raise UsageError(f"{path} is not a bundler {what} file (expected '{kind} ...')", hint=hint)
    try:
        raw = base64.b64decode(parts[1], validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise UsageError(f"{path} holds a damaged {what} (bad base64 or length)")
    return raw, parts[2] if len(parts) == 3 else None


def _refuse_shared_identity(path: Path) -> None:
    """Like ssh: an identity other users can read is refused, not silently used."""
    if os.name != "posix":
        return
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise UsageError(f"cannot read identity file {path}: {exc.strerror}") from exc
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise UsageError(
            f"identity file {path} is accessible by other users (mode {stat.S_IMODE(mode):04o})",
            hint=f"run: chmod 600 {path}",
        )
