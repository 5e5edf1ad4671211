"""Worker responses: the list, and each worker's status, sysinfo, logs, authorization, capacity."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from . import derive
from .api import Body, Handler, iso, not_found
from .scenario import Scenario, WorkerSpec, parse_size, resolve_time

THRESHOLDS = {"cpu_pct": 80.0, "mem_pct": 85.0, "queue_pending": 100.0, "error_retry_pct": 5.0}
"""Scale signals from LyftData's scaling page [S]."""


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
        for d in derive.job_deployments(sc, job, now)
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
        # a worker without metrics collection reports no measurements at all, never zeros
        "resources": None
        if not s.metrics_enabled
        else {
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
                for d in derive.job_deployments(sc, j, now)
                if d.worker == w.id and d.state == "active"
            ),
            "queue_pending": s.queue_pending,
            "backpressure": s.backpressure,
        },
        "limits": {"edition": sc.license.mode, "max_jobs": sc.license.max_jobs},
        "thresholds": THRESHOLDS,
    }
