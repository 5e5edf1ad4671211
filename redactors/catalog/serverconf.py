"""Secrets in the configuration syntax of proxies and brokers, where no ``key: value`` stands.

A reverse proxy in front of a control plane often adds the credential itself: Apache's
``RequestHeader set X-Api-Key "…"``, HAProxy's ``http-request set-header Authorization
"Basic …"``, nginx's ``proxy_set_header X-Auth-Token …``, Caddy's ``header_up``. The header's
name and its value are parted by a blank, which the key rules do not read as a separator.
RabbitMQ (the queue of many workflow engines) writes its classic and advanced configuration
as Erlang terms: ``{default_pass, <<"…">>}``. Kafka's JAAS configuration defines the users
a broker accepts as ``user_<name>="<password>"`` options of its ``PlainLoginModule`` (ZooKeeper's
``DigestLoginModule`` alike).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder, secret_kind
from ..rules import Hit, Rule, View, runs_past_view
from .keyvalue import _kv_hits

_HEADER_NAME = re.compile(rb"[ \t]+([A-Za-z0-9_-]{2,80})[ \t]+(?=[^ \t\r\n])")
_ERLANG_KEY = re.compile(rb"\{[ \t]*([a-z][a-z0-9_]{1,60})[ \t]*,[ \t]*$")
_ERLANG_BINARY = re.compile(rb'<<"((?:[^"\\\r\n]|\\.)*)">>')


def _header_directive(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """The value after a directive that sets a request or response header, when the header's
    name names a secret (``Authorization``, ``X-Api-Key``, ``X-Vault-Token``)."""
    data = view.data
    start = match.start()
    if start > 0 and data[start - 1] not in b" \t\n;{":
        return
    if match.end() - start == len(b"header") and data[
        data.rfind(b"\n", 0, start) + 1 : start
    ].strip(b" \t"):
        return  # Fluent Bit's bare ``Header`` directive: first on its line, or a word of prose
    name = _HEADER_NAME.match(data, match.end())
    if name is None:
        return
    yield from _kv_hits(view, name.start(1), name.end(1), name.end(), rule, next_line=False)


def _erlang_binary(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``{default_pass, <<"…">>}``: a binary that is the second element of a tuple whose
    first is an atom naming a secret (RabbitMQ's ``default_pass``, ``password``)."""
    data = view.data
    line_start = data.rfind(b"\n", max(0, match.start() - 256), match.start()) + 1
    key = _ERLANG_KEY.search(data, max(line_start, match.start() - 128), match.start())
    if key is None or secret_kind(key.group(1).decode("latin-1")) is None:
        return
    found = _ERLANG_BINARY.match(data, match.start())
    if found is None:
        return
    value = found.group(1)
    if value and not is_placeholder(value):
        yield Hit(found.start(1), found.end(1), rule.kind, rule.id)


_USER_COLON_PASSWORD = re.compile(rb"[^\s:#]+:([^\s#]+)")


