"""Keep a bounded sample of a huge log's timeline, with exact counts.

A busy 1 GB worker log holds millions of routine events (an execution claimed,
completed, claimed ...). Keeping every one would make memory grow with the
bundle; rules only ever need the first few and the latest of each kind per
worker (what started it, what it looks like now) and how many there were. So
the engine streams the profile's events through :func:`sample`, keeping per
``(kind, worker)`` the first :data:`FIRST_KEPT` in log order and the
:data:`LATEST_KEPT` latest in time, and counting all of them
(:meth:`Timeline.count <bundler.analyze.api.Timeline.count>` stays exact).
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass

from .api import FIRST_KEPT, LATEST_KEPT, Timeline, TimelineEvent, TimelineStream
from .api import _event_order as event_order  # the timeline's own order

Key = tuple[str, str | None]


@dataclass(frozen=True)
class Sampled:
    timeline: Timeline
    seen: int
    kept: int
    routine_kept: tuple[int, int] | None = None
    """``(first, latest)`` of each routine kind the parser kept, when it said (a fleet's)."""


def sample(events: Iterable[TimelineEvent]) -> Sampled:
    """A :class:`Timeline` of at most FIRST_KEPT + LATEST_KEPT events per (kind, worker).

    Events a :class:`~bundler.analyze.api.TimelineStream` only counted are added to the totals.
    """
    totals: Counter[Key] = Counter()
    first: dict[Key, list[TimelineEvent]] = {}
    latest: dict[Key, _Latest] = {}
    for event in events:
        key = (event.kind, event.worker)
        totals[key] += 1
        head = first.get(key)
        if head is None:
            first[key] = [event]
        elif len(head) < FIRST_KEPT:
            head.append(event)
        else:
            kept_latest = latest.get(key)
            if kept_latest is None:
                kept_latest = latest[key] = _Latest()
            kept_latest.add(event)
    if isinstance(events, TimelineStream):
        totals.update(events.counted)  # complete now that the events are exhausted
    kept = [e for head in first.values() for e in head]
    for kept_latest in latest.values():
        kept += kept_latest.events()
    del first, latest  # before the timeline's index is built: the peak of an analysis
    seen = sum(totals.values())
    timeline = Timeline(kept, totals=dict(totals) if seen > len(kept) else {})
    routine = events.routine_kept if isinstance(events, TimelineStream) else None
    return Sampled(timeline=timeline, seen=seen, kept=len(kept), routine_kept=routine)


class _Latest:
    """The LATEST_KEPT latest events of one key, in time.

    Logs are written in time order, so nearly always each event is the latest yet: a
    bounded deque keeps them with one comparison each. The first event that goes back in
    time turns the rest into a heap of ``(order, arrival, event)`` (what a heap of every
    key used to cost: two tuples and a float per kept event, a tenth of a fleet's peak).
    Either way the same events are kept: the LATEST_KEPT greatest by (order, arrival).
    """

    __slots__ = ("_heap", "_last", "_recent")

    _arrivals = itertools.count()

    def __init__(self) -> None:
        self._recent: deque[TimelineEvent] = deque(maxlen=LATEST_KEPT)
        self._last: tuple[int, float, str, int] | None = None
        self._heap: list[tuple[tuple[int, float, str, int], int, TimelineEvent]] | None = None

    def add(self, event: TimelineEvent) -> None:
        order = event_order(event)
        if self._heap is None:
            if self._last is None or order >= self._last:
                self._recent.append(event)  # drops the earliest once full
                self._last = order
                return
            self._heap = [(event_order(e), next(self._arrivals), e) for e in self._recent]
            self._recent.clear()
        item = (order, next(self._arrivals), event)
        if len(self._heap) < LATEST_KEPT:
            heapq.heappush(self._heap, item)
        else:
            heapq.heappushpop(self._heap, item)  # drops the earliest: the latest stay

    def events(self) -> list[TimelineEvent]:
        if self._heap is None:
            return list(self._recent)
        return [item[2] for item in self._heap]
