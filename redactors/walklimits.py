"""How large (and how deep) a JSON, YAML or TOML member the structure walk reads: one rule for
redact and review.

The structure walk (:mod:`.structure`) is the only thing that finds a value no line rule
can recognize (a Kubernetes ``Secret``'s ``data``, a ``{"name": ..., "value": ...}``
pair). A member it does not read is redacted by the line rules alone, so the redactor
records that in the report and ``bundler review``, which cannot vouch for such a member,
rejects it instead of calling it clean. Both sides ask :func:`walk_cap` for the same
format: a member one side walks, the other walks too.

JSON and YAML are read within bounded memory (a large JSON document's top-level lists
item by item, the text decoded a window at a time: :mod:`.shallowjson`; a YAML stream
document by document and a large document's top-level sequences item by item:
:mod:`.lazyyaml`), so their cap is the one bundler's own readers load a JSON member up to
(``bundler.source.DEFAULT_MAX_JSON_BYTES``; a test keeps the two equal, since
``redactors`` may not import ``bundler``). TOML is parsed whole (``tomllib`` has no other
way), a tree many times the text, and keeps the smaller cap.
"""

from __future__ import annotations

WALK_CAPS: dict[str, int] = {"json": 256 << 20, "yaml": 256 << 20, "toml": 16 << 20}
"""Per format, the largest member the structure walk reads (bytes as stored)."""

STRUCTURE_MAX = max(WALK_CAPS.values())
"""The default of :attr:`~.policy.Policy.structure_max`: no format's cap is lowered."""

WALK_DEPTH = 128
"""Levels of nesting the walk reads, as far as bundler's JSON readers read a document
(``bundler.jsondoc.MAX_JSON_DEPTH``; a test keeps them equal). A member with deeper
containers (or too deep for the parser itself) is treated as one over its cap."""


def walk_cap(fmt: str, structure_max: int = STRUCTURE_MAX) -> int:
    """The largest member of format ``fmt`` the walk reads: its format's cap, or the lower
    ``structure_max`` a policy sets (tests use a small one instead of writing huge files)."""
    return min(WALK_CAPS[fmt], structure_max)


def over_cap(fmt: str, cap: int) -> str:
    """Why a member over ``cap`` was not walked, in words (no name, no content)."""
    return f"a {fmt.upper()} document over the {_size(cap)} the structure walk reads"


def nested_too_deep(fmt: str) -> str:
    """Why a member was not walked whole because of its nesting, in words."""
    levels = f"the {WALK_DEPTH} levels the structure walk reads"
    return f"a {fmt.upper()} document nested deeper than {levels}"


def _size(count: int) -> str:
    if count >= 1 << 20 and count % (1 << 20) == 0:
        return f"{count >> 20} MiB"
    return f"{count} bytes"
