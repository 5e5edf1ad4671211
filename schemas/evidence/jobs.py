"""Jobs and executions: the 'job' half of a (worker, job) ladder target.

A Flux execution and a LyftData job both become a :class:`Job`. What the job
asks of a worker (labels, capabilities, resources, pinning) is a
:class:`JobRequirements`; the placement rules compare it with the workers.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar, Literal

from pydantic import Field

from .._base import ManyRecord, UTCDateTime
from ._common import EvidenceDoc, Source


class JobPhase(StrEnum):
    """Canonical lifecycle phase; ``native_state`` keeps the product's word."""

    UNASSIGNED = "unassigned"  # waiting, no worker chosen (Flux CREATED)
    SCHEDULED = "scheduled"  # a worker chosen, not yet claimed
    CLAIMED = "claimed"
    RUNNING = "running"
    PAUSED = "paused"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    UNKNOWN = "unknown"

    @property
    def terminal(self) -> bool:
        return self in {JobPhase.COMPLETED, JobPhase.FAILED, JobPhase.CANCELLED}


class ResourceRequest(ManyRecord):
    cpu: float | None = None
    memory_bytes: float | None = None
    gpu: int | None = None
    disk_bytes: float | None = None
    other: dict[str, Any] = Field(default_factory=dict)


class JobRequirements(ManyRecord):
    """What a job needs from the worker that runs it."""

    worker_group: str | None = None
    replicas: int | None = None
    labels: dict[str, str] = Field(
        default_factory=dict, description="Labels a worker must carry (affinity, selectors)."
    )
    capabilities: list[str] = Field(default_factory=list)
    os: str | None = None
    resources: ResourceRequest | None = None
    required_worker: str | None = Field(default=None, description="Pinned to this worker.")
    preferred_worker: str | None = None
    intended_workers: list[str] | None = Field(
        default=None, description="Explicit assignment list, when the product has one."
    )


class JobEvent(ManyRecord):
    type: str
    at: UTCDateTime | None = None
    source: str | None = None
    detail: str | None = None


class Job(ManyRecord):
    name: str = Field(description="Exact job name (Flux: 'namespace/workflow').")
    id: str | None = Field(default=None, description="Run or execution id.")
    kind: Literal["execution", "job"] = "job"
    native_state: str | None = None
    phase: JobPhase = JobPhase.UNKNOWN
    assigned_worker: str | None = None
    requirements: JobRequirements | None = None
    events: list[JobEvent] = Field(default_factory=list)
    claim_generation: int | None = Field(
        default=None, description="Times it was (re)dispatched; > 1 means it was reassigned."
    )
    created_at: UTCDateTime | None = None
    updated_at: UTCDateTime | None = None
    error: str | None = None
    source: Source | None = None
    park_deadline: UTCDateTime | None = Field(
        default=None,
        description=(
            "Until when the product keeps the job parked for its worker before dispatching it "
            "elsewhere (Flux: a job whose worker vanished), if the product parks jobs."
        ),
    )


class JobsEvidence(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.jobs"
    member_path: ClassVar[str] = "evidence/jobs.json"

    jobs: list[Job] = Field(default_factory=list)
    selection: str | None = Field(
        default=None,
        description="Which jobs were collected, e.g. 'non-terminal and recent failures'.",
    )
