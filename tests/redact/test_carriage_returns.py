"""Lines that end in a lone carriage return are lines to the rules too.

Classic Mac text, a progress bar's redraws and some device consoles end lines with
``\\r`` alone. Every rule read such a file as one line: a value that runs to its
line's end kept all but its first word (``[REDACTED] horse battery``), a directive
that must open its line was never found, and ``review`` called the output clean.
"""

from __future__ import annotations

import pytest

from bundler.source import MemorySource
from redactors.review import review_source
from tests.support.redaction import run

LINES = [
    b"2026-12-01 ok starting",
    b"password = correct horse battery",
    b"next line keeps this",
    b"requirepass foo bar baz",
    b"2026-12-01 tail evidence",
]
SECRETS = (b"correct horse battery", b"foo bar baz")


@pytest.mark.parametrize("ending", [b"\r", b"\r\n", b"\n"], ids=["CR", "CRLF", "LF"])
def test_each_line_ending_gives_the_same_redaction(ending: bytes) -> None:
    text = ending.join(LINES) + ending
    outputs, _, _ = run({"console.log": text})
    out = outputs["console.log"]
    for secret in SECRETS:
        for word in secret.split():
            assert word not in out, (word, out)
    lines = out.split(ending)
    assert len(lines) == len(LINES) + 1  # every line ending kept as it was
    assert lines[0] == LINES[0]
    assert lines[2] == LINES[2]
    assert lines[4] == LINES[4]
    assert lines[1].startswith(b"password = [REDACTED:password:")
    assert lines[3].startswith(b"requirepass [REDACTED:password:")


def test_review_finds_what_a_lone_carriage_return_hid() -> None:
    text = b"\r".join(LINES) + b"\r"
    found = review_source(MemorySource({"console.log": text})).findings
    assert [f.kind for f in found] == ["password", "password"]


def test_a_progress_bar_before_a_secret_keeps_its_redraws() -> None:
    bar = b"".join(b"downloading %d%%\r" % n for n in range(0, 101, 10))
    text = bar + b"\nexport DB_PASSWORD=Bar-Secret-77 ok\n"
    outputs, _, _ = run({"pull.log": text})
    out = outputs["pull.log"]
    assert b"Bar-Secret-77" not in out
    assert out.startswith(bar)
