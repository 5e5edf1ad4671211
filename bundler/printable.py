"""Text from a bundle made safe to show on a terminal or in a ticket.

Everything a bundle holds (worker and job names, labels, versions, log lines,
collector errors, member names, even the bundle id) comes from a customer's
systems, and a reader must treat it as hostile: an ESC sequence in a worker
name can move the cursor and draw a green "HEALTHY" over a red verdict, a
right-to-left override can reverse a status word, and a newline can start a
fake heading in a Markdown ticket. The text and Markdown renderers therefore
show a copy of the report in which every such character is written as a
visible escape (``\\x1b``, ``\\u202e``), the way ``repr`` would. JSON output
keeps the values exact but is read on terminals too: :func:`printable_json`
writes the same characters as JSON escapes (``\\u202e``), which a JSON parser
reads back as the original value.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import TYPE_CHECKING, TypeVar

from .stringmap import map_strings

if TYPE_CHECKING:  # pydantic is imported only when a report is shown: `bundler: error:` needs none
    from pydantic import BaseModel

UNSHOWN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Controls, format characters (bidi overrides, zero-width), lone surrogates, private-use and
unassigned code points, and the Unicode line and paragraph separators."""

Model = TypeVar("Model", bound="BaseModel")

SHOWN_LIMIT = 2000
"""Characters of one bundle string a report shows. A worker name, a label or a log line
of megabytes (a hostile bundle) would otherwise be laid out in every table cell and
tooltip it appears in: a 1 MB name made an 11 MB text report and a 50 MB one never
finished. The longest string a real report shows is a few hundred characters; JSON
keeps every value whole."""

_NOT_ASCII_TEXT = re.compile("[^\x00-\x7e]")  # every code point from DEL up; the range spelt
# out to U+10FFFF took 7 ms to compile, on every start-up
"""What JSON serializers leave raw that a terminal may act on: DEL, C1 controls and every
non-ASCII character (each is then judged by its category)."""


def _escaped(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str, keep: str = "", limit: int | None = SHOWN_LIMIT) -> str:
    """``text`` with every character a terminal or renderer would act on written as an escape.

    ``keep`` names characters to leave as they are (the HTML page keeps ``\n``,
    which its tooltips break lines on and which HTML cannot turn into a heading).
    Text longer than ``limit`` characters is cut there and says how much was left
    out (:data:`SHOWN_LIMIT`). Plain ASCII (the common case) is returned as is
    without a per-character walk.
    """
    if limit is not None and len(text) > limit:
        return printable(text[:limit], keep, None) + f"… ({len(text) - limit:,} more characters)"
    if text.isascii() and text.isprintable():
        return text
    return "".join(
        _escaped(ch) if unicodedata.category(ch) in UNSHOWN_CATEGORIES and ch not in keep else ch
        for ch in text
    )


def printable_model(model: Model) -> Model:
    """A copy of ``model`` whose every string (values and mapping keys) is :func:`printable`
    (escaped, and cut at :data:`SHOWN_LIMIT` characters).

    The original is left as it is (JSON output keeps the exact values); enum
    members are kept (they are the tool's own words, not bundle data).
    """
    return map_strings(model, printable, keys=True)


def _json_escaped(match: re.Match[str]) -> str:
    ch = match.group()
    if unicodedata.category(ch) not in UNSHOWN_CATEGORIES:
        return ch
    return json.dumps(ch)[1:-1]  # \u202e; a character past U+FFFF as its surrogate pair


def json_printable(text: str) -> str:
    """JSON text with every character :func:`printable` would escape written as a JSON escape.

    JSON serializers escape only C0 controls, so a C1 CSI (``\\x9b``), a bidi
    override or a zero-width character in a worker name reaches the terminal of
    whoever runs ``--format json`` raw. Such characters can only stand inside
    JSON strings (the structure is ASCII), so escaping them keeps the document
    valid and every value exact.
    """
    if text.isascii() and "\x7f" not in text:
        return text
    return _NOT_ASCII_TEXT.sub(_json_escaped, text)


def printable_json(model: BaseModel, *, by_alias: bool = True) -> str:
    """``model`` as indented JSON (its documented schema), safe to print on a terminal.

    pydantic refuses to serialize a string that is not Unicode (a lone
    surrogate). Readers refuse such bundle text (``bundler/jsondoc.py``), but
    should one still reach a report, the same document is written by the
    standard library, ASCII-escaped (``\\ud800``), instead of crashing.
    """
    from pydantic_core import PydanticSerializationError

    try:
        text = model.model_dump_json(by_alias=by_alias, indent=2)
    except PydanticSerializationError:
        document = model.model_dump(mode="json", by_alias=by_alias)
        return json.dumps(document, indent=2, ensure_ascii=True)
    return json_printable(text)
