"""--since: durations, leading timestamps in real log formats, bisection over ranged reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from bundler.collect.tasks.since import (
    RecordGate,
    find_since_offset,
    has_timestamps,
    parse_duration,
    parse_since,
)
from bundler.collect.tasks.timestamps import leading_timestamp, parse_offset
from bundler.errors import UsageError

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("2h", 7200), ("30m", 1800), ("1h30m", 5400), ("90s", 90), ("7d", 604800), ("1w", 604800)],
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["", "2x", "h", "-1h", "2h and", "1.5.2h"])
def test_bad_durations_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_duration(text)


def test_since_accepts_durations_and_times() -> None:
    assert parse_since("2h", NOW) == NOW - timedelta(hours=2)
    assert parse_since("2026-02-28T10:00:00Z", NOW) == datetime(2026, 2, 28, 10, tzinfo=UTC)
    assert parse_since("2026-02-28 10:00", NOW) == datetime(2026, 2, 28, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"2025-03-01 12:00:05 - flux.server - WARNING - Worker w1 missed heartbeat", "12:00:05"),
        (b"2025-03-01T12:00:05.250Z level=info msg=x", "12:00:05.250000"),
        (b"2025-03-01T13:00:05+0100 host unit[1]: started", "12:00:05"),
        (b"2025-03-01T13:00:05+01:00 x", "12:00:05"),
        (b"[2025-03-01 12:00:05,123] INFO x", "12:00:05.123000"),
        (b"2025/03/01 12:00:05 go log line", "12:00:05"),
        (b"Mar  1 12:00:05 host sshd[1]: Accepted", "12:00:05"),
    ],
)
def test_leading_timestamps(line: bytes, expected: str) -> None:
    stamp = leading_timestamp(line, UTC, NOW)
    assert stamp is not None
    assert stamp.date() == datetime(2025 if b"Mar" not in line else 2026, 3, 1).date()
    assert stamp.time().isoformat() == expected


def test_naive_times_are_in_the_hosts_offset() -> None:
    plus_two = timezone(timedelta(hours=2))
    stamp = leading_timestamp(b"2025-03-01 14:00:00 - x", plus_two)
    assert stamp == datetime(2025, 3, 1, 12, tzinfo=UTC)
    assert parse_offset("+0200") == plus_two
    assert parse_offset("-05:30") == timezone(-timedelta(hours=5, minutes=30))


@pytest.mark.parametrize(
    "line", [b'  File "x.py", line 3', b"For more information check: https://x", b"", b"12:00"]
)
def test_continuation_lines_have_no_timestamp(line: bytes) -> None:
    assert leading_timestamp(line) is None


def test_syslog_lines_from_last_december_read_in_january() -> None:
    january = datetime(2026, 1, 2, tzinfo=UTC)
    stamp = leading_timestamp(b"Dec 31 23:59:59 host x", UTC, january)
    assert stamp == datetime(2025, 12, 31, 23, 59, 59, tzinfo=UTC)


def test_record_gate_keeps_continuations_with_their_record() -> None:
    gate = RecordGate(datetime(2025, 3, 1, 12, tzinfo=UTC))
    lines = [
        b"2025-03-01 11:59:59 - old",
        b"Traceback (most recent call last):",
        b"2025-03-01 12:00:00 - new",
        b"  continuation of new",
        b"2025-03-01 11:00:00 - out of order but after the cut: kept",
    ]
    assert [gate.keep(line) for line in lines] == [False, False, True, True, True]


def _log(start: datetime, count: int, step_s: float = 1.0) -> bytes:
    out = []
    for i in range(count):
        stamp = (start + timedelta(seconds=i * step_s)).strftime("%Y-%m-%d %H:%M:%S")
        out.append(f"{stamp} - app - INFO - event {i}\n")
        if i % 7 == 0:
            out.append("    a continuation line without a timestamp\n")
    return "".join(out).encode()


def test_bisection_finds_the_cut_with_few_small_reads() -> None:
    start = datetime(2025, 1, 1, tzinfo=UTC)
    data = _log(start, 200_000)  # ~9 MB
    reads: list[tuple[int, int]] = []

    def read_at(offset: int, length: int) -> bytes:
        reads.append((offset, length))
        return data[offset : offset + length]

    since = start + timedelta(seconds=150_000)
    offset = find_since_offset(read_at, len(data), since)
    assert offset == 0 or data[offset - 1 : offset] == b"\n"
    first_kept = data.index(b"event 150000\n")
    assert offset <= first_kept
    assert first_kept - offset < 2 * 64 * 1024
    assert len(reads) < 30
    assert sum(length for _, length in reads) < 2 * 1024 * 1024


def test_bisection_on_a_log_entirely_after_or_before_the_cut() -> None:
    start = datetime(2025, 1, 1, tzinfo=UTC)
    data = _log(start, 50_000)

    def read_at(offset: int, length: int) -> bytes:
        return data[offset : offset + length]

    assert find_since_offset(read_at, len(data), start - timedelta(days=1)) == 0
    late = find_since_offset(read_at, len(data), start + timedelta(days=10))
    assert len(data) - late < 2 * 64 * 1024


def test_logs_without_timestamps_are_detected() -> None:
    assert has_timestamps(_log(NOW, 3))
    assert not has_timestamps(b"hello\nworld\n")


@pytest.mark.parametrize(
    "line",
    [
        b"0001-01-01T00:00:00Z x",
        b"0001-01-01 00:00:00 - x",
        b"1970-01-01T00:00:00Z x",
        b"1970-01-01T01:00:00+01:00 x",
        b"[1970-01-01 00:00:00,000] x",
    ],
)
def test_a_zero_time_is_no_timestamp(line: bytes) -> None:
    """A logger whose clock was never set wrote "never": not a record older than any cut-off."""
    assert leading_timestamp(line) is None
    assert leading_timestamp(line, timezone(timedelta(hours=2))) is None


def test_year_one_east_of_utc_is_no_timestamp_rather_than_an_overflow() -> None:
    assert leading_timestamp(b"0001-01-01 00:30:00 - x", timezone(timedelta(hours=2))) is None
