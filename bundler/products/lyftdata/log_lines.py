"""One LyftData worker log line -> a timeline event: the grammar every copy is read with.

Line format (the Edge IQ build's, with LyftData's module prefix [S/I])::

    2026-01-10T11:53:08.422Z ERROR lyftdata_worker::auth > runtime authorization denied: ...

The host log, the ``lyftdata workers logs`` output and the API's copy (:mod:`.logs`) hold the
same lines, so they are read by this one grammar and their events compare as equals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from ...analyze.api import TimelineEvent
from ...analyze.facts import dated
from ...analyze.logsource import HOST_LOG, SOURCE, CopySpan
from .log_spans import TextSpans

LINE = re.compile(
    r"(?P<at>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\s+"
    r"(?P<level>TRACE|DEBUG|INFO|WARN|ERROR)\s+(?P<target>[A-Za-z0-9_:]+)\s+>\s+(?P<message>.*)$"
)
"""Searched, not anchored: in the journal the worker's own line follows journald's prefix."""

_NATIVE = re.compile(r"\b(?P<code>[a-z]+(?:_[a-z]+){2,})\b")

KINDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"database disk image is malformed|state .*corrupt", re.I), "state_corrupt"),
    (re.compile(r"authorization denied|lease renewal rejected|lease .*refused", re.I),
     "auth_rejected"),
    (re.compile(r"lease \S+ renewed", re.I), "lease_renewed"),
    (re.compile(r"heartbeat to server failed|cannot reach the server", re.I), "connection_lost"),
    (re.compile(r"starting job: \[(?P<job>[^\]]+)\]", re.I), "job_started"),
    (re.compile(r"lyftdata-worker \S+ starting", re.I), "started"),
)  # fmt: skip


def parse_line(text: str) -> tuple[datetime | None, str, str, str] | None:
    """A worker log line's time, level, target and message; None when it is not one.

    A line stamped with a zero time (Go's ``0001-01-01T00:00:00Z``, the Unix epoch) is a
    line without a time: Go's logger writes its zero ``time.Time`` for "never", and read
    as a moment it became the worker's first event, 2,000 years before the others.
    """
    match = LINE.search(text)
    if not match:
        return None
    at = dated(datetime.fromisoformat(match["at"].replace("Z", "+00:00")).astimezone(UTC))
    return at, match["level"], match["target"], match["message"]


def events_in(
    member: str,
    lines: Iterable[tuple[int, str]],
    worker: str | None,
    source: str = HOST_LOG,
    spans: list[CopySpan] | None = None,
) -> Iterator[TimelineEvent]:
    """The events of one copy of a worker's log, each naming that copy (``source``); with
    ``spans``, the time the copy covers is added to it once the lines are read."""
    covered = TextSpans(member, worker, source, spans) if spans is not None else None
    for number, text in lines:
        parsed = parse_line(text)
        if covered is not None:
            covered.line(number, text, parsed[0] if parsed else None)
        if parsed is None:
            continue
        at, level, target, message = parsed
        for pattern, kind in KINDS:
            found = pattern.search(message)
            if not found:
                continue
            detail: dict[str, str] = {"level": level, "target": target, SOURCE: source}
            native = _NATIVE.search(message.split(":", 1)[-1]) if kind == "auth_rejected" else None
            if native:
                detail["native_code"] = native["code"]
            yield TimelineEvent(
                kind=kind,
                member=member,
                line=number,
                text=text,
                at=at,
                worker=worker,
                execution=found.groupdict().get("job"),
                detail=detail,
            )
            break
    if covered is not None:
        covered.close()
