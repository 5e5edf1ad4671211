"""A CSV or TSV export's header says which column holds a secret: every value in it goes.

A user table or a credential inventory exported as CSV holds its passwords and tokens with no
key beside each value: the key is the column's name, on the first line. Before, every one of
them reached the bundle and review called the file clean.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import pass_one, reviews_clean

_S = "Qm7rT5vWxK29pLz4"


def test_a_secret_column_goes_and_every_other_cell_stays() -> None:
    data = (
        'id,user,"password",note\n'
        f'1,bob,"{_S}, with a comma",hello\n'
        "2,amy,,no password\n"
        f'3,"c, d",{_S}x,"a ""quoted"" note"\n'
    ).encode()
    out = pass_one("exports/users.csv", data)
    assert _S.encode() not in out
    lines = out.split(b"\n")
    assert lines[0] == b'id,user,"password",note'
    assert lines[1].startswith(b'1,bob,"[REDACTED:password:')
    assert lines[1].endswith(b'",hello')
    assert lines[2] == b"2,amy,,no password"
    assert lines[3].startswith(b'3,"c, d",[REDACTED:password:')
    assert lines[3].endswith(b',"a ""quoted"" note"')
    assert not reviews_clean("users.csv", data)
    assert reviews_clean("users.csv", out)


def test_a_tsv_and_a_semicolon_csv() -> None:
    tsv = f"id\tapi_token\tuser\n1\t{_S}\tbob\n".encode()
    semi = f"id;user;secret\n1;bob;{_S}\n".encode()
    assert _S.encode() not in pass_one("inventory.tsv", tsv)
    assert _S.encode() not in pass_one("inventory.csv", semi)


def test_rows_in_every_view_of_a_big_export() -> None:
    """The header is on the first line only; rows a megabyte later are read by it too."""
    rows = "".join(f"{i},user{i},{_S}{i:05d},n\n" for i in range(30000))
    data = ("id,user,api_token,note\n" + rows).encode()
    out = pass_one("big.csv", data, chunk=65536)
    assert _S.encode() not in out
    assert out.count(b"\n") == data.count(b"\n")
    assert out.count(b",n\n") == 30000


@pytest.mark.parametrize(
    "text",
    [
        "id,user,password_changed_at\n1,bob,2026-12-01\n",
        "host,port,token_count\ndb,5432,3\n",
        "id,name,password\n1,bob,\n2,amy,********\n",
    ],
    ids=["a date column", "a count column", "empty and masked cells"],
)
def test_a_file_without_secret_values_is_kept(text: str) -> None:
    data = text.encode()
    assert pass_one("export.csv", data) == data
