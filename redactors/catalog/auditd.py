"""A command line as the Linux audit log records it: one field per argument.

auditd writes each command a watched host ran as an ``EXECVE`` record, its arguments as
``a0="mysql" a1="-u" a2="root" a3="-pPW"``, and an argument holding a blank, a quote or a
byte outside printable ASCII in hex (``a3=2D7020707720776974682073706163657320``). No line
rule sees a command there: the tool and its flags stand in separate quoted fields. The
fields are read back into the list of arguments they are, and judged as a command written
as a list is (:mod:`redactors.argv`, the structure walk's own reading, so review agrees).
The same event's ``PROCTITLE`` record holds the whole command line again, in hex with NULs
between the arguments: it is decoded and rescanned (a NUL is a blank to the command-line
rules, as in ``/proc/PID/cmdline``).
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterable

from ..decode import MAX_BLOCK
from ..keys import secret_kind
from ..rules import Hit, Rule, View, line_end_or_hold, runs_past_view

_HEX_RUN = re.compile(rb"[0-9A-Fa-f]{16,}")
_ARGUMENT = re.compile(rb'[ \t]a([0-9]{1,4})=(?:"([^"\r\n]*)"|([0-9A-Fa-f]+)(?=[ \t\r\n]|$))')


def _execve(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    # imported here: redactors.argv reads the catalog's tool tables, whose package this is
    from ..argv import argv_secrets

    data = view.data
    end = line_end_or_hold(view, match.end(), match.start())
    if end is None:
        return
    spans: list[tuple[int, int]] = []
    arguments: list[str] = []
    for argument in _ARGUMENT.finditer(data, match.end(), end):
        if int(argument.group(1)) != len(arguments):
            return  # a0, a1, ... in order, or this is no record read whole
        if argument.group(2) is not None:
            text = argument.group(2)
            spans.append(argument.span(2))
        else:
            try:
                text = binascii.unhexlify(argument.group(3))
            except (binascii.Error, ValueError):
                return
            spans.append(argument.span(3))
        arguments.append(text.decode("utf-8", "surrogateescape"))
    for index, kind, value in argv_secrets(arguments, secret_kind):
        begin, stop = spans[index]
        quoted = data[begin - 1 : begin] == b'"'
        at = data.rfind(value, begin, stop) if quoted else -1
        if quoted and at >= 0:
            yield Hit(at, at + len(value), kind, rule.id)
        else:  # hex: the whole field is the argument's encoding
            yield Hit(begin, stop, kind, rule.id)


def _proctitle(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """The hex command line: its NUL-parted arguments judged as a list (a secret among them
    takes the whole run, the argument's encoding inside it), else the run decoded and
    rescanned as any hex run (a command given as one string: ``sh -c "..."``)."""
    from ..argv import argv_secrets  # see _execve

    run = _HEX_RUN.match(view.data, match.end())
    if run is None or run.end() - run.start() > MAX_BLOCK:
        return
    if runs_past_view(view, run.end(), match.start()):
        return
    digits = run.group()
    try:
        decoded = binascii.unhexlify(digits[: len(digits) // 2 * 2])
    except (binascii.Error, ValueError):
        return
    arguments = decoded.decode("utf-8", "surrogateescape").split("\0")
    secret = next(argv_secrets(arguments, secret_kind), None)
    if secret is not None:
        yield Hit(run.start(), run.end(), secret[1], rule.id)
        return
    yield from view.rescan_block(run.start(), run.end())


AUDIT_EXECVE = Rule(
    "auditd-execve",
    "password",
    "cli",
    "A command's secrets in a Linux audit EXECVE record, whose arguments stand one per field"
    " (a0, a1, ...; quoted, or in hex when they hold a blank), read back as the command's"
    " list of arguments.",
    rb"type=execve msg=audit\(",
    lower=True,
    handler=_execve,
    examples=(
        (
            'type=EXECVE msg=audit(1701423600.123:456): argc=4 a0="mysql" a1="-u" a2="root"'
            ' a3="-pAud1t-pw-7"',
            "Aud1t-pw-7",
        ),
        (
            'type=EXECVE msg=audit(1701423600.5:457): argc=3 a0="redis-cli" a1="-a"'
            ' a2="Rd-aud1t-pw"',
            "Rd-aud1t-pw",
        ),
        (
            'type=EXECVE msg=audit(1701423601.0:458): argc=3 a0="curl" a1="--token"'
            " a2=546F6B2D77697468207370616365",
            "546F6B2D77697468207370616365",
        ),
    ),
    decoys=(
        'type=EXECVE msg=audit(1701423600.1:459): argc=3 a0="ssh" a1="-p" a2="2222"',
        'type=EXECVE msg=audit(1701423600.2:460): argc=2 a0="ls" a1="-la"',
    ),
)

AUDIT_PROCTITLE = Rule(
    "auditd-proctitle",
    "password",
    "cli",
    "A Linux audit PROCTITLE record's command line (hex, NULs between its arguments): decoded"
    " and rescanned, replaced whole when it holds a secret.",
    rb"proctitle=",
    lower=True,
    handler=_proctitle,
    examples=(
        (
            "type=PROCTITLE msg=audit(1701423600.123:456): proctitle="
            + b"mysql\0-u\0root\0-pAud1t-pw-7".hex().upper(),
            b"mysql\0-u\0root\0-pAud1t-pw-7".hex().upper(),
        ),
    ),
    decoys=(
        "type=PROCTITLE msg=audit(1701423600.1:459): proctitle="
        + b"ssh\0-p\0002222\0host".hex().upper(),
        'type=PROCTITLE msg=audit(1701423600.2:460): proctitle="bash"',
    ),
)

AUDIT_RULES = (AUDIT_EXECVE, AUDIT_PROCTITLE)
