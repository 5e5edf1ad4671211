"""Times as report text, always with a four-digit year.

``strftime``'s ``%Y`` is the C library's, and glibc writes the year without
padding: year 1 prints as ``1-01-01``. Year 1 is not an oddity in a bundle:
``0001-01-01T00:00:00Z`` is Go's zero time (and .NET's smallest date), what a
product writes for "never". Every message and renderer formats a time through
:func:`formatted` (or :func:`utc`), which puts the year in itself, so a date
always reads ``YYYY-MM-DD`` and sorts as text.

What such a time *means* is decided here too, because every layer meets it: the collector
reading a log's first and last line, a product's log parser, the analyzer's rules. A zero
time is no moment (:func:`is_zero_time`); :func:`bundler.analyze.facts.dated` is the
analyzer's reading of it.
"""

from __future__ import annotations

from datetime import UTC, datetime

ZERO_TIMES = frozenset(
    {
        datetime(1, 1, 1, tzinfo=UTC),  # Go's zero time.Time, .NET's DateTime.MinValue
        datetime(1970, 1, 1, tzinfo=UTC),  # a zero Unix timestamp
    }
)
"""Times a product writes for "never": an unset time serialized, not a moment on any clock."""

_ZERO_WALL_CLOCKS = frozenset(stamp.replace(tzinfo=None) for stamp in ZERO_TIMES)


def is_zero_time(stamp: datetime | None) -> bool:
    """True for a product's "never" written as a time (:data:`ZERO_TIMES`): Go's zero time
    ``0001-01-01T00:00:00Z`` is what a Go server writes for a heartbeat it never received.

    A time without an offset (a log line's local wall clock, read before it is placed in
    the host's timezone) is zero when it reads as one: ``1970-01-01 00:00:00`` written by a
    logger whose clock was never set is no moment in any timezone.
    """
    if stamp is None:
        return False
    if stamp.tzinfo is None:
        return stamp in _ZERO_WALL_CLOCKS
    return stamp in ZERO_TIMES


def formatted(at: datetime, fmt: str) -> str:
    """``at.strftime(fmt)``, with every ``%Y`` written as four digits."""
    return at.strftime(fmt.replace("%Y", f"{at.year:04d}"))


def utc(at: datetime) -> str:
    """``0001-01-01 00:00:00Z``: a UTC time as reports show it."""
    return formatted(at, "%Y-%m-%d %H:%M:%S") + "Z"


def day(at: datetime) -> str:
    """``0001-01-01``."""
    return formatted(at, "%Y-%m-%d")


__all__ = ["ZERO_TIMES", "day", "formatted", "is_zero_time", "utc"]
