"""Rung 7, outcome: did a bounded canary run and, where required, produce an external receipt?

Receipts have strengths (accepted < buffered < durable < indexed): an HTTP
2xx only says the destination *accepted* the data, so a job whose purpose is
an external effect is not proven by it. Products without canaries (Flux)
report their most recent finished run as ``mode='last_run'``; with no outcome
evidence at all, the job's own phase is the fallback (completed passes,
failed fails, anything else is unknown).

A canary or receipt dated after the bundle was collected is no proof
(:func:`bundler.analyze.doubt.outcome_after_collection`): the rung reads
unknown unless the run failed anyway.
"""

from __future__ import annotations

from datetime import datetime

from schemas import Citation, Layer, LayerStatus
from schemas.evidence import CanaryRun, DeploymentEvidence, Job, OutcomeEvidence, Receipt

from ...plurals import counted
from ...timetext import utc
from .. import codes
from ..api import RuleContext, RuleResult, make_finding, rule
from ..contradictions import run_conflict
from ..doubt import (
    judge_latest,
    may_be_latest,
    outcome_after_collection,
    undated_job_failure,
    undated_run_order,
)
from ..facts import (
    citations,
    cite,
    cite_job,
    cite_source,
    dated,
    job_label,
    run_kind,
    run_receipts,
    run_time,
)
from ._outcome import Outcome

STRENGTH = {"accepted": 0, "buffered": 1, "durable": 2, "indexed": 3}
DEPLOY_EVENTS = ("job-deployed", "deployed-job-active")
"""Events that mark a revision reaching its worker (LyftData's job-deployed messages)."""


@rule(Layer.OUTCOME, needs=(OutcomeEvidence,))
def canary_and_receipt(ctx: RuleContext) -> RuleResult | None:
    doc = ctx.evidence.need(OutcomeEvidence)
    job, worker = ctx.target.job, ctx.target.worker
    runs = list(enumerate(doc.canaries))
    mine = [
        (i, r)
        for i, r in runs
        if (job is None or r.job == job.name) and (worker is None or r.worker in (None, worker))
    ]
    candidates, at = may_be_latest(mine, run_time)
    if job is None and not candidates:
        return RuleResult.not_applicable(
            codes.NO_TARGET_JOB, "No job selected: outcome is per job."
        )
    out = Outcome()
    if job is not None and job.phase.value == "failed":
        _job_failed(ctx, job, out)
    if not candidates:
        return _from_phase(ctx, job, out) if job is not None else out.result()
    # every run that may be the latest (a tie at one instant, or none dated) is judged
    ran = judge_latest(
        ctx.evidence, candidates, at, lambda index, run: _judge_latest(ctx, doc, index, run, mine)
    )
    if not out:
        return ran
    # the job's own failure (or doubt about it) and the run's findings, worst first
    if ran.status is LayerStatus.FAIL:
        out.failures += ran.findings
    elif ran.status is LayerStatus.UNKNOWN:
        out.unknowns += ran.findings
    elif ran.status is LayerStatus.WARN:
        out.warnings += ran.findings
    return out.result()


def _judge_latest(
    ctx: RuleContext,
    doc: OutcomeEvidence,
    index: int,
    run: CanaryRun,
    mine: list[tuple[int, CanaryRun]],
) -> RuleResult:
    """The rung by ``run`` (``canaries[index]``), read as the latest of ``mine``."""
    out = Outcome()
    conflict = run_conflict(ctx, run) or undated_run_order(ctx.evidence, (index, run), mine)
    if conflict is not None:  # listed successful and failed, or which ran last is unknown
        out.unknowns.append(conflict)
        return out.result()
    _judge_run(ctx, doc, index, run, out)
    out.unknowns += outcome_after_collection(ctx.evidence, index, run)
    if run.mode != "last_run":
        _predates_deployment(ctx, doc, index, run, out)
    what = run_kind(run)
    evidence = _run_citations(ctx, index, run)
    receipt = _best_receipt(doc, run) if run.receipt_required else None
    if receipt is not None:  # "with its receipt" is shown where it is read, as the run is
        evidence += _receipt_citations(ctx, *receipt)
    return out.result(
        make_finding(
            codes.CANARY_PASSED,
            "pass",
            f"The {what} of {run.job}"
            + (f" on {run.worker}" if run.worker else "")
            + " succeeded"
            + (f" with its receipt from {receipt[1].sink}." if receipt is not None else "."),
            evidence=evidence,
        )
    )


def _best_receipt(doc: OutcomeEvidence, run: CanaryRun) -> tuple[int, Receipt] | None:
    """The strongest of the receipts that confirm ``run`` (acknowledged, its own nonce), with
    its index in ``doc.receipts``; None when none does."""
    confirmed = [
        (i, r)
        for i, r in run_receipts(doc, run)
        if r.acked is not False and r.nonce_matched is not False
    ]
    if not confirmed:
        return None
    return max(confirmed, key=lambda item: STRENGTH.get(item[1].strength or "", -1))


