"""Each log scanned once per analysis: the normalizers' scan is handed to the timeline.

An analysis re-derives the evidence (the normalizers read the rare events of
every log) and then builds the timeline (the engine reads every log again):
on a 1,000-worker bundle that second decryption, inflate and scan of every
worker log was a third of the time. So the normalizers' scan keeps what the
timeline would (the same :class:`BlockScanner`, same member, worker and
timezone: the same events and counts) in a stash that belongs to the bundle's
member source, and :func:`take` hands each log's scan over once. A log the
stash does not hold, for another worker, timezone or routine sample size
(:func:`~bundler.analyze.api.routine_kept` of a different log count), is
simply scanned again.

The stash lives as long as the source object (a weak reference) and each scan
leaves it when taken: it holds what the timeline is about to hold anyway.
"""

from __future__ import annotations

import contextlib
import weakref
from collections import Counter
from datetime import tzinfo

from bundler.analyze.api import TimelineEvent
from bundler.source import MemberSource

from .scan import BlockScanner

Key = tuple[str, str | None, tzinfo, tuple[int, int]]
Scan = tuple[list[TimelineEvent], Counter[tuple[str, str | None]]]

_STASH: weakref.WeakKeyDictionary[object, dict[Key, Scan]] = weakref.WeakKeyDictionary()


def root(source: object) -> object:
    """What a source shows the members of, under any view: a source may name it as
    ``origin`` (re-derived evidence laid over a bundle; a builder's spool)."""
    while (origin := getattr(source, "origin", None)) is not None and origin is not source:
        source = origin
    return source


def scan(
    source: MemberSource, member: str, worker: str | None, tz: tzinfo, kept: tuple[int, int]
) -> Scan:
    """Scan one log (as the timeline would) and stash the result for :func:`take`."""
    scanner = BlockScanner(member, worker=worker, tz=tz, kept=kept)
    events = list(scanner.scan(source.iter_chunks(member)))
    found: Scan = (events, scanner.counted)
    with contextlib.suppress(TypeError):  # a source that cannot be weakly referenced
        _STASH.setdefault(root(source), {})[(member, worker, tz, kept)] = found
    return found


def take(
    source: MemberSource, member: str, worker: str | None, tz: tzinfo, kept: tuple[int, int]
) -> Scan | None:
    """The stashed scan of this log, once; None when it was not scanned this way."""
    try:
        stash = _STASH.get(root(source))
    except TypeError:
        return None
    return stash.pop((member, worker, tz, kept), None) if stash else None
