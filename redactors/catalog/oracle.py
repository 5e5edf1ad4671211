"""Oracle logons on a command line (``sqlplus scott/PW@orcl``, ``expdp userid=system/PW``)
and in a JDBC URL (``jdbc:oracle:thin:scott/PW@//db:1521/orcl``).

SQL*Plus, SQL*Loader, Data Pump, RMAN and DGMGRL take the user, the password and
the connect identifier as one argument, ``user/password@db``; cron jobs that
export a schema every night leave it in ``ps`` listings and logs. No flag or key
names the password: its place between ``/`` and ``@`` does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..rules import Hit, Rule, View, runs_past_view
from .shellwords import command_words, is_reference

__all__ = ["ORACLE_JDBC_LOGON", "ORACLE_LOGON", "ORACLE_TOOLS", "ORACLE_USER"]

ORACLE_TOOLS = rb"sqlplus|sqlldr|expdp|impdp|dgmgrl|rman"
"""The tools that take a ``user/password@db`` logon argument."""
ORACLE_USER = rb"[a-z][a-z0-9_$#.]*"
"""An Oracle user name as the logon argument writes it, in lower-cased text."""
_LOGON = re.compile(rb"(?:userid=)?" + ORACLE_USER + rb"/")


def _oracle_logon(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``sqlplus scott/PW@orcl``, ``expdp userid=system/PW``, ``rman target sys/PW@db``: the
    password of an Oracle logon argument, up to its ``@connect`` part (``/ as sysdba`` and
    ``/nolog`` have none)."""
    args = command_words(view, match)
    if args is None:
        return
    data = view.data
    for word in args:
        logon = _LOGON.match(view.low, word.value_start, word.value_end)
        if logon is None:
            continue
        start = logon.end()
        end = word.value_end
        blank = data.find(b" ", start, end)  # "sys/pw as sysdba", quoted
        end = end if blank < 0 else blank
        at = data.find(b"@", start, end)
        end = end if at < 0 else at
        if data[start : start + 1] == b'"':
            quote = data.find(b'"', start + 1, word.value_end)
            start, end = start + 1, (end if quote < 0 else quote)
        if end > start and not is_reference(data[start:end], word.quote):
            yield Hit(start, end, rule.kind, rule.id)


ORACLE_LOGON = Rule(
    "oracle-logon",
    "password",
    "cli",
    "The password of an Oracle logon argument `user/password@db` of SQL*Plus, SQL*Loader,"
    " Data Pump, RMAN and DGMGRL (`/ as sysdba` and `/nolog` have none).",
    rb"(?:" + ORACLE_TOOLS + rb")(?:\.exe)?[ \t]",
    lower=True,
    handler=_oracle_logon,
    examples=(
        ("sqlplus -s scott/tiger@orcl @/opt/report.sql", "tiger"),
        ("expdp userid=system/S3cret-x directory=dp dumpfile=a.dmp", "S3cret-x"),
        ("rman target sys/rmanhorse@prod catalog rco/cathorse@rcat", "cathorse"),
        ('sqlplus "sys/syshorse as sysdba"', "syshorse"),
    ),
    decoys=(
        "sqlplus / as sysdba",
        "sqlplus -s /nolog @/opt/x.sql",
        "sqlldr control=/opt/load.ctl log=/tmp/l.log",
        "rman target /",
        "sqlplus scott@orcl",
    ),
)


_JDBC_USER = re.compile(rb"[A-Za-z][A-Za-z0-9_$#.]*/")
_VALUE_END = frozenset(b" \t\r\n\"'<>`;,")


def _jdbc_logon(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``jdbc:oracle:thin:scott/PW@//db:1521/orcl``: Oracle's JDBC URLs may carry the logon
    before the ``@``, in the same ``user/password`` form as the command line."""
    data = view.data
    user = _JDBC_USER.match(data, match.end())
    if user is None:
        return
    start = end = user.end()
    while end < len(data) and data[end] not in _VALUE_END and data[end] != 0x40:  # "@"
        end += 1
    if runs_past_view(view, end, match.start()):
        return
    at_sign = end < len(data) and data[end] == 0x40
    if at_sign and end > start and not is_reference(data[start:end], b""):
        yield Hit(start, end, rule.kind, rule.id)


ORACLE_JDBC_LOGON = Rule(
    "oracle-jdbc-logon",
    "password",
    "url",
    "The password of the logon an Oracle JDBC URL (jdbc:oracle:thin:) may carry before its"
    " host: user, a slash, the password, an at sign.",
    rb"jdbc:oracle:(?:thin|oci8?|kprb):",
    lower=True,
    handler=_jdbc_logon,
    examples=(
        ("jdbc.url=jdbc:oracle:thin:scott/T1ger-pw9@//db.internal:1521/orcl", "T1ger-pw9"),
        ("url: jdbc:oracle:thin:etl/Etl-pw-77@db.internal:1521:ORCL", "Etl-pw-77"),
    ),
    decoys=(
        "jdbc:oracle:thin:@//db.internal:1521/orcl",
        "jdbc:oracle:thin:@(DESCRIPTION=(ADDRESS=(HOST=db)(PORT=1521)))",
    ),
)
