"""Worker-local state on disk: state databases, control sockets, state-dir listings.

The *Worker Recovery and Serviceability* guide's "corrupt local state" path reads
the integrity of worker SQLite files; Flux leaves stale control sockets behind a killed worker.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from .._base import RecordModel, UTCDateTime
from ._common import EvidenceDoc, Source


class StateFileCheck(RecordModel):
    host_alias: str | None = None
    worker: str | None = None
    path: str
    kind: Literal["sqlite", "key", "cache", "other"] = "other"
    size: int | None = None
    modified_at: UTCDateTime | None = None
    integrity: Literal["ok", "corrupt", "unreadable", "not_checked"] = "not_checked"
    detail: str | None = None
    source: Source | None = None


class ControlSocket(RecordModel):
    host_alias: str | None = None
    worker: str | None = None
    path: str
    responsive: bool | None = Field(
        default=None, description="False when connecting was refused (a stale socket)."
    )
    detail: str | None = None
    source: Source | None = None


class LocalStateEvidence(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.local_state"
    member_path: ClassVar[str] = "evidence/local_state.json"

    files: list[StateFileCheck] = Field(default_factory=list)
    sockets: list[ControlSocket] = Field(default_factory=list)
