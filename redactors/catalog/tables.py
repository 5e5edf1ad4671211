"""Secrets in tables a tool printed: a header row, a rule of dashes under it, then rows.

Support tickets and bundles carry the output of database clients and secret stores pasted
into logs and notes, and none of it has a ``key: value`` the key rules read:

* ``psql`` (`` id | username | password`` over ``----+----------+---------``), the MySQL
  client's boxed tables (``+----+----------+``), Markdown tables (``|-----|-------|``);
* aligned columns under dashes: Oracle SQL*Plus and SQL Server ``sqlcmd`` query output
  (``USERNAME   PASSWORD`` over ``--------   --------``), HashiCorp Vault's CLI
  (``Key   Value`` over ``---   -----``: ``token   s.…`` after ``vault login``, the secret's
  fields after ``vault kv get``), PowerShell's ``Format-Table`` (``Name   Value``);
* ``psql``'s expanded display (``-[ RECORD 1 ]---+----`` then ``password | …`` lines).

Two readings, both from the header: every cell of a column named for a secret
(``password``, ``api_token``), and in a key/value table (a column headed ``Value``,
``Setting`` or ``Data`` after the key's), the value of each row whose key names a secret
(``password | …`` under ``name | setting``, MySQL's ``Variable_name | Value``). The rule
anchors on the dashes; everything else is checked in the handler, cheapest first, so a YAML
document's ``---`` or a PEM armour line costs one look at its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..keys import is_placeholder, secret_kind
from ..rules import Hit, Rule, View, holds_block

TABLE_MAX = 8 << 20
"""The most text one table is read over: beyond, the rows are read up to here (a dump's
table is read in full by its own rule: :mod:`.sql`)."""

_RULE_CHARS = b"-+|: \t\r"
_VALUE_HEADERS = frozenset({b"value", b"values", b"setting", b"data", b"val", b"current value"})
"""A column holding the value of the key in the column before it: Vault's ``Key  Value``,
PowerShell's ``Name  Value``, ``pg_settings``' ``name | setting``, MySQL's
``Variable_name | Value``."""
_EXPANDED = re.compile(rb"-\[ RECORD \d+ \]-*(?:\+-*)?\r?$")
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_VAULT_LEGACY = re.compile(rb"[sbr]\.[A-Za-z0-9]{24}")
"""Vault's tokens before 1.10 (service, batch, recovery): no prefix a pattern could trust
in any text, but a value of Vault's ``Key  Value`` table (``vault token lookup``'s ``id``)."""

Span = tuple[int, int]


def _line_end(data: bytes, pos: int) -> int:
    end = data.find(b"\n", pos)
    return len(data) if end < 0 else end


def _stripped(data: bytes, start: int, end: int) -> Span:
    while start < end and data[start] in b" \t\r":
        start += 1
    while end > start and data[end - 1] in b" \t\r":
        end -= 1
    return start, end


def _pipe_cells(data: bytes, start: int, end: int) -> list[Span]:
    """The cells of a ``|``-separated line (without the outer ``|`` of a Markdown or MySQL
    row), each without its padding."""
    start, end = _stripped(data, start, end)
    if start < end and data[start] == 0x7C:
        start += 1
    if end > start and data[end - 1] == 0x7C:
        end -= 1
    cells = []
    pos = start
    while True:
        bar = data.find(b"|", pos, end)
        stop = end if bar < 0 else bar
        cells.append(_stripped(data, pos, stop))
        if bar < 0:
            return cells
        pos = bar + 1


def _rule_cells(data: bytes, start: int, end: int) -> int:
    """How many columns a ``+`` or ``|`` rule line draws (``----+----``, ``|---|---|``)."""
    start, end = _stripped(data, start, end)
    line = data[start:end].strip(b"+|")
    return line.count(b"+") + line.count(b"|") + 1


def _dash_runs(data: bytes, start: int, end: int) -> list[Span]:
    runs = []
    pos = start
    while pos < end:
        first = data.find(b"-", pos, end)
        if first < 0:
            break
        last = first
        while last < end and data[last] == 0x2D:
            last += 1
        runs.append((first, last))
        pos = last
    return runs


class _Table:
    """What the header says: the columns a secret is in, and how to cut a row into cells."""

    def __init__(self, width: int, columns: list[Span] | None = None) -> None:
        self.width = width
        """How many columns the header names."""
        self.columns = columns
        """Aligned tables: each column's span, relative to the line's start (None: piped)."""
        self.secret_columns: list[tuple[int, str]] = []
        self.value_columns: list[int] = []

    @property
    def piped(self) -> bool:
        return self.columns is None

    def read(self, header: list[bytes]) -> None:
        for index, cell in enumerate(header):
            kind = secret_kind(cell.decode("latin-1"))
            if kind is not None:
                self.secret_columns.append((index, kind))
            elif index > 0 and cell.lower() in _VALUE_HEADERS:
                self.value_columns.append(index)

    @property
    def useful(self) -> bool:
        return bool(self.secret_columns or self.value_columns)

    def cells(self, data: bytes, start: int, end: int) -> tuple[list[Span], int]:
        """The row's cells, and how many more ``|`` it holds than the header (a value holding
        one: :func:`_value` widens a cell over them)."""
        if self.columns is None:
            cells = _pipe_cells(data, start, end)
            return cells, max(0, len(cells) - self.width)
        spans = []
        for index, (begin, stop) in enumerate(self.columns):
            cell_start = start + begin
            if cell_start >= end:
                break
            cell_end = end if index == len(self.columns) - 1 else min(end, start + stop)
            cell_start = _widened_back(data, start, cell_start)
            cell_end = _widened_on(data, cell_end, end)
            spans.append(_stripped(data, cell_start, cell_end))
        return spans, 0


def _value(cells: list[Span], index: int, extra: int) -> Span:
    """Cell ``index``, over the ``extra`` cells after it when the row has more than the
    header: the ``|`` is taken to be in the secret's value (which may take a neighbour
    along, never less than the value)."""
    return cells[index][0], cells[min(index + extra, len(cells) - 1)][1]


def _widened_back(data: bytes, line_start: int, pos: int) -> int:
    """A cell that overflowed into its column from the left (a longer value, a redaction
    token in a cell before it) starts after the last gap of two blanks before ``pos``."""
    if pos <= line_start or data[pos - 1] in b" \t" or data[pos] in b" \t":
        return pos
    gap = data.rfind(b"  ", line_start, pos)
    return line_start if gap < 0 else gap + 2


def _widened_on(data: bytes, pos: int, line_end: int) -> int:
    """A cell that runs on past its column's end ends at the next gap of two blanks."""
    if pos >= line_end or data[pos - 1] in b" \t" or data[pos] in b" \t":
        return pos
    gap = data.find(b"  ", pos, line_end)
    return line_end if gap < 0 else gap


