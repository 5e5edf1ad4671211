"""Shared helpers of the Flux rules: who the target is, its records, the timeline.

A rule answers for one (worker, job) target. For a job the "worker" is the
one holding it, or the one it is pinned to (``X-Flux-Require-Worker``): an
execution pinned to an evicted worker is blocked at that worker's heartbeat.
"""

from __future__ import annotations

from collections.abc import Iterable

from bundler.analyze.api import RuleContext, TimelineEvent, cite_json
from schemas import Citation
from schemas.evidence import (
    HeartbeatPolicy,
    Job,
    JobsEvidence,
    ProductInfo,
    WorkersEvidence,
    WorkerStatus,
)

FLUX = ("flux",)
DEFAULT_POLICY = HeartbeatPolicy(interval_s=10, timeout_s=30, grace_s=30, source="default")
MAX_CITED_LINES = 8


def subject_worker(ctx: RuleContext) -> str | None:
    if ctx.target.worker:
        return ctx.target.worker
    job = ctx.target.job
    if job is None:
        return None
    if job.assigned_worker:
        return job.assigned_worker
    return job.requirements.required_worker if job.requirements else None


def worker_record(ctx: RuleContext, name: str) -> tuple[int, WorkerStatus] | None:
    doc = ctx.evidence.get(WorkersEvidence)
    for index, worker in enumerate(doc.workers if doc else []):
        if worker.name == name:
            return index, worker
    return None


def cite_worker(ctx: RuleContext, index: int, field: str, value: object) -> Citation:
    return ctx.evidence.cite(WorkersEvidence, f"/workers/{index}/{field}", value)


def policy(ctx: RuleContext) -> HeartbeatPolicy:
    workers = ctx.evidence.get(WorkersEvidence)
    if workers is not None and workers.heartbeat is not None:
        return workers.heartbeat
    product = ctx.evidence.get(ProductInfo)
    if product is not None and product.heartbeat is not None:
        return product.heartbeat
    return DEFAULT_POLICY


def events(ctx: RuleContext, *kinds: str, worker: str | None = None) -> list[TimelineEvent]:
    return ctx.timeline.of_kind(*kinds, worker=worker)


def server_side(found: Iterable[TimelineEvent]) -> list[TimelineEvent]:
    return [e for e in found if e.detail.get("side") == "server"]


def worker_side(found: Iterable[TimelineEvent]) -> list[TimelineEvent]:
    return [e for e in found if e.detail.get("side") == "worker"]


def cite_events(found: Iterable[TimelineEvent], limit: int = MAX_CITED_LINES) -> list[Citation]:
    """Citations of log lines, keeping the first and the most recent when there are many."""
    lines = list(found)
    if len(lines) > limit:
        lines = lines[: limit // 2] + lines[-(limit - limit // 2) :]
    return [e.citation() for e in lines]


def job_label(job: Job) -> str:
    return f"execution {job.id} of {job.name}" if job.id else job.name


def cite_job(ctx: RuleContext, job: Job, field: str = "native_state") -> Citation:
    doc = ctx.evidence.get(JobsEvidence)
    for index, item in enumerate(doc.jobs if doc else []):
        if item.id == job.id and item.name == job.name:
            return ctx.evidence.cite(JobsEvidence, f"/jobs/{index}/{field}", getattr(job, field))
    return cite_json("evidence/jobs.json", "", job.name)
