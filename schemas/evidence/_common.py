"""What every canonical evidence document shares: when, by whom, from where.

Canonical evidence is product-neutral: a Flux ``WorkerResponse`` and a
LyftData worker record both become a :class:`~schemas.evidence.workers.WorkerStatus`.
Each record keeps a :class:`Source` pointing at the raw (redacted) member it was
normalized from, so the analyzer can cite both the normalized fact and the
product's own words.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from .._base import ManyRecord, RecordModel, UTCDateTime


class Source(ManyRecord):
    """Where a fact was read: a bundle member and a place inside it."""

    method: Literal["api", "ssh", "local", "log", "db", "cli", "derived"] = Field(
        description="How the fact was obtained."
    )
    collector: str | None = Field(default=None, description="Collector id that produced it.")
    ref: str | None = Field(
        default=None, description="What was asked, e.g. 'GET /workers' or 'flux worker status w1'."
    )
    member: str | None = Field(default=None, description="Raw bundle member holding the fact.")
    pointer: str | None = Field(
        default=None, description="RFC 6901 JSON pointer inside that member, if JSON."
    )
    line_start: int | None = Field(default=None, ge=1, description="First line, if text.")
    line_end: int | None = Field(default=None, ge=1, description="Last line, if text.")


class EvidenceDoc(RecordModel):
    """Base of every canonical evidence member (one member per document kind)."""

    schema_name: ClassVar[str] = ""
    member_path: ClassVar[str] = ""

    observed_at: UTCDateTime | None = Field(
        default=None, description="Collector's UTC time when the facts were read."
    )
    product: str | None = Field(default=None, description="Product profile, e.g. 'flux'.")
    complete: bool = Field(
        default=True,
        description=(
            "False when some sources for this document failed to collect; the analyzer then "
            "treats absence of a fact as unknown rather than as a negative."
        ),
    )
    gaps: list[str] = Field(
        default_factory=list,
        description="Collector ids whose failure left this document incomplete.",
    )
