"""Recipient sealing: a random archive password, wrapped to each recipient's X25519 key.

The bundle stays an ordinary AES zip (7-Zip opens it once the password is
known); its password is 256 random bits, so nobody chooses or types it. For
each recipient the password is wrapped with an ephemeral X25519 key agreement,
HKDF-SHA256 and ChaCha20-Poly1305, and the wrapped copies are stored in a
versioned JSON envelope in the zip comment::

    bundler sealed bundle: open it with `bundler extract BUNDLE --to DIR --identity KEY`
    {"bundler_envelope":1,"scheme":"x25519-hkdf-sha256-chacha20poly1305",
     "recipients":[{"fingerprint":"SHA256:...","ephemeral":"<b64>","wrapped":"<b64>"}]}

Per recipient: ``shared = X25519(ephemeral, recipient)``; ``key = HKDF-SHA256(
shared, salt = ephemeral_pub || recipient_pub, info = "bundler/1 sealed
password")``; ``wrapped = ChaCha20-Poly1305(key, nonce = 0^12, password, aad =
scheme || fingerprint)``. The zero nonce is safe because every key is used once.

The envelope is in clear text: it shows the recipients' fingerprints and
nothing else. The zip comment is not authenticated, but a swapped envelope
only yields a password that does not open the members.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import secrets
from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import DecryptionFailed, EncryptionError, UsageError
from ..jsondoc import loads_bounded
from .keys import Identity, PublicKey
from .password_comment import PASSWORD_COMMENT
from .secret import Secret

ENVELOPE_VERSION = 1
SCHEME = "x25519-hkdf-sha256-chacha20poly1305"
HKDF_INFO = b"bundler/1 sealed password"
MAX_RECIPIENTS = 64
"""Keeps the envelope far below the zip comment's 64 KiB."""
COMMENT_HEADLINE = (
    "bundler sealed bundle: open it with `bundler extract BUNDLE --to DIR --identity KEY`"
)
_NONCE = bytes(12)
_FINGERPRINT_RE = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")
_WRAPPED_BYTES = 43 + 16
"""A wrapped archive password: 43 base64url characters plus the Poly1305 tag."""


class Stanza(BaseModel):
    model_config = ConfigDict(extra="allow")

    fingerprint: str = Field(max_length=100)
    ephemeral: str = Field(max_length=100)
    wrapped: str = Field(max_length=200)


class Envelope(BaseModel):
    """The wrapped copies of one bundle's password, one per recipient."""

    model_config = ConfigDict(extra="allow")

    bundler_envelope: int
    scheme: str
    recipients: list[Stanza] = Field(max_length=MAX_RECIPIENTS)

    @property
    def fingerprints(self) -> list[str]:
        return [s.fingerprint for s in self.recipients]


def new_archive_password() -> Secret:
    """256 random bits as 43 base64url characters (7-Zip accepts them as typed)."""
    return Secret(base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"="))


def seal(password: Secret, recipients: Sequence[PublicKey]) -> bytes:
    """The zip comment carrying ``password`` wrapped to every recipient."""
    if not recipients:
        raise EncryptionError("no recipient to seal the bundle to")
    if len(recipients) > MAX_RECIPIENTS:
        raise UsageError(f"at most {MAX_RECIPIENTS} --recipient keys are supported")
    stanzas = [_wrap(password, recipient) for recipient in recipients]
    envelope = {"bundler_envelope": ENVELOPE_VERSION, "scheme": SCHEME, "recipients": stanzas}
    body = json.dumps(envelope, separators=(",", ":"))
    return f"{COMMENT_HEADLINE}\n{body}".encode("ascii")


def read_envelope(comment: bytes) -> Envelope | None:
    """The envelope in a zip comment; None when the bundle is password-sealed.

    A comment that claims to be an envelope but is malformed raises
    :class:`DecryptionFailed` (hostile or damaged), never a traceback.
    """
    lines = comment.decode("utf-8", "replace").splitlines()
    body = next((ln for ln in reversed(lines) if ln.startswith('{"bundler_envelope"')), None)
    if body is None:
        return None
    try:
        envelope = Envelope.model_validate(loads_bounded(body, "the recipient envelope"))
    except (ValueError, ValidationError, RecursionError) as exc:
        raise DecryptionFailed("the bundle's recipient envelope is damaged") from exc
    if envelope.bundler_envelope != ENVELOPE_VERSION or envelope.scheme != SCHEME:
        raise DecryptionFailed(
            f"the bundle is sealed with an unsupported scheme (envelope "
            f"{envelope.bundler_envelope}, {envelope.scheme[:60]}); a newer bundler is needed"
        )
    return envelope


