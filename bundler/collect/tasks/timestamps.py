"""Recognize the timestamp a log line starts with, in the formats fleets actually write.

``--since`` applies to records, not lines: a line with a recognizable leading
timestamp starts a record, and the lines after it without one (tracebacks,
httpx's ``For more information check: ...``) belong to that record.

Recognized, optionally inside ``[...]``:

* ISO 8601 / RFC 3339 and Python logging: ``2025-03-01T12:00:00.123Z``,
  ``2025-03-01 12:00:00,123``, ``2025-03-01T12:00:00+0100`` (journald short-iso);
* ``2025/03/01 12:00:00`` (Go's log package);
* syslog: ``Mar  1 12:00:00`` (no year: the year that puts it closest before now).

A timestamp without an offset is in the *host's* local time (Flux writes
``asctime``), so callers pass the host's UTC offset, read with its clock.

A line stamped with a zero time (``0001-01-01 00:00:00``, Go's zero time, or the Unix
epoch) reads as a line without a timestamp: a logger whose clock was unset wrote "never",
not a moment, and taken as one it became a log's first line, 2,000 years before the rest,
and a record older than any ``--since`` cut-off. The line itself is kept like any other.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from ...timetext import is_zero_time

_ISO = re.compile(
    rb"^\[?(?P<y>\d{4})[-/](?P<mo>\d{2})[-/](?P<d>\d{2})[T ](?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})"
    rb"(?:[.,](?P<frac>\d{1,9}))?"
    rb"(?:\s?(?P<tz>Z|[+-]\d{2}:?\d{2}))?"
)
_SYSLOG = re.compile(
    rb"^\[?(?P<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}(?P<d>\d{1,2}) "
    rb"(?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})"
)
_MONTHS = {
    m.encode(): i
    for i, m in enumerate(
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], 1
    )
}


def parse_offset(text: str) -> timezone | None:
    """``+0100`` / ``-05:30`` / ``Z`` (as printed by ``date +%z``) -> a fixed timezone."""
    value = text.strip()
    if value in ("Z", "z"):
        return UTC
    match = re.fullmatch(r"([+-])(\d{2}):?(\d{2})", value)
    if not match:
        return None
    sign = -1 if match[1] == "-" else 1
    return timezone(sign * timedelta(hours=int(match[2]), minutes=int(match[3])))


def leading_timestamp(
    line: bytes, host_tz: timezone = UTC, now: datetime | None = None
) -> datetime | None:
    """The UTC time a log line starts with, or None if it does not start with one (or starts
    with a zero time, which is no moment: :func:`~bundler.timetext.is_zero_time`)."""
    match = _ISO.match(line)
    if match:
        return _from_iso(match, host_tz)
    match = _SYSLOG.match(line)
    if match:
        return _from_syslog(match, host_tz, now)
    return None


def _from_iso(match: re.Match[bytes], host_tz: timezone) -> datetime | None:
    tz = host_tz
    if match["tz"]:
        tz = parse_offset(match["tz"].decode()) or host_tz
    frac = (match["frac"] or b"0").decode()
    try:
        wall = datetime(
            int(match["y"]),
            int(match["mo"]),
            int(match["d"]),
            int(match["h"]),
            int(match["mi"]),
            int(match["s"]),
            int(frac[:6].ljust(6, "0")),
        )
        stamp = wall.replace(tzinfo=tz).astimezone(UTC)
    except (ValueError, OverflowError):  # OverflowError: year 1 east of UTC is before year 1
        return None
    return None if is_zero_time(wall) or is_zero_time(stamp) else stamp


def _from_syslog(
    match: re.Match[bytes], host_tz: timezone, now: datetime | None
) -> datetime | None:
    local_now = (now or datetime.now(UTC)).astimezone(host_tz)
    try:
        stamp = datetime(
            local_now.year,
            _MONTHS[match["mon"]],
            int(match["d"]),
            int(match["h"]),
            int(match["mi"]),
            int(match["s"]),
            tzinfo=host_tz,
        )
    except ValueError:
        return None
    if stamp > local_now + timedelta(days=1):  # December's lines read in January
        try:
            stamp = stamp.replace(year=stamp.year - 1)
        except ValueError:  # 29 February
            return None
    return stamp.astimezone(UTC)