def _receipt_citations(ctx: RuleContext, index: int, receipt: Receipt) -> list[Citation]:
    """Where a receipt is read: its canonical record and the product's own."""
    return citations(
        cite(ctx.evidence, OutcomeEvidence, "receipts", index, "sink", value=receipt.sink),
        cite_source(receipt.source),
    )


def deployed_at(ctx: RuleContext, job: str, worker: str | None) -> datetime | None:
    """When the current deployment of ``job`` reached ``worker`` (its latest deploy event)."""
    doc = ctx.evidence.get(DeploymentEvidence)
    if doc is None or not doc.applicable:
        return None
    stamps: list[datetime] = []
    for record in doc.deployments:
        for jd in record.job_deployments:
            if jd.job != job or (worker is not None and jd.worker != worker):
                continue
            stamps += [at for e in jd.events if e.type in DEPLOY_EVENTS and (at := dated(e.at))]
            since = dated(jd.state_since)
            if not jd.events and since is not None:
                stamps.append(since)
    return max(stamps) if stamps else None


def _predates_deployment(
    ctx: RuleContext, doc: OutcomeEvidence, index: int, run: CanaryRun, out: Outcome
) -> None:
    """A canary (or receipt) from before the current deployment proves an earlier revision."""
    if ctx.evidence.get(DeploymentEvidence) is None:
        out.unknown(
            codes.CANARY_AGE_UNJUDGED,
            f"Whether the canary of {run.job} ran after the current deployment is unknown: "
            "the bundle has no deployment records.",
        )
        return
    since = deployed_at(ctx, run.job, run.worker)
    ran = run_time(run)  # a zero time is none: a canary that "never" ran is not an old one
    if since is None:
        _deployment_unread(ctx, run, out)
        return
    if ran is None:  # as a heartbeat without a time (WORKER_HEARTBEAT_UNDATED): undecided
        zero = run.finished_at or run.started_at
        said = (
            f"is dated {utc(zero)}, the zero time a product writes for 'never'"
            if zero
            else ("carries no time")
        )
        out.unknown(
            codes.CANARY_AGE_UNJUDGED,
            f"Whether the canary of {run.job} ran after the current deployment reached it "
            f"({utc(since)}) is unknown: the run {said}.",
            evidence=[
                cite(
                    ctx.evidence,
                    OutcomeEvidence,
                    "canaries",
                    index,
                    "finished_at" if run.finished_at else "started_at",
                    value=zero.isoformat() if zero else None,
                )
            ],
        )
        return
    receipts = [
        (i, r)
        for i, r in enumerate(doc.receipts)
        if r.observed_at is not None
        and dated(r.observed_at) is not None
        and r.observed_at < since
        and ((run.canary_id and r.canary_id == run.canary_id) or r.job == run.job)
    ]
    if ran >= since and not receipts:
        return
    label = f"{run.job}" + (f" on {run.worker}" if run.worker else "")
    older = f"the latest canary of {label} ran at {utc(ran)}" if ran < since else ""
    if receipts:
        stamp = receipts[0][1].observed_at
        assert stamp is not None
        older += (" and its" if older else f"the receipt of {label}'s canary") + (
            f" receipt is from {utc(stamp)}"
        )
    out.warn(
        codes.CANARY_PREDATES_DEPLOYMENT,
        f"{older[0].upper()}{older[1:]}, before the current deployment reached it at "
        f"{utc(since)}: it proves an earlier revision, not this one. Run a "
        "bounded canary now and confirm its receipt.",
        evidence=[
            cite(ctx.evidence, OutcomeEvidence, "canaries", index, "started_at", value=ran),
            *[
                cite(
                    ctx.evidence,
                    OutcomeEvidence,
                    "receipts",
                    i,
                    "observed_at",
                    value=r.observed_at,
                )
                for i, r in receipts[:3]
            ],
            cite(ctx.evidence, DeploymentEvidence, "deployments"),
        ],
        canary_at=ran.isoformat(),
        deployed_at=since.isoformat(),
    )


def _deployment_unread(ctx: RuleContext, run: CanaryRun, out: Outcome) -> None:
    """No deployment time for the canary's job, and deployment records the bundle lacks.

    The guide's canary proves the exact rendered job the worker now runs. When the
    deployment records could not be read (``GET /api/deployments`` answered 404 or timed
    out), the job may have been redeployed after its canary: a gap, not a fresh canary.
    """
    doc = ctx.evidence.get(DeploymentEvidence)
    if doc is None or not doc.applicable or (doc.complete and not doc.gaps):
        return
    gaps = ", ".join(doc.gaps) or "incomplete deployment evidence"
    out.unknown(
        codes.CANARY_AGE_UNJUDGED,
        f"Whether the canary of {run.job} ran after the current deployment is unknown: "
        f"the deployment records of {run.job} could not be read (gaps: {gaps}).",
        evidence=[cite(ctx.evidence, DeploymentEvidence, "gaps", value=doc.gaps)],
        missing=list(doc.gaps),
    )


