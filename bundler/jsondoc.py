"""Parse a JSON document from a bundle with its nesting depth capped.

Bundles are hostile input, and in recipient mode anyone holding the public
key can build one. ``json.loads`` of 100,000 ``[`` raises ``RecursionError``
(not a ``ValueError``), and a document nested a few hundred levels deep that
does parse can still exhaust the stack of whatever walks it next (schema
validation, the review's canonical form, a rule). No real manifest, report or
evidence document nests beyond a dozen levels, so the cap is far above real
data and far below any stack limit.
"""

from __future__ import annotations

import json
from typing import Any

MAX_JSON_DEPTH = 128


class JsonTooDeep(ValueError):
    """Nested deeper than :data:`MAX_JSON_DEPTH`; a ``ValueError``, like malformed JSON."""


def loads_bounded(data: bytes | str, label: str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that raises :class:`JsonTooDeep` instead of recursing without bound."""
    try:
        document = json.loads(data)
    except RecursionError:
        raise JsonTooDeep(_message(label, max_depth)) from None
    if _deeper_than(document, max_depth):
        raise JsonTooDeep(_message(label, max_depth))
    return document


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
