"""Layer 3 for Flux: can any worker take this execution at all?

A Flux execution that no worker can take stays CREATED with no event and no
log line, forever (unless it has a park TTL). This rule compares what it
asks (workflow affinity and requests, pins) with every worker by Flux's own
dispatch rules and names each unmatched requirement and the workers that
fail it.
"""

from __future__ import annotations

from collections.abc import Iterable

from bundler.analyze.api import RuleContext, RuleResult, make_finding, rule
from bundler.analyze.codes import (
    WORKER_DRAINING,
    WORKER_PAUSED,
    WORKER_UNHEALTHY,
    WORKERS_EVIDENCE_INCOMPLETE,
)
from bundler.analyze.contradictions import conflicts_unknown
from bundler.analyze.facts import citations, cite_events, cite_job, job_label
from bundler.analyze.wording import by_reason, listed_names, plural, with_detail
from schemas import Layer
from schemas.evidence import Job, JobPhase, WorkersEvidence, WorkerStatus

from .. import codes, recovery
from ..matching import availability, mismatches, ready_for
from .facts import FLUX

WAITING = (JobPhase.UNASSIGNED, JobPhase.SCHEDULED)
PARK_TIMEOUT = "ParkTimeoutError"
"""What Flux fails an execution with when no worker claimed it before its park deadline."""


def _park_timeout(ctx: RuleContext, job: Job) -> RuleResult | None:
    """A run Flux failed at dispatch (park TTL expired): a placement failure, with its cause."""
    logged = [e for e in ctx.timeline.of_kind("park_failed") if job.id and e.execution == job.id]
    if PARK_TIMEOUT not in (job.error or "") and not logged:
        return None
    workers_doc = ctx.evidence.get(WorkersEvidence)
    workers = workers_doc.workers if workers_doc else []
    unmatched: dict[str, list[str]] = {}
    for worker in workers:
        for miss in mismatches(job.requirements, worker):
            unmatched.setdefault(miss.wanted, []).append(f"{worker.name} ({miss.detail})")
    universal = sorted(r for r, who in unmatched.items() if len(who) == len(workers))
    wanted = ", ".join(universal) or "its requirements"
    why = (
        f"no worker meets {wanted}"
        if universal
        else "no eligible worker was free to claim it in time"
    )
    evidence = [cite_job(ctx.evidence, job, "error", value=job.error), *cite_events(logged[:2])]
    if workers_doc is not None:
        evidence.append(ctx.evidence.cite(WorkersEvidence, "/workers"))
    return RuleResult.fail(
        codes.FLUX_PARK_TIMEOUT,
        f"{job_label(job)} failed at dispatch: its park TTL expired before any worker claimed "
        f"it ({PARK_TIMEOUT}), because {why}.",
        evidence=[c for c in evidence if c is not None],
        native_code=PARK_TIMEOUT,
        recovery=recovery.park_timeout(universal),
        acceptance=[f"a new run of {job.name} is CLAIMED by a worker"],
        unmatched=universal,
        cause="park_ttl",
    )


