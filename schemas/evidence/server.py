"""Layer 0, server: is the control plane reachable and healthy?"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from .._base import RecordModel, UTCDateTime
from ._common import EvidenceDoc, Source


class TLSInfo(RecordModel):
    enabled: bool | None = Field(default=None, description="Whether the URL uses TLS.")
    verified: bool | None = Field(
        default=None, description="Whether the certificate verified against the trust store."
    )
    insecure_override: bool = Field(
        default=False, description="True when verification was disabled (--insecure)."
    )
    error: str | None = Field(
        default=None,
        description=(
            "Machine code of a TLS failure: 'certificate_verify_failed', 'hostname_mismatch', "
            "'certificate_expired', 'self_signed', 'handshake_failed'."
        ),
    )
    error_message: str | None = None
    subject: str | None = None
    issuer: str | None = None
    not_after: UTCDateTime | None = None
    ca_file_used: bool = Field(default=False, description="True when --ca-cert was given.")


class HTTPProbe(RecordModel):
    """One request to the control plane and how it went."""

    endpoint: str = Field(description="Path asked, e.g. '/health'.")
    status_code: int | None = None
    latency_ms: float | None = None
    error_class: str | None = Field(
        default=None, description="Transport error class, e.g. 'ConnectError', 'ReadTimeout'."
    )
    error_message: str | None = None
    member: str | None = Field(default=None, description="Raw member holding the response.")


class APIAuth(RecordModel):
    status: Literal["ok", "rejected", "anonymous", "missing", "unknown"] = "unknown"
    http_status: int | None = None
    detail: str | None = None


class LicenseInfo(RecordModel):
    mode: str | None = Field(
        default=None, description="'licensed', 'community', 'evaluation' or the product's word."
    )
    state: Literal["valid", "expiring", "expired", "invalid", "unknown"] = "unknown"
    expires_at: UTCDateTime | None = None
    external_workers_allowed: bool | None = None
    limits: dict[str, Any] = Field(default_factory=dict)
    native_code: str | None = None


class ServerEvidence(EvidenceDoc):
    """Reachability, TLS, auth and health of the control plane."""

    schema_name: ClassVar[str] = "evidence.server"
    member_path: ClassVar[str] = "evidence/server.json"

    url: str | None = Field(default=None, description="Control-plane URL (credentials removed).")
    reachable: bool | None = Field(
        default=None, description="Whether any request got an HTTP response."
    )
    error_class: str | None = None
    error_message: str | None = None
    tls: TLSInfo | None = None
    auth: APIAuth = Field(default_factory=APIAuth)
    healthy: bool | None = Field(default=None, description="Health endpoint said healthy.")
    ready: bool | None = Field(default=None, description="Readiness endpoint said ready.")
    database_ok: bool | None = None
    version: str | None = None
    license: LicenseInfo | None = None
    storage_used_pct: float | None = None
    probes: list[HTTPProbe] = Field(default_factory=list)
    native: dict[str, Any] = Field(
        default_factory=dict, description="Product's own health body, verbatim (redacted)."
    )
    source: Source | None = None
