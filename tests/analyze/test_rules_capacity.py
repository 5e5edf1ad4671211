"""Rung 6 rules: slots, resources against requests, capabilities, declining workers, load."""

from __future__ import annotations

from bundler.analyze.engine import analyze
from bundler.analyze.rules import capacity as rules
from schemas import Layer, LayerStatus
from schemas.evidence import (
    AdminState,
    HealthState,
    Job,
    JobPhase,
    JobRequirements,
    ResourceRequest,
    WorkerCapacity,
)
from tests.support.evidence import Fleet, job

from .conftest import codes, judge, status


def _waiting(fleet: Fleet, req: JobRequirements | None = None) -> Job:
    waiting = job(
        "sleeper",
        id="e9",
        phase=JobPhase.UNASSIGNED,
        assigned_worker=None,
        requirements=req or JobRequirements(labels={"zone": "a"}),
    )
    assert fleet.jobs is not None
    fleet.jobs.jobs.append(waiting)
    return waiting


def _w1cap(fleet: Fleet) -> WorkerCapacity:
    assert fleet.capacity is not None
    return fleet.capacity.workers[0]


def test_room_passes(fleet: Fleet) -> None:
    result = judge(rules.job_fits_worker, fleet, job="ingest")
    assert codes(result) == ["CAPACITY_ADEQUATE"]
    assert result is not None
    assert "1 of 16 slots" in result.findings[0].message


def test_full_worker_blocks_a_waiting_job_and_names_the_worker(fleet: Fleet) -> None:
    cap = _w1cap(fleet)
    cap.slots_max, cap.slots_in_use, cap.slots_free = 1, 1, 0
    result = judge(rules.job_fits_worker, fleet, job=_waiting(fleet))
    assert codes(result) == ["SLOTS_SATURATED"]
    assert status(result) is LayerStatus.FAIL
    assert result is not None
    assert "w1 is full" in result.findings[0].message
    assert result.findings[0].evidence[0].label() == "evidence/capacity.json#/workers/0/slots_free"


def test_full_worker_only_warns_for_running_work(fleet: Fleet) -> None:
    cap = _w1cap(fleet)
    cap.slots_max, cap.slots_in_use, cap.slots_free = 1, 1, 0
    assert status(judge(rules.job_fits_worker, fleet, job="ingest")) is LayerStatus.WARN
    assert status(judge(rules.job_fits_worker, fleet)) is LayerStatus.WARN


def test_saturation_from_worker_status_alone(fleet: Fleet) -> None:
    fleet.capacity = None
    w1 = fleet.worker("w1")
    w1.slots_max, w1.in_flight = 2, 2
    result = judge(rules.job_fits_worker, fleet, job=_waiting(fleet))
    # the failure is certain; what the missing capacity document would add stays unknown
    assert codes(result) == ["SLOTS_SATURATED", "CAPACITY_EVIDENCE_MISSING"]
    assert status(result) is LayerStatus.FAIL


def test_resources_below_request_fail_naming_the_resource(fleet: Fleet) -> None:
    req = JobRequirements(resources=ResourceRequest(gpu=1, memory_bytes=32e9))
    result = judge(rules.job_fits_worker, fleet, job=_waiting(fleet, req))
    assert codes(result) == ["RESOURCES_INSUFFICIENT", "RESOURCES_INSUFFICIENT"]
    assert result is not None
    messages = " ".join(f.message for f in result.findings)
    assert "gpu 1 requested, 0 available" in messages
    assert "memory 29.8 GiB requested" in messages


def test_missing_capability_fails(fleet: Fleet) -> None:
    fleet.worker("w1").capabilities = ["files"]
    fleet.worker("w1").limited_capabilities = True
    req = JobRequirements(capabilities=["windows-event-log"])
    result = judge(rules.job_fits_worker, fleet, job=_waiting(fleet, req))
    assert codes(result) == ["CAPABILITY_MISSING"]
    assert result is not None
    assert "limited capabilities" in result.findings[0].message


def test_unknown_worker_resources_are_unknown(fleet: Fleet) -> None:
    fleet.capacity = None
    fleet.worker("w1").resources = None
    req = JobRequirements(resources=ResourceRequest(cpu=2))
    assert status(judge(rules.job_fits_worker, fleet, job=_waiting(fleet, req))) is (
        LayerStatus.UNKNOWN
    )


