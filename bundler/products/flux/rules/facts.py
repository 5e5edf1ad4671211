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
from bundler.analyze.facts import citations, cite, cite_job, cite_source, heartbeat_policy
from schemas import Citation
from schemas.evidence import HeartbeatPolicy, Job, OutcomeEvidence

FLUX = ("flux",)
DEFAULT_POLICY = HeartbeatPolicy(interval_s=10, timeout_s=30, grace_s=30, source="default")
RUN_RECORDS_CITED = 4
"""Entries of one execution in the outcome document cited at most (one or two in a real
bundle: the database's last run, the API's; a bundle listing it more is cited a few times)."""


def subject_worker(ctx: RuleContext) -> str | None:
    if ctx.target.worker:
        return ctx.target.worker
    job = ctx.target.job
    if job is None:
        return None
    if job.assigned_worker:
        return job.assigned_worker
    return job.requirements.required_worker if job.requirements else None


def failed_execution_cited(ctx: RuleContext, job: Job) -> list[Citation]:
    """Where a failed execution is recorded, for whoever must open it: Flux's error in the
    job list, the raw executions member it was read from, and the execution's entry in the
    outcome document with the raw record that entry was read from (the database's last run,
    or the API's execution). A Flux finding of the failure replaces the generic
    ``JOB_RUN_FAILED`` and ``CANARY_FAILED``, which cited all of these: citing only the
    error left the raw evidence without a pointer."""
    ev = ctx.evidence
    found = citations(
        cite_job(ev, job, "error" if job.error else "phase", value=job.error or job.phase.value),
        cite_source(job.source),
    )
    outcome = ev.get(OutcomeEvidence)
    runs = [
        (index, run)
        for index, run in enumerate(outcome.canaries if outcome else [])
        if job.id is not None and run.canary_id == job.id
    ]
    for index, run in runs[:RUN_RECORDS_CITED]:
        found += citations(
            cite(ev, OutcomeEvidence, "canaries", index, "phase", value=run.phase),
            cite_source(run.source),
        )
    unique: dict[str, Citation] = {}  # one raw record behind two facts is cited once
    for citation in found:
        unique.setdefault(citation.label(), citation)
    return list(unique.values())


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
