"""``-p`` of a tool the catalog does not know: a password when the command line says so.

``-p`` is a password to ``az login``, ``oc login``, ``psexec``, ``cqlsh`` and
countless in-house tools, but a port to ``ssh``, parents to ``mkdir``, a
priority to ``journalctl``, a plugin to ``pytest``, a prompt to ``sudo`` and
``read``. Known tools are :mod:`.cliflags`' to judge; for the others two
things say it is a password:

* a user flag on the same command (``-u alice -p pw``, ``-U sa -P pw``, Windows
  ``/u alice /p pw``, ``/u:alice /p:pw``, ``-u:alice -p:pw``): the value is taken
  whatever it looks like (``correcthorse``), unless it is a number, a port
  mapping, a path, a URL, an option or a reference;
* alone, a value shaped like a human password: letters, digits and a symbol
  (``S3cret!``), or quoted words with a digit (``'S3cret Pass'``).

The tool the flag belongs to is the last word before it that is neither an option
nor an option's value (:func:`.shellwords.owner`); it and the word before it
(``git log -p``, ``docker compose -p``) are checked against the tools whose
``-p`` is something else.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..rules import Hit, Rule, View
from .cliflags import known_tool
from .shellwords import (
    Word,
    flag_text,
    is_flag,
    is_reference,
    line_end,
    name,
    owner,
    segment_start,
    words,
)

__all__ = ["NOT_A_PASSWORD_FLAG", "USER_PASSWORD_FLAG", "flag_password", "names_user"]

NOT_A_PASSWORD_FLAG = frozenset(
    b"""sudo doas su runuser journalctl systemctl systemd-run read git grep egrep fgrep zgrep rg
    ag sed awk gawk perl npx npm pnpm yarn bunx pip pip3 pipx pytest py.test python python3 java
    javac mvn mvnw gradle gradlew edquota setquota xargs parallel patch mkdir cp mv install scp
    ssh sftp nc ncat netcat socat nmap iptables ip6tables ufw tcpdump ps top htop pgrep pkill
    pidstat lsof strace ltrace gdb perf taskset renice ionice chrt prlimit kill compose
    docker-compose kubectl tar rsync cargo make crontab ls who rpm dpkg pacman conda virtualenv
    uv ln chmod chown touch diff cat less tail head watch""".split()
)
"""Tools whose ``-p``/``-P`` is a port, a path, a pid, a priority, a prompt, a pattern, a
profile or a flag of its own, however a user flag stands beside it."""
_USER_FLAGS = frozenset({b"-u", b"-U", b"--user", b"--username", b"/u", b"/U", b"/ru", b"/RU"})
_USER_ATTACHED = (b"--user=", b"--username=", b"/u:", b"/U:", b"-u:", b"/user:")
_SYMBOLS = frozenset(b"!#$%&*+?@^")
_WINDOWS_FLAGS = (b"/", b"-p:", b"-P:")


def names_user(args: Sequence[bytes]) -> bool:
    """A user flag with a value among a command's arguments (``-u alice``, ``/u:alice``),
    given as the words' texts."""
    for index, text in enumerate(args):
        if text.startswith(_USER_ATTACHED) and not text.endswith(b":"):
            return True
        if text in _USER_FLAGS and index + 1 < len(args):
            following = args[index + 1]
            if not flag_text(following) and following != b"-":
                return True
    return False


def flag_password(tools: Iterable[bytes], value: bytes, quote: bytes, *, paired: bool) -> bool:
    """Whether ``value``, given to ``-p``/``-P`` of a command whose tool names are ``tools``
    (the flag's owner and the word before it), is a password by the reading above.

    One judgement for a command written on a line and one written as a list of arguments
    (:mod:`redactors.argv`): a known tool's flags are :mod:`.cliflags`' to judge, a tool whose
    ``-p`` is something else never has a password there, and the value must be neither a
    reference nor a plain argument; then beside a user flag (``paired``) anything goes, and
    alone only a value shaped like a human password.
    """
    if any(tool in NOT_A_PASSWORD_FLAG or known_tool(tool) for tool in tools):
        return False
    if is_reference(value, quote) or _plain_argument(value):
        return False
    return paired or _password_shaped(value, quote)


