"""Placement derived with Flux's own dispatch rules (Flux does not report it).

For every unfinished execution, each worker is judged: ``placed`` (it holds
the execution), ``eligible_not_placed`` (it could take it now), or
``filtered`` with the reasons (a label it lacks, a resource it cannot offer,
a pin to another worker, or being offline, unhealthy or paused). This is
what turns a silent CREATED execution into "no online worker carries
zone=mars".
"""

from __future__ import annotations

from schemas.evidence import (
    Job,
    JobPlacement,
    JobsEvidence,
    PlacementEvidence,
    Source,
    WorkerPlacementVerdict,
    WorkersEvidence,
    WorkerStatus,
)

from ..matching import availability, mismatches


def judge(job: Job, worker: WorkerStatus) -> WorkerPlacementVerdict:
    if job.assigned_worker == worker.name:
        return WorkerPlacementVerdict(worker=worker.name, verdict="placed")
    reasons = mismatches(job.requirements, worker) + availability(worker)
    if not reasons:
        return WorkerPlacementVerdict(worker=worker.name, verdict="eligible_not_placed")
    return WorkerPlacementVerdict(
        worker=worker.name,
        verdict="filtered",
        reasons=sorted({r.code for r in reasons}),
        detail="; ".join(f"{r.requirement}: {r.detail}" for r in reasons),
    )


def placement_for(job: Job, workers: list[WorkerStatus]) -> JobPlacement:
    verdicts = [judge(job, worker) for worker in workers]
    eligible = sum(v.verdict in ("placed", "eligible_not_placed") for v in verdicts)
    placed = sum(v.verdict == "placed" for v in verdicts)
    if placed:
        summary = f"held by {job.assigned_worker}"
    elif eligible:
        names = [v.worker for v in verdicts if v.verdict == "eligible_not_placed"]
        summary = f"{eligible} worker(s) could take it now: {', '.join(names)}"
    else:
        summary = "no connected, healthy, active worker meets its requirements"
    return JobPlacement(
        job=job.name,
        desired=job.requirements,
        evaluated=len(verdicts),
        eligible=eligible,
        placed=placed,
        per_worker=verdicts,
        summary=summary,
        source=Source(method="derived", ref="Flux dispatch rules on jobs and workers evidence"),
        execution_id=job.id,
    )


def placement_evidence(jobs: JobsEvidence, workers: WorkersEvidence) -> PlacementEvidence:
    placements = [
        placement_for(job, workers.workers) for job in jobs.jobs if not job.phase.terminal
    ]
    gaps = sorted(set(jobs.gaps) | set(workers.gaps))
    return PlacementEvidence(placements=placements, complete=not gaps, gaps=gaps)
