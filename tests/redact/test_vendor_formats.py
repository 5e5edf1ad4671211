"""Vendor credentials with a documented shape are found bare, wherever a log prints them.

Compared against the formats gitleaks publishes for tokens that need no key name around
them, these reached the bundle as they were and ``bundler review`` called the member clean:
a 1Password account secret key, an Airtable personal access token, a Terraform Cloud API
token, an OpenShift user token (``oc whoami -t``), an Octopus Deploy API key, a Scalingo
token, a Facebook page token, a legacy Sourcegraph token, a ClickHouse Cloud key, an
``A3T`` AWS key id, a Google OAuth client secret and refresh token, a Docker organization
token, a Tencent Cloud SecretId; Java's and PHP's session cookies outside a ``Cookie``
header, ``SSHPASS``, Splunk's ``Authorization`` scheme; and the password of Redis's
``AUTH`` (a redis-cli session, ``MONITOR``) and of MongoDB's ``db.auth``. Each value here
is synthetic, built from the published shape.
"""

from __future__ import annotations

import random
import string

import pytest

from tests.support.redaction import pass_one, reviews_clean

_RNG = random.Random(20261207)
_UPPER = string.ascii_uppercase + string.digits
_ALNUM = string.ascii_letters + string.digits
_URLSAFE = _ALNUM + "-_"
_HEX = "0123456789abcdef"


def _run(alphabet: str, size: int) -> str:
    while True:
        text = "".join(_RNG.choice(alphabet) for _ in range(size))
        if any(c.isdigit() for c in text) and any(c.isalpha() for c in text):
            return text


BARE = {
    "1password secret key": "A3-"
    + "-".join([_run(_UPPER, 6), _run(_UPPER, 11), _run(_UPPER, 5), _run(_UPPER, 5)])
    + "-"
    + _run(_UPPER, 5),
    "1password secret key, six groups": "A3-"
    + "-".join([_run(_UPPER, 6), _run(_UPPER, 6)] + [_run(_UPPER, 5) for _ in range(4)]),
    "airtable pat": "pat" + _run(_ALNUM, 14) + "." + _run(_HEX, 64),
    "terraform cloud": _run(_ALNUM, 14) + ".atlasv1." + _run(_URLSAFE, 66),
    "openshift": "sha256~" + _run(_URLSAFE, 43),
    "octopus deploy": "API-" + _run(_UPPER, 26),
    "scalingo": "tk-us-" + _run(_URLSAFE, 48),
    "facebook page": "EAAM" + _run(_ALNUM, 120),
    "sourcegraph legacy": "sgp_" + _run(_HEX, 40),
    "clickhouse cloud": "4b1d" + _run(_ALNUM, 38),
    "aws A3T": "A3TX" + _run(string.ascii_uppercase + "234567", 16),
    "google oauth client secret": "GOCSPX-" + _run(_URLSAFE, 28),
    "google refresh token": "1//0g" + _run(_URLSAFE, 60),
    "docker organization token": "dckr_oat_" + _run(_URLSAFE, 32),
    "tencent secret id": "AKID" + _run(_ALNUM, 32),
}

KEYED = {
    "JSESSIONID": "6A1F0C8E2B9D4F7A3C5E1B8D0F2A4C6E",
    "PHPSESSID": "9c1b5a0e4d3f2a1b8c7d6e5f4a",
}
_PW = "Rd-" + _run(_ALNUM, 16)
IN_CONTEXT = {
    "SSHPASS": f"SSHPASS={_PW} sshpass -e ssh root@h2",
    "splunk hec": "Authorization: Splunk 6a1f0c8e-2b9d-4f7a-9c5e-1b8d0f2a4c6e",
    "redis-cli session": f"127.0.0.1:6379> AUTH {_PW}",
    "redis-cli session, user": f"cache.internal:6379[2]> auth worker {_PW}",
    "redis monitor": f'1701795600.512 [0 10.0.0.5:51234] "AUTH" "{_PW}"',
    "redis monitor, user": f'1701795600.512 [0 10.0.0.5:51234] "AUTH" "default" "{_PW}"',
    "mongo shell": f'test> db.auth("admin", "{_PW}")',
}


@pytest.mark.parametrize("secret", BARE.values(), ids=BARE.keys())
def test_a_bare_vendor_token_is_replaced_and_review_agrees(secret: str) -> None:
    line = f"2026-12-07 10:00:00 INFO worker started with {secret} (ok)\n".encode()
    out = pass_one("app.log", line)
    assert secret.encode() not in out
    assert out.startswith(b"2026-12-07 10:00:00 INFO worker started with [REDACTED:")
    assert out.endswith(b"] (ok)\n")
    assert not reviews_clean("app.log", line)


@pytest.mark.parametrize("name", KEYED)
def test_a_session_cookie_outside_a_cookie_header_is_replaced(name: str) -> None:
    line = f"GET /jobs 200 {name}={KEYED[name]} ua=curl\n".encode()
    out = pass_one("app.log", line)
    assert KEYED[name].encode() not in out
    assert out.startswith(f"GET /jobs 200 {name}=[REDACTED:cookie:".encode())
    assert out.endswith(b" ua=curl\n")
    assert not reviews_clean("app.log", line)


@pytest.mark.parametrize("line", IN_CONTEXT.values(), ids=IN_CONTEXT.keys())
def test_a_password_in_its_command_or_header_is_replaced(line: str) -> None:
    secret = _PW if _PW in line else line.rsplit(" ", 1)[1]
    data = (line + "\n").encode()
    out = pass_one("app.log", data)
    assert secret.encode() not in out
    assert out.replace(b"\n", b"").startswith(line.split(secret)[0].encode())
    assert not reviews_clean("app.log", data)


@pytest.mark.parametrize(
    "text",
    [
        "path=/api/v1/jobs pattern=abc* patches applied",
        "API-level checks: API-GATEWAY-TIMEOUT after 30s",
        "sha256=" + "4b1d" + "0a" * 30,  # a digest that begins like a ClickHouse key
        "digest sha256~ missing; A3-ROUTE-12 closed",
        "docs: tokens look like xxxxxxxxxxxxxx.atlasv1.yyyy",
        "EAAM" + "x" * 20,
        "127.0.0.1:6379> AUTH",
        "sshd: auth failed; exit 3> auth token refresh",
        'db.auth({user: "admin", pwd: passwordPrompt()})',
    ],
    ids=[
        "path words",
        "API- words",
        "digest",
        "lone prefixes",
        "prose",
        "short EAAM",
        "AUTH without a password",
        "auth after a redirect",
        "prompted mongo password",
    ],
)
def test_words_that_only_start_like_them_are_kept(text: str) -> None:
    line = (text + "\n").encode()
    assert pass_one("app.log", line) == line
