"""Layer 3, placement: is the exact job intended for this worker or group?

Products that compute placement themselves (LyftData) report it here. For
products that do not (Flux), the analyzer derives placement from jobs and
workers instead, and this document may be absent.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from .._base import ManyRecord
from ._common import EvidenceDoc, Source
from .jobs import JobRequirements


class WorkerPlacementVerdict(ManyRecord):
    worker: str
    verdict: Literal["placed", "eligible_not_placed", "filtered", "not_evaluated"]
    reasons: list[str] = Field(
        default_factory=list, description="Codes, e.g. NOT_IN_WORKER_GROUP, LABEL_MISMATCH."
    )
    detail: str | None = None


class JobPlacement(ManyRecord):
    job: str
    desired: JobRequirements | None = None
    evaluated: int | None = None
    eligible: int | None = None
    placed: int | None = None
    per_worker: list[WorkerPlacementVerdict] = Field(default_factory=list)
    native_code: str | None = None
    summary: str | None = None
    source: Source | None = None


class PlacementEvidence(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.placement"
    member_path: ClassVar[str] = "evidence/placement.json"

    placements: list[JobPlacement] = Field(default_factory=list)
