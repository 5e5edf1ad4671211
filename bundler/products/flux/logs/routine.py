"""Which lines of a block are routine, by (kind, worker), found with C-level passes.

The block scanner counts most blocks without splitting them. The blocks it
must look into — the first of a log, where the first :data:`FIRST_KEPT` events
of each (kind, worker) are kept, and the tail, where the latest
:data:`LATEST_KEPT` are — used to be parsed line by line whole: on a fleet of
256 KiB worker logs that was every line of every log, twice (normalize and
analyze). Here one ``startswith`` per marker over the block's lines (a
``map`` in C) finds where the routine lines sit, so only the lines worth an
event reach the parser and the rest are counted.

A line is routine when its marker sits right after the 19-byte timestamp
(progress and quiet lines) or, for claims, anywhere in it (with a well-formed
worker name after it); *quiet* lines (the auth-disabled warning, a worker's
``Checkpointing execution`` line) are lines the parser would drop anyway:
they are neither parsed nor counted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import compress
from operator import methodcaller

from .formats import NAME, WORKER_INDEX
from .parser import SPAM_LOGGER

Key = tuple[str, str | None]

STAMP_WIDTH = len("2026-11-29 17:05:27")
SPAM = b" - " + SPAM_LOGGER.encode()
CHECKPOINT = b" - flux.worker - INFO - Checkpointing execution "
"""A worker writes one per execution checkpoint: as frequent as its progress lines."""
QUIET = (SPAM, CHECKPOINT)
"""Lines the parser turns into nothing (no format starts with their first word)."""
assert "Checkpointing" not in WORKER_INDEX, "a format now reads Checkpointing lines"
CLAIM = b" claimed by worker "
PHASES = ("Scheduled", "Claimed", "COMPLETED")
PROGRESS = {
    f" - flux.worker - INFO - Execution {phase} - ".encode(): f"execution_{phase.lower()}"
    for phase in PHASES
}
"""Marker of a worker's progress line -> its event kind (what the parser would call it)."""
WORKER_NAME = re.compile(NAME)
_HAS_CLAIM = methodcaller("__contains__", CLAIM)
_AT_STAMP = {
    marker: methodcaller("startswith", marker, STAMP_WIDTH) for marker in (*QUIET, *PROGRESS)
}


def routine_lines(
    raws: Sequence[bytes], worker: str | None
) -> tuple[dict[Key, list[int]], set[int]]:
    """Positions of the routine lines of ``raws`` by (kind, worker), and of the quiet ones."""
    n = len(raws)
    found: dict[Key, list[int]] = {}
    taken: set[int] = set()
    quiet: set[int] = set()
    for marker in QUIET:
        quiet.update(compress(range(n), map(_AT_STAMP[marker], raws)))
    taken |= quiet
    for marker, kind in PROGRESS.items():
        at = list(compress(range(n), map(_AT_STAMP[marker], raws)))
        if at:
            found[(kind, worker)] = at
            taken.update(at)
    for i in compress(range(n), map(_HAS_CLAIM, raws)):
        if i in taken:
            continue
        name = raws[i].split(CLAIM, 1)[1].rstrip(b"\r").decode("utf-8", "replace")
        if WORKER_NAME.fullmatch(name):  # an odd name: the parser reads the line
            found.setdefault(("claimed", name), []).append(i)
    return found, quiet


def in_time_order(raws: Sequence[bytes], positions: list[int]) -> bool:
    """Whether these lines' timestamps never go back (then the last are also the latest)."""
    stamps = [raws[i][:STAMP_WIDTH] for i in positions]
    return stamps == sorted(stamps)
