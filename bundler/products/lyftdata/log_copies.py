"""One line held by several copies of a worker's log is one event, citing every copy.

The API's copy and the ``lyftdata workers logs`` output are small (at most ``--limit``
lines a worker) and are held; each host log line then takes the held events of its line
(:mod:`.logs`). Two events are one line when worker, kind, time to the millisecond, level,
target and message all match; an undated line proves nothing and stays alone.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC

from ...analyze.api import TimelineEvent
from ...analyze.logsource import COPY, source_of
from .log_lines import parse_line

LineKey = tuple[str | None, str, str, str, str, str]
"""(worker, kind, time to the millisecond, level, target, message): one line in either copy."""


def _key(event: TimelineEvent) -> LineKey | None:
    """What makes two events one line in two copies; None for an undated line (no proof)."""
    parsed = parse_line(event.text)
    if event.at is None or parsed is None:
        return None
    stamp = event.at.astimezone(UTC).isoformat(timespec="milliseconds")
    _, level, target, message = parsed
    return event.worker, event.kind, stamp, level, target, message.strip()


class HeldCopies:
    """The small copies' events (the API's, the CLI's: at most ``limit`` lines a worker each),
    grouped by line: a group holds one event per copy, so a line two copies hold is one group
    and a line one copy holds twice is two."""

    def __init__(self) -> None:
        self.groups: dict[int, list[TimelineEvent]] = {}
        """By ``id``, in the order first read: a host log line takes its group in O(1)."""
        self._open: dict[LineKey, list[list[TimelineEvent]]] = {}

    def add(self, event: TimelineEvent) -> None:
        key = _key(event)
        if key is None:  # undated: no proof it is another copy's line
            alone = [event]
            self.groups[id(alone)] = alone
            return
        same = self._open.setdefault(key, [])
        group = next((g for g in same if source_of(event) not in map(source_of, g)), None)
        if group is None:
            group = []
            same.append(group)
            self.groups[id(group)] = group
        group.append(event)

    def take(self, event: TimelineEvent) -> list[TimelineEvent]:
        """The group of ``event``'s line that lacks ``event``'s copy, removed; [] when none."""
        key = _key(event) if self._open else None
        same = self._open.get(key, []) if key is not None else []
        group = next((g for g in same if source_of(event) not in map(source_of, g)), None)
        if group is None:
            return []
        same.remove(group)
        del self.groups[id(group)]
        return group


def as_one(event: TimelineEvent, twins: list[TimelineEvent]) -> TimelineEvent:
    """``event`` carrying the same line's events in the other copies (:data:`COPY`)."""
    return replace(event, detail={**event.detail, COPY: tuple(twins)}) if twins else event
