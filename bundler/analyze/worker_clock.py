"""A time a worker stamped, read on the control plane's clock.

A worker whose clock is off stamps its runs' start and end hours away from the server's
claim and from the collector's read (Flux never compares clocks). Read as stamped, a run
of a worker ahead ends after the bundle was collected and sorts after runs that really
ended later: its outcome proved nothing and it hid the true last run. When the bundle
bounds the worker's offset both ways (:class:`~schemas.evidence.ClockOffset`: the offset
lies between ``at_least_s`` and ``at_most_s``), the moment it stamped is, on the server's
clock, somewhere between ``stamp - at_most_s`` and ``stamp - at_least_s``: a span whose
width is the doubt. Comparisons then ask whether spans overlap, never which stamp is larger.

A worker with no proven offset (the bounds hold zero, or none were read) is read as
stamped, as before; so is one bounded one way only, which places its times nowhere on the
server's clock (the rules' "dated after collection" doubt still speaks for it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from schemas.evidence import ClockOffset

Span = tuple[datetime, datetime]
"""The earliest and latest moment, on the control plane's clock, a stamp may stand for."""

T = TypeVar("T")


def on_server_clock(stamp: datetime, offset: ClockOffset | None) -> Span:
    """``stamp``, written on a clock ``offset`` off the server's, as a span of server time."""
    if offset is None or offset.at_least_s is None or offset.at_most_s is None:
        return stamp, stamp
    return (
        stamp - timedelta(seconds=offset.at_most_s),
        stamp - timedelta(seconds=offset.at_least_s),
    )


def may_end_last(items: Sequence[T], span: Callable[[T], Span | None]) -> list[T]:
    """Every item that may have ended last: its span reaches the latest earliest-end of all.

    With spans that are single moments this is "every item at the latest time" (items that
    ended at one instant are all kept). Items without a span are left out (undated: the
    callers judge those on their own). In the order given.
    """
    spans = [(item, found) for item in items if (found := span(item)) is not None]
    if not spans:
        return []
    floor = max(start for _, (start, _) in spans)
    return [item for item, (_, end) in spans if end >= floor]


def is_moment(span: Span) -> bool:
    """Whether the span is one moment: a stamp read as it is."""
    return span[0] == span[1]
