"""LyftData's own rules on small hand-made evidence, and the log parser on real log lines."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

from bundler.analyze.api import EvidenceSet, RuleContext, Target, Timeline
from bundler.analyze.logsource import API_LOG, HOST_LOG, copies, disagreement, source_of
from bundler.products.lyftdata import PROFILE
from bundler.products.lyftdata.log_lines import parse_line
from bundler.products.lyftdata.logs import parse_logs
from bundler.products.lyftdata.rules.authorization import lease_clock_skew
from bundler.products.lyftdata.rules.capacity import metrics_not_enabled
from bundler.products.lyftdata.rules.local_state import corrupt_state_keeps_worker_down
from bundler.source import MemorySource
from schemas import EncryptionInfo, HostSummary, LayerStatus, Manifest, TargetSummary, ToolInfo
from schemas.evidence import (
    AuthorizationEvidence,
    CapacityEvidence,
    ConnectionState,
    EvidenceDoc,
    LocalStateEvidence,
    LogIndex,
    LogSource,
    StateFileCheck,
    WorkerAuthorization,
    WorkerCapacity,
    WorkersEvidence,
    WorkerStatus,
)


def _ctx(
    *docs: EvidenceDoc, worker: str | None = "edge-01", extra: dict[str, str] | None = None
) -> RuleContext:
    source = MemorySource({d.member_path: d.model_dump(mode="json") for d in docs})
    for name, text in (extra or {}).items():
        source.add(name, text)
    return RuleContext(EvidenceSet(source), Target(worker=worker, job=None), Timeline(), "lyftdata")


def _auth(
    skew: float | None, native: str | None = None, applicable: bool = True
) -> AuthorizationEvidence:
    return AuthorizationEvidence(
        lease_clock_tolerance_s=60,
        workers=[
            WorkerAuthorization(
                worker="edge-01",
                applicable=applicable,
                clock_skew_s=skew,
                native_code=native,
                decision="deny" if native else "allow",
            )
        ],
    )


def test_lease_clock_skew_fails_beyond_tolerance_with_the_clock_sync_path() -> None:
    result = lease_clock_skew(_ctx(_auth(-300)))
    assert result is not None
    assert result.status is LayerStatus.FAIL
    (finding,) = result.findings
    assert finding.code == "CLOCK_SKEW_EXCEEDS_LEASE_TOLERANCE"
    assert "300s behind" in finding.message
    assert finding.details == {"skew_s": -300, "tolerance_s": 60}
    assert any("--reset-state auth" in c for c in finding.recovery.cautions)
    assert finding.evidence[0].pointer == "/workers/0/clock_skew_s"


def test_lease_clock_skew_trusts_the_native_code_even_without_a_figure() -> None:
    result = lease_clock_skew(_ctx(_auth(None, native="lease_clock_skew")))
    assert result is not None
    assert result.findings[0].native_code == "lease_clock_skew"


def test_lease_clock_skew_is_silent_within_tolerance_and_for_the_builtin_worker() -> None:
    assert lease_clock_skew(_ctx(_auth(59))) is None
    assert lease_clock_skew(_ctx(_auth(500, applicable=False))) is None
    assert lease_clock_skew(_ctx(_auth(500), worker="someone-else")) is None
    without = lease_clock_skew(_ctx(worker="edge-01"))  # the rule needs authorization.json
    assert without is not None
    assert [f.code for f in without.findings] == ["AUTHORIZATION_EVIDENCE_MISSING"]


def _workers(state: ConnectionState, restarts: int = 14) -> WorkersEvidence:
    return WorkersEvidence(
        workers=[
            WorkerStatus(
                name="edge-01",
                connection=state,
                host_alias="h01",
                metadata={"service.NRestarts": restarts},
            )
        ]
    )


def _state(*files: tuple[str, str]) -> LocalStateEvidence:
    return LocalStateEvidence(
        files=[
            StateFileCheck(
                host_alias="h01",
                worker=None,
                path=path,
                kind="sqlite",
                integrity=integrity,
                detail="database disk image is malformed" if integrity == "corrupt" else "ok",
            )
            for path, integrity in files
        ]
    )


def test_silent_worker_with_corrupt_state_fails_heartbeat_with_the_repair_path() -> None:
    ctx = _ctx(
        _workers(ConnectionState.OFFLINE), _state(("worker.db", "corrupt"), ("settings.db", "ok"))
    )
    result = corrupt_state_keeps_worker_down(ctx)
    assert result is not None
    assert result.status is LayerStatus.FAIL
    (finding,) = result.findings
    assert finding.code == "LOCAL_STATE_CORRUPT"
    assert "worker.db" in finding.message
    assert "restarted 14 times" in finding.message
    steps = " ".join(finding.recovery.steps)
    assert "Stop the worker service" in steps
    assert "lyftdata-worker --reset-state repair" in steps
    cautions = " ".join(finding.recovery.cautions)
    assert "Never edit the auth-cache or settings databases" in cautions
    assert "--yes only in deliberately reviewed" in cautions
    assert "`--reset-state full` only as a last resort" in cautions
    assert finding.details["files"] == ["worker.db"]


def test_corrupt_auth_cache_alone_gets_the_narrower_auth_reset() -> None:
    ctx = _ctx(_workers(ConnectionState.STALE), _state(("auth-cache.db", "corrupt")))
    result = corrupt_state_keeps_worker_down(ctx)
    assert result is not None
    steps = result.findings[0].recovery.steps
    assert "--reset-state auth" in steps[1]
    assert not any("--reset-state repair" in step for step in steps)


def test_online_worker_or_healthy_state_leaves_it_to_the_generic_rules() -> None:
    assert (
        corrupt_state_keeps_worker_down(
            _ctx(_workers(ConnectionState.ONLINE), _state(("worker.db", "corrupt")))
        )
        is None
    )
    assert (
        corrupt_state_keeps_worker_down(
            _ctx(_workers(ConnectionState.OFFLINE), _state(("worker.db", "ok")))
        )
        is None
    )


def test_metrics_off_makes_capacity_unknown_not_zero() -> None:
    doc = CapacityEvidence(
        workers=[WorkerCapacity(worker="edge-01", limits={"metrics_enabled": False})]
    )
    result = metrics_not_enabled(_ctx(doc))
    assert result is not None
    assert result.status is LayerStatus.UNKNOWN
    assert result.findings[0].code == "METRICS_NOT_ENABLED"
    assert result.findings[0].recovery is not None
    enabled = CapacityEvidence(workers=[WorkerCapacity(worker="edge-01")])
    assert metrics_not_enabled(_ctx(enabled)) is None


def test_rules_are_declared_for_lyftdata_only() -> None:
    assert {r.name.rsplit(".", 1)[-1] for r in PROFILE.rules()} == {
        "lease_clock_skew",
        "corrupt_state_keeps_worker_down",
        "corrupt_state_in_worker_log",
        "metrics_not_enabled",
    }


LOG_LINES = [
    ("40", "INFO  lyftdata_worker::main", "lyftdata-worker 1.4.2 starting, jobs dir x"),
    ("45", "INFO  lyftdata_worker::auth", "runtime lease wl_edge-01 renewed, expires in 900s"),
    (None, "", "not a log line"),
    (
        "55",
        "ERROR lyftdata_worker::auth",
        "runtime authorization denied: license_expired_or_invalid",
    ),
    ("56", "WARN  lyftdata_worker::comms", "heartbeat to server failed: connection refused"),
    (
        "57",
        "ERROR lyftdata_worker::state",
        "failed to open worker.db: database disk image is malformed",
    ),
    ("58", "INFO  lyftdata_worker::scheduler", "Worker [edge-01], starting job: [ingest-events]"),
]
LOG = "".join(
    f"2026-01-10T11:{minute}:00.000Z {where} > {text}\n" if minute else f"{text}\n"
    for minute, where, text in LOG_LINES
)


def test_log_lines_become_timeline_events() -> None:
    parsed = parse_line("2026-01-10T11:45:00.123Z INFO  lyftdata_worker::auth > lease renewed")
    assert parsed == (
        datetime(2026, 1, 10, 11, 45, 0, 123000, tzinfo=UTC),
        "INFO",
        "lyftdata_worker::auth",
        "lease renewed",
    )
    index = LogIndex(
        logs=[LogSource(member="hosts/h01/logs/0.log", worker="edge-01", role="worker")]
    )
    events = list(parse_logs(_ctx(index, extra={"hosts/h01/logs/0.log": LOG}).evidence))
    assert [e.kind for e in events] == [
        "started",
        "lease_renewed",
        "auth_rejected",
        "connection_lost",
        "state_corrupt",
        "job_started",
    ]
    denied = events[2]
    assert denied.detail["native_code"] == "license_expired_or_invalid"
    assert denied.line == 4
    assert denied.worker == "edge-01"
    assert events[-1].execution == "ingest-events"


def test_a_log_line_at_a_zero_time_is_an_undated_event() -> None:
    """Go's zero time.Time (and the epoch) in a worker's line is "never": the event is kept
    and cited, with no time to be measured from."""
    for zero in ("0001-01-01T00:00:00.000Z", "1970-01-01T00:00:00Z"):
        text = f"{zero} ERROR lyftdata_worker::state > database disk image is malformed"
        parsed = parse_line(text)
        assert parsed is not None
        assert parsed[0] is None
        index = LogIndex(
            logs=[LogSource(member="hosts/h01/logs/0.log", worker="edge-01", role="worker")]
        )
        ctx = _ctx(index, extra={"hosts/h01/logs/0.log": text + "\n"})
        [event] = list(parse_logs(ctx.evidence))
        assert (event.kind, event.at, event.line) == ("state_corrupt", None, 1)


def test_journal_lines_carry_the_workers_own_line() -> None:
    journal = (
        "2026-01-10T11:55:00+0000 edge lyftdata-worker[812]: 2026-01-10T11:55:00.000Z ERROR "
        "lyftdata_worker::auth > authorization denied: community_edition_no_external_workers"
    )
    parsed = parse_line(journal)
    assert parsed is not None
    assert parsed[3].endswith("community_edition_no_external_workers")


def test_cli_log_output_is_parsed_too() -> None:
    """Without a manifest nothing says whose output it is: read, but no worker's."""
    events = list(parse_logs(_ctx(extra={"hosts/h02/lyftdata-workers-logs.txt": LOG}).evidence))
    assert len(events) == 6
    assert events[0].member == "hosts/h02/lyftdata-workers-logs.txt"
    assert {e.worker for e in events} == {None}


