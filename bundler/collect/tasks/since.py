"""``--since``: which part of a log is recent enough, found without reading all of it.

Logs are appended in time order, so the first record at or after the cut-off
can be found by bisection over byte offsets (:func:`find_since_offset`), with
a handful of small ranged reads even on a multi-gigabyte file. From there a
:class:`RecordGate` drops the few records still older than the cut-off
(continuation lines follow their record) and then lets everything through.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

from ...errors import UsageError
from .timestamps import leading_timestamp

BISECT_WINDOW = 64 * 1024
"""Bytes read per bisection probe; also where bisection stops narrowing."""

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(w|d|h|m|s)")
_UNITS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> timedelta:
    """``2h``, ``30m``, ``1h30m``, ``90s``, ``7d``, ``1w`` -> a timedelta (UsageError if not)."""
    value = text.strip().lower()
    parts = _DURATION.findall(value)
    if not parts or _DURATION.sub("", value).strip():
        raise UsageError(
            f"invalid duration {text!r}", hint="use e.g. 30m, 2h, 1h30m, 7d (units: w d h m s)"
        )
    return timedelta(seconds=sum(float(n) * _UNITS[u] for n, u in parts))


def parse_since(text: str, now: datetime) -> datetime:
    """A ``--since`` value: a duration back from ``now``, or an ISO 8601 time (UTC if naive)."""
    if re.match(r"^\d{4}-\d{2}-\d{2}", text.strip()):
        try:
            stamp = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise UsageError(f"invalid --since time {text!r}") from exc
        return stamp.replace(tzinfo=stamp.tzinfo or UTC).astimezone(UTC)
    return now - parse_duration(text)


class RecordGate:
    """Drops records older than ``since`` until the first record that is not; then keeps all."""

    def __init__(self, since: datetime, host_tz: timezone = UTC, now: datetime | None = None):
        self.since = since
        self.host_tz = host_tz
        self.now = now
        self.open = False

    def keep(self, line: bytes) -> bool:
        if self.open:
            return True
        stamp = leading_timestamp(line, self.host_tz, self.now)
        if stamp is not None and stamp >= self.since:
            self.open = True
        return self.open


def has_timestamps(sample: bytes, host_tz: timezone = UTC, now: datetime | None = None) -> bool:
    """Whether a log sample has lines with a recognizable leading timestamp."""
    return any(leading_timestamp(line, host_tz, now) for line in sample.splitlines()[:500])


ReadAt = Callable[[int, int], bytes]
"""``read_at(offset, length)`` -> up to ``length`` bytes of the file from ``offset``."""


def find_since_offset(
    read_at: ReadAt,
    size: int,
    since: datetime,
    host_tz: timezone = UTC,
    now: datetime | None = None,
    window: int = BISECT_WINDOW,
) -> int:
    """An offset at or before the first record stamped at or after ``since``.

    Returns a line start (or 0). The result may precede the answer by up to
    about one ``window``; the caller's :class:`RecordGate` drops the rest.
    """
    lo, hi = 0, size
    while hi - lo > window:
        mid = (lo + hi) // 2
        stamp = _first_stamp_after(read_at, mid, window, host_tz, now)
        if stamp is None or stamp >= since:
            hi = mid
        else:
            lo = mid
    return _line_start_at_or_after(read_at, lo, window) if lo else 0


def _first_stamp_after(
    read_at: ReadAt, offset: int, window: int, host_tz: timezone, now: datetime | None
) -> datetime | None:
    data = read_at(offset, window)
    lines = data.split(b"\n")[1:]  # the first piece is the tail of a line cut at `offset`
    for line in lines:
        stamp = leading_timestamp(line, host_tz, now)
        if stamp is not None:
            return stamp
    return None


def _line_start_at_or_after(read_at: ReadAt, offset: int, window: int) -> int:
    data = read_at(offset - 1, window)  # include the byte before: is offset a line start?
    newline = data.find(b"\n")
    return offset + newline if newline >= 0 else offset
