"""Raw responses about workers: list, status, sysinfo, logs, authorization, capacity."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from schemas import RecordModel


class WorkerSummary(RecordModel):
    """One item of ``GET /api/workers`` [S: a JSON array of objects with ``id``]."""

    id: str
    name: str | None = None
    kind: str | None = Field(default=None, description="builtin | external")
    group: str | None = None
    labels: list[str] = Field(default_factory=list)
    state: str | None = Field(default=None, description="online | stale | offline | ...")
    version: str | None = None
    last_heartbeat_at: datetime | None = None
    limit_job_capabilities: bool | None = None


class WorkerEvent(RecordModel):
    type: str
    at: datetime | None = None
    detail: str | None = None


class WorkerStatusRaw(RecordModel):
    """``GET /api/workers/{id}/status`` [B: ``lyftdata workers status``]."""

    id: str
    state: str
    last_heartbeat_at: datetime | None = None
    heartbeat_age_s: float | None = None
    heartbeat_interval_s: float | None = None
    heartbeat_grace_s: float | None = None
    missed_heartbeats: int | None = None
    first_seen_at: datetime | None = None
    version: str | None = None
    jobs_running: int | None = None
    clock_skew_s: float | None = None
    capabilities: list[str] = Field(default_factory=list)
    recent_events: list[WorkerEvent] = Field(default_factory=list)


class WorkerSysinfo(RecordModel):
    """``GET /api/workers/{id}/sysinfo`` [B: ``lyftdata workers sysinfo``]."""

    id: str
    hostname: str | None = None
    os: str | None = None
    os_version: str | None = None
    arch: str | None = None
    cpu_cores: float | None = None
    memory_total_bytes: int | None = None
    memory_available_bytes: int | None = None
    jobs_dir: str | None = None
    jobs_dir_disk_free_bytes: int | None = None
    reported_at: datetime | None = None


class WorkerLogLine(RecordModel):
    at: datetime | None = None
    level: str | None = None
    target: str | None = None
    message: str


class WorkerLogs(RecordModel):
    """``GET /api/workers/{id}/logs?limit=N`` [B: ``lyftdata workers logs --limit``]."""

    worker_id: str
    limit: int | None = None
    lines: list[WorkerLogLine] = Field(default_factory=list)


class Bootstrap(RecordModel):
    method: str | None = Field(default=None, description="api_key | auto_enrollment")
    identity_cached: bool | None = None
    enrollment_key_still_configured: bool | None = None


class LeaseSignatureRaw(RecordModel):
    alg: str | None = None
    key_id: str | None = None
    verdict: str | None = Field(
        default=None, description="valid | invalid | unknown_key | unchecked"
    )


class LeaseRaw(RecordModel):
    lease_id: str | None = None
    issued_at: datetime | None = None
    expires_at: datetime | None = None
    renewable: bool | None = None
    last_renewal_at: datetime | None = None
    renew_attempts_failed: int | None = None
    signature: LeaseSignatureRaw | None = None


class WorkerAuth(RecordModel):
    """``GET /api/workers/{id}/auth`` [B: the signed auth lease; I: shape]."""

    worker_id: str
    applicable: bool = True
    edition: str | None = None
    bootstrap: Bootstrap | None = None
    lease: LeaseRaw | None = None
    decision: str = Field(description="allow | deny | expired | unknown")
    native_code: str | None = None
    message: str | None = None
    clock_skew_s: float | None = None
    clock_tolerance_s: float | None = None


class CapacityResources(RecordModel):
    cpu_cores: float | None = None
    cpu_util_pct: float | None = None
    memory_total_bytes: int | None = None
    memory_available_bytes: int | None = None
    jobs_dir_disk_free_bytes: int | None = None


class CapacityLoad(RecordModel):
    jobs_assigned: int | None = None
    jobs_running: int | None = None
    queue_pending: int | None = None
    backpressure: bool | None = None


class WorkerCapacityRaw(RecordModel):
    """``GET /api/workers/{id}/capacity`` [I]."""

    worker_id: str
    metrics_enabled: bool | None = None
    resources: CapacityResources | None = None
    load: CapacityLoad | None = None
    limits: dict[str, float | int | str | None] = Field(default_factory=dict)
    thresholds: dict[str, float] = Field(default_factory=dict)
