"""Job responses: definitions with placement, the placement report, runtime requirements."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from . import derive
from .api import Body, Handler, iso, not_found
from .scenario import JobSpec, Scenario, parse_size, resolve_time


def placement_spec(job: JobSpec) -> dict[str, Any]:
    return {
        "worker_group": job.worker_group,
        "replicas": job.replicas,
        "labels": job.labels,
        "capabilities": job.capabilities,
        "os": job.os,
        "workers": job.workers,
    }


IN_PROGRESS = ("pending", "staged", "rendering", "delivering")


def job_state(deployment_states: list[str]) -> str:
    """The job's overall state from its per-worker deployments."""
    if any(state == "failed" for state in deployment_states):
        return "failed"
    if any(state in IN_PROGRESS for state in deployment_states):
        return "pending"
    if deployment_states and all(state == "active" for state in deployment_states):
        return "running"
    return "deployed" if deployment_states else "not_deployed"


def jobs(sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]) -> tuple[int, Body]:
    out = []
    for job in sc.jobs:
        deps = derive.job_deployments(sc, job, now)
        state = job_state([d.state for d in deps])
        out.append(
            {
                "name": job.name,
                "id": f"job_{job.name}",
                "type": job.type,
                "staged": job.staged,
                "staged_revision": job.staged_revision if job.staged else None,
                "state": state,
                "placement": placement_spec(job),
                "resources": {
                    "cpu_cores": job.cpu_cores,
                    "memory_bytes": parse_size(job.memory),
                    "disk_bytes": None,
                },
                "receipt_required": job.receipt_required,
                "updated_at": iso(resolve_time("-1h", now)),
            }
        )
    return 200, out


def with_job(build: Callable[[Scenario, JobSpec, datetime], Body]) -> Handler:
    def handler(
        sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]
    ) -> tuple[int, Body]:
        job = next((j for j in sc.jobs if j.name == p["name"]), None)
        if job is None:
            return not_found("job")
        return 200, build(sc, job, now)

    return handler


def job_placement(sc: Scenario, job: JobSpec, now: datetime) -> Body:
    placed = derive.placement(sc, job)
    filtered: dict[str, int] = {}
    for _, reasons in placed.per_worker.values():
        for reason in reasons:
            filtered[reason] = filtered.get(reason, 0) + 1
    evaluated, eligible, n_placed = len(placed.per_worker), len(placed.eligible), len(placed.placed)
    parts = [f"{n} {code}" for code, n in sorted(filtered.items())]
    summary = f"{eligible}/{evaluated} workers eligible" + (
        f": {', '.join(parts)}" if parts else ""
    )
    if n_placed == 0:
        status, code = "fail", "NO_ELIGIBLE_WORKERS" if eligible == 0 else "REPLICAS_UNSATISFIED"
    elif n_placed < job.replicas:
        status, code = "warn", "REPLICAS_UNSATISFIED"
    else:
        status, code = "pass", None
    return {
        "job": job.name,
        "desired": placement_spec(job),
        "candidates": {
            "evaluated": evaluated,
            "eligible": eligible,
            "placed": n_placed,
            "filtered": filtered,
        },
        "per_worker": [
            {
                "worker_id": w,
                "verdict": verdict,
                "reasons": reasons,
                "detail": None if not reasons else f"filtered: {', '.join(reasons)}",
            }
            for w, (verdict, reasons) in placed.per_worker.items()
        ],
        "summary": summary,
        "status": status,
        "code": code,
    }


def job_requirements(sc: Scenario, job: JobSpec, now: datetime) -> Body:
    reports = []
    for worker in derive.placement(sc, job).placed:
        reqs: list[dict[str, object]] = [
            {
                "id": r.id,
                "kind": r.kind,
                "ref": r.ref,
                "status": r.status,
                "code": r.code,
                "message": r.message,
                "detail": {},
            }
            for r in job.requirements
            if r.workers is None or worker in r.workers
        ]
        blockers = [
            {"code": code, "requirement": req_id, "message": message}
            for code, req_id, message in derive.blockers_for(job, worker)
        ]
        reports.append(
            {
                "worker_id": worker,
                "generated_at": iso(now),
                "requirements": reqs,
                "blockers": blockers,
                "redaction": {"secret_values_included": False},
                "status": "fail" if blockers else "pass",
                "code": "RUNTIME_REQUIREMENTS_BLOCKED" if blockers else None,
            }
        )
    return {"job": job.name, "generated_at": iso(now), "reports": reports}
