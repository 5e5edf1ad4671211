"""Every Flux log line bundler understands, as data (flux-core 0.87.5, flux-observed §5).

A Flux record is ``YYYY-MM-DD HH:MM:SS - <logger> - <LEVEL> - <message>``.
Formats are grouped by the message's first word, so a line is compared with
the two or three formats that could match instead of all of them; each
format's ``literal`` is a plain substring checked before its regex runs.

Named groups become event fields: ``worker`` and ``execution`` are lifted
onto the event, everything else goes to ``detail`` (numbers converted).
A new Flux release that rewords a line makes the live tests fail (every
expected kind must be recognized), never the parser silently guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NAME = r"(?P<worker>[\w.@-]+)"
EXEC = r"(?P<execution>[\w-]+)"


@dataclass(frozen=True)
class LineFormat:
    kind: str
    first_word: str
    literal: str
    pattern: re.Pattern[str]
    continues: bool = False
    """The record may end on a continuation line (httpx errors carry a second line)."""


def _fmt(kind: str, literal: str, regex: str, *, continues: bool = False) -> LineFormat:
    first_word = re.match(r"\^([A-Za-z]+)", regex)
    assert first_word is not None, regex
    return LineFormat(kind, first_word[1], literal, re.compile(regex, re.DOTALL), continues)


SERVER_FORMATS: tuple[LineFormat, ...] = (
    _fmt(
        "stale",
        "missed heartbeat, marked STALE",
        rf"^Worker {NAME} missed heartbeat, marked STALE \(grace period: (?P<grace_s>[\d.]+)s\)",
    ),
    _fmt(
        "evicted",
        "evicted (stale for",
        rf"^Worker {NAME} evicted \(stale for >(?P<grace_s>[\d.]+)s\)",
    ),
    _fmt(
        "unclaimed",
        "Unclaimed execution",
        rf"^Unclaimed execution {EXEC} from evicted worker {NAME}",
    ),
    _fmt(
        "sse_closed_by_reaper",
        "evicted by reaper, closing SSE",
        rf"^Worker {NAME} evicted by reaper, closing SSE",
    ),
    _fmt(
        "disconnected",
        "disconnected (remaining:",
        rf"^Worker {NAME} disconnected \(remaining: (?P<remaining>\d+)\)",
    ),
    _fmt("recovered", "recovered from stale state", rf"^Worker {NAME} recovered from stale state"),
    _fmt("connected", "Worker connected:", rf"^Worker connected: {NAME}"),
    # At DEBUG only (FLUX_LOG_LEVEL=DEBUG): one line per heartbeat the server heard. The
    # only dated heartbeat a bundle holds when the database is not a SQLite file.
    _fmt("pong", "Pong received from worker", rf"^Pong received from worker {NAME}$"),
    _fmt(
        "registered", "Worker registered successfully:", rf"^Worker registered successfully: {NAME}"
    ),
    # POST /workers/register answered 403: neither the bootstrap token nor a join token
    # matched (the worker's log shows only the 403).
    _fmt(
        "token_invalid",
        "Invalid registration token for worker:",
        rf"^Invalid registration token for worker: {NAME}",
    ),
    _fmt(
        "sqlite_multi_worker",
        "registered as an additional worker on a SQLite",
        r"^Worker '(?P<worker>[^']+)' registered as an additional worker on a SQLite",
    ),
    _fmt(
        "unhealthy",
        "reports unhealthy (event-loop starvation)",
        rf"^Worker {NAME} reports unhealthy \(event-loop starvation\)",
    ),
    _fmt("healthy", "reports healthy again", rf"^Worker {NAME} reports healthy again"),
    _fmt("paused", "reports paused", rf"^Worker {NAME} reports paused"),
    _fmt("resumed", "resumed; dispatching", rf"^Worker {NAME} resumed; dispatching"),
    _fmt(
        "stale_claim",
        "Stale claim for execution",
        rf"^Stale claim for execution {EXEC}: request carries "
        r"(?:generation (?P<generation>\d+)|no generation) but the row is at (?P<row>\d+)",
    ),
    _fmt(
        "superseded_dispatch",
        "Refused superseded dispatch frame",
        rf"^Refused superseded dispatch frame from worker {NAME}: Stale claim for execution "
        rf"{EXEC}",
    ),
    _fmt(
        "released",
        "released execution",
        rf"^Worker {NAME} released execution {EXEC} \(state now (?P<state>\w+)\)",
    ),
    _fmt(
        "released_reconnecting",
        "unclaimed execution(s) assigned to reconnecting worker",
        rf"^Released (?P<count>\d+) unclaimed execution\(s\) assigned to reconnecting worker "
        rf"{NAME}",
    ),
    _fmt("claimed", "claimed by worker", rf"^Execution {EXEC} claimed by worker {NAME}"),
    _fmt(
        "park_failed",
        "failed at dispatch:",
        rf"^Execution {EXEC} failed at dispatch: (?P<reason>.*)",
    ),
    _fmt(
        "park_ttl_expired",
        "Park TTL expired",
        r"^Park TTL expired for (?P<count>\d+) unclaimed execution\(s\): (?P<ids>.*)",
    ),
    _fmt(
        "cancel_orphaned",
        "cancellation had no live delivery target",
        rf"^Execution {EXEC} cancellation had no live delivery target",
    ),
    _fmt(
        "cancel_orphans_resolved",
        "orphaned cancellation",
        r"^Resolved (?P<count>\d+) orphaned cancellation\(s\): (?P<ids>.*)",
    ),
    _fmt(
        "reaper_started",
        "Heartbeat reaper started",
        r"^Heartbeat reaper started \(interval=(?P<interval_s>[\d.]+)s, "
        r"timeout=(?P<timeout_s>[\d.]+)s\)",
    ),
    _fmt("server_stopping", "Heartbeat reaper stopped", r"^Heartbeat reaper stopped"),
    _fmt("server_started", "Flux server started successfully", r"^Flux server started"),
    _fmt(
        "pruned",
        "Pruned offline worker",
        rf"^Pruned offline worker {NAME} \(exceeded (?P<ttl_s>[\d.]+)s TTL\)",
    ),
    _fmt("auth_disabled", "Authentication is DISABLED", r"^Authentication is DISABLED"),
    # SQLAlchemy names the driver's own error: (psycopg.OperationalError) connection failed:
    # ..., (sqlite3.OperationalError) unable to open database file. Flux logs one for each
    # request, scheduler cycle and worker stream that could not reach its database.
    _fmt(
        "database_error",
        "OperationalError) ",
        r"^Error (?P<doing>[^:\n]+): \((?P<exc_class>[\w.]+OperationalError)\) "
        r"(?P<message>[^\n]*)",
    ),
)

WORKER_FORMATS: tuple[LineFormat, ...] = (
    # The httpx message may span two lines, so the record is matched once complete;
    # the second format catches a record cut before "Reconnecting in" (end of a log).
    _fmt(
        "connection_lost",
        "Connection lost (",
        r"^Connection lost \((?P<exc_class>[\w.]+): (?P<message>.*)\)\. "
        r"Reconnecting in (?P<delay_s>[\d.]+)s",
        continues=True,
    ),
    _fmt(
        "connection_lost",
        "Connection lost (",
        r"^Connection lost \((?P<exc_class>[\w.]+): (?P<message>.*)",
        continues=True,
    ),
    _fmt("sse_error", "Error in SSE connection:", r"^Error in SSE connection: (?P<message>.*)"),
    _fmt("sse_closed", "SSE connection closed", r"^SSE connection closed, reconnecting"),
    _fmt(
        "reconnecting", "Reconnecting with existing session", r"^Reconnecting with existing session"
    ),
    _fmt(
        "unhealthy",
        "Event loop starved",
        r"^Event loop starved \(lag (?P<lag_s>[\d.]+)s >= (?P<threshold_s>[\d.]+)s for "
        r"(?P<probes>\d+) probes\)",
    ),
    _fmt("healthy", "Event loop recovered", r"^Event loop recovered"),
    _fmt(
        "released",
        "releasing execution",
        rf"^Unhealthy \(event-loop lag\); releasing execution {EXEC} for re-dispatch",
    ),
    _fmt(
        "stale_claim",
        "Error during checkpoint: Stale claim",
        rf"^Error during checkpoint: Stale claim for execution {EXEC}",
    ),
    _fmt(
        "stale_claim_abort",
        "was reassigned (stale claim)",
        rf"^Execution {EXEC} was reassigned \(stale claim\); aborting the local copy",
    ),
    _fmt("release_fenced", "fenced (stale claim)", rf"^Release of {EXEC} fenced \(stale claim\)"),
    _fmt("session_rejected", "Session token rejected", r"^Session token rejected mid-operation"),
    _fmt(
        "checkpoint_retry",
        " failed (",
        rf"^Checkpoint for execution {EXEC} failed \((?P<exc_class>[\w.]+): (?P<message>.*)",
        continues=True,
    ),
    _fmt(
        "terminal_checkpoint_given_up",
        "not delivered within",
        rf"^Terminal checkpoint for execution {EXEC} \((?P<workflow>[^,]+), "
        r"state=(?P<state>\w+)\) not delivered within (?P<deadline_s>[\d.]+)s; giving up",
    ),
    _fmt(
        "execution_progress",
        "Execution ",
        rf"^Execution (?P<phase>[A-Za-z_]+) - (?P<workflow>\S+) v(?P<version>\d+) - {EXEC}$",
    ),
    _fmt("paused", "Worker paused", r"^Worker paused"),
    _fmt("resumed", "Worker resumed", r"^Worker resumed"),
    _fmt("sigterm", "Worker received SIGTERM", r"^Worker received SIGTERM"),
    _fmt("shutdown", "Worker shutting down", r"^Worker shutting down"),
    _fmt("starting", "Worker starting up", r"^Worker starting up"),
    _fmt(
        "registering", "Registering worker", r"^Registering worker '(?P<worker>[^']+)' with server"
    ),
    _fmt(
        "connection_established",
        "Connection established successfully",
        r"^Connection established successfully",
    ),
    _fmt(
        "control_socket",
        "Worker control socket listening at",
        r"^Worker control socket listening at (?P<path>\S+)",
    ),
    _fmt(
        # flux-core's worker.py: the socket is best-effort, the worker carries on without it
        "control_socket_unavailable",
        "Worker control socket unavailable",
        r"^Worker control socket unavailable \((?P<error>.*)\); pause/resume via signals only",
    ),
    _fmt(
        "runner_died",
        "Worker subprocess for execution",
        rf"^Worker subprocess for execution {EXEC} exited with code (?P<code>-?\d+)",
    ),
    _fmt(
        "claim_refused",
        "Claim for",
        rf"^Claim for {EXEC} returned (?P<code>\d+) \(already claimed or superseded\)",
    ),
)

NUMERIC_FIELDS = frozenset(
    {
        "grace_s",
        "remaining",
        "generation",
        "row",
        "count",
        "interval_s",
        "timeout_s",
        "ttl_s",
        "lag_s",
        "threshold_s",
        "probes",
        "delay_s",
        "deadline_s",
        "version",
        "code",
    }
)


def by_first_word(formats: tuple[LineFormat, ...]) -> dict[str, tuple[LineFormat, ...]]:
    index: dict[str, list[LineFormat]] = {}
    for fmt in formats:
        index.setdefault(fmt.first_word, []).append(fmt)
    return {word: tuple(group) for word, group in index.items()}


SERVER_INDEX = by_first_word(SERVER_FORMATS)
WORKER_INDEX = by_first_word(WORKER_FORMATS)

EXPECTED_KINDS: frozenset[str] = frozenset(f.kind for f in SERVER_FORMATS + WORKER_FORMATS)