def _header(data: bytes, rule_start: int, rule_end: int) -> tuple[_Table, int] | None:
    """The table a rule line at ``rule_start`` closes the header of, and the header's start;
    None when the line before is no header for it."""
    if rule_start < 2:
        return None
    header_end = rule_start - 1
    if data[header_end - 1 : header_end] == b"\r":
        header_end -= 1
    header_start = data.rfind(b"\n", max(0, rule_start - 4097), header_end) + 1
    if header_start == 0 and rule_start > 4097:
        return None
    if not data[header_start:header_end].strip():
        return None
    rule = data[rule_start:rule_end]
    if b"|" in rule or b"+" in rule:
        if b"|" not in data[header_start:header_end]:
            return None
        header = _pipe_cells(data, header_start, header_end)
        if len(header) != _rule_cells(data, rule_start, rule_end):
            return None
        table = _Table(len(header))
        table.read([data[a:b] for a, b in header])
        return table, header_start
    runs = _dash_runs(data, rule_start, rule_end)
    width = header_end - header_start
    columns = []
    for index, (first, last) in enumerate(runs):
        begin = first - rule_start
        stop = runs[index + 1][0] - rule_start if index + 1 < len(runs) else width
        columns.append((begin, stop))
        gap = data[header_start + last - rule_start : header_start + stop]
        if index + 1 < len(runs) and gap[-1:].strip():
            return None  # a header word across a gap between two rules: no column layout
    cells = [data[header_start + a : header_start + b].strip() for a, b in columns]
    if len(columns) == 1 and not _IDENTIFIER.fullmatch(cells[0]):
        return None  # one column: a column's name (a setext heading, a YAML '---' are not)
    table = _Table(len(columns), columns)
    table.read(cells)
    return table, header_start


def _rows(data: bytes, table: _Table, pos: int, limit: int) -> tuple[list[Span], int]:
    """The rows after the rule line, as (start, end) of each line, and where the table
    stops (the line that ends it, or the text's end: more rows may follow)."""
    rows: list[Span] = []
    single = not table.piped and table.width == 1
    while pos < min(len(data), limit):
        end = _line_end(data, pos)
        line = data[pos:end].rstrip(b"\r")
        if not line.strip():
            return rows, pos
        if table.piped:
            if b"|" not in line or not line.strip().translate(None, _RULE_CHARS):
                return rows, pos  # a line of no cells, or the border closing a boxed table
        elif single and b" " in line.strip():
            return rows, pos  # one column's cells are single words: prose after a heading
        rows.append((pos, pos + len(line)))
        pos = end + 1
    return rows, len(data)


