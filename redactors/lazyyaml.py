"""A large YAML member for the structure walk: a document at a time, a big one item by item.

:func:`~.yamldocs.load_documents` builds every document of a stream at once, and
PyYAML's tree of a Kubernetes listing is some twenty times its text (a 3 MB ``kubectl
get configmaps -o yaml`` traced 64 MB; libyaml's node tree, built first, more still).
From :data:`MIN_BYTES` up, :func:`documents` gives the documents one at a time: the
stream is cut at its ``---`` lines (:func:`~.salvage.yaml_pieces`, which also reads a
broken piece up to its break), a small piece loaded whole, a large one by :func:`load`.
There a document's top-level sequences (the document itself, or a sequence under its
top-level mapping: ``items:``) are :class:`LazySequence`, whose items are composed from
libyaml's events by PyYAML's own composer, one at a time, when the walk reaches them:
no node tree of the document is ever made. As :mod:`.shallowjson` does for JSON, every
item is built once up front too (so a document PyYAML refuses is refused before the walk
starts), and again for the walk.

The documents walk as ``load_documents``' would: the same keys in the same order, the
same values (built by the same code, :func:`~.yamldocs.build_node`), sequences of the
same length. A document whose top level is unusual (an anchor or a tag on it, a merge
key ``<<``, a key ``=`` or a collection as a key) is loaded whole instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from yaml.composer import Composer
from yaml.events import (
    CollectionEndEvent,
    CollectionStartEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode

from .salvage import yaml_pieces, yaml_prefix
from .yamldocs import build_node, load_documents, loader_class

MIN_BYTES = 1 << 20
"""Smaller members and pieces are loaded whole: their tree is small, and one load is cheaper."""
_MAPPING_KEY_TAGS = frozenset({"tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"})
"""Keys only a whole mapping's constructor reads (``<<`` merges, ``=`` becomes a string)."""


def documents(data: bytes) -> Iterator[Any]:
    """The documents of the YAML stream ``data``, one piece at a time (see above); a broken
    piece gives what of it loads, as :func:`~.salvage.yaml_documents` does."""
    for piece in yaml_pieces(data):
        yield from yaml_prefix(piece, load if len(piece) >= MIN_BYTES else load_documents)


class _Whole(Exception):
    """The top of a document is unusual: the piece is loaded whole."""


def _reader(data: bytes) -> Any:
    """A loader that also composes node by node in Python (``Composer``), on libyaml's
    events when PyYAML has it."""
    base = loader_class()
    reader = _READERS.get(base)
    if reader is None:
        reader = _READERS[base] = type("Reader", (base, Composer), {})
    made = reader(data)
    made.anchors = {}
    return made


_READERS: dict[type[Any], type[Any]] = {}


def load(piece: bytes) -> list[Any]:
    """``load_documents(piece)``, each document's top-level sequences lazy (see above).

    Raises what ``load_documents`` raises on the same text.
    """
    reader = _reader(piece)
    try:
        reader.get_event()  # the stream's start
        loaded: list[Any] = []
        while not reader.check_event(StreamEndEvent):
            reader.get_event()  # the document's start
            loaded.append(_Top(reader, piece, len(loaded)).read())
            reader.get_event()  # its end
            reader.anchors = {}
        return loaded
    except _Whole:
        return load_documents(piece)
    finally:
        reader.dispose()


def _lazy_here(event: Event, kind: type[CollectionStartEvent]) -> bool:
    """Whether the collection starting with ``event`` is read lazily: a plain one, which no
    alias can refer to."""
    return (
        isinstance(event, kind)
        and event.anchor is None
        and event.tag in (None, "!")
        and event.implicit is True
    )