def unseal(envelope: Envelope, identity: Identity) -> Secret:
    """The bundle password unwrapped with ``identity`` (the first stanza that unwraps)."""
    return unseal_all(envelope, identity)[0]


def unseal_all(envelope: Envelope, identity: Identity) -> list[Secret]:
    """Every password wrapped to ``identity``, in envelope order; refuses a non-recipient.

    The envelope is not authenticated and anyone with the public key can wrap
    a password to it, so a forged stanza may sit before the real one: the
    reader tries each candidate against the bundle's own MACs.
    """
    mine = identity.public
    found: list[Secret] = []
    matching = 0
    for stanza in envelope.recipients:
        if stanza.fingerprint != mine.fingerprint:
            continue
        matching += 1
        try:
            ephemeral = _b64(stanza.ephemeral, 32)
            shared = identity.private.exchange(X25519PublicKey.from_public_bytes(ephemeral))
            key = _derive(shared, ephemeral, mine.raw)
            plain = ChaCha20Poly1305(key).decrypt(_NONCE, _b64(stanza.wrapped), _aad(stanza))
        except (InvalidTag, ValueError):
            continue
        if plain and plain not in (s.reveal() for s in found):
            found.append(Secret(plain))
    if found:
        return found
    if matching:
        raise DecryptionFailed(
            f"the password sealed to {mine.fingerprint} does not unwrap "
            "(envelope damaged or forged)"
        )
    raise DecryptionFailed(
        f"this bundle is not sealed to identity {mine.fingerprint}",
        hint=f"it is sealed to: {', '.join(envelope.fingerprints[:5]) or 'nobody'}",
    )


def is_own_comment(comment: bytes) -> bool:
    """Whether a zip comment is one bundler writes, byte for byte, and nothing more.

    Empty, the fixed password-mode text, or a recipient envelope exactly as
    :func:`seal` serializes it: known fields only, fingerprints and key
    material in their fixed shapes. The comment is outside every MAC, so
    anything else there (a note, a pasted secret, an extra JSON field) is
    bytes no reader can vouch for.
    """
    if comment in (b"", PASSWORD_COMMENT):
        return True
    headline, _, body = comment.partition(b"\n")
    if headline != COMMENT_HEADLINE.encode("ascii") or not body.startswith(b"{"):
        return False
    try:
        document = json.loads(body)
        stanzas = document["recipients"]
        canonical = {
            "bundler_envelope": document["bundler_envelope"],
            "scheme": document["scheme"],
            "recipients": [
                {k: stanza[k] for k in ("fingerprint", "ephemeral", "wrapped")}
                for stanza in stanzas
            ],
        }
        shapes_ok = (
            document["bundler_envelope"] == ENVELOPE_VERSION
            and document["scheme"] == SCHEME
            and 0 < len(stanzas) <= MAX_RECIPIENTS
        ) and all(
            isinstance(s["fingerprint"], str)
            and _FINGERPRINT_RE.fullmatch(s["fingerprint"])
            and len(_b64(s["ephemeral"], 32)) == 32
            and len(_b64(s["wrapped"], _WRAPPED_BYTES)) == _WRAPPED_BYTES
            for s in stanzas
        )
    except (ValueError, KeyError, TypeError, RecursionError):
        return False
    rebuilt = json.dumps(canonical, separators=(",", ":")).encode("ascii")
    return shapes_ok and rebuilt == body


def _wrap(password: Secret, recipient: PublicKey) -> dict[str, str]:
    ephemeral = X25519PrivateKey.generate()
    ephemeral_pub = ephemeral.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    try:
        shared = ephemeral.exchange(recipient.to_cryptography())
    except ValueError as exc:
        raise UsageError(
            f"recipient key {recipient.fingerprint} is not a usable X25519 key"
        ) from exc
    key = _derive(shared, ephemeral_pub, recipient.raw)
    stanza = {"fingerprint": recipient.fingerprint, "ephemeral": _enc(ephemeral_pub)}
    wrapped = ChaCha20Poly1305(key).encrypt(_NONCE, password.reveal(), _aad_of(stanza))
    return {**stanza, "wrapped": _enc(wrapped)}


def _derive(shared: bytes, ephemeral_pub: bytes, recipient_pub: bytes) -> bytes:
    hkdf = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=ephemeral_pub + recipient_pub, info=HKDF_INFO
    )
    return hkdf.derive(shared)


def _aad(stanza: Stanza) -> bytes:
    return _aad_of({"fingerprint": stanza.fingerprint})


def _aad_of(stanza: dict[str, str]) -> bytes:
    return f"{SCHEME}\n{stanza['fingerprint']}".encode()


def _enc(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _b64(text: str, length: int | None = None) -> bytes:
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError("bad base64") from exc
    if length is not None and len(data) != length:
        raise ValueError("bad length")
    return data
