"""Heartbeat evidence that cannot show a worker is fresh, shared by the generic and product rules.

"Online" is the product's word, and some products keep saying it for a silent
worker (Flux lists a stale worker online until its grace period ends, see the
Flux *Worker observability* page and what real Flux does). What proves a
recent heartbeat is the heartbeat's time, judged at collection. Without that
time, or with a time *after* collection (the clocks that wrote and read it
disagree), freshness is unknown: the heartbeat rung says so instead of passing.
"""

from __future__ import annotations

from schemas.evidence import WorkerStatus

from . import codes
from .api import RuleContext, RuleResult
from .facts import cite_worker

HEARTBEAT_CLOCK_TOLERANCE_S = 5.0
"""How far after collection a heartbeat may be dated before the clocks are in doubt.

A heartbeat flushed while the collector read (Flux writes ``last_seen_at`` once
per reaper tick) can be stamped a moment after the collector's own clock
reading; more than this is not a race but two clocks that disagree.
"""


def undecided_heartbeat(
    ctx: RuleContext, index: int, worker: WorkerStatus, age: float | None
) -> RuleResult | None:
    """Unknown when ``worker``'s heartbeat age is missing or negative beyond the tolerance."""
    if age is None:
        return RuleResult.unknown(
            codes.WORKER_HEARTBEAT_UNDATED,
            f"Worker {worker.name} is listed online, but the bundle has no heartbeat time for "
            "it: whether it still answers heartbeats is unknown.",
            [cite_worker(ctx.evidence, index, "last_heartbeat_at", value=None)],
        )
    if age < -HEARTBEAT_CLOCK_TOLERANCE_S:
        return RuleResult.unknown(
            codes.WORKER_HEARTBEAT_AFTER_COLLECTION,
            f"Worker {worker.name}'s last heartbeat is dated {-age:.0f}s after collection: the "
            "clocks that wrote and read it disagree, so its freshness is unknown.",
            [
                cite_worker(
                    ctx.evidence, index, "last_heartbeat_at", value=str(worker.last_heartbeat_at)
                )
            ],
        )
    return None
