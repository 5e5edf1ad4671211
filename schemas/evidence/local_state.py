"""Worker-local state on disk: state databases, control sockets, state-dir listings, volumes.

The *Worker Recovery and Serviceability* guide's "corrupt local state" path reads
the integrity of worker SQLite files; Flux leaves stale control sockets behind a killed worker,
and fails every run that writes under its state directory once that volume is full.
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


class StateVolume(RecordModel):
    """The filesystem holding a worker's state directory, as ``df`` saw it at collection.

    Asked for that one directory, so the mount is the one the product writes to there
    (a small volume mounted under a worker's home is not confused with ``/``).
    """

    host_alias: str | None = None
    worker: str | None = None
    mount: str = Field(description="Where the volume holding the state directory is mounted.")
    total_bytes: int | None = None
    free_bytes: int | None = Field(default=None, description="Available to unprivileged users.")
    used_bytes: int | None = Field(
        default=None,
        description="In use; with free_bytes, how full df calls it (blocks reserved for root "
        "count as neither).",
    )
    inodes_total: int | None = Field(
        default=None, description="Files the volume can hold; None where it keeps no count."
    )
    inodes_free: int | None = Field(
        default=None,
        description="Files that can still be created: at 0 a write fails with ENOSPC "
        "whatever free_bytes says.",
    )
    source: Source | None = None
    inodes_source: Source | None = Field(
        default=None, description="Where the inode counts were read (`df -P -i`)."
    )


class LocalStateEvidence(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.local_state"
    member_path: ClassVar[str] = "evidence/local_state.json"

    files: list[StateFileCheck] = Field(default_factory=list)
    sockets: list[ControlSocket] = Field(default_factory=list)
    volumes: list[StateVolume] | None = Field(
        default=None, description="Volumes under state directories, where they were read."
    )
