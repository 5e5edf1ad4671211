"""Product identity and effective settings (timings the rules compare against)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from ._common import EvidenceDoc
from .workers import HeartbeatPolicy


class ProductInfo(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.product"
    member_path: ClassVar[str] = "evidence/product.json"

    name: str = Field(description="Product name: 'flux', 'lyftdata'.")
    server_version: str | None = None
    worker_versions: dict[str, str] = Field(default_factory=dict)
    edition: str | None = None
    heartbeat: HeartbeatPolicy | None = None
    settings: dict[str, Any] = Field(
        default_factory=dict,
        description="Effective settings that matter for diagnosis (secret values redacted).",
    )
    observability_enabled: bool | None = None
