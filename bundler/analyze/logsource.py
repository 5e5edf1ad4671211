"""Which copy of a worker's log a timeline event was read from, and the same line's twins.

A product may hold one worker log in several places: the file or journal read over SSH on
the worker host, the lines the control plane returns through its API, and its own CLI's
output captured on a host. A parser reads them with one grammar and keeps one event per
line; where several copies hold the line, the event it keeps carries the others' events
(:data:`COPY`), so a rule can say what each copy last said and where they disagree, and
counts are not doubled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from schemas import Citation

from ..timetext import utc
from .api import Timeline, TimelineEvent, cite_json, cite_lines

SOURCE = "source"
"""``TimelineEvent.detail`` key: the label of the copy the event was read from."""
COPY = "copy"
"""``TimelineEvent.detail`` key: the same line's events in the other copies that hold it (a
tuple of events)."""

HOST_LOG = "the worker host's log"
API_LOG = "the worker log the control plane's API returned"
UNNAMED = "the worker's log"
"""The label of an event whose parser names no copy (a product with one source)."""


def source_of(event: TimelineEvent) -> str:
    """The label of the copy ``event`` was read from."""
    return str(event.detail.get(SOURCE) or UNNAMED)


def copies(event: TimelineEvent) -> list[TimelineEvent]:
    """``event`` and the same line's event in each other copy that holds it."""
    twins = event.detail.get(COPY, ())
    return [event, *(t for t in twins if isinstance(t, TimelineEvent))]


def named(events: Sequence[TimelineEvent]) -> str:
    """The copies ``events`` were read from, as a sentence names them: "A, B and C"."""
    labels = list(dict.fromkeys(source_of(event) for event in events))
    return ", ".join(labels[:-1]) + " and " + labels[-1] if len(labels) > 1 else labels[0]


@dataclass(frozen=True, slots=True)
class CopySpan:
    """A stretch of time one copy of a worker's log covers without a gap: from its first
    dated line to its last (a log the collector cut short is two spans, head and tail).

    A line one copy holds and another lacks says the copies disagree only where the other
    covers that time: the API's copy holds a worker's latest lines only, so an older host
    line it lacks is no news.
    """

    worker: str | None
    source: str
    """The copy's label (:data:`SOURCE`)."""
    member: str
    start: datetime
    end: datetime
    first: int
    """The span's first line (1-based; in a JSON member, its index in ``pointer`` plus 1)."""
    last: int
    pointer: str | None = None
    """For a JSON member: the array holding the lines (e.g. ``/lines``)."""

    def covers(self, at: datetime) -> bool:
        return self.start <= at <= self.end

    def citation(self) -> Citation:
        """The span itself: its lines, or its JSON array, with the times it covers."""
        covered = f"covers {utc(self.start)} to {utc(self.end)}"
        if self.pointer is not None:
            return cite_json(self.member, self.pointer, covered)
        return cite_lines(self.member, self.first, self.last, covered)


CITED_PER_COPY = 3
"""Lines one copy lacks, cited (the latest): the sentence gives their number and times."""

KIND_WORDS = {"state_corrupt": "corrupt-state", "connection_lost": "connection-lost"}
"""How a sentence names an event kind (other kinds: the kind, spaced)."""


def _kind(event: TimelineEvent) -> str:
    return KIND_WORDS.get(event.kind, event.kind.replace("_", " "))


def lacking(
    timeline: Timeline, events: Sequence[TimelineEvent], worker: str
) -> list[tuple[TimelineEvent, CopySpan]]:
    """Each dated event of ``events`` with each copy of ``worker``'s log that covers its
    time but does not hold its line. An undated line has no time to be covered."""
    spans = timeline.spans_of(worker)
    found = []
    for event in events:
        if event.at is None:
            continue
        held = {source_of(copy) for copy in copies(event)}
        found += [(event, s) for s in spans if s.source not in held and s.covers(event.at)]
    return found


def disagreement(
    timeline: Timeline, events: Sequence[TimelineEvent], worker: str
) -> tuple[str, list[Citation]]:
    """A sentence saying which copies hold lines of ``events`` that another copy covering
    their time lacks, and both copies' citations; empty when every copy agrees.

    Neither copy is preferred: the finding still rests on the line one copy holds, and says
    that another, covering the same time, does not (a copy cut, fetched earlier, or a
    worker that logged to one place only).
    """
    grouped: dict[tuple[str, str, CopySpan], list[TimelineEvent]] = {}
    for event, span in lacking(timeline, events, worker):
        key = (named(copies(event)), _kind(event), span)
        grouped.setdefault(key, []).append(event)
    if not grouped:
        return "", []
    parts, cited = [], []
    for (holders, kind, span), held in grouped.items():
        times = sorted({utc(e.at) for e in held if e.at is not None})
        at = times[0] if len(times) == 1 else f"{times[0]} to {times[-1]}"
        lines = "a line" if len(held) == 1 else f"{len(held)} lines"
        parts.append(
            f"{holders} holds {lines} {kind} ({at}) that {span.source} lacks, though it "
            f"covers {utc(span.start)} to {utc(span.end)}"
        )
        for event in held[-CITED_PER_COPY:]:
            cited += [copy.citation() for copy in copies(event)]
        cited.append(span.citation())
    sentence = f" The copies of its log disagree: {'; '.join(parts)}."
    return sentence, [c for i, c in enumerate(cited) if c not in cited[:i]]
