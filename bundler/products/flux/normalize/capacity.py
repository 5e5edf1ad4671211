"""Layer 6 facts: slots and resources per worker.

Flux spreads capacity over three places: the slot limit
(``max_concurrent_executions``) is only in SQLite, the running count is
``in_flight`` from the last pong, and the worker advertises
``flux.slots_free`` among its metrics. Server gauges that are known to be
wrong (``flux_workers_active`` goes negative, ``flux_execution_queue_depth``
is per-process) are deliberately not used: queue depth is counted from the
executions themselves.

``in_flight`` is as old as the last pong and can outlive what it counted (a worker
read ``in_flight: 2`` with nothing running). Two more sources count the same thing: the
worker's control socket (``flux worker status NAME`` on its host, read live) and the
executions listing, when it was read whole. Sources that agree make one record whose
``counted_by`` cites each of them; a source that counts otherwise gives the worker
another record (:func:`capacity_records`). The analyzer reads a worker's records that
disagree as a contradiction (``WORKER_RECORDS_CONFLICT``, capacity unknown, each source
cited), so no one number, nor a majority, makes the worker full or free.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Count:
    """One source's count of the executions a worker runs, and where it was read."""

    in_use: int
    source: Source


PONG_REF = "GET /workers in_flight (the worker's last pong)"
LISTING_REF = "the executions listing (GET /executions, every unfinished one)"


def pong_count(worker: WorkerStatus) -> Count | None:
    """What the worker's last pong said it runs, cited at its field of ``GET /workers``."""
    reported = reported_in_use(worker)
    if reported is None:
        return None
    field = "in_flight" if worker.in_flight is not None else "metrics/flux.running_executions"
    read = worker.source
    pointer = f"{read.pointer}/{field}" if read is not None and read.pointer is not None else None
    return Count(
        reported,
        Source(
            method="api",
            collector=read.collector if read else None,
            ref=PONG_REF,
            member=read.member if read else None,
            pointer=pointer,
        ),
    )


def _agreeing(counts: list[Count], listed: tuple[int, int] | None) -> list[list[Count]]:
    """The counts grouped by what they say, in order of first appearance. The listing gives a
    range (a SCHEDULED run may or may not be counted yet): it joins every group it admits,
    and is a group of its own (at its least) when it admits none."""
    groups: dict[int, list[Count]] = {}
    for count in counts:
        groups.setdefault(count.in_use, []).append(count)
    if listed is not None:
        low, high = listed
        listing = Source(method="derived", ref=LISTING_REF)
        admitted = [said for said in groups if low <= said <= high]
        for said in admitted:
            groups[said].append(Count(said, listing))
        if not admitted:
            groups[low] = [Count(low, listing)]
    return list(groups.values())


def capacity_records(
    worker: WorkerStatus, jobs: JobsEvidence, listed_whole: bool, control: Count | None = None
) -> list[WorkerCapacity]:
    """The worker's capacity record; one per count when its sources disagree on what it runs:
    its pong's ``in_flight``, its control socket's (``control``) and the executions listing
    (read whole: ``listed_whole``)."""
    pong = pong_count(worker)
    counts = [c for c in (pong, control) if c is not None]
    listed = listed_in_use(worker, jobs) if listed_whole and jobs.complete else None
    if not counts:
        return [worker_capacity(worker, jobs)]
    records = []
    for group in _agreeing(counts, listed):
        if pong is not None and pong in group:
            record = worker_capacity(worker, jobs)  # the server's figure, with its slots_free
        else:
            refs = " and ".join(str(c.source.ref) for c in group)
            record = worker_capacity(
                worker, jobs, in_use=group[0].in_use, ref=f"{refs}, max_concurrent_executions"
            )
        record.counted_by = [c.source for c in group]
        records.append(record)
    return records


def capacity_evidence(
    workers: WorkersEvidence,
    jobs: JobsEvidence,
    *,
    listed_whole: bool = False,
    controls: Mapping[tuple[str, str | None], Count] | None = None,
) -> CapacityEvidence:
    """Every worker's capacity; ``listed_whole``: every unfinished execution was listed, so
    what the listing puts on a worker can contradict its pong's ``in_flight``; ``controls``:
    what each worker's control socket counted, by (worker, host alias it was asked under)."""
    gaps = sorted(set(workers.gaps) | set(jobs.gaps))
    controls = controls or {}
    return CapacityEvidence(
        workers=[
            c
            for w in workers.workers
            for c in capacity_records(w, jobs, listed_whole, controls.get((w.name, w.host_alias)))
        ],
        complete=not gaps,
        gaps=gaps,
    )
