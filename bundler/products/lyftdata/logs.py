"""LyftData worker log lines -> the shared timeline.

Read with one grammar (:mod:`.log_lines`) from the host logs the collector indexed
(``evidence/logs.json``), from ``lyftdata workers logs`` output captured on hosts with
the CLI, and from the worker logs the server returned (``GET /api/workers/{id}/logs``):
a bundle collected without SSH still has the worker's refusals, lease renewals and
connection losses. Each event names its copy (:mod:`bundler.analyze.logsource`), and a line
several copies hold is one event (:mod:`.log_copies`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC

from pydantic import ValidationError

from schemas.evidence import LogIndex

from ...analyze.api import EvidenceSet, TimelineEvent, TimelineStream
from ...analyze.logsource import API_LOG, HOST_LOG, CopySpan
from ...source import JsonTooLarge, MemberNotFound, Refused, iter_lines, read_json
from .log_copies import HeldCopies, as_one
from .log_lines import events_in
from .log_spans import json_span
from .raw.workers import WorkerLogs

CLI_LOGS_SUFFIX = "/lyftdata-workers-logs.txt"

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
    held = HeldCopies()
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
                yield as_one(event, held.take(event))
        except MemberNotFound:
            continue
    for group in list(held.groups.values()):
        yield as_one(group[0], group[1:])
