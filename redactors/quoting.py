"""Percent-encoding of learned values, as ``urllib.parse.quote`` does it, in C-level passes.

Literal propagation learns every redacted value with its encoded forms
(:func:`redactors.literals.encoded_forms`), three of them percent-encoded. The
standard library quotes byte by byte in a Python list comprehension: with
thousands of values per member (a JSON listing whose every event holds one)
that was a tenth of pass one. Replacing each byte that needs quoting gives the
same text: letters, digits and ``_.-~`` are always kept, ``safe`` adds to them,
every other byte becomes ``%XX`` (upper-case hex).
"""

from __future__ import annotations

_ALWAYS_SAFE = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"
_KEPT: dict[bytes, bytes] = {}
_ESCAPES = [b"%%%02X" % byte for byte in range(256)]


def quote(value: bytes, safe: bytes = b"") -> bytes:
    """``urllib.parse.quote(value, safe=safe.decode()).encode()``.

    Each byte that needs quoting is replaced everywhere at once, ``%`` first (the others'
    escapes bring new ones, which must stay): a secret has a few distinct such bytes
    (``+``, ``/``, ``=`` in base64), so this is a handful of ``bytes.replace`` calls where a
    regular expression substitution called back into Python for every byte it quoted.
    """
    kept = _KEPT.get(safe)
    if kept is None:
        kept = _KEPT[safe] = _ALWAYS_SAFE + bytes(c for c in safe if c < 128)
    unsafe = value.translate(None, kept)
    if not unsafe:
        return value
    quoted = value.replace(b"%", b"%25") if b"%" in unsafe else value
    for byte in set(unsafe.replace(b"%", b"")):
        quoted = quoted.replace(bytes((byte,)), _ESCAPES[byte])
    return quoted


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