def test_unhealthy_or_paused_worker_blocks_a_waiting_job(fleet: Fleet) -> None:
    waiting = _waiting(fleet)
    fleet.worker("w1").health = HealthState.UNHEALTHY
    assert codes(judge(rules.job_fits_worker, fleet, job=waiting)) == ["WORKER_UNHEALTHY"]
    fleet.worker("w1").health = HealthState.HEALTHY
    fleet.worker("w1").admin = AdminState.DRAINING
    assert codes(judge(rules.job_fits_worker, fleet, job=waiting)) == ["WORKER_DRAINING"]


def test_no_figures_at_all_is_unknown(fleet: Fleet) -> None:
    fleet.capacity = None
    w1 = fleet.worker("w1")
    w1.resources, w1.slots_max = None, None
    assert codes(judge(rules.job_fits_worker, fleet)) == ["CAPACITY_EVIDENCE_MISSING"]


def test_no_worker_is_not_applicable(fleet: Fleet) -> None:
    assert status(judge(rules.job_fits_worker, fleet, worker=None)) is LayerStatus.NOT_APPLICABLE


def test_pressure_signals_warn_with_product_thresholds(fleet: Fleet) -> None:
    assert judge(rules.worker_pressure, fleet) is None
    cap = _w1cap(fleet)
    cap.cpu_util_pct = 91
    cap.queue_pending = 140
    cap.backpressure = True
    cap.memory_total_bytes, cap.memory_available_bytes = 100.0, 10.0
    result = judge(rules.worker_pressure, fleet, job=_waiting(fleet))
    assert status(result) is LayerStatus.WARN
    assert codes(result) == ["CPU_SATURATED", "MEMORY_PRESSURE", "QUEUE_BACKLOG", "BACKPRESSURE"]
    assert fleet.capacity is not None
    fleet.capacity.thresholds = {"cpu_pct": 95}
    assert "CPU_SATURATED" not in codes(judge(rules.worker_pressure, fleet))


def test_a_busy_moment_is_a_note_unless_a_job_waits(fleet: Fleet) -> None:
    _w1cap(fleet).cpu_util_pct = 100
    result = judge(rules.worker_pressure, fleet, job="ingest")
    assert status(result) is LayerStatus.PASS
    assert result is not None
    assert [(f.code, f.severity) for f in result.findings] == [("CPU_SATURATED", "info")]
    assert status(judge(rules.worker_pressure, fleet, job=_waiting(fleet))) is LayerStatus.WARN


def test_failure_names_how_the_other_intended_workers_compare(fleet: Fleet) -> None:
    from schemas.evidence import GPU

    req = JobRequirements(labels={"zone": "a"}, resources=ResourceRequest(gpu=1))
    waiting = _waiting(fleet, req)
    result = judge(rules.job_fits_worker, fleet, job=waiting)
    assert result is not None
    assert "No other worker is meant for this job." in result.findings[0].message
    w2 = fleet.worker("w2")
    w2.labels = {"zone": "a"}
    assert w2.resources is not None
    w2.resources.gpus = [GPU(name="A100")]
    assert fleet.capacity is not None
    fleet.capacity.workers = []
    result = judge(rules.job_fits_worker, fleet, job=waiting)
    assert result is not None
    assert result.findings[0].details["other_workers"] == {"w2": "fits"}
    assert "Other workers meant for it: w2: fits." in result.findings[0].message


def test_capabilities_nobody_reported_are_unknown_not_missing(fleet: Fleet) -> None:
    """The worker-status request failed: the list's limited-capabilities flag is known, but
    what the worker offers is not, so a running job's capability is no contradiction."""
    w1 = fleet.worker("w1")
    w1.capabilities, w1.limited_capabilities = None, False
    ingest = fleet.job("ingest")
    assert ingest.requirements is not None
    ingest.requirements.capabilities = ["files"]
    [target] = analyze(fleet.evidence(), job="ingest").targets
    capacity = next(r for r in target.layers if r.name is Layer.CAPACITY)
    assert capacity.status is LayerStatus.UNKNOWN
    assert [(f.code, f.severity) for f in capacity.findings] == [("CAPABILITY_MISSING", "info")]
    assert "unknown" in capacity.findings[0].message
    w1.capabilities = []  # reported, and empty: the contradiction stands
    [target] = analyze(fleet.evidence(), job="ingest").targets
    assert target.first_failed_layer is Layer.CAPACITY
