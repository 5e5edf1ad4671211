"""A large JSON document for the structure walk, its top-level lists read item by item.

The structure pass parses a document only to find the values under secret keys
(:func:`.structure.find_secrets`). ``json.loads`` builds the whole tree first, about
three times the text: at 1,000 workers ``evidence/workers.json`` (2.4 MB) was a ~7 MB
tree, and redacting it was doctor's memory peak. Fleet documents keep their bulk in one
list, the document itself (``GET /workers``) or a list under its top-level object
(``{"workers": [...]}``): :func:`load` parses the top level itself and leaves such a
list as a :class:`LazyList`, whose items are parsed again, one at a time, when the walk
reaches them. Every item is parsed once up front too (to find where the list ends, and
so that a document ``json.loads`` refuses is refused here, before the walk starts): a
second parse of the bulk, in exchange for holding one item's tree instead of all of them.

The result walks exactly as ``json.loads``' would: the same keys in the same order
(a repeated key keeps its first place and its last value), the same values, lists of
the same length; anything ``json.loads`` refuses raises ``ValueError`` here as well.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from json import JSONDecodeError
from typing import Any

MIN_BYTES = 1 << 20
"""Smaller documents are parsed whole: their tree is small, and one parse is cheaper."""

_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")


class LazyList(list[Any]):
    """A JSON array's items, parsed from the text each time the list is iterated.

    Only what the structure walk does with a list is supported: ``len``, truth and
    iteration (``isinstance(x, list)`` holds, as the walk checks).
    """

    __slots__ = ("_starts", "_text")

    def __init__(self, text: str, starts: list[int]) -> None:
        super().__init__()
        self._text = text
        self._starts = starts

    def __len__(self) -> int:
        return len(self._starts)

    def __bool__(self) -> bool:
        return bool(self._starts)

    def __iter__(self) -> Iterator[Any]:
        decode, text = _DECODER.raw_decode, self._text
        for start in self._starts:
            yield decode(text, start)[0]


def load(data: bytes) -> Any:
    """``json.loads(data)``, but its top-level lists as :class:`LazyList` (see above)."""
    text = data.decode(json.detect_encoding(data), "surrogatepass")  # as json.loads does
    at = _skip(text, 0)
    value, end = _value(text, at, top=True)
    if _skip(text, end) != len(text):
        raise JSONDecodeError("Extra data", text, end)
    return value


def _skip(text: str, at: int) -> int:
    match = _WHITESPACE.match(text, at)
    return match.end() if match else at


def _value(text: str, at: int, *, top: bool) -> tuple[Any, int]:
    if text.startswith("[", at):
        return _lazy_list(text, at)
    if top and text.startswith("{", at):
        return _shallow_object(text, at)
    return _DECODER.raw_decode(text, at)


def _lazy_list(text: str, at: int) -> tuple[LazyList, int]:
    """The array at ``text[at] == "["``: its items' starts, each item parsed and dropped."""
    at = _skip(text, at + 1)
    starts: list[int] = []
    if text.startswith("]", at):
        return LazyList(text, starts), at + 1
    while True:
        starts.append(at)
        _, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if text.startswith("]", at):
            return LazyList(text, starts), at + 1
        if not text.startswith(",", at):
            raise JSONDecodeError("Expecting ',' delimiter", text, at)
        at = _skip(text, at + 1)


def _shallow_object(text: str, at: int) -> tuple[dict[str, Any], int]:
    """The object at ``text[at] == "{"``, its list values lazy, everything else parsed."""
    at = _skip(text, at + 1)
    found: dict[str, Any] = {}
    if text.startswith("}", at):
        return found, at + 1
    while True:
        if not text.startswith('"', at):
            raise JSONDecodeError("Expecting property name enclosed in double quotes", text, at)
        key, at = _DECODER.raw_decode(text, at)  # a string: it starts with a quote
        at = _skip(text, at)
        if not text.startswith(":", at):
            raise JSONDecodeError("Expecting ':' delimiter", text, at)
        value, at = _value(text, _skip(text, at + 1), top=False)
        found[key] = value
        at = _skip(text, at)
        if text.startswith("}", at):
            return found, at + 1
        if not text.startswith(",", at):
            raise JSONDecodeError("Expecting ',' delimiter", text, at)
        at = _skip(text, at + 1)