def _stats_auth(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """HAProxy's ``stats auth admin:PW``: the password after the user's colon."""
    data = view.data
    start = match.start()
    if start > 0 and data[start - 1] not in b" \t\n":
        return
    found = _USER_COLON_PASSWORD.match(data, match.end())
    if found is None:
        return
    if runs_past_view(view, found.end(), start):
        return
    value = found.group(1)
    if not is_placeholder(value) and not value.startswith(b"$"):
        yield Hit(found.start(1), found.end(1), rule.kind, rule.id)


_JAAS_OPTION = re.compile(rb'[ \t\r\n]*([A-Za-z0-9_.@-]{1,80})[ \t]*=[ \t]*"((?:[^"\\\r\n]|\\.)*)"')
"""One option of a JAAS login module: ``name="value"`` (a value may hold a ``;``)."""
_BLANKS = re.compile(rb"[ \t\r\n]*")
_JAAS_ENTRY_MAX = 16 << 10
"""How far a JAAS login module's options may run to the ``;`` that ends them."""


def _jaas_users(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """The ``user_<name>="<password>"`` options of one login module, read option by option
    up to the ``;`` that ends them (a password may hold one)."""
    data, pos = view.data, match.end()
    limit = min(len(data), pos + _JAAS_ENTRY_MAX)
    found: list[tuple[int, int]] = []
    while (option := _JAAS_OPTION.match(data, pos, limit)) is not None:
        if option.group(1).startswith(b"user_"):
            found.append(option.span(2))
        pos = option.end()
    if not view.final and limit == len(data) and _BLANKS.fullmatch(data, pos) is not None:
        view.need_more_from(match.start())
        return  # the options run to the view's end: read them whole in the next
    for begin, stop in found:
        if stop > begin and not is_placeholder(data[begin:stop]):
            yield Hit(begin, stop, rule.kind, rule.id)


JAAS_USERS = Rule(
    "jaas-users",
    "password",
    "key-value",
    "The passwords a JAAS login module defines for its users (Kafka's PlainLoginModule,"
    " ZooKeeper's DigestLoginModule:"
    ' user_alice="..."), up to the semicolon that ends the module\'s options.',
    rb"(?:plain|digest)loginmodule[ \t\r\n]+(?:required|requisite|sufficient|optional)",
    lower=True,
    handler=_jaas_users,
    examples=(
        (
            'PlainLoginModule required username="admin" password="x" user_alice="Ka-s3cret-9";',
            "Ka-s3cret-9",
        ),
        (
            "KafkaServer {\n  org.apache.kafka.common.security.plain.PlainLoginModule required\n"
            '  user_admin="Ka-adm1n-pw"\n  user_bob="Ka-b0b-pw";\n};',
            "Ka-b0b-pw",
        ),
        ('PlainLoginModule required user_etl="semi;colon-pw" user_x="Ka-x-pw";', "semi;colon-pw"),
    ),
    decoys=(
        'PlainLoginModule required username="alice";\nuser_id="42"',
        'PlainLoginModule required username="alice" debug="true";\nuser_bob="not-jaas"',
        'ScramLoginModule required user_name_attr="uid";',
    ),
)

STATS_AUTH = Rule(
    "haproxy-stats-auth",
    "password",
    "key-value",
    "The password of HAProxy's statistics page: `stats auth`, a user, a colon, the password.",
    rb"stats[ \t]+auth[ \t]+",
    handler=_stats_auth,
    examples=(
        ("listen stats\n    stats auth admin:Hx-s3cret-9\n", "Hx-s3cret-9"),
        ("  stats auth ops:Hx s3cret", "Hx"),
    ),
    decoys=("stats auth admin:${STATS_PASSWORD}", "    stats realm HAProxy\\ Statistics"),
)

HEADER_DIRECTIVE = Rule(
    "header-directive",
    "auth",
    "key-value",
    "The value a proxy's configuration sets a secret-named header to (Apache RequestHeader,"
    " HAProxy set-header, nginx proxy_set_header and add_header, Caddy header_up, Fluent Bit's"
    " Header).",
    rb"(?:requestheader[ \t]+(?:set|add|append|merge|setifempty)|set-header|add-header"
    rb"|proxy_set_header|add_header|more_set_headers|header_up|header_down|header)(?=[ \t])",
    lower=True,
    handler=_header_directive,
    examples=(
        ('RequestHeader set X-Api-Key "Ap-s3cret-9"', "Ap-s3cret-9"),
        ('http-request set-header Authorization "Basic YWRtaW46czNjcmV0"', "YWRtaW46czNjcmV0"),
        ("proxy_set_header X-Auth-Token Ng-s3cret-9;", "Ng-s3cret-9"),
        ("header_up X-Vault-Token hvs-s3cret-9", "hvs-s3cret-9"),
        ("[OUTPUT]\n    Header      X-Api-Key Fb-s3cret-9", "Fb-s3cret-9"),
    ),
    decoys=(
        "RequestHeader set X-Forwarded-Proto https",
        "proxy_set_header Host $host;",
        "proxy_set_header Authorization $http_authorization;",
        "add_header X-Frame-Options DENY;",
        "    Header      X-Source flux",
        "missing header Authorization Bearer in request",
    ),
)

ERLANG_SECRET = Rule(
    "erlang-secret",
    "password",
    "key-value",
    'A binary under a secret-named atom in Erlang terms (RabbitMQ: {default_pass, <<"...">>}).',
    rb'<<"',
    handler=_erlang_binary,
    examples=(
        ('{rabbit, [{default_user, <<"etl">>}, {default_pass, <<"Rb-s3cret-9">>}]}', "Rb-s3cret-9"),
        ('  {password, <<"Rb-s3cret-9">>}', "Rb-s3cret-9"),
    ),
    decoys=(
        '{default_user, <<"etl">>}',
        'cat <<"EOF" > password.txt',
        '{default_pass, <<"">>}',
    ),
)
