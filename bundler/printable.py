"""Text from a bundle made safe to show on a terminal or in a ticket.

Everything a bundle holds (worker and job names, labels, versions, log lines,
collector errors, member names, even the bundle id) comes from a customer's
systems, and a reader must treat it as hostile: an ESC sequence in a worker
name can move the cursor and draw a green "HEALTHY" over a red verdict, a
right-to-left override can reverse a status word, and a newline can start a
fake heading in a Markdown ticket. The text and Markdown renderers therefore
show a copy of the report in which every such character is written as a
visible escape (``\\x1b``, ``\\u202e``), the way ``repr`` would; JSON output
keeps the values as they are (JSON escapes control characters itself).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # pydantic is imported only when a report is shown: `bundler: error:` needs none
    from pydantic import BaseModel

UNSHOWN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Controls, format characters (bidi overrides, zero-width), lone surrogates, private-use and
unassigned code points, and the Unicode line and paragraph separators."""

Model = TypeVar("Model", bound="BaseModel")


def _escaped(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str, keep: str = "") -> str:
    """``text`` with every character a terminal or renderer would act on written as an escape.

    ``keep`` names characters to leave as they are (the HTML page keeps ``\n``,
    which its tooltips break lines on and which HTML cannot turn into a heading).
    Plain ASCII (the common case) is returned as is without a per-character walk.
    """
    if text.isascii() and text.isprintable():
        return text
    return "".join(
        _escaped(ch) if unicodedata.category(ch) in UNSHOWN_CATEGORIES and ch not in keep else ch
        for ch in text
    )


def printable_model(model: Model) -> Model:
    """A copy of ``model`` whose every string (values and mapping keys) is :func:`printable`.

    Built with ``model_construct``: the values were validated when the report was
    made, and an escaped name need not match a pattern its original did.
    Enum members are kept (they are the tool's own words, not bundle data).
    """
    from pydantic import BaseModel

    def walk(value: Any) -> Any:
        if isinstance(value, BaseModel):
            names = type(value).model_fields
            fields = {name: walk(getattr(value, name)) for name in names}
            extra = {key: walk(item) for key, item in (value.model_extra or {}).items()}
            return type(value).model_construct(
                _fields_set=value.model_fields_set, **fields, **extra
            )
        return _plain(value, walk)

    return walk(model)  # type: ignore[no-any-return]


def _plain(value: Any, walk: Callable[[Any], Any]) -> Any:
    """Strings escaped, containers walked with ``walk``, anything else (enums, numbers) kept."""
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, Mapping):
        return {walk(k): walk(v) for k, v in value.items()}
    if isinstance(value, list):
        return [walk(v) for v in value]
    if isinstance(value, tuple):
        return tuple(walk(v) for v in value)
    return value
