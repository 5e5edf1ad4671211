"""Files whose name says what they hold, whatever their content looks like.

Flux writes its worker bootstrap token alone in ``.flux/bootstrap-token`` (and
an admin key in ``.flux/admin-bootstrap-key``): no key name, no prefix, just
64 characters. ``.pgpass`` lines are ``host:port:db:user:password``. A rule
cannot recognise these from the text, the file name can.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import PurePosixPath

from .rules import Hit, View

_LINE = re.compile(rb"(?m)^[ \t]*([^\s#][^\r\n]*?)[ \t]*\r?$")
_PGPASS = re.compile(rb"(?m)^(?:(?:[^:\r\n\\]|\\.)*:){4}([^\r\n]+?)\r?$")

WHOLE_FILE_SECRETS = {
    "bootstrap-token": "bootstrap-token",
    "admin-bootstrap-key": "bootstrap-token",
    "join-token": "bootstrap-token",
    "enrollment-secret": "enrollment-secret",
    "api-key": "api-key",
}


def scanner_for(name: str) -> Callable[[View], Iterator[Hit]] | None:
    base = PurePosixPath(name).name.lower()
    if base in (".pgpass", "pgpass", "pgpass.conf"):
        return _pgpass
    kind = WHOLE_FILE_SECRETS.get(base)
    if kind is None:
        return None

    def whole(view: View) -> Iterator[Hit]:
        for line in _LINE.finditer(view.data):
            yield Hit(line.start(1), line.end(1), kind, "secret-file")

    return whole


def _pgpass(view: View) -> Iterator[Hit]:
    for line in _PGPASS.finditer(view.data):
        if not line.group().lstrip().startswith(b"#"):
            yield Hit(line.start(1), line.end(1), "password", "pgpass")
