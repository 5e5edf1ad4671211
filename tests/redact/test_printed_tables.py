"""Tables a tool printed (psql, the MySQL client, SQL*Plus, sqlcmd, Vault's CLI, PowerShell,
Markdown): a column named for a secret, or a key/value table's secret row, goes.

Pasted query output and ``vault login`` transcripts are common in tickets and shell logs.
Their secrets have no ``key: value`` beside them; the key is a column's header or the cell
before. Before, each of these reached the bundle and `bundler review` called it clean.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import gone_and_reviewed, pass_one

_S = "Qm7rT5vWxK29pLz4"
_LEGACY_VAULT = "s.Hq7xZk2Lm9PqR4tV8wYb3NcD"
_NOTES = "ticket/notes.txt"


PSQL = """etl=> SELECT id, username, password, api_key FROM users;
 id | username |     password      | api_key
----+----------+-------------------+----------------------------------
  1 | alice    | Tr0ub4dor&3xQ!    | 9f8e7d6c5b4a39281706f5e4d3c2b1a0
  2 | bob      | pipe|in|it9       | 0a1b2c3d4e5f60718293a4b5c6d7e8f9
(2 rows)

etl=> SELECT name, setting FROM pg_settings WHERE name LIKE 'ssl%';
        name        |   setting
--------------------+-------------
 ssl                | on
 ssl_key_passphrase | Pg-pass-77!x
