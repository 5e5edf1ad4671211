"""LyftData worker log lines -> the shared timeline.

Line format (the Edge IQ build's, with LyftData's module prefix [S/I])::

    2026-01-10T11:53:08.422Z ERROR lyftdata_worker::auth > runtime authorization denied: ...

Read from the host logs the collector indexed (``evidence/logs.json``), from
``lyftdata workers logs`` output captured on hosts with the CLI, and (for
corrupt state, which may be reported nowhere else) from the worker logs the
server returned (``GET /api/workers/{id}/logs``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime

from pydantic import ValidationError

from schemas.evidence import LogIndex

from ...analyze.api import EvidenceSet, TimelineEvent
from ...analyze.facts import dated
from ...source import JsonTooLarge, MemberNotFound, Refused, iter_lines, read_json
from .raw.workers import WorkerLogs

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

CLI_LOGS_SUFFIX = "/lyftdata-workers-logs.txt"


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
    member: str, lines: Iterable[tuple[int, str]], worker: str | None
) -> Iterator[TimelineEvent]:
    for number, text in lines:
        parsed = parse_line(text)
        if parsed is None:
            continue
        at, level, target, message = parsed
        for pattern, kind in KINDS:
            found = pattern.search(message)
            if not found:
                continue
            detail: dict[str, str] = {"level": level, "target": target}
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


def _sources(evidence: EvidenceSet) -> list[tuple[str, str | None]]:
    index = evidence.get(LogIndex)
    found = [(log.member, log.worker) for log in (index.logs if index else [])]
    listed = {member for member, _ in found}
    for name in evidence.source.names():
        if name.endswith(CLI_LOGS_SUFFIX) and name not in listed:
            found.append((name, None))
    return found


API_LOG_KINDS = frozenset({"state_corrupt"})
"""Kinds read from the API's copy of the worker log: those no other source may show (the
host log, when collected, already gives every kind)."""
API_LOGS_PREFIX = "raw/http/worker-logs/"
"""Where the plan keeps ``GET /api/workers/{id}/logs`` (one JSON member per worker)."""


def api_log_events(evidence: EvidenceSet) -> Iterator[TimelineEvent]:
    """Events in the worker logs the server returned: a worker's only log when no SSH exists.

    Each event cites its JSON line (``detail['pointer']``); ``line`` is its 1-based index.
    """
    for name in evidence.source.names():
        if not (name.startswith(API_LOGS_PREFIX) and name.endswith(".json")):
            continue
        try:
            logs = WorkerLogs.model_validate(read_json(evidence.source, name))
        except JsonTooLarge as exc:  # whole but unread: a gap to name, not a log without events
            evidence.refused[name] = Refused(name, exc.size, exc.limit)
            continue
        except (MemberNotFound, ValueError, ValidationError):
            continue
        for index, line in enumerate(logs.lines):
            if line.at is None:
                continue
            # isoformat, not strftime: glibc's %Y writes year 1 as "1", which no line matches
            at = line.at.astimezone(UTC).isoformat(timespec="milliseconds")
            stamp = at.removesuffix("+00:00") + "Z"
            text = f"{stamp} {line.level or 'INFO'} {line.target or 'lyftdata_worker'} > "
            for event in events_in(name, [(index + 1, text + line.message)], logs.worker_id):
                if event.kind in API_LOG_KINDS:
                    yield replace(event, detail={**event.detail, "pointer": f"/lines/{index}"})


def parse_logs(evidence: EvidenceSet) -> Iterator[TimelineEvent]:
    for member, worker in _sources(evidence):
        try:
            yield from events_in(member, iter_lines(evidence.source, member), worker)
        except MemberNotFound:
            continue
    yield from api_log_events(evidence)
