"""Member names as redaction sees them: a path of components, never merged.

A name is a path (``logs/app.log``). A value found in it is replaced inside its
component: the rules run on each component on its own, so ``token=ghp_…/x.log``
keeps its folder and ``x.log`` (scanned whole, the token's value ran on over the
``/`` and the folder became a file). A learned value is looked for in the whole
path, since one may hold a ``/``; where it runs over one, each piece is
replaced by the same token, as a value over several lines is, so no
component is merged into another.
"""

from __future__ import annotations

from dataclasses import replace

from .engine import Engine
from .rules import Hit, View

SEPARATOR = b"/"


def component_hits(engine: Engine, data: bytes) -> list[Hit]:
    """The rules' hits in each path component of ``data``, placed in ``data``."""
    hits: list[Hit] = []
    start = 0
    for part in data.split(SEPARATOR):
        if part:
            hits += [
                replace(hit, start=hit.start + start, end=hit.end + start)
                for hit in engine.scan(View(part))
            ]
        start += len(part) + 1
    return hits


def cut_at_separators(hits: list[Hit], data: bytes) -> list[Hit]:
    """Each hit that runs over a ``/`` cut into its pieces between them, one token for all
    (the pieces' identity is the whole value); the separators stay."""
    cut: list[Hit] = []
    for hit in hits:
        value = data[hit.start : hit.end]
        if SEPARATOR not in value:
            cut.append(hit)
            continue
        identity = hit.identity or value
        start = hit.start
        for piece in value.split(SEPARATOR):
            if piece:
                cut.append(replace(hit, start=start, end=start + len(piece), identity=identity))
            start += len(piece) + 1
    return cut
