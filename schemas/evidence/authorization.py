"""Layer 2, runtime authorization: can the worker obtain and keep the right to run work?

For LyftData this is the signed auth lease of an external worker. For Flux it
is registration: the bootstrap token exchanged for a session; a 401 loop on
``POST /workers/register`` is an authorization failure.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from .._base import ManyRecord, UTCDateTime
from ._common import EvidenceDoc, Source


class LeaseSignature(ManyRecord):
    alg: str | None = None
    key_id: str | None = None
    verified: bool | None = None


class Lease(ManyRecord):
    lease_id: str | None = None
    issued_at: UTCDateTime | None = None
    expires_at: UTCDateTime | None = None
    renewable: bool | None = None
    last_renewal_at: UTCDateTime | None = None
    renew_attempts_failed: int | None = None
    signature: LeaseSignature | None = None
    claims: dict[str, Any] = Field(default_factory=dict)


class RegistrationAttempts(ManyRecord):
    """Registration history seen in logs (Flux: 401 loops live only in the worker log)."""

    attempts: int = 0
    rejected: int = 0
    last_status_code: int | None = None
    last_error: str | None = None
    first_at: UTCDateTime | None = None
    last_at: UTCDateTime | None = None
    source: Source | None = None


class WorkerAuthorization(ManyRecord):
    worker: str
    applicable: bool = Field(
        default=True, description="False when this worker needs no runtime authorization."
    )
    bootstrap_method: (
        Literal["api_key", "auto_enrollment", "bootstrap_token", "join_token", "none", "unknown"]
        | None
    ) = None
    identity_cached: bool | None = None
    enrollment_key_still_configured: bool | None = None
    decision: Literal["allow", "deny", "expired", "unknown"] = "unknown"
    native_code: str | None = Field(
        default=None,
        description="Product's own code verbatim, e.g. 'license_expired_or_invalid'.",
    )
    message: str | None = None
    clock_skew_s: float | None = Field(
        default=None,
        description=(
            "Worker clock minus control-plane clock, in seconds, as the product measured it "
            "(compared with lease_clock_tolerance_s)."
        ),
    )
    lease: Lease | None = None
    registration: RegistrationAttempts | None = None
    server_url: str | None = Field(
        default=None,
        description=(
            "For a worker whose registrations never reached the server: the control-plane URL "
            "its own settings send it to, as collected (redacted), to compare with the URL "
            "that answered."
        ),
    )
    server_url_source: str | None = Field(
        default=None, description="Where that URL was set, e.g. 'env' or 'flux.toml'."
    )
    source: Source | None = None


class AuthorizationEvidence(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.authorization"
    member_path: ClassVar[str] = "evidence/authorization.json"

    applicable: bool = Field(
        default=True,
        description="False for products whose workers need no runtime authorization at all.",
    )
    edition: str | None = None
    lease_clock_tolerance_s: float | None = Field(
        default=None, description="Clock skew a lease tolerates before it is rejected."
    )
    workers: list[WorkerAuthorization] = Field(default_factory=list)
