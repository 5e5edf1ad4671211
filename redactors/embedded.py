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
_LONGEST = max(len(magic) for magic, _ in SIGNATURES) + 4
_HINT = "cut the text from what was appended (or leave the file out) and review again"


def refuse_embedded(name: str, stream: Iterable[bytes]) -> Iterator[bytes]:
    """``stream`` unchanged, refusing (while it passes) one that holds a signature above."""
    tail = b""
    offset = 0  # of ``tail`` in the member
    for chunk in stream:
        window = tail + chunk
        for magic, what in SIGNATURES:
            at = window.find(magic)
            while at >= 0 and magic == b"1AY&SY" and not _bzip2_lead(window, at):
                at = window.find(magic, at + 1)
            if at >= 0:
                at -= 4 if magic == b"1AY&SY" else 0  # the stream starts at its "BZh9"
                raise MemberUnreadable(
                    name,
                    f"{what} at byte {offset + at} inside text: review cannot see inside it",
                    hint=_HINT,
                )
        keep = min(len(window), _LONGEST)
        offset += len(window) - keep
        tail = window[len(window) - keep :]
        yield chunk


def _bzip2_lead(window: bytes, at: int) -> bool:
    """``BZh`` and a block size digit right before bzip2's block magic."""
    lead = window[at - 4 : at]
    return len(lead) == 4 and lead[:3] == b"BZh" and 0x31 <= lead[3] <= 0x39
