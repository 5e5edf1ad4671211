"""The manifest as JSON, written in pieces: the same bytes as one ``indent=2`` dump.

A fleet's manifest lists every member and every collector (10,535 collectors,
6.4 MB of JSON at 1,000 hosts). Dumped in one call, pydantic's serializer grows
one buffer to the whole document and then copies it into a Python ``bytes``:
14 MB at once, doctor's peak memory at that size (memray). Here the manifest is
dumped without its two long lists, and each member and collector on its own,
re-indented to where it sits; the pieces are handed to the zip writer as they
are made, a few dozen records per chunk. ``b"".join(manifest_chunks(m))`` equals
``m.model_dump_json(indent=2).encode()`` (a test holds it to that).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import BaseModel, TypeAdapter

from schemas import CollectorOutcome, Manifest, MemberEntry

MANIFEST_JSON = TypeAdapter(Manifest)
LISTS: dict[str, TypeAdapter[Any]] = {
    "members": TypeAdapter(MemberEntry),
    "collectors": TypeAdapter(CollectorOutcome),
}
"""The manifest's lists that grow with the fleet, and how one of their items is dumped."""
ITEM_INDENT = b"    "
"""An item of a top-level list sits two levels deep (``indent=2``)."""
CHUNK_BYTES = 64 << 10


def manifest_chunks(manifest: Manifest) -> Iterator[bytes]:
    """The manifest's ``indent=2`` JSON, in chunks of about :data:`CHUNK_BYTES`."""
    shell = manifest.model_copy(update={name: [] for name in LISTS})
    head = MANIFEST_JSON.dump_json(shell, indent=2)
    places = []
    for name in LISTS:
        empty = b'\n  "%s": []' % name.encode()
        at = head.find(empty)
        if at < 0 or head.find(empty, at + 1) >= 0:  # not where a top-level list sits
            raise ValueError(f"manifest JSON has no single top-level {name!r} list")
        places.append((at + len(empty) - 1, name))  # the offset of its "]"
    done = 0
    for closing, name in sorted(places):
        yield head[done:closing]  # up to and with its "["
        yield from _items(getattr(manifest, name), LISTS[name])
        done = closing
    yield head[done:]


def _items(items: Sequence[BaseModel], adapter: TypeAdapter[Any]) -> Iterator[bytes]:
    """``\\n    {item},\\n    {item}\\n  `` for a non-empty list (between its brackets)."""
    if not items:
        return
    pending: list[bytes] = []
    size = 0
    for index, item in enumerate(items):
        text = adapter.dump_json(item, indent=2).replace(b"\n", b"\n" + ITEM_INDENT)
        pending.append((b",\n" if index else b"\n") + ITEM_INDENT + text)
        size += len(pending[-1])
        if size >= CHUNK_BYTES:
            yield b"".join(pending)
            pending, size = [], 0
    pending.append(b"\n  ")
    yield b"".join(pending)
