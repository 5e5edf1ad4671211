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
from functools import lru_cache

from ..keys import is_placeholder
from ..rules import Hit, Rule, View
from .shellwords import flag_text, line_end, words

__all__ = ["CLI_PASSWORD_FLAG", "known_tool", "misplaced_password", "secret_flags"]

_CLI_VALUE = re.compile(rb"\"([^\"]*)\"|'([^']*)'|([^ \t\r\n\0\"']+)")
_CLI_FLAGS: tuple[tuple[re.Pattern[bytes], dict[bytes, str]], ...] = (
    (re.compile(rb"(?:mysql|mariadb)[a-z-]*"), {b"p": "attached"}),
    (re.compile(rb"sshpass"), {b"p": "either"}),
    (
        re.compile(rb"curl"),
        {b"u": "userpass", b"-user": "userpass", b"U": "userpass", b"-proxy-user": "userpass"},
    ),
    (re.compile(rb"wget"), {b"u": "userpass", b"-user": "userpass"}),
    (re.compile(rb"lftp"), {b"u": "comma"}),
    (re.compile(rb"redis-cli|keydb-cli|valkey-cli"), {b"a": "next"}),
    (
        re.compile(rb"(?:redis|keydb|valkey)-(?:server|sentinel)"),
        {b"-requirepass": "next", b"-masterauth": "next"},
    ),
    (re.compile(rb"ldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn)"), {b"w": "next"}),
    (re.compile(rb"ldappasswd"), {b"w": "next", b"a": "next", b"s": "next"}),
    (re.compile(rb"sqlcmd|bcp|isql"), {b"P": "next"}),
    (re.compile(rb"vsql"), {b"w": "next"}),
    (re.compile(rb"kadmin"), {b"w": "next"}),
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
    (re.compile(rb"ssh-keygen"), {b"P": "next", b"N": "next"}),
    (re.compile(rb"ipmitool"), {b"P": "next"}),
    (re.compile(rb"mosquitto_(?:pub|sub|rr)"), {b"P": "next"}),
    (re.compile(rb"useradd|usermod"), {b"p": "next"}),
    (re.compile(rb"influx"), {b"t": "next"}),
    (
        re.compile(
            rb"snmp(?:get|getnext|bulkget|bulkwalk|walk|set|table|trap|inform|delta|status|df"
            rb"|netstat|test)"
        ),
        {b"A": "next", b"X": "next", b"c": "next"},
    ),
)
"""Tools whose short or odd flags take a secret (``redis-cli -a``, ``ldapsearch -w``,
``keytool -storepass``, ``openssl -passin pass:``, ``ssh-keygen -N``, ``snmpwalk -A``,
``ipmitool -P``), and how the value is given. Where two entries name one tool, the later
one holds all its flags (``ldappasswd``'s old and new password, ``-a`` and ``-s``)."""
_TOOL_AT = re.compile(rb"(?:^|(?<=[\s\0/;|&(`\"'=]))([a-z0-9][a-z0-9_.-]*?)(?:\.exe)?[ \t\0]")
"""A command word: after a blank, a directory, an operator, the quote that opens a command
string (``sh -c "mysql -pX"``, a container's ``["sh", "-c", "mysql -pX"]``) or the ``=`` of
an option that holds one (``ssh -o ProxyCommand=sshpass -p X``), and before a blank. A NUL
is a blank here: ``/proc/<pid>/cmdline`` parts a command's arguments with NULs."""
_BLANK = (b" ", b"\t", b"\0")


def _tool_flags(low: bytes, line_start: int, flag_at: int) -> tuple[bytes, dict[bytes, str]] | None:
    """The command word before ``flag_at`` on its line that has secret flags, with them."""
    found = None
    for word in _TOOL_AT.finditer(low, line_start, flag_at + 1):
        name = word.group(1)
        flags = secret_flags(name)
        if flags is not None:
            found = (name, flags)
    return found


@lru_cache(maxsize=1024)
def secret_flags(tool: bytes) -> dict[bytes, str] | None:
    """The secret flags of ``tool`` (a lower-case command word) and how each takes its value
    (``attached``, ``next``, ``userpass``, ...), keyed by the flag without its first dash
    (``p``, ``-user``, ``storepass``); None for a tool the table does not know. A command
    line written as a list of arguments (:mod:`redactors.argv`) is judged by the same table."""
    found = None
    for pattern, flags in _CLI_FLAGS:
        if pattern.fullmatch(tool):
            found = flags  # the later entry holds all of a tool's flags
    return found


def known_tool(tool: bytes) -> bool:
    """Whether the table names ``tool`` (a lower-case command word): then which of its flags
    hold a secret is the table's to say, not a guess from the value's shape."""
    return secret_flags(tool) is not None


