"""Find the extent of a value that follows ``key<sep>`` in text, whatever its shape.

Human passwords have spaces, quotes, symbols and low entropy, so the value is
found by syntax, never by what it looks like: a quoted string (also with
JSON-escaped quotes ``\\"`` at any depth, or ``&quot;``), a braced ODBC value
(``{a}}b}``), an unquoted run up to a delimiter, or, when the key ends its
line (``password: |``, ``secret_key = (``, ``export TOKEN=\\``), the
indented or continued lines below it. A terminal escape around a value (colour, bold,
reset: ``password=\\x1b[31mhunter2\\x1b[0m``) is how it was shown, not part of it: the value
starts after one and an unquoted value ends at one, so the escapes stay as evidence and the
value alone is replaced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .tokens import TOKEN_RE

UNQUOTED_END = frozenset(b" \t\r\n\0\x1b,;&\"'<>`|]}")
TERMINAL_ESCAPE = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
"""An ANSI control sequence (``\\x1b[1;31m``, ``\\x1b[0m``): how a terminal shows the text."""
_ESCAPES_AND_BLANKS = re.compile(rb"(?:\x1b\[[0-9;?]*[A-Za-z][ \t]*)+")
AUTH_SCHEMES = (
    b"bearer",
    b"basic",
    b"token",
    b"digest",
    b"negotiate",
    b"ntlm",
    b"apikey",
    b"splunk",  # Splunk's HTTP Event Collector: Authorization: Splunk <token>
    b"geniekey",  # Opsgenie
    b"ssws",  # Okta's API tokens
    b"bot",  # Discord bots
    b"oauth",
    b"sharedaccesssignature",  # Azure Service Bus and Event Hubs
    b"zoho-oauthtoken",
)
MAX_VALUE = 8192
HASH_SCHEMES: tuple[bytes, ...] = (
    *(
        b"%s%s" % (s, n)
        for s in (b"sha", b"ssha")
        for n in (b"", b"1", b"224", b"256", b"384", b"512")
    ),
    *(b"%s-crypt" % h for h in (b"md5", b"sha256", b"sha512", b"blf", b"des")),
    *(b"crypt-%s" % h for h in (b"md5", b"sha256", b"sha512")),  # 389 Directory Server
    *(
        b"%spbkdf2%s" % (x, h)
        for x in (b"", b"x-")
        for h in (b"", b"-sha1", b"-sha256", b"-sha512")
    ),
    *(b"pbkdf2_sha%s" % n for n in (b"1", b"256", b"512")),  # 389 Directory Server
    *(b"md5", b"smd5", b"crypt", b"argon2", b"argon2i", b"argon2id", b"bcrypt", b"nt", b"lanman"),
    *(b"cleartext", b"plain", b"plain-md5", b"scram-sha-1", b"scram-sha-256"),
)
"""The password schemes LDAP and Dovecot write in braces before a hash (``{SSHA}``,
``{SHA512-CRYPT}``) or a password in clear (``{PLAIN}``, ``{CLEARTEXT}``), lower-cased and
spelt out, so a rule on them is anchored on each (``{ssha``), not on ``{`` alone."""
CLEAR_SCHEMES = frozenset({b"cleartext", b"plain"})
"""The schemes followed by the password itself."""
_HASH_SCHEME = re.compile(rb"\{(?:%s)\}" % b"|".join(HASH_SCHEMES), re.IGNORECASE)
"""A password hash's scheme in LDAP and Dovecot (``userPassword: {SSHA}…``, ``{CRYPT}$6$…``,
``{CLEARTEXT}…``): the scheme stays as evidence, what follows it is the credential (a
``{`` otherwise opens an ODBC braced value, which took ``{SSHA}`` alone as the value)."""
_ID_PIPE_SECRET = re.compile(rb"\|[A-Za-z0-9_-]{16,512}")
"""The secret after a numeric id and a ``|``: Facebook's app and client access tokens are
``APP_ID|APP_SECRET`` (``access_token=1234…|9f8e…`` in a Graph API call). Only after a
key's digits: a ``|`` ends any other unquoted value (a table's cell, a shell pipe)."""
BLOCK_MARKERS = frozenset({b"", b"|", b"|-", b"|+", b">", b">-", b">+", b"(", b"\\"})


@dataclass(frozen=True)
class ValueSpan:
    start: int
    end: int


class NeedMore(Exception):
    """The value may continue past the end of the text seen so far."""


def value_spans(
    data: bytes, pos: int, *, final: bool, allow_next_line: bool = True
) -> list[ValueSpan]:
    """Spans of the value starting at ``pos`` (just after the separator).

    Raises :class:`NeedMore` when the value reaches the end of ``data`` and
    more text may follow (the caller keeps that text for the next round).
    """
    n = len(data)
    while pos < n and data[pos] in b" \t":
        pos += 1
    if pos >= n:
        if not final:
            raise NeedMore
        return []
    line_end = data.find(b"\n", pos)
    if line_end < 0:
        line_end = n
    escapes = _ESCAPES_AND_BLANKS.match(data, pos, line_end)
    if escapes is not None:  # password: \x1b[31mhunter2: the value is after the colour
        pos = escapes.end()
    rest = data[pos:line_end].rstrip(b"\r").rstrip()
    if allow_next_line and rest in BLOCK_MARKERS:
        return _next_lines(data, pos, line_end, rest, final=final)
    span = _one_value(data, pos, line_end, final=final)
    return [span] if span is not None else []


_NEXT_PARAMETER = re.compile(rb"&(?:[A-Za-z0-9_.\[\]-]*=|[A-Za-z]+;|#|$|[ \t])")
"""After ``password=``, an ``&`` that starts the next query parameter (``&next=1``), an
entity (``&amp;``) or nothing: the value is empty."""
YAML_PROPERTY = rb"(?:![!A-Za-z0-9_./:%-]*|&[A-Za-z0-9_.-]+)"
"""A YAML tag (``!!binary``, ``!vault``) or anchor (``&pw``): it stands before a value and
is not part of it."""
_YAML_PROPERTIES = re.compile(YAML_PROPERTY + rb"[ \t]+(?=[^ \t\r\n#])")


_YAML_ALIAS = re.compile(rb"\*([A-Za-z0-9_.-]+)[ \t]*(?:[,}\]\r]|#|$)", re.MULTILINE)
_ANCHOR_END = frozenset(b" \t\r\n")


def _yaml_alias(data: bytes, pos: int, line_end: int) -> bool:
    """Whether the value at ``pos`` is a YAML alias (``password: *pw``) of an anchor
    (``&pw``) set earlier in the text: it refers to a value, as a variable does, and
    replacing it broke the document and hid nothing (the structure walk resolves the alias
    and the anchored value is replaced where it stands). A ``*`` that starts a word with no
    such anchor before it is a password's first character (``password = *Secret1``)."""
    alias = _YAML_ALIAS.match(data, pos, line_end)
    if alias is None:
        return False
    anchor = b"&" + alias.group(1)
    at = data.rfind(anchor, 0, pos)
    while at >= 0:
        after = at + len(anchor)
        if after == len(data) or data[after] in _ANCHOR_END:
            return True
        at = data.rfind(anchor, 0, at)
    return False


_STRING_PREFIX = re.compile(rb"(?:[bB][rR]?|[rR][bB]?|[uU]|[nN](?=')|[eE](?='))(?=[\"'])")
"""Python's string prefixes (``b'...'``, ``rb"..."``, ``u'...'``: a repr of a ``bytes``
value, ``{'password': b'hunter2'}``, quotes the value after one), SQL Server's ``N'...'``
and PostgreSQL's ``E'...'``."""


def _one_value(data: bytes, pos: int, line_end: int, *, final: bool) -> ValueSpan | None:
    if pos >= line_end:  # "Authorization: Bearer " and nothing after the scheme
        if pos >= len(data) and not final:
            raise NeedMore
        return None
    properties = _YAML_PROPERTIES.match(data, pos, line_end)
    if properties is not None:  # password: !!binary aHVudGVy / password: &pw hunter2
        return _one_value(data, properties.end(), line_end, final=final)
    prefix = _STRING_PREFIX.match(data, pos, line_end)
    if prefix is not None:  # {'password': b'hunter2'}: the quoted bytes, not the b
        return _one_value(data, prefix.end(), line_end, final=final)
    scheme = _HASH_SCHEME.match(data, pos, line_end)
    if scheme is not None and scheme.end() < line_end and data[scheme.end()] not in b" \t\r\n":
        return _one_value(data, scheme.end(), line_end, final=final)  # {SSHA}hash: the hash
    char = data[pos]
    if char == 0x2A and _yaml_alias(data, pos, line_end):
        return None  # password: *pw: structure; the anchored value is the secret
    if data.startswith((b'"""', b"'''"), pos):  # Grafana's ini, Python: quoted thrice
        return _quoted_thrice(data, pos, line_end, final=final)
    if char in b"\"'" or (char == 0x5C and _escaped_quote_at(data, pos)):
        return _uncoloured(data, _quoted(data, pos, line_end, final=final))
    if data.startswith(b"<![CDATA[", pos):  # <password><![CDATA[p]]></password>
        close = data.find(b"]]>", pos + 9, pos + 9 + MAX_VALUE)
        if close < 0:
            return _need_or(final, ValueSpan(pos + 9, line_end))
        return ValueSpan(pos + 9, close) if close > pos + 9 else None
    if data.startswith(b"&quot;", pos):
        close = data.find(b"&quot;", pos + 6, pos + 6 + MAX_VALUE)
        if close < 0:
            return _need_or(final, ValueSpan(pos + 6, line_end))
        return ValueSpan(pos + 6, close)
    if data.startswith((b"${", b"{{"), pos):  # a template reference, kept whole
        close = data.find(b"}}" if char == 0x7B else b"}", pos, line_end)
        if close > 0:
            return ValueSpan(pos, close + (2 if char == 0x7B else 1))
    if char == 0x7B:  # "{": ODBC braces, or a nested object (no value)
        return _braced(data, pos, line_end)
    if char == 0x5B and not data.startswith(b"[REDACTED:", pos):  # a list, or [bracketed]
        return _bracketed(data, pos, line_end)
    end = pos
    limit = min(line_end, pos + MAX_VALUE)
    if char == 0x26 and not _NEXT_PARAMETER.match(data, pos, limit):
        end += 1  # PASSWORD=&x9...: the value's own first byte, not "&next=" of a query
    while end < limit and data[end] not in UNQUOTED_END:
        if data[end] == 0x5C and end + 1 < limit and data[end + 1] in b"\"'":
            break
        if data[end] == 0x5B and (token := TOKEN_RE.match(data, end, limit)) is not None:
            end = token.end()  # a token is one piece of the value: its "]" does not end it
            continue
        end += 1
    if end < limit and data[end] == 0x7C and data[pos:end].isdigit() and end - pos >= 5:
        joined = _ID_PIPE_SECRET.match(data, end, limit)
        if joined is not None and (joined.end() == limit or data[joined.end()] in UNQUOTED_END):
            end = joined.end()  # APP_ID|APP_SECRET: one credential
    if end == limit and limit == len(data) and not final:
        raise NeedMore
    word = data[pos:end]
    if word.lower() in AUTH_SCHEMES and end < line_end and data[end] == 0x20:
        after = end + 1
        while after < line_end and data[after] in b" \t":
            after += 1  # "Basic   dXNlcjpwdw==": the credential after the blanks
        return _one_value(data, after, line_end, final=final)
    return ValueSpan(pos, end) if end > pos else None


def without_trailing_escapes(data: bytes, start: int, end: int, *, blanks: bool = True) -> int:
    """Where ``data[start:end]`` ends without the terminal escapes that close it, and the
    ``blanks`` before each (``correct horse\\x1b[0m``: the reset is how the value was shown,
    not part of it; a quoted value keeps its blanks, they are inside the quotes)."""
    if data.find(b"\x1b", start, end) < 0:
        return end
    while (close := data.rfind(b"\x1b[", start, end)) >= 0:
        trail = TERMINAL_ESCAPE.match(data, close, end)
        if trail is None or trail.end() != end:
            break
        end = close
        while blanks and end > start and data[end - 1] in b" \t":
            end -= 1
    return end


def _uncoloured(data: bytes, span: ValueSpan | None) -> ValueSpan | None:
    """A quoted value without the terminal escapes at its ends (``"\\x1b[31mhunter2\\x1b[0m"``);
    one that holds nothing else has no value."""
    if span is None or data.find(b"\x1b", span.start, span.end) < 0:
        return span
    start = span.start
    while (lead := TERMINAL_ESCAPE.match(data, start, span.end)) is not None:
        start = lead.end()
    end = without_trailing_escapes(data, start, span.end, blanks=False)
    return ValueSpan(start, end) if end > start else None


def _escaped_quote_at(data: bytes, pos: int) -> bool:
    end = pos
    while end < len(data) and data[end] == 0x5C:
        end += 1
    return end < len(data) and data[end] in b"\"'"


def _quoted_thrice(data: bytes, pos: int, line_end: int, *, final: bool) -> ValueSpan | None:
    """A value between three quotes on each side, Grafana's way to quote one holding ``#``
    or ``;`` (and Python's): read as one quote, the value was the empty string between the
    first two, and the password after them stayed."""
    triple = data[pos : pos + 3]
    start = pos + 3
    limit = min(len(data), start + MAX_VALUE)
    close = data.find(triple, start, limit)
    if close < 0:
        if not final and limit == len(data):
            raise NeedMore
        return ValueSpan(start, min(line_end, limit)) if line_end > start else None
    return ValueSpan(start, close) if close > start else None


def _quoted(data: bytes, pos: int, line_end: int, *, final: bool) -> ValueSpan | None:
    slashes = 0
    while data[pos + slashes] == 0x5C:
        slashes += 1
    quote = data[pos + slashes]
    opener = data[pos : pos + slashes + 1]
    start = pos + slashes + 1
    search = start
    limit = min(len(data), start + MAX_VALUE)
    while True:
        close = data.find(opener, search, limit)
        if close < 0:
            if not final and limit == len(data):
                raise NeedMore
            return ValueSpan(start, min(line_end, limit)) if line_end > start else None
        # An escaped quote inside the value has more backslashes than the opener.
        before = close
        while before > start and data[before - 1] == 0x5C:
            before -= 1
        if slashes == 0 and (close - before) % 2 == 1 and quote == 0x22:
            search = close + 1
            continue
        if slashes and close - before > 0:
            search = close + len(opener)
            continue
        inner = ValueSpan(start, close)
        if slashes == 0 and data[start:close].lower().startswith(AUTH_SCHEMES):
            space = data.find(b" ", start, close)
            if space > 0 and data[start:space].lower() in AUTH_SCHEMES:
                return ValueSpan(space + 1, close)
        return inner


def _bracketed(data: bytes, pos: int, line_end: int) -> ValueSpan | None:
    """``[...]`` of scalars closed on its line is the value, brackets and all (a JSON or YAML
    list of secrets, a bracketed password). ``[]``, a list of objects or lists, or one
    closed on a later line is none: what it holds is the structure walk's to judge (Ceph's
    ``"auth_dump": [{"entity": "osd.0", "key": ...}]`` keeps its entities). Taking the
    ``[`` alone made ``"password": [`` and ``password: []`` lose their opener and stop
    parsing."""
    close = data.find(b"]", pos + 1, line_end)
    if close < 0:
        return None
    inner = data[pos + 1 : close]
    if not inner.strip(b" \t") or b"[" in inner or b"{" in inner:
        return None
    return ValueSpan(pos, close + 1)


def _braced(data: bytes, pos: int, line_end: int) -> ValueSpan | None:
    end = pos + 1
    while end < line_end:
        if data[end] == 0x5B and (token := TOKEN_RE.match(data, end, line_end)) is not None:
            end = token.end()  # its ":" is no nested object's
            continue
        if data[end] == 0x7D:
            if end + 1 < line_end and data[end + 1] == 0x7D:
                end += 2
                continue
            break
        if data[end] in b'":\n':
            return None  # a nested object, not an ODBC value
        end += 1
    if end >= line_end:
        return None
    return ValueSpan(pos + 1, end) if end > pos + 1 else None


def _need_or(final: bool, span: ValueSpan) -> ValueSpan:
    if not final:
        raise NeedMore
    return span


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


def _next_lines(
    data: bytes, pos: int, line_end: int, marker: bytes, *, final: bool
) -> list[ValueSpan]:
    """Values on the following lines: YAML block scalars, ``(`` and ``\\`` continuations."""
    line_start = data.rfind(b"\n", 0, pos) + 1
    key_indent = _indent(data[line_start:pos])
    spans: list[ValueSpan] = []
    cursor = line_end + 1
    block = marker[:1] in (b"|", b">")
    while True:
        if cursor >= len(data):
            if not final:
                raise NeedMore
            return spans
        nl = data.find(b"\n", cursor)
        if nl < 0:
            if not final:
                raise NeedMore
            nl = len(data)
        line = data[cursor:nl].rstrip(b"\r")
        stripped = line.strip()
        if not stripped:
            if spans and not block:
                return spans
            cursor = nl + 1
            continue
        indent = _indent(line)
        if marker == b"" and not spans and indent <= key_indent:
            split = _continued_record(data[line_start:line_end], line)
            if split is not None:
                return [
                    s
                    for s in [_one_value(data, cursor + split, cursor + len(line), final=True)]
                    if s
                ]
        if block or marker == b"":
            if indent <= key_indent and not (marker == b"" and not spans and indent > 0):
                return spans
            if marker == b"" and spans:
                return spans  # plain "key:" then one value line
            if marker == b"" and stripped[:1] in b"-{[" and not stripped.startswith(b"-----"):
                return spans  # a YAML list or mapping follows: not a scalar
            if marker == b"" and b": " in stripped and not stripped.startswith(b"-----"):
                return spans
            first = cursor + indent
            span = _one_value(data, first, cursor + len(line), final=True) if not block else None
            spans.append(span or ValueSpan(first, cursor + len(line.rstrip())))
            if marker == b"":
                return spans
        else:  # "(" or "\" or "[" or "{": the next non-empty line holds the value
            first = cursor + indent
            if stripped in (b")", b"]", b"}"):
                return spans
            span = _one_value(data, first, cursor + len(line), final=True)
            if span is not None:
                spans.append(span)
            return spans
        cursor = nl + 1
        if len(spans) > 200:
            return spans


_DIGITS = bytes.maketrans(b"0123456789", b"0000000000")


def _continued_record(key_line: bytes, next_line: bytes) -> int | None:
    """Offset of the payload in ``next_line`` when it continues ``key_line``'s log record.

    journald and syslog split long records at a size limit, so ``password=``
    can end one record and its value start the next; both carry the same
    prefix (``Nov 29 12:00:01 host app[12]: ``), up to digits.
    """
    for sep in (b"]: ", b": "):
        a = key_line.find(sep, 0, 120)
        b = next_line.find(sep, 0, 120)
        if a > 0 and b > 0 and key_line[:a].translate(_DIGITS) == next_line[:b].translate(_DIGITS):
            return b + len(sep)
    return None