def test_cli_log_output_is_the_worker_of_the_host_it_ran_on() -> None:
    """Doctor runs ``lyftdata workers logs {worker}`` on each worker host, ``{worker}`` its
    inventory entry's, which the manifest records; a host with no worker names nobody."""
    manifest = Manifest(
        tool=ToolInfo(version="test"),
        created_at=datetime(2026, 1, 10, 12, tzinfo=UTC),
        bundle_id="b",
        profile="lyftdata",
        target=TargetSummary(
            hosts=[HostSummary(alias="h02", worker="edge-02"), HostSummary(alias="h03")]
        ),
        encryption=EncryptionInfo(mode="password"),
    )
    source = MemorySource({})
    for alias in ("h02", "h03"):
        source.add(f"hosts/{alias}/lyftdata-workers-logs.txt", LOG)
    events = list(parse_logs(EvidenceSet(source, manifest=manifest)))
    workers = {(e.member.split("/")[1], e.worker) for e in events}
    assert workers == {("h02", "edge-02"), ("h03", None)}


def test_the_api_copy_of_a_worker_log_gives_every_kind_and_shares_lines_with_the_host_log() -> None:
    """One grammar for both copies: the API's lines give refusals and connection losses too,
    each naming its copy and citing its JSON line; a line the host log also holds is one
    event (the host's, with the API's as its copy), so no count doubles."""
    index = LogIndex(
        logs=[LogSource(member="hosts/h01/logs/0.log", worker="edge-01", role="worker")]
    )
    api = {
        "worker_id": "edge-01",
        "limit": 200,
        "lines": [
            {"at": "2026-01-10T11:55:00.000Z", "level": "ERROR",
             "target": "lyftdata_worker::auth",
             "message": "runtime authorization denied: license_expired_or_invalid"},
            {"at": "2026-01-10T11:59:00Z", "level": "WARN", "target": "lyftdata_worker::comms",
             "message": "heartbeat to server failed: connection refused"},
        ],
    }  # fmt: skip
    ctx = _ctx(index, extra={"hosts/h01/logs/0.log": LOG})
    ctx.evidence.source.add("raw/http/worker-logs/000.json", json.dumps(api))
    events = list(parse_logs(ctx.evidence))
    denied = [e for e in events if e.kind == "auth_rejected"]
    assert len(denied) == 1
    assert source_of(denied[0]) == HOST_LOG
    [twin] = copies(denied[0])[1:]
    assert source_of(twin) == API_LOG
    assert twin.citation().label() == "raw/http/worker-logs/000.json#/lines/0"
    lost = [e for e in events if e.kind == "connection_lost"]
    assert [source_of(e) for e in lost] == [HOST_LOG, API_LOG]
    assert lost[1].worker == "edge-01"
    assert lost[1].citation().pointer == "/lines/1"


