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
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress
from operator import itemgetter, methodcaller, not_

from bundler.analyze.api import FIRST_KEPT, LATEST_KEPT

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


_ROUTINE_AT_STAMP = methodcaller("startswith", (*QUIET, *PROGRESS), STAMP_WIDTH)
_STAMP = itemgetter(slice(0, STAMP_WIDTH))


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


def classify(raw: bytes, worker: str | None) -> Key | None:
    """The (kind, worker) of one routine line; None for a quiet or any other line.

    The same decision as :func:`routine_lines`, one line at a time.
    """
    for marker, kind in PROGRESS.items():
        if raw.startswith(marker, STAMP_WIDTH):
            return (kind, worker)
    if raw.startswith(QUIET, STAMP_WIDTH) or CLAIM not in raw:
        return None
    name = raw.split(CLAIM, 1)[1].rstrip(b"\r").decode("utf-8", "replace")
    return ("claimed", name) if WORKER_NAME.fullmatch(name) else None


def kept_lines(
    raws: Sequence[bytes],
    worker: str | None,
    counts: Mapping[Key, int],
    routine: int,
    seen: Mapping[Key, int],
    *,
    latest: bool,
    first_kept: int = FIRST_KEPT,
    latest_kept: int = LATEST_KEPT,
) -> tuple[list[int], dict[Key, int]] | None:
    """The lines to parse (sorted) and the routine events left out, by (kind, worker).

    ``counts`` and ``routine`` are the block scanner's own counts for these lines; the
    first FIRST_KEPT events of each key (minus those ``seen`` earlier in the log) and, with
    ``latest``, the LATEST_KEPT last are found by walking in from either end, which is
    a few dozen lines, not every line. None when a line-level pass disagrees with the
    counts, or when the routine lines' timestamps go back (the last would not be the
    latest): :func:`routine_lines` then decides line by line.
    """
    n = len(raws)
    flags = list(map(_ROUTINE_AT_STAMP, raws))
    unflagged = list(compress(range(n), map(not_, flags)))
    claims = [i for i in unflagged if CLAIM in raws[i]]
    if len(flags) - len(unflagged) + len(claims) != routine:
        return None
    latest = latest and latest_kept > 0
    if latest:
        stamps = list(map(_STAMP, compress(raws, flags)))
        claimed = [raws[i][:STAMP_WIDTH] for i in claims]
        if stamps != sorted(stamps) or claimed != sorted(claimed):
            return None
    wanted: dict[Key, set[int]] = {}
    first = {k: min(c, first_kept - seen.get(k, 0)) for k, c in counts.items()}
    _walk(raws, worker, range(n), first, wanted)
    if latest:
        _walk(
            raws,
            worker,
            range(n - 1, -1, -1),
            {k: min(c, latest_kept) for k, c in counts.items()},
            wanted,
        )
    kept = set(unflagged).difference(claims).union(*wanted.values())
    left_out = {k: c - len(wanted.get(k, ())) for k, c in counts.items()}
    return sorted(kept), left_out


def _walk(
    raws: Sequence[bytes],
    worker: str | None,
    order: Iterable[int],
    need: dict[Key, int],
    wanted: dict[Key, set[int]],
) -> None:
    """Add to ``wanted`` the first lines in ``order`` of each key still in ``need``."""
    remaining = sum(n for n in need.values() if n > 0)
    for i in order:
        if remaining <= 0:
            return
        key = classify(raws[i], worker)
        if key is not None and need.get(key, 0) > 0:
            need[key] -= 1
            remaining -= 1
            wanted.setdefault(key, set()).add(i)
