"""Evidence that cannot decide a rung, judged once for the generic rules, product rules and diff.

Heartbeats. "Online" is the product's word, and some products keep saying it for a silent
worker (Flux lists a stale worker online until its grace period ends, see the
Flux *Worker observability* page and what real Flux does). What proves a
recent heartbeat is the heartbeat's time, judged at collection. Without that
time, or with a time *after* collection (the clocks that wrote and read it
disagree), freshness is unknown: the heartbeat rung says so instead of passing.

Outcomes. A canary run or a receipt is proof because it happened *before*
someone read it. One dated after its bundle was collected (beyond the same
clock tolerance) did not happen yet by the collector's clock: the clocks that
wrote and read it disagree, so nothing says when it really ran, nor that it
is newer than the incident. The outcome rung reads unknown
(``CANARY_AFTER_COLLECTION``, ``RECEIPT_AFTER_COLLECTION``), and ``bundler
diff`` does not count it as a success newer than BEFORE. A run stamped by a worker whose
clock the bundle bounds both ways is read on the server's clock first (:func:`.facts.run_span`):
it is after collection only if the earliest moment it may stand for is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from schemas import Finding, LayerStatus
from schemas.evidence import CanaryRun, Job, OutcomeEvidence, WorkerStatus

from ..timetext import utc
from . import codes
from .api import EvidenceSet, RuleContext, RuleResult, make_finding
from .facts import (
    cite,
    cite_job,
    cite_worker,
    dated,
    is_zero_time,
    job_label,
    job_moment,
    reference_time,
    run_kind,
    run_receipts,
    run_span,
    run_time,
    undated_job_rivals,
    undated_rivals,
)
from .worker_clock import Span, is_moment, may_end_last

CLOCK_TOLERANCE_S = 5.0
"""How far after collection a heartbeat, canary or receipt may be dated before clocks are doubted.

A heartbeat flushed while the collector read (Flux writes ``last_seen_at`` once
per reaper tick), or a canary finishing while its list was read, can be stamped
a moment after the collector's own clock reading; more than this is not a race
but two clocks that disagree.
"""


def seconds_after(stamp: datetime | None, collected: datetime | None) -> float | None:
    """How far ``stamp`` lies after ``collected`` when that is beyond the clock tolerance.

    None when either time is unknown or ``stamp`` is not later than the
    tolerance allows: a missing time is judged where it is needed (it has its
    own finding), this only answers "do the clocks contradict each other?".
    """
    if stamp is None or collected is None:
        return None
    ahead = (stamp - collected).total_seconds()
    return ahead if ahead > CLOCK_TOLERANCE_S else None


def outcome_collected_at(ev: EvidenceSet) -> datetime | None:
    """When the bundle's canaries and receipts were read: the time every outcome stamp is judged at.

    The outcome document's own ``observed_at``, else the bundle's time (as for
    heartbeats), so ``analyze`` and ``diff`` judge the same stamp against the
    same clock reading.
    """
    return reference_time(ev, ev.get(OutcomeEvidence))


def undecided_heartbeat(
    ctx: RuleContext, index: int, worker: WorkerStatus, age: float | None
) -> RuleResult | None:
    """Unknown when ``worker``'s heartbeat age is missing or negative beyond the tolerance."""
    if age is None:
        stamp = worker.last_heartbeat_at
        if stamp is not None and is_zero_time(stamp):  # the product's "never", not a moment
            return RuleResult.unknown(
                codes.WORKER_HEARTBEAT_UNDATED,
                f"Worker {worker.name} is listed online, but its heartbeat time is {utc(stamp)}, "
                "the zero time a product writes for 'never': the bundle has no heartbeat time "
                "for it, so whether it still answers heartbeats is unknown.",
                [cite_worker(ctx.evidence, index, "last_heartbeat_at", value=stamp.isoformat())],
            )
        return RuleResult.unknown(
            codes.WORKER_HEARTBEAT_UNDATED,
            f"Worker {worker.name} is listed online, but the bundle has no heartbeat time for "
            "it: whether it still answers heartbeats is unknown.",
            [cite_worker(ctx.evidence, index, "last_heartbeat_at", value=None)],
        )
    if age < -CLOCK_TOLERANCE_S:
        return RuleResult.unknown(
            codes.WORKER_HEARTBEAT_AFTER_COLLECTION,
            f"Worker {worker.name}'s last heartbeat is dated {-age:.0f}s after collection: the "
            "clocks that wrote and read it disagree, so its freshness is unknown.",
            [cite_worker(ctx.evidence, index, "last_heartbeat_at", value=worker.last_heartbeat_at)],
        )
    return None


