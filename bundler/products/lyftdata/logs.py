"""LyftData worker log lines -> the shared timeline.

Line format (the Edge IQ build's, with LyftData's module prefix [S/I])::

    2026-01-10T11:53:08.422Z ERROR lyftdata_worker::auth > runtime authorization denied: ...

Read with one grammar from the host logs the collector indexed
(``evidence/logs.json``), from ``lyftdata workers logs`` output captured on hosts with
the CLI, and from the worker logs the server returned (``GET /api/workers/{id}/logs``):
a bundle collected without SSH still has the worker's refusals, lease renewals and
connection losses. Each event names its copy (:mod:`bundler.analyze.logsource`).
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
from ...analyze.logsource import API_LOG, COPY, HOST_LOG, SOURCE
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
    member: str, lines: Iterable[tuple[int, str]], worker: str | None, source: str = HOST_LOG
) -> Iterator[TimelineEvent]:
    """The events of one copy of a worker's log, each naming that copy (``source``)."""
    for number, text in lines:
        parsed = parse_line(text)
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


CLI_LOG = "the `lyftdata workers logs` output captured on a host"


def _sources(evidence: EvidenceSet) -> list[tuple[str, str | None, str]]:
    """Every log read on a host: (member, worker, the copy's label)."""
    index = evidence.get(LogIndex)
    found = [(log.member, log.worker, HOST_LOG) for log in (index.logs if index else [])]
    listed = {member for member, _, _ in found}
    for name in evidence.source.names():
        if name.endswith(CLI_LOGS_SUFFIX) and name not in listed:
            found.append((name, None, CLI_LOG))
    return found


API_LOGS_PREFIX = "raw/http/worker-logs/"
"""Where the plan keeps ``GET /api/workers/{id}/logs`` (one JSON member per worker)."""

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


def api_log_events(evidence: EvidenceSet) -> Iterator[TimelineEvent]:
    """Events in the worker logs the server returned, read as a host log line is.

    Each event cites its JSON line (``detail['pointer']``); ``line`` is its 1-based index.
    """
    for name in sorted(evidence.source.names()):
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
            numbered = [(index + 1, text + line.message)]
            for event in events_in(name, numbered, logs.worker_id, API_LOG):
                yield replace(event, detail={**event.detail, "pointer": f"/lines/{index}"})


def parse_logs(evidence: EvidenceSet) -> Iterator[TimelineEvent]:
    """Every worker log line as an event, whichever copy holds it: one per line.

    The API's copy is read first (at most ``limit`` lines a worker, so it is small); a host
    log line that is also in it keeps the API's event as its :data:`COPY`, and the API's
    lines no host log holds follow. A bundle without SSH still has every kind of event,
    and one with both neither doubles a count nor hides what each copy said.
    """
    from_api: dict[LineKey, TimelineEvent] = {}
    unkeyed: list[TimelineEvent] = []
    for event in api_log_events(evidence):
        key = _key(event)
        if key is None or key in from_api:
            unkeyed.append(event)
        else:
            from_api[key] = event
    for member, worker, source in _sources(evidence):
        try:
            for event in events_in(member, iter_lines(evidence.source, member), worker, source):
                key = _key(event) if from_api else None
                twin = from_api.pop(key, None) if key is not None else None
                yield event if twin is None else replace(event, detail={**event.detail, COPY: twin})
        except MemberNotFound:
            continue
    yield from from_api.values()
    yield from unkeyed
