"""The manifest as JSON, written in pieces: the same bytes as one ``indent=2`` dump.

A fleet's manifest lists every member and every collector (10,535 collectors, 6.4 MB
of JSON at 1,000 hosts); :func:`~.json_chunks.indented_chunks` writes each on its own
instead of growing one buffer to the whole document. ``b"".join(manifest_chunks(m))``
equals ``m.model_dump_json(indent=2).encode()`` (a test holds it to that).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import TypeAdapter

from schemas import CollectorOutcome, Manifest, MemberEntry

from .json_chunks import CHUNK_BYTES, indented_chunks

__all__ = ["CHUNK_BYTES", "LISTS", "MANIFEST_JSON", "manifest_chunks"]

MANIFEST_JSON = TypeAdapter(Manifest)
LISTS: dict[str, TypeAdapter[Any]] = {
    "members": TypeAdapter(MemberEntry),
    "collectors": TypeAdapter(CollectorOutcome),
}
"""The manifest's lists that grow with the fleet, and how one of their items is dumped."""


def manifest_chunks(
    manifest: Manifest,
    *,
    members: Iterable[MemberEntry] | None = None,
    collectors: Iterable[CollectorOutcome] | None = None,
) -> Iterator[bytes]:
    """The manifest's ``indent=2`` JSON, in chunks of about :data:`CHUNK_BYTES`.

    ``members`` and ``collectors``, when given, are written in place of the manifest's
    own lists (empty then: see :mod:`.manifest_draft`).
    """
    items: dict[str, Iterable[Any]] = {}
    if members is not None:
        items["members"] = members
    if collectors is not None:
        items["collectors"] = collectors
    return indented_chunks(manifest, MANIFEST_JSON, LISTS, items=items)
