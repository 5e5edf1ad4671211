"""The reversible map (``--map-out``): token -> original value, encrypted, for the customer only.

It lets the customer answer "which password is ``[REDACTED:password:3f9a1c2b]``?"
and lets ``bundler review --map`` search the bundle for every original value
in every encoding. It is never written inside the bundle. Format::

    b"BUNDLER-MAP/1\\n" + salt(16) + nonce(12) + AES-256-GCM(scrypt(password, salt), JSON)

with scrypt n=2**15, r=8, p=1 (``cryptography``); the JSON maps each token to
``{"kind": ..., "value_b64": ...}``.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from ..errors import InputError, UsageError

MAGIC = b"BUNDLER-MAP/1\n"
SCRYPT_N = 2**15


def _key(password: str, salt: bytes) -> bytes:
    return Scrypt(salt=salt, length=32, n=SCRYPT_N, r=8, p=1).derive(password.encode())


def write_map(path: Path, mapping: dict[str, tuple[str, bytes]], password: str) -> None:
    """Write the encrypted map atomically (0600); refuses to overwrite."""
    if path.exists():
        raise UsageError(f"map file {path} already exists")
    body = json.dumps(
        {
            t: {"kind": k, "value_b64": base64.b64encode(v).decode()}
            for t, (k, v) in mapping.items()
        },
        sort_keys=True,
    ).encode()
    salt, nonce = secrets.token_bytes(16), secrets.token_bytes(12)
    sealed = AESGCM(_key(password, salt)).encrypt(nonce, body, MAGIC)
    tmp = path.with_name(f".{path.name}.tmp-bundler")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(MAGIC + salt + nonce + sealed)
    os.replace(tmp, path)


def read_map(path: Path, password: str) -> dict[str, tuple[str, bytes]]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read map file {path}: {exc.strerror}") from None
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 28:
        raise InputError(f"{path} is not a bundler map file")
    salt = data[len(MAGIC) : len(MAGIC) + 16]
    nonce = data[len(MAGIC) + 16 : len(MAGIC) + 28]
    try:
        body = AESGCM(_key(password, salt)).decrypt(nonce, data[len(MAGIC) + 28 :], MAGIC)
    except InvalidTag:
        raise InputError(
            f"cannot decrypt map file {path}: wrong password or damaged file"
        ) from None
    raw = json.loads(body)
    return {t: (e["kind"], base64.b64decode(e["value_b64"])) for t, e in raw.items()}