def test_each_copy_covers_its_dated_lines_and_a_cut_log_is_two_spans() -> None:
    """The time a copy covers decides whether another copy's line is news to it: a host log
    the collector cut (head, marker, tail) does not cover what the marker left out."""
    index = LogIndex(
        logs=[LogSource(member="hosts/h01/logs/0.log", worker="edge-01", role="worker")]
    )
    host = (
        "2026-01-10T11:00:00.000Z INFO  lyftdata_worker::main > configuration loaded\n"
        "2026-01-10T11:05:00.000Z INFO  lyftdata_worker::main > idle\n"
        "[bundler truncated] 4000 bytes (40 lines) omitted here; the first and the last parts "
        "are kept (cap 100 bytes, 4 lines)\n"
        "2026-01-10T11:50:00.000Z INFO  lyftdata_worker::main > idle\n"
        "2026-01-10T11:59:00.000Z WARN  lyftdata_worker::comms > heartbeat to server failed\n"
    )
    api = {
        "worker_id": "edge-01",
        "lines": [
            {"at": "2026-01-10T11:30:00Z", "message": "idle"},
            {"at": "2026-01-10T11:58:00Z", "message": "idle"},
        ],
    }
    ctx = _ctx(index, extra={"hosts/h01/logs/0.log": host})
    ctx.evidence.source.add("raw/http/worker-logs/000.json", json.dumps(api))
    stream = parse_logs(ctx.evidence)
    [lost] = list(stream)
    spans = {(s.source, s.first, s.last, s.start.minute, s.end.minute) for s in stream.spans}
    assert spans == {
        (HOST_LOG, 1, 2, 0, 5),
        (HOST_LOG, 4, 5, 50, 59),
        (API_LOG, 1, 2, 30, 58),
    }
    after_api = disagreement(Timeline([lost], spans=stream.spans), [lost], "edge-01")
    assert after_api == ("", []), "11:59 is after the API's copy ends: no news to it"
    longer = [replace(s, end=s.end.replace(hour=12)) if s.source == API_LOG else s
              for s in stream.spans]  # fmt: skip
    sentence, cited = disagreement(Timeline([lost], spans=longer), [lost], "edge-01")
    assert sentence == (
        " The copies of its log disagree: the worker host's log holds a line connection-lost "
        f"(2026-01-10 11:59:00Z) that {API_LOG} lacks, though it covers 2026-01-10 11:30:00Z "
        "to 2026-01-10 12:58:00Z."
    )
    assert [c.label() for c in cited] == [
        "hosts/h01/logs/0.log:5",
        "raw/http/worker-logs/000.json#/lines",
    ]
