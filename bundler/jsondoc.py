"""Parse a JSON document from a bundle with its nesting depth capped.

Bundles are hostile input, and in recipient mode anyone holding the public
key can build one. ``json.loads`` of 100,000 ``[`` raises ``RecursionError``
(not a ``ValueError``), and a document nested a few hundred levels deep that
does parse can still exhaust the stack of whatever walks it next (schema
validation, the review's canonical form, a rule). No real manifest, report or
evidence document nests beyond a dozen levels, so the cap is far above real
data and far below any stack limit.

JSON's grammar also lets a string escape half of a UTF-16 surrogate pair
(``"w\\ud800x"``), and Python's parser keeps it: a ``str`` that is not Unicode
text, which every later encoder (pydantic's JSON, a UTF-8 file, the terminal)
refuses. Such a document is refused here, as malformed JSON is, and for the
same reason as a checksum that does not match: no bundler writes one (pydantic
cannot serialize it), so it was made by something the reader cannot account
for. Replacing the surrogate with U+FFFD instead would make the reader invent
text: two distinct names (``w\\ud800x``, ``w\\udc00x``) would become one worker,
and a finding would cite a name the document does not hold.

An object that names one key twice (``{"status": "online", "status": "offline"}``)
is refused too. JSON leaves its meaning open (RFC 8259: names "SHOULD be unique";
receivers differ), and Python's parser silently keeps the last value: the record
the analysis judged would be decided by the order of two keys, which the product
never promised, and a reader with another parser would see the other value. No
bundler writes one (a dict cannot hold it), so as evidence it is ambiguous and
said to be so, naming where, instead of one of its readings being chosen.

Numbers that are not finite are refused the same way. Python's parser reads
``NaN``, ``Infinity`` and ``-Infinity``, and a number past a float's range
(``1e400``, or 400 digits with a fraction) as ``inf``; JSON has no such
numbers, no bundler writes one (pydantic writes a non-finite float as
``null``) and no product does (Go's encoder and Starlette's refuse them).
Kept, ``inf`` printed as a duration of ``inf s`` and broke ordering and
arithmetic wherever it went: in a field typed ``Any`` (a setting, a limit) no
model would have stopped it. The models refuse them too
(``schemas._base``: ``allow_inf_nan=False``), for what is built in code.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

MAX_JSON_DEPTH = 128


class JsonRefused(ValueError):
    """JSON that parses but is refused, with a one-line reason naming where; a ``ValueError``,
    like malformed JSON."""


class JsonTooDeep(JsonRefused):
    """Nested deeper than :data:`MAX_JSON_DEPTH`."""


class JsonNotText(JsonRefused):
    """A string or key holds an unpaired UTF-16 surrogate."""


class JsonNotFinite(JsonRefused):
    """A number that is not finite: ``NaN``, ``Infinity``, or past a float's range."""


class JsonDuplicateKey(JsonRefused):
    """An object names one key twice: which value counts would be the parser's choice."""


class _Duplicate(Exception):
    """Raised inside the parse by :func:`_unique`: not a ``ValueError``, so nothing in
    ``json`` can take it for its own."""


