"""Layer 4, deployment: did the exact rendered job reach a runnable state?"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from .._base import RecordModel, UTCDateTime
from ._common import EvidenceDoc, Source
from .jobs import JobEvent


class RenderInfo(RecordModel):
    sha256: str | None = None
    context_keys_resolved: int | None = None
    context_keys_missing: list[str] = Field(default_factory=list)


class JobDeployment(RecordModel):
    """One job on one worker: desired vs actual."""

    job: str
    worker: str
    deployment_id: str | None = None
    state: str = Field(
        default="unknown",
        description=(
            "pending | staged | rendering | delivering | deployed | active | failed | removing "
            "| removed | unknown"
        ),
    )
    reason: str | None = Field(default=None, description="Machine reason code when not runnable.")
    message: str | None = None
    staged: bool | None = None
    staged_revision: int | None = None
    intended_revision: int | None = Field(
        default=None, description="The revision the control plane wants on this worker."
    )
    running_revision: int | None = Field(
        default=None,
        description="The revision the worker reports it runs; differs from the intended one "
        "on drift.",
    )
    rendered: RenderInfo | None = None
    bundle_signature_verified: bool | None = None
    state_since: UTCDateTime | None = None
    events: list[JobEvent] = Field(default_factory=list)
    source: Source | None = None


class DeploymentRecord(RecordModel):
    deployment_id: str | None = None
    workflow: str | None = None
    version: int | str | None = None
    status: str | None = None
    reconcile_state: str | None = None
    drift: list[str] = Field(default_factory=list)
    job_deployments: list[JobDeployment] = Field(default_factory=list)
    last_known_good: str | None = Field(
        default=None, description="Identity of the last known-good deployment."
    )


class DeploymentEvidence(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.deployments"
    member_path: ClassVar[str] = "evidence/deployments.json"

    applicable: bool = Field(
        default=True, description="False for products with no deployment step (Flux)."
    )
    deployments: list[DeploymentRecord] = Field(default_factory=list)
