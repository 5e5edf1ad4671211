"""Credentials in the line syntax of services that name no key before them.

* strongSwan's and libreswan's ``ipsec.secrets``: ``[selectors] : PSK "…"`` (also ``EAP``,
  ``XAUTH``, ``NTLM``, ``PIN``), the secret after the type, quoted, ``0x`` hex or ``0s``
  base64; an ``RSA``/``ECDSA`` line names a key file and stays.
* Redis ACLs (``ACL SETUSER``, a ``user`` line of ``redis.conf`` or ``users.acl``): ``>pw``
  adds a password and ``<pw`` removes one (both hold it), ``#<sha256>`` and ``!<sha256>``
  its unsalted hash.
* net-snmp's ``createUser [-e ID] NAME AUTHPROTO "authpass" [PRIVPROTO ["privpass"]]``
  (``snmpd.conf``, ``/var/lib/net-snmp``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..keys import is_placeholder
from ..rules import Hit, Rule, View, line_end_or_hold

_IPSEC_VALUE = re.compile(rb'[ \t]+("(?:[^"\\\r\n]|\\.)*"|0[xs][A-Za-z0-9+/=]+|[^ \t\r\n#]+)')
_ACL_WORD = re.compile(rb"[^ \t\r\n]+")
_ACL_HASH = re.compile(rb"[#!][0-9a-fA-F]{64}")
_SNMP_AUTH = frozenset({b"md5", b"sha", b"sha-1", b"sha-224", b"sha-256", b"sha-384", b"sha-512"})
_SNMP_PRIV = frozenset({b"des", b"aes", b"aes-128", b"aes-192", b"aes-256", b"aes192", b"aes256"})


def _line_bounds(view: View, pos: int) -> tuple[int, int] | None:
    """The start and end of ``pos``'s line, or None when the view ends inside it and more
    may come (the view is then asked to keep it)."""
    start = view.data.rfind(b"\n", 0, pos) + 1
    end = line_end_or_hold(view, pos, start)
    return None if end is None else (start, end)


def _unquoted(data: bytes, start: int, end: int) -> tuple[int, int]:
    if end - start >= 2 and data[start] == data[end - 1] and data[start] in b"\"'":
        return start + 1, end - 1
    return start, end


def _ipsec_secret(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    bounds = _line_bounds(view, match.start())
    if bounds is None:
        return
    line_start, line_end = bounds
    before = data[line_start : match.start()].rstrip(b" \t")
    if not before.endswith(b":") or before.lstrip().startswith(b"#"):
        return  # "… : PSK" only: the type follows the selectors' colon
    value = _IPSEC_VALUE.match(data, match.end() - 1, line_end)
    if value is None:
        return
    start, end = _unquoted(data, *value.span(1))
    if end > start and not is_placeholder(data[start:end]):
        yield Hit(start, end, rule.kind, rule.id)


def _acl_words(data: bytes, pos: int, end: int) -> Iterator[tuple[int, int]]:
    for word in _ACL_WORD.finditer(data, pos, end):
        yield word.span()


_ACL_RULE_WORDS = frozenset({b"on", b"off", b"nopass", b"resetpass", b"reset", b"resetkeys",
                             b"allkeys", b"allcommands", b"allchannels"})  # fmt: skip


def _acl_rule(word: bytes) -> bool:
    """A word only a Redis ACL rule list holds (``on``, ``~keys*``, ``+@all``, ``&chan``)."""
    return word.lower() in _ACL_RULE_WORDS or word[:1] in b"~&%" or word.startswith((b"+", b"-@"))


def _redis_acl(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    bounds = _line_bounds(view, match.start())
    if bounds is None:
        return
    line_start, line_end = bounds
    words = list(_acl_words(data, match.end(), line_end))
    if match.group().lower().startswith(b"user"):
        if data[line_start : match.start()].strip():
            return  # a redis.conf or users.acl "user" line begins with it
        if not any(_acl_rule(data[start:end]) for start, end in words[1:]):
            return  # "user alice logged in": no ACL rule after the name
    for start, end in words:
        first = data[start]
        if _ACL_HASH.fullmatch(data, start, end):
            yield Hit(start + 1, end, "password-hash", rule.id)
        elif first in b"<>" and end - start > 1:
            value_start, value_end = _unquoted(data, start + 1, end)
            if not is_placeholder(data[value_start:value_end]):
                yield Hit(value_start, value_end, rule.kind, rule.id)


def _snmp_user(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    bounds = _line_bounds(view, match.start())
    if bounds is None:
        return
    words = list(_acl_words(data, match.end(), bounds[1]))
    index = 0
    if index < len(words) and data[words[index][0] : words[index][1]] == b"-e":
        index += 2  # the engine id
    index += 1  # the user's name
    for protocols in (_SNMP_AUTH, _SNMP_PRIV):
        if index + 1 >= len(words):
            return
        if data[words[index][0] : words[index][1]].lower() not in protocols:
            return
        start, end = _unquoted(data, *words[index + 1])
        if end > start and not is_placeholder(data[start:end]):
            yield Hit(start, end, rule.kind, rule.id)
        index += 2


IPSEC_SECRET = Rule(
    "ipsec-secret",
    "psk",
    "key-value",
    "strongSwan/libreswan ipsec.secrets: the secret after ': PSK', 'EAP', 'XAUTH', 'NTLM' or"
    " 'PIN' (quoted, 0x hex or 0s base64); RSA/ECDSA lines name a key file.",
    rb"(?:PSK|EAP|XAUTH|NTLM|PIN)[ \t]",
    handler=_ipsec_secret,
    examples=(
        (': PSK "Ipsec-Psk-Secret-77"', "Ipsec-Psk-Secret-77"),
        ('10.0.0.1 10.0.0.2 : PSK "Ipsec-Psk-78"', "Ipsec-Psk-78"),
        ("carol : EAP 0sRWFwLXNlY3JldC05", "0sRWFwLXNlY3JldC05"),
    ),
    decoys=(": RSA moonKey.pem", "PSK authentication failed for peer", '# : PSK "x"'),
)

REDIS_ACL = Rule(
    "redis-acl",
    "password",
    "key-value",
    "Redis ACL rules (ACL SETUSER, a 'user' line of redis.conf or users.acl): the password"
    " of '>pw' and '<pw', the SHA-256 of '#hash' and '!hash'.",
    rb"acl[ \t]+setuser[ \t]|user[ \t]",
    lower=True,
    handler=_redis_acl,
    examples=(
        ("ACL SETUSER alice on >p1pp0-Secret ~cached:* +get", "p1pp0-Secret"),
        ("user worker on >Wk-acl-pass-9 ~* +@all", "Wk-acl-pass-9"),
        ("user w on #" + "ab" * 32 + " ~*", "ab" * 32),
    ),
    decoys=("user alice logged in > 3 times", "ACL SETUSER alice on nopass ~* +@all"),
)

SNMP_USER = Rule(
    "snmp-create-user",
    "password",
    "key-value",
    "net-snmp's createUser NAME AUTHPROTO authpass [PRIVPROTO [privpass]]: both passphrases.",
    rb"createuser[ \t]",
    lower=True,
    handler=_snmp_user,
    examples=(
        ('createUser snmpadmin SHA "Snmp-auth-pass9" AES "Snmp-priv-pass9"', "Snmp-priv-pass9"),
        ("createUser -e 0x8000 mon MD5 Mon-auth-99 DES", "Mon-auth-99"),
    ),
    decoys=("createUser failed: unknown user", "createUser mon"),
)
