"""What only Flux rules need on top of the shared evidence look-ups (:mod:`bundler.analyze.facts`).

A rule answers for one (worker, job) target. For a job the "worker" is the
one holding it, or the one it is pinned to (``X-Flux-Require-Worker``): an
execution pinned to an evicted worker is blocked at that worker's heartbeat.
Flux's log lines say which side wrote them (server or worker), and Flux has
documented heartbeat defaults for a bundle that did not record its settings.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bundler.analyze.api import RuleContext, TimelineEvent
from bundler.analyze.facts import heartbeat_policy
from schemas.evidence import HeartbeatPolicy

FLUX = ("flux",)
DEFAULT_POLICY = HeartbeatPolicy(interval_s=10, timeout_s=30, grace_s=30, source="default")


def subject_worker(ctx: RuleContext) -> str | None:
    if ctx.target.worker:
        return ctx.target.worker
    job = ctx.target.job
    if job is None:
        return None
    if job.assigned_worker:
        return job.assigned_worker
    return job.requirements.required_worker if job.requirements else None


def policy(ctx: RuleContext) -> HeartbeatPolicy:
    """The bundle's heartbeat timings, else Flux's defaults (10 s, 30 s, 30 s)."""
    found = heartbeat_policy(ctx.evidence)
    return found[0] if found is not None else DEFAULT_POLICY


def events(ctx: RuleContext, *kinds: str, worker: str | None = None) -> list[TimelineEvent]:
    return ctx.timeline.of_kind(*kinds, worker=worker)


def server_side(found: Iterable[TimelineEvent]) -> list[TimelineEvent]:
    return [e for e in found if e.detail.get("side") == "server"]


def worker_side(found: Iterable[TimelineEvent]) -> list[TimelineEvent]:
    return [e for e in found if e.detail.get("side") == "worker"]


# Log times on the server's clock: a worker's log is stamped on its own clock, which may be
# off (:meth:`bundler.analyze.api.Timeline.bounds`); a comparison with a server's line asks
# what its bounds allow, never what its stamp says.


def may_lie_between(
    ctx: RuleContext, event: TimelineEvent, low: datetime | None, high: datetime | None
) -> bool:
    """Whether ``event`` may have happened between ``low`` and ``high`` (None: open) on the
    server's clock: its bounds overlap them."""
    first, last = ctx.timeline.bounds(event)
    return (low is None or last is None or last >= low) and (
        high is None or first is None or first <= high
    )


def surely_between(
    ctx: RuleContext, event: TimelineEvent, low: datetime | None, high: datetime | None
) -> bool:
    """Whether ``event`` happened between ``low`` and ``high`` whatever its clock: its bounds
    lie within them."""
    first, last = ctx.timeline.bounds(event)
    return (low is None or (first is not None and first >= low)) and (
        high is None or (last is not None and last <= high)
    )