def _table(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    rule_start = data.rfind(b"\n", max(0, match.start() - 4096), match.start()) + 1
    before = data[rule_start : match.start()]
    if b"-" in before:
        if not before.startswith(b"-[ RECORD "):
            return  # a later run of the same rule line: the first one read the table
        yield from _expanded(view, match, rule, rule_start)
        return
    rule_end = _line_end(data, match.end())
    if data[rule_start:rule_end].translate(None, _RULE_CHARS):
        return  # not a rule line: a PEM armour, a YAML document's '---' after text, prose
    found = _header(data, rule_start, rule_end)
    if found is None:
        return
    table, header_start = found
    if not table.useful:
        return
    rows, stop = _rows(data, table, rule_end + 1, header_start + TABLE_MAX)
    if holds_block(view, header_start, stop, TABLE_MAX):
        return
    for start, end in rows:
        yield from _row_hits(data, table, start, end, rule)


def _row_hits(data: bytes, table: _Table, start: int, end: int, rule: Rule) -> Iterator[Hit]:
    cells, extra = table.cells(data, start, end)
    found: list[tuple[Span, str]] = [
        (_value(cells, index, extra), kind)
        for index, kind in table.secret_columns
        if index < len(cells)
    ]
    for index in table.value_columns:
        if index >= len(cells):
            continue
        key = data[cells[index - 1][0] : cells[index - 1][1]]
        value = _value(cells, index, extra)
        kind = secret_kind(key.decode("latin-1")) if key else None
        if kind is None and _VAULT_LEGACY.fullmatch(data, *value):
            kind = "vault-token"
        if kind is not None:
            found.append((value, kind))
    for span, kind in found:
        hit = _value_hit(data, span, kind, rule)
        if hit is not None:
            yield hit


def _expanded(view: View, match: re.Match[bytes], rule: Rule, line_start: int) -> Iterable[Hit]:
    """``psql``'s expanded display (``\\x``): a ``-[ RECORD n ]---+---`` line, then one
    ``column | value`` line per column, up to a blank line or the next record."""
    data = view.data
    line_end = _line_end(data, match.end())
    if not _EXPANDED.match(data, line_start, line_end):
        return
    hits = []
    pos = line_end + 1
    while pos < min(len(data), line_start + TABLE_MAX):
        end = _line_end(data, pos)
        line = data[pos:end]
        if not line.strip() or line.startswith(b"-[ RECORD ") or b"|" not in line:
            break
        bar = line.find(b"|")
        key = line[:bar].strip()
        kind = secret_kind(key.decode("latin-1")) if key else None
        if kind is not None:
            hit = _value_hit(data, _stripped(data, pos + bar + 1, end), kind, rule)
            if hit is not None:
                hits.append(hit)
        pos = end + 1
    else:
        pos = len(data)
    if holds_block(view, line_start, pos, TABLE_MAX):
        return
    yield from hits


def _value_hit(data: bytes, span: Span, kind: str, rule: Rule) -> Hit | None:
    start, end = span
    value = data[start:end]
    if not value or value in (b"NULL", b"null", b"<null>", b"(null)", b"\\N"):
        return None
    if is_placeholder(value):
        return None
    return Hit(start, end, kind, rule.id)


TABLE_COLUMNS = Rule(
    "table-columns",
    "secret",
    "key-value",
    "Tables a tool printed with a rule of dashes under the header (psql, the MySQL client,"
    " Markdown, SQL*Plus, sqlcmd, Vault's CLI, PowerShell's Format-Table, psql's expanded"
    " records): every cell of a column named for a secret, and in a key/value table the"
    " value of each row whose key names one.",
    rb"----*+",  # a run of dashes, whole: one call a run, anchored on "---"
    handler=_table,
    examples=(
        (
            " id | username |  password\n----+----------+-----------\n"
            "  1 | alice    | Tr0ub4dor&3\n(1 row)\n",
            "Tr0ub4dor&3",
        ),
        (
            "+----+--------------+\n| id | api_key      |\n+----+--------------+\n"
            "|  1 | zq8Rk2mN5pW7 |\n+----+--------------+\n",
            "zq8Rk2mN5pW7",
        ),
        ("| Key | Value |\n|-----|-------|\n| password | Sup3r S3cret |\n", "Sup3r S3cret"),
        ("Key         Value\n---         -----\npassword    hunter2 horse\n", "hunter2 horse"),
        (
            "Key                Value\n---                -----\ntoken              "
            "s.Hq7xZk2Lm9PqR4tV8wYb3NcD\ntoken_duration     768h\n",
            "s.Hq7xZk2Lm9PqR4tV8wYb3NcD",
        ),
        (
            "USERNAME   PASSWORD     CREATED\n---------- ------------ ----------\n"
            "SCOTT      tiger-9x     2024-01-01\n",
            "tiger-9x",
        ),
        ("-[ RECORD 1 ]-----\nid       | 1\npassword | pg-s3cret-9\n", "pg-s3cret-9"),
        (
            "     name      |   setting\n---------------+-------------\n"
            " ssl_passphrase | Pg-pass-77\n port          | 5432\n",
            "Pg-pass-77",
        ),
    ),
    decoys=(
        " id | username\n----+---------\n  1 | alice\n",
        "  Column  | Type\n----------+------\n password | text\n",
        "Password\n--------\nThe password must be rotated every 90 days.\n",
        "secretName: etl-db\n---\napiVersion: v1\n",
        "| Key | Value |\n|-----|-------|\n| host | db.internal |\n",
        "-----BEGIN CERTIFICATE-----\n",
        "Key         Value\n---         -----\ntoken_ttl   768h\n",
    ),
)
