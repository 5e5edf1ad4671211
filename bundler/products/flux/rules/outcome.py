"""Layer 7 for Flux: did the last finished run succeed (Flux has no canary)?

A run proves the outcome of the worker it ran on, and no other: a worker's
ladder (with or without a job) is judged by runs on that worker only, as the
generic rule judges LyftData's canaries. A worker that ran nothing and has no
job reads *not applicable* (the generic ``NO_TARGET_JOB``: outcome is per job),
never *pass* on a colleague's run. Only the fleet's own ladder (no worker, no
job) reads the fleet's latest run, whatever its phase.

A run that failed with ENOSPC names its worker's full disk (:mod:`.disk`). Any other failed
run carries Flux's wording of the generic outcome recovery (:data:`..recovery_paths.OUTCOME`:
read the execution's error, fix it, run the workflow again, see it COMPLETED) and replaces
the generic rule's findings of it, which speak of a canary Flux does not have (the profile's
``supersedes``).

Also flags the one way a worker's log lies about an outcome: after
``Terminal checkpoint ... not delivered within 300s; giving up`` the worker
still logs ``Execution COMPLETED``, but the server never recorded it and
will requeue the run.
"""

from __future__ import annotations

from functools import partial

from bundler.analyze.api import RuleContext, RuleResult, make_finding, rule
from bundler.analyze.contradictions import run_conflict
from bundler.analyze.doubt import (
    judge_latest,
    may_be_latest,
    outcome_after_collection,
    undated_job_failure,
    undated_run_order,
)
from bundler.analyze.facts import citations, cite_events, cite_source, dated, job_label, run_span
from schemas import Layer, LayerStatus
from schemas.evidence import CanaryRun, OutcomeEvidence

from .. import codes
from ..recovery_paths import OUTCOME
from .disk import disk_full_result
from .facts import FLUX, events, failed_execution_cited, subject_worker


def _latest(ctx: RuleContext, runs: list[tuple[int, CanaryRun]], about: str) -> RuleResult | None:
    """The rung by the run that finished last, each run that may be it judged (a zero end
    time is no time, not the oldest of all; two runs that ended at one instant, or no dated
    run at all, leave more than one); None when there is no run."""
    ended = partial(run_span, ctx.evidence)  # a skewed worker's stamps on the server's clock
    candidates, at = may_be_latest(runs, lambda run: dated(run.finished_at), ended)
    if not candidates:
        return None
    return judge_latest(
        ctx.evidence,
        candidates,
        at,
        lambda i, run: _judge(ctx, i, run, about=about, runs=runs),
        ended,
    )


def _judge(
    ctx: RuleContext, index: int, run: CanaryRun, about: str, runs: list[tuple[int, CanaryRun]]
) -> RuleResult:
    conflict = run_conflict(ctx, run)
    if conflict is not None:  # the same run listed with two outcomes: neither is believed
        return RuleResult(LayerStatus.UNKNOWN, [conflict])
    unordered = undated_run_order(ctx.evidence, (index, run), runs)
    if unordered is not None:  # an undated run ended otherwise: either may be the last
        return RuleResult(LayerStatus.UNKNOWN, [unordered])
    cited = citations(  # the run's entry and the raw record it was read from
        ctx.evidence.cite(OutcomeEvidence, f"/canaries/{index}/phase", run.phase),
        cite_source(run.source),
    )
    ahead = outcome_after_collection(ctx.evidence, index, run)
    if ahead and run.phase == "successful":  # a success stamped after collection proves nothing
        return RuleResult(LayerStatus.UNKNOWN, ahead)
    if run.phase == "successful":
        return RuleResult.pass_(
            make_finding(
                codes.FLUX_LAST_RUN_SUCCEEDED,
                "pass",
                f"{about}: the last run of {run.job} ({run.canary_id}) completed"
                # a worker's own ladder names it already ("worker w1: ... on w1" said it twice)
                + (f" on {run.worker}." if run.worker and about != f"worker {run.worker}" else "."),
                evidence=cited,
            )
        )
    if run.phase == "failed":
        return RuleResult.fail(
            codes.FLUX_LAST_RUN_FAILED,
            f"{about}: the last run of {run.job} ({run.canary_id}) failed.",
            evidence=cited,
            recovery=OUTCOME.model_copy(deep=True),
        )
    return RuleResult.unknown(
        codes.FLUX_LAST_RUN_INCONCLUSIVE, f"The last run of {run.job} was cancelled.", cited
    )


@rule(Layer.OUTCOME, products=FLUX, needs=(OutcomeEvidence,))
def flux_last_run(ctx: RuleContext) -> RuleResult | None:
    outcome = ctx.evidence.need(OutcomeEvidence)
    runs = list(enumerate(outcome.canaries))
    job = ctx.target.job
    if job is not None:
        if job.phase.value == "failed":
            undated = undated_job_failure(ctx.evidence, job)
            if undated is not None:  # a success of the job may be later: the failure is history?
                return RuleResult(LayerStatus.UNKNOWN, [undated])
            full = disk_full_result(ctx, job)
            if full is not None:  # the run's error is ENOSPC: the worker's disk is the cause
                return full
            return RuleResult.fail(
                codes.FLUX_EXECUTION_FAILED,
                f"{job_label(job)} failed: {job.error or 'no error recorded'}.",
                evidence=failed_execution_cited(ctx, job),
                recovery=OUTCOME.model_copy(deep=True),
            )
        on = ctx.target.worker
        mine = [r for r in runs if r[1].job == job.name and on in (None, r[1].worker)]
        latest = _latest(ctx, mine, about=job.name)
        if latest is None:
            where = f" on {on}" if on else ""
            return RuleResult.unknown(
                codes.FLUX_NO_FINISHED_RUN, f"{job.name} has no finished run{where} to judge by."
            )
        return latest
    name = subject_worker(ctx)
    if name is not None:
        # Only a run on this worker proves its outcome. With none, and no job selected, the
        # generic rule says outcome is per job (not applicable), as it does for LyftData.
        mine = [r for r in runs if r[1].worker == name]
        return _latest(ctx, mine, about=f"worker {name}")
    return _latest(ctx, runs, about="fleet")


@rule(Layer.OUTCOME, products=FLUX)
def flux_terminal_checkpoint_lost(ctx: RuleContext) -> RuleResult | None:
    name = subject_worker(ctx)
    job = ctx.target.job
    lost = [
        e
        for e in events(ctx, "terminal_checkpoint_given_up", worker=name)
        if job is None or job.id is None or e.execution == job.id
    ]
    if not lost:
        return None
    ids = sorted({str(e.execution) for e in lost})
    return RuleResult.warn(
        codes.FLUX_TERMINAL_CHECKPOINT_LOST,
        f"Worker {lost[-1].worker} gave up delivering the final result of {', '.join(ids)}; "
        "its log may still say COMPLETED, but the server never recorded it and requeues the run.",
        evidence=cite_events(lost),
        executions=ids,
    )
