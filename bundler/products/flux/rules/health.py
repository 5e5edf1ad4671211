"""Event-loop starvation: a connected worker that declines work because its loop is blocked.

The worker finds out first (``Event loop starved (lag 1.55s >= 1.0s for 3
probes)``) and its control socket says ``healthy: false``; the server hears
it on a later pong (``reports unhealthy``), sometimes only when the blocking
code ends. The usual cause is CPU-bound code on the *in-process* runner,
which shares the worker's loop. A single huge lag right after an eviction
is different: the whole process was frozen (SIGSTOP, a VM pause), and the
probe measured the freeze.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bundler.analyze.api import RuleContext, RuleResult, TimelineEvent, rule
from bundler.analyze.facts import (
    citations,
    cite_events,
    cite_job,
    cite_worker,
    described,
    find_worker,
)
from bundler.analyze.wording import counted
from schemas import Layer
from schemas.evidence import HealthState, Job, JobsEvidence, WorkersEvidence, WorkerStatus

from .. import codes, recovery
from .facts import FLUX, events, may_lie_between, policy, subject_worker, surely_between


def inprocess_jobs(ctx: RuleContext, name: str) -> list[Job]:
    jobs = ctx.evidence.get(JobsEvidence)
    return [
        j
        for j in (jobs.jobs if jobs else [])
        if j.assigned_worker == name
        and not j.phase.terminal
        and j.requirements is not None
        and j.requirements.resources is not None
        and j.requirements.resources.other.get("runner") == "inprocess"
    ]


def after_freeze(ctx: RuleContext, starved: TimelineEvent) -> bool | None:
    """True when the worker had just been marked STALE: the lag measured a frozen process.

    None when its clock leaves it open: the worker logs its starvation on its own clock, the
    server its STALE line on the server's; with the worker's offset known only within
    bounds, its line may or may not lie within the window after the STALE line.
    """
    hb = policy(ctx)
    window = timedelta(
        seconds=(hb.timeout_s or 30) + (hb.grace_s or 30) + 2 * (hb.interval_s or 10)
    )
    if starved.at is None:
        return False
    marked = [e for e in events(ctx, "stale", "evicted", worker=starved.worker) if e.at]
    windows = [(e.at, e.at + window) for e in marked if e.at is not None]
    if any(surely_between(ctx, starved, low, high) for low, high in windows):
        return True
    if ctx.timeline.clock_of(starved) is not None and any(
        may_lie_between(ctx, starved, low, high) for low, high in windows
    ):
        return None
    return False


def _lasted(ctx: RuleContext, last: TimelineEvent, observed: datetime) -> str:
    """How long before collection ``last`` was logged, as far as its clock tells."""
    low, high = ctx.timeline.bounds(last)
    if low is not None and low == high:
        return f" for {(observed - low).total_seconds():.0f}s"
    if low is not None and high is not None:
        return (
            f" for {(observed - high).total_seconds():.0f}-"
            f"{(observed - low).total_seconds():.0f}s (its clock is off; read on the server's)"
        )
    return ""


def unhealthy_now(ctx: RuleContext, index: int, worker: WorkerStatus) -> RuleResult | None:
    """Fail the heartbeat layer while the worker reports itself unhealthy."""
    if worker.health is not HealthState.UNHEALTHY:
        return None
    name = worker.name
    starved = events(ctx, "unhealthy", worker=name)
    last = starved[-1] if starved else None
    inprocess = inprocess_jobs(ctx, name)
    freeze = after_freeze(ctx, last) if last is not None else False
    frozen = freeze is True
    message = f"Worker {name} is connected but reports itself unhealthy (event-loop starvation)"
    workers = ctx.evidence.get(WorkersEvidence)
    observed = workers.observed_at if workers else None
    if last is not None and last.at is not None and observed is not None:
        message += _lasted(ctx, last, observed)
    message += ": it declines new work until its loop recovers."
    if frozen:
        message += " The lag was measured right after it was marked STALE: the process was frozen."
    elif freeze is None and last is not None and last.at is not None:
        message += (
            f" Whether the lag was measured right after it was marked STALE (a frozen process) "
            f"cannot be told: its log line is stamped "
            f"{described(last.at, ctx.timeline.clock_of(last), name)}."
        )
    if not frozen and inprocess:
        names = ", ".join(f"{j.name} ({j.id})" for j in inprocess)
        message += f" CPU-bound code on the in-process runner is blocking it: {names}."
    evidence = [cite_worker(ctx.evidence, index, "health", value=worker.health.value)]
    evidence += cite_events(starved[-3:])
    evidence += citations(
        *(cite_job(ctx.evidence, j, "assigned_worker", value=j.assigned_worker) for j in inprocess)
    )
    return RuleResult.fail(
        codes.FLUX_WORKER_UNHEALTHY,
        message,
        evidence=evidence,
        recovery=recovery.unhealthy(bool(inprocess), frozen),
        acceptance=[f"'Event loop recovered' in {name}'s log", f"{name} online, not unhealthy"],
        inprocess_executions=[j.id for j in inprocess],
        after_freeze=freeze,
    )


def episodes(ctx: RuleContext, name: str) -> list[tuple[TimelineEvent, TimelineEvent | None]]:
    """(unhealthy, healthy-again) pairs from the worker's own log, else the server's."""
    found = events(ctx, "unhealthy", "healthy", worker=name)
    side = "worker" if any(e.detail.get("side") == "worker" for e in found) else "server"
    pairs: list[tuple[TimelineEvent, TimelineEvent | None]] = []
    for event in (e for e in found if e.detail.get("side") == side):
        if event.kind == "unhealthy":
            pairs.append((event, None))
        elif pairs and pairs[-1][1] is None:
            pairs[-1] = (pairs[-1][0], event)
    return pairs


@rule(Layer.CAPACITY, products=FLUX)
def flux_starvation_history(ctx: RuleContext) -> RuleResult | None:
    """Past starvation that recovered: a capacity warning with how long each episode lasted."""
    name = subject_worker(ctx)
    record = find_worker(ctx.evidence, name)
    if record is None or record[1].health is HealthState.UNHEALTHY:
        return None
    recovered = [(u, h) for u, h in episodes(ctx, record[1].name) if h is not None]
    if not recovered:
        return None
    spans = [
        (h.at - u.at).total_seconds() for u, h in recovered if u.at is not None and h.at is not None
    ]
    longest = max(spans, default=None)  # None: no episode has two dated ends
    how_long = f"the longest for {longest:.0f}s" if longest is not None else "for how long unknown"
    return RuleResult.warn(
        codes.FLUX_EVENT_LOOP_STARVATION,
        f"Worker {record[1].name} was unhealthy (event-loop starvation) "
        f"{counted(len(recovered), 'time')}, {how_long}; it declined work meanwhile.",
        evidence=cite_events(e for pair in recovered for e in pair if e is not None),
        recovery=recovery.unhealthy(True, False),
        episodes=len(recovered),
        longest_s=longest,
    )
