"""Compressed or binary data inside a member that reads as text, found as its bytes pass.

A member is judged text, binary or archive by its first 8 KiB
(:func:`~redactors.binary.sniff`). A log with a gzip stream, a zip or a SQLite file
appended after its text (``cat app.log app.log.1.gz > all.log``) reads as text, and a
scan of its bytes cannot see into what was appended, so "no rule fired" proves nothing
about it. :func:`refuse_embedded` passes the stream through unchanged and raises
:class:`~redactors.errors.MemberUnreadable` where one of these signatures occurs. Each holds
bytes no text holds (control bytes, or a byte no UTF-8 sequence has there), so a log is
never refused for its words, nor for naming a format (``SQLite format 3`` without its NUL).
bzip2's magic alone is plain ASCII (``BZh9`` then ``1AY&SY``): a text quoting that exact
run is refused, the one signature a text could hold.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .errors import MemberUnreadable

SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b\x08", "a gzip stream"),
    (b"PK\x03\x04", "a zip archive"),
    (b"\xfd7zXZ\x00", "an xz stream"),
    (b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
    (b"\x28\xb5\x2f\xfd", "a zstd stream"),
    (b"SQLite format 3\x00", "a SQLite database"),
    (b"\x7fELF\x02\x01\x01", "an ELF file"),
    (b"1AY&SY", "a bzip2 stream"),
)
"""Signatures of data a text scan cannot see into (bzip2's block magic counts only after
``BZh1``-``BZh9``)."""
_BZIP2 = b"1AY&SY"


def _rarity(byte: int) -> int:
    """How seldom text holds ``byte``, rarest first: a control byte, a byte UTF-8 never uses
    (0xF8-0xFF), DEL, any other."""
    if byte < 0x09 or 0x0E <= byte < 0x20:
        return 0
    return 1 if byte >= 0xF8 else 2 if byte == 0x7F else 3


_RARE: dict[bytes, bytes] = {
    magic: bytes([min(magic, key=_rarity)]) for magic, _ in SIGNATURES if magic != _BZIP2
}
"""The byte of each signature that text holds most seldom: a chunk without it cannot hold
the signature, which ``in`` (``memchr``) tells at a fraction of the cost of ``find``. Every
chunk of every text member passes here, in redact's pass one as in review."""
_LONGEST = max(len(magic) for magic, _ in SIGNATURES) + 4
_HINT = "cut the text from what was appended (or leave the file out) and review again"


def refuse_embedded(name: str, stream: Iterable[bytes]) -> Iterator[bytes]:
    """``stream`` unchanged, refusing (while it passes) one that holds a signature above.

    Each chunk is searched with the last bytes before it (``tail``), so a signature cut by
    a chunk boundary is found; the position reported is where it starts in the member.
    """
    tail = b""
    start = 0  # of ``tail`` in the member
    for chunk in stream:
        window: bytes | None = None  # tail + chunk, made only when a signature may be there
        for magic, what in SIGNATURES:
            if magic == _BZIP2:
                at = _bzip2_at(tail, chunk)
            elif _RARE[magic] in chunk or _RARE[magic] in tail:
                window = tail + chunk if window is None else window
                at = window.find(magic)
            else:
                continue
            if at >= 0:
                raise MemberUnreadable(
                    name,
                    f"{what} at byte {start + at} inside text: review cannot see inside it",
                    hint=_HINT,
                )
        end = start + len(tail) + len(chunk)
        tail = chunk[-_LONGEST:] if len(chunk) >= _LONGEST else (tail + chunk)[-_LONGEST:]
        start = end - len(tail)
        yield chunk


def _bzip2_at(tail: bytes, chunk: bytes) -> int:
    """Where in ``tail + chunk`` a bzip2 stream starts (its ``BZh9``), or -1.

    Searched in ``chunk`` itself and, for a magic cut by the boundary, in ``tail`` and the
    first bytes of ``chunk``: no copy of the chunk (bzip2's magic has no byte text lacks)."""
    edge = tail + chunk[: len(_BZIP2) - 1]
    at = edge.find(_BZIP2)
    while at >= 0:
        if _bzip2_lead(edge[at - 4 : at] if at >= 4 else b""):
            return at - 4
        at = edge.find(_BZIP2, at + 1)
    at = chunk.find(_BZIP2)
    while at >= 0:
        if _bzip2_lead(chunk[at - 4 : at] if at >= 4 else (tail + chunk[:at])[-4:]):
            return len(tail) + at - 4
        at = chunk.find(_BZIP2, at + 1)
    return -1


def _bzip2_lead(lead: bytes) -> bool:
    """``BZh`` and a block size digit, right before bzip2's block magic."""
    return len(lead) == 4 and lead[:3] == b"BZh" and 0x31 <= lead[3] <= 0x39
