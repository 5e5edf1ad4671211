"""Read ahead: decompress the next chunks of a member while the analysis scans this one.

Opening a sealed bundle member means AES decryption, HMAC, inflate and
sha256 — all C code that releases the GIL — while a log parser's scan
(``bytes.find``, newline counting) holds it. Running the two in different
threads overlaps them, so analyzing a 1 GB bundle costs about one
decompression in wall time instead of decompression *plus* parsing. Memory
stays bounded: at most ``depth`` chunks wait in the queue.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

DEFAULT_DEPTH = 4

_DONE = object()


class _Failure:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def prefetched(chunks: Iterator[bytes], depth: int = DEFAULT_DEPTH) -> Iterator[bytes]:
    """Yield what ``chunks`` yields, produced ``depth`` chunks ahead in a worker thread.

    An exception in the producer is re-raised in the consumer at the same
    position in the stream. If the consumer stops early, the producer stops at
    its next chunk and the source iterator is closed — no thread outlives it.
    """
    pipe: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for chunk in chunks:
                while not stop.is_set():
                    try:
                        pipe.put(chunk, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    break
            else:
                _put(pipe, _DONE, stop)
        except BaseException as exc:  # handed to the consumer, raised there
            _put(pipe, _Failure(exc), stop)
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()

    worker = threading.Thread(target=produce, name="bundler-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            item = pipe.get()
            if item is _DONE:
                return
            if isinstance(item, _Failure):
                raise item.exc
            yield item
    finally:
        stop.set()
        while worker.is_alive():
            try:
                pipe.get_nowait()  # unblock a producer waiting for room
            except queue.Empty:
                worker.join(timeout=0.05)


def _put(pipe: queue.Queue[Any], item: object, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            pipe.put(item, timeout=0.1)
            return
        except queue.Full:
            continue
