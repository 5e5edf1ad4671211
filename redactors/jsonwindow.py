"""JSON values read from UTF-8 bytes at byte offsets, the text decoded a window at a time.

:mod:`.shallowjson` reads a large document's top level itself and hands every value
below it here. ``json``'s decoder reads ``str`` only, and a decoded copy of the whole text
is as large again as the text (four times with one emoji in it: Python then stores every
character in four bytes); the walk reads JSON members up to 256 MiB (:mod:`.walklimits`),
one per redaction worker. A :class:`Window` decodes a quarter MiB at a time, more when one
value is longer, and answers in byte offsets, which a lazy list keeps.
"""

from __future__ import annotations

import codecs
import json
from json import JSONDecodeError
from typing import Any

WINDOW = 256 << 10
"""Bytes decoded at a time (more when one value is longer)."""

REST_AT_ONCE = 8 << 20
"""A value that outgrows its window is read with the rest of the text when at most this much
remains (decoded, at most four times as much: Python's widest characters)."""

_DECODER = json.JSONDecoder()


def as_utf8(data: bytes) -> tuple[bytes, int]:
    """``data`` as UTF-8 and where its text starts (after a byte order mark), as
    ``json.loads`` reads bytes."""
    encoding = json.detect_encoding(data)
    if encoding == "utf-8-sig":
        return data, 3
    if encoding != "utf-8":  # UTF-16 or 32 (rare: the redactor reads UTF-16 as UTF-8)
        data = data.decode(encoding, "surrogatepass").encode("utf-8", "surrogatepass")
    return data, 0


def value_in(data: bytes) -> Any:
    """The JSON value ``data`` (UTF-8, one value: a list item read again) starts with."""
    return _DECODER.raw_decode(data.decode("utf-8", "surrogatepass"))[0]


def error_at(message: str, at: int) -> JSONDecodeError:
    """``json.loads``' error (a ``ValueError``), at byte ``at`` (the text is not at hand)."""
    error = JSONDecodeError(message, "", 0)
    error.pos = at
    return error


class Window:
    """The text around a read position, decoded a window at a time.

    Reading only goes forward, and what lies between two values (white space, ``,``
    ``:`` ``[`` ``{``) is ASCII, so a byte position past the last value read is the same
    character count further into the window.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.text = ""
        self.stop = 0  # byte offset just past the text
        self.byte = 0  # byte offset of text[self.char]
        self.char = 0
        self.ascii = True

    def value_at(self, at: int) -> tuple[Any, int]:
        """The JSON value starting at byte ``at`` and the byte offset just past it."""
        if not self.byte <= at < self.stop:
            self._decode(at, WINDOW)
        while True:
            char = self.char + (at - self.byte)
            try:
                value, end = _DECODER.raw_decode(self.text, char)
            except JSONDecodeError:
                if self.stop == len(self.data):
                    raise
            else:
                # a number may go on past the window: the value must end inside it
                if end < len(self.text) or self.stop == len(self.data):
                    self.char, self.byte = end, at + self._bytes(char, end)
                    return value, self.byte
            self._decode(at, self._grown(at))

    def _grown(self, at: int) -> int:
        """How much to decode from ``at`` for a value that goes on past the window.

        A value that had less than half a window straddled its end: a window from its start.
        One that had more is large, and each failed attempt parsed up to its window's end
        (doubling from a quarter MiB parsed a HAR's 2.8 MB ``log`` object five times, two
        thirds of its reading): the rest of the text when it is short
        (:data:`REST_AT_ONCE`), else four times what did not fit, so the attempts before
        the one that fits add up to a third of it."""
        tried = self.stop - at
        if tried < WINDOW // 2:
            return WINDOW
        rest = len(self.data) - at
        return rest if rest <= REST_AT_ONCE else 4 * tried

    def _decode(self, at: int, size: int) -> None:
        stop = min(len(self.data), at + size)
        while stop < len(self.data) and self.data[stop] & 0xC0 == 0x80:
            stop -= 1  # not in the middle of a character
        self.text = ""  # the previous window goes before the next one is made
        self.text = codecs.decode(memoryview(self.data)[at:stop], "utf-8", "surrogatepass")
        self.stop, self.byte, self.char = stop, at, 0
        self.ascii = self.text.isascii()

    def _bytes(self, start: int, end: int) -> int:
        if self.ascii:
            return end - start
        return len(self.text[start:end].encode("utf-8", "surrogatepass"))
