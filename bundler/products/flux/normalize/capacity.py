"""Layer 6 facts: slots and resources per worker.

Flux spreads capacity over three places: the slot limit
(``max_concurrent_executions``) is only in SQLite, the running count is
``in_flight`` from the last pong, and the worker advertises
``flux.slots_free`` among its metrics. Server gauges that are known to be
wrong (``flux_workers_active`` goes negative, ``flux_execution_queue_depth``
is per-process) are deliberately not used: queue depth is counted from the
executions themselves.
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


def free_slots(worker: WorkerStatus) -> float | None:
    """Free slots: the worker's own figure, else the limit minus what runs (0 = unlimited)."""
    if worker.metrics and "flux.slots_free" in worker.metrics:
        return worker.metrics["flux.slots_free"]
    if worker.slots_max and worker.in_flight is not None:
        return float(max(worker.slots_max - worker.in_flight, 0))
    return None


def worker_capacity(worker: WorkerStatus, jobs: JobsEvidence) -> WorkerCapacity:
    res = worker.resources
    metrics = worker.metrics or {}
    held = [j for j in jobs.jobs if j.assigned_worker == worker.name and not j.phase.terminal]
    waiting = [
        j
        for j in jobs.jobs
        if j.phase is JobPhase.UNASSIGNED and not mismatches(j.requirements, worker)
    ]
    in_use = worker.in_flight
    if in_use is None and "flux.running_executions" in metrics:
        in_use = int(metrics["flux.running_executions"])
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
        slots_free=free_slots(worker),
        jobs_assigned=len(held),
        jobs_running=sum(j.phase in RUNNING_PHASES for j in held),
        queue_pending=len(waiting),
        limits={k: v for k, v in metrics.items() if k.startswith("flux.")},
        source=Source(
            method="derived",
            ref="in_flight and metrics (GET /workers), max_concurrent_executions (SQLite)",
        ),
    )


def capacity_evidence(workers: WorkersEvidence, jobs: JobsEvidence) -> CapacityEvidence:
    gaps = sorted(set(workers.gaps) | set(jobs.gaps))
    return CapacityEvidence(
        workers=[worker_capacity(w, jobs) for w in workers.workers],
        complete=not gaps,
        gaps=gaps,
    )
