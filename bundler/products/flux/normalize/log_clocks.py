"""A worker's clock bounded by its registration: its own log lines around the server's line.

A worker that ran nothing stamps no run, but its registration is logged on both sides
(flux-core 0.87.5, ``worker.py`` and ``api/worker_routes.py``, checked against a worker run
90 min behind under libfaketime). The worker logs ``Registering worker 'NAME' with
server...`` before it sends ``POST /workers/register``; the server logs ``Worker
registered successfully: NAME`` while it handles that request; the worker then logs
``OK``, opens its event stream and logs ``Connection established successfully`` once the
server has answered. So, on one true clock, the worker's registering line comes before
the server's line and its connection line after it:

* offset >= registering - registered - 1 s;
* offset <= connection established - registered + 1 s.

Flux logs whole seconds (a line stamped ``…:02`` was written in ``[:02, :03)``), hence the
second either side. Only the worker's latest registration is paired, with the server's
latest line about it: both logs run to the moment of collection, so the last of each is
the same registration even where either log's head was cut off. A registration still
under way or failed (its ``Registering`` line with no connection after it) leaves the
pairing unsure, and no bound is drawn; nor when the worker's log is not attributed to it
(the inventory names the worker each log belongs to), nor when either host's UTC offset
was not recorded (Flux logs local time without one: read as UTC, a time zone would pass
for a skew).
"""

from __future__ import annotations

from datetime import timedelta

from bundler.analyze.api import TimelineEvent
from schemas.evidence import ClockOffset, Source

from .records import FluxRecords

LOG_RESOLUTION = timedelta(seconds=1)
"""Flux stamps its log lines to the whole second."""


def _source(event: TimelineEvent) -> Source:
    return Source(method="log", member=event.member, line_start=event.line, line_end=event.line)


def _latest_session(events: list[TimelineEvent]) -> tuple[TimelineEvent, TimelineEvent] | None:
    """The worker's latest registration and the connection that followed it, from its own
    log (in log order); None when that registration did not reach a connection."""
    last: TimelineEvent | None = None
    established: TimelineEvent | None = None
    for event in sorted(events, key=lambda e: (e.member, e.line)):
        if event.kind == "registering":
            last, established = event, None
        elif event.kind == "connection_established" and last is not None and established is None:
            established = event
    if last is None or established is None or last.member != established.member:
        return None
    return last, established


def registration_clock(flux: FluxRecords, worker: str) -> ClockOffset | None:
    """``worker``'s clock against the server's, bounded by its latest registration."""
    own = [
        e
        for e in flux.events_of("registering", "connection_established", worker=worker)
        if e.at is not None
    ]
    session = _latest_session(own)
    server = [(e.at, e.line, e) for e in flux.events_of("registered", worker=worker) if e.at]
    if session is None or not server:
        return None
    registering, established = session
    at, _, registered = max(server, key=lambda found: found[:2])
    if not {registering.member, registered.member} <= flux.logs_in_known_offset:
        return None  # a host's offset unknown: its local times may be hours off, not its clock
    assert registering.at is not None
    assert established.at is not None
    least = registering.at - at - LOG_RESOLUTION
    most = established.at - at + LOG_RESOLUTION
    if least > most:  # the lines cannot be one registration: no bound
        return None
    return ClockOffset(
        at_least_s=least.total_seconds(),
        at_most_s=most.total_seconds(),
        at_least_source=_source(registering),
        at_most_source=_source(established),
        at_least_against=_source(registered),
        at_most_against=_source(registered),
    )


def tightest(runs: ClockOffset | None, logs: ClockOffset | None) -> ClockOffset | None:
    """The narrower of each bound from the runs and from the registration, with its sources."""
    if runs is None or logs is None:
        return runs or logs
    merged = runs.model_copy()
    if logs.at_least_s is not None and (
        merged.at_least_s is None or logs.at_least_s > merged.at_least_s
    ):
        merged.at_least_s = logs.at_least_s
        merged.at_least_source, merged.at_least_against = (
            logs.at_least_source,
            logs.at_least_against,
        )
    if logs.at_most_s is not None and (
        merged.at_most_s is None or logs.at_most_s < merged.at_most_s
    ):
        merged.at_most_s = logs.at_most_s
        merged.at_most_source, merged.at_most_against = logs.at_most_source, logs.at_most_against
    return merged
