"""A log member as blocks of whole lines, each with its first line number.

The block scanner counts routine lines with ``bytes.count`` over a range of
a chunk, so blocks are ``(buffer, start, end)`` ranges rather than copies: the
1 MiB chunk the source hands over is sliced only where a block must be split
into lines. A line that straddles two chunks is carried into the next one; a
final line without a newline gets one, so the line numbers match
:func:`bundler.source.iter_lines` exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

BLOCK_BYTES = 128 * 1024
"""Small enough that a rare record leaves most blocks free of anything but routine lines."""


@dataclass(frozen=True, slots=True)
class Block:
    """Lines ``first`` … ``first + lines - 1`` of a member: ``buf[start:end]``, ending in b"\\n"."""

    buf: bytes
    start: int
    end: int
    first: int
    lines: int

    def raw_lines(self) -> list[bytes]:
        """The block's lines without their b"\\n" (a b"\\r" before it is kept)."""
        return self.buf[self.start : self.end - 1].split(b"\n")

    def text_lines(self) -> Iterator[tuple[int, str]]:
        """``(number, text)`` exactly as :func:`bundler.source.iter_lines` yields them."""
        for number, raw in enumerate(self.raw_lines(), self.first):
            yield number, raw.rstrip(b"\r").decode("utf-8", "replace")


def blocks(chunks: Iterable[bytes | memoryview], size: int = BLOCK_BYTES) -> Iterator[Block]:
    """Cut a member's chunks into blocks of about ``size`` bytes of whole lines.

    A line that straddles two chunks is a small block of its own, so a chunk
    is never copied (a 1 MiB copy per chunk costs a fresh allocation and its
    page faults every time). The one exception is a chunk handed over as a
    ``memoryview``: doctor's spool re-chunks a member of 1 MiB or more into views of
    its bytes, which have no ``find``; read as bytes, a server log that grew past
    1 MiB (a database outage logs a traceback per request) no longer fails the
    whole normalizer.
    """
    carry = b""
    number = 1
    for piece in chunks:
        chunk = piece if isinstance(piece, bytes) else bytes(piece)
        start = 0
        if carry:
            first = chunk.find(b"\n") + 1
            if not first:
                carry += chunk
                continue
            yield Block(carry + chunk[:first], 0, len(carry) + first, number, 1)
            number += 1
            start = first
        last = chunk.rfind(b"\n") + 1
        while start < last:
            end = chunk.rfind(b"\n", start, min(start + size, last)) + 1
            if end <= start:  # one line longer than a block: it is a block of its own
                end = chunk.find(b"\n", start) + 1
            lines = chunk.count(b"\n", start, end)
            yield Block(chunk, start, end, number, lines)
            number += lines
            start = end
        carry = chunk[max(last, start) :]
    if carry:
        yield Block(carry + b"\n", 0, len(carry) + 1, number, 1)
