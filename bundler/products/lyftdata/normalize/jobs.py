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

from ...raw import RawReader
from ..raw import JobSummary, PlacementReport
from ..raw.jobs import JobPlacementSpec, JobResources
from .reading import gaps, labels_dict, settle_gaps, utc

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


def _placements(reader: RawReader) -> dict[str, list[PlacementReport]]:
    """Every placement report of each job: one job asked for twice has two (``jobs.json``
    listing it twice), and neither the first nor the last is the true one."""
    found: dict[str, list[PlacementReport]] = {}
    for read in reader.items("job-placement", PlacementReport):
        found.setdefault(read.value.job, []).append(read.value)
    return found


def _assigned(reports: list[PlacementReport]) -> str | None:
    """The one worker every placement report of a job places it on; None when none, several,
    or when the reports (or one report's verdicts on a worker) disagree: the placement rung
    says so, this is not where to settle it."""
    placed: set[frozenset[str]] = set()
    for report in reports:
        verdicts: dict[str, set[str]] = {}
        for verdict in report.per_worker:
            verdicts.setdefault(verdict.worker_id, set()).add(verdict.verdict)
        if any(len(said) > 1 for said in verdicts.values()):
            return None
        placed.add(frozenset(w for w, said in verdicts.items() if said == {"placed"}))
    only = placed.pop() if len(placed) == 1 else frozenset()
    return next(iter(only)) if len(only) == 1 else None


def normalize_jobs(reader: RawReader) -> JobsEvidence:
    placements = _placements(reader)
    doc = JobsEvidence(
        product="lyftdata",
        observed_at=reader.ctx.observed_at,
        selection="every job the server lists",
        gaps=gaps(reader, "jobs"),
    )
    doc.complete = reader.has_document("jobs") and not doc.gaps
    for listed in reader.listed("jobs", JobSummary):
        job = listed.value
        doc.jobs.append(
            Job(
                name=job.name,
                id=job.id,
                kind="job",
                native_state=job.state,
                phase=_PHASES.get((job.state or "").lower(), JobPhase.UNKNOWN),
                assigned_worker=_assigned(placements.get(job.name, [])),
                requirements=job_requirements(job.placement, job.resources),
                updated_at=utc(job.updated_at),
                source=listed.source(),
            )
        )
    settle_gaps(doc, reader, "jobs")
    return doc


def normalize_placement(reader: RawReader) -> PlacementEvidence:
    doc = PlacementEvidence(
        product="lyftdata", observed_at=reader.ctx.observed_at, gaps=gaps(reader, "job-placement")
    )
    doc.complete = not doc.gaps
    for fetch in reader.items("job-placement", PlacementReport):
        report = fetch.value
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
    settle_gaps(doc, reader, "job-placement")
    return doc
