"""A pydantic model as ``indent=2`` JSON, written in pieces: the same bytes as one dump.

The documents doctor writes last, the manifest and the redaction report, each hold
one long list that grows with the fleet (a collector, a member, a redacted file per
entry). Dumped in one call, pydantic's serializer grows one buffer to the whole
document and then copies it into a Python ``bytes``: at 1,000 hosts, 14 MB at once
for the manifest, doctor's peak (memray). Here the model is dumped with those lists
empty, and each item on its own, re-indented to where it sits; the pieces go to the
zip writer as they are made, a few dozen items per chunk. ``b"".join(chunks)``
equals the one-call dump (tests hold both documents to that).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter

CHUNK_BYTES = 64 << 10
ITEM_INDENT = b"    "
"""An item of a top-level list sits two levels deep (``indent=2``)."""


def indented_chunks(
    model: BaseModel,
    adapter: TypeAdapter[Any],
    lists: Mapping[str, TypeAdapter[Any]],
    *,
    by_alias: bool = False,
    items: Mapping[str, Iterable[Any]] | None = None,
) -> Iterator[bytes]:
    """``model``'s ``indent=2`` JSON in chunks of about :data:`CHUNK_BYTES`.

    ``lists`` names the model's top-level list fields to write item by item, with
    the adapter that dumps one item. A dump where one of them is not a single
    top-level list (a serializer that nests or renames it) is refused with a
    ValueError rather than written half. ``items`` gives a list's items instead of the
    model's own (which are then empty): made one at a time as they are written.
    """
    shell = model.model_copy(update={name: [] for name in lists})
    head: bytes = adapter.dump_json(shell, indent=2, by_alias=by_alias)
    places = []
    for name in lists:
        key = _json_key(model, name, by_alias)
        empty = b'\n  "%s": []' % key.encode()
        at = head.find(empty)
        if at < 0 or head.find(empty, at + 1) >= 0:  # not where a top-level list sits
            raise ValueError(f"{type(model).__name__} JSON has no single top-level {key!r} list")
        places.append((at + len(empty) - 1, name))  # the offset of its "]"
    done = 0
    for closing, name in sorted(places):
        yield head[done:closing]  # up to and with its "["
        source = items[name] if items is not None and name in items else getattr(model, name)
        yield from _items(source, lists[name], by_alias)
        done = closing
    yield head[done:]


def _json_key(model: BaseModel, name: str, by_alias: bool) -> str:
    field = type(model).model_fields[name]
    if by_alias:
        return field.serialization_alias or field.alias or name
    return name


def _items(items: Iterable[Any], adapter: TypeAdapter[Any], by_alias: bool) -> Iterator[bytes]:
    """``\\n    {item},\\n    {item}\\n  `` for a non-empty list (between its brackets)."""
    pending: list[bytes] = []
    size = 0
    index = -1
    for index, item in enumerate(items):
        text = adapter.dump_json(item, indent=2, by_alias=by_alias)
        pending.append((b",\n" if index else b"\n") + ITEM_INDENT + _indented(text))
        size += len(pending[-1])
        if size >= CHUNK_BYTES:
            yield b"".join(pending)
            pending, size = [], 0
    if index < 0:
        return  # "[]" as the shell has it
    pending.append(b"\n  ")
    yield b"".join(pending)


def item_bytes(item: Any, adapter: TypeAdapter[Any], *, by_alias: bool = False) -> int:
    """The bytes ``item`` takes in a top-level list of a document :func:`indented_chunks`
    writes (its separator and indentation included): what a bundle's room counts."""
    text = adapter.dump_json(item, indent=2, by_alias=by_alias)
    return len(b",\n" + ITEM_INDENT) + len(_indented(text))


def _indented(text: bytes) -> bytes:
    return text.replace(b"\n", b"\n" + ITEM_INDENT)
