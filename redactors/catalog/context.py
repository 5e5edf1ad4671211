"""Secrets found by other context: cookies, bearer tokens, CLI flags, Azure keys, e-mails.

The key/value family is :mod:`.keyvalue`, URLs are :mod:`.urls`; this module
holds the remaining context rules and the catalog entries for all three.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable

from ..decode import MAX_BLOCK, b64_signatures
from ..keys import is_placeholder
from ..rules import ALNUM, Hit, Rule, View, line_end_or_hold, runs_past_view
from ..values import NeedMore, value_spans
from .cliflags import CLI_PASSWORD_FLAG
from .keyvalue import KV_RULES, _name_value, _netrc, _php_define, _to_line_end, _xml_name_value
from .oracle import ORACLE_TOOLS, ORACLE_USER
from .prose import PROSE_PASSWORD
from .sql import SQL_RULES
from .urls import (
    URL_WITH_USERINFO_OR_WEBHOOK,
    _in_url_authority,
    _path_token,
    _signature,
    _url_userinfo,
    _webhook_anywhere,
)

__all__ = ["CONTEXT_RULES", "KV_RULES", "SQL_RULES"]


def _cookie(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    if _in_token(view.low, match.start()):
        return  # "[REDACTED:cookie:…]; SameSite=Lax": the token's own kind is no header
    line_end = line_end_or_hold(view, match.end(), match.start())
    if line_end is None:
        return
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


_TOKEN_HEAD = re.compile(rb"\[redacted:[a-z0-9-]{0,39}$")


def _in_token(low: bytes, pos: int) -> bool:
    """Whether ``pos`` lies in the kind of a redaction token written before (``[REDACTED:
    cookie:…]``): words the redactor wrote never count as context, so redacting its own
    output again changes nothing (``bundler review`` judges them so too)."""
    return _TOKEN_HEAD.search(low, max(0, pos - 50), pos) is not None


def _bearer(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    start, end = match.span(1)
    value = view.data[start:end]
    if not is_placeholder(value) and not value.isalpha():
        yield Hit(start, end, rule.kind, rule.id)


def _basic(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``Basic <base64>`` wherever it stands: redacted only when it decodes to a printable
    ``user:password`` (the scheme's own shape), so ``basic authentication`` stays."""
    start, end = match.span(1)
    if runs_past_view(view, end, match.start()):
        return
    if end < len(view.data) and view.data[end] in _B64_RUN_CHARS:
        return  # a longer word: not the credential's end
    try:
        decoded = base64.b64decode(view.data[start:end], validate=True)
    except (binascii.Error, ValueError):
        return
    _, colon, password = decoded.partition(b":")
    if colon and password and decoded.isascii() and decoded.decode().isprintable():
        yield Hit(start, end, rule.kind, rule.id)


_B64_RUN_CHARS = ALNUM | frozenset(b"+/_-")


