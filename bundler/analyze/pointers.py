"""Where a citation's JSON pointer really points, in the document a rule read.

A finding cites the evidence it stands on: ``evidence/capacity.json#/workers/1/slots_free``.
A rule builds that pointer from the field it meant to read, and a document written
without empty fields may lack it (a product that reports slots in use but not slots
free, a server whose health was never answered). The citation then pointed at nothing,
with the rule's own idea of the value as its excerpt: a reader following it found no such
field. :func:`resolved` walks the pointer through the document as loaded and keeps the
part that exists: the record that lacks the field, not a field it lacks.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel


def resolved(document: BaseModel, pointer: str) -> tuple[str, bool]:
    """The longest leading part of ``pointer`` that exists in ``document``, and whether it is
    the whole pointer.

    Parts name model fields by their JSON names (aliases), mapping keys, list indexes,
    or (in a list of strings) an item itself: ``/requirements/capabilities/splunk-hec``
    becomes ``/requirements/capabilities/2``, the item's index. A field holding None is
    absent (the document is written without empty fields).
    """
    node: Any = document
    kept: list[str] = []
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        node, shown = _step(node, part, raw)
        if shown is None:
            return "".join(f"/{p}" for p in kept), False
        kept.append(shown)
    return "".join(f"/{p}" for p in kept), True


def _step(node: Any, part: str, raw: str) -> tuple[Any, str | None]:
    """What stands at ``part`` under ``node``, and the pointer part that reaches it (None:
    nothing does)."""
    if isinstance(node, BaseModel):
        name = _field_names(type(node)).get(part)
        value = getattr(node, name, None) if name is not None else None
        return value, None if value is None else raw
    if isinstance(node, dict):
        value = node.get(part)
        return value, None if value is None else raw
    if isinstance(node, list | tuple):
        if part.isdigit() and int(part) < len(node):
            value = node[int(part)]
            return value, None if value is None else raw
        if part in node:  # a list of strings, cited by the item
            return part, str(node.index(part))
    return None, None


@cache
def _field_names(model: type[BaseModel]) -> dict[str, str]:
    """JSON name (alias, else the field's name) -> attribute name, per model class."""
    names = {}
    for name, info in model.model_fields.items():
        names[name] = name
        if info.alias:
            names[info.alias] = name
    return names
