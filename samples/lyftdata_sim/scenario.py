"""The scenario file: a LyftData deployment's *causes*, from which the simulator derives symptoms.

A scenario says what is true (the license expired, a worker's clock is five
minutes fast, a job wants a worker group nobody is in); the simulator computes
what the API then shows (lease denied with ``license_expired_or_invalid``, a
placement report with no eligible worker), so new incidents are data, not
code. Any derived answer can still be forced with an explicit override.

Times are relative to the moment of the request (``"-412s"``, ``"+90d"``,
``"now"``) or absolute ISO 8601, so ages stay right however long a test runs.
Sizes are bytes or strings such as ``"8GiB"``.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from schemas import InputModel

from .values import TimeExpr, parse_size, resolve_time

__all__ = ["Scenario", "ScenarioError", "parse_size", "resolve_time"]


class ScenarioError(ValueError):
    """The scenario file cannot be used; the message is one line."""


class ServerSpec(InputModel):
    version: str = "1.4.2"
    build: str = "sim"
    tls: bool = Field(default=False, description="Serve HTTPS with a generated certificate.")
    reject_tokens: bool = Field(
        default=False, description="Reject every token with 401 (e.g. after a JWT PSK rotation)."
    )
    health: Literal["ok", "degraded", "error"] = "ok"
    database: Literal["ok", "error"] = "ok"
    storage_used_pct: float = 35.0
    deployments_enabled: bool = True
    canaries_enabled: bool = True
    faults: list[RouteFault] = Field(
        default_factory=list,
        description="Contract routes that misbehave (answer 404 or 500, or hang past a timeout).",
    )


class RouteFault(InputModel):
    """One contract route that does not answer as it should (a cause, not a symptom)."""

    path: str = Field(
        description="A contract path; `*` matches one path segment, e.g. /api/workers/*/capacity."
    )
    answer: Literal["not_found", "error", "hang"] = "not_found"
    hang_s: float = Field(
        default=5.0, gt=0, description="For `hang`: how long it waits before answering."
    )

    def matches(self, path: str) -> bool:
        pattern = (
            "^"
            + "/".join("[^/]+" if part == "*" else re.escape(part) for part in self.path.split("/"))
            + "$"
        )
        return re.match(pattern, path) is not None


class LicenseSpec(InputModel):
    mode: Literal["licensed", "community", "evaluation"] = "licensed"
    state: Literal["valid", "expiring", "expired", "invalid"] = "valid"
    licensee: str | None = "Example Corp"
    expires_at: TimeExpr | None = "+90d"
    max_workers: int | None = 10
    max_jobs: int | None = None


class SettingsSpec(InputModel):
    worker_poll_interval_s: float = 15
    worker_heartbeat_grace_s: float = 45
    worker_metrics_interval_s: float = 60
    lease_ttl_s: float = 900
    lease_renew_before_s: float = 300
    lease_clock_tolerance_s: float = 60
    disk_usage_max_percentage: float = 80
    log_retention_days: int = 30


class LeaseSpec(InputModel):
    issued_at: TimeExpr = "-10m"
    expires_at: TimeExpr = "+5m"
    last_renewal_at: TimeExpr | None = "-10m"
    renew_attempts_failed: int = 0
    signature: Literal["valid", "invalid", "unknown_key", "unchecked"] = "valid"


class AuthSpec(InputModel):
    bootstrap: Literal["api_key", "auto_enrollment"] = "api_key"
    identity_cached: bool = True
    enrollment_key_still_configured: bool = False
    lease: LeaseSpec = Field(default_factory=LeaseSpec)
    decision: Literal["allow", "deny", "expired", "unknown"] | None = Field(
        default=None,
        description="Force the decision ('unknown': the server has not decided); default: "
        "derived from license and clocks.",
    )
    native_code: str | None = None
    message: str | None = None


class SysinfoSpec(InputModel):
    os: str = "linux"
    os_version: str = "Debian GNU/Linux 12"
    arch: str = "x86_64"
    cpu_cores: float = 4
    memory_total: int | str = "8GiB"
    memory_available: int | str = "6GiB"
    disk_free: int | str = "40GiB"
    cpu_util_pct: float = 20
    queue_pending: int = 0
    backpressure: bool = False
    metrics_enabled: bool = True


class LogLineSpec(InputModel):
    at: TimeExpr = "-1m"
    level: Literal["TRACE", "DEBUG", "INFO", "WARN", "ERROR"] = "INFO"
    target: str = "lyftdata_worker::runtime"
    message: str


class WorkerSpec(InputModel):
    id: str = Field(pattern=r"^[A-Za-z0-9.-]+$")
    kind: Literal["builtin", "external"] = "external"
    group: str = "default"
    labels: list[str] = Field(default_factory=list)
    capabilities: list[str] = Field(default_factory=lambda: ["files", "http-post", "exec"])
    limit_job_capabilities: bool = False
    version: str = "1.4.2"
    last_heartbeat: TimeExpr | None = Field(default="-5s", description="None: never connected.")
    first_seen: TimeExpr = "-30d"
    clock_offset_s: float = Field(default=0, description="Worker clock minus server clock.")
    removed: bool = False
    sysinfo: SysinfoSpec = Field(default_factory=SysinfoSpec)
    auth: AuthSpec = Field(default_factory=AuthSpec)
    logs: list[LogLineSpec] = Field(default_factory=list)


class RequirementSpec(InputModel):
    id: str
    kind: str
    ref: str | None = None
    status: Literal["satisfied", "missing", "denied", "unknown", "n/a"] = "satisfied"
    code: str | None = None
    message: str | None = None
    workers: list[str] | None = Field(default=None, description="Only for these workers.")


class DeploymentOverride(InputModel):
    worker: str | None = Field(default=None, description="Only this worker (default: every).")
    state: str
    reason: str | None = None
    message: str | None = None
    context_keys_missing: list[str] = Field(default_factory=list)
    signature_verified: bool | None = True


class CanarySpec(InputModel):
    worker: str | None = None
    phase: Literal[
        "pending", "running", "successful", "failed", "error", "inconclusive", "timed_out"
    ] = "successful"
    started_at: TimeExpr = "-3m"
    runs_s: float = Field(
        default=9, ge=0, description="From start to finish (a finished canary's finished_at)."
    )
    receipt_after_s: float = Field(
        default=14, ge=0, description="From start to its receipts' observed_at."
    )
    events_in: int = 1
    events_out: int = 1
    errors: int = 0
    receipts: list[ReceiptSpec] | None = Field(
        default=None, description="None: a confirmed receipt when the job requires one."
    )


class ReceiptSpec(InputModel):
    sink: str = "splunk-hec"
    receipt_type: str = "indexer_ack"
    strength: Literal["accepted", "buffered", "durable", "indexed"] = "indexed"
    acked: bool = True
    nonce_matched: bool = True


class JobSpec(InputModel):
    name: str = Field(pattern=r"^[A-Za-z0-9._-]+$")
    type: Literal["once", "streaming", "scheduled"] = "streaming"
    staged: bool = True
    staged_revision: int = 3
    running_revision: int | None = Field(
        default=None,
        description="The revision the worker really runs when it is not the staged one (drift).",
    )
    deployed_at: TimeExpr = Field(
        default="-118m", description="When the current revision reached its workers."
    )
    worker_group: str | None = "default"
    replicas: int = 1
    labels: list[str] = Field(default_factory=list)
    capabilities: list[str] = Field(default_factory=list)
    os: str | None = None
    workers: list[str] | None = None
    cpu_cores: float | None = None
    memory: int | str | None = None
    receipt_required: bool = False
    context_keys: list[str] = Field(default_factory=list, description="{{KEY}}s it renders.")
    requirements: list[RequirementSpec] = Field(default_factory=list)
    deployment: list[DeploymentOverride] = Field(default_factory=list)
    canary: CanarySpec | None = Field(default_factory=CanarySpec)


class StateFileSpec(InputModel):
    path: str = Field(pattern=r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)?$")
    kind: Literal["sqlite", "file"] = "sqlite"
    rows: int = 50
    corrupt: bool = False
    content: str | None = Field(default=None, description="For kind=file: the text.")


class ServiceSpec(InputModel):
    active: str = "active"
    sub: str = "running"
    restarts: int = 0


def _default_state_files() -> list[StateFileSpec]:
    return [
        StateFileSpec(path="worker.db"),
        StateFileSpec(path="auth-cache.db", rows=3),
        StateFileSpec(path="settings.db", rows=10),
        StateFileSpec(path="identity/api-key", kind="file", content="LDWK-SIM-CACHED-KEY"),
    ]


class HostSpec(InputModel):
    """A worker host: its prepared LYFTDATA_JOBS_DIR, service state and tools on PATH."""

    worker: str
    cli: bool = Field(default=False, description="Put a `lyftdata` CLI stand-in on PATH.")
    service: ServiceSpec = Field(default_factory=ServiceSpec)
    state_files: list[StateFileSpec] = Field(default_factory=_default_state_files)
    log_lines: list[LogLineSpec] = Field(default_factory=list)


class ClientSpec(InputModel):
    """How a client has to collect this scenario (a route that hangs needs a short timeout)."""

    timeout_s: float | None = Field(default=None, gt=0, description="Per-request timeout.")


class Scenario(InputModel):
    description: str
    expect: dict[str, str | list[str]] = Field(
        default_factory=dict,
        description="What analysis should conclude (first_failed_layer, codes); read by tests.",
    )
    server: ServerSpec = Field(default_factory=ServerSpec)
    license: LicenseSpec = Field(default_factory=LicenseSpec)
    settings: SettingsSpec = Field(default_factory=SettingsSpec)
    workers: list[WorkerSpec] = Field(default_factory=list)
    jobs: list[JobSpec] = Field(default_factory=list)
    deployment_id: str = "dep_7f3c"
    workflow: str = "telemetry"
    workflow_version: int = 7
    hosts: list[HostSpec] = Field(default_factory=list)
    client: ClientSpec = Field(default_factory=ClientSpec)

    def worker(self, worker_id: str) -> WorkerSpec | None:
        return next((w for w in self.workers if w.id == worker_id), None)


CanarySpec.model_rebuild()
ServerSpec.model_rebuild()
