"""Re-chunking a byte stream into fixed-size pieces.

Collectors and transforms yield whatever sizes they like (single log lines,
whole documents). Compression, encryption and spooling are fastest and
bounded in memory with ~1 MiB pieces, so every stream is normalized here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

CHUNK_SIZE = 1 << 20


def rechunk(chunks: Iterable[bytes], size: int = CHUNK_SIZE) -> Iterator[bytes]:
    """Yield pieces of exactly ``size`` bytes (the last may be shorter, never empty).

    Memory stays bounded by ``size`` plus the largest incoming chunk. Slices of
    an incoming ``bytes`` object are passed on without copying (it cannot
    change); anything mutable is copied, since a producer may reuse its buffer.
    """
    pending = bytearray()
    for chunk in chunks:
        view = memoryview(chunk)
        if pending:
            room = size - len(pending)
            pending += view[:room]
            view = view[room:]
            if len(pending) < size:
                continue
            yield bytes(pending)
            pending = bytearray()
        immutable = isinstance(chunk, bytes) or isinstance(getattr(chunk, "obj", None), bytes)
        while len(view) >= size:
            piece = view[:size]
            yield piece if immutable else bytes(piece)  # type: ignore[misc]
            view = view[size:]
        pending += view
    if pending:
        yield bytes(pending)


def as_chunks(content: bytes | Iterable[bytes]) -> Iterable[bytes]:
    """Accept both whole bytes and an iterable of chunks."""
    if isinstance(content, bytes | bytearray | memoryview):
        return (bytes(content),)
    return content