def undated_run_order(
    ev: EvidenceSet, latest: tuple[int, CanaryRun], runs: list[tuple[int, CanaryRun]]
) -> Finding | None:
    """An unknown finding when an undated run (no time, or only a zero time) ended otherwise
    than ``latest``, the latest dated run: either may be the last, so neither decides.

    Read as the oldest of all, such a run let the dated one pass (or fail) the outcome rung
    by a guess about which ran last; with no dated run at all, ``latest`` is merely first or
    last in the list, and record order decides nothing.
    """
    rivals = undated_rivals(latest, runs)
    if not rivals:
        return None
    index, run = latest
    ran = run_time(run)
    # with no dated run at all, ``latest`` is only the one first in order: not "dated"
    which = (
        f"the latest dated one ({run.canary_id or run.job}, {utc(ran)})"
        if ran
        else f"one ({run.canary_id or run.job}, {_undated(run)})"
    )
    said = "; ".join(f"{r.canary_id or r.job} {r.phase}, {_undated(r)}" for _, r in rivals[:3])
    return make_finding(
        codes.RUN_ORDER_UNDATED,
        "info",
        f"Which run of {_label(run)} is the last is unknown: {which} is {run.phase}, but "
        f"{said}. Read the runs' end times in the product to tell which ended last.",
        evidence=[
            cite(ev, OutcomeEvidence, "canaries", i, "finished_at", value=_stamp(r))
            for i, r in [(index, run), *rivals[:3]]
        ],
        latest=run.canary_id,
        undated=[r.canary_id for _, r in rivals],
    )


def may_be_latest(
    runs: Sequence[tuple[int, CanaryRun]],
    when: Callable[[CanaryRun], datetime | None],
    span: Callable[[CanaryRun], Span | None] | None = None,
) -> tuple[list[tuple[int, CanaryRun]], datetime | None]:
    """The runs that may be the latest of ``runs``, and the time they share.

    Every dated run at the latest time (``when`` is the rule's end time; a zero time is
    none): of two runs that ended at one instant neither is the later, and ``max`` handed
    the first listed. With ``span`` (a run's end on the control plane's clock,
    :func:`~.facts.run_span`), every run whose span reaches the latest start of all: a run
    stamped by a worker whose clock is off may have ended before or after another, and
    both are kept. With no dated run at all, every run (and no time): the first or last
    listed is no latest either. Undated runs beside a dated latest are judged against it by
    :func:`undated_run_order`. In one order whatever the list's: by id, then by content.
    """

    def moment(run: CanaryRun) -> Span | None:
        at = when(run)
        return None if at is None else (at, at)

    found = may_end_last(runs, lambda item: (span or moment)(item[1]))
    top = max((at for _, run in found if (at := when(run)) is not None), default=None)
    return sorted(found or list(runs), key=_run_order), top


def _run_order(item: tuple[int, CanaryRun]) -> tuple[str, str, int]:
    index, run = item
    return run.canary_id or "", run.model_dump_json(exclude={"source"}), index


def judge_latest(
    ev: EvidenceSet,
    candidates: Sequence[tuple[int, CanaryRun]],
    at: datetime | None,
    judge: Callable[[int, CanaryRun], RuleResult],
    span: Callable[[CanaryRun], Span | None] | None = None,
) -> RuleResult:
    """``judge`` every run that may be the latest (:func:`may_be_latest`); its answer when
    they all give the same one (status and finding codes), else unknown with
    ``RUN_ORDER_TIED`` (or ``RUN_ORDER_CLOCK_SKEW`` when a worker's clock, off by an
    amount known only within bounds, is why they cannot be ordered: ``span``), saying what
    the rung reads by each run.

    As for a disputed entry (:mod:`.duplicates`): runs judged alike decide the rung whichever
    ran last; runs judged otherwise leave it unknown, neither the better nor the worse one
    picked, and never the one the list happens to name first.
    """
    judged = [(item, judge(*item)) for item in candidates]
    first = judged[0][1]
    if all(_same(result, first) for _, result in judged[1:]):
        return first
    spans = [span(run) if span else None for (_, run), _ in judged]
    if any(s is not None and not is_moment(s) for s in spans):
        return RuleResult(LayerStatus.UNKNOWN, [_skewed(ev, judged, spans)])
    return RuleResult(LayerStatus.UNKNOWN, [_tied(ev, judged, at)])


