"""Secrets found by their context: key names, headers, URLs, connection strings, CLI flags.

The value's shape is not trusted (``hunter2`` and ``P@ss w0rd!`` are real
passwords), so these rules find a *secret-looking key* and then take the
value by syntax (:mod:`redactors.values`). The key is judged on its whole
name by :func:`redactors.keys.secret_kind`, found by walking back from the
keyword that anchored the match.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable

from ..entropy import run_after
from ..keys import is_placeholder, secret_kind
from ..rules import ALNUM, Hit, Rule, View
from ..values import NeedMore, value_spans

KEY_CHARS = ALNUM | frozenset(b"_.-")
_SCHEME_KINDS = {b"basic": "basic-auth", b"bearer": "bearer-token", b"token": "bearer-token"}


def _key_start(data: bytes, pos: int) -> int:
    while pos > 0 and data[pos - 1] in KEY_CHARS:
        pos -= 1
    return pos


def _basic_extra(value: bytes) -> tuple[bytes, ...]:
    """A Basic credential decodes to ``user:password``: propagate both forms."""
    try:
        decoded = base64.b64decode(value + b"=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return ()
    if b":" not in decoded or not decoded.isascii():
        return ()
    password = decoded.split(b":", 1)[1]
    return (decoded, password) if len(password) >= 4 else (decoded,)


def _kv_hits(
    view: View,
    key_start: int,
    key_end: int,
    value_pos: int,
    rule: Rule,
    *,
    next_line: bool = True,
    classify: Callable[[str], str | None] = secret_kind,
) -> Iterable[Hit]:
    data = view.data
    key = data[key_start:key_end].strip(b"\\\"'&;").decode("latin-1")
    kind = classify(key)
    if kind is None:
        return
    try:
        spans = value_spans(data, value_pos, final=view.final, allow_next_line=next_line)
    except NeedMore:
        view.need_more_from(key_start)
        return
    lowered = key.lower().lstrip("-")
    for span in spans:
        value = data[span.start : span.end]
        if is_placeholder(value) or (value.isdigit() and len(value) < 4):
            continue  # a count or a flag ("attempts: 3"), not a credential (PINs have 4+ digits)
        if lowered in ("pwd", "oldpwd") and value[:1] in (b"/", b"~"):
            continue  # the shell's working directory, not a password
        hit_kind, extra = kind, ()
        lead = data[value_pos : span.start].strip(b" \t\"'\\").lower()
        scheme = lead.split()[-1] if lead.split() else b""
        if scheme in _SCHEME_KINDS:
            hit_kind = _SCHEME_KINDS[scheme]
            if scheme == b"basic":
                extra = _basic_extra(value)
        elif kind == "auth" and len(value) < 8:
            continue  # "auth: ok", "auth=none": a state, not a credential
        yield Hit(span.start, span.end, hit_kind, rule.id, extra=extra)


def _kv(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    start = _key_start(data, match.start())
    if match.groupdict().get("prose") is not None:
        span = run_after(data, match.start("prose"))
        if span is not None:
            yield Hit(span[0], span[1], "high-entropy", rule.id)
        return
    sep = match.group("sep")
    if sep is None and data[start : start + 1] != b"-":
        return  # "--password value" is a flag; "split-pw-64 tail" is not
    if sep == b">" and (start == 0 or data[start - 1] != 0x3C):
        return  # only <password>value</password>
    if sep == b"=" and view.low[start : match.end()] == b"key=":
        yield from _xml_pair(view, match.end(), rule)
        return
    yield from _kv_hits(
        view, start, match.end("rest"), match.end(), rule, next_line=sep not in (None, b">")
    )


def kv_rule(
    keyword: str,
    kind: str,
    examples: tuple[tuple[str, str], ...] = (),
    decoys: tuple[str, ...] = (),
    *,
    prose: bool = False,
) -> Rule:
    """``<...keyword...><sep><value>``; a bare space separates only after ``-`` (CLI flags).

    With ``prose``, a random-looking run shortly after the keyword is taken too
    ("token is 9f8ZqA7b..."): the high-entropy fallback.
    """
    kw = re.escape(keyword.encode())
    prose_branch = rb"|(?P<prose>[^\n]{0,40}?[ \t:=])(?=[a-z0-9+/_=-]{24})" if prose else b""
    pattern = (
        kw + rb"(?:(?<=-" + kw + rb")(?P<cli>))?(?P<rest>[a-z0-9_.-]{0,48})"
        rb"(?:(?:\\*[\"']|&quot;|\\u0022)?[ \t]{0,4}(?P<sep>=>|:=|[:=]|>)"
        rb"|(?(cli)[ \t]+(?=[^ \t\r\n-]|-[^ \t\r\n-]{5})|(?!))" + prose_branch + rb")"
    )
    return Rule(
        f"kv-{keyword.strip('-')}",
        kind,
        "key-value",
        f"Value of a key, flag or header whose name contains '{keyword}'.",
        pattern,
        lower=True,
        handler=_kv,
        examples=examples,
        decoys=decoys,
    )


def _netrc(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``.netrc``: ``machine h login u password p`` (tokens, possibly over several lines)."""
    low = view.low
    end = min(len(low), match.end() + 1024)
    nxt = low.find(b"machine ", match.end(), end)
    end = nxt if nxt >= 0 else end
    for found in re.finditer(
        rb"(?:^|\s)(?:password|passwd|account)[ \t]+(\S+)", low[match.end() : end]
    ):
        start, stop = match.end() + found.start(1), match.end() + found.end(1)
        if not is_placeholder(view.data[start:stop]):
            yield Hit(start, stop, rule.kind, rule.id)


