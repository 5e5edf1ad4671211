"""Secret flags of known tools on a command line: ``mysql -pX``, ``curl -u user:pass``.

Short flags mean different things to different tools (``-p`` is a password to
``mysql``, a port to ``docker run``, parents to ``mkdir``), so the tool named
on the line decides which of its flags take a secret, and how the value is
written (attached, next word, ``user:pass``, ``pass:X``). Long ``--password``
flags of any tool are key/value pairs (:mod:`.keyvalue`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder
from ..rules import Hit, Rule, View

__all__ = ["CLI_PASSWORD_FLAG"]

_CLI_VALUE = re.compile(rb"\"([^\"]*)\"|'([^']*)'|([^ \t\r\n\"']+)")
_CLI_FLAGS: tuple[tuple[re.Pattern[bytes], dict[bytes, str]], ...] = (
    (re.compile(rb"(?:mysql|mariadb)[a-z-]*"), {b"p": "attached"}),
    (re.compile(rb"sshpass"), {b"p": "next"}),
    (re.compile(rb"curl|wget"), {b"u": "userpass", b"-user": "userpass"}),
    (re.compile(rb"redis-cli|keydb-cli|valkey-cli"), {b"a": "next"}),
    (re.compile(rb"ldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn)"), {b"w": "next"}),
    (re.compile(rb"sqlcmd|bcp|isql"), {b"P": "next"}),
    (re.compile(rb"mongo(?:sh|dump|restore|export|import|stat|top)?"), {b"p": "next"}),
    (re.compile(rb"docker|podman|nerdctl|buildah|skopeo|helm|oras|crane"), {b"p": "login"}),
    (
        re.compile(rb"keytool"),
        {k: "next" for k in (b"storepass", b"keypass", b"srcstorepass", b"deststorepass")},
    ),
    (re.compile(rb"openssl"), {b"passin": "pass", b"passout": "pass", b"k": "next"}),
    (re.compile(rb"smbclient|rpcclient|smbmap"), {b"U": "percent"}),
    (re.compile(rb"7z|7za|7zz|rar|unrar"), {b"p": "attached"}),
    (re.compile(rb"zip|unzip"), {b"P": "next"}),
)
"""Tools whose short or odd flags take a secret (``redis-cli -a``, ``ldapsearch -w``,
``keytool -storepass``, ``openssl -passin pass:``), and how the value is given. Long
``--password``/``--token`` flags of any tool are key/value pairs (:mod:`.keyvalue`)."""
_TOOL_AT = re.compile(rb"(?:^|(?<=[\s/;|&(`]))([a-z0-9][a-z0-9_.-]*?)(?:\.exe)?[ \t]")


def _tool_flags(low: bytes, line_start: int, flag_at: int) -> tuple[bytes, dict[bytes, str]] | None:
    """The command word before ``flag_at`` on its line that has secret flags, with them."""
    found = None
    for word in _TOOL_AT.finditer(low, line_start, flag_at + 1):
        name = word.group(1)
        for tool, flags in _CLI_FLAGS:
            if tool.fullmatch(name):
                found = (name, flags)
    return found


def _cli_password(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``mysql -uroot -phunter2``, ``redis-cli -a pw``, ``curl -u user:pass``, ...: the value
    of a secret flag of a known tool (the tool decides which flags are secret)."""
    data = view.data
    line_start = data.rfind(b"\n", 0, match.start()) + 1
    tool = _tool_flags(view.low, line_start, match.start())
    if tool is None:
        return
    name, flags = tool
    flag = match.group()[2:].rstrip(b" \t=")
    mode = flags.get(flag)
    if mode is None:
        return
    if mode == "login":  # docker login -p pw (docker run -p 8080:80 is a port)
        if b" login " not in view.low[line_start : match.start() + 1]:
            return
        mode = "next"
    pos = match.end()
    follows = data[pos : pos + 1]
    if mode not in ("attached", "userpass") and follows not in (b" ", b"\t", b"="):
        return  # "-pX" attached is not this tool's syntax
    if mode == "attached":
        if pos < len(data) and data[pos] in b" \t=\r\n":
            return  # mysql -p alone prompts; "-p 3306" is not a password
    else:
        while pos < len(data) and data[pos] in b" \t=":
            pos += 1
    found = _CLI_VALUE.match(data, pos)
    if found is None:
        return
    group = next(i for i in (1, 2, 3) if found.group(i) is not None)
    start, end = found.span(group)
    if mode == "userpass":
        colon = data.find(b":", start, end)
        if colon < 0:
            return
        start = colon + 1
    elif mode == "pass":
        if not data.startswith(b"pass:", start):
            return  # env:VAR, file:path, stdin: a reference
        start += 5
    elif mode == "percent":
        percent = data.find(b"%", start, end)
        if percent < 0:
            return
        start = percent + 1
    value = data[start:end]
    if end > start and not is_placeholder(value) and not value.startswith(b"$"):
        yield Hit(start, end, rule.kind, rule.id)
    del name


CLI_PASSWORD_FLAG = Rule(
    "cli-password-flag",
    "password",
    "cli",
    "Secret flags of known database, cache, directory, registry, keystore and archive"
    " tools on a command line (the MySQL/Redis/LDAP/SQL Server/MongoDB clients, sshpass,"
    " curl/wget user, docker login, keytool, openssl, smbclient, 7-Zip).",
    rb" -(?:-user[ \t=]|storepass|keypass|srcstorepass|deststorepass|passin|passout"
    rb"|[puawPkU])",
    handler=_cli_password,
    examples=(
        ("mysql -uroot -phunter2 db", "hunter2"),
        ("sshpass -p hunter2 ssh h", "hunter2"),
        ("curl -u admin:s3cret https://x", "s3cret"),
        ("curl --user admin:s3cret https://x", "s3cret"),
        ("redis-cli -h cache -a 'R3dis!pw' ping", "R3dis!pw"),
        ("ldapsearch -x -D cn=admin -w Ld4pPw -b dc=x", "Ld4pPw"),
        ("sqlcmd -S db -U sa -P Sq1Pass! -Q x", "Sq1Pass!"),
        ("echo x | docker login -u bot -p dckr-pw-77 reg.example", "dckr-pw-77"),
        ("keytool -list -keystore k.jks -storepass chg1t-99", "chg1t-99"),
        ("openssl pkcs12 -in a.p12 -passin pass:P12-pass", "P12-pass"),
        ("smbclient //fs/share -U alice%Smb-pw-5", "Smb-pw-5"),
        ("7z x backup.7z -pZip-pw-7 -o/tmp", "Zip-pw-7"),
        ("mongosh --host db -u admin -p M0ngo-pw", "M0ngo-pw"),
    ),
    decoys=(
        "mysql -P 3306 -h db",
        "mkdir -p /var/lib/x",
        "docker run -p 8080:80 img",
        "grep -a pattern file",
        "redis-cli -a $REDIS_PASSWORD ping",
        "openssl pkcs12 -in a.p12 -passin env:P12_PW",
        "tar -xkf a.tar -w",
    ),
)
