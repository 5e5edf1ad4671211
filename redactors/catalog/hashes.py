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

from ..rules import Rule

_B64 = rb"[A-Za-z0-9+/]"

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
