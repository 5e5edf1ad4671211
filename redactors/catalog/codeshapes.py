"""Keys written as code: a subscript, a typed dump's ``name (type) =``, an arrow ``->``.

Application configuration is often a program, and support bundles carry it:
CodeIgniter's ``$db['default']['password'] = 'x';``, Django's
``DATABASES['default']['PASSWORD'] = 'x'``, Ruby's ``ENV['DB_PASSWORD'] ||= 'x'``, bash's
``cfg[password]=x`` and ``declare -A db=([password]=x)``, ``password: str = "x"``; debug
output prints values as ``password (string) = "x"``, ``Map(user -> u, password -> x)``,
PHP's ``[password] => x`` (``print_r``) and ``["password"]=> string(1) "x"``
(``var_dump``). A subscript whose key, quoted or bare, names a secret and is followed by
``=``, ``=>``, ``||=`` or ``:`` and a value is the same as ``key = value``, and so are the
other shapes.

The key rules (:mod:`.keyvalue`) match these shapes with the keyword they are anchored on
(no rule of its own, so no text is scanned again); this module says whether what they
matched really is one, and where such a value starts and ends.
"""

from __future__ import annotations

import re

from ..values import ValueSpan

_SUBSCRIPT_QUOTES = b"\"':"
"""What may stand between a subscript's ``[`` and its key: a quote, or Ruby's symbol colon
(``config[:password]``); escaped quotes (``cfg[\\"password\\"]``) in a JSON-encoded line."""
_LINK_TARGET = re.compile(rb"[ \t]*(?:<|#|/|\.{0,2}/|[a-z][a-z0-9+.-]*://)", re.IGNORECASE)
_ARROW_BEFORE = re.compile(rb"->[^,;({\[]*\Z")
"""An arrow before the key with no pair separator after it: the key is a step of a chain."""
_ARROW_AFTER = re.compile(rb"[ \t]*[^ \t\r\n,;)\]}]+[ \t]+->")
"""The value is followed by another arrow: a step of a chain too."""


def opens_subscript(data: bytes, key_start: int) -> bool:
    """Whether the key at ``key_start`` is the index of a subscript: ``[`` before it,
    directly or behind one quote (backslash-escaped or not) or a symbol's colon."""
    pos = key_start
    if pos > 0 and data[pos - 1] in _SUBSCRIPT_QUOTES:
        pos -= 1
        while pos > 0 and data[pos - 1] == 0x5C:
            pos -= 1
    return pos > 0 and data[pos - 1] == 0x5B


def markdown_link_reference(data: bytes, key_start: int, value_pos: int) -> bool:
    """``[api-token]: https://docs.example/tokens``: a Markdown link reference definition (a
    bare label at the line's start, up to three blanks in, then a link target) names a page,
    not a value (a JavaScript ``{[token]: value}`` computed key has no such target)."""
    line_start = data.rfind(b"\n", 0, key_start) + 1
    lead = data[line_start : key_start - 1]
    if len(lead) > 3 or lead.strip(b" ") or data[key_start - 1] != 0x5B:
        return False
    return _LINK_TARGET.match(data, value_pos) is not None


def in_an_arrow_chain(data: bytes, key_start: int, value_pos: int) -> bool:
    """``Settings -> Change Password -> Save``: a menu path or a flow, whose steps are joined
    by arrows, holds no ``key -> value`` pair (``Map(user -> u, password -> x)`` does: a
    comma or a bracket separates its pairs)."""
    line_start = data.rfind(b"\n", 0, key_start) + 1
    if _ARROW_BEFORE.search(data, line_start, key_start) is not None:
        return True
    return _ARROW_AFTER.match(data, value_pos) is not None


def close_unopened(data: bytes, span: ValueSpan) -> ValueSpan:
    """An unquoted value's closing bracket that it never opened is the enclosing structure's
    (``declare -A db=([password]=x)``, ``Map(password -> x)``), not part of the value."""
    value = data[span.start : span.end]
    if value.endswith(b")") and b"(" not in value:
        return ValueSpan(span.start, span.end - 1)
    return span


_VAR_DUMP_STRING = re.compile(rb"[ \t]*(?:\r?\n[ \t]*)?string\([0-9]{1,9}\)[ \t]*(?=\")")


def var_dump_value(data: bytes, pos: int) -> int:
    """Where the value of PHP's ``var_dump`` entry ``["password"]=>`` starts: its type and
    length (``string(8)``, on the next line) stand before the quoted value."""
    found = _VAR_DUMP_STRING.match(data, pos)
    return pos if found is None else found.end()


ANNOTATION = re.compile(
    rb"[ \t]*(?:typing\.|pydantic\.)?(?:str|string|bytes|secretstr|secretbytes|optional|union"
    rb"|final|classvar|any)(?![a-z0-9_])[^=\r\n]{0,40}?[ \t]*=(?![=>])"
)
"""A type annotation between a key's ``:`` and its ``=`` (``password: str = "..."``,
``cfg['password']: str = ...``, ``db_password: Optional[str] = None``, TypeScript's
``private password: string = ...``): the value follows the ``=``. Only the type names a
string secret is declared with, so a value that holds `` = `` is never cut short. Matched
against the lower-cased text."""


def code_shape_holds(
    data: bytes, match: re.Match[bytes], key_start: int, *, subscript: bool
) -> bool:
    """Whether a key-rule match that went through a code shape is one: a ``]`` after the key
    closes a subscript the key opened (and is no Markdown link label), and an arrow is not a
    step of a chain. (A type note in parentheses the pattern allows only before ``=``.)"""
    sep = match.group("sep")
    if subscript:
        if not opens_subscript(data, key_start):
            return False
        if sep == b":" and markdown_link_reference(data, key_start, match.end()):
            return False
    return not (sep == b"->" and in_an_arrow_chain(data, key_start, match.end()))
