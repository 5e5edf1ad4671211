"""A stored member as a run holds it: compact, made a manifest entry once, when sealing.

Every member a run stores is described in the manifest (:class:`~schemas.MemberEntry`),
but the description is needed as a schema record only when the manifest is written.
Until then the builder, the recorder and the live verdict read it; held as a pydantic
model from collection to sealing, each was ~424 bytes of instance and field dict
(10,600 of them at 1,000 hosts, made one by one through the whole collection and
scattered over its pages). Slotted, the same fields take ~100 bytes, as the collectors'
outcomes do (:mod:`bundler.collect.outcomes`).
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas import MemberEntry


@dataclass(eq=False, slots=True)
class StoredMember:
    """:class:`~schemas.MemberEntry`'s fields, nothing else.

    Mutable like the record it stands for: sealing sets the final ``sha256`` and
    ``size`` once literal propagation has run over the member.
    """

    path: str
    sha256: str
    size: int
    media_type: str = "application/octet-stream"
    schema_name: str | None = None
    collector: str | None = None
    truncated: bool = False
    valid: bool | None = None

    def to_schema(self) -> MemberEntry:
        """The manifest's entry, validated as it is built (a malformed sha256 is refused)."""
        return MemberEntry(
            path=self.path,
            sha256=self.sha256,
            size=self.size,
            media_type=self.media_type,
            schema_name=self.schema_name,
            collector=self.collector,
            truncated=self.truncated,
            valid=self.valid,
        )
