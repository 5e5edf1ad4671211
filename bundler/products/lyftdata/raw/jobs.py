"""Raw responses about jobs: definitions with placement, placement reports, requirements."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from schemas import RecordModel


class JobPlacementSpec(RecordModel):
    """Where a job should run: worker group + replicas [S], labels and capabilities [I]."""

    worker_group: str | None = None
    replicas: int | None = None
    labels: list[str] = Field(default_factory=list)
    capabilities: list[str] = Field(default_factory=list)
    os: str | None = None
    workers: list[str] | None = Field(default=None, description="Explicit worker assignment.")


class JobResources(RecordModel):
    cpu_cores: float | None = None
    memory_bytes: int | None = None
    disk_bytes: int | None = None


class JobSummary(RecordModel):
    """One item of ``GET /api/jobs`` [I]."""

    name: str
    id: str | None = None
    type: str | None = Field(default=None, description="once | streaming | scheduled [S]")
    staged: bool | None = None
    staged_revision: int | None = None
    state: str | None = None
    placement: JobPlacementSpec | None = None
    resources: JobResources | None = None
    receipt_required: bool | None = None
    updated_at: datetime | None = None


class PlacementCandidates(RecordModel):
    evaluated: int | None = None
    eligible: int | None = None
    placed: int | None = None
    filtered: dict[str, int] = Field(default_factory=dict)


class PlacementPerWorker(RecordModel):
    worker_id: str
    verdict: str = Field(description="placed | eligible_not_placed | filtered | not_evaluated")
    reasons: list[str] = Field(default_factory=list)
    detail: str | None = None


class PlacementReport(RecordModel):
    """``GET /api/jobs/{name}/placement`` [I]."""

    job: str
    desired: JobPlacementSpec | None = None
    candidates: PlacementCandidates | None = None
    per_worker: list[PlacementPerWorker] = Field(default_factory=list)
    summary: str | None = None
    status: str | None = Field(default=None, description="pass | warn | fail")
    code: str | None = None


class RequirementRaw(RecordModel):
    id: str
    kind: str
    ref: str | None = None
    status: str = Field(description="satisfied | missing | denied | unknown | n/a")
    code: str | None = None
    message: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class BlockerRaw(RecordModel):
    code: str
    requirement: str | None = None
    message: str | None = None


class RequirementsRedaction(RecordModel):
    secret_values_included: bool = False


class WorkerRequirementsReport(RecordModel):
    worker_id: str
    generated_at: datetime | None = None
    requirements: list[RequirementRaw] = Field(default_factory=list)
    blockers: list[BlockerRaw] = Field(default_factory=list)
    redaction: RequirementsRedaction | None = None
    status: str | None = None
    code: str | None = None


class JobRequirementsReport(RecordModel):
    """``GET /api/jobs/{name}/runtime-requirements`` [B: named by the guide; I: shape].

    The guide is LyftData's *Worker Recovery and Serviceability* guide.
    """

    job: str
    generated_at: datetime | None = None
    reports: list[WorkerRequirementsReport] = Field(default_factory=list)
