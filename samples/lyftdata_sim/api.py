"""Responses of the LyftData API contract (``openapi.yaml``), shaped from derived facts.

Each handler is ``(scenario, now, params, query) -> (status, body)``; the
route table maps contract paths to handlers. Nothing here does I/O, so tests
can call it directly and the HTTP layer stays a thin shell.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from . import derive
from .scenario import JobSpec, Scenario, WorkerSpec, parse_size, resolve_time

Body = Any
Handler = Callable[[Scenario, datetime, dict[str, str], dict[str, str]], tuple[int, Body]]

THRESHOLDS = {"cpu_pct": 80.0, "mem_pct": 85.0, "queue_pending": 100.0, "error_retry_pct": 5.0}
"""Scale signals from LyftData's scaling page [S]."""


def iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def not_found(what: str) -> tuple[int, Body]:
    return 404, {"error": "not_found", "message": f"no such {what}"}


def health(sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]) -> tuple[int, Body]:
    body = {
        "status": sc.server.health,
        "database": sc.server.database,
        "uptime_s": 86400.0,
        "storage": {
            "used_pct": sc.server.storage_used_pct,
            "prune_threshold_pct": sc.settings.disk_usage_max_percentage,
        },
    }
    return (503 if sc.server.health == "error" else 200), body


def version(sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]) -> tuple[int, Body]:
    return 200, {"version": sc.server.version, "build": sc.server.build, "api": "v1"}


def license_show(
    sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]
) -> tuple[int, Body]:
    lic = sc.license
    native = None
    if lic.mode == "community":
        native = "community_edition_no_external_workers"
    elif lic.state in ("expired", "invalid"):
        native = "license_expired_or_invalid"
    return 200, {
        "mode": lic.mode,
        "state": lic.state,
        "licensee": lic.licensee,
        "expires_at": iso(resolve_time(lic.expires_at, now)),
        "external_workers_allowed": lic.mode != "community",
        "limits": {
            "max_workers": 1 if lic.mode == "community" else lic.max_workers,
            "max_jobs": 15 if lic.mode == "community" else lic.max_jobs,
            "volume_bytes_per_day": 250_000_000_000 if lic.mode == "community" else None,
        },
        "native_code": native,
    }


def settings(sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]) -> tuple[int, Body]:
    body = sc.settings.model_dump()
    body["tls"] = {"enabled": sc.server.tls, "insecure": False}
    return 200, body


def _worker_summary(sc: Scenario, w: WorkerSpec, now: datetime) -> dict[str, Any]:
    hb = derive.heartbeat(sc, w, now)
    return {
        "id": w.id,
        "name": w.id,
        "kind": w.kind,
        "group": w.group,
        "labels": w.labels,
        "state": hb.state,
        "version": w.version,
        "last_heartbeat_at": iso(hb.last_at),
        "limit_job_capabilities": w.limit_job_capabilities,
    }


def workers(sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]) -> tuple[int, Body]:
    return 200, [_worker_summary(sc, w, now) for w in sc.workers]


def with_worker(
    build: Callable[[Scenario, WorkerSpec, datetime, dict[str, str]], Body],
) -> Handler:
    def handler(
        sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]
    ) -> tuple[int, Body]:
        worker = sc.worker(p["id"])
        if worker is None:
            return not_found("worker")
        return 200, build(sc, worker, now, q)

    return handler


def worker_status(sc: Scenario, w: WorkerSpec, now: datetime, q: dict[str, str]) -> Body:
    hb = derive.heartbeat(sc, w, now)
    events = [{"type": "worker-connected", "at": iso(resolve_time(w.first_seen, now))}]
    if hb.state in ("stale", "offline") and hb.last_at is not None:
        silence = hb.last_at.timestamp() + sc.settings.worker_poll_interval_s * 2
        events.append(
            {
                "type": "worker-suspicious-silence",
                "at": iso(datetime.fromtimestamp(silence, now.tzinfo)),
            }
        )
    if hb.state == "offline" and hb.last_at is not None:
        gone = (
            hb.last_at.timestamp()
            + sc.settings.worker_poll_interval_s
            + sc.settings.worker_heartbeat_grace_s
        )
        events.append(
            {"type": "worker-offline", "at": iso(datetime.fromtimestamp(gone, now.tzinfo))}
        )
    running = sum(
        1
        for job in sc.jobs
        for d in derive.job_deployments(sc, job)
        if d.worker == w.id and d.state == "active"
    )
    return {
        "id": w.id,
        "state": hb.state,
        "last_heartbeat_at": iso(hb.last_at),
        "heartbeat_age_s": hb.age_s,
        "heartbeat_interval_s": sc.settings.worker_poll_interval_s,
        "heartbeat_grace_s": sc.settings.worker_heartbeat_grace_s,
        "missed_heartbeats": hb.missed,
        "first_seen_at": iso(resolve_time(w.first_seen, now)),
        "version": w.version,
        "jobs_running": running,
        "clock_skew_s": w.clock_offset_s if hb.last_at is not None else None,
        "capabilities": w.capabilities,
        "recent_events": events,
    }


