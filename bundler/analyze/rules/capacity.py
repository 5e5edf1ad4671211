"""Rung 6, capacity: does the worker have the resources and capabilities the job needs?

What blocks a *waiting* job fails here: every slot busy (naming the worker
and its limit), a resource below the job's request, a missing component
capability, or a worker declining new work (unhealthy, paused). For a job
already running, or a worker on its own, a full worker only warns: the work
is flowing, new work will queue. A job that reads as running on a worker
that lacks a capability it requires is a contradiction (one of the two facts
is wrong, and the job cannot use a component the worker does not have): that
fails, naming both facts; so does one whose request exceeds all its worker has
(``_running_resources``). Capacity evidence the bundle should hold but does
not (a capacity report that failed or timed out) is unknown, never adequate.
"""

from __future__ import annotations

from schemas import Citation, Layer
from schemas.evidence import CapacityEvidence, Job, WorkerCapacity, WorkerStatus

from .. import codes
from ..api import RuleContext, RuleResult, make_finding, rule
from ..facts import (
    capacity_entry,
    citations,
    cite,
    cite_job,
    cite_worker,
    find_worker,
    waiting,
    workers,
)
from ..matching import (
    ADMIN_STATE_CODES,
    Mismatch,
    availability,
    capability_shortfalls,
    capacity_shortfalls,
    rank_candidates,
    slot_usage,
)
from ..wording import by_reason, counted
from ._outcome import Outcome
from ._running_resources import running_short_of_resources

DEFAULT_THRESHOLDS = {"cpu_pct": 80.0, "mem_pct": 85.0, "queue_pending": 100.0}
"""LyftData's published scale signals; a product's own thresholds win."""


@rule(Layer.CAPACITY)
def job_fits_worker(ctx: RuleContext) -> RuleResult | None:
    if ctx.target.worker is None:
        return RuleResult.not_applicable(
            codes.NO_TARGET_WORKER, "No worker is selected: capacity is judged per worker."
        )
    found = find_worker(ctx.evidence, ctx.target.worker)
    if found is None:
        return RuleResult.unknown(
            codes.WORKER_NOT_IN_EVIDENCE, f"Worker {ctx.target.worker} is not in the worker list."
        )
    w_index, worker = found
    cap = capacity_entry(ctx.evidence, worker.name)
    job = ctx.target.job
    blocking = job is not None and waiting(job)
    req = job.requirements if blocking and job is not None else None
    shortfalls = capacity_shortfalls(req, worker, cap[1] if cap else None)
    out = Outcome()
    for miss in shortfalls:
        _report(ctx, worker, w_index, cap, miss, blocking, out)
    if job is not None and not blocking and job.requirements is not None:
        _running_without_capability(ctx, job, worker, w_index, out)
        running_short_of_resources(ctx, job, worker, w_index, cap, out)
    if blocking:
        _declining(ctx, worker, w_index, out)
    if out.failures and job is not None:
        _note_alternatives(ctx, job, worker.name, out)
    doc = ctx.evidence.get(CapacityEvidence)
    if doc is None:
        out.unknown(
            codes.CAPACITY_EVIDENCE_MISSING,
            f"The bundle has no capacity document: whether {worker.name} has room and the "
            "measured resources for the job is unknown.",
        )
    elif cap is None and not doc.complete:
        out.unknown(
            codes.CAPACITY_EVIDENCE_MISSING,
            f"The capacity report for {worker.name} is missing: "
            f"{', '.join(doc.gaps) or 'a capacity collector'} did not complete.",
            evidence=[cite(ctx.evidence, CapacityEvidence, "gaps", value=doc.gaps)],
            missing=list(doc.gaps),
        )
    elif not out and cap is None and worker.resources is None and slot_usage(worker, None) is None:
        out.unknown(
            codes.CAPACITY_EVIDENCE_MISSING,
            f"The bundle has no resource or slot figures for {worker.name}.",
        )
    return out.result(
        make_finding(
            codes.CAPACITY_ADEQUATE,
            "pass",
            _adequate(worker, cap[1] if cap else None),
            evidence=citations(_slots_cite(ctx, worker, w_index, cap)),
        )
    )