@rule(Layer.PLACEMENT, products=FLUX)
def flux_execution_placement(ctx: RuleContext) -> RuleResult | None:
    job = ctx.target.job
    if job is None:
        return RuleResult.not_applicable()
    if job.phase.terminal:
        return _park_timeout(ctx, job) if job.phase is JobPhase.FAILED else None
    if job.phase not in WAITING and job.assigned_worker:
        return RuleResult.pass_(
            make_finding(
                codes.FLUX_EXECUTION_PLACED,
                "pass",
                f"{job_label(job)} is held by worker {job.assigned_worker} ({job.native_state}).",
                evidence=citations(
                    cite_job(ctx.evidence, job, "assigned_worker", value=job.assigned_worker)
                ),
            )
        )
    workers_doc = ctx.evidence.get(WorkersEvidence)
    if workers_doc is None:
        return None
    workers = workers_doc.workers
    statically = [w for w in workers if not mismatches(job.requirements, w)]
    # A worker listed twice can take it only if every record of it says so, and cannot only
    # if none does: where its records disagree, so does the answer.
    ready = ready_for(job, workers)
    available = [w for _, w in ready.yes]
    evidence = citations(
        cite_job(ctx.evidence, job, "native_state", value=job.native_state),
        ctx.evidence.cite(WorkersEvidence, "/workers"),
    )
    if available:
        names = listed_names([w.name for w in available])
        return RuleResult.pass_(
            make_finding(
                codes.FLUX_ELIGIBLE_WORKERS,
                "pass",
                f"{job_label(job)} can run on {names}.",
                evidence=evidence,
            )
        )
    if ready.disputed:
        return conflicts_unknown(ctx.evidence, ready.disputed, Layer.PLACEMENT)
    if not workers_doc.complete:  # a worker that can take it may be in what was not read
        return RuleResult.unknown(
            WORKERS_EVIDENCE_INCOMPLETE,
            f"{job_label(job)} stays {job.native_state}: no worker in the (incomplete) worker "
            "list can take it, and one missing from it may.",
            [ctx.evidence.cite(WorkersEvidence, "/gaps", workers_doc.gaps)],
        )
    if statically:
        states = by_reason(
            _each_worker((w.name, [m.detail for m in availability(w)]) for w in statically)
        )
        return RuleResult.fail(
            codes.FLUX_ELIGIBLE_WORKERS_UNAVAILABLE,
            f"{job_label(job)} waits: the only "
            f"{plural(len(statically), 'worker that meets', 'workers that meet')} its "
            f"requirements cannot take work now ({states}).",
            evidence=evidence,
            recovery=recovery.eligible_unavailable(**_by_cause(statically)),
            eligible=[w.name for w in statically],
        )
    online = [w for w in workers if not availability(w)] or workers
    unmatched: dict[str, list[tuple[str, str]]] = {}
    for worker in online:
        for miss in mismatches(job.requirements, worker):
            unmatched.setdefault(miss.wanted, []).append((worker.name, miss.detail))
    universal = {req: who for req, who in unmatched.items() if len(who) == len(online)}
    named = universal or unmatched
    parts = " | ".join(f"{req}: {with_detail(who)}" for req, who in sorted(named.items()))
    scope = "online worker" if online is not workers else "worker"
    return RuleResult.fail(
        codes.FLUX_NO_ELIGIBLE_WORKER,
        f"{job_label(job)} stays {job.native_state}: no {scope} meets "
        f"{', '.join(sorted(named)) or 'its requirements'} ({parts}).",
        evidence=evidence,
        recovery=recovery.no_eligible_worker(sorted(named)),
        acceptance=[f"{job_label(job)} is CLAIMED by a worker"],
        unmatched=sorted(named),
        workers_checked=[w.name for w in online],
    )


CAUSES = {
    "WORKER_NOT_ONLINE": "offline",
    WORKER_UNHEALTHY: "unhealthy",
    WORKER_PAUSED: "paused",
    WORKER_DRAINING: "draining",
}
"""Why a matching worker cannot take work (:func:`~bundler.analyze.matching.availability`'s
code) -> the argument of :func:`.recovery.eligible_unavailable` whose step repairs it."""


def _by_cause(workers: Iterable[WorkerStatus]) -> dict[str, list[str]]:
    """The workers' names by why they cannot take work, so the recovery says each cause's
    own step; a worker listed twice with records that disagree is named under each."""
    named: dict[str, list[str]] = {}
    for worker in workers:
        for miss in availability(worker):
            cause = CAUSES.get(miss.code)
            if cause is None:  # a reason without a step of its own: the generic steps stand
                continue
            who = named.setdefault(cause, [])
            if worker.name not in who:
                who.append(worker.name)
    return named


def _each_worker(said: Iterable[tuple[str, list[str]]]) -> dict[str, list[str]]:
    """Details per worker; one listed more than once gives every record's, sorted."""
    merged: dict[str, list[str]] = {}
    twice: set[str] = set()
    for name, details in said:
        if name in merged:
            twice.add(name)
        merged.setdefault(name, []).extend(d for d in details if d not in merged[name])
    return {name: sorted(d) if name in twice else d for name, d in merged.items()}
