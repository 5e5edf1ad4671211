"""Secrets assigned in code: configuration written as a program, debug dumps, prose.

Support bundles carry application configuration that is code (Django's ``settings.py``,
Rails initializers, CodeIgniter's ``database.php``). A value that fetches a secret (a call
with the secret's name as its argument, a lookup by a quoted name) holds none.
"""

from __future__ import annotations

import pytest

from bundler.source import MemorySource
from redactors.review import review_source
from tests.support.redaction import run

Files = dict[str, bytes | str]


def _redacted(files: Files) -> dict[str, bytes]:
    outputs, _, refused = run(files)
    assert refused == {}
    for member, text in files.items():
        raw = text.encode() if isinstance(text, str) else text
        assert outputs[member].count(b"\n") == raw.count(b"\n"), member
    return outputs


@pytest.mark.parametrize(
    "line",
    [
        'password = os.environ.get("DB_PASSWORD")',
        "'PASSWORD': os.getenv('DB_PASSWORD'),",
        "api_key = ENV['API_KEY']",
        'db_password = $_SERVER["DB_PASSWORD"];',
        "token = params[:token]",
    ],
)
def test_a_value_that_fetches_the_secret_is_kept(line: str) -> None:
    """A call with the secret's name as its argument, a lookup by a quoted name (``ENV`` is
    upper case, as a password could be: a subscript with a quoted index is code, not a
    password) and a Ruby symbol index fetch a secret; they hold none."""
    text = line + "\n"
    assert _redacted({"settings.py": text})["settings.py"] == text.encode()
    assert review_source(MemorySource({"settings.py": text})).findings == []