def _report(
    ctx: RuleContext,
    worker: WorkerStatus,
    w_index: int,
    cap: tuple[int, WorkerCapacity] | None,
    miss: Mismatch,
    blocking: bool,
    out: Outcome,
) -> None:
    if not miss.certain:
        out.unknown(miss.code, f"{worker.name}: {miss.message}.", requirement=miss.field)
        return
    job = ctx.target.job
    if miss.code == codes.SLOTS_SATURATED:
        where = citations(_slots_cite(ctx, worker, w_index, cap))
        if blocking and job is not None:
            out.fail(
                codes.SLOTS_SATURATED,
                f"{job.name} waits because {worker.name} is full: {miss.message}. It starts "
                "when a slot frees.",
                evidence=where,
                worker=worker.name,
            )
        else:
            out.warn(
                codes.SLOTS_SATURATED,
                f"{worker.name} is full: {miss.message}; new work queues.",
                evidence=where,
                worker=worker.name,
            )
        return
    code = (
        codes.CAPABILITY_MISSING
        if miss.code == codes.CAPABILITY_MISSING
        else codes.RESOURCES_INSUFFICIENT
    )
    where = citations(
        cite_job(ctx.evidence, job, "requirements", *miss.field.split("/")) if job else None,
        cite(ctx.evidence, CapacityEvidence, "workers", cap[0])
        if cap
        else cite_worker(
            ctx.evidence,
            w_index,
            "resources" if code != codes.CAPABILITY_MISSING else "capabilities",
        ),
    )
    name = job.name if job else "the job"
    out.fail(
        code,
        f"{worker.name} cannot run {name}: {miss.message}.",
        evidence=where,
        worker=worker.name,
        shortfall=miss.code,
        requirement=miss.field,
    )


def _running_without_capability(
    ctx: RuleContext, job: Job, worker: WorkerStatus, w_index: int, out: Outcome
) -> None:
    """A job that reads as running where a capability it needs is missing: say what contradicts."""
    if job.phase.terminal or job.requirements is None:
        return
    for miss in capability_shortfalls(job.requirements, worker):
        if not miss.certain:
            out.unknown(miss.code, f"{worker.name}: {miss.message}.", requirement=miss.field)
            continue
        name = miss.field.split("/", 1)[-1]
        out.fail(
            codes.CAPABILITY_MISSING,
            f"{job.name} reads as {job.phase.value} on {worker.name}, but {worker.name} does not "
            f"offer the {name} capability the job requires: the two cannot both be true, and "
            f"a job cannot use a component its worker lacks.",
            evidence=citations(
                cite_job(ctx.evidence, job, "requirements", *miss.field.split("/")),
                cite_job(ctx.evidence, job, "phase", value=job.phase.value),
                cite_worker(ctx.evidence, w_index, "capabilities", value=worker.capabilities),
            ),
            worker=worker.name,
            shortfall=miss.code,
            requirement=miss.field,
            contradicts={"job_phase": job.phase.value, "worker_capabilities": worker.capabilities},
        )


def _note_alternatives(ctx: RuleContext, job: Job, chosen: str, out: Outcome) -> None:
    """Say how every *other* worker the job is meant for compares (the fleet view)."""
    doc = ctx.evidence.get(CapacityEvidence)
    caps = {c.worker: c for c in (doc.workers if doc else [])}
    others = [
        c
        for c in rank_candidates(job.requirements, workers(ctx.evidence), caps)
        if c.intended and c.worker.name != chosen
    ]
    said: dict[str, set[str]] = {}
    for other in others:
        short = [m.message for m in other.capacity if m.certain]
        blocked = availability(other.worker)
        verdict = ", ".join(short + [b.code.lower() for b in blocked]) or "fits"
        said.setdefault(other.worker.name, set()).add(verdict)
    # A worker listed twice with records that disagree: each record's word, not the last one's.
    verdicts = {name: " / ".join(sorted(words)) for name, words in said.items()}
    if not verdicts:
        text = "No other worker is meant for this job."
    else:
        text = (
            "Other workers meant for it: "
            + by_reason({name: [why] for name, why in verdicts.items()})
            + "."
        )
    first = out.failures[0]
    first.message = f"{first.message} {text}"
    first.details["other_workers"] = verdicts


