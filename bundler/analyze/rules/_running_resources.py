"""A running job's resource request against all its worker has: the capacity rung's question.

The guide asks "Does the worker have the resources and component capabilities
required by the job?" whatever the job's phase. For a job still waiting, what is
*free* decides (``matching.capacity_shortfalls``). For a job already running there,
free excludes the job's own use, so the request is compared with the worker's
*total*: a request above it is a worker that cannot hold the job at all, whatever
the job's state says (the two facts contradict, and the finding names both). A total
the bundle does not carry leaves the rung unknown: "adequate measured capacity" is
not read from no measurement.
"""

from __future__ import annotations

from schemas.evidence import CapacityEvidence, Job, WorkerCapacity, WorkerStatus

from .. import codes
from ..api import RuleContext
from ..facts import citations, cite, cite_job, cite_worker
from ..matching import total_shortfalls
from ._outcome import Outcome


def running_short_of_resources(
    ctx: RuleContext,
    job: Job,
    worker: WorkerStatus,
    w_index: int,
    cap: tuple[int, WorkerCapacity] | None,
    out: Outcome,
) -> None:
    """Fail (or leave unknown) a running job whose request exceeds its worker's total."""
    if job.phase.terminal or job.requirements is None:
        return
    for miss in total_shortfalls(job.requirements, worker, cap[1] if cap else None):
        if not miss.certain:
            out.unknown(
                miss.code,
                f"{job.name} reads as {job.phase.value} on {worker.name}, which cannot be "
                f"judged: {miss.message}.",
                requirement=miss.field,
            )
            continue
        out.fail(
            codes.RESOURCES_INSUFFICIENT,
            f"{job.name} reads as {job.phase.value} on {worker.name}, but {worker.name} does "
            f"not have the resources it requires ({miss.message}): the worker cannot hold "
            "the job's request even with nothing else running.",
            evidence=citations(
                cite_job(ctx.evidence, job, "requirements", *miss.field.split("/")),
                cite_job(ctx.evidence, job, "phase", value=job.phase.value),
                cite(ctx.evidence, CapacityEvidence, "workers", cap[0])
                if cap
                else cite_worker(ctx.evidence, w_index, "resources"),
            ),
            worker=worker.name,
            shortfall=miss.code,
            requirement=miss.field,
            contradicts={"job_phase": job.phase.value, "worker_total": miss.detail},
        )