def _password_shaped(value: bytes, quote: bytes) -> bool:
    """``S3cret!``, ``'S3cret Pass'``: what a human password looks like, without a user flag."""
    if not 6 <= len(value) <= 64 or b"/" in value or b"\\" in value or b"=" in value:
        return False
    letters = value.lower() != value.upper()
    digits = any(0x30 <= c <= 0x39 for c in value)
    marked = any(c in _SYMBOLS for c in value) or (quote != b"" and b" " in value)
    return letters and digits and marked


def _plain_argument(value: bytes) -> bool:
    """A number, a port mapping or address (no letter), a path, a URL, ``key=value``."""
    if value.lower() == value.upper():
        return True
    if value.startswith((b"/", b"~", b"./", b"../")) or b"://" in value:
        return True
    return b"=" in value.rstrip(b"=")


def _value(data: bytes, pos: int, end: int, windows: bool) -> Word | None:
    """The flag's value: the next word, a quoted word right after it, or (Windows) after ``:``."""
    follows = data[pos : pos + 1]
    if follows == b":":
        if not windows:
            return None
        pos += 1
    elif follows not in (b" ", b"\t", b"\0", b'"', b"'"):
        return None
    found = next(words(data, pos, end), None)
    if found is None or (follows == b":" and found.start != pos):
        return None
    return found


def _user_password(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    flag_start = match.start() + 1
    end = line_end(view, match.end(), match.start())
    if end is None:
        return
    windows = data.startswith(_WINDOWS_FLAGS, flag_start)
    value = _value(data, match.end(), end, windows)
    if value is None:
        return
    start = segment_start(data, flag_start)
    before = list(words(data, start, flag_start))
    at = owner(data, before)
    if at is None:
        return
    tools = [name(data, before[i]) for i in (at - 1, at) if i >= 0]
    if is_flag(data, value):
        return
    after = [w for w in words(data, value.end, end)]
    paired = names_user([w.text(data) for w in before[at + 1 :] + after])
    if (paired or not windows) and flag_password(
        tools, value.value(data), value.quote, paired=paired
    ):
        yield Hit(value.value_start, value.value_end, rule.kind, rule.id)


USER_PASSWORD_FLAG = Rule(
    "cli-user-password",
    "password",
    "cli",
    "`-p`/`-P` (Windows `/p`, `/rp`, `/p:`) of a tool the catalog does not know: beside a"
    " user flag (`-u alice -p pw`) whatever the value, alone when the value has letters, digits"
    " and a symbol.",
    rb"[ \t\0](?:-[pP]|/[pP]|/[rR][pP])(?=[ \t\0:\"'])",  # spelt out: `` /`` is too common to index
    handler=_user_password,
    examples=(
        ("az login -u alice@corp.example -p correcthorse", "correcthorse"),
        ("oc login -u dev -p batterystaple https://api.example:6443", "batterystaple"),
        ("cqlsh -u cassandra -p 'correct horse' db1", "correct horse"),
        ("psexec \\\\host -u corp\\alice -p S3cret-Ps cmd", "S3cret-Ps"),
        ("schtasks /create /s h /u alice /p taskhorse /tn x", "taskhorse"),
        ("winrs -r:host -u:alice -p:winrshorse cmd", "winrshorse"),
        ("xfreerdp /u:alice /p:rdphorse /v:host", "rdphorse"),
        ("myapp --verbose -p S3cretPass! --db x", "S3cretPass!"),
        ("myapp -p 'S3cret Pass' start", "S3cret Pass"),
        (
            "root 1234 0.0 0.1 1 2 ? S 10:00 0:00 /opt/app/bin/agent -U svc -P agenthorse",
            "agenthorse",
        ),
    ),
    decoys=(
        "mkdir -p /var/lib/x",
        "ssh -p 2222 -l alice host",
        "python -m http.server -p 8080",
        "docker run -u app -p 80:80 nginx",
        "cp -p a b",
        "grep -p 'S3cret!x' file",
        "journalctl -u nginx -p err",
        "sudo -u postgres -p 'Password 1:' psql",
        "git log -p HEAD~1!",
        "rsync -u -p src/ dst/",
        "mysql -u root -p mydb",
        "curl -u alice -p https://x",
        "myapp -u alice -p $APP_PASSWORD",
        "myapp -p projectname2",
        "ps -u alice -p 1234",
        "mvn -P prod -U clean",
        "npx -p typescript@5.3 tsc",
        "app -u alice -p /etc/app/pw",
    ),
)
