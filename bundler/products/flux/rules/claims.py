"""Claim fencing and re-dispatch churn, read from the logs.

*Stale claims*: after an eviction or a partition, the server refuses writes
that carry an old claim generation, and the returning worker aborts its
local copy. That is the mechanism preventing a double run, and expected —
unless nothing (no eviction, disconnect or lost connection of that worker)
explains it.

*Release storms*: a worker that flips unhealthy while being dispatched to
hands each execution straight back (``released ... re-dispatching``); dozens
per minute for one execution means the worker keeps flapping.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bundler.analyze.api import RuleContext, RuleResult, TimelineEvent, rule
from bundler.analyze.facts import cite_events
from bundler.analyze.wording import counted
from schemas import Layer

from .. import codes
from .facts import FLUX, events, may_lie_between, subject_worker

EXPLAINERS = ("stale", "evicted", "disconnected", "connection_lost", "sse_error", "recovered")
EXPLAIN_WINDOW = timedelta(minutes=10)
STORM_RELEASES = 10
STORM_WINDOW = timedelta(seconds=60)


def _explained(ctx: RuleContext, claim: TimelineEvent, worker: str | None) -> bool:
    """Whether an eviction, disconnect or lost connection may lie within EXPLAIN_WINDOW before
    the claim. Both are read on the server's clock: the worker logs its lost connection and
    its stale claim on its own clock, the server its eviction on the server's, and a worker
    hours off found nothing near its claims (or a stale line hours away)."""
    if claim.at is None:
        return True
    low, high = ctx.timeline.bounds(claim)
    since = low - EXPLAIN_WINDOW if low is not None else None
    candidates = events(ctx, *EXPLAINERS, worker=worker) if worker else events(ctx, *EXPLAINERS)
    return any(e.at is not None and may_lie_between(ctx, e, since, high) for e in candidates)


@rule(Layer.HEARTBEAT, products=FLUX)
def flux_stale_claims(ctx: RuleContext) -> RuleResult | None:
    name = subject_worker(ctx)
    if name is None:
        return None
    claims = events(ctx, "stale_claim", "stale_claim_abort", worker=name)
    if not claims:
        return None
    unexplained = [c for c in claims if not _explained(ctx, c, name)]
    if not unexplained:
        return None  # the fencing worked as designed after an eviction or partition
    return RuleResult.warn(
        codes.FLUX_UNEXPLAINED_STALE_CLAIM,
        f"Worker {name} hit {counted(len(unexplained), 'stale claim')} with no eviction, "
        "disconnect or lost connection before them: another worker took over its executions "
        "for a reason the logs do not show (check for duplicate worker names or clock jumps).",
        evidence=cite_events(unexplained),
        executions=sorted({str(c.execution) for c in unexplained}),
    )


def storms(releases: list[TimelineEvent]) -> dict[str, list[TimelineEvent]]:
    """Executions released at least STORM_RELEASES times within STORM_WINDOW."""
    by_execution: dict[str, list[tuple[datetime, TimelineEvent]]] = {}
    for event in releases:
        if event.execution and event.at is not None:
            by_execution.setdefault(event.execution, []).append((event.at, event))
    found = {}
    for execution, items in by_execution.items():
        for start, (first, _) in enumerate(items):
            window = [e for at, e in items[start:] if at - first <= STORM_WINDOW]
            if len(window) >= STORM_RELEASES:
                found[execution] = [e for _, e in items]
                break
    return found


@rule(Layer.CAPACITY, products=FLUX)
def flux_release_storm(ctx: RuleContext) -> RuleResult | None:
    job = ctx.target.job
    name = subject_worker(ctx)
    releases = [e for e in events(ctx, "released") if e.detail.get("side") == "server"]
    if job is not None and job.id:
        releases = [e for e in releases if e.execution == job.id]
    elif name is not None:
        releases = [e for e in releases if e.worker == name]
    found = storms(releases)
    if not found:
        return None
    execution, items = max(found.items(), key=lambda kv: len(kv[1]))
    workers = sorted({str(e.worker) for e in items})
    return RuleResult.warn(
        codes.FLUX_RELEASE_STORM,
        f"Execution {execution} was handed back {len(items)} times ({', '.join(workers)}: "
        "'released ... re-dispatching'): the worker keeps flipping unhealthy while being "
        "dispatched to. Spread the load over more workers or move CPU-bound code off the "
        "in-process runner.",
        evidence=cite_events(items),
        releases=len(items),
    )
