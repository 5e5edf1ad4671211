"""Secrets found by other context: cookies, bearer tokens, CLI flags, Azure keys, e-mails.

The key/value family is :mod:`.keyvalue`, URLs are :mod:`.urls`; this module
holds the remaining context rules and the catalog entries for all three.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder
from ..rules import ALNUM, Hit, Rule, View
from .keyvalue import KV_RULES, _name_value, _netrc
from .urls import _in_url_authority, _url_userinfo

__all__ = ["CONTEXT_RULES", "KV_RULES"]


def _cookie(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    line_end = data.find(b"\n", match.end())
    if line_end < 0:
        if not view.final:
            view.need_more_from(match.start())
            return
        line_end = len(data)
    end = line_end
    for stop in (b'"', b'\\"', b"'", b"\r"):
        found = data.find(stop, match.end(), end)
        if found >= 0:
            end = found
    set_cookie = view.low[max(0, match.start() - 4) : match.start()] == b"set-"
    pos = match.end()
    for index, pair in enumerate(data[pos:end].split(b";")):
        eq = pair.find(b"=")
        if eq > 0 and (index == 0 or not set_cookie):
            value_start = pos + eq + 1
            value = pair[eq + 1 :].strip()
            if value and not is_placeholder(value):
                lead = len(pair[eq + 1 :]) - len(pair[eq + 1 :].lstrip())
                yield Hit(value_start + lead, value_start + lead + len(value), rule.kind, rule.id)
        pos += len(pair) + 1


def _bearer(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    start, end = match.span(1)
    value = view.data[start:end]
    if not is_placeholder(value) and not value.isalpha():
        yield Hit(start, end, rule.kind, rule.id)


_CLI_TOOLS = re.compile(rb"(?:mysql|mariadb|sshpass|curl|wget)[a-z]*(?:\.exe)?[ \t]")
_CLI_VALUE = re.compile(rb"\"([^\"]*)\"|'([^']*)'|([^ \t\r\n\"']+)")


def _cli_password(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``mysql -uroot -phunter2``, ``sshpass -p hunter2``, ``curl -u user:pass``."""
    data = view.data
    line_start = data.rfind(b"\n", 0, match.start()) + 1
    tool = _CLI_TOOLS.search(view.low, line_start, match.start() + 1)
    if tool is None:
        return
    name = tool.group()
    flag = match.group()[2:]
    pos = match.end()
    if flag == b"p":
        if name.startswith(b"sshpass"):
            while pos < len(data) and data[pos] in b" \t":
                pos += 1
        elif pos < len(data) and data[pos] in b" \t=":
            return  # mysql -p alone prompts; "-p 3306" is not a password
    elif not name.startswith((b"curl", b"wget")):
        return  # mysql -u is the user name
    else:
        while pos < len(data) and data[pos] in b" \t=":
            pos += 1
    found = _CLI_VALUE.match(data, pos)
    if found is None:
        return
    group = next(i for i in (1, 2, 3) if found.group(i) is not None)
    start, end = found.span(group)
    if flag != b"p":
        colon = data.find(b":", start, end)
        if colon < 0:
            return
        start = colon + 1
    if end > start and not is_placeholder(data[start:end]):
        yield Hit(start, end, rule.kind, rule.id)


