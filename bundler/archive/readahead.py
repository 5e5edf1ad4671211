"""Read ahead: decompress the next chunks of a member on the second core while this one is used.

Reading a sealed member is decrypt (AES-CTR), authenticate (HMAC-SHA1), inflate,
CRC and sha256, about 2.9 s per GiB of logs on one core; analysis then scans
the same bytes. Every one of those stages runs in C with the GIL released
(zlib, hashlib and pycryptodome's cffi calls), so a background thread can
produce chunk *n + 1* while the consumer scans chunk *n*: the wall time of
``analyze`` approaches the longer of the two instead of their sum. CPU time
does not drop (it rises a little for the hand-offs); the gain is wall time
from a second core.

Memory stays bounded: at most ``depth`` chunks wait in the queue, plus the one
the producer is building and the one the consumer holds.

The producer's outcome travels with the data, so behaviour is the single-
threaded one seen from the consumer: every chunk the producer made is
delivered in order before its exception (a bomb, a bad MAC, a short member) is
raised, in the consumer's thread, as the same object. When the consumer stops
early (``break``, ``close()``, its own exception, Ctrl-C) the producer is told
to stop and is joined before control returns, so no thread outlives its
member or touches a zip that is about to close.

While a read-ahead runs, the interpreter's switch interval is lowered (and
restored when the last one stops). The producer gives up the GIL around each
C call (several per chunk: inflate grows its output in blocks) and then must
win it back from a consumer that holds it almost all the time (``bytes.count``
does not release it); at the default 5 ms each hand-back would stall the
producer far longer than the work itself. A short interval costs little
because a switch is only requested when the other thread is waiting.

``BUNDLER_READAHEAD`` sets the depth in chunks (default 4); ``0`` or ``off``
turns the thread off and reads inline, as before.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Generator, Iterator

from ..errors import UsageError

ENV = "BUNDLER_READAHEAD"
DEFAULT_DEPTH = 4
_POLL_SECONDS = 0.05
"""How often a producer blocked on a full queue looks for a stop request."""

SWITCH_INTERVAL = 0.0001
"""Seconds a thread waits for the GIL before asking for it, while a read-ahead runs."""

_DONE = object()


class _SwitchInterval:
    """Lower ``sys.setswitchinterval`` while at least one read-ahead runs; restore it after."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._saved = sys.getswitchinterval()

    def acquire(self) -> None:
        with self._lock:
            if self._users == 0:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(self._saved, SWITCH_INTERVAL))
            self._users += 1

    def release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0:
                sys.setswitchinterval(self._saved)


switching = _SwitchInterval()
"""Shared by every thread that must win the GIL back often: read-aheads, key derivation."""


def depth_from_env(environ: dict[str, str] | None = None) -> int:
    """Chunks to read ahead, from ``BUNDLER_READAHEAD`` (``0``/``off`` = inline reads)."""
    raw = (os.environ if environ is None else environ).get(ENV, "").strip().lower()
    if raw == "":
        return DEFAULT_DEPTH
    if raw in ("off", "no", "false"):
        return 0
    if raw.isdigit() and int(raw) <= 64:
        return int(raw)
    raise UsageError(f"{ENV} must be a number of chunks from 0 to 64, or off (got {raw[:20]!r})")


class ReadAhead:
    """Iterate ``chunks`` (a generator) in a background thread, ``depth`` chunks ahead.

    Use it as an iterator; :meth:`stop` (also called when iteration ends or
    is abandoned) asks the producer to finish and joins it.
    """

    def __init__(
        self, chunks: Generator[bytes, None, None], depth: int, *, name: str = "bundler-readahead"
    ) -> None:
        if depth < 1:
            raise ValueError("depth must be at least 1")
        self._chunks = chunks
        self._queue: queue.Queue[object] = queue.Queue(maxsize=depth)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._produce, name=name, daemon=True)
        self._released = False
        switching.acquire()
        self._thread.start()

    def __iter__(self) -> Iterator[bytes]:
        return self.chunks()

    def chunks(self) -> Generator[bytes, None, None]:
        """The chunks in order, then the producer's exception if it failed; stops it when done."""
        try:
            while True:
                item = self._queue.get()
                if item is _DONE:
                    return
                if isinstance(item, BaseException):
                    self._thread.join()
                    raise item
                yield item  # type: ignore[misc]
        finally:
            self.stop()

    def stop(self) -> None:
        """Ask the producer to stop, unblock it, and wait for it (idempotent)."""
        self._stopping.set()
        while self._thread.is_alive():
            self._drain()
            self._thread.join(_POLL_SECONDS)
        self._drain()
        if not self._released:
            self._released = True
            switching.release()

    def _drain(self) -> None:
        try:
            while True:
                self._queue.get_nowait()
        except queue.Empty:
            pass

    def _produce(self) -> None:
        outcome: object = _DONE
        try:
            for chunk in self._chunks:
                if not self._put(chunk):
                    return
        except BaseException as exc:  # handed to the consumer, raised in its thread
            outcome = exc
        finally:
            if self._stopping.is_set():
                self._chunks.close()  # in this thread, where it runs
        self._put(outcome)

    def _put(self, item: object) -> bool:
        """Queue ``item``; False when the consumer asked to stop meanwhile."""
        while not self._stopping.is_set():
            try:
                self._queue.put(item, timeout=_POLL_SECONDS)
            except queue.Full:
                continue
            return True
        return False
