"""Read-ahead keeps order, surfaces producer errors in place, and never leaks its thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from bundler.analyze.prefetch import prefetched


def _threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "bundler-prefetch")


def test_yields_everything_in_order() -> None:
    chunks = [bytes([i]) * 10 for i in range(100)]
    assert list(prefetched(iter(chunks), depth=2)) == chunks
    assert _threads() == 0


def test_producer_error_is_raised_after_the_chunks_before_it() -> None:
    def broken() -> Iterator[bytes]:
        yield b"a"
        yield b"b"
        raise ValueError("inflate failed")

    stream = prefetched(broken())
    assert next(stream) == b"a"
    assert next(stream) == b"b"
    with pytest.raises(ValueError, match="inflate failed"):
        next(stream)


def test_early_stop_closes_the_source_and_the_thread() -> None:
    closed = threading.Event()

    def endless() -> Iterator[bytes]:
        try:
            while True:
                yield b"x" * 1024
        finally:
            closed.set()

    stream = prefetched(endless(), depth=1)
    assert next(stream) == b"x" * 1024
    stream.close()
    assert closed.wait(5)
    assert _threads() == 0