_MYSQL_CLIENTS = frozenset({b"mysql", b"mariadb"})
_MYSQL_ADMINS = frozenset({b"mysqladmin", b"mariadb-admin"})
_MYSQLADMIN_COMMANDS = tuple(
    b"""create debug drop extended-status flush-hosts flush-logs flush-privileges flush-status
    flush-tables flush-threads flush-user-resources kill old-password password ping processlist
    purge reload refresh shutdown start-replica start-slave status stop-replica stop-slave
    variables version""".split()
)
"""What ``mysqladmin`` takes as its arguments (a unique prefix of one will do)."""


def misplaced_password(tool: bytes, after: list[bytes]) -> bool:
    """Whether the word after a lone ``-p`` of a MySQL tool is a password typed in the wrong
    place (``after``: the words after the flag, that one first).

    ``-p`` takes its value attached (``-pPW``); alone it prompts, and the next word is the
    tool's own argument: ``mysql -p mydb`` names a database. Where the tool cannot take that
    word, it was meant as the password, and it is one wherever the line is kept: ``mysql``
    takes one database, so a second plain argument after it (``mysql -u root -p PW mydb``)
    says so, and ``mysqladmin`` takes commands, so a word that begins none (``mysqladmin
    -p PW status``) does. ``mysqldump -p db table`` names a database and a table: kept.
    """
    if not after or flag_text(after[0]) or after[0][:1] in (b"$", b"`", b"*"):
        return False
    value = after[0].strip(b"\"'")
    if tool in _MYSQL_ADMINS:
        return not any(c.startswith(value.lower()) for c in _MYSQLADMIN_COMMANDS)
    if tool not in _MYSQL_CLIENTS:
        return False
    valued = False  # the word after an option without "=" is taken as its value
    for text in after[1:]:
        if flag_text(text):
            valued = b"=" not in text and text.startswith(b"-")
            continue
        if not valued:
            return True
        valued = False
    return False


def _misplaced(view: View, tool: bytes, pos: int, anchor: int, rule: Rule) -> Iterable[Hit]:
    """``mysql -u root -p PW mydb``: :func:`misplaced_password` on a command line."""
    end = line_end(view, pos, anchor)
    if end is None:
        return
    after = list(words(view.data, pos, end))
    if after and misplaced_password(tool, [w.text(view.data) for w in after]):
        value = after[0]
        if not is_placeholder(value.value(view.data)):
            yield Hit(value.value_start, value.value_end, rule.kind, rule.id)


