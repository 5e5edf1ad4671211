"""Files whose name says what they hold, whatever their content looks like.

Flux writes its worker bootstrap token alone in ``.flux/bootstrap-token`` (and an admin
key in ``.flux/admin-bootstrap-key``): no key name, no prefix, just 64 characters.
``.pgpass`` lines are ``host:port:db:user:password``, pgbouncer's ``userlist.txt`` lines
``"user" "password"``; Spark's ``spark-defaults.conf``, Java ``.properties`` and Fluent
Bit's and Fluentd's ``.conf`` may part a key from its value with blanks alone; a ``.csv``
or ``.tsv`` export says in its header which column holds a secret. A rule cannot recognise
these from the text, the file name can.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import PurePosixPath

from .keys import is_placeholder, secret_kind
from .rules import Hit, View
from .tokens import TOKEN_MARK, TOKEN_RE

_LINE = re.compile(rb"(?m)^[ \t]*([^\s#][^\r\n]*?)[ \t]*\r?$")
_BLANK_PAIR = re.compile(rb"(?m)^[ \t]*([A-Za-z0-9_.-]+)[ \t]+([^ \t\r\n=:#!][^\r\n]*?)[ \t]*\r?$")
_PGPASS = re.compile(rb"(?m)^(?:(?:[^:\r\n\\]|\\.)*:){4}([^\r\n]+?)\r?$")
_PGBOUNCER_USER = re.compile(rb'(?m)^[ \t]*"(?:[^"\r\n]|"")*"[ \t]+"((?:[^"\r\n]|"")*)"')

WHOLE_FILE_SECRETS = {
    "bootstrap-token": "bootstrap-token",
    "admin-bootstrap-key": "bootstrap-token",
    "join-token": "bootstrap-token",
    "enrollment-secret": "enrollment-secret",
    "api-key": "api-key",
}


def scanner_for(name: str) -> Callable[[View], Iterator[Hit]] | None:
    """The scanner a member of this name is read with beside the rules, or None. It reads a
    text whose redaction tokens are blanked out (:func:`_past_tokens`): a token's own colons
    and words are no fields of a ``.pgpass`` line or cells of a CSV row."""
    scanner = _scanner_for(name)
    return None if scanner is None else _past_tokens(scanner)


def _past_tokens(scanner: Callable[[View], Iterator[Hit]]) -> Callable[[View], Iterator[Hit]]:
    """``scanner`` run over the view with every redaction token turned into ``#`` of its
    length, so offsets stay. Without it, a ``.pgpass`` line whose user field the e-mail
    rule had redacted (``[REDACTED:email:…]`` adds two colons) read its password field
    from the wrong colon in ``bundler review``, which rejected the bundle ``bundler redact``
    had just written."""

    def scan(view: View) -> Iterator[Hit]:
        if TOKEN_MARK not in view.data:
            yield from scanner(view)
            return
        neutral = View(TOKEN_RE.sub(_blanked, view.data), final=view.final)
        yield from scanner(neutral)
        view.hold = min(view.hold, neutral.hold)

    return scan


def _blanked(token: re.Match[bytes]) -> bytes:
    return b"#" * (token.end() - token.start())


def _scanner_for(name: str) -> Callable[[View], Iterator[Hit]] | None:
    base = PurePosixPath(name).name.lower()
    if base in (".pgpass", "pgpass", "pgpass.conf"):
        return _pgpass
    if base == "userlist.txt":
        return _pgbouncer_users
    if base == "spark-defaults.conf" or base.endswith(".properties") or _fluent_config(base):
        return _blank_separated
    if base.endswith((".csv", ".tsv")):
        return _Columns(b"\t" if base.endswith(".tsv") else None)
    kind = WHOLE_FILE_SECRETS.get(base)
    if kind is None:
        return None

    def whole(view: View) -> Iterator[Hit]:
        for line in _LINE.finditer(view.data):
            yield Hit(line.start(1), line.end(1), kind, "secret-file")

    return whole


def _fluent_config(base: str) -> bool:
    """Fluent Bit's and Fluentd's configuration (``fluent-bit.conf``, ``td-agent.conf``):
    ``HTTP_Passwd VALUE``, ``shared_key VALUE`` in a section, key and value parted by blanks."""
    return base.endswith(".conf") and base.startswith(("fluent", "td-agent"))


def _blank_separated(view: View) -> Iterator[Hit]:
    """``spark.authenticate.secret VALUE``: Spark's ``spark-defaults.conf`` separates a key
    from its value by blanks, and so may a Java ``.properties`` file. The key rules need an
    ``=`` or ``:``; here a line whose first word names a secret gives the rest of the line
    (lines with ``=`` or ``:`` after the key are the key rules')."""
    for line in _BLANK_PAIR.finditer(view.data):
        kind = secret_kind(line.group(1).decode("latin-1"))
        if kind is not None and not is_placeholder(line.group(2)):
            yield Hit(line.start(2), line.end(2), kind, "secret-file")


class _Columns:
    """A CSV or TSV export: its header names each column, and every value of a column named
    for a secret (``password``, ``api_token``) goes, whatever it looks like (a user table's
    export, a credential inventory). One per member: it reads the header from the member's
    first line, then the rows of each view after it. A quoted cell may hold the delimiter;
    a cell that spans lines is not read past its first."""

    def __init__(self, delimiter: bytes | None) -> None:
        self.delimiter = delimiter
        self.header: bytes | None = None
        self.columns: list[tuple[int, str]] = []

    def __call__(self, view: View) -> Iterator[Hit]:
        data = view.data
        pos = 0
        if self.header is None:
            end = data.find(b"\n")
            if end < 0 and not view.final:
                view.need_more_from(0)
                return
            self.header = data[: len(data) if end < 0 else end].rstrip(b"\r")
            self.delimiter = self.delimiter or _delimiter(self.header)
            cells = [self.header[a:b] for a, b in _cells(self.header, self.delimiter)]
            for index, cell in enumerate(cells):
                kind = secret_kind(cell.strip().decode("latin-1"))
                if kind is not None:
                    self.columns.append((index, kind))
            pos = len(data) if end < 0 else end + 1
        if not self.columns:
            return
        assert self.delimiter is not None
        while pos < len(data):
            end = data.find(b"\n", pos)
            if end < 0 and not view.final:
                view.need_more_from(pos)
                return
            stop = len(data) if end < 0 else end
            line = data[pos:stop].rstrip(b"\r")
            if line != self.header:  # a view that starts over holds the header again
                spans = list(_cells(line, self.delimiter))
                for index, kind in self.columns:
                    if index < len(spans):
                        start, finish = spans[index]
                        value = line[start:finish]
                        if value.strip() and not is_placeholder(value):
                            yield Hit(pos + start, pos + finish, kind, "csv-column")
            pos = stop + 1


def _delimiter(header: bytes) -> bytes:
    """The header's delimiter: the most frequent of tab, comma, semicolon (a comma on a tie)."""
    return max((b",", b"\t", b";"), key=header.count)


def _cells(line: bytes, delimiter: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) of each cell's text in ``line``, a quoted cell without its quotes."""
    pos = 0
    size = len(line)
    while True:
        while pos < size and line[pos] in b" \t" and line[pos : pos + 1] != delimiter:
            pos += 1
        if pos < size and line[pos] == 0x22:  # '"'
            close = pos + 1
            while True:
                close = line.find(b'"', close)
                if close < 0 or line[close + 1 : close + 2] != b'"':
                    break
                close += 2
            if close < 0:
                yield pos + 1, size
                return
            yield pos + 1, close
            after = line.find(delimiter, close)
            if after < 0:
                return
            pos = after + 1
            continue
        after = line.find(delimiter, pos)
        end = size if after < 0 else after
        stripped = end
        while stripped > pos and line[stripped - 1] in b" \t":
            stripped -= 1
        yield pos, stripped
        if after < 0:
            return
        pos = after + 1


def _pgbouncer_users(view: View) -> Iterator[Hit]:
    """pgbouncer's ``userlist.txt``: ``"user" "password"`` a line, the password in clear, as an
    ``md5`` hash or a SCRAM verifier (each of which logs in as well as the password)."""
    for line in _PGBOUNCER_USER.finditer(view.data):
        if line.end(1) > line.start(1):
            yield Hit(line.start(1), line.end(1), "password", "pgbouncer-userlist")


def _pgpass(view: View) -> Iterator[Hit]:
    for line in _PGPASS.finditer(view.data):
        if not line.group().lstrip().startswith(b"#"):
            yield Hit(line.start(1), line.end(1), "password", "pgpass")
