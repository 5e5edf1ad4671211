"""Size caps that keep the head *and* the tail, with an explicit marker between them.

A cap that keeps only the oldest data is worse than no cap (redpanda #15683):
the lines that explain an incident are usually the newest. A cap that keeps
only the newest loses the start-up lines that say how a process was
configured. So every capped output keeps at most :data:`HEAD_FRACTION` of
its budget from the start and the rest from the end, cut on line
boundaries (within a line only when one line alone is longer than its part),
and says plainly what it left out, the marker inside the cap::

    [bundler truncated] 48213377 bytes (391002 lines) omitted here; the first and the
    last parts are kept (cap 5000000 bytes, 10000 lines)

Memory stays bounded by the cap whatever the input size: the head is kept
until it is full, then a rolling tail is kept.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from ..source import TRUNCATION_MARKER

HEAD_FRACTION = 0.25
"""Share of a cap given to the head; the tail (the newest lines) gets the rest."""

MARKER_PREFIX = TRUNCATION_MARKER
"""Every truncation marker line starts with this, so parsers can skip it (and a log
parser see the gap: :data:`bundler.source.TRUNCATION_MARKER`)."""


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
    omitted_bytes: int,
    omitted_lines: int | None,
    max_bytes: int,
    max_lines: int | None,
    *,
    read_to_end: bool = True,
) -> bytes:
    lines = f" ({omitted_lines} lines)" if omitted_lines is not None else ""
    cap = f"cap {max_bytes} bytes" + (f", {max_lines} lines" if max_lines else "")
    kept = (
        "the first and the last parts are kept"
        if read_to_end
        else "reading stopped at the cap: the first part and the last part read are kept, "
        "the rest was not read"
    )
    return f"{MARKER_PREFIX} {omitted_bytes} bytes{lines} omitted here; {kept} ({cap})\n".encode()


def marker_room(max_bytes: int, max_lines: int | None) -> int:
    """Bytes a marker can take, with the newline that ends a head cut within a line.

    Kept out of the budget so a capped output, marker included, is at most the
    cap: readers refuse a member over 16 MiB that compresses past 200:1
    (``ReaderLimits.ratio_floor``), and a 16 MiB cap plus its marker line was
    just over it, so doctor sealed bundles its own readers refused.
    """
    longest = marker_line(10**20, 10**20, max_bytes, max_lines, read_to_end=False)
    return len(longest) + 1


class HeadTailCapper:
    """Feed bytes in any chunking; :meth:`finish` returns at most the cap, head and tail.

    The output, marker included, is at most ``max_bytes`` whenever the cap has
    room for a marker and a little more (any cap from about a kilobyte; below
    that the marker comes on top).
    ``max_lines`` (optional) caps lines the same way. The head keeps whole lines,
    unless the first line alone is longer than the head's budget: then it keeps
    that line's first part. The tail keeps the last bytes, from a line start,
    unless the whole tail lies within one over-long line: then it keeps that
    line's true last part. :meth:`skip` records a range of bytes deliberately not
    read (ranged reads of a huge file, the range ending at a line start), after
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
        room = marker_room(max_bytes, max_lines)
        self._room = room if max_bytes - self._head_bytes >= 2 * room else 0
        """Kept free for the marker; a cap too small to spare it gets the marker on top."""
        self._total = 0
        self._newlines = 0
        self._skipped = False
        self._verbatim: list[bytes] | None = []
        """Chunks kept as they came while everything still fits (the common case: no per-line
        work at all); split into head and tail the moment something must be dropped."""
        self._verbatim_bytes = 0
        self._head = b""
        self._tail: deque[bytes] = deque()
        self._tail_used = 0
        self._tail_cap = 0
        self._before_tail = b"\n"
        """The byte just before the tail's first byte (a newline: the tail starts a line)."""

    @property
    def total(self) -> int:
        """Bytes seen so far (skipped ranges included)."""
        return self._total

    def feed(self, data: bytes) -> None:
        self._total += len(data)
        self._newlines += data.count(b"\n")
        if self._verbatim is not None:
            size = self._verbatim_bytes + len(data)
            lines = self._newlines
            if size <= self.max_bytes and (self.max_lines is None or lines <= self.max_lines):
                self._verbatim.append(data)
                self._verbatim_bytes = size
                return
            self._verbatim.append(data)
            self._split()
            return
        self._keep_tail(data)

    def _split(self) -> None:
        """Leave the fast path: the head from what was kept, the rest becomes the tail."""
        data = b"".join(self._verbatim or [])
        self._verbatim = None
        self._head = _head_of(data, self._head_bytes, self._head_lines)
        self._tail_cap = max(0, self.max_bytes - len(self._head) - self._room)
        self._before_tail = self._head[-1:] or b"\n"
        self._keep_tail(data[len(self._head) :])

    def _keep_tail(self, data: bytes) -> None:
        """Keep the last ``_tail_cap`` bytes seen, in chunks, remembering the byte before them."""
        if not data:
            return
        if len(data) > self._tail_cap:
            self._before_tail = data[len(data) - self._tail_cap - 1 : len(data) - self._tail_cap]
            data = data[len(data) - self._tail_cap :]
            self._tail.clear()
            self._tail_used = 0
            if not data:
                return
        self._tail.append(data)
        self._tail_used += len(data)
        while self._tail and self._tail_used - len(self._tail[0]) >= self._tail_cap:
            dropped = self._tail.popleft()
            self._tail_used -= len(dropped)
            self._before_tail = dropped[-1:]

    def skip(self, nbytes: int) -> None:
        """Account for ``nbytes`` not read at this point (the head is then complete)."""
        if self._verbatim is not None:
            self._split()
        self._tail.clear()  # lines before the gap cannot follow the marker
        self._tail_used = 0
        self._before_tail = b"\n"  # the caller skips to a line start
        self._total += nbytes
        if nbytes:
            self._skipped = True

    def finish(self, *, read_to_end: bool = True) -> Capped:
        """The capped output; ``read_to_end=False`` when reading stopped at the cap.

        The marker then says so: what follows it is the last part *read*, not the
        end of the input.
        """
        if self._verbatim is not None:
            content = b"".join(self._verbatim)
            lines = _line_count(content)
            if self.max_lines is None or lines <= self.max_lines:
                return Capped(content, False, self._total, lines)
            self._split()
        head = self._head
        tail = self._tail_part(_line_count(head))
        omitted = self._total - len(head) - len(tail)
        kept = _line_count(head) + _line_count(tail)
        if not omitted:
            return Capped(head + tail, False, self._total, kept)
        omitted_lines = None if self._skipped else self._omitted_lines(head, tail)
        marker = marker_line(
            omitted, omitted_lines, self.max_bytes, self.max_lines, read_to_end=read_to_end
        )
        if head and not head.endswith(b"\n"):
            head += b"\n"
        return Capped(head + marker + tail, True, self._total, kept, omitted, omitted_lines)

    def _tail_part(self, head_lines: int) -> bytes:
        """The kept tail: within its byte budget, from a line start, within the line cap."""
        kept = b"".join(self._tail)
        start = max(0, len(kept) - self._tail_cap)
        before = kept[start - 1 : start] if start else self._before_tail
        tail = kept[start:]
        if tail and before != b"\n":
            cut = tail.find(b"\n")
            if 0 <= cut < len(tail) - 1:  # else the whole tail is one over-long line's end
                tail = tail[cut + 1 :]
        if self.max_lines is not None:
            tail = _last_lines(tail, max(0, self.max_lines - head_lines))
        return tail

    def _omitted_lines(self, head: bytes, tail: bytes) -> int:
        """Lines of which nothing is kept: those that end between the head and the tail."""
        ended = self._newlines - head.count(b"\n") - tail.count(b"\n")
        if head and not head.endswith(b"\n"):
            ended -= 1  # the line the head was cut in ends in the gap, but is partly kept
        return max(0, ended)


def _head_of(data: bytes, max_bytes: int, max_lines: int | None) -> bytes:
    """Whole lines within the budget, or the first line's first part if it alone is over."""
    end = data.rfind(b"\n", 0, max_bytes) + 1
    if end == 0:
        end = min(max_bytes, len(data)) if max_lines != 0 else 0
    if max_lines is not None:
        pos = -1
        for _ in range(max_lines):
            pos = data.find(b"\n", pos + 1, end)
            if pos < 0:
                break
        else:
            end = min(end, pos + 1)
    return data[:end]


def _last_lines(data: bytes, count: int) -> bytes:
    """The last ``count`` lines of ``data`` (a last line without its newline counts)."""
    pos = len(data) - 1 if data.endswith(b"\n") else len(data)
    for _ in range(count):
        pos = data.rfind(b"\n", 0, pos)
        if pos < 0:
            return data
    return data[pos + 1 :]


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def cap_bytes(data: bytes, max_bytes: int, max_lines: int | None = None) -> Capped:
    """Cap a whole buffer at once."""
    capper = HeadTailCapper(max_bytes, max_lines)
    capper.feed(data)
    return capper.finish()
