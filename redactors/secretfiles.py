"""Files whose name says what they hold, whatever their content looks like.

Flux writes its worker bootstrap token alone in ``.flux/bootstrap-token`` (and
an admin key in ``.flux/admin-bootstrap-key``): no key name, no prefix, just
64 characters. ``.pgpass`` lines are ``host:port:db:user:password``; Spark's
``spark-defaults.conf`` and Java ``.properties`` may part a key from its value with blanks
alone. A rule cannot recognise these from the text, the file name can.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import PurePosixPath

from .keys import is_placeholder, secret_kind
from .rules import Hit, View

_LINE = re.compile(rb"(?m)^[ \t]*([^\s#][^\r\n]*?)[ \t]*\r?$")
_BLANK_PAIR = re.compile(rb"(?m)^[ \t]*([A-Za-z0-9_.-]+)[ \t]+([^ \t\r\n=:#!][^\r\n]*?)[ \t]*\r?$")
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
    if base == "spark-defaults.conf" or base.endswith(".properties"):
        return _blank_separated
    kind = WHOLE_FILE_SECRETS.get(base)
    if kind is None:
        return None

    def whole(view: View) -> Iterator[Hit]:
        for line in _LINE.finditer(view.data):
            yield Hit(line.start(1), line.end(1), kind, "secret-file")

    return whole


def _blank_separated(view: View) -> Iterator[Hit]:
    """``spark.authenticate.secret VALUE``: Spark's ``spark-defaults.conf`` separates a key
    from its value by blanks, and so may a Java ``.properties`` file. The key rules need an
    ``=`` or ``:``; here a line whose first word names a secret gives the rest of the line
    (lines with ``=`` or ``:`` after the key are the key rules')."""
    for line in _BLANK_PAIR.finditer(view.data):
        key = line.group(1).decode("latin-1")
        value = line.group(2)
        if secret_kind(key) is not None and not is_placeholder(value):
            yield Hit(line.start(2), line.end(2), secret_kind(key) or "secret", "secret-file")


def _pgpass(view: View) -> Iterator[Hit]:
    for line in _PGPASS.finditer(view.data):
        if not line.group().lstrip().startswith(b"#"):
            yield Hit(line.start(1), line.end(1), "password", "pgpass")