def loads_bounded(data: bytes | str, label: str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that raises :class:`JsonTooDeep` instead of recursing without bound.

    It also raises :class:`JsonNotText` for a document holding a lone surrogate
    and :class:`JsonNotFinite` for one holding a number that is not finite (see the
    module docstring), so no model is ever built from either.
    """
    try:
        document = json.loads(data, object_pairs_hook=_unique)
    except RecursionError:
        raise JsonTooDeep(_message(label, max_depth)) from None
    except _Duplicate:
        raise JsonDuplicateKey(
            f"{label} has a duplicate key at {_duplicate_at(data)} (one object names it twice, "
            "so its value would be the parser's choice: refused as ambiguous)"
        ) from None
    if _deeper_than(document, max_depth):
        raise JsonTooDeep(_message(label, max_depth))
    if _may_hold_surrogate(data):
        where = _surrogate_at(document)
        if where is not None:
            raise JsonNotText(
                f"{label} has a string that is not Unicode text at {where} "
                "(an unpaired UTF-16 surrogate; refused: no bundler writes one)"
            )
    if _may_hold_non_finite(data):
        where = _non_finite_at(document)
        if where is not None:
            raise JsonNotFinite(
                f"{label} has a number that is not finite at {where} (NaN, Infinity or past "
                "a float's range; refused: no bundler writes one)"
            )
    return document


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members as a dict, unless two share a key (as fast as ``json``'s own dict)."""
    members = dict(pairs)
    if len(members) != len(pairs):
        raise _Duplicate
    return members


class _Members(list[tuple[str, Any]]):
    """An object's members in document order, duplicates kept: to find where one is."""


def _duplicate_at(data: bytes | str) -> str:
    """The JSON pointer of a key named twice in one object (outer objects looked at first).

    Parsed again keeping every member, only once a duplicate was found; the tree is
    walked iteratively (its nesting was not checked yet).
    """
    try:
        document = json.loads(data, object_pairs_hook=_Members)
    except RecursionError:
        return "an unknown place (the document nests too deep to say)"
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        pointer, node = stack.pop()
        children: list[tuple[str, Any]] = []
        if type(node) is _Members:
            seen: set[str] = set()
            for key, value in node:
                child = f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
                if key in seen:
                    return _shown(child)
                seen.add(key)
                children.append((child, value))
        elif type(node) is list:
            children = [(f"{pointer}/{i}", v) for i, v in enumerate(node)]
        stack.extend(reversed(children))
    return "an unknown place"


_SURROGATE = re.compile(r"[\ud800-\udfff]")
_UTF8_LEADS = (b"\\ud", b"\\uD", b"\xed")
"""Where a surrogate can come from in UTF-8 input: a ``\\uD8xx``-``\\uDFxx`` escape, or
the 3-byte form ``json.loads`` decodes with ``surrogatepass`` (lead byte 0xED)."""
_POINTER_SHOWN = 120


def _may_hold_surrogate(data: bytes | str) -> bool:
    """A cheap over-approximation, so the exact walk runs only on suspicious documents.

    ``in`` over bytes or ``str`` runs at memory speed; a false positive (an
    escaped emoji, Hangul text, a UTF-16 document) only costs the walk.
    """
    if isinstance(data, str):
        return "\\ud" in data or "\\uD" in data or _SURROGATE.search(data) is not None
    if data[:4].count(0) or data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return True  # UTF-16 or UTF-32: json.loads detects it; just look
    return any(lead in data for lead in _UTF8_LEADS)


_NON_FINITE = re.compile(r"NaN|Infinity|[eE]\+?\d{3}|\d{200}")
"""What a number that is not finite must be written with: the two literals, an exponent of
three digits or more, or an integer part of 200 digits or more (with an exponent under 100,
fewer digits cannot pass 1.8e308). A cheap over-approximation: a match only costs the walk."""
_NON_FINITE_BYTES = re.compile(_NON_FINITE.pattern.encode())


def _may_hold_non_finite(data: bytes | str) -> bool:
    if isinstance(data, str):
        return _NON_FINITE.search(data) is not None
    return _NON_FINITE_BYTES.search(data) is not None


def _non_finite_at(document: Any) -> str | None:
    """The JSON pointer of the first float that is ``inf``, ``-inf`` or ``nan`` (document order)."""
    return _first_at(document, lambda node: type(node) is float and not math.isfinite(node))


def _surrogate_at(document: Any) -> str | None:
    """The JSON pointer of the first string (value or key) holding a surrogate, shown escaped."""
    return _first_at(document, lambda node: type(node) is str and bool(_SURROGATE.search(node)))


def _first_at(document: Any, refused: Callable[[Any], bool]) -> str | None:
    """The JSON pointer of the first value or key, in document order, that ``refused`` names.

    Iterative (the depth is already capped).
    """
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        pointer, node = stack.pop()
        if refused(node):
            return _shown(pointer or "/")
        kind = type(node)
        if kind is dict:
            children = []
            for key, value in node.items():
                child = f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
                if refused(key):
                    return _shown(child)
                children.append((child, value))
            stack.extend(reversed(children))
        elif kind is list:
            stack.extend(reversed([(f"{pointer}/{i}", v) for i, v in enumerate(node)]))
    return None


def _shown(pointer: str) -> str:
    """``pointer`` printable anywhere: surrogates and other non-ASCII escaped, length capped."""
    text = pointer.encode("ascii", "backslashreplace").decode("ascii")
    return text if len(text) <= _POINTER_SHOWN else text[: _POINTER_SHOWN - 1] + "…"


def _message(label: str, max_depth: int) -> str:
    return f"{label} nests JSON deeper than {max_depth} levels (refused: no bundle document does)"


_CONTAINERS = (dict, list)


def _deeper_than(document: Any, limit: int) -> bool:
    """Whether containers nest more than ``limit`` levels.

    Level by level, without recursion (nothing to exhaust), looking only at
    containers: about a fifth of the parse's own time on a large document.
    """
    if type(document) not in _CONTAINERS:
        return False
    level: list[Any] = [document]
    depth = 1
    while level:
        if depth > limit:
            return True
        deeper: list[Any] = []
        for node in level:
            values = node.values() if type(node) is dict else node
            deeper += [value for value in values if type(value) in _CONTAINERS]
        level = deeper
        depth += 1
    return False
