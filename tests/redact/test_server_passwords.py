"""A server's own password where a worker's deployment sets it: Redis's ``requirepass`` and
``masterauth`` as flags (a process listing, a compose file's ``command`` list), MongoDB's
replica-set key in a Helm chart's values, Grafana's thrice-quoted values, HAProxy's
``stats auth``, ``kadmin -w``.

Each kept its secret before (``review`` passed all of them): the flags are long options no
key-name rule read after a blank, and ``replicaSetKey`` ends in ``key`` with no qualifier.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import gone_and_reviewed, pass_one

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
    # Grafana quotes a value holding # or ; thrice; HAProxy's stats page; Kerberos admin
    ("grafana.ini", '[database]\npassword = """{s}"""\n', "Gr#af;pw-95"),
    ("haproxy.cfg", "listen stats\n    bind :8404\n    stats auth admin:{s}\n", "Hx-stats-96"),
    ("history.log", 'kadmin -p admin/admin -w {s} -q "listprincs"\n', "Kadm1n-97"),
]


@pytest.mark.parametrize(("name", "template", "secret"), CASES)
def test_the_password_goes_and_review_agrees(name: str, template: str, secret: str) -> None:
    data = template.format(s=secret).encode()
    gone_and_reviewed(name, data, [secret])


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("ps.txt", "redis-server --requirepass $REDIS_PASSWORD\n"),
        ("session.log", "$ redis-server --help | grep requirepass\n"),
        ("values.yaml", "replica_key: shard-1\nreplicaSetName: rs0\n"),
        ("haproxy.cfg", "    stats auth admin:${STATS_PASSWORD}\n    stats refresh 10s\n"),
        ("grafana.ini", 'password = """"""\n'),
    ],
)
def test_what_holds_no_password_stays(name: str, text: str) -> None:
    assert pass_one(name, text.encode()) == text.encode()