def _name_value(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``{"name": "DB_PASSWORD", "value": "..."}`` and ``- name: X\\n  value: Y``."""
    name_start, name_end = match.span("n")
    yield from _kv_hits(view, name_start, name_end, match.end(), rule, next_line=False)


_XML_PAIR = re.compile(rb"[\"']([A-Za-z0-9_.:-]{2,80})[\"'][ \t]+value=")


def _xml_pair(view: View, pos: int, rule: Rule) -> Iterable[Hit]:
    """``<add key="ClearTextPassword" value="..."/>`` (NuGet, .NET app settings)."""
    found = _XML_PAIR.match(view.data, pos)
    if found:
        yield from _kv_hits(view, found.start(1), found.end(1), found.end(), rule, next_line=False)


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


_SCHEME_BACK = re.compile(rb"[A-Za-z][A-Za-z0-9+.-]{0,30}$")
_AUTHORITY_END = frozenset(b"/?# \t\r\n\"'<>`\\|")
_HEX = frozenset(b"0123456789abcdefABCDEF")


def _url_userinfo(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``scheme://user:password@host``; the password may contain unencoded ``@``, ``#``, ``/``."""
    data = view.data
    if not _SCHEME_BACK.search(data, max(0, match.start() - 31), match.start()):
        return
    pos = match.end()
    end = pos
    limit = min(len(data), pos + 2048)
    while end < limit and data[end] not in _AUTHORITY_END:
        end += 1
    at = data.rfind(b"@", pos, end)
    if at < 0:
        yield from _webhook_path(view, pos, end, limit)
        at = _late_at(data, pos, end, limit)
        if at < 0:
            return
    colon = data.find(b":", pos, at)
    if colon >= 0:
        if colon + 1 < at and not is_placeholder(data[colon + 1 : at]):
            yield Hit(colon + 1, at, rule.kind, rule.id, extra=_percent_forms(data[colon + 1 : at]))
        return
    user = data[pos:at]
    if _looks_like_token(user):  # https://<token>@github.com, sentry DSN keys
        yield Hit(pos, at, "url-token", rule.id)


_WEBHOOK_HOSTS = re.compile(
    rb"(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    rb"|(?:discord|discordapp)\.com/api/webhooks/"
    rb"|[a-z0-9-]+\.webhook\.office\.com/webhookb?2?/)"
)


def _webhook_path(view: View, pos: int, stop: int, limit: int) -> Iterable[Hit]:
    """Slack, Discord and Teams webhook URLs: the path is the credential."""
    found = _WEBHOOK_HOSTS.match(view.low, pos)
    if found is None:
        return
    end = found.end()
    while end < limit and view.data[end] not in _TOKEN_END:
        end += 1
    if end - found.end() >= 20:
        yield Hit(found.end(), end, "webhook-url", "webhook-url")


_TOKEN_END = frozenset(b" \t\r\n\"'<>`")
_HOST_AFTER = re.compile(rb"[A-Za-z0-9][A-Za-z0-9.-]*(?::[0-9]{1,5})?(?:[/?#]|$|[ \t\r\n\"'<>])")


def _late_at(data: bytes, pos: int, stop: int, limit: int) -> int:
    """An ``@`` after a ``/``, ``?`` or ``#`` that belongs to an unencoded password.

    Only when ``user:`` starts the authority and the text up to the ``@`` has no
    ``=``/``&`` (a query string with an e-mail address is not userinfo).
    """
    colon = data.find(b":", pos, stop)
    if colon < 0 or stop >= limit or data[stop] not in b"/?#":
        return -1
    end = stop
    while end < limit and data[end] not in _TOKEN_END:
        end += 1
    at = data.rfind(b"@", stop, end)
    if at < 0 or b"=" in data[colon:at] or b"&" in data[colon:at]:
        return -1
    return at if _HOST_AFTER.match(data, at + 1) else -1


def _looks_like_token(value: bytes) -> bool:
    if len(value) < 20 or not all(c in ALNUM or c in b"_-" for c in value):
        return False
    return (any(c in b"0123456789" for c in value) and any(c not in _HEX for c in value)) or (
        len(value) >= 32 and all(c in _HEX for c in value)
    )


def _percent_forms(value: bytes) -> tuple[bytes, ...]:
    if b"%" not in value:
        return ()
    try:
        from urllib.parse import unquote_to_bytes

        return (unquote_to_bytes(value),)
    except ValueError:
        return ()


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


def _in_url_authority(low: bytes, pos: int) -> bool:
    """True when ``pos`` is after ``scheme://`` with no ``/`` or space in between."""
    scheme = low.rfind(b"://", max(0, pos - 256), pos)
    if scheme < 0:
        return False
    between = low[scheme + 3 : pos]
    return not any(c in between for c in b"/ \t\n\"'<>?")


_LOCAL = ALNUM | frozenset(b"._%+-")


KV_RULES: tuple[Rule, ...] = (
    kv_rule(
        "pass",
        "password",
        examples=(
            ("db_password=hunter2", "hunter2"),
            ('{"password": "P@ss w0rd!#"}', "P@ss w0rd!#"),
            ("--password hunter2", "hunter2"),
            ("PGPASSWORD=Winter2026!", "Winter2026!"),
            ("<password>p4ss</password>", "p4ss"),
            ("password: >-\n  folded-secret\n", "folded-secret"),
            ('{"password":"$YMQd5JQHOz0"}', "$YMQd5JQHOz0"),
        ),
        decoys=(
            "passthrough=true",
            "password=",
            "password: ${DB_PASSWORD}",
            "password=$DB_PASSWORD",
            "password_file=/etc/pw",
            "password reset email sent",
            "tests passed=12",
        ),
        prose=True,
    ),
    kv_rule(
        "secret",
        "secret",
        examples=(
            ("client_secret: s3cr3t-value", "s3cr3t-value"),
            ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG", "wJalrXUtnFEMI/K7MDENG"),
        ),
        decoys=("secretary=bob", "secret rotation completed", "secret_name: db-creds"),
        prose=True,
    ),
    kv_rule(
        "token",
        "token",
        examples=(
            ("FLUX_WORKERS__BOOTSTRAP_TOKEN=Zx81kQ", "Zx81kQ"),
            ("session_token: 0f8a9b7c6d5e4f3a2b1c0d9e8f7a6b5c", "0f8a9b7c6d5e4f3a2b1c0d9e8f7a6b5c"),
            ("--token abc123def456", "abc123def456"),
            ("token:abc123def456,next=1", "abc123def456"),
            ("the token is 9f8ZqA7bC6dE5fG4hI3jK2lM1nO0pQ here", "9f8ZqA7bC6dE5fG4hI3jK2lM1nO0pQ"),
        ),
        decoys=("max_tokens=4096", "token refresh scheduled", "tokenizer=bpe", "token_ttl=3600"),
        prose=True,
    ),
    kv_rule(
        "key",
        "secret-key",
        examples=(
            ("x-api-key: 9f8e7d6c5b4a", "9f8e7d6c5b4a"),
            ('"sharedKey": "abc+/def=="', "abc+/def=="),
            ('<add key="ClearTextPassword" value="nuget-p4ss" />', "nuget-p4ss"),
            ("LYFTDATA_AUTO_ENROLLMENT_KEY=ab12cd34", "ab12cd34"),
        ),
        decoys=("cache_key=abc", "keyboard=us", "monkey=see", "key: value"),
        prose=True,
    ),
    kv_rule(
        "auth",
        "auth",
        examples=(
            ("Authorization: Bearer abcdefghij0123456789XYZ", "abcdefghij0123456789XYZ"),
            ('"auth": "dXNlcjpzM2NyM3Q="', "dXNlcjpzM2NyM3Q="),
            ("Proxy-Authorization: Basic dXNlcjpzM2NyM3Q=", "dXNlcjpzM2NyM3Q="),
        ),
        decoys=("authorName=bob", "auth=ok", "auth_method: oidc"),
    ),
    kv_rule(
        "cred",
        "credential",
        examples=(("credentials=u1:p2-secret", "u1:p2-secret"),),
        decoys=("credential_id=42",),
        prose=True,
    ),
    kv_rule(
        "session",
        "session-token",
        examples=(
            ("sessionid=8f14e45fceea167a5a36dedd4bea2543", "8f14e45fceea167a5a36dedd4bea2543"),
        ),
        decoys=("session_count=3",),
    ),
    kv_rule(
        "webhook",
        "webhook-url",
        examples=(("NOTIFY_WEBHOOK_URLS=https://h.example/x/y", "https://h.example/x/y"),),
    ),
    kv_rule("psk", "psk", examples=(("LYFTDATA_JWT_PSK=deadbeefcafe", "deadbeefcafe"),)),
    kv_rule(
        "pw",
        "password",
        examples=(('{"pw": "tiny-pw-1"}', "tiny-pw-1"), ("Pwd={x}}y};", "x}}y")),
        decoys=("pwm=3", "PWD=/home/alice"),
    ),
)

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
        rb"@(?:tcp\(|unix\(|[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-]))",
        handler=_email,
        examples=(
            ("contact Alice.B+ops@mail.corp.example.com", "Alice.B+ops@mail.corp.example.com"),
            ("mailto:ADMIN@EXAMPLE.ORG", "ADMIN@EXAMPLE.ORG"),
            ("dsn user:s3cret@tcp(db:3306)/app", "s3cret"),
        ),
        decoys=("git@github.com:org/repo", "image@sha256:abc", "ssh-ed25519 AAAAC3 user@host"),
    ),
)
