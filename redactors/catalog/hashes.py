"""Password hashes and reversible encodings beyond crypt(3)'s (``password-hash`` in
:mod:`.tokens`).

A hash is cracked offline, and some are the password as far as a server cares: PostgreSQL's
``md5`` authentication accepts ``md5`` + md5(password + user) in place of the password, and
a SCRAM verifier lets anyone who holds it impersonate the server to a client. These come
out of ``pg_authid``, a pgbouncer ``userlist.txt``, a Django ``auth_user`` dump, a
Mosquitto password file. Juniper's ``$9$`` is no hash at all but a published reversible
encoding (as Cisco's type 7 is): a password.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder
from ..rules import Hit, Rule, View, line_end_or_hold
from ..values import CLEAR_SCHEMES, HASH_SCHEMES

_B64 = rb"[A-Za-z0-9+/]"
_UNQUOTED_END = re.compile(rb"[\s:\"'<>,;)\]}]")
"""Where a value after a scheme ends unless quoted: a ``:``, a blank, a tag, what closes or
separates in prose and code (``({SSHA}, {PLAIN})`` names two schemes, holds no value)."""
_PASSWD_FILE_USER = re.compile(rb"[^:\s]+:")
"""A passwd-file line's user field (``alice:{PLAIN}…``), whose password field runs to the
next ``:`` (blanks and all)."""
_HAS_ALNUM = re.compile(rb"[A-Za-z0-9]")
_LOCKED = frozenset(b"*!x")
"""``{CRYPT}*``, ``{CRYPT}!``: a locked account, no credential."""


def _scheme_secret(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """What follows a ``{SCHEME}``: in a Dovecot passwd-file (``user:{PLAIN}pw:uid:gid::``),
    an LDAP export, a SQL row, wherever no key names it. The scheme stays (evidence: how the
    account logs in); a quoted value runs to its quote, another to a blank or a ``:``."""
    data = view.data
    start = match.end()
    line_end = line_end_or_hold(view, start, match.start())
    if line_end is None:
        return
    quote = data[match.start() - 1 : match.start()]
    line_start = data.rfind(b"\n", 0, match.start()) + 1
    if quote in (b'"', b"'"):
        end = data.find(quote, start, line_end)
        end = line_end if end < 0 else end
    elif _PASSWD_FILE_USER.fullmatch(data, line_start, match.start()):
        end = data.find(b":", start, line_end)
        end = line_end if end < 0 else end
    else:
        stop = _UNQUOTED_END.search(data, start, line_end)
        end = line_end if stop is None else stop.start()
    value = data[start:end]
    if not value.strip(bytes(_LOCKED)) or not _HAS_ALNUM.search(value) or is_placeholder(value):
        return
    clear = view.low[match.start() + 1 : match.end() - 1] in CLEAR_SCHEMES
    yield Hit(start, end, "password" if clear else "password-hash", rule.id)


HASH_RULES: tuple[Rule, ...] = (
    Rule(
        "postgres-password-hash",
        "password-hash",
        "credential",
        "PostgreSQL password hashes: md5 + 32 hex digits (accepted in place of the password by"
        " md5 authentication) and SCRAM-SHA-256 verifiers.",
        rb"(?:md5[0-9a-f]{32}|SCRAM-SHA-256\$[0-9]{1,7}:"
        + _B64
        + rb"{8,64}={0,2}\$"
        + _B64
        + rb"{40,48}={0,2}:"
        + _B64
        + rb"{40,48}={0,2})(?![A-Za-z0-9+/=])",
        left_boundary=True,
        examples=(
            ('"etl" "md5a1b2c3d4e5f60718293a4b5c6d7e8f90"', "md5a1b2c3d4e5f60718293a4b5c6d7e8f90"),
            (
                "SCRAM-SHA-256$4096:c2FsdHNhbHRzYWx0$"
                "c3RvcmVkLWtleS1zdG9yZWQta2V5LXN0b3JlZC1rZXk=:"
                "c2VydmVyLWtleS1zZXJ2ZXIta2V5LXNlcnZlci1rZXk=",
                "SCRAM-SHA-256$4096:c2FsdHNhbHRzYWx0$",
            ),
        ),
        decoys=("md5sum d41d8cd98f00b204e9800998ecf8427e", "checksum=md5:d41d8cd98f00b204e98009"),
    ),
    Rule(
        "pbkdf2-password-hash",
        "password-hash",
        "credential",
        "PBKDF2 and scrypt password hashes of Django, passlib and Mosquitto"
        " (pbkdf2_sha256$iterations$salt$hash, $pbkdf2-sha512$..., $7$...).",
        rb"(?:pbkdf2[-_]sha(?:1|256|512)\$[0-9]{1,8}\$[./A-Za-z0-9+=]{1,64}"
        rb"|\$pbkdf2[-_]sha(?:1|256|512)\$[0-9]{1,8}\$[./A-Za-z0-9+=]{1,64}"
        rb"|\$7\$[./A-Za-z0-9+=$]{8,80})\$[./A-Za-z0-9+=]{20,200}(?![./A-Za-z0-9+=$])",
        examples=(
            (
                "pbkdf2_sha256$600000$Zq8rT5vWxK29$Kx9wLm2pQ7Rt5vW8sN3mLabcdEFGH1234=",
                "Kx9wLm2pQ7Rt5vW8sN3mLabcdEFGH1234=",
            ),
            (
                "alice:$7$101$abcdefghijklmnop$ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij0123456789+/ab==",
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij0123456789+/ab==",
            ),
        ),
        decoys=("pbkdf2_sha256 is the default hasher", "cost $7$ per seat"),
    ),
    Rule(
        "scheme-password",
        "password-hash",
        "credential",
        "What follows an LDAP or Dovecot password scheme in braces ({SSHA}, {SHA512-CRYPT},"
        " {PLAIN}): a hash, or the password in clear; the scheme stays.",
        rb"\{(?:%s)\}" % b"|".join(HASH_SCHEMES),
        lower=True,
        handler=_scheme_secret,
        examples=(
            ("carol:{PLAIN}Carol-Plain-Pw9:1002:1002::/home/carol::", "Carol-Plain-Pw9"),
            ("dave:{CLEARTEXT}dave's horse battery:1003:1003::/home/dave", "horse battery"),
            (
                "frank:{SSHA512}W6ph5Mm5Pz8GgiULbPgzG37mj9gW6ph5Mm5Pz8GgiULbPgzG37mj9g=:1004:1004::",
                "W6ph5Mm5Pz8GgiULbPgzG37mj9g",
            ),
            (
                "INSERT INTO users VALUES ('erin', '{PLAIN-MD5}1a1dc91c907325c69271ddf0c944bc72');",
                "1a1dc91c907325c69271ddf0c944bc72",
            ),
            ('"password": "{PBKDF2_SHA256}AAAIAGLx/zH9p0Z1k2s+Q=="', "AAAIAGLx/zH9p0Z1k2s"),
        ),
        decoys=(
            "default_pass_scheme = SHA512-CRYPT",
            "the {PLAIN} scheme sends passwords in clear",
            "supported: {SSHA}, {SHA512-CRYPT} and {PLAIN}",
            "locked:{CRYPT}*:1005:1005::/home/locked::",
            "disabled:{CRYPT}!:1006:1006::",
        ),
    ),
    Rule(
        "juniper-9",
        "password",
        "network",
        "Juniper's $9$ encoding of secrets and keys in a configuration (reversible, so the"
        " password itself).",
        rb'"(\$9\$[A-Za-z0-9./-]{8,512})"',
        group=1,
        examples=(
            (
                'set system login user admin authentication encrypted-password "$9$dkkk.fQz6C"',
                "$9$dkkk.fQz6C",
            ),
            ('authentication-key "$9$Hk5FCtO1IcrKv8X-b2aJZ"; ## SECRET-DATA', "$9$Hk5FCtO1Ic"),
        ),
        decoys=('echo "$9$HOME"',),
    ),
)
