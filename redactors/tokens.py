"""Typed, keyed replacement tokens: ``[REDACTED:<kind>:<hmac8>]``.

The suffix is HMAC-SHA256 of the original value under a per-bundle random
key, truncated to 8 hex digits. The same value therefore gets the same token
in every file of one bundle (an analyst can still see "the password in
app.conf is the one in the access log") while the token reveals nothing: an
unkeyed hash of a short password could be reversed by brute force, a keyed
one cannot without the key, and the key never leaves the redacting process
(unless the customer asks for the reversible map, which is encrypted and kept
outside the bundle).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable

TOKEN_RE = re.compile(rb"\[REDACTED:([a-z0-9][a-z0-9-]{0,39}):([0-9a-f]{8})\]")
"""A token as written into content (bytes)."""

NAME_TOKEN_RE = re.compile(rb"REDACTED-([a-z0-9][a-z0-9-]{0,39})-([0-9a-f]{8})")
"""The file-name-safe form used in member names (no brackets or colons)."""

TOKEN_MARK = b"[REDACTED:"


class Tokenizer:
    """Makes tokens and, when asked, remembers token -> original for the reversible map."""

    def __init__(self, key: bytes | None = None, *, keep_map: bool = False) -> None:
        self._key = key if key is not None else secrets.token_bytes(32)
        self.keep_map = keep_map
        self._map: dict[str, tuple[str, bytes]] = {}

    def digest(self, value: bytes) -> str:
        return hmac.new(self._key, value, hashlib.sha256).hexdigest()[:8]

    def identity(self, value: bytes) -> bytes:
        """The whole keyed HMAC of ``value``: an identity to compare values by across
        processes without handing the values over (8 hex digits would collide in a
        big bundle; 32 bytes do not)."""
        return hmac.new(self._key, value, hashlib.sha256).digest()

    def token(self, kind: str, value: bytes) -> bytes:
        """The content token for ``value``; the suffix depends on the value only."""
        digest = self.digest(value)
        token = f"[REDACTED:{kind}:{digest}]"
        if self.keep_map and token not in self._map:
            self._map[token] = (kind, value)
        return token.encode()

    def name_token(self, kind: str, value: bytes) -> str:
        """The member-name form of a token (safe on every file system)."""
        digest = self.digest(value)
        token = f"REDACTED-{kind}-{digest}"
        if self.keep_map and token not in self._map:
            self._map[token] = (kind, value)
        return token

    def merge_mapping(self, other: dict[str, tuple[str, bytes]]) -> None:
        if self.keep_map:
            for token, entry in other.items():
                self._map.setdefault(token, entry)

    def map_items(self) -> Iterable[tuple[str, tuple[str, bytes]]]:
        """The map's entries in the order they were made (nothing unless ``keep_map``)."""
        return self._map.items()

    def mapping(self) -> dict[str, tuple[str, bytes]]:
        """token -> (kind, original value); empty unless ``keep_map``."""
        return dict(self._map)


def is_token_only(value: bytes) -> bool:
    """True when ``value`` is nothing but tokens (and separators): already redacted."""
    rest = TOKEN_RE.sub(b"", value)
    return len(rest.strip(b" \t,;:\"'")) == 0 and rest != value


def clear_text(value: bytes) -> bytes:
    """``value`` with every token (content or member-name form) blanked out: what of it is
    still written in clear. ``[REDACTED:password:3f9a1c2b] horse battery`` leaves
    `` horse battery``, the tail an older or partial redaction left behind; a value that
    holds no token comes back as it is."""
    if TOKEN_MARK not in value and b"REDACTED-" not in value:
        return value
    return NAME_TOKEN_RE.sub(b" ", TOKEN_RE.sub(b" ", value))


def token_spans(data: bytes) -> list[tuple[int, int]]:
    """Offsets of every token in ``data`` (cheap when there are none)."""
    if TOKEN_MARK not in data:
        return []
    return [m.span() for m in TOKEN_RE.finditer(data)]
