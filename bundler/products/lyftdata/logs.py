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

from ...analyze.api import EvidenceSet, TimelineEvent, TimelineStream
from ...analyze.facts import dated
from ...analyze.logsource import API_LOG, COPY, HOST_LOG, SOURCE, CopySpan, source_of
from ...source import JsonTooLarge, MemberNotFound, Refused, iter_lines, read_json
from .log_spans import TextSpans, json_span
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


CLI_LOG = "the `lyftdata workers logs` output captured on a host"

CLI_LOGS_MEMBER = re.compile(r"^hosts/(?P<alias>[^/]+)" + re.escape(CLI_LOGS_SUFFIX) + "$")
"""The plan's member for ``lyftdata workers logs {worker} --limit 200`` on host ``alias``."""


def cli_log_worker(evidence: EvidenceSet, member: str) -> str | None:
    """The worker whose ``lyftdata workers logs`` output ``member`` holds, or None.

    The command prints log lines only, no worker id; doctor runs it once per worker host,
    as ``lyftdata workers logs {worker}`` with ``{worker}`` the host's inventory ``worker``
    (``plan.py``, step ``cli-worker-logs``), into ``hosts/{alias}/...``. So the worker is
    that host's, which the manifest records (``target.hosts[].worker``, redacted as the
    API's ``worker_id`` is). Without a manifest, or a host with no worker, it stays unknown
    and no per-worker rule reads the copy.
    """
    named = CLI_LOGS_MEMBER.match(member)
    if named is None or evidence.manifest is None:
        return None
    hosts = [h for h in evidence.manifest.target.hosts if h.alias == named["alias"]]
    workers = {h.worker for h in hosts if h.worker}
    return workers.pop() if len(workers) == 1 else None


def _sources(evidence: EvidenceSet) -> list[tuple[str, str | None, str]]:
    """Every log read on a host: (member, worker, the copy's label)."""
    index = evidence.get(LogIndex)
    found = [(log.member, log.worker, HOST_LOG) for log in (index.logs if index else [])]
    listed = {member for member, _, _ in found}
    for name in evidence.source.names():
        if name.endswith(CLI_LOGS_SUFFIX) and name not in listed:
            found.append((name, cli_log_worker(evidence, name), CLI_LOG))
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


def api_log_events(
    evidence: EvidenceSet, spans: list[CopySpan] | None = None
) -> Iterator[TimelineEvent]:
    """Events in the worker logs the server returned, read as a host log line is.

    Each event cites its JSON line (``detail['pointer']``); ``line`` is its 1-based index.
    With ``spans``, the time each copy covers is added to it.
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
        times = [line.at for line in logs.lines]
        span = json_span(name, logs.worker_id, API_LOG, times, len(logs.lines))
        if spans is not None and span is not None:
            spans.append(span)
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


class _Held:
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


def _as_one(event: TimelineEvent, twins: list[TimelineEvent]) -> TimelineEvent:
    """``event`` carrying the same line's events in the other copies (:data:`COPY`)."""
    return replace(event, detail={**event.detail, COPY: tuple(twins)}) if twins else event


def parse_logs(evidence: EvidenceSet) -> TimelineStream:
    """Every worker log line as an event (:func:`events`), with the time each copy covers."""
    spans: list[CopySpan] = []
    return TimelineStream(events(evidence, spans), spans=spans)


def events(evidence: EvidenceSet, spans: list[CopySpan]) -> Iterator[TimelineEvent]:
    """Every worker log line as an event, whichever copy holds it: one per line.

    The small copies are read first and held: the API's (at most ``limit`` lines a worker)
    and the ``lyftdata workers logs`` output captured on hosts (the same ``--limit``). Each
    host log line then takes the held events of its line as its :data:`COPY`, and the held
    lines no host log holds follow, the API's event first. A bundle without SSH still has
    every kind of event, and one with every copy neither doubles a count nor hides what
    each copy said.
    """
    held = _Held()
    for event in api_log_events(evidence, spans):
        held.add(event)
    hosts: list[tuple[str, str | None, str]] = []
    for member, worker, source in _sources(evidence):
        if source != CLI_LOG:
            hosts.append((member, worker, source))
            continue
        try:
            lines = iter_lines(evidence.source, member)
            for event in events_in(member, lines, worker, source, spans):
                held.add(event)
        except MemberNotFound:
            continue
    for member, worker, source in hosts:
        try:
            lines = iter_lines(evidence.source, member)
            for event in events_in(member, lines, worker, source, spans):
                yield _as_one(event, held.take(event))
        except MemberNotFound:
            continue
    for group in list(held.groups.values()):
        yield _as_one(group[0], group[1:])
