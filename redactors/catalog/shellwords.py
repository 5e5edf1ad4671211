"""The words of one command on a line, as the command-line rules need them.

Shell history, ``ps auxww`` listings, cron lines, systemd units and CI logs
hold commands whose arguments are secrets by position (``net user alice PW``,
``htpasswd -b file alice PW``) or by the flag before them. Those rules need
the same few facts: where a command's words begin and end (quotes kept
together, ``|``/``;``/``&``/redirections end the command), which word owns a
flag, and whether a value is a reference (``$PW``) rather than a secret. Not
a shell parser: a command the rules cannot read is left to the other rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..keys import is_placeholder
from ..rules import View

_WORD = re.compile(rb"(?:\"[^\"\n]*\"|'[^'\n]*'|[^ \t\r\n\0\"'|;&<>()`])+")
"""A word: quoted and unquoted pieces with no blank between them (``-p'a b'``). A NUL parts
words like a blank: ``/proc/<pid>/cmdline`` writes a command's arguments NUL-separated."""
BLANKS = b" \t\r\0"
"""What stands between the words of a command (NUL in ``/proc/<pid>/cmdline``)."""
_SEGMENT_STARTS = b"|;&(`\n"
"""What starts a command: a pipe, a list operator, a subshell, command substitution."""
COMMAND_LEFT = frozenset(b" \t\r\n/\\;|&(`'\"=")
"""What may stand right before a tool's name: a blank, its directory, an operator."""
_PROMPT = re.compile(rb"[^ \t]*[$#>%]")
"""A shell prompt before a command in a terminal log: ``$``, ``#``, ``alice@h:~$``, ``C:\\>``."""
COMMAND_MAX = 4096
"""How far a rule reads around its match for the command's words: a rule that read to the
line's ends would read a minified megabyte once per match on it."""
_SWITCH = re.compile(rb"/[A-Za-z?]{1,12}(?::.*)?")
"""A Windows switch (``/add``, ``/user:dom\\alice``), as opposed to a path (``/usr/bin/x``)."""


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a command: where it is as written, and its value without the quotes."""

    start: int
    end: int
    value_start: int
    value_end: int
    quote: bytes
    """``b'"'`` or ``b"'"`` when the whole word is one quoted string, else ``b""``."""

    def text(self, data: bytes) -> bytes:
        return data[self.start : self.end]

    def value(self, data: bytes) -> bytes:
        return data[self.value_start : self.value_end]


def line_end(view: View, pos: int, anchor: int) -> int | None:
    """The end of the command line holding ``pos`` (at most :data:`COMMAND_MAX` bytes on), or
    None when the view stops before it (then the stream is asked to keep the text from
    ``anchor`` for the next view)."""
    data = view.data
    end = data.find(b"\n", pos, pos + COMMAND_MAX)
    if end >= 0:
        return end
    if pos + COMMAND_MAX < len(data):
        return pos + COMMAND_MAX
    if not view.final:
        view.need_more_from(anchor)
        return None
    return len(data)


def command_words(view: View, match: re.Match[bytes]) -> list[Word] | None:
    """The words after a tool's name matched by ``match``, when the name stands where a
    command does (not ``myhtpasswd`` or ``internet use``); None also when the view stops
    before the command does."""
    if not command_at(view.data, match.start()):
        return None
    end = line_end(view, match.end(), match.start())
    if end is None:
        return None
    return list(words(view.data, match.end(), end))


def words(data: bytes, pos: int, end: int) -> Iterator[Word]:
    """The words from ``pos`` to the end of the command: an unquoted operator or ``end``."""
    while True:
        while pos < end and data[pos] in BLANKS:
            pos += 1
        found = _WORD.match(data, pos, end)
        if found is None:
            return
        start, stop = found.span()
        quote = data[start : start + 1]
        whole = quote in (b'"', b"'") and data.find(quote, start + 1, stop) == stop - 1
        if whole:
            yield Word(start, stop, start + 1, stop - 1, quote)
        else:
            yield Word(start, stop, start, stop, b"")
        pos = stop


def segment_start(data: bytes, pos: int) -> int:
    """Where the command holding ``pos`` begins on its line (after ``|``, ``;``, ``&&``...),
    at most :data:`COMMAND_MAX` bytes before it."""
    low = max(0, pos - COMMAND_MAX)
    return max(low, max(data.rfind(bytes([c]), low, pos) for c in _SEGMENT_STARTS) + 1)


def after_prompt(data: bytes, args: list[Word]) -> list[Word]:
    """A command's words without the shell prompt that may stand before them."""
    index = 0
    while index < len(args) and _PROMPT.fullmatch(data, args[index].start, args[index].end):
        index += 1
    return args[index:]


def name(data: bytes, word: Word) -> bytes:
    """A command word as a tool name: lower case, without its directory or ``.exe``."""
    return tool_name(word.value(data))


def tool_name(text: bytes) -> bytes:
    """:func:`name` of a word's text (an element of a command written as a list)."""
    text = text.lower()
    text = text[max(text.rfind(b"/"), text.rfind(b"\\")) + 1 :]
    return text[:-4] if text.endswith((b".exe", b".bat", b".cmd")) else text


def is_flag(data: bytes, word: Word) -> bool:
    """``-x``, ``--name``, ``/add``: an option rather than an argument (``-`` alone is stdin)."""
    return flag_text(word.text(data))


def flag_text(text: bytes) -> bool:
    """:func:`is_flag` of a word's text (an element of a command written as a list)."""
    if text.startswith(b"-"):
        return len(text) > 1
    return _SWITCH.fullmatch(text) is not None


def is_reference(value: bytes, quote: bytes) -> bool:
    """A value that names a secret instead of holding it: ``$PW``, ``${PW}``, ``$(cat f)``,
    ``%PW%``, ``<password>``, a mask; ``*`` and ``-`` (prompt, standard input). In single
    quotes a ``$`` is literal, so ``'$ecret1'`` is a password."""
    if value in (b"*", b"-") or is_placeholder(value):
        return True
    return quote != b"'" and value.startswith((b"$", b"`"))


def command_at(data: bytes, pos: int) -> bool:
    """Whether a tool's name starting at ``pos`` stands where a command word can."""
    return pos == 0 or data[pos - 1] in COMMAND_LEFT


def owner(data: bytes, before: list[Word]) -> int | None:
    """The index in ``before`` (the words of a command up to a flag) of the word the flag
    belongs to: the last one that is neither an option nor an option's value.

    Good enough to tell ``mkdir -p``, ``sudo -u x -p prompt`` and ``git log -p`` from
    ``app -u alice -p pw``, also after a ``ps`` listing's columns.
    """
    for index in range(len(before) - 1, -1, -1):
        if is_flag(data, before[index]):
            continue
        if (
            index > 0
            and is_flag(data, before[index - 1])
            and b"=" not in before[index - 1].text(data)
        ):
            continue  # the value of the option before it
        return index
    return None
