"""Delivery responses: deployments (desired vs actual), canary runs and their receipts."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from . import derive
from .api import Body, iso, not_found
from .scenario import JobSpec, ReceiptSpec, Scenario, resolve_time


def _sha(*parts: object) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()


def _job_deployment(sc: Scenario, job: JobSpec, d: derive.JobDeploymentState, now: datetime) -> Any:
    desired_sha = _sha(job.name, job.staged_revision, d.worker)
    reached = d.state in ("deployed", "active")
    running = d.revision if d.revision is not None else job.staged_revision
    deployed_at = resolve_time(job.deployed_at, now) or now
    events = (
        [{"type": "job-staged", "at": iso(deployed_at - timedelta(minutes=2)), "detail": None}]
        if job.staged
        else []
    )
    if reached:
        events += [
            {
                "type": "job-deploy-ready",
                "at": iso(deployed_at - timedelta(minutes=1)),
                "detail": None,
            },
            {"type": "job-deployed", "at": iso(deployed_at), "detail": None},
        ]
        if d.state == "active":
            events.append({"type": "deployed-job-active", "at": iso(deployed_at), "detail": None})
    elif d.state == "failed":
        events.append(
            {"type": "run-job-failure", "at": iso(now - timedelta(minutes=30)), "detail": d.reason}
        )
    resolved = len(job.context_keys) - len(d.context_keys_missing)
    return {
        "job": job.name,
        "worker_id": d.worker,
        "desired": {
            "staged_revision": job.staged_revision if job.staged else None,
            "rendered_sha256": desired_sha,
            "state": "active",
        },
        "actual": {
            "staged_revision": running if reached else None,
            "rendered_sha256": _sha(job.name, running, d.worker) if reached else None,
            "state": d.state,
        },
        "state": d.state,
        "reason": d.reason,
        "message": d.message,
        "staged": job.staged,
        "rendered": None
        if not job.staged
        else {
            "sha256": desired_sha,
            "context_keys_resolved": max(0, resolved),
            "context_keys_missing": d.context_keys_missing,
        },
        "bundle_signature": {
            "verified": d.signature_verified,
            "error": None if d.signature_verified is not False else "signature_mismatch",
        },
        "state_since": iso(deployed_at if reached else now - timedelta(minutes=30)),
        "events": events,
    }


def deployments(
    sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]
) -> tuple[int, Body]:
    if not sc.server.deployments_enabled:
        return not_found("route")
    job_deps = [
        _job_deployment(sc, job, d, now)
        for job in sc.jobs
        for d in derive.job_deployments(sc, job, now)
    ]
    failed = [d for d in job_deps if d["state"] == "failed"]
    drifted = [d for d in job_deps if d["reason"] == "DRIFT_DETECTED"]
    record = {
        "id": sc.deployment_id,
        "workflow": {"id": sc.workflow, "version": sc.workflow_version},
        "status": "failed" if failed else "running",
        "reconcile": {
            "state": "drifted" if failed or drifted else "in_sync",
            "drift": [f"NOT_RUNNABLE:{d['job']}@{d['worker_id']}" for d in failed]
            + [f"REVISION_DRIFT:{d['job']}@{d['worker_id']}" for d in drifted],
            "last_reconcile_at": iso(now - timedelta(minutes=1)),
        },
        "last_known_good": f"{sc.deployment_id}@{sc.workflow_version - 1}",
        "job_deployments": job_deps,
    }
    return 200, [record] if sc.jobs else []


def _canary_worker(sc: Scenario, job: JobSpec) -> str | None:
    if job.canary is None:
        return None
    placed = derive.placement(sc, job).placed
    if job.canary.worker is not None:
        return job.canary.worker
    return placed[0] if placed else None


def canary_record(sc: Scenario, job: JobSpec, now: datetime) -> dict[str, Any] | None:
    worker = _canary_worker(sc, job)
    spec = job.canary
    if spec is None or worker is None:
        return None
    started = resolve_time(spec.started_at, now)
    assert started is not None
    running = spec.phase in ("pending", "running")
    finished = None if running else started + timedelta(seconds=spec.runs_s)
    return {
        "canary_id": f"can_{job.name}",
        "job": job.name,
        "worker_id": worker,
        "mode": "transient_run",
        "phase": spec.phase,
        "started_at": iso(started),
        "finished_at": iso(finished),
        "events_in": spec.events_in,
        "events_out": spec.events_out,
        "errors": spec.errors,
        "receipt_required": job.receipt_required,
        "nonce": f"ld-canary-{_sha(job.name)[:6]}",
    }


def canaries(sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]) -> tuple[int, Body]:
    if not sc.server.canaries_enabled:
        return not_found("route")
    return 200, [c for job in sc.jobs if (c := canary_record(sc, job, now)) is not None]


def _receipt_verdict(job: JobSpec, receipts: list[ReceiptSpec]) -> str:
    if not receipts:
        return "missing" if job.receipt_required else "not_configured"
    if any(not r.nonce_matched for r in receipts):
        return "mismatched"
    if all(r.strength == "accepted" for r in receipts):
        return "accepted_only"
    return "confirmed"


def canary_receipts(
    sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]
) -> tuple[int, Body]:
    job = next((j for j in sc.jobs if f"can_{j.name}" == p["id"]), None)
    if job is None or job.canary is None or canary_record(sc, job, now) is None:
        return not_found("canary")
    spec = job.canary.receipts
    receipts = spec if spec is not None else ([ReceiptSpec()] if job.receipt_required else [])
    if job.canary.phase != "successful":
        receipts = []
    started = resolve_time(job.canary.started_at, now)
    assert started is not None
    return 200, {
        "canary_id": p["id"],
        "receipt_verdict": _receipt_verdict(job, receipts),
        "receipts": [
            {
                "sink": r.sink,
                "receipt_type": r.receipt_type,
                "strength": r.strength,
                "acked": r.acked,
                "nonce_matched": r.nonce_matched,
                "observed_at": iso(started + timedelta(seconds=job.canary.receipt_after_s)),
            }
            for r in receipts
        ],
    }
