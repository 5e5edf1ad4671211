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

The text is never decoded whole either: a window of it at a time (:mod:`.jsonwindow`), and
a lazy list keeps its items' byte offsets into the caller's bytes. A decoded copy of the
whole text was as large again as the text (four times, with one emoji in it: Python then
stores every character in four bytes), and the walk reads JSON members up to 256 MiB
(:mod:`.walklimits`), one per redaction worker.

The result walks exactly as ``json.loads``' would: the same keys in the same order
(a repeated key keeps its first place and its last value), the same values, lists of
the same length; anything ``json.loads`` refuses raises ``ValueError`` here as well.
:func:`salvaged` reads what does not parse whole (a listing cut off by a size limit, one
value per line) as :func:`.salvage.json_documents` would, without its whole-text copy
and tree: where an item of a top-level list breaks off, the list and the document end,
that item kept up to its last complete part.
"""

from __future__ import annotations

import codecs
import re
import sys
from array import array
from collections.abc import Iterable, Iterator
from itertools import chain
from json import JSONDecodeError
from typing import Any

from . import salvage
from .jsonwindow import Window, as_utf8, error_at, value_in

MIN_BYTES = 1 << 20
"""Smaller documents are parsed whole: their tree is small, and one parse is cheaper."""
_WHITESPACE = re.compile(rb"[ \t\n\r]*")


class LazyList(list[Any]):
    """A JSON array's items, parsed from the text each time the list is iterated.

    Only what the structure walk does with a list is supported: ``len``, truth and
    iteration (``isinstance(x, list)`` holds, as the walk checks).
    """

    __slots__ = ("_broken", "_data", "_ends", "_starts")

    def __init__(
        self, data: bytes, starts: array[int], ends: array[int], *, broken: bool = False
    ) -> None:
        super().__init__()
        self._data = data
        self._starts = starts
        self._ends = ends
        self._broken = broken
        """Whether the last item breaks off (:func:`salvaged`): read up to where it does."""

    def __len__(self) -> int:
        return len(self._starts)

    def __bool__(self) -> bool:
        return bool(self._starts)

    def __iter__(self) -> Iterator[Any]:
        data, last = self._data, len(self._starts) - 1
        for index, (start, end) in enumerate(zip(self._starts, self._ends, strict=True)):
            if self._broken and index == last:
                yield _broken_item(data[start:end])[0]  # there is one: it was read already
            else:
                yield value_in(data[start:end])


def _broken_item(text: bytes) -> list[Any]:
    """An item that breaks off, up to its last complete part (nothing, if it has none)."""
    return salvage.json_prefix(text)


def load(data: bytes) -> Any:
    """``json.loads(data)``, but its top-level lists as :class:`LazyList` (see above)."""
    data, at = as_utf8(data)
    reader = _Reader(data)
    value, end = reader.value(reader.skip(at), top=True)
    if reader.skip(end) != len(data):
        raise error_at("Extra data", end)
    return value


def salvaged(data: bytes) -> Iterable[Any]:
    """What :func:`.salvage.json_documents` gives of ``data``, read in bounded memory.

    The first value as :func:`load` reads it; if it breaks off in an item of one of its
    top-level lists, that is where it ends. Values after it (JSON Lines) come one at a time,
    the last one up to where it breaks. Raises ``ValueError`` when the first value breaks
    off anywhere else: the caller salvages the whole text then.
    """
    data, at = as_utf8(data)
    reader = _Reader(data, salvaging=True)
    first, end = reader.value(reader.skip(at), top=True)
    at = reader.skip(end)
    if reader.cut:  # an empty one holds nothing (a log line that opens with "[")
        return [first] if first else []
    if at == len(data):
        return [first]
    return chain([first], reader.values(at))


_ABSENT = object()


def _only_breaks(data: bytes, at: int) -> bool:
    """Whether reading JSON values from ``data[at:]`` can fail only where one breaks off
    (``JSONDecodeError``): the text is UTF-8 and holds no run of digits longer than ``int``
    reads (``ValueError``). Checked a window at a time, in C: no copy of the whole text."""
    limit = sys.get_int_max_str_digits()
    too_long = b"0" * (limit + 1)
    ascii = data.isascii()  # then it is UTF-8 (the common case, answered in C)
    decoder = codecs.getincrementaldecoder("utf-8")("surrogatepass")
    view = memoryview(data)
    try:
        for start in range(at, len(data), _CHECKED):
            if not ascii:
                decoder.decode(view[start : start + _CHECKED])
            # windows overlap by the limit, so a run across their seam is seen whole
            if limit and too_long in data[start : start + _CHECKED + limit].translate(_DIGITS):
                return False
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


_CHECKED = 1 << 20
"""Bytes checked at a time by :func:`_only_breaks` (what it makes of them is dropped)."""
_DIGITS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
"""``translate`` table: every digit becomes ``0``, every other byte a blank."""


def _restore(found: dict[str, Any], key: str, before: Any) -> None:
    """Undo ``found[key] = ...``: a repeated key gets its earlier value back."""
    if before is _ABSENT:
        del found[key]
    else:
        found[key] = before


class _Reader:
    """The top level of the document, read from the bytes; values through a :class:`Window`."""

    def __init__(self, data: bytes, *, salvaging: bool = False) -> None:
        self.data = data
        self.window = Window(data)
        self.salvaging = salvaging
        self.cut = False
        """Whether a lazy list broke off (only when salvaging): the document ends there."""

    def skip(self, at: int) -> int:
        match = _WHITESPACE.match(self.data, at)
        return match.end() if match else at

    def at(self, at: int, mark: bytes) -> bool:
        return self.data.startswith(mark, at)

    def value(self, at: int, *, top: bool) -> tuple[Any, int]:
        if self.at(at, b"["):
            return self.lazy_list(at)
        if top and self.at(at, b"{"):
            return self.shallow_object(at)
        return self.window.value_at(at)

    def lazy_list(self, at: int) -> tuple[LazyList, int]:
        """The array at ``data[at] == "["``: its items' offsets, each item parsed and dropped."""
        at = self.skip(at + 1)
        starts, ends = array("q"), array("q")
        if self.at(at, b"]"):
            return LazyList(self.data, starts, ends), at + 1
        while True:
            starts.append(at)
            try:
                _, end = self.window.value_at(at)
            except JSONDecodeError:
                if not self.salvaging:
                    raise
                return self._broken(starts, ends), len(self.data)
            ends.append(end)
            at = self.skip(end)
            if self.at(at, b"]"):
                return LazyList(self.data, starts, ends), at + 1
            if not self.at(at, b","):
                if not self.salvaging:
                    raise error_at("Expecting ',' delimiter", at)
                self.cut = True
                if self.data[end - 1] not in b"]}":  # a number may have been cut short
                    starts.pop()  # the salvage keeps an item only once a "," or "]" ends it
                    ends.pop()
                return LazyList(self.data, starts, ends), len(self.data)
            at = self.skip(at + 1)

    def values(self, at: int) -> Iterable[Any]:
        """The values from ``at`` to the end, one after another (JSON Lines), the last one
        up to where it breaks off.

        Each is parsed once, as the walk asks for it, when nothing but a break can stop the
        reading (:func:`_only_breaks`): the documents of a text are walked once, in order,
        so they need not be found first; finding them first parsed every line twice, a
        third of a journal export's redaction. Otherwise they are found first, so that an
        error is raised before the walk starts, as :func:`salvaged` promises."""
        if _only_breaks(self.data, at):
            return self._each_value(at)
        starts, ends = array("q"), array("q")
        while at < len(self.data):
            starts.append(at)
            try:
                _, at = self.window.value_at(at)
            except JSONDecodeError:
                return self._broken(starts, ends, document=True)
            ends.append(at)
            at = self.skip(at)
        return LazyList(self.data, starts, ends)

    def _each_value(self, at: int) -> Iterator[Any]:
        data = self.data
        while at < len(data):
            try:
                value, end = self.window.value_at(at)
            except JSONDecodeError:
                self.cut = True
                kept = _broken_item(data[at:])
                if kept and kept[0]:  # a line that breaks off, as far as it goes
                    yield kept[0]
                return
            yield value
            at = self.skip(end)

    def _broken(self, starts: array[int], ends: array[int], *, document: bool = False) -> LazyList:
        """The list whose last start is an item that breaks off: kept up to its last complete
        part, or left out when it has none (a whole document, when that is empty: a log line
        that opens with ``[``); nothing after it is read."""
        self.cut = True
        ends.append(len(self.data))
        kept = _broken_item(self.data[starts[-1] :])
        if not kept or (document and not kept[0]):
            starts.pop()
            ends.pop()
            return LazyList(self.data, starts, ends)
        return LazyList(self.data, starts, ends, broken=True)

    def shallow_object(self, at: int) -> tuple[dict[str, Any], int]:
        """The object at ``data[at] == "{"``, its list values lazy, everything else parsed.

        Salvaging, it ends where it breaks off as the whole-text salvage cuts it: after its
        last member followed by a ``,`` or ending in a bracket, its last value kept up to
        its last complete part."""
        at = self.skip(at + 1)
        found: dict[str, Any] = {}
        if self.at(at, b"}"):
            return found, at + 1
        while True:
            try:
                if not self.at(at, b'"'):
                    raise error_at("Expecting property name enclosed in double quotes", at)
                key, at = self.window.value_at(at)  # a string: it starts with a quote
                at = self.skip(at)
                if not self.at(at, b":"):
                    raise error_at("Expecting ':' delimiter", at)
            except JSONDecodeError:
                if not self.salvaging:
                    raise
                return self._cut_object(found)
            at = self.skip(at + 1)
            before = found.get(key, _ABSENT)
            try:
                value, end = self.value(at, top=False)
            except JSONDecodeError:
                if not self.salvaging:
                    raise
                kept = _broken_item(self.data[at:]) if self.at(at, b"{") else []
                if kept:  # an object that breaks off: as far as it goes
                    found[key] = kept[0]
                return self._cut_object(found)
            found[key] = value
            if self.cut:
                return found, end
            at = self.skip(end)
            if self.at(at, b"}"):
                return found, at + 1
            if not self.at(at, b","):
                if not self.salvaging:
                    raise error_at("Expecting ',' delimiter", at)
                if self.data[end - 1] not in b"]}":  # a number may have been cut short
                    _restore(found, key, before)
                return self._cut_object(found)
            at = self.skip(at + 1)

    def _cut_object(self, found: dict[str, Any]) -> tuple[dict[str, Any], int]:
        self.cut = True  # nothing after the break is read
        return found, len(self.data)
