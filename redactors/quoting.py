"""Percent-encoding of learned values, as ``urllib.parse.quote`` does it, in one C-level pass.

Literal propagation learns every redacted value with its encoded forms
(:func:`redactors.literals.encoded_forms`), three of them percent-encoded. The
standard library quotes byte by byte in a Python list comprehension: with
thousands of values per member (a JSON listing whose every event holds one)
that was a tenth of pass one. A regular expression substitution touches only
the bytes that need quoting and gives the same text: letters, digits and
``_.-~`` are always kept, ``safe`` adds to them, every other byte becomes
``%XX`` (upper-case hex).
"""

from __future__ import annotations

import re

_ALWAYS_SAFE = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"
_QUOTERS: dict[bytes, re.Pattern[bytes]] = {}


def _percent(found: re.Match[bytes]) -> bytes:
    return b"%%%02X" % found.group()[0]


def quote(value: bytes, safe: bytes = b"") -> bytes:
    """``urllib.parse.quote(value, safe=safe.decode()).encode()``."""
    pattern = _QUOTERS.get(safe)
    if pattern is None:
        kept = _ALWAYS_SAFE + bytes(c for c in safe if c < 128)
        pattern = _QUOTERS[safe] = re.compile(b"[^" + re.escape(kept) + b"]")
    return pattern.sub(_percent, value)


def quote_plus(value: bytes, safe: bytes = b"") -> bytes:
    """``urllib.parse.quote_plus(value, safe=safe.decode()).encode()``: spaces become ``+``."""
    if b" " not in value:
        return quote(value, safe)
    return quote(value, safe + b" ").replace(b" ", b"+")


def quoted_forms(value: bytes) -> tuple[bytes, bytes, bytes]:
    """``quote(value)``, ``quote(value, b"@:/")`` and ``quote_plus(value)`` from one pass.

    Every ``%`` of a quoted text starts an escape (a literal ``%`` is itself
    quoted), so turning ``%2F``, ``%3A`` and ``%40`` back into ``/``, ``:`` and
    ``@`` gives exactly the text quoted with those three safe; without a space,
    ``quote_plus`` is ``quote``.
    """
    quoted = quote(value)
    url_safe = quoted
    if b"%2F" in quoted or b"%3A" in quoted or b"%40" in quoted:
        url_safe = quoted.replace(b"%2F", b"/").replace(b"%3A", b":").replace(b"%40", b"@")
    return quoted, url_safe, quoted if b" " not in value else quote_plus(value)
