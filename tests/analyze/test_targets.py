"""Target selection: where trouble is, the best candidate for waiting work, the healthy view."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bundler.analyze.engine import analyze
from bundler.analyze.targets import EVERY_WORKER, select_targets
from bundler.errors import UsageError
from schemas import Layer, Verdict
from schemas.evidence import (
    AdminState,
    ConnectionState,
    HealthState,
    JobPhase,
    JobRequirements,
    LocalStateEvidence,
    StateFileCheck,
    WorkerCapacity,
)
from tests.support.evidence import T0, Fleet, job, without_optional_rungs, worker

ZERO = datetime(1, 1, 1, tzinfo=UTC)


def _pairs(fleet: Fleet, **kw: str) -> list[tuple[str | None, str | None]]:
    return [
        (t.worker, t.job.name if t.job else None) for t in select_targets(fleet.evidence(), **kw)
    ]


def _add(fleet: Fleet, *jobs: object) -> None:
    assert fleet.jobs is not None
    fleet.jobs.jobs.extend(jobs)  # type: ignore[arg-type]


def test_healthy_view_shows_latest_runs_and_every_worker(fleet: Fleet) -> None:
    _add(
        fleet, job("ingest", id="old", phase=JobPhase.COMPLETED, updated_at=T0 - timedelta(hours=1))
    )
    targets = select_targets(fleet.evidence())
    assert [(t.worker, t.job.id if t.job else None) for t in targets] == [
        ("w1", "ingest-1"),
        ("w2", None),
    ]
    assert targets[0].reason.startswith("latest run")


def test_failure_superseded_by_a_later_success_is_history(fleet: Fleet) -> None:
    _add(fleet, job("ingest", id="old", phase=JobPhase.FAILED, updated_at=T0 - timedelta(hours=1)))
    assert all(
        t.reason.startswith(("latest run", EVERY_WORKER)) for t in select_targets(fleet.evidence())
    )
    _add(fleet, job("ingest", id="new", phase=JobPhase.FAILED, updated_at=T0))
    targets = select_targets(fleet.evidence())
    assert [t.job.id for t in targets if t.job] == ["new"]
    assert targets[0].reason.startswith("last run failed")


def test_waiting_job_gets_its_best_candidate(fleet: Fleet) -> None:
    _add(
        fleet,
        job(
            "sleeper",
            phase=JobPhase.UNASSIGNED,
            native_state="CREATED",
            assigned_worker=None,
            requirements=JobRequirements(labels={"zone": "b"}),
        ),
    )
    [t] = select_targets(fleet.evidence())
    assert (t.worker, t.job.name if t.job else None) == ("w2", "sleeper")
    assert "best candidate w2" in t.reason
    assert "(CREATED)" in t.reason


def test_waiting_job_nobody_matches_has_no_worker(fleet: Fleet) -> None:
    _add(
        fleet,
        job(
            "sleeper",
            phase=JobPhase.UNASSIGNED,
            assigned_worker=None,
            requirements=JobRequirements(labels={"zone": "mars"}),
        ),
    )
    assert _pairs(fleet) == [(None, "sleeper")]


def test_available_candidate_beats_an_offline_one(fleet: Fleet) -> None:
    assert fleet.workers is not None
    fleet.workers.workers.append(
        worker("w0", labels={"zone": "b"}, connection=ConnectionState.OFFLINE)
    )
    _add(
        fleet,
        job(
            "sleeper",
            phase=JobPhase.UNASSIGNED,
            assigned_worker=None,
            requirements=JobRequirements(labels={"zone": "b"}),
        ),
    )
    pairs = _pairs(fleet)
    assert ("w2", "sleeper") in pairs
    assert ("w0", None) in pairs  # offline worker reported on its own


def test_identical_stuck_executions_collapse_into_one_target(fleet: Fleet) -> None:
    for n in range(3):
        _add(
            fleet,
            job(
                "sleeper",
                id=f"e{n}",
                phase=JobPhase.UNASSIGNED,
                assigned_worker=None,
                requirements=JobRequirements(labels={"zone": "mars"}),
            ),
        )
    [t] = select_targets(fleet.evidence())
    assert t.job is not None
    assert t.job.id == "e0"
    assert "(+2 similar)" in t.reason


def test_job_claimed_by_a_vanished_worker_is_trouble(fleet: Fleet) -> None:
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    fleet.job("ingest").phase = JobPhase.CLAIMED
    assert _pairs(fleet) == [("w1", "ingest")]


@pytest.mark.parametrize(
    ("connection", "health", "admin", "reason"),
    [
        ("offline", "unknown", "active", "running on w1, which is offline"),
        ("online", "unhealthy", "active", "running on w1, which reports unhealthy"),
        ("online", "healthy", "paused", "running on w1, which is paused"),
    ],
)
def test_why_a_run_on_an_unavailable_worker_is_chosen_says_why_in_words(
    fleet: Fleet, connection: str, health: str, admin: str, reason: str
) -> None:
    """The reason read "which is offline/unknown" (doubt about a worker known offline) and,
    for a paused worker, "which is online/healthy", hiding why it could not take the run."""
    w1 = fleet.worker("w1")
    w1.connection = ConnectionState(connection)
    w1.native_status = connection
    w1.health = HealthState(health)
    w1.admin = AdminState(admin)
    fleet.job("ingest").phase = JobPhase.RUNNING
    [t] = [t for t in select_targets(fleet.evidence()) if t.job is not None]
    assert t.reason.startswith(reason + ";"), t.reason


def test_troubled_workers_get_their_own_target(fleet: Fleet) -> None:
    fleet.worker("w2").health = HealthState.UNHEALTHY
    assert _pairs(fleet) == [("w2", None)]
    fleet.worker("w2").health = HealthState.HEALTHY
    fleet.worker("w2").heartbeat_age_s = 120
    [t] = select_targets(fleet.evidence())
    assert t.worker == "w2"
    assert "last heartbeat 120s old" in t.reason


@pytest.mark.parametrize("trouble", ["auth", "state"])
def test_online_but_unserviceable_workers_are_targets(fleet: Fleet, trouble: str) -> None:
    if trouble == "auth":
        assert fleet.authorization is not None
        fleet.authorization.workers[1].decision = "deny"
    else:
        fleet.extra.append(
            LocalStateEvidence(
                files=[
                    StateFileCheck(worker="w2", path="/x.db", kind="sqlite", integrity="corrupt")
                ]
            )
        )
    assert _pairs(fleet) == [("w2", None)]


def test_worker_filter(fleet: Fleet) -> None:
    assert _pairs(fleet, worker="w2") == [("w2", None)]
    fleet.job("ingest").phase = JobPhase.PAUSED
    assert _pairs(fleet, worker="w1") == [("w1", "ingest")]


def test_job_filter_by_name_or_id_and_worker_override(fleet: Fleet) -> None:
    assert _pairs(fleet, job="ingest") == [("w1", "ingest")]
    assert _pairs(fleet, job="ingest-1") == [("w1", "ingest")]
    assert _pairs(fleet, job="ingest", worker="w2") == [("w2", "ingest")]


def test_unknown_names_list_the_known_ones(fleet: Fleet) -> None:
    with pytest.raises(UsageError, match="no worker called 'w9'"):
        select_targets(fleet.evidence(), worker="w9")
    with pytest.raises(UsageError, match="no job or execution called 'x'"):
        select_targets(fleet.evidence(), job="x")


def test_slots_full_scenario_reads_capacity(fleet: Fleet) -> None:
    """Flux scenario e: w3 (zone=c, 1 slot) runs one execution; two more wait, CREATED."""
    without_optional_rungs(fleet)
    assert fleet.workers is not None
    assert fleet.capacity is not None
    fleet.workers.workers.append(worker("w3", labels={"zone": "c"}, slots_max=1, in_flight=1))
    fleet.capacity.workers.append(
        WorkerCapacity(worker="w3", slots_max=1, slots_in_use=1, slots_free=0)
    )
    zone_c = JobRequirements(labels={"zone": "c"})
    _add(
        fleet,
        job(
            "zone_c_sleeper",
            id="x1",
            phase=JobPhase.RUNNING,
            assigned_worker="w3",
            requirements=zone_c,
        ),
        job(
            "zone_c_sleeper",
            id="x2",
            phase=JobPhase.UNASSIGNED,
            native_state="CREATED",
            assigned_worker=None,
            requirements=zone_c,
            created_at=T0 - timedelta(seconds=20),
        ),
        job(
            "zone_c_sleeper",
            id="x3",
            phase=JobPhase.UNASSIGNED,
            native_state="CREATED",
            assigned_worker=None,
            requirements=zone_c,
            created_at=T0 - timedelta(seconds=10),
        ),
    )
    report = analyze(fleet.evidence())
    assert report.verdict is Verdict.BLOCKED
    assert report.first_failed_layer is Layer.CAPACITY
    [t] = report.targets
    assert (t.worker, t.job_id) == ("w3", "x2")
    assert "(+1 similar)" in (t.reason or "")
    capacity = t.layers[Layer.CAPACITY.index]
    assert [f.code for f in capacity.findings] == ["SLOTS_SATURATED"]
    assert "w3 is full: 1 of 1 slot in use" in capacity.findings[0].message


def test_products_placement_decides_the_candidate(fleet: Fleet) -> None:
    from schemas.evidence import JobPlacement, PlacementEvidence, WorkerPlacementVerdict

    _add(
        fleet,
        job(
            "needs_gpu",
            phase=JobPhase.UNASSIGNED,
            assigned_worker=None,
            requirements=JobRequirements(),
        ),
    )
    verdicts = [
        WorkerPlacementVerdict(worker=w, verdict="filtered", reasons=["GPU_INSUFFICIENT"])
        for w in ("w1", "w2")
    ]
    fleet.extra.append(
        PlacementEvidence(placements=[JobPlacement(job="needs_gpu", per_worker=verdicts)])
    )
    [t] = select_targets(fleet.evidence())
    assert t.worker is None
    assert "no eligible worker (product's placement)" in t.reason
    report = analyze(fleet.evidence())
    assert report.first_failed_layer is Layer.PLACEMENT


@pytest.mark.parametrize("stamp", [None, ZERO])
def test_when_the_latest_run_cannot_be_told_every_candidate_is_walked(
    fleet: Fleet, stamp: object
) -> None:
    """Two runs of ingest, neither dated (no time, or the zero time): the healthy view took the
    one listed last and --job's default the one listed first, so which run (and which worker)
    was judged followed the list. Each is walked now, in one order, and the reason says why."""
    assert fleet.jobs is not None
    runs = [
        job("ingest", id="r1", assigned_worker="w1", created_at=stamp, updated_at=stamp),
        job(
            "ingest",
            id="r2",
            phase=JobPhase.COMPLETED,
            native_state="COMPLETED",
            assigned_worker="w2",
            created_at=stamp,
            updated_at=stamp,
        ),
    ]
    seen = []
    for order in (runs, runs[::-1]):
        fleet.jobs.jobs = list(order)
        for request in ({}, {"job": "ingest"}):
            targets = select_targets(fleet.evidence(), **request)
            picked = [(t.worker, t.job.id) for t in targets if t.job is not None]
            assert picked == [("w1", "r1"), ("w2", "r2")], request
            for t in targets[:2]:
                assert "which of 2 runs of ingest ran last cannot be told" in t.reason
        report = analyze(fleet.evidence())
        seen.append((report.verdict, [(t.worker, t.job_id, t.verdict) for t in report.targets]))
    assert seen[0] == seen[1]


def test_a_dated_run_beside_an_undated_one_is_not_the_latest_alone(fleet: Fleet) -> None:
    assert fleet.jobs is not None
    fleet.jobs.jobs = [
        job("ingest", id="r1"),
        job("ingest", id="r2", assigned_worker="w2", created_at=None, updated_at=None),
    ]
    picked = [(t.job.id, t.reason) for t in select_targets(fleet.evidence()) if t.job]
    assert [p[0] for p in picked] == ["r1", "r2"]
    assert all("(r2 undated)" in reason for _, reason in picked)


def test_a_departed_worker_is_left_out_only_when_job_evidence_is_complete(fleet: Fleet) -> None:
    """A record of a worker that left is expected, and not a target, when no unfinished job
    depends on it; with the job evidence incomplete that cannot be known, so it is one."""
    w2 = fleet.worker("w2")
    w2.connection, w2.departed = ConnectionState.OFFLINE, True
    assert "w2" not in {t.worker for t in select_targets(fleet.evidence())}
    assert fleet.requirements is not None
    fleet.requirements.complete, fleet.requirements.gaps = False, ["http.job-placement.001"]
    [chosen] = [t for t in select_targets(fleet.evidence()) if t.worker == "w2"]
    assert chosen.reason == "worker offline"
    report = analyze(fleet.evidence(), worker="w2")
    assert report.verdict is Verdict.INCONCLUSIVE


def _failed(run_id: str, worker: str, minutes_ago: int | None) -> object:
    at = None if minutes_ago is None else T0 - timedelta(minutes=minutes_ago)
    return job(
        "ingest",
        id=run_id,
        phase=JobPhase.FAILED,
        native_state="FAILED",
        assigned_worker=worker,
        created_at=at,
        updated_at=at,
    )


@pytest.mark.parametrize("reverse", [False, True])
def test_the_latest_failed_run_is_the_target_whatever_the_list_order(
    fleet: Fleet, reverse: bool
) -> None:
    """Three failed runs of one job, two on w1 and the latest on w2: the first listed (Flux
    lists by id, which is random) was the target of w1's pair, and w1's older failure was
    a target of its own. The job's latest failed run alone is, the others counted."""
    assert fleet.jobs is not None
    runs = [_failed("a", "w1", 30), _failed("b", "w2", 5), _failed("c", "w1", 10)]
    fleet.jobs.jobs = runs[::-1] if reverse else runs  # type: ignore[assignment]
    for request in ({}, {"job": "ingest"}):
        targets = [t for t in select_targets(fleet.evidence(), **request) if t.job]
        assert [(t.worker, t.job.id) for t in targets if t.job] == [("w2", "b")], request
        assert "(latest of 3 failed runs, +2 earlier runs)" in targets[0].reason
    # asked about w1, its own latest failure is walked
    [t] = [t for t in select_targets(fleet.evidence(), worker="w1") if t.job]
    assert (t.worker, t.job.id if t.job else None) == ("w1", "c")


@pytest.mark.parametrize("stamps", [(5, 5), (5, None)])
def test_failed_runs_whose_order_cannot_be_told_are_each_walked(
    fleet: Fleet, stamps: tuple[int | None, int | None]
) -> None:
    """Two failed runs at one instant, or one undated: either may be the last; both are
    walked and the reason says why, in one order whatever the list's."""
    assert fleet.jobs is not None
    runs = [_failed("a", "w1", 30), _failed("b", "w2", stamps[0]), _failed("c", "w1", stamps[1])]
    for order in (runs, runs[::-1]):
        fleet.jobs.jobs = list(order)  # type: ignore[arg-type]
        targets = [t for t in select_targets(fleet.evidence()) if t.job]
        assert [(t.worker, t.job.id) for t in targets if t.job] == [("w2", "b"), ("w1", "c")]
        said = "(c undated)" if stamps[1] is None else "(at the same time)"
        for t in targets:
            assert f"which of 2 failed runs of ingest failed last cannot be told {said}" in t.reason
