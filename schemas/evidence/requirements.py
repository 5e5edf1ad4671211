"""Layer 5, runtime requirements: credentials, bindings, ACLs, source prerequisites.

Secret *values* never appear here: only whether a credential is bound, to
which scope, and which workers may receive it.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from .._base import ManyRecord, RecordModel, UTCDateTime
from ._common import EvidenceDoc, Source

RequirementStatus = Literal["satisfied", "missing", "denied", "unknown", "not_applicable"]


class Requirement(ManyRecord):
    id: str
    kind: str = Field(
        description=(
            "credential | credential_allowed_workers | database_acl | source_prerequisite | "
            "platform | egress | context | binding | setting"
        )
    )
    ref: str | None = None
    status: RequirementStatus = "unknown"
    code: str | None = None
    message: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class Blocker(ManyRecord):
    code: str = Field(
        description=(
            "CREDENTIAL_NOT_BOUND, CREDENTIAL_WORKER_NOT_ALLOWED, DB_ACL_DENIED, "
            "SOURCE_PATH_MISSING, ..."
        )
    )
    requirement: str | None = None
    message: str | None = None


class RequirementsReport(RecordModel):
    """The runtime-requirements report for one (job, worker) pair."""

    job: str
    worker: str
    generated_at: UTCDateTime | None = None
    requirements: list[Requirement] = Field(default_factory=list)
    blockers: list[Blocker] = Field(default_factory=list)
    secret_values_included: bool = False
    source: Source | None = None


class RequirementsEvidence(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.requirements"
    member_path: ClassVar[str] = "evidence/requirements.json"

    applicable: bool = Field(
        default=True, description="False for products with no runtime-requirements report."
    )
    reports: list[RequirementsReport] = Field(default_factory=list)