def _declining(ctx: RuleContext, worker: WorkerStatus, w_index: int, out: Outcome) -> None:
    job = ctx.target.job
    name = job.name if job else "the job"
    if worker.health.value == "unhealthy":
        out.fail(
            codes.WORKER_UNHEALTHY,
            f"{name} waits because {worker.name} reports itself unhealthy and declines new "
            "work until it recovers.",
            evidence=[cite_worker(ctx.evidence, w_index, "health", value="unhealthy")],
        )
    if worker.admin.value in ("paused", "draining"):
        state = worker.admin.value
        out.fail(
            ADMIN_STATE_CODES[worker.admin],
            f"{name} waits because {worker.name} is {state} and takes no new work.",
            evidence=[cite_worker(ctx.evidence, w_index, "admin", value=state)],
        )


def _slots_cite(
    ctx: RuleContext, worker: WorkerStatus, w_index: int, cap: tuple[int, WorkerCapacity] | None
) -> Citation | None:
    if cap is not None:
        entry = cap[1]
        field = "slots_free" if entry.slots_free is not None else "slots_in_use"
        return cite(
            ctx.evidence, CapacityEvidence, "workers", cap[0], field, value=getattr(entry, field)
        )
    if worker.in_flight is not None:
        return cite_worker(ctx.evidence, w_index, "in_flight", value=worker.in_flight)
    return None


def _adequate(worker: WorkerStatus, cap: WorkerCapacity | None) -> str:
    slots = slot_usage(worker, cap)
    if slots is not None and slots[1] > 0:
        return f"{worker.name} has room: {slots[0]} of {counted(slots[1], 'slot')} in use."
    return f"{worker.name} has the resources and capabilities the job asks for."


@rule(Layer.CAPACITY)
def worker_pressure(ctx: RuleContext) -> RuleResult | None:
    """Load signals: warn, never block.

    CPU and memory are single readings at collection time, not sustained
    averages, so they only warn when a job is waiting for this worker; otherwise
    they are shown as notes (a busy second must not turn a healthy fleet
    degraded). A queue backlog or backpressure is state, and always warns.
    """
    if ctx.target.worker is None:
        return None
    found = capacity_entry(ctx.evidence, ctx.target.worker)
    if found is None:
        return None
    index, cap = found
    doc = ctx.evidence.get(CapacityEvidence)
    limits = {**DEFAULT_THRESHOLDS, **(doc.thresholds if doc else {})}
    out = Outcome()
    job = ctx.target.job
    momentary = out.warn if job is not None and waiting(job) else out.note

    def at(field: str, value: object) -> list[Citation]:
        return [cite(ctx.evidence, CapacityEvidence, "workers", index, field, value=value)]

    if cap.cpu_util_pct is not None and cap.cpu_util_pct > limits["cpu_pct"]:
        momentary(
            codes.CPU_SATURATED,
            f"{cap.worker}'s CPU is {cap.cpu_util_pct:.0f}% busy "
            f"(threshold {limits['cpu_pct']:.0f}%).",
            evidence=at("cpu_util_pct", cap.cpu_util_pct),
        )
    if cap.memory_total_bytes and cap.memory_available_bytes is not None:
        used = 100.0 * (1 - cap.memory_available_bytes / cap.memory_total_bytes)
        if used > limits["mem_pct"]:
            momentary(
                codes.MEMORY_PRESSURE,
                f"{cap.worker}'s memory is {used:.0f}% used (threshold {limits['mem_pct']:.0f}%).",
                evidence=at("memory_available_bytes", cap.memory_available_bytes),
            )
    if cap.queue_pending is not None and cap.queue_pending > limits["queue_pending"]:
        out.warn(
            codes.QUEUE_BACKLOG,
            f"{cap.queue_pending} items are queued on {cap.worker} "
            f"(threshold {limits['queue_pending']:.0f}).",
            evidence=at("queue_pending", cap.queue_pending),
        )
    if cap.backpressure:
        out.warn(
            codes.BACKPRESSURE,
            f"{cap.worker} reports backpressure from its outputs.",
            evidence=at("backpressure", True),
        )
    return out.result() if out else None


RULES = (job_fits_worker, worker_pressure)
