"""Sizes as people write them (``20GiB``, ``100000``) and as reports show them (``1.5 MiB``).

One parser for every ``BUNDLER_MAX_*`` size a reader honours, so the archive's
limits (:mod:`bundler.archive.limits`) and the JSON cap (:mod:`bundler.source`),
which live on different layers, accept the same spellings and refuse the same
mistakes with the same one-line error.
"""

from __future__ import annotations

import re

from .errors import UsageError

_SIZE_RE = re.compile(r"^\s*(\d+)\s*([KMGT]i?B?|B)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(var: str, raw: str) -> int:
    """``raw`` (the value of environment variable ``var``) in bytes; ``UsageError`` otherwise.

    Units are binary whatever the spelling (``512M``, ``512MB`` and ``512MiB`` are one size):
    a limit is raised past a size a report showed in MiB, never a little short of it.
    """
    match = _SIZE_RE.match(raw)
    if not match:
        raise UsageError(
            f"{var} must be a positive size such as 20GiB or 100000 (got {raw.strip()[:40]!r})"
        )
    unit = (match[2] or "").upper().rstrip("B").rstrip("I")
    number = int(match[1]) * _UNITS[unit]
    if number <= 0:
        raise UsageError(f"{var} must be positive")
    return number


def human_size(size: int) -> str:
    """``1536`` -> ``1.5 KiB``: how a report shows a size next to the limit it broke."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover


def size_past(size: int) -> str:
    """The smallest whole MiB above ``size``, as a ``BUNDLER_MAX_*`` value (``301MiB``).

    What a report suggests to raise a limit to, so the member it names is read."""
    return f"{size // (1 << 20) + 1}MiB"
