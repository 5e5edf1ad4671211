"""Times as report text, always with a four-digit year.

``strftime``'s ``%Y`` is the C library's, and glibc writes the year without
padding: year 1 prints as ``1-01-01``. Year 1 is not an oddity in a bundle:
``0001-01-01T00:00:00Z`` is Go's zero time (and .NET's smallest date), what a
product writes for "never". Every message and renderer formats a time through
:func:`formatted` (or :func:`utc`), which puts the year in itself, so a date
always reads ``YYYY-MM-DD`` and sorts as text.
"""

from __future__ import annotations

from datetime import datetime


def formatted(at: datetime, fmt: str) -> str:
    """``at.strftime(fmt)``, with every ``%Y`` written as four digits."""
    return at.strftime(fmt.replace("%Y", f"{at.year:04d}"))


def utc(at: datetime) -> str:
    """``0001-01-01 00:00:00Z``: a UTC time as reports show it."""
    return formatted(at, "%Y-%m-%d %H:%M:%S") + "Z"


def day(at: datetime) -> str:
    """``0001-01-01``."""
    return formatted(at, "%Y-%m-%d")


__all__ = ["day", "formatted", "utc"]