def _skewed(
    ev: EvidenceSet,
    judged: list[tuple[tuple[int, CanaryRun], RuleResult]],
    spans: list[Span | None],
) -> Finding:
    runs = [run for (_, run), _ in judged]
    each = "; ".join(
        f"{run.canary_id or run.job} {run.phase} ({_ended(run, s)}) reads {result.status.value}"
        for ((_, run), result), s in zip(judged, spans, strict=True)
    )
    return make_finding(
        codes.RUN_ORDER_CLOCK_SKEW,
        "info",
        f"Which run of {_label(runs[0])} is the last cannot be told: read on the server's "
        f"clock, their ends overlap ({each}). A worker's clock is off, and the bundle bounds "
        "its offset only within that width. Set its clock right and run the job again, or "
        "read the runs' order in the product.",
        **_runs_judged(ev, judged),
    )


def _runs_judged(
    ev: EvidenceSet, judged: list[tuple[tuple[int, CanaryRun], RuleResult]]
) -> dict[str, Any]:
    """A doubtful order's common part: each run's end cited (the first eight), the runs
    and what each alone reads."""
    return {
        "evidence": [
            cite(ev, OutcomeEvidence, "canaries", index, "finished_at", value=_stamp(run))
            for (index, run), _ in judged[:8]
        ],
        "runs": [run.canary_id for (_, run), _ in judged],
        "outcomes": [result.status.value for _, result in judged],
    }


def _ended(run: CanaryRun, span: Span | None) -> str:
    if span is None:
        return "undated"
    stamped = run_time(run)
    if is_moment(span) or stamped is None:
        return f"ended {utc(span[0])}"
    return (
        f"stamped {utc(stamped)} by {run.clock_of}, so ended between "
        f"{utc(span[0])} and {utc(span[1])}"
    )


def _same(one: RuleResult, other: RuleResult) -> bool:
    return one.status is other.status and sorted(f.code for f in one.findings) == sorted(
        f.code for f in other.findings
    )


def _tied(
    ev: EvidenceSet, judged: list[tuple[tuple[int, CanaryRun], RuleResult]], at: datetime | None
) -> Finding:
    runs = [run for (_, run), _ in judged]
    ids = [run.canary_id or run.job for run in runs]
    said = (
        f"{_and(ids)} ended at the same instant, {utc(at)}"
        if at is not None
        else f"none of {_and(ids)} is dated"
    )
    ended = ", ".join(f"{name} {run.phase}" for name, run in zip(ids, runs, strict=True))
    each = " and ".join(
        f"{result.status.value} by {name}" for name, (_, result) in zip(ids, judged, strict=True)
    )
    return make_finding(
        codes.RUN_ORDER_TIED,
        "info",
        f"Which run of {_label(runs[0])} is the last cannot be told: {said} ({ended}), and "
        f"judged on each alone this rung reads {each}. Read the runs' end times in the "
        "product to tell which ended last, or run the job again and collect a new bundle.",
        **_runs_judged(ev, judged),
        at=at.isoformat() if at is not None else None,
    )


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def undated_job_failure(ev: EvidenceSet, job: Job) -> Finding | None:
    """An unknown finding when failed ``job`` may be history or current: a run of the same
    job completed (or runs), and one of the two is undated (:func:`undated_job_rivals`).

    Failing the outcome rung on it blamed a failure that a later success may have superseded;
    passing it on the success ignored a failure that may be the latest. Neither is read.
    """
    rivals = undated_job_rivals(ev, job)
    if not rivals:
        return None
    said = "; ".join(f"{job_label(r)} {r.phase.value} {_job_when(r)}" for _, r in rivals[:3])
    more = f" (+{len(rivals) - 3} more)" if len(rivals) > 3 else ""
    return make_finding(
        codes.JOB_RUN_ORDER_UNDATED,
        "info",
        f"Whether the failure of {job_label(job)} ({_job_when(job)}) is still current is "
        f"unknown: {said}{more}, and which of them ran last cannot be told. Read the runs' "
        "times in the product, or run the job again and collect a new bundle.",
        evidence=[
            c
            for j in (job, *(r for _, r in rivals[:3]))
            if (c := cite_job(ev, j, _job_field(j), value=_job_value(j))) is not None
        ],
        failed=job.id,
        rivals=[r.id for _, r in rivals],
    )


