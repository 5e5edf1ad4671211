"""Byte-stream plumbing: peeking, gzip in and out, UTF-16 and UTF-32 to UTF-8 (all streaming)."""

from __future__ import annotations

import codecs
import io
import itertools
import zlib
from collections.abc import Iterable, Iterator

OUT_CHUNK = 1 << 20
MAX_INFLATE_RATIO = 1000


def peek(chunks: Iterable[bytes], size: int) -> tuple[bytes, Iterator[bytes]]:
    """The first ``size`` bytes (or fewer at the end) and an iterator over *all* the bytes.

    Gathered in one growing buffer, not joined from a list of the chunks: a structured
    member is peeked whole (up to 256 MiB, :mod:`.walklimits`), and a join holds the
    chunks and their copy at once, twice the member.
    """
    iterator = iter(chunks)
    first = next(iterator, b"")
    if len(first) >= size:
        return first, itertools.chain([first], iterator)
    buffer = io.BytesIO()
    buffer.write(first)
    del first
    for chunk in iterator:
        buffer.write(chunk)
        if buffer.tell() >= size:
            break
    head = buffer.getvalue()  # the buffer itself, not a copy of it
    del buffer
    return head, itertools.chain([head] if head else [], iterator)


class GzipDamaged(ValueError):
    """A gzip member that does not decompress to its end: corrupt, or cut off mid-stream.

    What came out before the damage is not all the member held, so neither the
    redactor (which leaves the member out) nor review (which rejects the bundle)
    may treat it as the whole.
    """


def gunzip_chunks(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Decompress gzip (also concatenated members), refusing absurd ratios (zip bombs).

    Raises :class:`GzipDamaged` on a corrupt stream and on one that ends before its
    last member does (a file copied while it was written); NUL padding after the last
    member (a tape or tar block) is allowed, as ``gzip -d`` allows it.
    """
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    consumed = produced = 0
    started = False
    for chunk in chunks:
        consumed += len(chunk)
        data = chunk
        while data:
            if not started and not data.strip(b"\0"):
                break  # padding after a member: nothing to inflate
            started = True
            try:
                out = inflater.decompress(data, OUT_CHUNK)
            except zlib.error as exc:
                raise GzipDamaged(f"corrupt gzip stream ({exc})") from None
            produced += len(out)
            if produced > max(consumed, 1 << 20) * MAX_INFLATE_RATIO:
                raise ValueError("gzip member inflates beyond the safety ratio")
            if out:
                yield out
            if inflater.eof:
                data = inflater.unused_data
                inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
                started = False
            else:
                data = inflater.unconsumed_tail
    if started:
        raise GzipDamaged("the gzip stream ends before its last member does")


def gzip_chunks(chunks: Iterable[bytes], level: int = 6) -> Iterator[bytes]:
    deflater = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    for chunk in chunks:
        out = deflater.compress(chunk)
        if out:
            yield out
    yield deflater.flush()


def wide_to_utf8(chunks: Iterable[bytes], encoding: str) -> Iterator[bytes]:
    """UTF-16 or UTF-32 text (``encoding`` names the width and byte order, as
    :func:`~.binary.sniff` found them) as UTF-8: rules match bytes. A byte-order mark
    is dropped; what does not decode becomes U+FFFD."""
    decoder = codecs.getincrementaldecoder(encoding)("replace")
    first = True
    for chunk in chunks:
        text = decoder.decode(chunk)
        if first and text:
            text = text.removeprefix("\ufeff")
            first = False
        if text:
            yield text.encode("utf-8", "surrogateescape")
    tail = decoder.decode(b"", final=True)
    if first:
        tail = tail.removeprefix("\ufeff")
    if tail:
        yield tail.encode("utf-8")
