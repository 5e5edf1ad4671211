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

Log lines are stamped the same way: a worker's log is written on its own clock. The
timeline (:class:`~bundler.analyze.api.Timeline`, given each log's offset by
:func:`log_clocks`) reads each of its lines as :func:`on_server_bounds`: both ends with
both bounds, one end with one (the other open: a moment the bundle cannot bound), and
draws and orders it at :func:`placed`, the middle of its span, or at its stamp when only
one bound is known (placed nowhere, and said so: :func:`described`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from schemas.evidence import ClockOffset, LogIndex, WorkersEvidence

from ..timetext import utc

Span = tuple[datetime, datetime]
"""The earliest and latest moment, on the control plane's clock, a stamp may stand for."""
Bounds = tuple[datetime | None, datetime | None]
"""The same with an end the bundle does not bound left open (None)."""

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


def on_server_bounds(stamp: datetime, offset: ClockOffset | None) -> Bounds:
    """What ``stamp``, written on a clock ``offset`` off the server's, says of the moment on
    the server's clock: ``(stamp - at_most, stamp - at_least)``, an end left open (None)
    where its bound is unknown; the stamp itself without an offset."""
    if offset is None or (offset.at_least_s is None and offset.at_most_s is None):
        return stamp, stamp
    low = None if offset.at_most_s is None else stamp - timedelta(seconds=offset.at_most_s)
    high = None if offset.at_least_s is None else stamp - timedelta(seconds=offset.at_least_s)
    return low, high


def is_bounded(offset: ClockOffset | None) -> bool:
    """Whether ``offset`` is bounded both ways: its clock's stamps have a place on the server's."""
    return offset is not None and offset.at_least_s is not None and offset.at_most_s is not None


def placed(stamp: datetime, offset: ClockOffset | None) -> datetime:
    """Where a stamp is drawn and ordered on the server's clock: the middle of its span when
    the offset is bounded both ways; else the stamp as written (one bound places nothing)."""
    if not is_bounded(offset):
        return stamp
    low, high = on_server_clock(stamp, offset)
    return low + (high - low) / 2


def described(stamp: datetime, offset: ClockOffset | None, worker: str | None) -> str:
    """``stamp`` as a reader needs it: as written, and, stamped on a clock that is off, what
    it is on the server's clock (a span), or that it is on a clock off by an unknown amount."""
    if offset is None:
        return utc(stamp)
    whose = f"{worker}'s" if worker else "a worker's"
    if is_bounded(offset):
        low, high = on_server_clock(stamp, offset)
        return f"{utc(stamp)} on {whose} clock, {utc(low)} to {utc(high)} on the server's"
    return f"{utc(stamp)} on {whose} clock, which is off ({off_by(offset)}): not the server's time"


def off_by(offset: ClockOffset) -> str:
    """Which way a clock is off and by at least how much, as its bounds prove."""
    if offset.at_least_s is not None and offset.at_least_s > 0:
        return f"at least {offset.at_least_s:.0f} s ahead"
    if offset.at_most_s is not None and offset.at_most_s < 0:
        return f"at least {-offset.at_most_s:.0f} s behind"
    return "by an amount the bundle does not bound"


def log_clocks(workers: WorkersEvidence | None, logs: LogIndex | None) -> dict[str, ClockOffset]:
    """Log member -> the proven offset of the worker whose log it is (the log index names it).

    Only a worker's own log is on its clock; a log the index does not attribute is read as
    stamped. A worker listed twice carries one offset (the normalizer bounds it by name)."""
    if workers is None or logs is None:
        return {}
    offsets: dict[str, ClockOffset] = {}
    for status in workers.workers:
        if status.clock_offset is not None:
            offsets.setdefault(status.name, status.clock_offset)
    return {
        log.member: offsets[log.worker]
        for log in logs.logs
        if log.role == "worker" and log.worker in offsets
    }
