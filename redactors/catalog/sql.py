"""Secrets in SQL: passwords in DDL, and credential columns in ``INSERT`` statements and dumps.

Support bundles carry SQL in database logs (``log_statement = all``), shell
history and SQLite/MySQL dumps. Three shapes hold secrets:

* DDL: ``CREATE USER u WITH PASSWORD 'x'``, ``ALTER ROLE u PASSWORD 'x'``,
  ``IDENTIFIED BY 'x'`` (also ``IDENTIFIED WITH plugin BY 'x'``),
  ``SET PASSWORD [FOR account] = [PASSWORD(]'x'``: the quoted literal after the word.
* ``INSERT INTO t (col, ...) VALUES (...), (...)``: the values of the columns
  whose names hold secrets (:func:`~redactors.keys.secret_kind`:
  ``password_hash``, ``api_token``, ``session_key``).
* ``INSERT INTO "t" VALUES(...)`` with no column list (``sqlite3 .dump``,
  ``mysqldump``): the columns come from the ``CREATE TABLE`` seen earlier in
  the same text; when it is not in view, values that look generated
  (:func:`~redactors.keys.generated_secret`, or 32+ hex digits in a table whose
  name says sessions/tokens/keys) are taken.

``UPDATE t SET password = 'x'`` needs nothing here: it is a ``key = value``
pair for :mod:`.keyvalue`. Both rules start with a literal (``identified``,
``password``, ``insert into`` in the lower-cased text).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

from ..keys import generated_secret, is_placeholder, secret_kind
from ..rules import ALNUM, Hit, Rule, View, holds_block, runs_past_view

STATEMENT_MAX = 1 << 20
SCHEMAS_MAX = 1024
_SQL_LITERAL = re.compile(rb"'((?:[^'\\]|''|\\.)*)'")
_HEX_SECRET = re.compile(rb"[0-9a-fA-F]{32,128}")
_SECRET_TABLE = re.compile(rb"session|token|secret|credential|password|passwd|auth|api_?key")
_CREATE = re.compile(
    rb"create[ \t]+table[ \t]+(?:if[ \t]+not[ \t]+exists[ \t]+)?[\"`\[]?([a-z0-9_.]+)[\"`\]]?"
    rb"[ \t]*\(",
)
_INSERT = re.compile(
    rb"insert[ \t]+(?:or[ \t]+[a-z]+[ \t]+)?into[ \t]+[\"`\[]?([a-z0-9_.]+)[\"`\]]?[ \t]*"
    rb"(?:\(([^()]{1,4096})\))?[ \t\r\n]*values[ \t\r\n]*",
)
_SCHEMAS: dict[bytes, tuple[str, ...]] = {}
"""Table -> column names, from ``CREATE TABLE`` statements seen in this process (a dump
declares its tables before it fills them)."""


_WORD_BYTES = ALNUM | frozenset(b"_$")


def _ddl_password(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """The quoted literal right after ``PASSWORD``/``IDENTIFIED ... BY``.

    The keyword must be a word of its own (not the tail of ``DB_PASSWORD``), and a quote
    glued to it closes a string that holds it: in ``define('DB_PASSWORD', 'x')`` the
    literal after ``PASSWORD'`` is ``, ``, and taking it left the password itself.
    """
    data = view.data
    start = match.start()
    text = match.group()
    string_prefix = text[-2:-1].lower() in (b"n", b"e") and text[-3:-2] in (b" ", b"\t", b"=", b"(")
    if start > 0 and data[start - 1] in _WORD_BYTES:
        return
    if text[-2:-1].isalpha() and not string_prefix:  # N'...', E'...': SQL Server's, PostgreSQL's
        return
    found = _SQL_LITERAL.match(data, match.end() - 1)
    if found is None:
        if not view.final and data.find(b"\n", match.end()) < 0:
            view.need_more_from(match.start())
        return
    value = found.group(1)
    if value and not is_placeholder(value):
        yield Hit(found.start(1), found.end(1), rule.kind, rule.id)


_ORACLE_VALUE = re.compile(rb'"([^"\r\n]{1,128})"|([^\s;"\'(),][^\s;"\'(),]{0,127})')
_ORACLE_NOT_A_PASSWORD = frozenset({b"values", b"externally", b"globally"})
_ORACLE_STATEMENT = re.compile(
    rb"(?:create|alter)[ \t]+(?:user|role|(?:public[ \t]+)?(?:shared[ \t]+)?database[ \t]+link)"
    rb"[ \t]|connect[ \t]+to[ \t]"
)
"""What an ``IDENTIFIED BY`` that sets a password stands in: a user's or role's DDL, or a
database link's ``CONNECT TO``."""


