"""A response's ``Content-Encoding`` undone in bounded pieces, whatever the compression ratio.

httpx decodes each raw chunk whole: a 64 KiB chunk of a ``gzip, gzip`` bomb
becomes one 64 MiB ``bytes`` before anyone can look at it, so a 1.8 KB answer
could hold gigabytes, and the size cap and the budget were checked only after
each such chunk. Here every layer inflates at most :data:`PIECE` bytes per call
(zlib's ``max_length``) and hands them on at once, so the caller sees the
decoded body a piece at a time and can stop at its cap; memory stays a few
pieces and zlib windows per layer, however far the body would expand.

Only what doctor asks for (``Accept-Encoding: gzip, deflate``) is decoded, in
any stacking (``gzip, gzip`` is undone right to left); any other coding is
refused with a one-line :class:`UnsupportedEncoding`, never passed on as text.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

PIECE = 64 * 1024
"""Most bytes one layer produces per step."""

ACCEPT_ENCODING = "gzip, deflate"
"""What doctor tells the server it can decode (exactly what :func:`decoded` undoes)."""

_GZIP = ("gzip", "x-gzip")
_DEFLATE = "deflate"
_IDENTITY = "identity"


class UnsupportedEncoding(ValueError):
    """A ``Content-Encoding`` doctor did not ask for and cannot decode."""


class BadEncoding(ValueError):
    """The body is not the compressed stream its ``Content-Encoding`` names."""


def codings(header: str | None) -> list[str]:
    """The codings of a ``Content-Encoding`` header, in the order they were applied.

    Raises :class:`UnsupportedEncoding` on one doctor cannot undo.
    """
    names = [part.strip().lower() for part in (header or "").split(",")]
    names = [name for name in names if name and name != _IDENTITY]
    for name in names:
        if name not in _GZIP and name != _DEFLATE:
            # the name whole: the recorder redacts the message, then cuts it (a cut
            # here, before redaction, could leave the head of a secret it went through)
            raise UnsupportedEncoding(
                f"unsupported Content-Encoding {name!r} (doctor asks for {ACCEPT_ENCODING})"
            )
    return names


def decoded(raw: Iterable[bytes], header: str | None) -> Iterator[bytes]:
    """The decoded body, at most :data:`PIECE` bytes per item, however much it expands."""
    stream: Iterable[bytes] = raw
    for name in reversed(codings(header)):
        stream = _inflate(stream, gzip=name in _GZIP)
    return iter(stream)


def _inflate(chunks: Iterable[bytes], *, gzip: bool) -> Iterator[bytes]:
    """One coding undone, :data:`PIECE` bytes at a time.

    Concatenated gzip members are read one after another (RFC 1952); bytes after
    a deflate stream are not part of the body. A stream that simply stops is kept
    as far as it goes (as httpx does): the body is then incomplete, which the JSON
    check or the reader of a text member sees.
    """
    wbits = zlib.MAX_WBITS | 16 if gzip else zlib.MAX_WBITS
    inflater = zlib.decompressobj(wbits)
    started = False
    for chunk in chunks:
        data = chunk
        while data:
            if inflater.eof:
                if not gzip:
                    return
                inflater = zlib.decompressobj(wbits)  # the next gzip member
            try:
                piece = inflater.decompress(data, PIECE)
            except zlib.error as exc:
                if gzip or started:
                    raise BadEncoding(f"the {_name(gzip)} body does not decode: {exc}") from exc
                # "deflate" is often sent raw, without its zlib header (httpx accepts both)
                inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                piece = _raw_deflate(inflater, data, exc)
            started = True
            data = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
            if piece:
                yield piece
            while not data and len(piece) == PIECE and not inflater.eof:
                piece = inflater.decompress(b"", PIECE)  # output zlib still holds
                if piece:
                    yield piece


def _raw_deflate(inflater: zlib._Decompress, data: bytes, first: zlib.error) -> bytes:
    try:
        return inflater.decompress(data, PIECE)
    except zlib.error as exc:
        raise BadEncoding(f"the deflate body does not decode: {first}") from exc


def _name(gzip: bool) -> str:
    return "gzip" if gzip else "deflate"