def _encoded_block(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """A base64 run that starts like base64 of a secret-bearing text: decode and rescan it."""
    start, end = match.span()
    if start > 0 and view.data[start - 1] in _B64_RUN_CHARS:
        return  # inside a longer run: not where an encoding starts
    if runs_past_view(view, end, start):
        return
    yield from view.rescan_block(start, end)


_SECRET_WORDS = (
    *(
        spelled
        for word in (b"password", b"secret", b"token")
        for spelled in (word, word.upper(), word.capitalize())
    ),
    *(b"passwd", b"api_key", b"API_KEY", b"apikey", b"ApiKey"),
    *(b"pass=", b"PASS=", b"pwd=", b"PWD=", b"Authorization"),
)
"""Key names whose encoding marks a blob to decode, as they are spelled (``DB_PASSWORD=``,
``Password:``, an INI ``pass=``, a header ``Authorization: Bearer``); base64 keeps case."""
_SECRET_WORD_SIGNATURES = tuple(
    dict.fromkeys(sig for word in _SECRET_WORDS for sig in b64_signatures(word) if len(sig) >= 5)
)
"""What base64 of a text holding one of these key names holds, wherever the name stands (at
most :data:`~redactors.rules.PREFIXES_MAX`: past it a rule is no longer indexed, and tried at
every byte of every text)."""
_SECRET_WORD_HEX = tuple(word.hex().encode() for word in _SECRET_WORDS)
"""The same key names in hex (matched lower-cased: ``70617373776F7264`` too)."""


_NOT_RUN = bytes(0 if byte in _B64_RUN_CHARS else 1 for byte in range(256))
"""``translate`` table: 1 where a byte ends a base64 or hex run, else 0."""
_NEAR = 256
"""How far back a run's start is looked for first (most runs are shorter)."""
_RUN_REST = rb"[A-Za-z0-9+/_-]*+={0,2}+"
"""What follows a key name's encoding to the end of its run: a match takes the whole rest,
so the next name in the same run is not tried again (a base64 log of thousands of lines,
each naming a token, is one run read once)."""


def _run_start(data: bytes, pos: int) -> int | None:
    """Where the run holding ``data[pos]`` begins, found in C; None when it begins more than
    :data:`~redactors.decode.MAX_BLOCK` before ``pos`` (no block that long is decoded)."""
    for reach in (_NEAR, MAX_BLOCK + 1):
        low = max(0, pos - reach)
        other = data[low:pos].translate(_NOT_RUN).rfind(1)
        if other >= 0:
            return low + other + 1
        if low == 0:
            return 0
    return None


def _run_around(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """The base64 or hex run a secret key name's encoding stands in (the match runs to its
    end), decoded and rescanned whole."""
    start, end = _run_start(view.data, match.start()), match.end()
    if start is None or end - start > MAX_BLOCK:
        return  # never decoded, whatever follows: no more text is asked for
    if runs_past_view(view, end, start):
        return
    if end - start >= 16:
        yield from view.rescan_block(start, end)


def _after_eq(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``AccountKey=...;``, ``&sig=...``: the value runs to the next delimiter."""
    data = view.data
    start = match.end()
    end = start
    while end < len(data) and data[end] not in b";&\"' \t\r\n<>,":
        end += 1
    if end - start >= 16 and not is_placeholder(data[start:end]):
        yield Hit(start, end, rule.kind, rule.id)


_VAULT_ARG = re.compile(rb"[ \t]*(\S+)")


def _vault_login(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``vault login s.Xk82...``: the first argument that is not a flag is the token itself
    (any format: the legacy ``s.`` tokens have no prefix a pattern could trust alone);
    ``username=``/``password=`` arguments of other methods are the key rules'."""
    data = view.data
    line_end = line_end_or_hold(view, match.end(), match.start())
    if line_end is None:
        return
    pos = match.end()
    while (arg := _VAULT_ARG.match(data, pos, line_end)) is not None:
        pos = arg.end()
        start, end = arg.span(1)
        if data[start : start + 1] == b"-" or b"=" in data[start:end]:
            continue
        if (
            data[start : start + 1] in (b'"', b"'")
            and data[end - 1 : end] == data[start : start + 1]
        ):
            start, end = start + 1, end - 1
        if end - start >= 8 and not is_placeholder(data[start:end]):
            yield Hit(start, end, rule.kind, rule.id)
        return


_DIRECTIVE_LEAD = re.compile(rb"[ \t]*(?:config[ \t]+set[ \t]+)?")
_HASH_SCHEME = re.compile(rb"\{[A-Za-z0-9.-]{2,16}\}")
_COMMUNITY = re.compile(rb"r[ow]community")


def _directive(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``requirepass p``, ``bindpw p``, ``rocommunity c``, ``auth_pass p`` (keepalived's
    ``authentication`` block): a directive whose argument is the
    secret. Only first on its line (a ``#`` comment, as in redis.conf's ``# requirepass
    foobared``, is not one) or after Redis's ``CONFIG SET``. The value may be quoted; an
    LDAP ``{SSHA}`` scheme stays and the hash after it goes.

    First on its line, the directive owns the line as a key does in an INI file, and an
    unquoted value runs to its end (``requirepass correct horse battery``; nslcd reads
    ``bindpw`` so), as :func:`.keyvalue._to_line_end` reads it; not a community, which a
    source network and an OID may follow (``rocommunity c 10.0.0.0/8``), nor after ``CONFIG
    SET``, which takes more parameter-value pairs."""
    low = view.low
    line_start = low.rfind(b"\n", 0, match.start()) + 1
    lead = _DIRECTIVE_LEAD.fullmatch(low, line_start, match.start())
    if lead is None:
        return
    data = view.data
    pos = match.end()
    scheme = _HASH_SCHEME.match(data, pos)
    if scheme is not None:
        pos = scheme.end()
    owns_line = not lead.group().strip() and not _COMMUNITY.match(low, match.start())
    try:
        spans = value_spans(data, pos, final=view.final, allow_next_line=False)
        if owns_line and len(spans) == 1:
            spans = [_to_line_end(data, spans[0], final=view.final)]
    except NeedMore:
        view.need_more_from(match.start())
        return
    for span in spans:
        if not is_placeholder(data[span.start : span.end]):
            yield Hit(span.start, span.end, rule.kind, rule.id)


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
    if _oracle_logon_password(view.low, at):
        yield Hit(start, at, "password", rule.id)  # the host after "@" is the connect string
        return
    yield Hit(start, match.end(), rule.kind, rule.id)


_ORACLE_USER = re.compile(rb"(?:^|[\s:=\"'])" + ORACLE_USER + rb"/$")
_ORACLE_CONTEXT = re.compile(rb"jdbc:oracle:|\b(?:" + ORACLE_TOOLS + rb")\b")


def _oracle_logon_password(low: bytes, at: int) -> bool:
    """``scott/Tiger-pw9@db.example.com`` on a line with ``jdbc:oracle:`` or an Oracle tool:
    what reads as a mailbox before ``at`` is a logon's password and its connect string (the
    logon rules take all of the password; the host is evidence, not a mailbox)."""
    line_start = low.rfind(b"\n", 0, at) + 1
    slash = low.rfind(b"/", line_start, at)
    if slash < 0 or any(blank in low[slash:at] for blank in (b" ", b"\t")):
        return False
    before = low[max(line_start, slash - 127) : slash + 1]
    return bool(_ORACLE_USER.search(before)) and bool(
        _ORACLE_CONTEXT.search(low, line_start, slash)
    )


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
        "xml-name-value",
        "secret",
        "key-value",
        "An XML name naming a secret and the <value> element after it: Hadoop, Hive and HBase"
        " site files (<name>...</name><value>...</value>), Spring beans and .NET settings"
        ' (name="..."><value>...</value>), map entries (<key>...</key><value>...</value>).',
        rb"(?:<(?:name|key)>[ \t]*(?P<n>[a-z0-9_.:/-]{2,160})[ \t]*</(?:name|key)>"
        rb'|name="(?P<a>[a-z0-9_.:/-]{2,160})"[^<>\r\n]{0,200}>)[ \t\r\n]{0,200}<value>',
        lower=True,
        handler=_xml_name_value,
        examples=(
            (
                "<property><name>fs.s3a.secret.key</name><value>Hd-s3cret 9</value></property>",
                "Hd-s3cret 9",
            ),
            (
                "<property>\n  <name>javax.jdo.option.ConnectionPassword</name>\n"
                "  <value>Hive-s3cret-9</value>\n</property>",
                "Hive-s3cret-9",
            ),
            ('<property name="password"><value>Spr-s3cret-9</value></property>', "Spr-s3cret-9"),
            (
                '<setting name="ApiKey" serializeAs="String">\n  <value>Net-s3cret-9</value>',
                "Net-s3cret-9",
            ),
            ("<entry><key>password</key><value>Map-s3cret-9</value></entry>", "Map-s3cret-9"),
        ),
        decoys=(
            "<property><name>fs.s3a.endpoint</name><value>s3.eu-west-1.amazonaws.com</value>",
            "<name>hadoop.security.credential.provider.path</name><value>jceks://hdfs/x</value>",
            '<setting name="Theme" serializeAs="String"><value>dark</value></setting>',
        ),
    ),
    PROSE_PASSWORD,
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
        "ci-masked-value",
        "secret",
        "token",
        "A value a CI job asks its runner to mask (GitHub Actions' add-mask workflow command,"
        " an Azure Pipelines task.setvariable marked issecret): masked in the log the runner"
        " shows, not in its diagnostics or a step log copied elsewhere.",
        rb"(?:::add-mask::|##vso\[task\.setvariable [^\]\r\n]*issecret=true[^\]\r\n]*\])"
        rb"[ \t]*([^\s](?:[^\r\n]*[^\s])?)",
        lower=True,
        group=1,
        examples=(
            ("::add-mask::Xq7rT5vWmK29pLz4", "Xq7rT5vWmK29pLz4"),
            ("[command]::add-mask::s3cr3t-v4lue  ", "s3cr3t-v4lue"),
            (
                "##vso[task.setvariable variable=dbPass;isSecret=true]Pa55-w0rd!",
                "Pa55-w0rd!",
            ),
        ),
        decoys=(
            "::add-mask::",
            "##vso[task.setvariable variable=region]eu-west-1",
            "::debug::add-mask called",
        ),
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
        "basic-credentials",
        "basic-auth",
        "token",
        "HTTP Basic credentials after the word Basic (base64 of user:password), wherever they"
        " stand: a header written in prose, a log of the request.",
        rb"basic[ \t]+([a-z0-9+/]{4,}={0,2})",
        lower=True,
        handler=_basic,
        examples=(
            (
                "DEBUG: Authorization header: Basic ZXRsOmJhc2ljLWhkci1wdw==",
                "ZXRsOmJhc2ljLWhkci1wdw==",
            ),
            ("sending auth Basic YWRtaW46czNjcmV0", "YWRtaW46czNjcmV0"),
        ),
        decoys=(
            "basic authentication is disabled",
            "Basic dGVzdA== was sent",
            "basic YWRtaW46 empty",
        ),
    ),
    Rule(
        "url-userinfo",
        "url-password",
        "connection-string",
        "Password in the user info of a URL of any scheme (unencoded @, percent-encoding).",
        URL_WITH_USERINFO_OR_WEBHOOK,
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
        "base64-secret-text",
        "secret",
        "encoding",
        "Base64, once or twice, of a text that starts like JSON, a PEM block, gzip or a"
        " password/secret/token assignment: decoded and rescanned (the encoded run is replaced).",
        # base64 of '{"' twice, of '-----BEGIN' twice, of gzip's magic twice; of 'password',
        # 'secret', 'token' once and twice (alignment 0: where an encoded text starts)
        rb"(?:ZXlK|TFMwdExTMUNSVWRK|SDRzSU|cGFzc3dvcmQ|Y0dGemMzZHZjbVE|c2VjcmV0|YzJWamNtVjB"
        rb"|dG9rZW4|ZEc5clpXNA"
        # base64 of JSON opened otherwise: '{\n ', '{\n"', '{\n\t', '{\r\n', '{ "', '[{"',
        # '[{\n', '[\n ', '[\n\t', '[ {' (pretty-printed, spaced, a list of objects)
        rb"|ewog|ewoi|ewoJ|ew0K|eyAi|W3si|W3sK|Wwog|WwoJ|WyB7)[A-Za-z0-9+/_-]{8,}={0,2}",
        handler=_encoded_block,
        examples=(
            # base64(base64('{"password": "Tw1ce-encoded-pw"}'))
            (
                "blob ZXlKd1lYTnpkMjl5WkNJNklDSlVkekZqWlMxbGJtTnZaR1ZrTFhCM0luMD0= end",
                "ZXlKd1lYTnpkMjl5WkNJNklDSlVkekZqWlMxbGJtTnZaR1ZrTFhCM0luMD0=",
            ),
            # base64('password=0nce-encoded')
            ("cfg cGFzc3dvcmQ9MG5jZS1lbmNvZGVk ok", "cGFzc3dvcmQ9MG5jZS1lbmNvZGVk"),
        ),
        decoys=("c2VjcmV0cy1saXN0LWVtcHR5",),  # base64('secrets-list-empty')
    ),
    Rule(
        "base64-secret-word",
        "secret",
        "encoding",
        "A base64 run that encodes a secret's key name anywhere in it (a form body"
        " 'user=bob&password=...', JSON whose secret key is not first): the whole run is"
        " decoded and rescanned, and replaced when its text holds a secret.",
        rb"(?:" + rb"|".join(re.escape(sig) for sig in _SECRET_WORD_SIGNATURES) + rb")" + _RUN_REST,
        handler=_run_around,
        examples=(
            # base64('user=bob&password=Zq8rT5vW-hunter2'): the key at offset 9
            (
                "body dXNlcj1ib2ImcGFzc3dvcmQ9WnE4clQ1dlctaHVudGVyMg== end",
                "dXNlcj1ib2ImcGFzc3dvcmQ9WnE4clQ1dlctaHVudGVyMg==",
            ),
        ),
        decoys=("dXNlcj1ib2ImdG9rZW5zPTM=",),  # base64('user=bob&tokens=3')
    ),
    Rule(
        "hex-secret-word",
        "secret",
        "encoding",
        "A hex run that encodes a secret's key name (a hex dump of a request body or a JSON"
        " document): the whole run is decoded and rescanned, and replaced when its text holds"
        " a secret.",
        rb"(?:" + rb"|".join(_SECRET_WORD_HEX) + rb")" + _RUN_REST,
        lower=True,
        handler=_run_around,
        examples=(
            # hex of 'user=bob&password=Zq8rT5vW-hunter2'
            (
                "body 757365723d626f622670617373776f72643d5a713872543576572d68756e74657232 end",
                "757365723d626f622670617373776f72643d5a713872543576572d68756e74657232",
            ),
        ),
        decoys=("757365723d626f6226746f6b656e733d33",),  # hex of 'user=bob&tokens=3'
    ),
    Rule(
        "webhook-path",
        "webhook-url",
        "saas",
        "Slack and Discord webhook paths without a scheme: in file names, encoded query values.",
        rb"(?:hooks.slack.com|discord)",
        lower=True,
        handler=_webhook_anywhere,
        examples=(
            (
                "notify-hooks.slack.com_services_T0123ABCD_B0123ABCD_AbCdEfGhIjKlMnOpQrStUvWx.json",
                "T0123ABCD_B0123ABCD_AbCdEfGhIjKlMnOpQrStUvWx",
            ),
            (
                "url=hooks.slack.com%2Fservices%2FT0123ABCD%2FB0123ABCD%2FAbCdEfGhIjKlMnOpQrStUvWx",
                "T0123ABCD%2FB0123ABCD%2FAbCdEfGhIjKlMnOpQrStUvWx",
            ),
        ),
        decoys=("see hooks.slack.com/services for the setup", "discord.com/api/webhooks docs"),
    ),
    Rule(
        "url-path-token",
        "url-token",
        "connection-string",
        "A random path segment after /reset/, /token/, /invite/, /verify/... (password-reset and"
        " magic links in access logs).",
        rb"(?:reset|password|passwd|token|invit|verif|confirm|activat|magic|login-link|signin"
        rb"|unlock|recover|onboarding|enrol|join|share|download-token|api-key|secret)",
        lower=True,
        handler=_path_token,
        examples=(
            (
                '10.0.0.7 - - "GET /reset-password/8f14e45fceea167a5a36dedd4bea2543 HTTP/1.1" 200',
                "8f14e45fceea167a5a36dedd4bea2543",
            ),
            ("https://app.example/invite/Zx81kQm2Pw9vLr4T?src=mail", "Zx81kQm2Pw9vLr4T"),
        ),
        decoys=(
            "GET /reset-password/forgot-your-password HTTP/1.1",
            "GET /api/v1/workers/worker-0001/status HTTP/1.1",
        ),
    ),
    Rule(
        "url-signature",
        "signature",
        "cloud",
        "Signed-URL signatures: X-Amz-Signature, X-Goog-Signature, CloudFront Signature=.",
        rb"signature=",
        lower=True,
        handler=_signature,
        examples=(
            (
                "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature="
                "3b0c4f5e6a7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c3b",
                "3b0c4f5e6a7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c3b",
            ),
            (
                "https://d1.cloudfront.net/a.mp4?Expires=1700000000&Signature=Nq3h~Zk8-Lm2Pw9vLr4TxYb"
                "&Key-Pair-Id=K2JCJMDEHXQW5F",
                "Nq3h~Zk8-Lm2Pw9vLr4TxYb",
            ),
        ),
        decoys=("signature=sha256", "X-Amz-SignedHeaders=host"),
    ),
    CLI_PASSWORD_FLAG,
    Rule(
        "vault-login",
        "vault-token",
        "cli",
        "The token argument of `vault login` (also the legacy `s.` tokens, which have no"
        " prefix a pattern could trust on its own).",
        rb"vault[ \t]+login[ \t]+",
        lower=True,
        left_boundary=True,
        handler=_vault_login,
        examples=(
            ("$ vault login s.Xk82Jq0PzR7mWv3LtY9bNc4D", "s.Xk82Jq0PzR7mWv3LtY9bNc4D"),
            ("vault login -no-print 'b.AAAAAQJk82Jq0PzR7mWv3Lt'", "b.AAAAAQJk82Jq0PzR7mWv3Lt"),
        ),
        decoys=(
            "vault login -method=userpass username=alice",
            "vault login $VAULT_TOKEN",
            "vault login -",
        ),
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
        "php-define",
        "secret",
        "key-value",
        "A PHP constant with a secret name: define('DB_PASSWORD', '...') (wp-config.php).",
        rb"define[ \t]*\([ \t]*",
        lower=True,
        handler=_php_define,
        examples=(
            ("define( 'DB_PASSWORD', 'wp-p4ss!' );", "wp-p4ss!"),
            ('define("AUTH_KEY", "k3y-Zq8rT5vW");', "k3y-Zq8rT5vW"),
        ),
        decoys=("define( 'DB_NAME', 'wordpress' );", "define('DB_PASSWORD', getenv('DBP'));"),
    ),
    Rule(
        "directive-secret",
        "password",
        "key-value",
        "Config directives whose argument is a secret, separated by a blank: Redis"
        " requirepass/masterauth (also CONFIG SET), OpenLDAP bindpw/rootpw, SNMP communities,"
        " keepalived's VRRP auth_pass.",
        rb"(?:requirepass|masterauth|bindpw|rootpw|r[ow]community6?|auth_pass)[ \t]+",
        lower=True,
        handler=_directive,
        examples=(
            ("requirepass s3cret-Redis", "s3cret-Redis"),
            ('  masterauth "p4ss word"', "p4ss word"),
            ("CONFIG SET requirepass n3w-pass", "n3w-pass"),
            ("bindpw ldap-b1nd-pw", "ldap-b1nd-pw"),
            ("rootpw {SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=", "W6ph5Mm5Pz8GgiULbPgzG37mj9g="),
            ("rocommunity n0t-public 10.0.0.0/8", "n0t-public"),
            ("    auth_pass Keepal1ved", "Keepal1ved"),
        ),
        decoys=("# requirepass foobared", "warning: requirepass is not set"),
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