def _after_eq(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``AccountKey=...;``, ``&sig=...``: the value runs to the next delimiter."""
    data = view.data
    start = match.end()
    end = start
    while end < len(data) and data[end] not in b";&\"' \t\r\n<>,":
        end += 1
    if end - start >= 16 and not is_placeholder(data[start:end]):
        yield Hit(start, end, rule.kind, rule.id)


def _email(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    at = match.start()
    if data[at + 1 : at + 2] in (b"t", b"u"):  # Go MySQL DSN: user:password@tcp(host)/db
        start = max(data.rfind(s, 0, at) for s in (b"\n", b" ", b'"', b"'", b"=")) + 1
        colon = data.find(b":", start, at)
        if colon >= 0 and colon + 1 < at and not is_placeholder(data[colon + 1 : at]):
            yield Hit(colon + 1, at, "url-password", "go-mysql-dsn")
        return
    start = at
    while start > 0 and data[start - 1] in _LOCAL and at - start < 64:
        start -= 1
    while start < at and data[start] in b".-":
        start += 1
    if start == at:
        return
    local = view.low[start:at]
    if local in (b"git",) or _in_url_authority(view.low, start):
        return  # git@github.com, and a URL's user info (handled by the URL rule)
    yield Hit(start, match.end(), rule.kind, rule.id)


_LOCAL = ALNUM | frozenset(b"._%+-")


CONTEXT_RULES: tuple[Rule, ...] = (
    Rule(
        "name-value-pair",
        "secret",
        "key-value",
        'A "name": "<SECRET_NAME>" entry followed by its "value" (env lists, pretty-printed JSON).',
        rb"name(?:\\*[\"'])?[ \t]*[:=][ \t]*(?:\\*[\"'])?(?P<n>[a-z0-9_.-]{2,80})(?:\\*[\"'])?"
        rb"[ \t]*,?[ \t]*\r?\n?[ \t]*(?:-[ \t]*)?(?:\\*[\"'])?value(?:\\*[\"'])?[ \t]*[:=]",
        lower=True,
        handler=_name_value,
        examples=(
            ('{"name": "DB_PASSWORD",\n "value": "s3cret-v"}', "s3cret-v"),
            ("- name: API_TOKEN\n  value: tok-123456", "tok-123456"),
        ),
        decoys=('{"name": "LOG_LEVEL", "value": "debug"}',),
    ),
    Rule(
        "cookie",
        "cookie",
        "session",
        "Cookie and Set-Cookie header values (attributes kept).",
        rb"cookie(?:\\*[\"'])?[ \t]*:[ \t]*(?:\\*[\"'])?",
        lower=True,
        handler=_cookie,
        examples=(
            ("Cookie: sid=abc123; theme=dark", "abc123"),
            ("Set-Cookie: id=a3fWa; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Secure", "a3fWa"),
        ),
        decoys=("Cookie: sid=; theme=",),
    ),
    Rule(
        "bearer-token",
        "bearer-token",
        "token",
        "An opaque bearer credential after the word Bearer.",
        rb"bearer[ \t]+([a-z0-9._~+/-]{16,}=*)",
        lower=True,
        handler=_bearer,
        examples=(("using Bearer AbC123dEf456GhI789jKl0", "AbC123dEf456GhI789jKl0"),),
        decoys=("bearer token required",),
    ),
    Rule(
        "url-userinfo",
        "url-password",
        "connection-string",
        "Password in the user info of a URL of any scheme (unencoded @, percent-encoding).",
        rb"://",
        handler=_url_userinfo,
        examples=(
            ("postgres://app:pa55@db:5432/x", "pa55"),
            ("mongodb+srv://u:p@ss@cluster0.example.net/", "p@ss"),
            ("redis://:pw0rd@h:6379", "pw0rd"),
            ("https://u:p%40ss%3Aword@host/", "p%40ss%3Aword"),
            ("postgres://app:kFDi#uJ/b?0@db:5432/x", "kFDi#uJ/b?0"),
            (
                "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/AbCdEfGhIjKlMnOpQrStUvWx",
                "T0123ABCD/B0123ABCD/AbCdEfGhIjKlMnOpQrStUvWx",
            ),
            (
                "https://discord.com/api/webhooks/123456789012345678/" + "Ab_-" * 17,
                "123456789012345678/" + "Ab_-" * 17,
            ),
            (
                "https://acme.webhook.office.com/webhookb2/0a1b2c3d-aaaa-bbbb@x/IncomingWebhook/abc123/def456",
                "0a1b2c3d-aaaa-bbbb@x/IncomingWebhook/abc123/def456",
            ),
        ),
        decoys=(
            "https://example.com/a:b",
            "ssh://git@host/repo",
            "https://h:8080/x?e=a@b",
        ),
    ),
    Rule(
        "azure-account-key",
        "azure-storage-key",
        "cloud",
        "Azure account and shared access keys in connection strings.",
        rb"ac(?:count|cess)key=",
        lower=True,
        handler=_after_eq,
        examples=(
            (
                "AccountName=a;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu==;",
                "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu==",
            ),
        ),
    ),
    Rule(
        "azure-sas-signature",
        "signature",
        "cloud",
        "Azure SAS / signed-URL sig= parameter.",
        rb"sig=",
        lower=True,
        handler=_after_eq,
        examples=(
            (
                "https://a.blob.core.windows.net/c?sv=2021&sig=AbCdEf0123456789%2BxyZ%3D",
                "AbCdEf0123456789%2BxyZ%3D",
            ),
        ),
    ),
    Rule(
        "cli-password-flag",
        "password",
        "cli",
        "Passwords given to mysql, mariadb, sshpass, curl or wget on a command line.",
        rb" -(?:-user[ \t=]|[pu])",
        handler=_cli_password,
        examples=(
            ("mysql -uroot -phunter2 db", "hunter2"),
            ("sshpass -p hunter2 ssh h", "hunter2"),
            ("curl -u admin:s3cret https://x", "s3cret"),
            ("curl --user admin:s3cret https://x", "s3cret"),
        ),
        decoys=("mysql -P 3306 -h db", "mkdir -p /var/lib/x", "docker run -p 8080:80 img"),
    ),
    Rule(
        "netrc",
        "password",
        "key-value",
        ".netrc machine/login/password entries.",
        rb"machine[ \t]",
        lower=True,
        handler=_netrc,
        examples=(("machine h login u password p4ssw0rd", "p4ssw0rd"),),
    ),
    Rule(
        "email",
        "email",
        "pii",
        "E-mail addresses (personal data).",
        rb"@(?:tcp\(|unix\(|[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,24}(?![A-Za-z0-9_-]))",
        handler=_email,
        examples=(
            ("contact Alice.B+ops@mail.corp.example.com", "Alice.B+ops@mail.corp.example.com"),
            ("mailto:ADMIN@EXAMPLE.ORG", "ADMIN@EXAMPLE.ORG"),
            ("dsn user:s3cret@tcp(db:3306)/app", "s3cret"),
        ),
        decoys=(
            "git@github.com:org/repo",
            "image@sha256:abc",
            "ssh-ed25519 AAAAC3 user@host",
            "@workflow.with_options(affinity=x)",
        ),
    ),
)
