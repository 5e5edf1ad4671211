"""Raw responses about delivery: deployments (desired vs actual), canaries, receipts, doctor."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from schemas import RecordModel


class WorkflowRef(RecordModel):
    id: str | None = None
    version: int | str | None = None


class Reconcile(RecordModel):
    state: str | None = Field(default=None, description="in_sync | drifted | unknown")
    drift: list[str] = Field(default_factory=list)
    last_reconcile_at: datetime | None = None


class RenderedRaw(RecordModel):
    sha256: str | None = None
    context_keys_resolved: int | None = None
    context_keys_missing: list[str] = Field(default_factory=list)


class BundleSignature(RecordModel):
    verified: bool | None = None
    error: str | None = None


class DeploymentSide(RecordModel):
    """One side (desired or actual) of a per-worker job deployment."""

    staged_revision: int | None = None
    rendered_sha256: str | None = None
    state: str | None = None


class DeploymentEventRaw(RecordModel):
    type: str
    at: datetime | None = None
    detail: str | None = None


class JobDeploymentRaw(RecordModel):
    job: str
    worker_id: str
    desired: DeploymentSide | None = None
    actual: DeploymentSide | None = None
    state: str = Field(description="pending | staged | rendering | delivering | deployed | ...")
    reason: str | None = None
    message: str | None = None
    staged: bool | None = None
    rendered: RenderedRaw | None = None
    bundle_signature: BundleSignature | None = None
    state_since: datetime | None = None
    events: list[DeploymentEventRaw] = Field(default_factory=list)


class DeploymentRaw(RecordModel):
    """One item of ``GET /api/deployments`` [S: Deployment Manager records; I: shape]."""

    id: str
    workflow: WorkflowRef | None = None
    status: str | None = None
    reconcile: Reconcile | None = None
    last_known_good: str | None = None
    job_deployments: list[JobDeploymentRaw] = Field(default_factory=list)


class CanaryRaw(RecordModel):
    """One item of ``GET /api/canaries`` [B: "bounded canary"; I: shape]."""

    canary_id: str
    job: str
    worker_id: str | None = None
    mode: str | None = Field(default=None, description="transient_run | canary")
    phase: str
    started_at: datetime | None = None
    finished_at: datetime | None = None
    events_in: int | None = None
    events_out: int | None = None
    errors: int | None = None
    receipt_required: bool = False
    nonce: str | None = None


class ReceiptRaw(RecordModel):
    sink: str
    receipt_type: str | None = None
    strength: str | None = Field(
        default=None, description="accepted | buffered | durable | indexed"
    )
    acked: bool | None = None
    nonce_matched: bool | None = None
    observed_at: datetime | None = None


class CanaryReceipts(RecordModel):
    """``GET /api/canaries/{id}/receipts`` [B: "external receipt"; I: shape]."""

    canary_id: str
    receipt_verdict: str | None = None
    receipts: list[ReceiptRaw] = Field(default_factory=list)


class DoctorCheck(RecordModel):
    id: str
    layer: str
    title: str | None = None
    status: str = Field(description="pass | warn | fail | error | skipped | unknown")
    severity: str | None = None
    code: str | None = None
    native_code: str | None = None
    message: str | None = None
    blocked_by: str | None = None


class DoctorSummary(RecordModel):
    first_failing_layer: str | None = None
    verdict: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)


class DoctorReport(RecordModel):
    """``lyftdata doctor --json`` [B: named by the guide; I: shape].

    The guide is LyftData's *Worker Recovery and Serviceability* guide.
    """

    schema_: str | None = Field(default=None, alias="schema")
    tool: dict[str, Any] = Field(default_factory=dict)
    generated_at: datetime | None = None
    summary: DoctorSummary | None = None
    checks: list[DoctorCheck] = Field(default_factory=list)
