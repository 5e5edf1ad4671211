"""Flux log lines and runs at a zero time: kept as evidence, never measured from.

``0001-01-01 00:00:00`` (Go's zero time) and ``1970-01-01 00:00:00`` (the Unix epoch) are
what a logger or a store writes when its clock or field was never set. Read as moments they
made a worker "unhealthy for 63 billion seconds" and an event-loop stall last 56 years.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from bundler.products.flux.logs.parser import LogParser
from bundler.products.flux.rules.health import flux_starvation_history
from bundler.products.flux.rules.heartbeat import flux_worker_heartbeat
from bundler.products.flux.rules.outcome import flux_last_run
from schemas import LayerStatus
from schemas.evidence import CanaryRun, HealthState, Job, JobPhase, OutcomeEvidence
from tests.support.flux_evidence import OBSERVED, FluxCase, online

WORKER = "flux.worker"
STARVED = "Event loop starved (lag 2.00s >= 1.0s for 3 probes); marking worker unhealthy"
RECOVERED = "Event loop recovered; worker healthy — accepting work again"


def _at(stamp: str, message: str) -> str:
    """A worker log line as Flux writes it, with the whole stamp given."""
    return f"{stamp} - {WORKER} - INFO - {message}"


def test_a_line_stamped_at_a_zero_time_is_an_undated_event() -> None:
    for zero in ("0001-01-01 00:00:00", "1970-01-01 00:00:00"):
        for tz in (UTC, timezone(timedelta(hours=2)), timezone(-timedelta(hours=5))):
            parser = LogParser("hosts/h01/logs/0.log", worker="w1", tz=tz)
            [event] = parser.parse([(7, _at(zero, STARVED))])
            assert (event.kind, event.at, event.line) == ("unhealthy", None, 7), (zero, tz)
    parser = LogParser("hosts/h01/logs/0.log", worker="w1")
    [event] = parser.parse([(1, _at("1970-01-01 00:00:01", STARVED))])
    assert event.at == datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC)  # a moment, if an odd one


def test_an_unhealthy_worker_starved_at_the_zero_time_is_not_unhealthy_for_ages() -> None:
    case = FluxCase(
        workers=[online("w1", health=HealthState.UNHEALTHY)],
        worker_logs={"w1": [_at("0001-01-01 00:00:00", STARVED)]},
    )
    result = case.run(flux_worker_heartbeat, worker="w1")
    assert result is not None
    [finding] = result.findings
    assert finding.code == "FLUX_WORKER_UNHEALTHY"
    assert "reports itself unhealthy (event-loop starvation):" in finding.message
    assert " for " not in finding.message.split(":")[0]  # no "for 63871286400s"
    assert finding.evidence[-1].excerpt.startswith("0001-01-01 00:00:00")  # still cited


def test_a_starvation_whose_recovery_is_stamped_at_the_epoch_has_no_length() -> None:
    """Read as a moment, the epoch put the recovery before the stall (no episode at all)."""
    logs = [_at("2026-11-29 17:00:00", STARVED), _at("1970-01-01 00:00:00", RECOVERED)]
    result = FluxCase(workers=[online("w1")], worker_logs={"w1": logs}).run(
        flux_starvation_history, worker="w1"
    )
    assert result is not None
    [finding] = result.findings
    assert finding.code == "FLUX_EVENT_LOOP_STARVATION"
    assert finding.details["longest_s"] is None
    assert "for how long unknown" in finding.message


def _run(run_id: str, phase: str, finished: datetime) -> CanaryRun:
    return CanaryRun(
        canary_id=run_id,
        job="default/etl",
        worker="w1",
        mode="last_run",
        phase=phase,  # type: ignore[arg-type]
        started_at=finished,
        finished_at=finished,
    )


def test_a_failed_run_finished_at_the_zero_time_leaves_the_last_run_unknown() -> None:
    """Read as a moment, year 1 made the failed run the oldest and the worker passed."""
    runs = [
        _run("e1", "successful", datetime(2026, 11, 29, 17, 5, tzinfo=UTC)),
        _run("e0", "failed", datetime(1, 1, 1, tzinfo=UTC)),
    ]
    case = FluxCase(workers=[online("w1")], documents=[OutcomeEvidence(canaries=runs)])
    result = case.run(flux_last_run, worker="w1")
    assert result is not None
    assert result.status is LayerStatus.UNKNOWN
    assert [f.code for f in result.findings] == ["RUN_ORDER_UNDATED"]
    assert "e0 failed, ended at 0001-01-01 00:00:00Z" in result.findings[0].message


def test_runs_that_agree_are_judged_whatever_their_times() -> None:
    runs = [
        _run("e1", "successful", datetime(2026, 11, 29, 17, 5, tzinfo=UTC)),
        _run("e0", "successful", datetime(1, 1, 1, tzinfo=UTC)),
    ]
    case = FluxCase(workers=[online("w1")], documents=[OutcomeEvidence(canaries=runs)])
    result = case.run(flux_last_run, worker="w1")
    assert result is not None
    assert result.status is LayerStatus.PASS
    assert "(e1)" in result.findings[0].message


def _execution(run_id: str, phase: JobPhase, at: datetime | None) -> Job:
    return Job(
        name="default/etl",
        id=run_id,
        kind="execution",
        native_state=phase.value.upper(),
        phase=phase,
        assigned_worker="w1",
        created_at=at,
        updated_at=at,
        error="boom" if phase is JobPhase.FAILED else None,
    )


def test_a_failed_execution_at_the_zero_time_beside_a_later_success_is_not_a_failure() -> None:
    """FLUX_EXECUTION_FAILED blamed a failure a later success may have superseded."""
    failed = _execution("e0", JobPhase.FAILED, datetime(1, 1, 1, tzinfo=UTC))
    later = _execution("e1", JobPhase.COMPLETED, datetime(2026, 11, 29, 17, 5, tzinfo=UTC))
    runs = [_run("e1", "successful", datetime(2026, 11, 29, 17, 5, tzinfo=UTC))]
    case = FluxCase(
        workers=[online("w1")], jobs=[failed, later], documents=[OutcomeEvidence(canaries=runs)]
    )
    result = case.run(flux_last_run, worker="w1", job=failed)
    assert result is not None
    assert result.status is LayerStatus.UNKNOWN
    assert [f.code for f in result.findings] == ["JOB_RUN_ORDER_UNDATED"]
    assert "the zero time" in result.findings[0].message
    dated = failed.model_copy(update={"created_at": OBSERVED, "updated_at": OBSERVED})
    case.jobs = [dated, later]
    result = case.run(flux_last_run, worker="w1", job=dated)
    assert result is not None
    assert [f.code for f in result.findings] == ["FLUX_EXECUTION_FAILED"]


def test_a_starvation_that_began_at_the_zero_time_still_warns() -> None:
    """Sorted after its dated recovery, the undated stall opened no episode: no warning."""
    logs = [_at("0001-01-01 00:00:00", STARVED), _at("2026-11-29 17:00:05", RECOVERED)]
    result = FluxCase(workers=[online("w1")], worker_logs={"w1": logs}).run(
        flux_starvation_history, worker="w1"
    )
    assert result is not None
    [finding] = result.findings
    assert finding.code == "FLUX_EVENT_LOOP_STARVATION"
    assert (finding.details["episodes"], finding.details["longest_s"]) == (1, None)
    assert "for how long unknown" in finding.message


def test_evictions_stamped_at_the_zero_time_keep_their_place_in_the_cycle() -> None:
    """STALE -> evicted -> connected twice, the 'evicted' lines at Go's zero time. Sorted last
    they closed no cycle (no loop) and read as an eviction still open."""
    server = "flux.server"
    routes = "flux.api.worker_routes"
    log: list[str] = []
    for minute in (1, 5):
        log += [
            f"2026-11-29 17:0{minute}:00 - {server} - WARNING - Worker w1 missed heartbeat, "
            "marked STALE (grace period: 6s)",
            f"0001-01-01 00:00:00 - {server} - WARNING - Worker w1 evicted (stale for >6s)",
            f"2026-11-29 17:0{minute}:07 - {routes} - INFO - Worker connected: w1",
        ]
    result = FluxCase(workers=[online("w1")], server_log=log).run(
        flux_worker_heartbeat, worker="w1"
    )
    assert result is not None
    assert [f.code for f in result.findings] == ["FLUX_EVICTION_LOOP"]
    assert result.findings[0].details["evictions"] == 2


def test_a_sampled_timeline_keeps_the_last_eviction_past_lines_stamped_at_the_zero_time() -> None:
    """A server log with 60 cycles stamped at Go's zero time early on, then 60 dated ones and
    an eviction at 19:00 with no return. The sampler counted the undated lines as the latest
    and kept them: the 19:00 eviction was dropped and the worker read as back."""
    from bundler.analyze.api import Timeline
    from bundler.analyze.sampling import sample
    from bundler.products.flux.rules.evictions import eviction_cycles, still_evicted

    server, routes = "flux.server", "flux.api.worker_routes"

    def cycle(stamp: str) -> list[str]:
        return [
            f"{stamp} - {server} - WARNING - Worker w1 missed heartbeat, marked STALE "
            "(grace period: 6s)",
            f"{stamp} - {server} - WARNING - Worker w1 evicted (stale for >6s)",
            f"{stamp} - {routes} - INFO - Worker connected: w1",
        ]

    log = [f"2026-11-29 16:00:00 - {routes} - INFO - Worker connected: w1"]
    for _ in range(60):
        log += cycle("0001-01-01 00:00:00")
    for minute in range(60):
        log += cycle(f"2026-11-29 17:{minute:02d}:00")
    log += cycle("2026-11-29 19:00:00")[:2]
    events = list(LogParser("hosts/h01/logs/0.log").parse(enumerate(log, 1)))
    for timeline in (Timeline(list(events)), sample(events).timeline):
        open_cycle = still_evicted(eviction_cycles(timeline, "w1"))
        assert open_cycle is not None
        assert open_cycle.evicted is not None
        assert open_cycle.evicted.at == datetime(2026, 11, 29, 19, 0, tzinfo=UTC)


def test_runs_that_ended_at_the_same_instant_otherwise_leave_the_last_run_unknown() -> None:
    """A tie is no order: the last listed (or first) run is not the later of two that ended at
    one instant, one completed and one failed."""
    at = datetime(2026, 11, 29, 17, 5, tzinfo=UTC)
    ok, bad = _run("e1", "successful", at), _run("e2", "failed", at)
    for runs in ([ok, bad], [bad, ok]):
        case = FluxCase(workers=[online("w1")], documents=[OutcomeEvidence(canaries=runs)])
        for target in ({"worker": "w1"}, {}):
            result = case.run(flux_last_run, **target)  # type: ignore[arg-type]
            assert result is not None
            assert result.status is LayerStatus.UNKNOWN
            assert [f.code for f in result.findings] == ["RUN_ORDER_TIED"]
            assert "e1 and e2 ended at the same instant" in result.findings[0].message


def test_runs_tied_at_one_instant_that_ended_alike_pass() -> None:
    at = datetime(2026, 11, 29, 17, 5, tzinfo=UTC)
    runs = [_run("e2", "successful", at), _run("e1", "successful", at)]
    for listed in (runs, runs[::-1]):
        case = FluxCase(workers=[online("w1")], documents=[OutcomeEvidence(canaries=listed)])
        result = case.run(flux_last_run, worker="w1")
        assert result is not None
        assert result.status is LayerStatus.PASS
        assert "(e1)" in result.findings[0].message  # one run named, whatever the list's order
