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
from collections import Counter
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


def sample(events: Iterable[TimelineEvent]) -> Sampled:
    """A :class:`Timeline` of at most FIRST_KEPT + LATEST_KEPT events per (kind, worker).

    Events a :class:`~bundler.analyze.api.TimelineStream` only counted are added to the totals.
    """
    totals: Counter[Key] = Counter()
    first: dict[Key, list[TimelineEvent]] = {}
    latest: dict[Key, list[tuple[tuple[int, float, str, int], int, TimelineEvent]]] = {}
    tiebreak = itertools.count()
    for event in events:
        key = (event.kind, event.worker)
        totals[key] += 1
        head = first.setdefault(key, [])
        if len(head) < FIRST_KEPT:
            head.append(event)
            continue
        heap = latest.setdefault(key, [])
        item = (event_order(event), next(tiebreak), event)
        if len(heap) < LATEST_KEPT:
            heapq.heappush(heap, item)
        else:
            heapq.heappushpop(heap, item)  # drops the earliest: the latest LATEST_KEPT stay
    if isinstance(events, TimelineStream):
        totals.update(events.counted)  # complete now that the events are exhausted
    kept = [e for head in first.values() for e in head]
    kept += [item[2] for heap in latest.values() for item in heap]
    seen = sum(totals.values())
    timeline = Timeline(kept, totals=dict(totals) if seen > len(kept) else {})
    return Sampled(timeline=timeline, seen=seen, kept=len(kept))