def _job_when(job: Job) -> str:
    """When a run last changed, as a message says it: a zero time or no time is undated."""
    when = job_moment(job)
    if when is not None:
        return f"at {utc(when)}"
    zero = job.updated_at or job.created_at
    if zero is not None:
        return f"undated: its time reads {utc(zero)}, the zero time ('never')"
    return "undated: it carries no time"


def _job_field(job: Job) -> str:
    """The time field to cite: the one :func:`~.facts.job_moment` read."""
    return "updated_at" if job.updated_at is not None or job.created_at is None else "created_at"


def _job_value(job: Job) -> str | None:
    stamp = job.updated_at if _job_field(job) == "updated_at" else job.created_at
    return stamp.isoformat() if stamp else None


def _undated(run: CanaryRun) -> str:
    zero = run.finished_at or run.started_at
    return f"ended at {utc(zero)}, the zero time ('never')" if zero else "with no time"


def _stamp(run: CanaryRun) -> str | None:
    return run.finished_at.isoformat() if run.finished_at else None


def outcome_after_collection(ev: EvidenceSet, index: int, run: CanaryRun) -> list[Finding]:
    """Unknown findings for ``run`` (``canaries[index]``) and its receipts dated after collection.

    Empty when their times are consistent with the bundle's (or cannot be
    compared). The outcome rule adds these to its unknowns, so a failed run
    still fails but a success dated in the future never passes.
    """
    doc = ev.get(OutcomeEvidence)
    collected = outcome_collected_at(ev)
    if doc is None or collected is None:
        return []
    found: list[Finding] = []
    ran = run_time(run)
    # a worker's stamp read with its proven offset: after collection only if it must be
    span = run_span(ev, run)
    ahead = seconds_after(span[0] if span else None, collected)
    if ahead is not None and ran is not None:
        field = "finished_at" if ran == run.finished_at else "started_at"
        found.append(
            make_finding(
                codes.CANARY_AFTER_COLLECTION,
                "info",
                f"The {run_kind(run)} of {_label(run)} is dated {utc(ran)}, {_span(ahead)} "
                f"after the bundle was collected ({utc(collected)}): the clocks "
                "that wrote and read it disagree, so it proves nothing about when the job ran.",
                evidence=[cite(ev, OutcomeEvidence, "canaries", index, field, value=ran)],
                canary_at=ran.isoformat(),
                collected_at=collected.isoformat(),
            )
        )
    for r_index, receipt in run_receipts(doc, run):
        ahead = seconds_after(dated(receipt.observed_at), collected)
        if ahead is None or receipt.observed_at is None:
            continue
        found.append(
            make_finding(
                codes.RECEIPT_AFTER_COLLECTION,
                "info",
                f"The receipt of {_label(run)}'s canary from {receipt.sink} is dated "
                f"{utc(receipt.observed_at)}, {_span(ahead)} after the bundle was "
                f"collected ({utc(collected)}): the clocks that wrote and read it "
                "disagree, so it confirms nothing.",
                evidence=[
                    cite(
                        ev,
                        OutcomeEvidence,
                        "receipts",
                        r_index,
                        "observed_at",
                        value=receipt.observed_at,
                    )
                ],
                receipt_at=receipt.observed_at.isoformat(),
                collected_at=collected.isoformat(),
            )
        )
    return found


def _label(run: CanaryRun) -> str:
    return run.job + (f" on {run.worker}" if run.worker else "")


def _span(seconds: float) -> str:
    """``seconds`` in the largest whole unit a reader takes in at a glance."""
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:.0f}s"