def _identified_by(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """Oracle's ``IDENTIFIED BY password`` takes the password unquoted or in double quotes
    (``ALTER USER etl IDENTIFIED BY Tiger9``, ``CREATE DATABASE LINK l CONNECT TO u
    IDENTIFIED BY "p w"``); MySQL's single-quoted form is ``sql-password``'s. A bind variable
    (``:pw``) or a SQL*Plus substitution (``&pw``) names the password instead."""
    data = view.data
    start = match.start()
    if start > 0 and data[start - 1] in _WORD_BYTES:
        return
    statement = max(data.rfind(b"\n", 0, start), data.rfind(b";", 0, start)) + 1
    if not _ORACLE_STATEMENT.search(view.low, max(statement, start - 512), start):
        return  # "identified by their e-mail": prose, not a statement that sets a password
    found = _ORACLE_VALUE.match(data, match.end())
    if found is None:
        return
    group = 1 if found.group(1) is not None else 2
    value = found.group(group)
    if group == 2 and value.lower() == b"values":  # IDENTIFIED BY VALUES 'S:…': the hashes
        pos = found.end()
        while pos < len(data) and data[pos] in b" \t":
            pos += 1
        hashed = _SQL_LITERAL.match(data, pos)
        if hashed is not None and hashed.group(1):
            yield Hit(hashed.start(1), hashed.end(1), "password-hash", rule.id)
        return
    if group == 2 and (value.lower() in _ORACLE_NOT_A_PASSWORD or value[:1] in b":&$"):
        return
    if runs_past_view(view, found.end(), start):
        return
    if not is_placeholder(value):
        yield Hit(found.start(group), found.end(group), rule.kind, rule.id)


def _columns(text: bytes) -> tuple[str, ...]:
    names = []
    for part in _split_top(text):
        words = part.strip().strip(b'"`[]').split()
        if words:
            names.append(words[0].strip(b'"`[]').decode("latin-1"))
    return tuple(names)


def _split_top(text: bytes) -> Iterator[bytes]:
    """Comma-separated parts at nesting depth 0 (``DECIMAL(10,2)`` stays one part)."""
    depth, start = 0, 0
    for index, char in enumerate(text):
        if char == 0x28:
            depth += 1
        elif char == 0x29:
            depth -= 1
        elif char == 0x2C and depth == 0:
            yield text[start:index]
            start = index + 1
    yield text[start:]


def _create_table(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """Remember a table's columns; redacts nothing itself."""
    found = _CREATE.match(view.low, match.start())
    if found is None:
        return ()
    depth, end = 1, found.end()
    limit = min(len(view.data), end + 65536)
    while end < limit and depth:
        depth += {0x28: 1, 0x29: -1}.get(view.data[end], 0)
        end += 1
    if depth == 0:
        columns = [
            c
            for c in _columns(view.data[found.end() : end - 1])
            if c.lower() not in ("primary", "unique", "foreign", "constraint", "check", "key")
        ]
        if len(_SCHEMAS) >= SCHEMAS_MAX:
            _SCHEMAS.pop(next(iter(_SCHEMAS)))
        _SCHEMAS[found.group(1)] = tuple(columns)
    return ()


def _values(data: bytes, pos: int, limit: int) -> Iterator[list[tuple[int, int, bool]]]:
    """Each ``( ... )`` tuple after VALUES: a list of (start, end, quoted) per value."""
    while pos < limit:
        while pos < limit and data[pos] in b" \t\r\n,":
            pos += 1
        if pos >= limit or data[pos] != 0x28:
            return
        pos += 1
        row: list[tuple[int, int, bool]] = []
        while pos < limit:
            while pos < limit and data[pos] in b" \t\r\n":
                pos += 1
            if pos < limit and data[pos] == 0x27:
                found = _SQL_LITERAL.match(data, pos)
                if found is None:
                    return
                row.append((found.start(1), found.end(1), True))
                pos = found.end()
            else:
                start = pos
                depth = 0
                while pos < limit and (data[pos] not in b",)" or depth):
                    depth += {0x28: 1, 0x29: -1}.get(data[pos], 0)
                    pos += 1
                row.append((start, pos, False))
            while pos < limit and data[pos] in b" \t\r\n":
                pos += 1
            if pos < limit and data[pos] == 0x2C:
                pos += 1
                continue
            if pos < limit and data[pos] == 0x29:
                pos += 1
                yield row
                break
            return


def _insert(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data, low = view.data, view.low
    found = _INSERT.match(low, match.start())
    if found is None:
        return
    limit = min(len(data), found.end() + STATEMENT_MAX)
    end = data.find(b";", found.end(), limit)
    if end < 0:
        if not view.final and limit == len(data):
            view.need_more_from(match.start())
            return
        end = limit
    table = found.group(1)
    listed = found.group(2)
    columns = _columns(data[found.start(2) : found.end(2)]) if listed else _SCHEMAS.get(table)
    kinds = _column_kinds(columns) if columns else None
    if kinds is not None and not any(kinds):
        return  # a known table without credential columns: nothing to take
    secretive = bool(_SECRET_TABLE.search(table))
    if kinds is None:
        # no column names in view: only values that look generated, found in C
        for literal in _SQL_LITERAL.finditer(data, found.end(), end + 1):
            value = literal.group(1)
            if (
                len(value) >= 20
                and not is_placeholder(value)
                and (generated_secret(value) or (secretive and _HEX_SECRET.fullmatch(value)))
            ):
                yield Hit(literal.start(1), literal.end(1), "sql-secret", rule.id)
        return
    for row in _values(data, found.end(), end + 1):
        for index, (start, stop, quoted) in enumerate(row):
            value = data[start:stop]
            if not value or value.upper() == b"NULL" or is_placeholder(value):
                continue
            kind = kinds[index] if index < len(kinds) else None
            if kind is not None and (quoted or not value.replace(b".", b"").isdigit()):
                yield Hit(start, stop, kind, rule.id)


@lru_cache(maxsize=256)
def _column_kinds(columns: tuple[str, ...]) -> tuple[str | None, ...]:
    """Each column's secret kind (None: not a credential), once per column list: a dump
    fills a table with thousands of single-row ``INSERT``s that name the same columns."""
    return tuple(secret_kind(column) for column in columns)


_COPY = re.compile(
    rb"copy[ \t]+(?:[a-z0-9_]+\.)?[\"]?([a-z0-9_]+)[\"]?[ \t]*\(([^()]{1,4096})\)[ \t]*"
    rb"from[ \t]+stdin[^\n]*\n"
)
COPY_MAX = 8 << 20


def _copy(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``pg_dump``'s ``COPY t (cols) FROM stdin;`` then tab-separated rows up to ``\\.``."""
    data, low = view.data, view.low
    found = _COPY.match(low, match.start())
    if found is None:
        return
    kinds = [secret_kind(c) for c in _columns(data[found.start(2) : found.end(2)])]
    if not any(kinds):
        return
    end = data.find(b"\n\\.", found.end() - 1, found.end() + COPY_MAX)
    if holds_block(view, match.start(), len(data) if end < 0 else end, COPY_MAX):
        return
    if end < 0:
        end = min(len(data), found.end() + COPY_MAX)
    pos = found.end()
    while pos < end:
        line_end = data.find(b"\n", pos, end)
        line_end = end if line_end < 0 else line_end
        cursor = pos
        for index, field in enumerate(data[pos:line_end].split(b"\t")):
            kind = kinds[index] if index < len(kinds) else None
            value = field.rstrip(b"\r")
            if kind and value and value != b"\\N" and not is_placeholder(value):
                yield Hit(cursor, cursor + len(value), kind, rule.id)
            cursor += len(field) + 1
        pos = line_end + 1


SQL_RULES: tuple[Rule, ...] = (
    Rule(
        "sql-password",
        "password",
        "sql",
        "SQL DDL passwords: PASSWORD '...', IDENTIFIED [WITH plugin] BY '...', PASSWORD('...'),"
        " MySQL's SET PASSWORD [FOR account] = '...'.",
        rb"(?:identified(?:[ \t]+with[ \t]+[a-z0-9_]+)?[ \t]+by"
        rb"|password(?:[ \t]+for[ \t]+[^=;\r\n]{1,256}(?==))?)"
        rb"[ \t]*(?:=[ \t]*(?:password[ \t]*)?)?\(?[ \t]*[ne]?'",
        lower=True,
        handler=_ddl_password,
        examples=(
            ("CREATE USER app WITH PASSWORD 'Tr0ub4dor&3';", "Tr0ub4dor&3"),
            ("ALTER ROLE flux PASSWORD 'flux-db-pw-99'", "flux-db-pw-99"),
            ("CREATE USER 'u'@'%' IDENTIFIED BY 's3cr3t!pw';", "s3cr3t!pw"),
            ("ALTER USER u IDENTIFIED WITH mysql_native_password BY 'n4tive'", "n4tive"),
            ("SET PASSWORD FOR 'u'@'h' = PASSWORD('old-style-pw')", "old-style-pw"),
            ("SET PASSWORD FOR 'root'@'localhost' = 'MyS3tPassw0rd';", "MyS3tPassw0rd"),
            ("SET PASSWORD FOR app@'%' = 'plainhorse'", "plainhorse"),
            ("ALTER LOGIN etl WITH PASSWORD = N'Uni-c0de-pw'", "Uni-c0de-pw"),
        ),
        decoys=(
            "ALTER ROLE app PASSWORD NULL",
            "-- password '' disables login",
            "define( 'DB_PASSWORD', getenv('X') );",
        ),
    ),
    Rule(
        "sql-identified-by",
        "password",
        "sql",
        "The unquoted or double-quoted password of Oracle's identified-by clause in a user's,"
        " role's or database link's DDL.",
        rb"identified[ \t]+by[ \t]+(?=[^ \t'])",
        lower=True,
        handler=_identified_by,
        examples=(
            ("ALTER USER etl IDENTIFIED BY Tiger9x;", "Tiger9x"),
            ('CREATE USER etl IDENTIFIED BY "p w 9" DEFAULT TABLESPACE users;', "p w 9"),
            ("CREATE DATABASE LINK l CONNECT TO bob IDENTIFIED BY Lnk-pw9 USING 'x';", "Lnk-pw9"),
            (
                "ALTER USER etl IDENTIFIED BY VALUES 'S:8F2D65FB5547B71C8DA3760F10960428CD307B1C'",
                "S:8F2D65FB5547B71C8DA3760F10960428CD307B1C",
            ),
        ),
        decoys=(
            "CREATE USER ops IDENTIFIED EXTERNALLY;",
            "ALTER USER etl IDENTIFIED BY :new_password;",
            "ALTER USER etl IDENTIFIED BY &pw",
            "the user is identified by their e-mail",
        ),
    ),
    Rule(
        "sql-create-table",
        "secret",
        "sql",
        "Learns a table's columns from CREATE TABLE (for INSERTs without a column list).",
        rb"create (?:temp |temporary )?table",
        lower=True,
        handler=_create_table,
        examples=(
            (
                "CREATE TABLE api_keys (id INTEGER, label TEXT, secret TEXT);\n"
                "INSERT INTO \"api_keys\" VALUES(1,'ci','k3y-material-01');",
                "k3y-material-01",
            ),
        ),
    ),
    Rule(
        "sql-insert",
        "secret",
        "sql",
        "INSERT values of credential-named columns (column list, or CREATE TABLE seen before).",
        rb"insert (?:or [a-z]+ )?into",
        lower=True,
        handler=_insert,
        examples=(
            (
                "INSERT INTO users (id, name, password_hash) VALUES (1, 'bob', '$2b$12$abcdefghij"
                "klmnopqrstuv');",
                "$2b$12$abcdefghijklmnopqrstuv",
            ),
            (
                "INSERT INTO sessions (user_id, session_token) VALUES (7, '9f86d081884c7d659a2feaa0"
                "c55ad015'), (8, 'a3f5c9e1b2d4f6a8c0e2d4b6f8a0c2e4');",
                "a3f5c9e1b2d4f6a8c0e2d4b6f8a0c2e4",
            ),
            (
                "INSERT INTO \"auth_tokens\" VALUES(3,'5f4dcc3b5aa765d61d8327deb882cf99a1b2c3d4');",
                "5f4dcc3b5aa765d61d8327deb882cf99a1b2c3d4",
            ),
        ),
        decoys=(
            "INSERT INTO jobs (id, name, state) VALUES (1, 'nightly-etl', 'running');",
            "INSERT INTO \"events\" VALUES(1,'9f86d081884c7d659a2feaa0c55ad015');",
        ),
    ),
    Rule(
        "sql-copy",
        "secret",
        "sql",
        "pg_dump COPY ... FROM stdin rows: the fields of credential-named columns.",
        rb"copy ",
        lower=True,
        handler=_copy,
        examples=(
            (
                "COPY public.users (id, login, password_hash) FROM stdin;\n"
                "1\talice\tpbkdf2_sha256$600000$Zq2Lm$Yy7Kx9\n\\.\n",
                "pbkdf2_sha256$600000$Zq2Lm$Yy7Kx9",
            ),
        ),
        decoys=("COPY public.jobs (id, name) FROM stdin;\n1\tnightly-etl\n\\.\n",),
    ),
)
