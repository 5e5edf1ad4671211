"""What time each copy of a LyftData worker's log covers, read while its lines are parsed.

The analyzer says two copies disagree about a corrupt-state or connection-lost line only
where the copy lacking it covers its time (:func:`bundler.analyze.logsource.disagreement`):
the API's copy is the worker's latest ``limit`` lines, a host log may begin at ``--since``
or lose its middle to the collector's cap. So every dated line counts, not only the events
kept, and a cap's marker line ends one span and starts the next.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from ...analyze.facts import dated
from ...analyze.logsource import CopySpan
from ...source import TRUNCATION_MARKER


class TextSpans:
    """The spans of one text copy (a host log, the CLI's output), fed line by line."""

    def __init__(self, member: str, worker: str | None, source: str, into: list[CopySpan]):
        self._copy = (worker, source, member)
        self._into = into
        self._start: datetime | None = None
        self._end: datetime | None = None
        self._first = self._last = 0

    def line(self, number: int, text: str, at: datetime | None) -> None:
        """One line read: its time (None when it has none) extends the open span; the cap's
        marker closes it."""
        if text.startswith(TRUNCATION_MARKER):
            self.close()
            return
        if at is None:
            return
        if self._start is None or self._end is None:
            self._start, self._end, self._first = at, at, number
        else:
            self._start, self._end = min(self._start, at), max(self._end, at)
        self._last = number

    def close(self) -> None:
        """End the open span (at the cap's marker, or the copy's end)."""
        if self._start is not None and self._end is not None:
            worker, source, member = self._copy
            span = CopySpan(worker, source, member, self._start, self._end, self._first, self._last)
            self._into.append(span)
        self._start = self._end = None


def json_span(
    member: str, worker: str | None, source: str, times: Iterable[datetime | None], count: int
) -> CopySpan | None:
    """The one span of a JSON copy's ``/lines`` (the API's): its earliest to latest dated line."""
    known = [at for at in map(dated, times) if at is not None]
    if not known:
        return None
    return CopySpan(worker, source, member, min(known), max(known), 1, count, pointer="/lines")
