"""Flux executions as canonical jobs: phase, worker, requirements, events, claim generation.

An execution's requirements live in three places: its workflow's
``affinity`` and ``requests`` (API), and its pins (``required_worker``,
``preferred_worker``: SQLite only, set by the ``X-Flux-Require-Worker`` /
``X-Flux-Preferred-Worker`` headers). ``claim_generation`` > 1 means it was
dispatched more than once (evicted, released, reclaimed).
"""

from __future__ import annotations

from typing import Any

from schemas.evidence import Job, JobEvent, JobPhase, JobRequirements, JobsEvidence, ResourceRequest

from ..matching import memory_bytes
from ..models import DbExecution, ExecutionDetail, ExecutionSummary, Workflow
from .records import FluxRecords, Located
from .workers import as_utc

PHASES: dict[str, JobPhase] = {
    "CREATED": JobPhase.UNASSIGNED,
    "RESUMING": JobPhase.UNASSIGNED,
    "SCHEDULED": JobPhase.SCHEDULED,
    "RESUME_SCHEDULED": JobPhase.SCHEDULED,
    "CLAIMED": JobPhase.CLAIMED,
    "RESUME_CLAIMED": JobPhase.CLAIMED,
    "RUNNING": JobPhase.RUNNING,
    "CANCELLING": JobPhase.RUNNING,
    "PAUSED": JobPhase.PAUSED,
    "COMPLETED": JobPhase.COMPLETED,
    "FAILED": JobPhase.FAILED,
    "CANCELLED": JobPhase.CANCELLED,
}
MAX_EVENTS = 200


def requirements(workflow: Workflow | None, db: DbExecution | None) -> JobRequirements:
    """What the execution asks of a worker (workflow constraints plus pins)."""
    wanted = JobRequirements()
    if workflow is not None:
        if isinstance(workflow.affinity, dict):
            wanted.labels = dict(workflow.affinity)
        requests = workflow.requests or {}
        other: dict[str, Any] = {}
        if workflow.affinity and not isinstance(workflow.affinity, dict):
            other["affinity_expression"] = workflow.affinity
        if requests.get("packages"):
            other["packages"] = list(requests["packages"])
        if workflow.runner:
            other["runner"] = workflow.runner
        if requests or other:
            wanted.resources = ResourceRequest(
                cpu=requests.get("cpu"),
                memory_bytes=memory_bytes(requests.get("memory")),
                gpu=requests.get("gpu"),
                disk_bytes=requests.get("disk"),
                other=other,
            )
    if db is not None:
        wanted.required_worker = db.required_worker or None
        wanted.preferred_worker = db.preferred_worker or None
    return wanted


def _events(detail: ExecutionDetail | None) -> list[JobEvent]:
    if detail is None:
        return []
    events = [
        JobEvent(type=e.type, at=as_utc(e.time), source=e.source_id, detail=e.name)
        for e in detail.events
    ]
    return events[-MAX_EVENTS:]


def _error(detail: ExecutionDetail | None) -> str | None:
    if detail is None or detail.state != "FAILED":
        return None
    output = detail.output
    if isinstance(output, dict) and output.get("message"):
        return f"{output.get('type', 'Error')}: {output['message']}"
    return str(output) if output else None


def build_job(
    execution_id: str,
    summary: Located[ExecutionSummary] | None,
    detail: Located[ExecutionDetail] | None,
    db: DbExecution | None,
    workflow: Workflow | None,
) -> Job:
    record = detail.value if detail else None
    listed = summary.value if summary else None
    head = record or listed or db
    assert head is not None, "an execution comes from at least one source"
    namespace, name, state = head.workflow_namespace, head.workflow_name, head.state
    worker = (record.current_worker if record else None) or (listed.worker_name if listed else None)
    worker = worker or (db.worker_name if db else None) or None
    events = _events(record)
    job = Job(
        name=f"{namespace}/{name}",
        id=execution_id,
        kind="execution",
        native_state=state,
        phase=PHASES.get(state, JobPhase.UNKNOWN),
        assigned_worker=worker,
        requirements=requirements(workflow, db),
        events=events,
        claim_generation=db.claim_generation if db else None,
        created_at=events[0].at if events else as_utc(db.first_event_at if db else None),
        updated_at=events[-1].at if events else as_utc(db.last_event_at if db else None),
        error=_error(record),
        source=located.source if (located := summary or detail) else None,
        park_deadline=as_utc(db.park_deadline) if db else None,
    )
    return job


def _records(
    summaries: list[Located[ExecutionSummary]],
    details: list[Located[ExecutionDetail]],
) -> list[tuple[Located[ExecutionSummary] | None, Located[ExecutionDetail] | None]]:
    """Each way the API's records of one execution combine: every detail (the newer read)
    with every listing, or every listing alone (the database row goes with each)."""
    listed: list[Located[ExecutionSummary] | None] = [*summaries] or [None]
    if details:
        return [(summary, detail) for detail in details for summary in listed]
    return [(summary, None) for summary in listed]


def _state(
    summary: Located[ExecutionSummary] | None,
    detail: Located[ExecutionDetail] | None,
    db: DbExecution | None,
) -> ExecutionDetail | ExecutionSummary | DbExecution | None:
    return detail.value if detail else summary.value if summary else db


def jobs_evidence(flux: FluxRecords) -> JobsEvidence:
    """Every execution that is not finished, as a job: each of its records that says
    something else as a record of its own (an execution read under two states is one entry
    listed twice, whose records disagree, never the first or last read)."""
    summaries = flux.execution_summaries
    details = flux.execution_details
    ids = set(summaries) | set(details) | set(flux.db_executions)
    jobs = []
    for execution_id in sorted(ids):
        db_row = flux.db_executions.get(execution_id)
        db = db_row.value if db_row else None
        reads = _records(summaries.get(execution_id, []), details.get(execution_id, []))
        heads = [head for summary, detail in reads if (head := _state(summary, detail, db))]
        if not heads or all(head.state == "COMPLETED" for head in heads):
            continue  # finished runs are the outcome layer's canaries, not jobs to debug
        built: dict[str, Job] = {}
        for summary, detail in reads:
            head = _state(summary, detail, db)
            assert head is not None
            workflow = flux.workflows.get(f"{head.workflow_namespace}/{head.workflow_name}")
            job = build_job(execution_id, summary, detail, db, workflow.value if workflow else None)
            built.setdefault(job.model_dump_json(exclude={"source"}), job)
        jobs += [built[said] for said in sorted(built)]
    # each step once: naming a step per result made this quadratic in the fleet (1,000
    # log results, each asking for all 1,000: 8 million gap checks, ~20 s of analyze)
    execution_steps = dict.fromkeys(
        r.step for r in flux.ctx.results if r.step.startswith("execution")
    )
    gaps = sorted(
        set(flux.failed(*execution_steps))
        | set(flux.failed("workflows", "workflow", "db-executions"))
    )
    return JobsEvidence(
        jobs=jobs,
        selection="non-terminal executions (up to 200 per state) and up to 20 failed ones",
        complete=not gaps,
        gaps=gaps,
    )
