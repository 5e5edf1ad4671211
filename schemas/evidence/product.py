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
    settings_sources: dict[str, str] | None = Field(
        default=None,
        description=(
            "Where each effective setting came from, keyed like `settings` (Flux: 'env', "
            "'flux.toml', 'log', 'default'): whether a timing was read or assumed."
        ),
    )
    untrusted_gauges: dict[str, float] | None = Field(
        default=None,
        description=(
            "Gauges the server exports about itself (e.g. from /metrics) that are known to be "
            "unreliable: never evidence, kept only so a rule can say when they contradict the "
            "state counted from workers and jobs."
        ),
    )
