"""Streaming: redact a member of any size in bounded memory, without missing a secret at a cut.

The text is processed in rounds of about ``chunk_size`` bytes, cut after a
newline. Each round scans ``context + pending``: ``context`` is the tail of
what was already written (read-only, so a key on the previous line still
explains a value on this one) and the last ``overlap`` bytes of ``pending``
are scanned but not written; they are scanned again, complete, in the next
round. The write boundary is moved back before any secret that straddles it,
before text a rule asked to keep (a value that may continue), and before
trailing lines that look like private-key material (so an END without its
BEGIN can still reach them). A line longer than a round is cut anyway, with
the same overlap. Memory stays around ``2 * chunk_size + overlap`` whatever
the member's size.

A :class:`Segment` lets several processes redact one big member at once.
Between rounds the stream's whole state is the position it emitted up to,
the ``overlap`` bytes of *input* before it (the context) and a line count, so
a stream that starts at a line start with that context, and a stream over the
text before it that stops exactly there, together do what one stream whose
round happened to end there would do. Stopping there is only allowed where a
round could end: no hit straddles the point, no rule holds text before it,
and it does not cut private-key lines; otherwise the stream raises
:class:`~redactors.errors.SegmentMisaligned` and the caller redacts the
member in one piece.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from .errors import SegmentMisaligned
from .rules import BLOCK_MARGIN, Hit, View, line_ends, line_pieces

Scan = Callable[[View], list[Hit]]
Replace = Callable[[Hit, bytes, int, int], bytes]
"""(hit, text, start, line) -> replacement for ``text[start:hit.end]``; the callback also
learns the literal and records the hit."""

CHUNK = 1 << 20
OVERLAP = 16 << 10
MAX_PENDING = 32 << 20
_KEY_LINE = re.compile(rb"[ \t]*(?:\S+[ \t]+)*[A-Za-z0-9+/=]{40,80}\r?")
STOP_WINDOW = 3
"""Chunks before its stop at which a segment's stream makes its last round (see round())."""


@dataclass
class Segment:
    """A part of a member redacted on its own: where it starts and stops, and how it ended.

    ``context`` is the ``overlap`` bytes of input right before the segment
    (empty for the first). ``stop`` is the segment's length in input bytes;
    the chunks given may run up to ``overlap`` bytes past it (look-ahead, read
    but never written), or ``None`` for the last segment. Filled in when the
    stream stopped: ``lines``, the newlines of the segment's input (to number
    the next segment's lines), and ``end_context``, the context the stream held
    at the stop (the next segment must have started with exactly that).
    """

    context: bytes = b""
    stop: int | None = None
    lines: int = 0
    end_context: bytes = b""


def redact_stream(
    chunks: Iterable[bytes],
    scan: Scan,
    replace: Replace,
    *,
    chunk_size: int = CHUNK,
    overlap: int = OVERLAP,
    segment: Segment | None = None,
) -> Iterator[bytes]:
    state = _State(scan, replace, chunk_size, overlap, segment)
    for chunk in _in_pieces(chunks, chunk_size):
        state.pending += chunk
        while True:
            if state.stop_due():
                if len(state.pending) < (state.remaining or 0) + overlap:
                    break
                yield state.stop_round(final=False)
                return
            if len(state.pending) < max(chunk_size + overlap, state.wanted):
                break
            out = state.round(final=False)
            if out is None:
                break
            yield out
    if state.remaining is not None:
        if len(state.pending) < state.remaining:
            raise SegmentMisaligned("the text ended before the segment's stop")
        yield state.stop_round(final=True)
        return
    while state.pending:
        out = state.round(final=True)
        if out:
            yield out
    if segment is not None:
        segment.lines = state.line - 1


def _in_pieces(chunks: Iterable[bytes], size: int) -> Iterator[bytes]:
    """The chunks, none empty, one longer than ``size`` given in pieces of ``size``.

    Every round slices what is pending after what it emitted: handed a parsed member of
    256 MiB as one chunk, the stream copied the rest of it once per round.
    """
    for chunk in chunks:
        if len(chunk) <= size:
            if chunk:
                yield chunk
            continue
        whole = memoryview(chunk)
        for start in range(0, len(chunk), size):
            yield bytes(whole[start : start + size])