(2 rows)
"""


def test_psql_columns_and_settings() -> None:
    out = gone_and_reviewed(
        _NOTES,
        PSQL.encode(),
        ["Tr0ub4dor&3xQ!", "pipe|in|it9", "in|it9", "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
         "Pg-pass-77!x"],
    )  # fmt: skip
    lines = out.decode().split("\n")
    assert lines[3].startswith("  1 | alice    | [REDACTED:password:")
    assert lines[4].startswith("  2 | bob      | [REDACTED:password:")
    assert " ssl                | on" in lines
    assert "(2 rows)" in lines


def test_psql_expanded_records() -> None:
    data = (
        "-[ RECORD 1 ]------------------\n"
        "id       | 1\n"
        "username | alice\n"
        f"password | {_S}\n"
        "-[ RECORD 2 ]------------------\n"
        "id       | 2\n"
        f"password | {_S}2\n"
    )
    out = gone_and_reviewed(_NOTES, data.encode(), [_S])
    assert b"username | alice" in out


def test_mysql_boxed_table() -> None:
    data = (
        "mysql> SELECT user, authentication_string FROM mysql.user;\n"
        "+------+-------------------------------------------+\n"
        "| user | authentication_string                     |\n"
        "+------+-------------------------------------------+\n"
        "| etl  | *6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9 |\n"
        "+------+-------------------------------------------+\n"
        "1 row in set (0.00 sec)\n"
        "\n"
        "mysql> SHOW VARIABLES LIKE '%password%';\n"
        "+---------------------------+---------------+\n"
        "| Variable_name             | Value         |\n"
        "+---------------------------+---------------+\n"
        "| default_password_lifetime | 0             |\n"
        "| report_password           | Rp-s3cret-91  |\n"
        "+---------------------------+---------------+\n"
    )
    out = gone_and_reviewed(
        _NOTES, data.encode(), ["6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9", "Rp-s3cret-91"]
    )
    assert b"| default_password_lifetime | 0             |" in out
    assert b"| user | authentication_string                     |" in out


def test_markdown_table_in_a_ticket() -> None:
    data = (
        "Connection settings we tried:\n\n"
        "| Setting | Value |\n"
        "|:--------|------:|\n"
        "| host | db.internal |\n"
        "| password | correct horse battery |\n"
        f"| api_token | {_S} |\n"
    )
    out = gone_and_reviewed("ticket.md", data.encode(), ["correct horse battery", "horse", _S])
    assert b"| host | db.internal |" in out


def test_sqlplus_and_sqlcmd_columns() -> None:
    data = (
        "SQL> select username, password, created from app_users;\n\n"  # noqa: S608
        "USERNAME             PASSWORD             CREATED\n"
        "-------------------- -------------------- ---------\n"
        "SCOTT                tiger-9x             01-JAN-24\n"
        f"ETL_LOADER           {_S}     02-JAN-24\n"
        "\n2 rows selected.\n\n"
        "name       secret_key\n"
        "---------- ----------------------------------------\n"
        f"loader     {_S}x\n\n(1 rows affected)\n"
    )
    out = gone_and_reviewed(_NOTES, data.encode(), ["tiger-9x", _S])
    assert b"SCOTT                [REDACTED:password:" in out
    assert b"01-JAN-24" in out
    assert b"02-JAN-24" in out
    assert b"loader     [REDACTED:" in out


def test_vault_cli_tables() -> None:
    data = (
        "$ vault login -method=userpass username=alice\n"
        "Success! You are now authenticated.\n\n"
        "Key                    Value\n"
        "---                    -----\n"
        f"token                  {_LEGACY_VAULT}\n"
        "token_duration         768h\n"
        'token_policies         ["default"]\n\n'
        "$ vault kv get secret/etl\n"
        "====== Data ======\n"
        "Key         Value\n"
        "---         -----\n"
        "password    correct horse battery\n"
        "username    etl\n\n"
        "$ vault token lookup\n"
        "Key                 Value\n"
        "---                 -----\n"
        f"id                  {_LEGACY_VAULT[:-1]}Q\n"
        "policies            [default]\n"
    )
    out = gone_and_reviewed(_NOTES, data.encode(), [_LEGACY_VAULT, _LEGACY_VAULT[:-1], "horse"])
    assert b"token_duration         768h" in out
    assert b"username    etl" in out


def test_powershell_format_table() -> None:
    data = (
        "PS C:\\> Get-ChildItem env: | Where-Object Name -like '*ETL*'\n\n"
        "Name                           Value\n"
        "----                           -----\n"
        "ETL_HOST                       db.internal\n"
        f"ETL_DB_PASSWORD                {_S}\n"
    )
    out = gone_and_reviewed(_NOTES, data.encode(), [_S])
    assert b"ETL_HOST                       db.internal" in out


def test_a_table_across_views_of_a_big_log() -> None:
    """A long query result crosses the engine's views: rows after the first view are read
    with the header of the first."""
    rows = "".join(f" {i:6d} | user{i:05d} | {_S}{i:05d}\n" for i in range(40000))
    data = "     id | username  | password\n--------+-----------+----------\n" + rows + "\n"
    out = pass_one("psql.log", data.encode(), chunk=65536)
    assert _S.encode() not in out
    assert out.count(b"\n") == data.count("\n")
    assert out.count(b"[REDACTED:password:") == 40000


@pytest.mark.parametrize(
    "text",
    [
        "etl=> \\d users\n  Column  | Type | Nullable\n----------+------+---------\n"
        " password | text | not null\n token    | text |\n",
        "Password\n--------\nThe password must be rotated every 90 days.\n",
        "API Key\n=======\nsee below\n",
        "secretName: etl-db\n---\napiVersion: v1\nkind: Secret\n",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
        "Key         Value\n---         -----\ntoken_ttl   768h\npassword    <none>\n",
        "--------------------------------------------------\npassword reset requested\n",
        " password_changed_at | count\n---------------------+-------\n 2024-01-01          | 3\n",
    ],
)
def test_what_is_no_secret_column_stays(text: str) -> None:
    assert pass_one("notes.txt", text.encode()) == text.encode()


@pytest.mark.parametrize("cut", range(0, 150, 7))
@pytest.mark.parametrize("chunk", [5, 64])
def test_any_cut_of_a_table_is_read_without_error(cut: int, chunk: int) -> None:
    """A member that ends inside a table (a log cut short) or reaches the engine in small
    pieces: never an error, and the secret's row, once whole, never kept."""
    data = PSQL.encode()[: 180 + cut]
    out = pass_one("psql.log", data, chunk=chunk)
    assert out.count(b"\n") == data.count(b"\n")
    if b"Tr0ub4dor&3xQ!    |" in data:
        assert b"Tr0ub4dor&3xQ!" not in out
