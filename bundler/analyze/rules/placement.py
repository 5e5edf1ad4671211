"""Rung 3, placement: is the exact job intended for this worker or worker group?

When the product computes placement itself (LyftData) its verdict is used
(``PlacementEvidence``). Otherwise (Flux) placement is derived: the job's
requirements — pinning, assignment list, group, labels, OS — are compared with
every worker, and each unmatched label is named per worker, because "no
worker matches" is only actionable when it says what is missing where.
"""

from __future__ import annotations

from collections.abc import Iterable

from schemas import Citation, Layer
from schemas.evidence import (
    CapacityEvidence,
    Job,
    JobRequirements,
    WorkersEvidence,
    WorkerStatus,
)

from .. import codes
from ..api import RuleContext, RuleResult, make_finding, rule
from ..contradictions import conflicts_unknown, settled
from ..facts import citations, cite, cite_job, find_worker, job_label, workers
from ..matching import Candidate, placement_mismatches, rank_candidates
from ..wording import CITED, by_reason, listed_names
from ._native_placement import judge_native, native_placement


@rule(Layer.PLACEMENT)
def job_placement(ctx: RuleContext) -> RuleResult | None:
    job = ctx.target.job
    if job is None:
        return RuleResult.not_applicable(
            codes.NO_TARGET_JOB, "No job selected: placement is per job."
        )
    native = native_placement(ctx, job)
    if native is not None:
        return judge_native(ctx, job, *native)
    if job.assigned_worker:
        return _assigned(ctx, job)
    return _derived(ctx, job)


def _assigned(ctx: RuleContext, job: Job) -> RuleResult:
    where = citations(cite_job(ctx.evidence, job, "assigned_worker", value=job.assigned_worker))
    if ctx.target.worker in (None, job.assigned_worker):
        return RuleResult.pass_(
            make_finding(
                codes.JOB_ASSIGNED,
                "pass",
                f"{job_label(job)} is assigned to {job.assigned_worker}.",
                evidence=where,
            )
        )
    return RuleResult.fail(
        codes.NOT_INTENDED_FOR_WORKER,
        f"{job_label(job)} is assigned to {job.assigned_worker}, not to {ctx.target.worker}.",
        evidence=where,
        assigned_worker=job.assigned_worker,
    )


def _derived(ctx: RuleContext, job: Job) -> RuleResult:
    ev = ctx.evidence
    listed = ev.get(WorkersEvidence)
    if listed is None:
        return RuleResult.unknown(
            codes.WORKERS_EVIDENCE_MISSING, "No worker list to compare the job's placement with."
        )
    req = job.requirements
    if req is None:
        return RuleResult.unknown(
            codes.JOB_REQUIREMENTS_MISSING,
            f"The bundle does not say what {job_label(job)} requires of a worker.",
            citations(cite_job(ev, job)),
        )
    req_cite = cite_job(ev, job, "requirements", value=req.model_dump(exclude_defaults=True))
    if req.required_worker and find_worker(ev, req.required_worker) is None:
        if not listed.complete:  # it may be in what was not read: no proof it is unknown
            return RuleResult.unknown(
                codes.WORKER_NOT_IN_EVIDENCE,
                f"{job_label(job)} is pinned to {req.required_worker}, which is not in the "
                "(incomplete) worker list.",
                [cite(ev, WorkersEvidence, "gaps", value=listed.gaps)],
            )
        return RuleResult.fail(
            codes.PINNED_WORKER_UNKNOWN,
            f"{job_label(job)} is pinned to {req.required_worker}, which the control plane "
            "does not know.",
            evidence=citations(
                cite_job(ev, job, "requirements", "required_worker", value=req.required_worker)
            ),
        )
    caps = {c.worker: c for c in (ev.get(CapacityEvidence) or CapacityEvidence()).workers}
    ranked = rank_candidates(req, workers(ev), caps)
    if ctx.target.worker is not None:
        chosen = next((c for c in ranked if c.worker.name == ctx.target.worker), None)
        if chosen is not None:
            return _for_worker(ctx, job, chosen, req_cite)
    # A worker listed twice counts as intended only when every record of it is (a fleet-wide
    # pass must not rest on the record that suits it), and as not intended only when none is.
    found = settled(list(enumerate(workers(ev))), lambda w: _intended(req, w))
    agreed = {w.name for _, w in found.yes}
    intended = [c for c in ranked if c.intended and c.worker.name in agreed]
    if intended:
        names = listed_names(list(dict.fromkeys(c.worker.name for c in intended)))
        return RuleResult.pass_(
            make_finding(
                codes.PLACEMENT_MATCHED,
                "pass",
                f"{job_label(job)} can be placed on: {names}.",
                evidence=citations(req_cite),
            )
        )
    if found.disputed:
        return conflicts_unknown(ev, found.disputed, Layer.PLACEMENT)
    if not listed.complete:  # a worker that matches may be in what was not read
        return RuleResult.unknown(
            codes.WORKERS_EVIDENCE_INCOMPLETE,
            f"No worker in the (incomplete) worker list matches {job_label(job)}'s placement; "
            "one missing from it may.",
            [cite(ev, WorkersEvidence, "gaps", value=listed.gaps)],
        )
    return _no_match(ctx, job, ranked, req_cite)


