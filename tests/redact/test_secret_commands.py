"""A secret handed to a command that stores or wraps it goes; the command, evidence, stays.

Before, each of these reached the bundle and ``bundler review`` called it clean, and two did
worse: ``$pw = ConvertTo-SecureString "X" -AsPlainText`` replaced the cmdlet's name (the
``pw`` key's "value") and kept X, and Python's ``{'password': b'X'}`` replaced the ``b``
and kept X.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import pass_one, reviews_clean

_S = "Qm7rT5vWxK29pLz4"

LINES = {
    "az keyvault": f"az keyvault secret set --vault-name prod --name db --value {_S}",
    "gh secret set": f"gh secret set DB_PASSWORD --body '{_S}' --repo acme/etl",
    "gh secret set -b": f"gh secret set NPM_TOKEN -b {_S}",
    "aws ssm": f"aws ssm put-parameter --name /etl/db --value={_S} --type SecureString",
    "aws secretsmanager": "aws secretsmanager put-secret-value --secret-id db"
    f" --secret-string '{_S}'",
    "kubectl literal, any key": f"kubectl create secret generic etl --from-literal=dsn={_S}",
    "powershell securestring": f'$pw = ConvertTo-SecureString "{_S}" -AsPlainText -Force',
    "powershell -String": f"ConvertTo-SecureString -String '{_S}' -AsPlainText -Force",
    "python bytes repr": f"connect kwargs={{'user': 'etl', 'password': b'{_S}'}}",
    "python raw string": f'settings = {{"token": r"{_S}"}}',
}


@pytest.mark.parametrize("line", LINES.values(), ids=LINES.keys())
def test_the_secret_goes_and_the_command_stays(line: str) -> None:
    data = (line + "\n").encode()
    out = pass_one("history.log", data)
    assert _S.encode() not in out
    before, after = line.split(_S)
    assert out.startswith(before.encode() + b"[REDACTED:")
    assert out.endswith(after.encode() + b"\n")
    assert not reviews_clean("history.log", data)


@pytest.mark.parametrize(
    "line",
    [
        "gh secret set DB_PASSWORD < pw.txt",
        "gh secret set DB_PASSWORD --body $DB_PASSWORD",
        "az keyvault secret set --vault-name v --name db --file pw.txt",
        "kubectl create secret generic db --from-file=./pw.txt",
        "$pw = ConvertTo-SecureString $env:DB_PASSWORD -AsPlainText -Force",
        "$cred = Get-Credential -UserName etl",
        "aws ssm get-parameter --name /etl/db --with-decryption",
    ],
)
def test_references_and_reads_are_kept(line: str) -> None:
    data = (line + "\n").encode()
    assert pass_one("history.log", data) == data


@pytest.mark.parametrize(
    "line",
    [
        "aws secretsmanager get-secret-value --secret-id prod/etl/db",
        "read arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/etl/db-AbCdEf ok",
        '{"ARN": "arn:aws:secretsmanager:eu-west-1:1:secret:db-AbCd", "Name": "db"}',
        "GetSecretValue SecretId=arn:aws:secretsmanager:eu-west-1:1:secret:db",
    ],
    ids=["secret-id name", "arn in prose", "arn in json", "SecretId arn"],
)
def test_which_secret_was_read_is_evidence(line: str) -> None:
    """AWS names a stored secret by ``--secret-id NAME`` and by an ARN holding ``:secret:NAME``;
    both were redacted (the key rules read ``secret_id`` as HashiCorp's credential and the
    ARN's ``secret:`` as a key), which hid which secret a failing job asked for."""
    data = (line + "\n").encode()
    assert pass_one("history.log", data) == data


_UUID = b"45a3bd52-07c7-47a4-52fd-0745e0cfe967"


def test_a_hashicorp_secret_id_is_still_a_credential() -> None:
    line = b"vault write auth/approle/login role_id=etl secret_id=" + _UUID + b"\n"
    out = pass_one("history.log", line)
    assert b"45a3bd52" not in out
    assert out.startswith(b"vault write auth/approle/login role_id=etl secret_id=[REDACTED:")


SQL = {
    "oracle user": f"ALTER USER etl IDENTIFIED BY {_S};",
    "oracle quoted": f'CREATE USER etl IDENTIFIED BY "{_S} x" DEFAULT TABLESPACE users;',
    "oracle link": f"CREATE DATABASE LINK l CONNECT TO bob IDENTIFIED BY {_S} USING 'x';",
    "oracle hashes": f"ALTER USER etl IDENTIFIED BY VALUES '{_S}'",
    "sql server unicode": f"ALTER LOGIN etl WITH PASSWORD = N'{_S}' OLD_PASSWORD = 'x9y8z7';",
    "postgres escape string": f"ALTER ROLE etl PASSWORD E'{_S}'",
}


@pytest.mark.parametrize("line", SQL.values(), ids=SQL.keys())
def test_a_ddl_password_in_any_dialect_goes(line: str) -> None:
    """Oracle writes the password unquoted or double-quoted, SQL Server as ``N'...'``: the
    first was kept, and the second lost its ``N`` while its string stayed."""
    data = (line + "\n").encode()
    out = pass_one("history.log", data)
    assert _S.encode() not in out
    assert out.startswith(line.split(_S)[0].encode())
    assert not reviews_clean("history.log", data)


def test_prose_about_identification_is_kept() -> None:
    data = b"the user is identified by their e-mail; ALTER USER etl IDENTIFIED BY :pw\n"
    assert pass_one("history.log", data) == data
