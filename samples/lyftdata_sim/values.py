"""Time and size expressions in scenario files: relative times keep ages right as tests run."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated

from pydantic import AfterValidator

_REL_TIME = re.compile(r"^(?P<sign>[+-])(?P<n>\d+(?:\.\d+)?)(?P<unit>s|m|h|d)$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_SIZE = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>B|KiB|MiB|GiB|TiB)?$")
_SIZE_UNIT = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def resolve_time(expr: str | None, now: datetime) -> datetime | None:
    """A time expression as an aware UTC datetime, relative to ``now``."""
    if expr is None:
        return None
    if expr == "now":
        return now
    match = _REL_TIME.match(expr)
    if match:
        seconds = float(match["n"]) * _UNIT_S[match["unit"]]
        return now + timedelta(seconds=seconds if match["sign"] == "+" else -seconds)
    parsed = datetime.fromisoformat(expr)
    if parsed.tzinfo is None:
        raise ValueError(f"time {expr!r} needs a UTC offset")
    return parsed.astimezone(UTC)


def parse_size(value: int | str | None) -> int | None:
    if value is None or isinstance(value, int):
        return value
    match = _SIZE.match(value.strip())
    if not match:
        raise ValueError(f"not a size: {value!r} (use bytes or e.g. '8GiB')")
    return int(float(match["n"]) * _SIZE_UNIT[match["unit"] or "B"])


def _check_time(value: str) -> str:
    """Validate at load time, so a bad time never surfaces as a failed request later."""
    if value != "now" and not _REL_TIME.match(value):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError as exc:
            raise ValueError(f"not a time expression: {value!r}") from exc
        if parsed.tzinfo is None:
            raise ValueError(f"time {value!r} needs a UTC offset (e.g. Z or +00:00)")
    return value


TimeExpr = Annotated[str, AfterValidator(_check_time)]
"""'now', '-412s', '+90d', or an ISO 8601 timestamp with offset."""
