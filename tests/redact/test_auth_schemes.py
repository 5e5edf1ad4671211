"""An auth scheme with nothing after it, or blanks before its credential.

A member ending in ``Authorization: Bearer `` (a log cut right there) made the value
reader index past the text: ``bundler redact`` and ``bundler review`` both stopped with an
internal error (exit 70). And ``Basic`` followed by more than one blank kept its credential.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from redactors import BundleRedactor
from tests.support.redaction import reviews_clean

_TOKEN = b"Qm7rT5vWxK29pLz4Abc"


def _redact(chunks: list[bytes]) -> bytes:
    return b"".join(BundleRedactor(key=b"k" * 32).transform("req.log", chunks))


@pytest.mark.parametrize(
    "text", [b"Authorization: Bearer ", b"GET /\ntoken: Bearer ", b"auth=basic "]
)
def test_a_scheme_at_the_end_of_a_member_is_kept_as_it_is(text: bytes) -> None:
    assert _redact([text]) == text
    assert reviews_clean("req.log", text)


def test_a_credential_in_the_next_chunk_is_still_found() -> None:
    out = _redact([b"GET /\nAuthorization: Bearer ", _TOKEN + b"\n"])
    assert _TOKEN not in out
    assert out.startswith(b"GET /\nAuthorization: Bearer [REDACTED:")


def test_blanks_between_scheme_and_credential() -> None:
    out = _redact([b"x-auth: basic   Ym9iOlFtN3JUNXZXeEsyOXBMejQ=\n"])
    assert out.startswith(b"x-auth: basic   [REDACTED:basic-auth:")


def test_the_cli_reads_such_a_member_without_an_internal_error(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "req.log").write_bytes(b"GET / HTTP/1.1\nAuthorization: Bearer ")
    redacted = CliRunner().invoke(
        cli, ["redact", str(tmp_path / "in"), "--out", str(tmp_path / "out")]
    )
    assert redacted.exit_code == 0, redacted.output
    reviewed = CliRunner().invoke(cli, ["review", str(tmp_path / "out")])
    assert reviewed.exit_code == 0, reviewed.output
