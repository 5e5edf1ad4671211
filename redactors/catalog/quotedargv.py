"""A command line written as a list of quoted arguments inside a line of text.

A log line that prints a command's arguments (``exec ["redis-cli","-a","X","ping"]``, a
Python ``['sshpass', '-p', 'X', 'ssh']``, a JSON list in a message) holds a flag and its
value as two quoted elements: no blank stands before the flag (the command-line rules
start there) and no key names the value (the key rules stop there), and the structure
walk, which reads such lists in JSON and YAML members, never sees a list inside a log
line. This rule reads the comma-separated quoted elements around a quoted flag as the
list they are and asks :func:`redactors.argv.argv_secrets` which of them are secrets, so a
list is judged the same wherever it is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .. import argv  # the module: argv imports this package's helpers (a cycle)
from ..keys import secret_kind
from ..rules import Hit, Rule, View
from .shellwords import COMMAND_MAX, line_end

__all__ = ["QUOTED_ARGV"]

_ELEMENT = rb"(?:\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
_ELEMENTS = re.compile(_ELEMENT + rb"(?:[ \t]*,[ \t]*" + _ELEMENT + rb")+")
"""Two or more quoted elements parted by commas: a list's items, brackets or not."""
_ONE = re.compile(_ELEMENT)


def _quoted_argv(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    comma = match.start()
    end = line_end(view, match.end(), comma)
    if end is None:
        return
    start = max(data.rfind(b"\n", 0, comma) + 1, comma - COMMAND_MAX)
    run = next((r for r in _ELEMENTS.finditer(data, start, end) if r.end() > comma), None)
    if run is None or run.start() > comma:
        return
    spans = [(e.start() + 1, e.end() - 1) for e in _ONE.finditer(data, run.start(), run.end())]
    texts = [data[a:b] for a, b in spans]
    first_flag = next((i for i, t in enumerate(texts) if t[:1] == b"-"), None)
    if first_flag is None or data.rfind(b",", 0, spans[first_flag][0]) != comma:
        return  # the list's first flag reads it whole; the others would read it again
    items = [t.decode("utf-8", "surrogateescape") for t in texts]
    for index, kind, value in argv.argv_secrets(items, secret_kind):
        a, b = spans[index]
        at = data.rfind(value, a, b)
        if at >= 0:
            yield Hit(at, at + len(value), kind, rule.id)


QUOTED_ARGV = Rule(
    "quoted-argv",
    "password",
    "cli",
    "A command's arguments written as quoted, comma-separated elements in a line of text"
    ' (`["redis-cli","-a","X"]`, a Python list): the secrets a list of arguments holds.',
    rb"(?:,|, )[\"']-",  # spelt out: a literal for the index, not "," alone
    handler=_quoted_argv,
    examples=(
        ('INFO exec ["redis-cli","-a","R3disHorse","ping"]', "R3disHorse"),
        ("DEBUG argv=['sshpass', '-p', 'quietword', 'ssh', 'ops@h']", "quietword"),
        ('spawn ["worker", "--api-key", "k3yHorse99", "--port", "80"]', "k3yHorse99"),
        ('cmd: "mysql","-uroot","-pListPw-7","app"', "ListPw-7"),
    ),
    decoys=(
        'exec ["docker","run","-p","8080:80","nginx"]',
        "argv=['mkdir', '-p', '/var/lib/x']",
        'exec ["redis-cli","-a","$REDIS_PASSWORD","ping"]',
        '"a", "-", "b"',
    ),
)
