"""Rung 1 rules: connection state, freshness against the policy, health, admin, flapping."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bundler.analyze.api import TimelineEvent
from bundler.analyze.rules import heartbeat as rules
from schemas import LayerStatus
from schemas.evidence import AdminState, ConnectionState, HealthState, JobPhase
from tests.support.evidence import T0, Fleet

from .conftest import codes, judge, status


def _event(kind: str, line: int, worker: str = "w1") -> TimelineEvent:
    return TimelineEvent(
        kind=kind,
        member="hosts/h01/logs/1.log",
        line=line,
        text=f"Worker {worker} {kind}",
        at=T0 - timedelta(seconds=100 - line),
        worker=worker,
    )


def test_fresh_online_worker_passes(fleet: Fleet) -> None:
    result = judge(rules.worker_heartbeat, fleet)
    assert status(result) is LayerStatus.PASS
    assert codes(result) == ["WORKER_ONLINE"]


def test_listed_online_but_silent_past_timeout_is_stale(fleet: Fleet) -> None:
    fleet.worker("w1").heartbeat_age_s = 45
    result = judge(rules.worker_heartbeat, fleet)
    assert codes(result) == ["WORKER_HEARTBEAT_STALE"]
    assert result is not None
    assert "45s" in result.findings[0].message
    assert "timeout 30s" in result.findings[0].message


def test_silent_past_timeout_and_grace_is_lost(fleet: Fleet) -> None:
    fleet.worker("w1").heartbeat_age_s = 75
    assert codes(judge(rules.worker_heartbeat, fleet)) == ["WORKER_HEARTBEAT_LOST"]


def test_age_is_computed_from_last_heartbeat_at_collection_time_not_now(fleet: Fleet) -> None:
    w1 = fleet.worker("w1")
    w1.heartbeat_age_s = None
    w1.last_heartbeat_at = T0 - timedelta(seconds=40)
    result = judge(rules.worker_heartbeat, fleet)
    assert codes(result) == ["WORKER_HEARTBEAT_STALE"]
    w1.last_heartbeat_at = T0 - timedelta(seconds=5)
    assert codes(judge(rules.worker_heartbeat, fleet)) == ["WORKER_ONLINE"]


def test_online_without_a_heartbeat_time_is_unknown_not_fresh(fleet: Fleet) -> None:
    """Flux lists a silent worker online until its grace ends: the word alone proves nothing."""
    w1 = fleet.worker("w1")
    w1.heartbeat_age_s = None
    w1.last_heartbeat_at = None
    result = judge(rules.worker_heartbeat, fleet)
    assert status(result) is LayerStatus.UNKNOWN
    assert codes(result) == ["WORKER_HEARTBEAT_UNDATED"]


def test_a_heartbeat_dated_after_collection_is_unknown_beyond_the_tolerance(fleet: Fleet) -> None:
    w1 = fleet.worker("w1")
    w1.heartbeat_age_s = None
    w1.last_heartbeat_at = T0 + timedelta(days=180)
    result = judge(rules.worker_heartbeat, fleet)
    assert status(result) is LayerStatus.UNKNOWN
    assert codes(result) == ["WORKER_HEARTBEAT_AFTER_COLLECTION"]
    w1.last_heartbeat_at = T0 + timedelta(seconds=2)  # a flush racing the read: fresh
    assert codes(judge(rules.worker_heartbeat, fleet)) == ["WORKER_ONLINE"]


def test_offline_worker_with_work_fails_and_cites_log_history(fleet: Fleet) -> None:
    w1 = fleet.worker("w1")
    w1.connection = ConnectionState.OFFLINE
    w1.native_status = "offline"
    events = [_event("stale", 10), _event("evicted", 40), _event("stale", 5, worker="w2")]
    result = judge(rules.worker_heartbeat, fleet, events=events)
    assert codes(result) == ["WORKER_OFFLINE"]
    assert result is not None
    labels = [c.label() for c in result.findings[0].evidence]
    assert labels[0] == "evidence/workers.json#/workers/0/connection"
    assert "hosts/h01/logs/1.log:10" in labels
    assert "hosts/h01/logs/1.log:40" in labels
    assert "hosts/h01/logs/1.log:5" not in labels  # another worker's line
    assert "1 unfinished job" in result.findings[0].message


def test_an_offline_worker_is_said_offline_once_in_no_products_words(fleet: Fleet) -> None:
    """ "is offline (disconnected or evicted) (product status: offline); 1 unfinished job(s)":
    eviction is Flux's word (LyftData read it too), and the product's word repeated ours."""
    w1 = fleet.worker("w1")
    w1.connection = ConnectionState.OFFLINE
    w1.native_status = "offline"
    result = judge(rules.worker_heartbeat, fleet)
    assert result is not None
    assert result.findings[0].message == ("Worker w1 is offline; 1 unfinished job depends on it.")
    w1.native_status = "paused-offline"  # a word of the product's own still says something
    result = judge(rules.worker_heartbeat, fleet)
    assert result is not None
    assert "Worker w1 is offline (product status: paused-offline);" in result.findings[0].message


def test_offline_worker_nothing_depends_on_only_warns(fleet: Fleet) -> None:
    fleet.worker("w2").connection = ConnectionState.OFFLINE
    result = judge(rules.worker_heartbeat, fleet, worker="w2")
    assert status(result) is LayerStatus.WARN
    assert codes(result) == ["WORKER_OFFLINE_IDLE"]


def test_offline_worker_with_incomplete_job_evidence_is_unknown_not_idle(fleet: Fleet) -> None:
    """ "No unfinished job depends on it" is read from the jobs, their placements and their
    runtime requirements; with one of them incomplete the job that relies on the worker may
    be the one missing. Before, a timed-out placement request turned an outage into a
    leftover record: degraded, exit 0."""
    fleet.worker("w2").connection = ConnectionState.OFFLINE
    assert fleet.requirements is not None
    fleet.requirements.complete = False
    fleet.requirements.gaps = ["http.job-placement.001"]
    result = judge(rules.worker_heartbeat, fleet, worker="w2")
    assert status(result) is LayerStatus.UNKNOWN
    assert codes(result) == ["WORKER_DEPENDENTS_UNKNOWN"]
    assert result is not None
    assert "(gaps: http.job-placement.001)" in result.findings[0].message
    fleet.worker("w2").departed = True  # a departed worker's record is judged the same way
    assert codes(judge(rules.worker_heartbeat, fleet, worker="w2")) == ["WORKER_DEPENDENTS_UNKNOWN"]
    fleet.requirements.complete, fleet.requirements.gaps = True, []
    assert codes(judge(rules.worker_heartbeat, fleet, worker="w2")) == ["WORKER_DEPARTED"]


def test_a_worker_a_job_depends_on_fails_whatever_else_is_missing(fleet: Fleet) -> None:
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    assert fleet.jobs is not None
    fleet.jobs.complete, fleet.jobs.gaps = False, ["http.jobs"]
    assert codes(judge(rules.worker_heartbeat, fleet)) == ["WORKER_OFFLINE"]


def test_offline_worker_is_a_failure_for_a_job_target(fleet: Fleet) -> None:
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    fleet.job("ingest").phase = JobPhase.COMPLETED
    assert status(judge(rules.worker_heartbeat, fleet, job="ingest")) is LayerStatus.FAIL


def test_never_connected_and_removed_fail(fleet: Fleet) -> None:
    w1 = fleet.worker("w1")
    w1.connection = ConnectionState.NEVER_CONNECTED
    assert codes(judge(rules.worker_heartbeat, fleet)) == ["WORKER_NEVER_CONNECTED"]
    w1.connection = ConnectionState.REMOVED
    assert codes(judge(rules.worker_heartbeat, fleet)) == ["WORKER_REMOVED"]


def test_unknown_connection_is_unknown(fleet: Fleet) -> None:
    fleet.worker("w1").connection = ConnectionState.UNKNOWN
    assert status(judge(rules.worker_heartbeat, fleet)) is LayerStatus.UNKNOWN


def test_worker_missing_from_a_complete_list_is_unknown_to_server(fleet: Fleet) -> None:
    assert codes(judge(rules.worker_heartbeat, fleet, worker="ghost")) == [
        "WORKER_UNKNOWN_TO_SERVER"
    ]


def test_worker_missing_from_an_incomplete_list_is_unknown(fleet: Fleet) -> None:
    assert fleet.workers is not None
    fleet.workers.complete = False
    fleet.workers.gaps = ["http.workers"]
    result = judge(rules.worker_heartbeat, fleet, worker="ghost")
    assert status(result) is LayerStatus.UNKNOWN


def test_no_worker_evidence_is_unknown(fleet: Fleet) -> None:
    fleet.workers = None
    assert codes(judge(rules.worker_heartbeat, fleet)) == ["WORKERS_EVIDENCE_MISSING"]


def test_fleet_level_without_a_worker(fleet: Fleet) -> None:
    assert status(judge(rules.worker_heartbeat, fleet, worker=None)) is LayerStatus.PASS
    for w in ("w1", "w2"):
        fleet.worker(w).connection = ConnectionState.OFFLINE
    assert codes(judge(rules.worker_heartbeat, fleet, worker=None)) == ["NO_WORKERS_ONLINE"]


def test_without_policy_online_passes_on_the_products_word(fleet: Fleet) -> None:
    assert fleet.workers is not None
    fleet.workers.heartbeat = None
    fleet.worker("w1").heartbeat_age_s = 500
    assert status(judge(rules.worker_heartbeat, fleet)) is LayerStatus.PASS


def test_unhealthy_and_paused_warn(fleet: Fleet) -> None:
    fleet.worker("w1").health = HealthState.UNHEALTHY
    assert codes(judge(rules.worker_health, fleet)) == ["WORKER_UNHEALTHY"]
    assert judge(rules.worker_admin_state, fleet) is None
    fleet.worker("w1").admin = AdminState.PAUSED
    assert codes(judge(rules.worker_admin_state, fleet)) == ["WORKER_PAUSED"]
    assert judge(rules.worker_health, fleet, worker="w2") is None


def _outage_at(kind: str, minutes_ago: float) -> TimelineEvent:
    event = _event(kind, 1)
    return replace(event, at=T0 - timedelta(minutes=minutes_ago))


def test_flapping_needs_repeated_outages(fleet: Fleet) -> None:
    # one hang: evicted, disconnected the same second, connection lost when it resumed
    one = [_event("evicted", 10), _event("disconnected", 10), _event("connection_lost", 40)]
    assert judge(rules.heartbeat_flapping, fleet, events=one) is None
    three = [_outage_at("evicted", 50), _outage_at("evicted", 30), _outage_at("evicted", 10)]
    two_and_one_hang = judge(rules.heartbeat_flapping, fleet, events=[*three[:2], *one])
    assert codes(two_and_one_hang) == ["HEARTBEAT_FLAPPING"]  # the hang is the third outage
    result = judge(rules.heartbeat_flapping, fleet, events=three)
    assert codes(result) == ["HEARTBEAT_FLAPPING"]
    assert result is not None
    assert len(result.findings[0].evidence) == 3
    assert result.findings[0].details["outages"] == 3


def _logged(kind: str, line: int, at: object) -> TimelineEvent:
    """An event at ``line`` of one log, dated ``at`` (None: an undated or zero-stamped line)."""
    return replace(_event(kind, line), at=at)


def test_undated_disconnect_lines_alone_are_no_outages(fleet: Fleet) -> None:
    """Three lines stamped at a zero time (read as undated) may be the lines of one hang:
    counted one outage each, they warned HEARTBEAT_FLAPPING, a cause nothing showed."""
    undated = [_logged("disconnected", n, None) for n in (10, 11, 12)]
    assert judge(rules.heartbeat_flapping, fleet, events=undated) is None
    # nor do they add outages to dated ones they may belong to
    dated = [_logged("evicted", 5, T0 - timedelta(minutes=30)), *undated]
    dated.append(_logged("evicted", 20, T0 - timedelta(minutes=10)))
    assert judge(rules.heartbeat_flapping, fleet, events=dated) is None


def test_an_undated_disconnect_counts_when_its_log_proves_a_separate_outage(
    fleet: Fleet,
) -> None:
    """Between dated lines 10 and 50 minutes ago, far from both outages: a third outage."""
    events = [
        _logged("evicted", 5, T0 - timedelta(minutes=60)),
        _logged("registered", 6, T0 - timedelta(minutes=50)),
        _logged("disconnected", 7, None),
        _logged("registered", 8, T0 - timedelta(minutes=10)),
        _logged("evicted", 9, T0 - timedelta(minutes=5)),
    ]
    result = judge(rules.heartbeat_flapping, fleet, events=events)
    assert codes(result) == ["HEARTBEAT_FLAPPING"]
    assert result is not None
    assert result.findings[0].details["outages"] == 3
    assert [c.lines.start for c in result.findings[0].evidence if c.lines] == [5, 7, 9]