def _intended(req: JobRequirements, worker: WorkerStatus) -> bool:
    return not any(m.certain for m in placement_mismatches(req, worker))


def _for_worker(
    ctx: RuleContext, job: Job, chosen: Candidate, req_cite: Citation | None
) -> RuleResult:
    where = citations(req_cite, _worker_cite(ctx, chosen))
    certain = [m for m in chosen.placement if m.certain]
    if certain:
        why = "; ".join(m.message for m in certain)
        return RuleResult.fail(
            codes.WORKER_NOT_ELIGIBLE,
            f"{job_label(job)} is not meant for {chosen.worker.name}: {why}.",
            evidence=where,
            worker=chosen.worker.name,
            unmatched=[m.field for m in certain],
        )
    if chosen.placement:
        why = "; ".join(m.message for m in chosen.placement)
        return RuleResult.unknown(
            codes.PLACEMENT_UNCERTAIN,
            f"Cannot tell whether {chosen.worker.name} fits: {why}.",
            where,
        )
    return RuleResult.pass_(
        make_finding(
            codes.PLACEMENT_MATCHED,
            "pass",
            f"{chosen.worker.name} matches {job_label(job)}'s placement requirements.",
            evidence=where,
        )
    )


def _no_match(
    ctx: RuleContext, job: Job, ranked: list[Candidate], req_cite: Citation | None
) -> RuleResult:
    if not ranked:
        return RuleResult.fail(
            codes.NO_MATCHING_WORKER,
            f"{job_label(job)} is waiting and the fleet has no workers.",
            evidence=citations(req_cite, cite(ctx.evidence, WorkersEvidence, "workers")),
        )
    per_worker = _each_worker({c.worker.name: [m.message for m in c.placement]} for c in ranked)
    # What else each worker lacks (resources, capabilities, a slot): so the engineer
    # who fixes the labels is not surprised by the next rung.
    also = _each_worker(
        {c.worker.name: [m.message for m in c.capacity if m.certain]}
        for c in ranked
        if any(m.certain for m in c.capacity)
    )
    cited = [_worker_cite(ctx, c) for c in ranked[:CITED]]
    return RuleResult.fail(
        codes.NO_MATCHING_WORKER,
        f"No worker matches {job_label(job)}'s placement — {by_reason(per_worker)}."
        + (f" Beyond placement: {by_reason(also)}." if also else ""),
        evidence=citations(req_cite, *cited),
        per_worker=per_worker,
        capacity_per_worker=also,
    )


def _each_worker(said: Iterable[dict[str, list[str]]]) -> dict[str, list[str]]:
    """Reasons per worker; a worker listed more than once gives every record's reasons, sorted
    (not the last record's, nor in an order its records happened to be listed in)."""
    merged: dict[str, list[str]] = {}
    twice: set[str] = set()
    for item in said:
        for name, reasons in item.items():
            if name in merged:
                twice.add(name)
            merged.setdefault(name, []).extend(r for r in reasons if r not in merged[name])
    return {name: sorted(r) if name in twice else r for name, r in merged.items()}


def _worker_cite(ctx: RuleContext, candidate: Candidate) -> Citation | None:
    found = find_worker(ctx.evidence, candidate.worker.name)
    if found is None:
        return None
    field = "labels" if any(m.code == "LABEL_MISMATCH" for m in candidate.placement) else "name"
    value = candidate.worker.labels if field == "labels" else candidate.worker.name
    return cite(ctx.evidence, WorkersEvidence, "workers", found[0], field, value=value)


RULES = (job_placement,)
