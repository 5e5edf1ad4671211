"""The Flux log parser on every line format of flux-core 0.87.5 (flux-observed §5)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bundler.analyze.api import EvidenceSet
from bundler.products.flux.logs import EXPECTED_KINDS, LogParser, parse_logs
from bundler.source import MemorySource
from schemas.evidence import LogIndex, LogSource

EXEC = "c8168984dfa746108e9766a6a9c03c87"
STAMP = "2026-11-29 17:07:11"
SERVER_LINES = [
    ("flux.server", "WARNING", "Worker w1 missed heartbeat, marked STALE (grace period: 6s)",
     "stale", "w1", None, {"grace_s": 6}),
    ("flux.server", "WARNING", "Worker w1 evicted (stale for >6s)", "evicted", "w1", None,
     {"grace_s": 6}),
    ("flux.server", "INFO", f"Unclaimed execution {EXEC} from evicted worker w1", "unclaimed",
     "w1", EXEC, {}),
    ("flux.api.worker_routes", "INFO", "Worker w1 evicted by reaper, closing SSE",
     "sse_closed_by_reaper", "w1", None, {}),
    ("flux.api.worker_routes", "INFO", "Worker w1 disconnected (remaining: 1)", "disconnected",
     "w1", None, {"remaining": 1}),
    ("flux.server", "INFO", "Worker w1 recovered from stale state", "recovered", "w1", None, {}),
    ("flux.api.worker_routes", "INFO", "Worker connected: w1", "connected", "w1", None, {}),
    # FLUX_LOG_LEVEL=DEBUG only: one per heartbeat the server heard (seen in the lab)
    ("flux.api.worker_routes", "DEBUG", "Pong received from worker w1", "pong", "w1", None, {}),
    ("flux.api.worker_routes", "INFO", "Worker registered successfully: w1", "registered", "w1",
     None, {}),
    ("flux.api.worker_routes", "WARNING", "Invalid registration token for worker: w4",
     "token_invalid", "w4", None, {}),
    ("flux.api.worker_routes", "WARNING", "Worker 'w2' registered as an additional worker on a "
     "SQLite database. SQLite is supported for single-node mode only", "sqlite_multi_worker",
     "w2", None, {}),
    ("flux.api.worker_routes", "WARNING", "Worker w1 reports unhealthy (event-loop starvation); "
     "excluding it from dispatch until it recovers", "unhealthy", "w1", None, {}),
    ("flux.api.worker_routes", "INFO", "Worker w1 reports healthy again; resuming dispatch",
     "healthy", "w1", None, {}),
    ("flux.api.worker_routes", "INFO", "Worker w2 reports paused; excluding it from dispatch "
     "until it resumes", "paused", "w2", None, {}),
    ("flux.api.worker_routes", "INFO", "Worker w2 resumed; dispatching to it again", "resumed",
     "w2", None, {}),
    ("flux.api.worker_routes", "WARNING", f"Stale claim for execution {EXEC}: request carries "
     "generation 1 but the row is at 2; the execution was reassigned", "stale_claim", None, EXEC,
     {"generation": 1, "row": 2}),
    ("flux.api.worker_routes", "WARNING", f"Stale claim for execution {EXEC}: request carries no "
     "generation but the row is at 3; the execution was reassigned", "stale_claim", None, EXEC,
     {"row": 3}),
    ("flux.api.worker_routes", "INFO", f"Refused superseded dispatch frame from worker w1: Stale "
     f"claim for execution {EXEC}: request carries generation 2", "superseded_dispatch", "w1",
     EXEC, {}),
    ("flux.api.worker_routes", "WARNING", f"Worker w1 released execution {EXEC} (state now "
     "CREATED); re-dispatching", "released", "w1", EXEC, {"state": "CREATED"}),
    ("flux.api.worker_routes", "INFO", f"Execution {EXEC} claimed by worker w2", "claimed", "w2",
     EXEC, {}),
    ("flux.context_managers", "WARNING", f"Execution {EXEC} failed at dispatch: No eligible worker "
     "claimed this execution before its park deadline (2026-11-29 17:01:51.905140); "
     "affinity={'zone': 'mars'}.", "park_failed", None, EXEC, {}),
    ("flux.scheduler_loop", "WARNING", f"Park TTL expired for 1 unclaimed execution(s): {EXEC}",
     "park_ttl_expired", None, None, {"count": 1}),
    ("flux.context_managers", "WARNING", f"Execution {EXEC} cancellation had no live delivery "
     "target (no worker); resolved by the scheduler sweep", "cancel_orphaned", None, EXEC, {}),
    ("flux.scheduler_loop", "WARNING", f"Resolved 1 orphaned cancellation(s): {EXEC}",
     "cancel_orphans_resolved", None, None, {"count": 1}),
    ("flux.server", "INFO", "Heartbeat reaper started (interval=2s, timeout=6s)",
     "reaper_started", None, None, {"interval_s": 2, "timeout_s": 6}),
    ("flux.server", "INFO", "Heartbeat reaper stopped", "server_stopping", None, None, {}),
    ("flux.server", "INFO", "Flux server started successfully", "server_started", None, None, {}),
    ("flux.server", "WARNING", f"Released 2 unclaimed execution(s) assigned to reconnecting "
     f"worker w3: {EXEC}", "released_reconnecting", "w3", None, {"count": 2}),
    ("flux.server", "DEBUG", "Pruned offline worker w3 (exceeded 20s TTL)", "pruned", "w3", None,
     {"ttl_s": 20}),
    ("flux.server", "CRITICAL", "Authentication is DISABLED. All requests are treated as the "
     "ANONYMOUS admin principal.", "auth_disabled", None, None, {}),
    ("flux.api.worker_routes", "ERROR", "Error listing workers: (psycopg.OperationalError) "
     'connection failed: connection to server at "127.0.0.1", port 5432 failed: Connection '
     "refused", "database_error", None, None,
     {"doing": "listing workers", "exc_class": "psycopg.OperationalError"}),
    ("flux.scheduler_loop", "ERROR", "Error in scheduler cycle: (sqlite3.OperationalError) "
     "attempt to write a readonly database", "database_error", None, None,
     {"exc_class": "sqlite3.OperationalError", "message": "attempt to write a readonly database"}),
]  # fmt: skip
WORKER_LINES = [
    ("Connection lost (ConnectError: All connection attempts failed). Reconnecting in 1.2s...",
     "connection_lost", None, {"exc_class": "ConnectError", "delay_s": 1.2}),
    ("Error in SSE connection: SSE stream silent for 30s; treating the connection as dead",
     "sse_error", None, {}),
    ("SSE connection closed, reconnecting...", "sse_closed", None, {}),
    ("Reconnecting with existing session...", "reconnecting", None, {}),
    ("Event loop starved (lag 3.52s >= 1.0s for 3 probes); marking worker unhealthy — declining "
     "new work until the loop recovers", "unhealthy", None,
     {"lag_s": 3.52, "threshold_s": 1.0, "probes": 3}),
    ("Event loop recovered; worker healthy — accepting work again", "healthy", None, {}),
    (f"Unhealthy (event-loop lag); releasing execution {EXEC} for re-dispatch", "released", EXEC,
     {}),
    (f"Error during checkpoint: Stale claim for execution {EXEC}: the server fenced this write; "
     "the claim was superseded", "stale_claim", EXEC, {}),
    (f"Execution {EXEC} was reassigned (stale claim); aborting the local copy",
     "stale_claim_abort", EXEC, {}),
    (f"Release of {EXEC} fenced (stale claim); another worker owns it", "release_fenced", EXEC,
     {}),
    ("Session token rejected mid-operation, re-registering...", "session_rejected", None, {}),
    (f"Terminal checkpoint for execution {EXEC} (sleeper, state=COMPLETED) not delivered within "
     "300s; giving up. The server reaper will requeue the execution.",
     "terminal_checkpoint_given_up", EXEC, {"workflow": "sleeper", "deadline_s": 300}),
    (f"Execution Scheduled - sleeper v1 - {EXEC}", "execution_scheduled", EXEC, {"version": 1}),
    (f"Execution Claimed - sleeper v1 - {EXEC}", "execution_claimed", EXEC, {}),
    (f"Execution COMPLETED - sleeper v1 - {EXEC}", "execution_completed", EXEC, {}),
    ("Worker paused — not claiming new work (running executions continue)", "paused", None, {}),
    ("Worker resumed — claiming new work again", "resumed", None, {}),
    ("Worker received SIGTERM, draining before shutdown...", "sigterm", None, {}),
    ("Worker shutting down...", "shutdown", None, {}),
    ("Worker starting up...", "starting", None, {}),
    ("Registering worker 'w7' with server...", "registering", None, {}),
    ("Connection established successfully", "connection_established", None, {}),
    ("Worker control socket listening at .flux/worker-w7.sock", "control_socket", None,
     {"path": ".flux/worker-w7.sock"}),
    ("Worker control socket unavailable ([Errno 28] No space left on device); pause/resume via "
     "signals only", "control_socket_unavailable", None,
     {"error": "[Errno 28] No space left on device"}),
    (f"Worker subprocess for execution {EXEC} exited with code -15 (signal 15) before reporting a "
     "result", "runner_died", EXEC, {"code": -15}),
    (f"Claim for {EXEC} returned 409 (already claimed or superseded); dropping this dispatch.",
     "claim_refused", EXEC, {"code": 409}),
]  # fmt: skip


def parse(text: str, worker: str | None = None) -> list:
    lines = list(enumerate(text.splitlines(), 1))
    return list(LogParser("hosts/h01/logs/0.log", worker=worker).parse(lines))


@pytest.mark.parametrize(
    ("logger", "level", "message", "kind", "worker", "execution", "detail"), SERVER_LINES
)
def test_every_server_line_format(logger, level, message, kind, worker, execution, detail):
    (event,) = parse(f"{STAMP} - {logger} - {level} - {message}")
    assert (event.kind, event.worker, event.execution) == (kind, worker, execution)
    assert event.detail.items() >= (detail | {"side": "server"}).items()
    assert event.at == datetime(2026, 11, 29, 17, 7, 11, tzinfo=UTC)
    assert event.line == 1


@pytest.mark.parametrize(("message", "kind", "execution", "detail"), WORKER_LINES)
def test_every_worker_line_format_is_attributed_to_the_log_worker(message, kind, execution, detail):
    (event,) = parse(f"{STAMP} - flux.worker - INFO - {message}", worker="w7")
    assert (event.kind, event.worker, event.execution) == (kind, "w7", execution)
    assert event.detail.items() >= (detail | {"side": "worker"}).items()


def test_every_expected_kind_has_a_sample_line():
    covered = {row[3] for row in SERVER_LINES} | {row[1] for row in WORKER_LINES}
    covered |= {"auth_rejected", "checkpoint_retry"}  # multi-line records, tested below
    assert covered >= EXPECTED_KINDS - {"execution_progress"}


REFUSED = """\
2026-11-29 16:59:24 - flux.worker - ERROR - ERROR
2026-11-29 16:59:24 - flux.worker - ERROR - Client error '401 Unauthorized' for url 'http://127.0.0.1:8000/workers/register'
For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/401
Traceback (most recent call last):
  File "site-packages/flux/worker.py", line 768, in _register
