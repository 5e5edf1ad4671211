"""Layer 6, capacity: does the worker have the resources and slots the job needs?"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from .._base import ManyRecord
from ._common import EvidenceDoc, Source


class WorkerCapacity(ManyRecord):
    worker: str
    cpu_cores: float | None = None
    cpu_available: float | None = None
    cpu_util_pct: float | None = None
    memory_total_bytes: float | None = None
    memory_available_bytes: float | None = None
    disk_free_bytes: float | None = None
    gpus: int | None = None
    slots_max: int | None = Field(default=None, description="0 means unlimited.")
    slots_in_use: int | None = None
    slots_free: float | None = None
    jobs_assigned: int | None = None
    jobs_running: int | None = None
    queue_pending: int | None = None
    backpressure: bool | None = None
    limits: dict[str, Any] = Field(default_factory=dict)
    source: Source | None = None
    counted_by: list[Source] | None = Field(
        default=None,
        description="Every source whose count of the work the worker runs is slots_in_use "
        "(they agree); a source that counts otherwise gives the worker another record.",
    )


class CapacityEvidence(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.capacity"
    member_path: ClassVar[str] = "evidence/capacity.json"

    workers: list[WorkerCapacity] = Field(default_factory=list)
    thresholds: dict[str, float] = Field(
        default_factory=dict,
        description="Warn thresholds in effect, e.g. cpu_pct 80, mem_pct 85, queue_pending 100.",
    )