def _cli_password(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``mysql -uroot -phunter2``, ``redis-cli -a pw``, ``curl -u user:pass``, ...: the value
    of a secret flag of a known tool (the tool decides which flags are secret)."""
    data = view.data
    line_start = data.rfind(b"\n", 0, match.start()) + 1
    tool = _tool_flags(view.low, line_start, match.start())
    if tool is None:
        return
    name, flags = tool
    flag = match.group()[2:].rstrip(b" \t=\0")
    mode = flags.get(flag)
    if mode is None:
        return
    if mode == "login":  # docker login -p pw (docker run -p 8080:80 is a port)
        if b" login " not in view.low[line_start : match.start() + 1].replace(b"\0", b" "):
            return
        mode = "next"
    pos = match.end()
    follows = data[pos : pos + 1]
    if mode == "either":  # sshpass -p pw, sshpass -ppw
        mode = "next" if follows in (*_BLANK, b"=") else "attached"
    if mode not in ("attached", "userpass") and follows not in (*_BLANK, b"="):
        return  # "-pX" attached is not this tool's syntax
    if mode == "attached":
        if pos < len(data) and data[pos] in b" \t\0":
            yield from _misplaced(view, name, pos, match.start(), rule)
            return  # mysql -p alone prompts, and names a database: "mysql -p mydb"
        if pos < len(data) and data[pos] in b"=\r\n":
            return  # "-p 3306" is not a password
    else:
        while pos < len(data) and data[pos] in b" \t=\0":
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
    elif mode in ("percent", "comma"):  # smbclient -U user%pass, lftp -u user,pass
        separator = data.find(b"%" if mode == "percent" else b",", start, end)
        if separator < 0:
            return
        start = separator + 1
    value = data[start:end]
    if end > start and not is_placeholder(value) and not value.startswith(b"$"):
        yield Hit(start, end, rule.kind, rule.id)
    del name


CLI_PASSWORD_FLAG = Rule(
    "cli-password-flag",
    "password",
    "cli",
    "Secret flags of known database, cache, directory, registry, keystore and archive"
    " tools on a command line (the MySQL/Redis/LDAP/SQL Server/MongoDB/Vertica clients, the"
    " Redis server's requirepass and masterauth, Kerberos kadmin,"
    " sshpass, curl/wget/lftp user, docker login, keytool, openssl, smbclient, 7-Zip,"
    " ssh-keygen, ipmitool, mosquitto, useradd, the InfluxDB CLI's token, SNMP).",
    rb"[ \0]-(?:-user[ \t=\0]|-proxy-user[ \t=\0]|-requirepass|-masterauth|storepass|keypass"
    rb"|srcstorepass|deststorepass|passin|passout|[puawkt]|[PUsNA]|[Xc])",  # small classes index
    handler=_cli_password,
    examples=(
        ("mysql -uroot -phunter2 db", "hunter2"),
        ("sshpass -p hunter2 ssh h", "hunter2"),
        ("curl -u admin:s3cret https://x", "s3cret"),
        ("curl --user admin:s3cret https://x", "s3cret"),
        ("redis-cli -h cache -a 'R3dis!pw' ping", "R3dis!pw"),
        ("redis-server /etc/redis.conf --requirepass 'R3dis srv pw'", "R3dis srv pw"),
        ("valkey-server --port 6380 --masterauth Pr1mary-pw", "Pr1mary-pw"),
        ('kadmin -p admin/admin -w Kadm1n-pw -q "listprincs"', "Kadm1n-pw"),
        ("ldapsearch -x -D cn=admin -w Ld4pPw -b dc=x", "Ld4pPw"),
        ("sqlcmd -S db -U sa -P Sq1Pass! -Q x", "Sq1Pass!"),
        ("echo x | docker login -u bot -p dckr-pw-77 reg.example", "dckr-pw-77"),
        ("keytool -list -keystore k.jks -storepass chg1t-99", "chg1t-99"),
        ("openssl pkcs12 -in a.p12 -passin pass:P12-pass", "P12-pass"),
        ("smbclient //fs/share -U alice%Smb-pw-5", "Smb-pw-5"),
        ("7z x backup.7z -pZip-pw-7 -o/tmp", "Zip-pw-7"),
        ("mongosh --host db -u admin -p M0ngo-pw", "M0ngo-pw"),
        ("sshpass -pSsh-pw-3 ssh h", "Ssh-pw-3"),
        ("curl -U proxyuser:correcthorse -x proxy:3128 https://x", "correcthorse"),
        ("curl --proxy-user proxyuser:batterystaple https://x", "batterystaple"),
        ("lftp -u alice,ftphorse ftp.example.com", "ftphorse"),
        ("ldappasswd -x -D cn=admin -w Adm1n -a oldhorse -s newhorse uid=a", "newhorse"),
        ("ldappasswd -x -D cn=admin -w Adm1n -a oldhorse -s newhorse uid=a", "oldhorse"),
        ("vsql -U dbadmin -w verticahorse", "verticahorse"),
        ("ssh-keygen -p -P oldphrase -N 'new phrase' -f id", "new phrase"),
        ("ssh-keygen -p -P oldphrase -N 'new phrase' -f id", "oldphrase"),
        ("ipmitool -I lanplus -H bmc -U admin -P bmchorse power status", "bmchorse"),
        ("mosquitto_pub -h mq -u app -P mqtthorse -t x -m y", "mqtthorse"),
        ("usermod -p plainhorse alice", "plainhorse"),
        ("influx bucket list --org ops -t Infl-tok-93", "Infl-tok-93"),
        ("ssh -o 'ProxyCommand=sshpass -p Jump-pw-4 ssh -W %h:%p jump' h", "Jump-pw-4"),
        ("snmpwalk -v3 -l authPriv -u mon -a SHA -A authhorse -x AES -X privhorse h", "authhorse"),
        ("snmpwalk -v3 -l authPriv -u mon -a SHA -A authhorse -x AES -X privhorse h", "privhorse"),
        ("snmpget -v2c -c n0tpublic router sysUpTime.0", "n0tpublic"),
        ("mysql -u root -p hunterpass mydb", "hunterpass"),
        ("mysqladmin -u root -p adminhorse status", "adminhorse"),
    ),
    decoys=(
        "mysql -P 3306 -h db",
        "mkdir -p /var/lib/x",
        "docker run -p 8080:80 img",
        "grep -a pattern file",
        "redis-cli -a $REDIS_PASSWORD ping",
        "openssl pkcs12 -in a.p12 -passin env:P12_PW",
        "tar -xkf a.tar -w",
        "ssh-keygen -t ed25519 -N '' -f id",
        "ldapsearch -x -s sub -b dc=x",
        "lftp -u alice ftp.example.com",
        "wget -U Mozilla/5.0 https://x",
        "snmpd -c /etc/snmp/snmpd.conf",
        "bash -c 'echo hi'",
        "ipmitool -I lanplus -H bmc -p 623 sel list",
        "mysql -u root -p mydb",
        "mysql -p mydb -e 'select 1'",
        "mysql -p mydb < dump.sql",
        "mysqladmin -u root -p status",
        "mysqladmin -p create newdb",
        "mysqldump -u root -p appdb users",
    ),
)
