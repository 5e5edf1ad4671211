"""A multipart form's fields: ``Content-Disposition: form-data; name="password"``, a blank
line, then the value up to the next boundary.

A login or a credential upload captured in a request dump (``curl -v --trace``, a proxy's
log, a HAR's ``postData.text``) carries each field as its own part; the field's name is on
the part's header line and its value lines below, so no ``key: value`` rule sees them
together. Read raw (CRLF) or as a JSON string (``\\r\\n`` written out, quotes escaped).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder, secret_kind
from ..rules import Hit, Rule, View

_NAME = re.compile(rb'[^\r\n]{0,512}?(?<![A-Za-z*])name=\\?"([^"\\\r\n]{1,128})\\?"')
_HEADER_END = (b"\r\n\r\n", b"\\r\\n\\r\\n", b"\n\n", b"\\n\\n")
_VALUE_END = (b"\r\n--", b"\\r\\n--", b"\n--", b"\\n--")
HEADERS_MAX = 1024
"""How far after the name the part's headers may run (a Content-Type line or two)."""
VALUE_MAX = 64 << 10


def _first(data: bytes, needles: tuple[bytes, ...], start: int, end: int) -> tuple[int, int]:
    """The earliest of ``needles`` in ``data[start:end]``: (position, its length), or (-1, 0)."""
    found = [(data.find(needle, start, end), len(needle)) for needle in needles]
    hits = [pair for pair in found if pair[0] >= 0]
    return min(hits) if hits else (-1, 0)


def _form_field(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    name = _NAME.match(data, match.end())
    if name is None:
        return
    kind = secret_kind(name.group(1).decode("latin-1"))
    if kind is None:
        return
    limit = min(len(data), name.end() + HEADERS_MAX)
    header_end, size = _first(data, _HEADER_END, name.end(), limit)
    if header_end < 0:
        if not view.final and limit == len(data):
            view.need_more_from(match.start())
        return
    start = header_end + size
    limit = min(len(data), start + VALUE_MAX)
    end, _ = _first(data, _VALUE_END, start, limit)
    if end < 0:
        if not view.final and limit == len(data):
            view.need_more_from(match.start())
            return
        end = limit
    if end > start and not is_placeholder(data[start:end]):
        yield Hit(start, end, kind, rule.id)


MULTIPART_FIELD = Rule(
    "multipart-field",
    "password",
    "key-value",
    "The value of a multipart form's part whose name names a secret (a login or credential"
    " upload in a request dump or a HAR's postData), raw or JSON-escaped.",
    rb"content-disposition:[ \t]*form-data;",
    lower=True,
    handler=_form_field,
    examples=(
        (
            '--XyZ\r\nContent-Disposition: form-data; name="password"\r\n\r\nHunter2-mp\r\n--XyZ--',
            "Hunter2-mp",
        ),
        (
            '"text": "--b\\r\\nContent-Disposition: form-data; name=\\"api_token\\"\\r\\n\\r\\n'
            'Tok-mp-99x\\r\\n--b--"',
            "Tok-mp-99x",
        ),
    ),
    decoys=(
        '--b\r\nContent-Disposition: form-data; name="username"\r\n\r\netl\r\n--b--',
        'Content-Disposition: form-data; name="file"; filename="password-policy.pdf"',
    ),
)
