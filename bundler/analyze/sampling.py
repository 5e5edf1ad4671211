"""Keep a bounded sample of a huge log's timeline, with exact counts.

A busy 1 GB worker log holds millions of routine events (an execution claimed,
completed, claimed ...). Keeping every one would make memory grow with the
bundle; rules only ever need the first few and the latest of each kind per
worker (what started it, what it looks like now) and how many there were. So
the engine streams the profile's events through :func:`sample`, keeping per
``(kind, worker)`` the first :data:`FIRST_KEPT` in log order and the
:data:`LATEST_KEPT` latest in the timeline's order (an undated event where the
timeline will place it, between the dated lines around it: never the latest of all
for want of a time; a line of a worker whose clock is proven off where the timeline
places it on the server's clock, :func:`~.worker_clock.placed`), and counting all of them
(:meth:`Timeline.count <bundler.analyze.api.Timeline.count>` stays exact).
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from schemas.evidence import ClockOffset

from .api import FIRST_KEPT, LATEST_KEPT, Timeline, TimelineEvent, TimelineStream
from .worker_clock import is_bounded, placed

Key = tuple[str, str | None]
Order = tuple[float, str, int]
"""Where an event stands in the timeline: its time (an undated event's anchor), member, line."""

LAST = float("inf")
"""The anchor of an undated event in a log with no dated line: the timeline puts it last."""


@dataclass(frozen=True)
class Sampled:
    timeline: Timeline
    seen: int
    kept: int
    routine_kept: tuple[int, int] | None = None
    """``(first, latest)`` of each routine kind the parser kept, when it said (a fleet's)."""


def sample(
    events: Iterable[TimelineEvent], clocks: Mapping[str, ClockOffset] | None = None
) -> Sampled:
    """A :class:`Timeline` of at most FIRST_KEPT + LATEST_KEPT events per (kind, worker).

    Events a :class:`~bundler.analyze.api.TimelineStream` only counted are added to the totals.
    ``clocks``: the logs stamped on a worker's clock that is off. Which of a key's events are
    the latest is judged where the timeline places them, on the server's clock: one key holds
    the server's lines about a worker and the worker's own (``unhealthy``, ``released``), and
    by their stamps a worker two hours ahead kept its own older lines as the latest and
    dropped the server's last ones.
    """
    totals: Counter[Key] = Counter()
    first: dict[Key, list[TimelineEvent]] = {}
    latest: dict[Key, _Latest] = {}
    placer = _Placer(latest, clocks or {})
    for event in events:
        key = (event.kind, event.worker)
        totals[key] += 1
        stamp = None if event.at is None else placer.dated(event.member, event.at)
        head = first.get(key)
        if head is None:
            first[key] = [event]
        elif len(head) < FIRST_KEPT:
            head.append(event)
        else:
            placer.place(key, event, stamp)
    placer.finish()
    if isinstance(events, TimelineStream):
        totals.update(events.counted)  # complete now that the events are exhausted
    kept = [e for head in first.values() for e in head]
    for kept_latest in latest.values():
        kept += kept_latest.events()
    del first, latest, placer  # before the timeline's index is built: the peak of an analysis
    seen = sum(totals.values())
    spans = events.spans if isinstance(events, TimelineStream) else []
    timeline = Timeline(
        kept,
        totals=dict(totals) if seen > len(kept) else {},
        spans=spans,
        clocks=clocks or {},
    )
    routine = events.routine_kept if isinstance(events, TimelineStream) else None
    return Sampled(timeline=timeline, seen=seen, kept=len(kept), routine_kept=routine)


class _Placer:
    """Hands each event past a key's first ones to that key's :class:`_Latest`, with the order
    the timeline will give it; each log's events arrive in line order, as parsers give them.

    A dated event's order is its time. An undated one (no time, or a zero time) is no later
    than anything: the timeline places it at the dated line before it in its log, else at
    the one after it, else last (:class:`~bundler.analyze.api.Timeline`). Counted as the
    latest of all, undated lines crowded out the latest dated ones: a log with many lines
    stamped ``0001-01-01`` lost its real last eviction, and the worker read as back. So an
    undated event takes the time of the last dated line of its log so far; before the first
    one it waits for it (or for the end of the stream: last). Of those waiting together only
    the LATEST_KEPT last lines of a key can be kept, so no more wait.
    """

    __slots__ = ("_clocks", "_last", "_latest", "_waiting")

    def __init__(self, latest: dict[Key, _Latest], clocks: Mapping[str, ClockOffset]) -> None:
        self._latest = latest
        self._clocks = {member: offset for member, offset in clocks.items() if is_bounded(offset)}
        """The logs whose lines the timeline places off their stamps (bounded both ways)."""
        self._last: dict[str, float] = {}
        """Per log member, the time of its last dated event so far."""
        self._waiting: dict[str, dict[Key, list[tuple[int, int, TimelineEvent]]]] = {}
        """Per log member, undated events before its first dated one: a heap per key."""

    _arrivals = itertools.count()

    def dated(self, member: str, at: datetime) -> float:
        """A dated event of ``member``: the undated ones waiting before it sort at its time
        (returned as a number: where the timeline places it, on the server's clock)."""
        offset = self._clocks.get(member) if self._clocks else None
        stamp = (at if offset is None else placed(at, offset)).timestamp()
        if self._waiting:
            waiting = self._waiting.pop(member, None)
            if waiting is not None:
                self._settle(member, stamp, waiting)
        self._last[member] = stamp
        return stamp

    def place(self, key: Key, event: TimelineEvent, stamp: float | None) -> None:
        """Hand ``event`` (dated at ``stamp``, or undated: None) to its key's latest, now or
        once its place is known."""
        if stamp is not None:
            as_stamped = event.member not in self._clocks
            self._add(key, event, (stamp, event.member, event.line), as_stamped)
            return
        anchor = self._last.get(event.member)
        if anchor is not None:
            self._add(key, event, (anchor, event.member, event.line))
            return
        heap = self._waiting.setdefault(event.member, {}).setdefault(key, [])
        item = (event.line, next(self._arrivals), event)
        if len(heap) < LATEST_KEPT:
            heapq.heappush(heap, item)
        else:
            heapq.heappushpop(heap, item)  # the earliest line of the key cannot be kept

    def finish(self) -> None:
        """Undated events of logs with no dated line after them: the timeline puts them last."""
        for member, waiting in self._waiting.items():
            self._settle(member, LAST, waiting)
        self._waiting.clear()

    def _settle(
        self, member: str, anchor: float, waiting: dict[Key, list[tuple[int, int, TimelineEvent]]]
    ) -> None:
        for key, heap in waiting.items():
            for line, _, event in sorted(heap, key=lambda item: item[:2]):
                self._add(key, event, (anchor, member, line))

    def _add(self, key: Key, event: TimelineEvent, order: Order, as_stamped: bool = False) -> None:
        kept = self._latest.get(key)
        if kept is None:
            kept = self._latest[key] = _Latest()
        kept.add(event, order, as_stamped)


class _Latest:
    """The LATEST_KEPT latest events of one key, in the timeline's order.

    Logs are written in time order, so nearly always each event is the latest yet: a
    bounded deque keeps them with one comparison each, an event placed at its stamp as itself
    (its order is its time, member and line) and only an undated one, or one placed on the
    server's clock off its stamp, with its order. The first event
    that goes back in time turns the rest into a heap of ``(order, arrival, event)`` (what
    a heap of every key used to cost: two tuples and a float per kept event, a tenth of a
    fleet's peak). Either way the same events are kept: the LATEST_KEPT greatest by
    (order, arrival).
    """

    __slots__ = ("_heap", "_last", "_recent")

    _arrivals = itertools.count()

    def __init__(self) -> None:
        self._recent: deque[TimelineEvent | tuple[Order, TimelineEvent]] = deque(maxlen=LATEST_KEPT)
        self._last: Order | None = None
        self._heap: list[tuple[Order, int, TimelineEvent]] | None = None

    def add(self, event: TimelineEvent, order: Order, as_stamped: bool) -> None:
        """``as_stamped``: ``order`` is the event's own stamp, member and line."""
        if self._heap is None:
            if self._last is None or order >= self._last:
                # drops the earliest once full
                self._recent.append(event if as_stamped else (order, event))
                self._last = order
                return
            ordered = map(_ordered, self._recent)  # in order already: a valid heap
            self._heap = [(o, next(self._arrivals), e) for o, e in ordered]
            self._recent.clear()
        item = (order, next(self._arrivals), event)
        if len(self._heap) < LATEST_KEPT:
            heapq.heappush(self._heap, item)
        else:
            heapq.heappushpop(self._heap, item)  # drops the earliest: the latest stay

    def events(self) -> list[TimelineEvent]:
        if self._heap is None:
            return [_ordered(item)[1] for item in self._recent]
        return [item[2] for item in self._heap]


def _ordered(item: TimelineEvent | tuple[Order, TimelineEvent]) -> tuple[Order, TimelineEvent]:
    """A deque item as ``(order, event)``: a bare event's order is its stamp, member, line."""
    if isinstance(item, tuple):
        return item
    assert item.at is not None
    return (item.at.timestamp(), item.member, item.line), item
