"""Layer 7, outcome: did a bounded canary run and produce an external receipt?

For products without a canary feature (Flux), the most recent finished run of
the job plays the canary's role (``mode='last_run'``).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from .._base import RecordModel, UTCDateTime
from ._common import EvidenceDoc, Source

CanaryPhase = Literal[
    "pending", "running", "successful", "failed", "error", "inconclusive", "timed_out"
]
ReceiptStrength = Literal["accepted", "buffered", "durable", "indexed"]


class CanaryRun(RecordModel):
    canary_id: str | None = None
    job: str
    worker: str | None = None
    mode: Literal["canary", "transient_run", "last_run"] = "canary"
    phase: CanaryPhase = "pending"
    started_at: UTCDateTime | None = None
    finished_at: UTCDateTime | None = None
    events_in: int | None = None
    events_out: int | None = None
    errors: int | None = None
    receipt_required: bool = False
    nonce: str | None = None
    clock_of: str | None = Field(
        default=None,
        description=(
            "The worker whose clock stamped started_at and finished_at, when the product's "
            "run says it was a worker's and that worker's clock_offset proves it off; read on "
            "the control plane's clock with that offset. Null: the control plane's clock."
        ),
    )
    source: Source | None = None


class Receipt(RecordModel):
    canary_id: str | None = None
    job: str | None = None
    sink: str
    receipt_type: str | None = None
    strength: ReceiptStrength | None = None
    acked: bool | None = None
    nonce_matched: bool | None = None
    observed_at: UTCDateTime | None = None
    source: Source | None = None


class OutcomeEvidence(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.outcome"
    member_path: ClassVar[str] = "evidence/outcome.json"

    canaries: list[CanaryRun] = Field(default_factory=list)
    receipts: list[Receipt] = Field(default_factory=list)
    last_known_good: str | None = Field(
        default=None, description="Last known-good deployment or receipt identity."
    )
    last_known_good_undecided: list[str] = Field(
        default_factory=list,
        description=(
            "Every run that may be the last known good when which of them ended last cannot "
            "be told (their ends on the control plane's clock overlap because a worker's clock "
            "is off, they ended at one instant, or none is dated); last_known_good is then null."
        ),
    )
