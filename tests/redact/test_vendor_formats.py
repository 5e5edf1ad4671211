"""Vendor credentials with a documented shape are found bare, wherever a log prints them.

Compared against the formats gitleaks publishes for tokens that need no key name around
them, these reached the bundle as they were and ``bundler review`` called the member clean:
a 1Password account secret key, an Airtable personal access token, a Terraform Cloud API
token, an OpenShift user token (``oc whoami -t``), an Octopus Deploy API key, a Scalingo
token, a Facebook page token, a legacy Sourcegraph token, a ClickHouse Cloud key, an
``A3T`` AWS key id, and Java's and PHP's session cookies outside a ``Cookie`` header.
Each value here is synthetic, built from the published shape.
"""

from __future__ import annotations

import random
import string

import pytest

from bundler.source import MemorySource
from redactors import BundleRedactor
from redactors.review import review_source

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
}

KEYED = {
    "JSESSIONID": "6A1F0C8E2B9D4F7A3C5E1B8D0F2A4C6E",
    "PHPSESSID": "9c1b5a0e4d3f2a1b8c7d6e5f4a",
}


def _redact(data: bytes) -> bytes:
    return b"".join(BundleRedactor(key=b"k" * 32).transform("app.log", [data]))


@pytest.mark.parametrize("secret", BARE.values(), ids=BARE.keys())
def test_a_bare_vendor_token_is_replaced_and_review_agrees(secret: str) -> None:
    line = f"2026-12-07 10:00:00 INFO worker started with {secret} (ok)\n".encode()
    out = _redact(line)
    assert secret.encode() not in out
    assert out.startswith(b"2026-12-07 10:00:00 INFO worker started with [REDACTED:")
    assert out.endswith(b"] (ok)\n")
    assert not review_source(MemorySource({"app.log": line})).clean


@pytest.mark.parametrize("name", KEYED)
def test_a_session_cookie_outside_a_cookie_header_is_replaced(name: str) -> None:
    line = f"GET /jobs 200 {name}={KEYED[name]} ua=curl\n".encode()
    out = _redact(line)
    assert KEYED[name].encode() not in out
    assert out.startswith(f"GET /jobs 200 {name}=[REDACTED:cookie:".encode())
    assert out.endswith(b" ua=curl\n")
    assert not review_source(MemorySource({"app.log": line})).clean


@pytest.mark.parametrize(
    "text",
    [
        "path=/api/v1/jobs pattern=abc* patches applied",
        "API-level checks: API-GATEWAY-TIMEOUT after 30s",
        "sha256=" + "4b1d" + "0a" * 30,  # a digest that begins like a ClickHouse key
        "digest sha256~ missing; A3-ROUTE-12 closed",
        "docs: tokens look like xxxxxxxxxxxxxx.atlasv1.yyyy",
        "EAAM" + "x" * 20,
    ],
    ids=["path words", "API- words", "digest", "lone prefixes", "prose", "short EAAM"],
)
def test_words_that_only_start_like_them_are_kept(text: str) -> None:
    line = (text + "\n").encode()
    assert _redact(line) == line
