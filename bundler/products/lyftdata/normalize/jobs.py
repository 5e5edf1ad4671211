"""Jobs and the product's own placement verdicts (layer 3).

A job's placement spec (worker group, replicas [S]; labels, capabilities, OS,
explicit workers [I]) becomes canonical :class:`JobRequirements`; the
placement report's per-worker verdicts become :class:`JobPlacement`.
"""

from __future__ import annotations

from schemas.evidence import (
    Job,
    JobPhase,
    JobPlacement,
    JobRequirements,
    JobsEvidence,
    PlacementEvidence,
    ResourceRequest,
    WorkerPlacementVerdict,
)

from ...base import NormalizeContext
from ..raw import JobSummary, PlacementReport
from ..raw.jobs import JobPlacementSpec, JobResources
from ._util import fetched, first, gaps, labels_dict, model_list, utc

_PHASES = {
    "running": JobPhase.RUNNING,
    "active": JobPhase.RUNNING,
    "deployed": JobPhase.SCHEDULED,
    "pending": JobPhase.SCHEDULED,
    "not_deployed": JobPhase.UNASSIGNED,
    "stopped": JobPhase.PAUSED,
    "paused": JobPhase.PAUSED,
    "failed": JobPhase.FAILED,
    "completed": JobPhase.COMPLETED,
    "finished": JobPhase.COMPLETED,
}
_VERDICTS = ("placed", "eligible_not_placed", "filtered", "not_evaluated")


def job_requirements(
    spec: JobPlacementSpec | None, resources: JobResources | None = None
) -> JobRequirements | None:
    if spec is None and resources is None:
        return None
    spec = spec or JobPlacementSpec()
    return JobRequirements(
        worker_group=spec.worker_group,
        replicas=spec.replicas,
        labels=labels_dict(spec.labels),
        capabilities=list(spec.capabilities),
        os=spec.os,
        intended_workers=spec.workers,
        resources=None
        if resources is None
        else ResourceRequest(
            cpu=resources.cpu_cores,
            memory_bytes=resources.memory_bytes,
            disk_bytes=resources.disk_bytes,
        ),
    )


def _placements(ctx: NormalizeContext) -> dict[str, tuple[PlacementReport, object]]:
    out: dict[str, tuple[PlacementReport, object]] = {}
    for fetch in fetched(ctx, "job-placement"):
        report = fetch.model(PlacementReport)
        if report is not None:
            out[report.job] = (report, fetch)
    return out


def normalize_jobs(ctx: NormalizeContext) -> JobsEvidence:
    listing = first(ctx, "jobs")
    placements = _placements(ctx)
    doc = JobsEvidence(
        product="lyftdata",
        observed_at=ctx.observed_at,
        selection="every job the server lists",
        gaps=gaps(ctx, "jobs"),
    )
    doc.complete = listing is not None and not doc.gaps
    for index, job in model_list(listing, "lyftdata.job[]"):
        assert isinstance(job, JobSummary)
        placed = placements.get(job.name)
        placed_workers = (
            [p.worker_id for p in placed[0].per_worker if p.verdict == "placed"] if placed else []
        )
        doc.jobs.append(
            Job(
                name=job.name,
                id=job.id,
                kind="job",
                native_state=job.state,
                phase=_PHASES.get((job.state or "").lower(), JobPhase.UNKNOWN),
                assigned_worker=placed_workers[0] if len(placed_workers) == 1 else None,
                requirements=job_requirements(job.placement, job.resources),
                updated_at=utc(job.updated_at),
                source=listing.source(f"/{index}") if listing else None,
            )
        )
    return doc


def normalize_placement(ctx: NormalizeContext) -> PlacementEvidence:
    doc = PlacementEvidence(
        product="lyftdata", observed_at=ctx.observed_at, gaps=gaps(ctx, "job-placement")
    )
    doc.complete = not doc.gaps
    for fetch in fetched(ctx, "job-placement"):
        report = fetch.model(PlacementReport)
        if report is None:
            continue
        candidates = report.candidates
        doc.placements.append(
            JobPlacement(
                job=report.job,
                desired=job_requirements(report.desired),
                evaluated=candidates.evaluated if candidates else None,
                eligible=candidates.eligible if candidates else None,
                placed=candidates.placed if candidates else None,
                per_worker=[
                    WorkerPlacementVerdict(
                        worker=p.worker_id,
                        verdict=p.verdict if p.verdict in _VERDICTS else "not_evaluated",  # type: ignore[arg-type]
                        reasons=list(p.reasons),
                        detail=p.detail,
                    )
                    for p in report.per_worker
                ],
                native_code=report.code,
                summary=report.summary,
                source=fetch.source(),
            )
        )
    return doc
