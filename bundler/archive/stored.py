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

import json
from dataclasses import dataclass
from functools import cache

from schemas import MemberEntry

from .json_chunks import item_bytes
from .manifest_json import LISTS


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

    def manifest_bytes(self) -> int:
        """About what this member's entry takes in the manifest, for the bundle's room
        (:mod:`.room`): exact for ASCII names; a name in other scripts counts more here
        (escaped) than it takes (UTF-8), never less."""
        strings = (self.path, self.media_type, self.schema_name, self.collector)
        return _entry_overhead() + len(str(self.size)) + sum(json_bytes(s) for s in strings)


def json_bytes(text: str | None) -> int:
    """A string's bytes as a JSON value, quotes included (``null`` for None); non-ASCII
    counted escaped, as the most it can take."""
    return 4 if text is None else len(json.dumps(text))


@cache
def _entry_overhead() -> int:
    """A manifest entry's bytes less its strings' and size's: measured once, on the
    manifest's own serializer, so a field added to the entry is counted."""
    sample = StoredMember("a", "0" * 64, 0, "a", "a", "a", truncated=False, valid=True)
    return item_bytes(sample.to_schema(), LISTS["members"]) - 4 * json_bytes("a") - 1