def worker_sysinfo(sc: Scenario, w: WorkerSpec, now: datetime, q: dict[str, str]) -> Body:
    s = w.sysinfo
    return {
        "id": w.id,
        "hostname": f"{w.id}.sim.invalid",
        "os": s.os,
        "os_version": s.os_version,
        "arch": s.arch,
        "cpu_cores": s.cpu_cores,
        "memory_total_bytes": parse_size(s.memory_total),
        "memory_available_bytes": parse_size(s.memory_available),
        "jobs_dir": "/var/lib/lyftdata-worker",
        "jobs_dir_disk_free_bytes": parse_size(s.disk_free),
        "reported_at": iso(resolve_time(w.last_heartbeat, now)),
    }


def worker_logs(sc: Scenario, w: WorkerSpec, now: datetime, q: dict[str, str]) -> Body:
    limit = max(1, int(q.get("limit", "200") or 200))
    lines = sorted(
        (
            {
                "at": iso(resolve_time(line.at, now)),
                "level": line.level,
                "target": line.target,
                "message": line.message,
            }
            for line in w.logs
        ),
        key=lambda line: line["at"] or "",
    )
    return {"worker_id": w.id, "limit": limit, "lines": lines[-limit:]}


def worker_auth(sc: Scenario, w: WorkerSpec, now: datetime, q: dict[str, str]) -> Body:
    decided = derive.auth_decision(sc, w, now)
    if not decided.applicable:
        return {
            "worker_id": w.id,
            "applicable": False,
            "decision": "allow",
            "edition": sc.license.mode,
        }
    lease = w.auth.lease
    return {
        "worker_id": w.id,
        "applicable": True,
        "edition": sc.license.mode,
        "bootstrap": {
            "method": w.auth.bootstrap,
            "identity_cached": w.auth.identity_cached,
            "enrollment_key_still_configured": w.auth.enrollment_key_still_configured,
        },
        "lease": {
            "lease_id": f"wl_{w.id}",
            "issued_at": iso(resolve_time(lease.issued_at, now)),
            "expires_at": iso(resolve_time(lease.expires_at, now)),
            "renewable": True,
            "last_renewal_at": iso(resolve_time(lease.last_renewal_at, now)),
            "renew_attempts_failed": lease.renew_attempts_failed,
            "signature": {"alg": "EdDSA", "key_id": "srv-2025-11", "verdict": lease.signature},
        },
        "decision": decided.decision,
        "native_code": decided.native_code,
        "message": decided.message,
        "clock_skew_s": w.clock_offset_s,
        "clock_tolerance_s": sc.settings.lease_clock_tolerance_s,
    }


def worker_capacity(sc: Scenario, w: WorkerSpec, now: datetime, q: dict[str, str]) -> Body:
    s = w.sysinfo
    assigned = [job for job in sc.jobs if w.id in derive.placement(sc, job).placed]
    return {
        "worker_id": w.id,
        "metrics_enabled": s.metrics_enabled,
        "resources": {
            "cpu_cores": s.cpu_cores,
            "cpu_util_pct": s.cpu_util_pct,
            "memory_total_bytes": parse_size(s.memory_total),
            "memory_available_bytes": parse_size(s.memory_available),
            "jobs_dir_disk_free_bytes": parse_size(s.disk_free),
        },
        "load": {
            "jobs_assigned": len(assigned),
            "jobs_running": sum(
                1
                for j in assigned
                for d in derive.job_deployments(sc, j)
                if d.worker == w.id and d.state == "active"
            ),
            "queue_pending": s.queue_pending,
            "backpressure": s.backpressure,
        },
        "limits": {"edition": sc.license.mode, "max_jobs": sc.license.max_jobs},
        "thresholds": THRESHOLDS,
    }


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
        deps = derive.job_deployments(sc, job)
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
        reqs = [
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