class _Top:
    """The top level of one document, read from the events: its lazy sequences are where
    the walk (:class:`LazySequence`) and this reading must agree, so both go through here."""

    def __init__(self, reader: Any, piece: bytes, document: int) -> None:
        self.reader = reader
        self.piece = piece
        self.document = document
        self.sequences: list[LazySequence] = []

    def read(self) -> Any:
        """The document, every item of its lazy sequences built once and dropped."""
        event = self.reader.peek_event()
        if _lazy_here(event, SequenceStartEvent):
            return self._sequence()
        if not _lazy_here(event, MappingStartEvent):
            return build_node(self.reader, self.reader.compose_node(None, None))
        self.reader.get_event()
        mapping: dict[Any, Any] = {}
        while not self.reader.check_event(MappingEndEvent):
            key = self.reader.compose_node(None, None)
            if key.__class__ is not ScalarNode or key.tag in _MAPPING_KEY_TAGS:
                raise _Whole
            if _lazy_here(self.reader.peek_event(), SequenceStartEvent):
                value: Any = self._sequence()
            else:
                value = build_node(self.reader, self.reader.compose_node(None, None))
            mapping[build_node(self.reader, key)] = value
        self.reader.get_event()
        if self.reader.anchors:  # an item may refer to one: the walk composes what precedes
            for sequence in self.sequences:
                sequence.anchored = True
        return mapping

    def _sequence(self) -> LazySequence:
        self.reader.get_event()
        count = 0
        while not self.reader.check_event(SequenceEndEvent):
            build_node(self.reader, self.reader.compose_node(None, None))
            count += 1
        self.reader.get_event()
        lazy = LazySequence(self.piece, self.document, len(self.sequences), count)
        self.sequences.append(lazy)
        return lazy

    def seek(self, sequence: int, *, anchored: bool) -> None:
        """Read up to the first item of the document's lazy sequence number ``sequence``.

        What comes before it is composed when the document has anchors (an item may refer
        to one there), else only read past.
        """
        reader = self.reader
        read_past = reader.compose_node if anchored else lambda *_: _skip_node(reader)
        reader.get_event()  # the stream's start
        for _ in range(self.document):  # an anchor never reaches past its document
            reader.get_event()
            _skip_node(reader)
            reader.get_event()
        reader.get_event()  # the document's start
        if _lazy_here(reader.peek_event(), SequenceStartEvent):
            reader.get_event()
            return
        reader.get_event()  # the top-level mapping's start (read() made sure of it)
        for number in range(sequence + 1):
            while True:
                read_past(None, None)  # a key
                if _lazy_here(reader.peek_event(), SequenceStartEvent):
                    break
                read_past(None, None)
            reader.get_event()
            if number == sequence:
                return
            while not reader.check_event(SequenceEndEvent):
                read_past(None, None)
            reader.get_event()


def _skip_node(reader: Any) -> None:
    """Read past one node's events."""
    depth = 0
    while True:
        event = reader.get_event()
        if isinstance(event, CollectionStartEvent):
            depth += 1
        elif isinstance(event, CollectionEndEvent):
            depth -= 1
        if depth == 0:
            return


class LazySequence(list[Any]):
    """A top-level YAML sequence's items, composed from the text each time it is iterated.

    Only what the structure walk does with a list is supported: ``len``, truth and
    iteration (``isinstance(x, list)`` holds, as the walk checks).
    """

    __slots__ = ("_count", "_document", "_piece", "_sequence", "anchored")

    def __init__(self, piece: bytes, document: int, sequence: int, count: int) -> None:
        super().__init__()
        self._piece = piece
        self._document = document
        self._sequence = sequence
        self._count = count
        self.anchored = False
        """Whether its document has anchors (set once the document is read)."""

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return bool(self._count)

    def __iter__(self) -> Iterator[Any]:
        reader = _reader(self._piece)
        try:
            _Top(reader, self._piece, self._document).seek(self._sequence, anchored=self.anchored)
            while not reader.check_event(SequenceEndEvent):
                yield build_node(reader, reader.compose_node(None, None))
        finally:
            reader.dispose()
