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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from .rules import Hit, View

Scan = Callable[[View], list[Hit]]
Replace = Callable[[Hit, bytes, int, int], bytes]
"""(hit, text, start, line) -> replacement for ``text[start:hit.end]``; the callback also
learns the literal and records the hit."""

CHUNK = 1 << 20
OVERLAP = 16 << 10
MAX_PENDING = 32 << 20
_KEY_LINE = re.compile(rb"[ \t]*(?:\S+[ \t]+)*[A-Za-z0-9+/=]{40,80}\r?")


def redact_stream(
    chunks: Iterable[bytes],
    scan: Scan,
    replace: Replace,
    *,
    chunk_size: int = CHUNK,
    overlap: int = OVERLAP,
) -> Iterator[bytes]:
    state = _State(scan, replace, chunk_size, overlap)
    for chunk in chunks:
        if not chunk:
            continue
        state.pending += chunk
        while len(state.pending) >= chunk_size + overlap:
            out = state.round(final=False)
            if out is None:
                break
            yield out
    while state.pending:
        out = state.round(final=True)
        if out:
            yield out


class _State:
    def __init__(self, scan: Scan, replace: Replace, chunk_size: int, overlap: int) -> None:
        self.scan = scan
        self.replace = replace
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.pending = b""
        self.context = b""
        self.line = 1

    def round(self, *, final: bool) -> bytes | None:
        pending = self.pending
        upto = len(pending)
        if not final:
            newline = pending.rfind(b"\n", 0, self.chunk_size * 2)
            if newline >= self.chunk_size // 2:
                upto = newline + 1
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
                    return None
                emit = len(data) - self.overlap  # a giant unbroken secret: give up holding it
        out = self._apply(data, hits, base, emit)
        self.context = data[max(base, emit - self.overlap) : emit]
        self.pending = pending[emit - base :]
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
            start = max(hit.start, base)
            line += data.count(b"\n", cursor, start)
            pieces.append(data[cursor:start])
            pieces.append(self.replace(hit, data, start, line))
            line += data.count(b"\n", start, hit.end)
            cursor = hit.end
        line += data.count(b"\n", cursor, emit)
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
