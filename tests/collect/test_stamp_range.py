"""A collected log's first and last timestamps, read from its ends only."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from bundler.collect.tasks.logs import STAMP_SCAN_LINES, _head, _tail, stamp_range

LINES = st.lists(st.sampled_from([b"", b"a", b"ab", b"\r", b"2026-11-30 00:00:01 x"]), max_size=450)


@given(LINES, st.sampled_from([b"", b"\n", b"\n\n"]), st.integers(min_value=1, max_value=260))
def test_ends_are_the_whole_split_cut_to_its_ends(
    lines: list[bytes], ending: bytes, count: int
) -> None:
    content = b"\n".join(lines) + ending
    split = content.split(b"\n")
    assert list(_head(content, count)) == split[:count]
    assert list(_tail(content, count)) == list(reversed(split[-count:]))


def test_first_and_last_stamps_skip_lines_without_one() -> None:
    body = [b"2026-11-30 00:00:0%d - flux - INFO - hello" % n for n in range(1, 4)]
    content = b"\n".join([b"  Traceback", *body, b"  File x", b""])
    assert stamp_range(content) == (
        datetime(2026, 11, 30, 0, 0, 1, tzinfo=UTC),
        datetime(2026, 11, 30, 0, 0, 3, tzinfo=UTC),
    )


def test_a_stamp_past_the_scanned_lines_is_not_looked_for() -> None:
    late = b"2026-11-30 00:00:09 - flux - INFO - late"
    content = b"\n".join(
        [b"no stamp"] * STAMP_SCAN_LINES + [late] + [b"no stamp"] * STAMP_SCAN_LINES
    )
    assert stamp_range(content) == (None, None)


def test_a_line_stamped_at_a_zero_time_is_no_first_or_last_time() -> None:
    """Go's zero time and the Unix epoch are "never": the log's times are its real lines'."""
    content = b"\n".join(
        [
            b"0001-01-01T00:00:00Z worker started",
            b"2026-11-30 00:00:01 - flux - INFO - hello",
            b"2026-11-30 00:00:02 - flux - INFO - bye",
            b"1970-01-01 00:00:00 - flux - INFO - clock unset",
            b"",
        ]
    )
    assert stamp_range(content) == (
        datetime(2026, 11, 30, 0, 0, 1, tzinfo=UTC),
        datetime(2026, 11, 30, 0, 0, 2, tzinfo=UTC),
    )
