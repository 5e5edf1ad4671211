"""The documents of a JSON or YAML member that does not parse whole.

Support bundles hold structured text that is not quite valid: a collector cut
a file at its size limit (``kubectl get secrets -A -o json`` ends mid-item), a
YAML stream has one broken document among good ones, a ``.json`` file holds
one JSON value per line. Refusing the whole parse there left the member to the
line rules alone, which cannot know that ``db: aHVudGVy...`` under a
Kubernetes ``Secret``'s ``data`` is a secret: every value of a ``Secret`` list
with one broken document leaked.

What is recovered here is only ever *more* for the structure walk to find:
the values it finds are redacted where they stand in the text, and the line
rules run over all of it as before. Nothing is guessed: each document is a
prefix of the text that the real parser accepts (JSON closed after its last
complete value), so a value found is one the document really holds.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Iterator
from itertools import chain, pairwise
from typing import Any

ATTEMPTS = 4
"""Shorter prefixes tried per document before giving it up (each is a full parse)."""

_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|([\[\]{},])')
"""A JSON string (skipped whole, so brackets inside it do not count) or a structural byte."""
_CLOSER_OF = {"[": "]", "{": "}"}
_YAML_DOCUMENT_START = re.compile(rb"^---(?=[ \t\r\n]|$)", re.MULTILINE)


def json_documents(data: bytes) -> list[Any]:
    """The JSON values of ``data`` read in order, the last one closed where it broke off.

    Consecutive values (JSON Lines in a ``.json`` file) are each read whole; a
    value that breaks off (truncated, or damaged further on) is kept up to its
    last complete member or item, its open arrays and objects closed.
    """
    text = data.decode("utf-8", "surrogateescape")
    decoder = json.JSONDecoder()
    documents: list[Any] = []
    at = _skip_space(text, 0)
    while at < len(text):
        try:
            document, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as error:
            closed = _closed_prefix(text, at, error.pos)
            if closed:  # an empty container (a log line opening with "[") holds nothing
                documents.append(closed)
            break
        documents.append(document)
        at = _skip_space(text, at)
    return documents


def json_prefix(data: bytes) -> list[Any]:
    """The JSON value ``data`` starts with (an item of a list that breaks off), closed where it
    breaks as :func:`json_documents` closes it in its document, an empty one too; ``[]``
    when no cut of it parses."""
    text = data.decode("utf-8", "surrogateescape")
    at = _skip_space(text, 0)
    try:
        return [json.JSONDecoder().raw_decode(text, at)[0]]
    except json.JSONDecodeError as error:
        closed = _closed_prefix(text, at, error.pos)
    return [] if closed is None else [closed]


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _closed_prefix(text: str, start: int, broke: int) -> Any:
    """The value starting at ``start``, cut at one of its last structural places before
    ``broke`` and closed there: the first of the last few cuts that parses, else None."""
    stack: list[str] = []
    cuts: deque[tuple[int, str]] = deque(maxlen=ATTEMPTS)
    for token in _JSON_TOKENS.finditer(text, start, broke):
        mark = token.group(1)
        if mark is None:
            continue  # a string
        if mark in _CLOSER_OF:
            stack.append(mark)
            cuts.append((token.end(), _closing(stack)))  # an empty container from here
        elif mark == ",":  # everything before it is complete
            cuts.append((token.start(), _closing(stack)))
        elif stack:
            stack.pop()
            if stack:
                cuts.append((token.end(), _closing(stack)))
    for cut, closers in reversed(cuts):
        try:
            return json.loads(text[start:cut] + closers)
        except ValueError:  # too deep to parse (RecursionError) is for the caller to say
            continue
    return None


def _closing(stack: list[str]) -> str:
    return "".join(_CLOSER_OF[opener] for opener in reversed(stack))


def yaml_documents(data: bytes, load: Callable[[bytes], list[Any]]) -> list[Any]:
    """The YAML documents of ``data`` that parse, each broken one up to where it broke.

    The stream is split at its ``---`` lines and each piece loaded on its own
    (``load`` raises as ``yaml.load_all`` does); a piece that fails is loaded
    again without the line the parser stopped at and what follows it, a few
    times at most. A document cut at a line boundary (a truncated file) is
    usually valid as it stands, so most pieces load at the first try.
    """
    documents: list[Any] = []
    for piece in yaml_pieces(data):
        documents.extend(yaml_prefix(piece, load))
    return documents


def yaml_pieces(data: bytes) -> Iterator[bytes]:
    """``data`` cut before each ``---`` line (a document start; libyaml refuses one anywhere
    else at the start of a line, in a quoted scalar too), one piece at a time."""
    starts = (match.start() for match in _YAML_DOCUMENT_START.finditer(data))
    bounds = chain([0], (start for start in starts if start > 0), [len(data)])
    for begin, end in pairwise(bounds):
        yield data[begin:end]  # all of it, not a copy, when there is one piece


def yaml_prefix(piece: bytes, load: Callable[[bytes], list[Any]]) -> list[Any]:
    """The documents ``load`` gives of ``piece``, or of its longest prefix that loads, trying
    a few cuts at the line the parser stopped at."""
    import yaml  # here: a run without YAML does not load PyYAML (~10 ms of start-up)

    for _ in range(ATTEMPTS):
        try:
            return load(piece)
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark or error.context_mark
            if mark is None or mark.line == 0:
                return []
            lines = _line_count(piece)
            # broke at the end: the last (partial) line goes; else the line it broke at on
            piece = _first_lines(piece, lines - 1 if mark.line >= lines else mark.line)
            if not piece:
                return []
        except (yaml.YAMLError, ValueError, UnicodeDecodeError):
            return []  # nested too deep to parse (RecursionError) is not "nothing here"
    return []


_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
"""Where ``bytes.splitlines`` ends a line: counted here instead of splitting a large piece
into a list of its lines."""


def _line_count(text: bytes) -> int:
    """``len(text.splitlines())``."""
    breaks = text.count(b"\n") + text.count(b"\r") - text.count(b"\r\n")
    return breaks + (0 if text.endswith((b"\n", b"\r")) or not text else 1)


def _first_lines(text: bytes, count: int) -> bytes:
    """``b"".join(text.splitlines(keepends=True)[:count])``."""
    if count <= 0:
        return b""
    for number, line_break in enumerate(_LINE_BREAK.finditer(text), 1):
        if number == count:
            return text[: line_break.end()]
    return text
