"""Which member names a bundle may hold: one rule set for the writer and the reader.

Member names are visible without the password and are used as paths by every
extractor, so a name must be a plain relative POSIX path. The writer refuses
to store a name the reader would refuse, so bundler never writes a bundle it
cannot open.
"""

from __future__ import annotations

import unicodedata

from ..printable import printable

MAX_NAME_LENGTH = 1024
"""Longer names are refused: no real member needs one, and some extractors choke."""


def member_name_problem(name: str) -> str | None:
    """Why ``name`` is not a safe member name, or None when it is.

    The reason is a short phrase meant for an error message; it never repeats
    the name's characters that are unsafe to print.
    """
    if not name:
        return "empty name"
    if len(name) > MAX_NAME_LENGTH:
        return f"name longer than {MAX_NAME_LENGTH} characters"
    if "\x00" in name:
        return "NUL character in name"
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in name):
        return "control character in name"
    if "\\" in name:
        return "backslash in name"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "absolute path"
    parts = name.split("/")
    if any(part == ".." for part in parts):
        return "'..' in path"
    if any(part in ("", ".") for part in parts[:-1]) or parts[-1] == ".":
        return "empty or '.' path component"
    return None


def printable_name(name: str, limit: int = 120) -> str:
    """A name made safe for a one-line message: control characters escaped, length capped."""
    shown = printable(name)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"