httpx.HTTPStatusError: Client error '401 Unauthorized' for url 'http://127.0.0.1:8000/workers/register'
2026-11-29 16:59:24 - flux.worker - WARNING - Connection lost (HTTPStatusError: Client error '401 Unauthorized' for url 'http://127.0.0.1:8000/workers/register'
For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/401). Reconnecting in 1.2s...
2026-11-29 16:59:25 - flux.worker - INFO - Registering worker 'noanon' with server...
"""  # noqa: E501


def test_a_refused_registration_spanning_two_lines_is_an_authorization_event():
    events = parse(REFUSED, worker="noanon")
    assert [e.kind for e in events] == ["auth_rejected", "registering"]
    refused = events[0]
    assert refused.line == 7
    assert refused.detail["status_code"] == 401
    assert refused.detail["url_path"] == "/workers/register"
    assert refused.detail["delay_s"] == 1.2
    assert refused.detail["exc_class"] == "HTTPStatusError"
    assert "\n" not in refused.text
    assert "Reconnecting in 1.2s" in refused.text


def test_a_record_cut_at_the_end_of_the_log_still_counts():
    tail = "2026-11-29 16:59:24 - flux.worker - WARNING - Connection lost (ConnectError: boom"
    (event,) = parse(tail, worker="w1")
    assert event.kind == "connection_lost"
    assert event.detail["exc_class"] == "ConnectError"
    assert "delay_s" not in event.detail


def test_a_checkpoint_retry_keeps_its_http_error():
    text = (
        f"{STAMP} - flux.worker - WARNING - Checkpoint for execution {EXEC} failed "
        "(HTTPStatusError: Client error '403 Forbidden' for url 'http://x/workers/w2/checkpoint/1'\n"
        "For more information check: https://developer.mozilla.org/403); retrying in 0.7s\n"
        f"{STAMP} - flux.worker - INFO - Checkpoint for execution 'sleeper' ({EXEC}) completed "
        "successfully"
    )
    events = parse(text, worker="w2")
    assert [e.kind for e in events] == ["checkpoint_retry"]
    assert events[0].execution == EXEC
    assert "403 Forbidden" in events[0].detail["message"]


def test_noise_is_skipped_and_unknown_lines_ignored():
    text = "\n".join(
        [
            f"{STAMP} - flux.security.auth_service - WARNING - Auth disabled — request treated "
            "as admin (anonymous)",
            f"{STAMP} - flux.worker - INFO - OK",
            f"{STAMP} - uvicorn.error - INFO - Worker connected: not-flux",
            "Task was destroyed but it is pending!",
            f"{STAMP} - flux.api.worker_routes - INFO - Worker connected: w9",
            "garbage without a timestamp",
        ]
    )
    assert [(e.kind, e.worker, e.line) for e in parse(text)] == [("connected", "w9", 5)]


def test_server_lines_are_not_read_as_worker_lines_and_back():
    text = "\n".join(
        [
            f"{STAMP} - flux.worker - INFO - Worker connected: w1",
            f"{STAMP} - flux.server - INFO - Worker starting up...",
        ]
    )
    assert parse(text, worker="w1") == []


def test_parse_logs_uses_the_log_index_for_worker_attribution():
    line = f"{STAMP} - flux.worker - ERROR - Event loop starved (lag 2.00s >= 1.0s for 3 probes)"
    source = MemorySource(
        {
            "hosts/h02/logs/0.log": line + "\n",
            "hosts/h01/logs/0.log": f"{STAMP} - flux.server - INFO - Worker connected: w5\n",
            LogIndex.member_path: LogIndex(
                logs=[
                    LogSource(member="hosts/h01/logs/0.log", role="server"),
                    LogSource(member="hosts/h02/logs/0.log", role="worker", worker="w5"),
                ]
            ).model_dump(mode="json"),
        }
    )
    events = sorted(parse_logs(EvidenceSet(source)), key=lambda e: e.member)
    assert [(e.kind, e.worker) for e in events] == [("connected", "w5"), ("unhealthy", "w5")]


def test_without_an_index_every_log_member_is_parsed():
    line = f"{STAMP} - flux.server - WARNING - Worker w1 evicted (stale for >30s)\n"
    source = MemorySource({"hosts/h03/logs/1.log": line})
    (event,) = parse_logs(EvidenceSet(source))
    assert (event.kind, event.member, event.detail["grace_s"]) == (
        "evicted",
        "hosts/h03/logs/1.log",
        30,
    )


def test_local_log_times_are_read_in_the_hosts_offset():
    line = f"{STAMP} - flux.server - INFO - Worker connected: w5\n"
    index = LogIndex(logs=[LogSource(member="hosts/h01/logs/00.log", role="server")])
    raw_index = index.model_dump(mode="json")
    raw_index["logs"][0]["utc_offset"] = "+0200"  # recorded by the collector (`date +%z`)
    source = MemorySource({"hosts/h01/logs/00.log": line, LogIndex.member_path: raw_index})
    (event,) = parse_logs(EvidenceSet(source))
    assert event.at == datetime(2026, 11, 29, 15, 7, 11, tzinfo=UTC)


def test_equal_details_and_execution_ids_are_shared_and_read_only():
    """A fleet's worker logs repeat a few details ~165,000 times: one mapping each."""
    lines = [
        (1, f"{STAMP} - flux.worker - INFO - Execution Scheduled - etl v3 - {EXEC}"),
        (2, f"{STAMP} - flux.worker - INFO - Execution Claimed - etl v3 - {EXEC}"),
        (3, f"{STAMP} - flux.worker - INFO - Execution Claimed - load v1 - {EXEC}"),
    ]
    scheduled, claimed, other = LogParser("w.log", worker="w1").parse(lines)
    assert scheduled.detail is claimed.detail
    assert dict(claimed.detail) == {"side": "worker", "workflow": "etl", "version": 3}
    assert dict(other.detail) == {"side": "worker", "workflow": "load", "version": 1}
    assert scheduled.execution is claimed.execution is other.execution
    with pytest.raises(TypeError):
        claimed.detail["workflow"] = "changed"  # type: ignore[index]
