"""What a command printed, when the command prints a secret: the line after it in a
transcript (a ticket, a shell log, `script` output).

The value stands alone, with no key; some have a shape a format rule knows (``ya29.``,
``gho_``), most do not (an ECR password, a secret store's field, a generated key), and those
reached the bundle while review passed them.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import gone_and_reviewed, pass_one


@pytest.mark.parametrize(
    ("transcript", "secret"),
    [
        (
            "$ aws ecr get-login-password --region us-east-1\n{s}\n",
            "eyJwYXlsb2FkIjoiQVFJQkFIaDhqS3dUeXh6eXpLZjJ3In0=",
        ),
        ("$ vault kv get -field=password secret/etl\n{s}\n", "Etl-pass-99x"),
        ("$ kubectl get secret db -o jsonpath='{{.data.pw}}' | base64 -d\n{s}\n", "Pg-pass-9"),
        ("root@w1:~# openssl rand -hex 32\n\n{s}\n", "9f8e7d6c5b4a39281706f5e4d3c2b1a0" * 2),
        ("$ op read op://prod/etl-db/password\n{s}\n", "Op-pass-99x"),
        ("$ pass show prod/etl\n{s}\n", "Pass-store-99x"),
        ("$ gcloud secrets versions access latest --secret=etl-db\n{s}\n", "Gcp-secret-99x"),
        (
            "PS C:\\> az keyvault secret show --vault-name kv -n db --query value -o tsv\n{s}\n",
            "Az-secret-99x",
        ),
        ("$ wg genkey\n{s}\n", "gN65BkIKy1eCE9pP1wdc8ROUtkHLF2PfAqYdO4pfMSY="),
        (
            "Password for the [elastic] user successfully reset.\nNew value: {s}\n",
            "Es-new-pass-9x",
        ),
    ],
)
def test_the_printed_secret_goes(transcript: str, secret: str) -> None:
    data = transcript.format(s=secret).encode()
    gone_and_reviewed("session.log", data, [secret])


@pytest.mark.parametrize(
    "transcript",
    [
        "$ aws ecr get-login-password\nUnable to locate credentials. Run aws configure.\n",
        "$ kubectl get secret db -o yaml\napiVersion: v1\n",
        "$ aws secretsmanager get-secret-value --secret-id prod/etl\n{\n",
        "$ gh auth token\n$ ls -l\n",
        "$ openssl rand -hex 16 > key.hex\n\n",
        "the runbook says to run vault kv get -field=password\nthen restart\n",
    ],
)
def test_what_is_no_printed_secret_stays(transcript: str) -> None:
    assert pass_one("session.log", transcript.encode()) == transcript.encode()
