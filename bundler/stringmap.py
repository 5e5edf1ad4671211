"""Every string a pydantic record holds, mapped by one function: one walk, two uses.

Redaction of the manifest's records (``bundler.archive.manifest_draft``) and the
printable copy of a report (``bundler.printable``) both need the same walk:
into nested models, mapping values (and, for display, keys), list and tuple
items and a model's extra fields; enum members left alone (a ``StrEnum`` is a
``str``, and bundler's own word); a record that nothing changed returned as
itself, so a fleet's ~10,000 collector outcomes are not copied for nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # pydantic is imported with the first record mapped (start-up stays light)
    from pydantic import BaseModel

Record = TypeVar("Record", bound="BaseModel")


def map_strings(
    record: Record,
    fn: Callable[[str], str],
    *,
    keys: bool = False,
    keep: frozenset[str] = frozenset(),
    prefix: str = "",
) -> Record:
    """``record`` with ``fn`` applied to each string it holds; itself when nothing changed.

    ``keys`` maps mapping keys too (redaction never rewrites keys; display does).
    ``keep`` names fields left as they are by their dotted path from the top record
    (``prefix`` included), e.g. ``"http.method"``; items of a list or mapping share
    the path of the field that holds them.
    """
    from pydantic import BaseModel

    def field_values(model: BaseModel, at: str) -> dict[str, Any]:
        update: dict[str, Any] = {}
        named = {name: getattr(model, name) for name in type(model).model_fields}
        for name, value in {**named, **(model.model_extra or {})}.items():
            path = f"{at}{name}"
            if path in keep:
                continue
            mapped = walk(value, f"{path}.")
            if mapped is not value:
                update[name] = mapped
        return update

    def walk(value: Any, at: str) -> Any:
        if isinstance(value, Enum):
            return value
        if isinstance(value, str):
            mapped = fn(value)
            return value if mapped == value else mapped
        if isinstance(value, BaseModel):
            update = field_values(value, at)
            return value.model_copy(update=update) if update else value
        if isinstance(value, Mapping):
            pairs = [(walk(k, at) if keys else k, walk(v, at)) for k, v in value.items()]
            same = all(
                nk is k and nv is v for (nk, nv), (k, v) in zip(pairs, value.items(), strict=True)
            )
            return value if same else dict(pairs)
        if isinstance(value, list | tuple):
            items = [walk(item, at) for item in value]
            if all(new is old for new, old in zip(items, value, strict=True)):
                return value
            return items if isinstance(value, list) else tuple(items)
        return value

    return walk(record, prefix)  # type: ignore[no-any-return]
