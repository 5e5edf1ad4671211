"""Passwords given as a tool's plain arguments: no flag or key names them, their place does.

``net user alice PW /add``, ``htpasswd -b file alice PW``, ``rabbitmqctl add_user
alice PW``, ``mysqladmin password PW`` (Oracle's ``user/PW@db``: :mod:`.oracle`): the value can be
any word (``correcthorse``), so the rule reads the command the way the tool
does and takes the argument at the password's place; a reference (``$PW``,
``%PW%``), a prompt (``*``) or a missing argument leaves the line as it is.
One rule per tool family, each with its own reading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import secret_kind
from ..rules import Hit, Rule, View
from .shellwords import Word, command_words, is_flag, is_reference

__all__ = ["POSITIONAL_RULES"]


def _secret(view: View, word: Word, rule: Rule) -> Iterable[Hit]:
    """The word at the password's place, unless it is an option, a reference or empty."""
    data = view.data
    value = word.value(data)
    if value and not is_flag(data, word) and not is_reference(value, word.quote):
        yield Hit(word.value_start, word.value_end, rule.kind, rule.id)


_DEVICE = re.compile(rb"[a-z]:|\*|(?:lpt|com)[0-9]:", re.IGNORECASE)


def _net_user(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``net user NAME PW [/add]``; ``net use [DEVICE] \\\\SERVER\\SHARE PW [/user:NAME]``."""
    args = command_words(view, match)
    if args is None:
        return
    data = view.data
    positional = [w for w in args if not is_flag(data, w)]
    if view.low[match.end() - 2 : match.end() - 1] == b"r":  # net user
        if len(positional) >= 2:
            yield from _secret(view, positional[1], rule)
        return
    if positional and _DEVICE.fullmatch(positional[0].value(data)):
        positional = positional[1:]
    if len(positional) >= 2 and positional[0].value(data).startswith((b"\\\\", b"http")):
        yield from _secret(view, positional[1], rule)


_HTPASSWD_VALUED = (b"C", b"r")
"""htpasswd's options that take a value (``-C cost``, ``-r rounds``)."""


def _htpasswd(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``htpasswd -b[cBm...] FILE USER PW`` and ``htpasswd -nb USER PW``: with ``-b`` the
    password is an argument (without it htpasswd prompts, and ``-i`` reads standard input)."""
    args = command_words(view, match)
    if args is None:
        return
    data = view.data
    letters = b""
    positional: list[Word] = []
    valued = False
    for word in args:
        text = word.text(data)
        if valued:
            valued = False
        elif text.startswith(b"-") and len(text) > 1:
            letters += text[1:]
            valued = text.endswith(_HTPASSWD_VALUED)
        else:
            positional.append(word)
    place = 1 if b"n" in letters else 2
    if b"b" in letters and len(positional) > place:
        yield from _secret(view, positional[place], rule)


_LAST = -1
_KEYED = -2
"""The value after a key that names a secret (``aws configure set aws_secret_access_key V``)."""
_SUBCOMMANDS: tuple[tuple[re.Pattern[bytes], dict[bytes, int]], ...] = (
    (
        re.compile(rb"rabbitmqctl"),
        {b"add_user": 1, b"change_password": 1, b"authenticate_user": 1},
    ),
    (re.compile(rb"mysqladmin"), {b"password": 0, b"old-password": 0}),
    (re.compile(rb"redis-cli|keydb-cli|valkey-cli"), {b"auth": _LAST}),
    (
        re.compile(rb"nmcli"),
        {
            b"password": 0,
            b"wifi-sec.psk": 0,
            b"802-11-wireless-security.psk": 0,
            b"802-1x.password": 0,
        },
    ),
    (re.compile(rb"db2 connect"), {b"using": 0}),
    (re.compile(rb"wpa_passphrase"), {b"": 1}),
    (re.compile(rb"mc alias"), {b"set": 3}),
    (re.compile(rb"mc config host"), {b"add": 3}),
    (re.compile(rb"aws configure"), {b"set": _KEYED}),
)
"""Per tool, the word after which its arguments hold a password, and which of them is the
password (``auth [USER] PW``: the last; ``""``: counted from the tool's name)."""


def _subcommand(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``rabbitmqctl add_user U PW``, ``mysqladmin password PW``, ``redis-cli AUTH PW``,
    ``nmcli ... password PW``, ``db2 connect ... using PW``, ``wpa_passphrase SSID PW``."""
    args = command_words(view, match)
    if args is None:
        return
    tool = view.low[match.start() : match.end()].split(b".")[0].strip().replace(b"\t", b" ")
    places = next((p for pattern, p in _SUBCOMMANDS if pattern.fullmatch(tool)), None)
    if places is None:
        return
    data = view.data
    place = places.get(b"")
    after = 0
    if place is None:
        for index, word in enumerate(args):
            place = places.get(word.value(data).lower())
            if place is not None:
                after = index + 1
                break
        else:
            return
    positional = [w for w in args[after:] if not is_flag(data, w)]
    if place == _KEYED:
        if len(positional) >= 2 and secret_kind(positional[0].value(data).decode("latin-1")):
            yield from _secret(view, positional[1], rule)
    elif place == _LAST:
        if 1 <= len(positional) <= 2:
            yield from _secret(view, positional[-1], rule)
    elif len(positional) > place:
        yield from _secret(view, positional[place], rule)


POSITIONAL_RULES: tuple[Rule, ...] = (
    Rule(
        "net-user-password",
        "password",
        "cli",
        "Windows `net user <name> <password>` and `net use \\\\server\\share <password>`:"
        " the password argument (not `*`, which prompts).",
        rb"net(?:\.exe)?[ \t]use(?:r)?[ \t]",
        lower=True,
        handler=_net_user,
        examples=(
            ("net user alice S3cretPass! /add", "S3cretPass!"),
            ("C:\\> net user svc_backup correcthorse /add /domain", "correcthorse"),
            ("net use \\\\srv\\share /user:dom\\alice S3cretPass!", "S3cretPass!"),
            ('net use Z: \\\\srv\\share "two words" /user:alice', "two words"),
        ),
        decoys=(
            "net user alice",
            "net user alice * /add",
            "net user alice /active:no",
            "net use \\\\srv\\share /user:alice",
            "net use Z: /delete",
            "net user %USERNAME% %NEW_PASSWORD%",
            "the internet use policy applies",
        ),
    ),
    Rule(
        "htpasswd-batch",
        "password",
        "cli",
        "`htpasswd -b` (batch mode): the password argument after the file and user name.",
        rb"htpasswd(?:\.exe)?[ \t]+(?=-)",
        lower=True,
        handler=_htpasswd,
        examples=(
            ("htpasswd -b -c /etc/nginx/.htpasswd alice S3cretPass!", "S3cretPass!"),
            ("htpasswd -bB file alice correcthorse", "correcthorse"),
            ("htpasswd -nbB -C 12 alice 'two words'", "two words"),
            ("1237 ? S 0:00 /usr/bin/htpasswd -b users carol batterystaple", "batterystaple"),
        ),
        decoys=(
            "htpasswd -c /etc/nginx/.htpasswd alice",
            "htpasswd -D users alice",
            "htpasswd -B -C 10 users alice",
            "htpasswd -b users alice $NEW_PW",
        ),
    ),
    Rule(
        "subcommand-password",
        "password",
        "cli",
        "A password argument after a tool's subcommand: `rabbitmqctl add_user|change_password`,"
        " `mysqladmin password`, `redis-cli AUTH`, `nmcli ... password|wifi-sec.psk`,"
        " `db2 connect ... using`, `wpa_passphrase <ssid> <passphrase>`, the secret key of MinIO's"
        " `mc alias set` (its fourth argument), the value `aws configure set` gives a secret-named"
        " setting.",
        rb"(?:rabbitmqctl|mysqladmin|redis-cli|keydb-cli|valkey-cli|nmcli|wpa_passphrase"
        rb"|db2[ \t]connect|mc[ \t]alias|mc[ \t]config[ \t]host|aws[ \t]configure)"
        rb"(?:\.bat|\.exe)?[ \t]",
        lower=True,
        handler=_subcommand,
        examples=(
            ("rabbitmqctl add_user alice S3cretPass!", "S3cretPass!"),
            ("rabbitmqctl -n rabbit@mq1 change_password alice correcthorse", "correcthorse"),
            ("mysqladmin -uroot -pOld-pw-1 password newhorse", "newhorse"),
            ("redis-cli -h cache AUTH default redishorse", "redishorse"),
            ("nmcli dev wifi connect Office password wifihorse", "wifihorse"),
            ("nmcli con modify Office wifi-sec.psk 'psk horse'", "psk horse"),
            ("db2 connect to sample user db2inst1 using db2horse", "db2horse"),
            ("wpa_passphrase Office wpahorse", "wpahorse"),
            ("mc alias set minio http://minio:9000 minioadmin Mn-secret-99x", "Mn-secret-99x"),
            ("mc config host add s3 https://s3.example.com AKIDX Mc-secret-99x", "Mc-secret-99x"),
            ("aws configure set aws_secret_access_key Aws-secret-99x", "Aws-secret-99x"),
        ),
        decoys=(
            "rabbitmqctl add_user alice",
            "rabbitmqctl list_users",
            "mysqladmin -u root -p status",
            "redis-cli AUTH $REDIS_PASSWORD",
            "nmcli dev wifi connect Office",
            "db2 connect to sample",
            "wpa_passphrase Office",
            "aws configure set region us-east-1",
            "mc alias set minio http://minio:9000",
        ),
    ),
)
