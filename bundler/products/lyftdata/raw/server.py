"""Raw responses of the LyftData control plane's server-level endpoints.

Shapes follow ``openapi.yaml`` (the contract); provenance of every field is
recorded there (``x-provenance``). Models are tolerant (``RecordModel``:
unknown fields kept), because a real server may be newer than this contract.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from schemas import RecordModel


class HealthStorage(RecordModel):
    used_pct: float | None = None
    prune_threshold_pct: float | None = None


class Health(RecordModel):
    """``GET /api/health`` [I]."""

    status: str = Field(description="ok | degraded | error")
    database: str | None = Field(default=None, description="ok | error")
    uptime_s: float | None = None
    storage: HealthStorage | None = None


class Version(RecordModel):
    """``GET /api/version`` [I]."""

    version: str
    build: str | None = None
    api: str | None = None


class LicenseLimits(RecordModel):
    max_workers: int | None = None
    max_jobs: int | None = None
    volume_bytes_per_day: int | None = None


class License(RecordModel):
    """``GET /api/license/show`` [S path, I shape]. The license key body is never returned."""

    mode: str = Field(description="licensed | community | evaluation")
    state: str = Field(description="valid | expiring | expired | invalid")
    licensee: str | None = None
    expires_at: datetime | None = None
    external_workers_allowed: bool | None = None
    limits: LicenseLimits | None = None
    native_code: str | None = None


class EffectiveSettings(RecordModel):
    """``GET /api/settings/effective`` [I path; setting names and defaults S]. No secret values."""

    worker_poll_interval_s: float | None = None
    worker_heartbeat_grace_s: float | None = None
    worker_metrics_interval_s: float | None = None
    lease_ttl_s: float | None = None
    lease_renew_before_s: float | None = None
    lease_clock_tolerance_s: float | None = None
    disk_usage_max_percentage: float | None = None
    log_retention_days: int | None = None
    tls: dict[str, Any] = Field(default_factory=dict)
