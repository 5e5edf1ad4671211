"""A server's own password where a worker's deployment sets it: Redis's ``requirepass`` and
``masterauth`` as flags (a process listing, a compose file's ``command`` list) and MongoDB's
replica-set key in a Helm chart's values.

Each kept its secret before (``review`` passed all of them): the flags are long options no
key-name rule read after a blank, and ``replicaSetKey`` ends in ``key`` with no qualifier.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import pass_one, reviews_clean

CASES = [
    ("ps.txt", "redis  812  /usr/bin/redis-server *:6379 --requirepass {s}\n", "Rq-pass-91x"),
    ("ps.txt", "valkey-server /etc/valkey.conf --masterauth '{s}' --port 6380\n", "Ma st3r pw"),
    (
        "docker-compose.yml",
        "services:\n  cache:\n    image: redis:7\n"
        '    command: ["redis-server", "--requirepass", "{s}"]\n',
        "Compose-rq-92y",
    ),
    ("docker-compose.yml", "    command:\n      - --masterauth\n      - {s}\n", "Compose-ma-93z"),
    ("values.yaml", "auth:\n  rootPassword: x-Root-9\n  replicaSetKey: {s}\n", "Rs-key-94abc"),
]


@pytest.mark.parametrize(("name", "template", "secret"), CASES)
def test_the_password_goes_and_review_agrees(name: str, template: str, secret: str) -> None:
    data = template.format(s=secret).encode()
    out = pass_one(name, data)
    assert secret.encode() not in out
    assert out.count(b"\n") == data.count(b"\n")
    assert not reviews_clean(name, data)
    assert reviews_clean(name, out)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("ps.txt", "redis-server --requirepass $REDIS_PASSWORD\n"),
        ("session.log", "$ redis-server --help | grep requirepass\n"),
        ("values.yaml", "replica_key: shard-1\nreplicaSetName: rs0\n"),
    ],
)
def test_what_holds_no_password_stays(name: str, text: str) -> None:
    assert pass_one(name, text.encode()) == text.encode()
