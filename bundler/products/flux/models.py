"""Pydantic models of what Flux returns, as collected (raw members).

They mirror flux-core 0.87's response shapes (``flux/api/schemas.py`` and the
route handlers) but derive from :class:`schemas.RecordModel`: a newer Flux
that adds fields still validates, and unknown fields are kept. Fields Flux
marks required are optional here when an older or degraded server is known
to omit them (e.g. ``runtime`` after a server restart, before the worker
re-registers). The SQLite rows are the columns the plan selects, never the
credential columns (``session_token``, ``exec_token``) nor pickled ones.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field

from schemas import ManyRecord, RecordModel, shared_records


class Health(RecordModel):
    """``GET /health``: 200 healthy, 503 when the database is down."""

    status: str
    database: bool | None = None
    version: str | None = None


class Ready(RecordModel):
    """``GET /ready``."""

    status: str
    database: bool | None = None


class OpenApi(RecordModel):
    """``GET /openapi.json``: the version and the route table (to detect API drift)."""

    openapi: str | None = None
    info: dict[str, Any] = Field(default_factory=dict)
    paths: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @property
    def version(self) -> str | None:
        value = self.info.get("version")
        return str(value) if value is not None else None


class WorkerRuntime(RecordModel):
    os_name: str | None = None
    os_version: str | None = None
    python_version: str | None = None


class WorkerGpu(RecordModel):
    name: str
    memory_total: float | None = None
    memory_available: float | None = None


class WorkerResources(RecordModel):
    cpu_total: float | None = None
    cpu_available: float | None = None
    memory_total: float | None = None
    memory_available: float | None = None
    disk_total: float | None = None
    disk_free: float | None = None
    gpus: list[WorkerGpu] = Field(default_factory=list)


class WorkerPackage(RecordModel):
    name: str
    version: str | None = None


class WorkerResponse(ManyRecord):
    """``GET /workers`` items and ``GET /workers/{name}`` (Flux's ``WorkerResponse``)."""

    name: str
    status: str = "offline"
    runtime: WorkerRuntime | None = None
    resources: WorkerResources | None = None
    packages: Annotated[list[WorkerPackage], AfterValidator(shared_records)] = Field(
        default_factory=list
    )
    labels: dict[str, str] = Field(default_factory=dict)
    metrics: dict[str, float] | None = None
    metadata: dict[str, str | float] | None = None
    in_flight: int | None = None


class ExecutionSummary(RecordModel):
    """One item of ``GET /executions`` (no timestamps: Flux does not list them)."""

    execution_id: str
    workflow_id: str | None = None
    workflow_namespace: str = "default"
    workflow_name: str
    state: str
    worker_name: str | None = None
    name: str | None = None


class ExecutionList(RecordModel):
    executions: list[ExecutionSummary] = Field(default_factory=list)
    total: int | None = None
    limit: int | None = None
    offset: int | None = None
    auth_filtered: bool | None = None


class ExecutionEvent(RecordModel):
    id: str | None = None
    type: str
    source_id: str | None = None
    name: str | None = None
    value: Any = None
    time: datetime | None = None
    subject: str | None = None


class ExecutionDetail(RecordModel):
    """``GET /executions/{id}?detailed=true``: state, worker and the event history."""

    execution_id: str
    workflow_id: str | None = None
    workflow_namespace: str = "default"
    workflow_name: str
    state: str
    current_worker: str | None = None
    input: Any = None
    output: Any = None
    name: str | None = None
    events: list[ExecutionEvent] = Field(default_factory=list)


class WorkflowSummary(RecordModel):
    """One item of ``GET /workflows``."""

    namespace: str = "default"
    name: str
    version: int | None = None


class Workflow(RecordModel):
    """``GET /workflows/{ns}/{wf}``: what an execution asks of its worker."""

    id: str | None = None
    namespace: str = "default"
    name: str
    version: int | None = None
    requests: dict[str, Any] | None = None
    affinity: dict[str, str] | list[Any] | None = None
    metadata: dict[str, Any] | None = None

    @property
    def runner(self) -> str | None:
        value = (self.metadata or {}).get("runner")
        return str(value) if value else None


class DbWorker(RecordModel):
    """``workers`` row: the persisted heartbeat (flush time, naive UTC) and slot limit."""

    name: str
    last_seen_at: datetime | None = None
    max_concurrent_executions: int | None = None
    read_at: datetime | None = None
    """When the row was read (SQLite's clock, UTC)."""


class DbExecution(RecordModel):
    """``executions`` row of a non-terminal execution, with its event-time span."""

    execution_id: str
    workflow_namespace: str = "default"
    workflow_name: str
    state: str
    worker_name: str | None = None
    claim_generation: int | None = None
    park_deadline: datetime | None = None
    required_worker: str | None = None
    preferred_worker: str | None = None
    first_event_at: datetime | None = None
    last_event_at: datetime | None = None
    scheduled_count: int | None = None


class DbLastRun(RecordModel):
    """The most recent finished execution of one workflow (the outcome canary)."""

    workflow_namespace: str = "default"
    workflow_name: str
    execution_id: str
    state: str
    worker_name: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None


class ControlStatus(RecordModel):
    """``flux worker status NAME`` (the worker's control socket)."""

    status: str | None = None
    in_flight: int | None = None
    healthy: bool | None = None
    error: str | None = None


RAW_MODELS: dict[str, type[BaseModel]] = {
    "flux.health": Health,
    "flux.ready": Ready,
    "flux.openapi": OpenApi,
    "flux.worker[]": WorkerResponse,
    "flux.worker": WorkerResponse,
    "flux.execution_list": ExecutionList,
    "flux.execution": ExecutionDetail,
    "flux.workflow_summary[]": WorkflowSummary,
    "flux.workflow": Workflow,
    "flux.db.worker[]": DbWorker,
    "flux.db.execution[]": DbExecution,
    "flux.db.last_run[]": DbLastRun,
    "flux.worker_control": ControlStatus,
}
"""Raw schema name (``HttpStep.schema_name`` / host step ``schema_name``) -> model."""