def _job_failed(ctx: RuleContext, job: Job, out: Outcome) -> None:
    """The target run failed: a failure, unless a success of the job may be later (unknown)."""
    undated = undated_job_failure(ctx.evidence, job)
    if undated is not None:  # possibly superseded, possibly current: neither is read
        out.unknowns.append(undated)
        return
    error = f": {job.error}" if job.error else ""
    out.fail(
        codes.JOB_RUN_FAILED,
        f"{job_label(job)} failed{error}.",
        evidence=citations(
            cite_job(
                ctx.evidence,
                job,
                "error" if job.error else "phase",
                value=job.error or job.phase.value,
            ),
            cite_source(job.source),
        ),
        native_state=job.native_state,
    )


def _from_phase(ctx: RuleContext, job: Job, out: Outcome) -> RuleResult:
    if out:
        return out.result()
    where = citations(cite_job(ctx.evidence, job, "phase", value=job.phase.value))
    if job.phase.value == "completed":
        return RuleResult.pass_(
            make_finding(
                codes.LAST_RUN_COMPLETED, "pass", f"{job_label(job)} completed.", evidence=where
            )
        )
    return RuleResult.unknown(
        codes.NO_FINISHED_RUN,
        f"No canary or finished run of {job_label(job)} in the bundle (it is {job.phase.value}).",
        where,
    )


def _run_citations(ctx: RuleContext, index: int, run: CanaryRun) -> list[Citation]:
    """Where a run's verdict is read: its canonical phase, and the raw member it was normalized
    from (the product's own record). A pass cites both, as a failure does: a support engineer
    checks that the run succeeded in the product's own words, not only in bundler's."""
    return citations(
        cite(ctx.evidence, OutcomeEvidence, "canaries", index, "phase", value=run.phase),
        cite_source(run.source),
    )


def _judge_run(
    ctx: RuleContext, doc: OutcomeEvidence, index: int, run: CanaryRun, out: Outcome
) -> None:
    ev = ctx.evidence
    where = _run_citations(ctx, index, run)
    what = run_kind(run)
    label = f"The {what} of {run.job}" + (f" on {run.worker}" if run.worker else "")
    if run.phase in ("failed", "error"):
        errors = f" ({run.errors} errors)" if run.errors else ""
        out.fail(codes.CANARY_FAILED, f"{label} {run.phase}{errors}.", evidence=where)
        return
    if run.phase == "timed_out":
        out.fail(codes.CANARY_TIMED_OUT, f"{label} timed out.", evidence=where)
        return
    if run.phase != "successful":
        out.unknown(
            codes.CANARY_NOT_CONCLUSIVE, f"{label} is {run.phase}: no verdict yet.", evidence=where
        )
        return
    if run.events_in and run.events_out == 0:
        out.warn(
            codes.CANARY_NO_OUTPUT,
            f"{label} read {counted(run.events_in, 'event')} and wrote none: a filter or drop "
            "swallowed them.",
            evidence=[cite(ev, OutcomeEvidence, "canaries", index, "events_out", value=0)],
        )
    _receipts(ctx, doc, index, run, label, out)


def _receipts(
    ctx: RuleContext, doc: OutcomeEvidence, index: int, run: CanaryRun, label: str, out: Outcome
) -> None:
    mine = run_receipts(doc, run)
    for r_index, receipt in mine:
        if receipt.nonce_matched is False:
            out.fail(
                codes.RECEIPT_NONCE_MISMATCH,
                f"{label}: the receipt from {receipt.sink} carries another run's nonce.",
                evidence=[
                    cite(
                        ctx.evidence,
                        OutcomeEvidence,
                        "receipts",
                        r_index,
                        "nonce_matched",
                        value=False,
                    )
                ],
            )
    if not run.receipt_required:
        return
    confirmed = _best_receipt(doc, run)
    if confirmed is None and (doc.gaps or not doc.complete):
        # the receipt may be in what was not read (a failed request, a member lost from the
        # bundle or over a reader's limit): "never came" would be read from a gap
        gaps = ", ".join(doc.gaps) or "unspecified collectors"
        out.unknown(
            codes.RECEIPTS_UNREAD,
            f"{label} ran and requires an external receipt; none is in the bundle, but its "
            f"outcome evidence is incomplete (gaps: {gaps}), so whether it came is unknown.",
            evidence=[cite(ctx.evidence, OutcomeEvidence, "gaps", value=doc.gaps)],
            missing=list(doc.gaps),
        )
        return
    if confirmed is None:
        out.fail(
            codes.RECEIPT_MISSING,
            f"{label} ran, but the external receipt it requires never came.",
            evidence=[
                cite(
                    ctx.evidence, OutcomeEvidence, "canaries", index, "receipt_required", value=True
                )
            ],
        )
        return
    best_index, best = confirmed
    if best.strength in (None, "accepted"):
        out.warn(
            codes.RECEIPT_ACCEPTED_ONLY,
            f"{label}: {best.sink} only accepted the data; nothing confirms it was stored or "
            "indexed.",
            evidence=[
                cite(
                    ctx.evidence,
                    OutcomeEvidence,
                    "receipts",
                    best_index,
                    "strength",
                    value=best.strength,
                )
            ],
        )


RULES = (canary_and_receipt,)
