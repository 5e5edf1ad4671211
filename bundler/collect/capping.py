"""Size caps that keep the head *and* the tail, with an explicit marker between them.

A cap that keeps only the oldest data is worse than no cap (redpanda #15683):
the lines that explain an incident are usually the newest. A cap that keeps
only the newest loses the start-up lines that say how a process was
configured. So every capped output keeps at most :data:`HEAD_FRACTION` of
its budget from the start and the rest from the end, cut on line
boundaries, and says plainly what it left out::

    [bundler truncated] 48213377 bytes (391002 lines) omitted here; the first and the
    last parts are kept (cap 5000000 bytes, 10000 lines)

Memory stays bounded by the cap whatever the input size: the head is kept
until it is full, then a rolling tail is kept.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

HEAD_FRACTION = 0.25
"""Share of a cap given to the head; the tail (the newest lines) gets the rest."""

MARKER_PREFIX = "[bundler truncated]"
"""Every truncation marker line starts with this, so parsers can skip it."""


@dataclass(frozen=True)
class Capped:
    """A capped output: its content and what was left out."""

    content: bytes
    truncated: bool
    total_bytes: int
    kept_lines: int
    omitted_bytes: int = 0
    omitted_lines: int | None = 0
    """Lines dropped; None when a byte range was skipped unread (count unknown)."""


def marker_line(
    omitted_bytes: int, omitted_lines: int | None, max_bytes: int, max_lines: int | None
) -> bytes:
    lines = f" ({omitted_lines} lines)" if omitted_lines is not None else ""
    cap = f"cap {max_bytes} bytes" + (f", {max_lines} lines" if max_lines else "")
    return (
        f"{MARKER_PREFIX} {omitted_bytes} bytes{lines} omitted here; "
        f"the first and the last parts are kept ({cap})\n"
    ).encode()


class HeadTailCapper:
    """Feed bytes in any chunking; :meth:`finish` returns at most the cap, head and tail.

    ``max_lines`` (optional) caps lines the same way. :meth:`skip` records a
    range of bytes deliberately not read (ranged reads of a huge file), after
    which the omitted line count is unknown.
    """

    def __init__(
        self, max_bytes: int, max_lines: int | None = None, head_fraction: float = HEAD_FRACTION
    ) -> None:
        if max_bytes < 1:
            raise ValueError("max_bytes must be positive")
        self.max_bytes = max_bytes
        self.max_lines = max_lines
        self._head_bytes = int(max_bytes * head_fraction)
        self._head_lines = int(max_lines * head_fraction) if max_lines else None
        self._head: list[bytes] = []
        self._head_used = 0
        self._in_tail = False
        self._tail: deque[bytes] = deque()
        self._tail_used = 0
        self._pending = b""
        self._total = 0
        self._omitted_bytes = 0
        self._omitted_lines: int | None = 0
        self._verbatim: list[bytes] | None = []
        """Chunks kept as they came while everything still fits (the common case: no per-line
        work at all); replayed line by line the moment something must be dropped."""
        self._verbatim_bytes = 0
        self._verbatim_newlines = 0

    @property
    def total(self) -> int:
        """Bytes seen so far (skipped ranges included)."""
        return self._total

    def feed(self, data: bytes) -> None:
        self._total += len(data)
        if self._verbatim is not None:
            newlines = self._verbatim_newlines + data.count(b"\n")
            size = self._verbatim_bytes + len(data)
            if size <= self.max_bytes and (self.max_lines is None or newlines <= self.max_lines):
                self._verbatim.append(data)
                self._verbatim_bytes, self._verbatim_newlines = size, newlines
                return
            self._replay()
        self._feed_lines(data)

    def _replay(self) -> None:
        """Leave the fast path: push the chunks kept so far through the line logic."""
        chunks, self._verbatim = self._verbatim or [], None
        for chunk in chunks:
            self._feed_lines(chunk)

    def _feed_lines(self, data: bytes) -> None:
        self._pending += data
        if b"\n" in data:
            *lines, self._pending = self._pending.split(b"\n")
            for line in lines:
                self._line(line + b"\n")
        if len(self._pending) > self.max_bytes:  # one enormous line: keep its bounded parts
            self._line(self._pending[: self.max_bytes])
            self._pending = self._pending[self.max_bytes :]

    def skip(self, nbytes: int) -> None:
        """Account for ``nbytes`` not read at this point (the head is then complete)."""
        if self._verbatim is not None:
            self._replay()
        if self._pending:
            self._omitted_bytes += len(self._pending)
            self._pending = b""
        while self._tail:  # lines before the gap cannot follow the marker
            dropped = self._tail.popleft()
            self._tail_used -= len(dropped)
            self._drop(len(dropped), lines=1)
        self._in_tail = True
        self._total += nbytes
        self._omitted_bytes += nbytes
        if nbytes:
            self._omitted_lines = None

    def finish(self) -> Capped:
        if self._verbatim is not None:
            content = b"".join(self._verbatim)
            partial = 1 if content and not content.endswith(b"\n") else 0
            lines = self._verbatim_newlines + partial
            if self.max_lines is None or lines <= self.max_lines:
                return Capped(content, False, self._total, lines)
            self._replay()
        if self._pending:
            self._line(self._pending)
            self._pending = b""
        kept = len(self._head) + len(self._tail)
        head = b"".join(self._head)
        tail = b"".join(self._tail)
        if not self._omitted_bytes:
            return Capped(head + tail, False, self._total, kept)
        if head and not head.endswith(b"\n"):
            head += b"\n"
        marker = marker_line(
            self._omitted_bytes, self._omitted_lines, self.max_bytes, self.max_lines
        )
        return Capped(
            head + marker + tail,
            True,
            self._total,
            kept,
            self._omitted_bytes,
            self._omitted_lines,
        )

    def _line(self, line: bytes) -> None:
        if not self._in_tail:
            fits_bytes = self._head_used + len(line) <= self._head_bytes
            fits_lines = self._head_lines is None or len(self._head) < self._head_lines
            if fits_bytes and fits_lines:
                self._head.append(line)
                self._head_used += len(line)
                return
            self._in_tail = True
        tail_bytes = self.max_bytes - self._head_used
        tail_lines = self.max_lines - len(self._head) if self.max_lines else len(self._tail) + 1
        if len(line) > tail_bytes:  # keep the end of an over-long line
            self._drop(len(line) - tail_bytes, lines=0)
            line = line[len(line) - tail_bytes :]
        self._tail.append(line)
        self._tail_used += len(line)
        while self._tail and (
            self._tail_used > tail_bytes
            or (tail_lines is not None and len(self._tail) > tail_lines)
        ):
            dropped = self._tail.popleft()
            self._tail_used -= len(dropped)
            self._drop(len(dropped), lines=1)

    def _drop(self, nbytes: int, *, lines: int) -> None:
        self._omitted_bytes += nbytes
        if self._omitted_lines is not None:
            self._omitted_lines += lines


def cap_bytes(data: bytes, max_bytes: int, max_lines: int | None = None) -> Capped:
    """Cap a whole buffer at once."""
    capper = HeadTailCapper(max_bytes, max_lines)
    capper.feed(data)
    return capper.finish()
