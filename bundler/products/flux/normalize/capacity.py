"""Layer 6 facts: slots and resources per worker.

Flux spreads capacity over three places: the slot limit
(``max_concurrent_executions``) is only in SQLite, the running count is
``in_flight`` from the last pong, and the worker advertises
``flux.slots_free`` among its metrics. Server gauges that are known to be
wrong (``flux_workers_active`` goes negative, ``flux_execution_queue_depth``
is per-process) are deliberately not used: queue depth is counted from the
executions themselves.

``in_flight`` is as old as the last pong and can outlive what it counted (a worker
read ``in_flight: 2`` with nothing running). When the executions listing was read
whole and puts a different number of runs on the worker, the two are two capacity
records of that worker (:func:`capacity_records`): the analyzer reads a worker's
records that disagree as a contradiction (``WORKER_RECORDS_CONFLICT``, capacity
unknown), so neither number alone makes the worker full or free.
"""

from __future__ import annotations

from schemas.evidence import (
    CapacityEvidence,
    JobPhase,
    JobsEvidence,
    Source,
    WorkerCapacity,
    WorkersEvidence,
    WorkerStatus,
)

from ..matching import mismatches

RUNNING_PHASES = {JobPhase.CLAIMED, JobPhase.RUNNING, JobPhase.SCHEDULED}
IN_FLIGHT_PHASES = {JobPhase.CLAIMED, JobPhase.RUNNING}
"""Phases of a run the worker holds (claimed, running, cancelling); a SCHEDULED one may or
may not be counted yet by the worker's last pong."""


def free_slots(worker: WorkerStatus) -> float | None:
    """Free slots: the worker's own figure, else the limit minus what runs (0 = unlimited)."""
    if worker.metrics and "flux.slots_free" in worker.metrics:
        return worker.metrics["flux.slots_free"]
    if worker.slots_max and worker.in_flight is not None:
        return float(max(worker.slots_max - worker.in_flight, 0))
    return None


def worker_capacity(
    worker: WorkerStatus, jobs: JobsEvidence, in_use: int | None = None, ref: str | None = None
) -> WorkerCapacity:
    """The worker's capacity record; ``in_use`` (with where it was read, ``ref``) replaces
    the server's figure for a record counted from the executions listing."""
    res = worker.resources
    metrics = worker.metrics or {}
    held = [j for j in jobs.jobs if j.assigned_worker == worker.name and not j.phase.terminal]
    waiting = [
        j
        for j in jobs.jobs
        if j.phase is JobPhase.UNASSIGNED and not mismatches(j.requirements, worker)
    ]
    counted = in_use is not None
    free = free_slots(worker)
    if counted:
        assert in_use is not None
        free = float(max(worker.slots_max - in_use, 0)) if worker.slots_max else None
    else:
        in_use = reported_in_use(worker)
    if in_use is None:
        in_use = sum(j.phase in RUNNING_PHASES for j in held)  # counted from the executions
    return WorkerCapacity(
        worker=worker.name,
        cpu_cores=res.cpu_total if res else None,
        cpu_available=res.cpu_available if res else None,
        # flux.cpu_percent is a change-gated routing input ("as of the last change"), not a
        # live gauge: kept in limits, never reported as the host's current utilization.
        cpu_util_pct=None,
        memory_total_bytes=res.memory_total_bytes if res else None,
        memory_available_bytes=res.memory_available_bytes if res else None,
        disk_free_bytes=res.disk_free_bytes if res else None,
        gpus=len(res.gpus or []) if res else None,
        slots_max=worker.slots_max,
        slots_in_use=in_use,
        slots_free=free,
        jobs_assigned=len(held),
        jobs_running=sum(j.phase in RUNNING_PHASES for j in held),
        queue_pending=len(waiting),
        limits={k: v for k, v in metrics.items() if k.startswith("flux.")},
        source=Source(
            method="derived",
            ref=ref or "in_flight and metrics (GET /workers), max_concurrent_executions (SQLite)",
        ),
    )


def reported_in_use(worker: WorkerStatus) -> int | None:
    """What the worker's last pong said it runs: ``in_flight``, else its metric."""
    if worker.in_flight is not None:
        return worker.in_flight
    metrics = worker.metrics or {}
    if "flux.running_executions" in metrics:
        return int(metrics["flux.running_executions"])
    return None


def listed_in_use(worker: WorkerStatus, jobs: JobsEvidence) -> tuple[int, int]:
    """(at least, at most) runs the executions listing puts on ``worker``: held ones, plus
    those SCHEDULED to it (a pong may or may not count them yet). A run listed twice whose
    records disagree counts at least if every record holds it, at most if any does."""
    phases: dict[str, set[JobPhase]] = {}
    for job in jobs.jobs:
        if job.assigned_worker == worker.name and not job.phase.terminal:
            phases.setdefault(job.id or job.name, set()).add(job.phase)
    low = sum(said <= IN_FLIGHT_PHASES for said in phases.values())
    high = sum(bool(said & RUNNING_PHASES) for said in phases.values())
    return low, high


def capacity_records(
    worker: WorkerStatus, jobs: JobsEvidence, listed_whole: bool
) -> list[WorkerCapacity]:
    """The worker's capacity record; two when its pong's figure and the executions listing
    (read whole: ``listed_whole``) disagree on what it runs, one by each."""
    reported = reported_in_use(worker)
    record = worker_capacity(worker, jobs)
    if reported is None or not listed_whole or not jobs.complete:
        return [record]
    low, high = listed_in_use(worker, jobs)
    if low <= reported <= high:
        return [record]
    counted = worker_capacity(
        worker,
        jobs,
        in_use=low,
        ref="executions held by the worker (GET /executions), max_concurrent_executions (SQLite)",
    )
    return [record, counted]


def capacity_evidence(
    workers: WorkersEvidence, jobs: JobsEvidence, *, listed_whole: bool = False
) -> CapacityEvidence:
    """Every worker's capacity; ``listed_whole``: every unfinished execution was listed, so
    what the listing puts on a worker can contradict its pong's ``in_flight``."""
    gaps = sorted(set(workers.gaps) | set(jobs.gaps))
    return CapacityEvidence(
        workers=[c for w in workers.workers for c in capacity_records(w, jobs, listed_whole)],
        complete=not gaps,
        gaps=gaps,
    )
