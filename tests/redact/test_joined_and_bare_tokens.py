"""Credentials of two parts, and credentials a tool prints with no key beside them.

* Facebook's app and client access tokens are ``APP_ID|APP_SECRET``. Under
  ``access_token=`` the value reader stopped at the ``|``: the app id was replaced and the
  secret after it kept (32 hex digits look like a digest to every other rule), and review
  passed it.
* kubeadm prints a bootstrap token alone on a line (``kubeadm token create``) and in the
  first column of ``kubeadm token list``: kept, and review passed it.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import pass_one, reviews_clean

_APP_SECRET = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
_BOOTSTRAP = "k9x2mq.7f3a9c1e5b2d4f6g"


@pytest.mark.parametrize(
    "line",
    [
        "GET /v19.0/act_1/insights?access_token=1234567890123456|{s}&fields=spend HTTP/1.1",
        "FB_ACCESS_TOKEN=1234567890123456|{s}",
        "client_token: 1234567890123456|{s}",
        "access_token=123456789012345|{s}\n",
    ],
)
def test_an_app_id_and_its_secret_go_together(line: str) -> None:
    data = line.format(s=_APP_SECRET).encode()
    out = pass_one("graph.log", data)
    assert _APP_SECRET.encode() not in out
    assert b"1234567890" not in out
    assert not reviews_clean("graph.log", data)
    assert reviews_clean("graph.log", out)


@pytest.mark.parametrize(
    "text",
    [
        "2026-12-07|1733000000000000|d41d8cd98f00b204e9800998ecf8427e|ok\n",
        "count=1733000000000000|sort -n\n",
        "retries=12345|abc\n",
    ],
)
def test_a_pipe_after_other_digits_still_ends_a_value(text: str) -> None:
    assert pass_one("pipes.log", text.encode()) == text.encode()


def test_kubeadm_token_create_and_list() -> None:
    other = "p0q1r2.s3t4u5v6w7x8y9z0"
    data = (
        "$ kubeadm token create --ttl 2h\n"
        f"{_BOOTSTRAP}\n"
        "$ kubeadm token list\n"
        "TOKEN                     TTL   EXPIRES                USAGES                   "
        "DESCRIPTION   EXTRA GROUPS\n"
        f"{_BOOTSTRAP}   1h    2026-12-07T21:00:00Z   authentication,signing   <none>"
        "        system:bootstrappers:kubeadm:default-node-token\n"
        f"{other}   23h   2026-12-08T19:00:00Z   authentication,signing   <none>"
        "        system:bootstrappers:kubeadm:default-node-token\n"
        "\n"
        "node01.a1b2c3d4e5f6g7h8 is a host name in prose, not a token\n"
    ).encode()
    out = pass_one("kubeadm.log", data)
    assert _BOOTSTRAP.encode() not in out
    assert other.encode() not in out
    assert b"2026-12-08T19:00:00Z   authentication,signing" in out
    assert b"node01.a1b2c3d4e5f6g7h8 is a host name" in out
    assert not reviews_clean("kubeadm.log", data)
    assert reviews_clean("kubeadm.log", out)
