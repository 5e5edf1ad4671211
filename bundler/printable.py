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
from typing import TYPE_CHECKING, TypeVar

from .stringmap import map_strings

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

    The original is left as it is (JSON output keeps the exact values); enum
    members are kept (they are the tool's own words, not bundle data).
    """
    return map_strings(model, printable, keys=True)