class _State:
    def __init__(
        self, scan: Scan, replace: Replace, chunk_size: int, overlap: int, segment: Segment | None
    ) -> None:
        self.scan = scan
        self.replace = replace
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.pending = b""
        self.segment = segment
        self.context = segment.context if segment is not None else b""
        self.remaining = segment.stop if segment is not None else None
        """Input bytes left before the segment's stop (None: no stop)."""
        self.line = 1
        self.wanted = 0
        """After a round a rule held whole (:func:`~redactors.rules.holds_block`): how much
        text to gather before the next, whose view then takes all of it. Twice what was
        pending, so a block of any length up to :data:`MAX_PENDING` is scanned about twice,
        not once per chunk."""
        if overlap > BLOCK_MARGIN:
            raise ValueError(f"overlap over {BLOCK_MARGIN} bytes: a held block could lose rows")

    def stop_due(self) -> bool:
        """Whether the next round is the last one, which must end exactly at the stop.

        Rounds before it keep at least a chunk before the stop (see
        :meth:`round`), so the last round emits more than ``overlap`` bytes and
        leaves the same context a round of an unsplit stream would.
        """
        return self.remaining is not None and self.remaining <= STOP_WINDOW * self.chunk_size

    def stop_round(self, *, final: bool) -> bytes:
        """The last round of a segment: emit exactly up to the stop, or refuse."""
        segment, remaining = self.segment, self.remaining
        if segment is None or remaining is None:
            raise RuntimeError("stop_round without a segment")
        base = len(self.context)
        ahead = self.pending[: remaining + self.overlap]
        view = View(self.context + ahead, final=final and len(ahead) == len(self.pending))
        hits = self.scan(view)
        emit = base + remaining
        data = view.data
        if emit < len(data) and (
            emit > view.hold
            or _before_key_lines(data, base, emit) != emit
            or any(hit.start < emit < hit.end for hit in hits)
        ):
            raise SegmentMisaligned("a secret or a held value straddles the segment's stop")
        out = self._apply(data, hits, base, emit)
        segment.end_context = data[max(base, emit - self.overlap) : emit]
        segment.lines = self.line - 1
        self.pending = b""
        self.remaining = 0
        return out

    def round(self, *, final: bool) -> bytes | None:
        pending = self.pending
        upto = len(pending)
        if not final:
            newline = pending.rfind(b"\n", 0, len(pending) if self.wanted else self.chunk_size * 2)
            if newline >= self.chunk_size // 2:
                upto = newline + 1
            if self.remaining is not None:
                upto = min(upto, self.remaining - self.chunk_size)
        base = len(self.context)
        view = View(self.context + pending[:upto], final=final and upto == len(pending))
        hits = self.scan(view)
        data = view.data
        if view.final:
            emit = len(data)
        else:
            emit = self._boundary(view, hits, base)
            if emit <= base:
                if len(pending) <= MAX_PENDING:
                    self.wanted = min(2 * len(pending), MAX_PENDING + 1)
                    return None
                emit = len(data) - self.overlap  # a giant unbroken secret: give up holding it
        self.wanted = 0
        out = self._apply(data, hits, base, emit)
        self.context = data[max(base, emit - self.overlap) : emit]
        self.pending = pending[emit - base :]
        if self.remaining is not None:
            self.remaining -= emit - base
        return out

    def _boundary(self, view: View, hits: list[Hit], base: int) -> int:
        data = view.data
        target = len(data) - self.overlap
        newline = data.rfind(b"\n", base, target)
        emit = newline + 1 if newline >= base else target
        emit = min(emit, view.hold)
        emit = _before_key_lines(data, base, emit)
        for hit in reversed(hits):
            if hit.start < emit < hit.end:
                emit = data.rfind(b"\n", base, hit.start) + 1 or hit.start
                if emit <= base:
                    emit = hit.start
        return emit

    def _apply(self, data: bytes, hits: list[Hit], base: int, emit: int) -> bytes:
        pieces = []
        cursor = base
        line = self.line
        for hit in hits:
            if hit.end <= base:
                continue
            if hit.start >= emit:
                break
            for piece in line_pieces(hit, data, max(hit.start, base)):
                line += line_ends(data, cursor, piece.start)
                pieces.append(data[cursor : piece.start])
                pieces.append(self.replace(piece, data, piece.start, line))
                cursor = piece.end
        line += line_ends(data, cursor, emit)
        pieces.append(data[cursor:emit])
        self.line = line
        return b"".join(pieces)


def _before_key_lines(data: bytes, base: int, emit: int) -> int:
    """Move ``emit`` above trailing lines that look like private-key body lines."""
    for _ in range(300):
        if emit <= base:
            return emit
        start = data.rfind(b"\n", base, emit - 1) + 1
        if start <= base and data[base - 1 : base] != b"\n":
            return emit
        if not _KEY_LINE.fullmatch(data, start, emit - 1):
            return emit
        emit = start
    return emit
