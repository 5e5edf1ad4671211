"""Index of the log members in a bundle: which process on which host each one is."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from .._base import ManyRecord, UTCDateTime
from ._common import EvidenceDoc


class LogSource(ManyRecord):
    member: str = Field(description="Bundle member holding the (redacted) log text.")
    host_alias: str | None = None
    role: Literal["server", "worker", "other"] = "other"
    worker: str | None = Field(default=None, description="Worker this log belongs to, if any.")
    origin: str | None = Field(
        default=None, description="Where it came from: 'file', 'journald', 'command', 'api'."
    )
    lines: int | None = None
    first_at: UTCDateTime | None = None
    last_at: UTCDateTime | None = None
    truncated: bool = False
    omitted_lines: int | None = Field(
        default=None, description="Lines dropped between head and tail when truncated."
    )
    utc_offset: str | None = Field(
        default=None,
        description=(
            "UTC offset of the host that wrote the log (`date +%z`, e.g. '+0100'): read "
            "timestamps without an offset in this local time."
        ),
    )
    since: UTCDateTime | None = Field(
        default=None, description="--since cut-off applied: earlier records were left out."
    )


class LogIndex(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.logs"
    member_path: ClassVar[str] = "evidence/logs.json"

    logs: list[LogSource] = Field(default_factory=list)
