"""Eviction history of one worker, read from the server log.

The raw heartbeat timestamp and the eviction reason are not in Flux's API:
only the server log says a worker was ``marked STALE``, ``evicted (stale for
>Ns)``, which executions were ``Unclaimed`` from it, and when it came back
(``Worker connected`` or ``Worker registered successfully``). A cycle is one
STALE -> evicted -> back sequence; the same worker cycling again and again is
an eviction loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bundler.analyze.api import Timeline, TimelineEvent

CYCLE_KINDS = ("stale", "evicted", "unclaimed", "connected", "registered", "recovered")
LOOP_CYCLES = 2
"""Evictions followed by a return, for the same worker, that make a loop."""


@dataclass
class Cycle:
    stale: TimelineEvent | None = None
    evicted: TimelineEvent | None = None
    unclaimed: list[TimelineEvent] = field(default_factory=list)
    back: TimelineEvent | None = None
    """``connected``/``registered`` after the STALE line or the eviction, or ``recovered``."""

    @property
    def lines(self) -> list[TimelineEvent]:
        found = [self.stale, self.evicted, *self.unclaimed, self.back]
        return [e for e in found if e is not None]


def eviction_cycles(timeline: Timeline, worker: str) -> list[Cycle]:
    """Every STALE episode of ``worker``, in order (the last may still be open)."""
    cycles: list[Cycle] = []
    current: Cycle | None = None
    for event in timeline.of_kind(*CYCLE_KINDS, worker=worker):
        if event.detail.get("side") != "server":
            continue
        if event.kind == "stale":
            current = Cycle(stale=event)
            cycles.append(current)
        elif event.kind == "evicted":
            if current is None or current.evicted is not None:
                current = Cycle()
                cycles.append(current)
            current.evicted = event
        elif event.kind == "unclaimed" and current is not None and current.evicted is not None:
            current.unclaimed.append(event)
        elif event.kind == "recovered" and current is not None and current.evicted is None:
            current.back = event
            current = None
        elif event.kind in ("connected", "registered") and current is not None:
            # back after the eviction, or before it: a worker cut off and healed within the
            # grace period reconnects (the server had closed its stream), and flux-core
            # 0.87.5 then logs no "recovered" line and no eviction
            current.back = current.back or event
            current = None
    return cycles


def evictions(cycles: list[Cycle]) -> list[Cycle]:
    return [c for c in cycles if c.evicted is not None]


def returned_evictions(cycles: list[Cycle]) -> list[Cycle]:
    return [c for c in cycles if c.evicted is not None and c.back is not None]


def still_evicted(cycles: list[Cycle]) -> Cycle | None:
    """The last eviction, if the worker has not come back since."""
    evicted = evictions(cycles)
    return evicted[-1] if evicted and evicted[-1].back is None else None
