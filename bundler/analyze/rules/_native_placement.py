"""Placement as the product itself computed it (``PlacementEvidence``, e.g. LyftData).

The product's per-worker verdicts are used as they are, with one reading of
ours: "eligible, not placed" for a job that is still *waiting* means it may
run there once there is room (a pass here; capacity says why it waits), but
for a job placed elsewhere it means the job is not intended for this worker.
"""

from __future__ import annotations

from schemas.evidence import Job, JobPlacement, PlacementEvidence

from .. import codes
from ..api import RuleContext, RuleResult, make_finding
from ..facts import citations, cite, cite_source, waiting
from ..wording import by_reason


def native_placement(ctx: RuleContext, job: Job) -> tuple[int, JobPlacement] | None:
    doc = ctx.evidence.get(PlacementEvidence)
    for index, placement in enumerate(doc.placements if doc else []):
        if placement.job == job.name:
            return index, placement
    return None


def judge_native(ctx: RuleContext, job: Job, index: int, placement: JobPlacement) -> RuleResult:
    ev = ctx.evidence
    here = citations(
        cite(ev, PlacementEvidence, "placements", index), cite_source(placement.source)
    )
    summary = f" ({placement.summary})" if placement.summary else ""
    if ctx.target.worker is not None:
        for w_index, verdict in enumerate(placement.per_worker):
            if verdict.worker != ctx.target.worker:
                continue
            at = cite(
                ev,
                PlacementEvidence,
                "placements",
                index,
                "per_worker",
                w_index,
                value=verdict.verdict,
            )
            if verdict.verdict == "placed":
                return RuleResult.pass_(
                    make_finding(
                        codes.JOB_PLACED,
                        "pass",
                        f"{job.name} is placed on {verdict.worker}.",
                        evidence=[at],
                    )
                )
            if verdict.verdict == "eligible_not_placed" and waiting(job):
                return RuleResult.pass_(
                    make_finding(
                        codes.JOB_ELIGIBLE,
                        "pass",
                        f"{verdict.worker} is eligible for {job.name}, which waits to be placed.",
                        evidence=[at],
                    )
                )
            if verdict.verdict == "not_evaluated":
                return RuleResult.unknown(
                    codes.PLACEMENT_NOT_EVALUATED,
                    f"The product did not evaluate {verdict.worker} for {job.name}.",
                    [at],
                )
            reasons = ", ".join(verdict.reasons) or verdict.verdict
            detail = f": {verdict.detail}" if verdict.detail else ""
            code = (
                codes.NOT_INTENDED_FOR_WORKER
                if verdict.verdict == "eligible_not_placed"
                else (codes.WORKER_NOT_ELIGIBLE)
            )
            return RuleResult.fail(
                code,
                f"{job.name} is not placed on {verdict.worker} ({reasons}){detail}.",
                evidence=[at, *here],
                reasons=verdict.reasons,
                native_code=placement.native_code,
            )
    eligible = placement.eligible
    if eligible is None and placement.per_worker:
        eligible = sum(v.verdict in ("placed", "eligible_not_placed") for v in placement.per_worker)
    if eligible == 0:
        per_worker = {
            v.worker: [*v.reasons, *([v.detail] if v.detail else [])] or [v.verdict]
            for v in placement.per_worker
        }
        shown = f" — {by_reason(per_worker)}" if per_worker else ""
        return RuleResult.fail(
            codes.NO_ELIGIBLE_WORKERS,
            f"No worker is eligible for {job.name}{summary}{shown}.",
            evidence=here,
            native_code=placement.native_code,
            per_worker=per_worker,
        )
    wanted = placement.desired.replicas if placement.desired else None
    if wanted and placement.placed is not None and placement.placed < wanted:
        return RuleResult.fail(
            codes.REPLICAS_UNSATISFIED,
            f"{job.name} wants {wanted} replicas but only {placement.placed} are placed{summary}.",
            evidence=here,
            native_code=placement.native_code,
        )
    if ctx.target.worker is not None:
        return RuleResult.unknown(
            codes.PLACEMENT_SILENT_ON_WORKER,
            f"The product's placement for {job.name} does not mention {ctx.target.worker}.",
            here,
        )
    return RuleResult.pass_(
        make_finding(codes.JOB_PLACED, "pass", f"{job.name} is placed{summary}.", evidence=here)
    )
