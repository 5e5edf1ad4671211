"""Lines that end in a lone carriage return are lines to the rules too.

Classic Mac text, a progress bar's redraws and some device consoles end lines with
``\\r`` alone. Every rule read such a file as one line: a value that runs to its
line's end kept all but its first word (``[REDACTED] horse battery``), a directive
that must open its line was never found, and ``review`` called the output clean.
"""

from __future__ import annotations

import pytest

from bundler.redaction.segments import Edges
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


@pytest.mark.parametrize("ending", [b"\r", b"\r\n", b"\n"], ids=["CR", "CRLF", "LF"])
def test_review_and_the_report_name_the_line_the_rule_saw(ending: bytes) -> None:
    """Before: lines were counted by ``\\n`` alone, so review (and the redaction report)
    put every finding of a lone-``\\r`` file on line 1, pointing nowhere useful."""
    text = ending.join(LINES) + ending
    found = review_source(MemorySource({"console.log": text})).findings
    assert sorted(f.line for f in found) == [2, 4]
    _, redactor, _ = run({"console.log": text})
    (member,) = redactor.report().files
    assert sorted(hit.line for hit in member.hits) == [2, 4]


def test_a_json_member_with_lone_carriage_returns_is_reviewed_line_by_line() -> None:
    """The structure pass's findings are numbered the same way."""
    text = b'{\r  "user": "app",\r  "password": "Json-Cr-5"\r}\r'
    found = review_source(MemorySource({"settings.json": text})).findings
    assert {f.line for f in found} == {3}


def test_a_segment_counts_a_carriage_return_line_feed_cut_between_chunks_once() -> None:
    """Pass two numbers a segment's report lines after the lines of the segments before it,
    counted as its output passes: a ``\\r\\n`` split over two chunks is one line end, a lone
    ``\\r`` is one too."""
    edges = Edges()
    text = b"".join(edges.watch([b"a\r", b"\nb\r", b"c\n", b"", b"d\r"]))
    assert text == b"a\r\nb\rc\nd\r"
    assert edges.lines == 4


def test_a_progress_bar_before_a_secret_keeps_its_redraws() -> None:
    bar = b"".join(b"downloading %d%%\r" % n for n in range(0, 101, 10))
    text = bar + b"\nexport DB_PASSWORD=Bar-Secret-77 ok\n"
    outputs, _, _ = run({"pull.log": text})
    out = outputs["pull.log"]
    assert b"Bar-Secret-77" not in out
    assert out.startswith(bar)
