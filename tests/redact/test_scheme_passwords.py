"""A password after its scheme in braces, where no key names it.

A Dovecot passwd-file (``/etc/dovecot/users``: ``user:{SCHEME}password:uid:gid::home``)
holds every mailbox's password or hash; ``{PLAIN}`` and ``{CLEARTEXT}`` hold it in clear.
Only ``{CRYPT}`` before a crypt(3) hash was redacted (by the hash's own shape): the rest
reached the bundle, and ``bundler review`` called it clean.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import pass_one, reviews_clean


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("carol:{{PLAIN}}{s}:1002:1002::/home/carol::", "Carol-Plain-Pw9"),
        ("dave:{{CLEARTEXT}}{s}:1003:1003::/home/dave::", "dave's horse battery"),
        ("frank:{{SSHA512}}{s}:1004:1004::", "W6ph5Mm5Pz8GgiULbPgzG37mj9gW6ph5Mm5Pz8GgiUL="),
        ("gina:{{SHA256}}{s}:1005:1005::", "n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg="),
        ("hank:{{PLAIN-MD5}}{s}::::", "1a1dc91c907325c69271ddf0c944bc72"),
        ("INSERT INTO mailbox VALUES ('ivan', '{{PLAIN}}{s}', 1);", "Ivan pw 77!"),
        ("imported judy with {{ssha}}{s} from the old server", "W6ph5Mm5Pz8GgiULbPgzG37mj9g="),
    ],
)
def test_what_follows_a_scheme_is_replaced_and_the_scheme_kept(line: str, secret: str) -> None:
    data = f"{line.format(s=secret)}\n".encode()
    out = pass_one("users", data)
    assert secret.encode() not in out
    assert out.count(b"[REDACTED:") == 1
    scheme = line.split("{s}")[0].replace("{{", "{").replace("}}", "}")
    assert out.startswith(scheme.encode()), out
    assert not reviews_clean("users", data)
    assert reviews_clean("users", out)


@pytest.mark.parametrize(
    "line",
    [
        "locked:{CRYPT}*:1005:1005::/home/locked::",
        "default_pass_scheme = SHA512-CRYPT",
        "password_scheme: PBKDF2-SHA256",
        "passdb { driver = passwd-file args = scheme={PLAIN} username_format=%u }",
    ],
)
def test_a_scheme_without_a_credential_stays(line: str) -> None:
    data = f"{line}\n".encode()
    assert pass_one("dovecot.conf", data) == data
