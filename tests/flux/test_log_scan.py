"""The block scanner agrees with the line-by-line parser, whatever the block and chunk cuts.

Agreement means: every non-routine event identical (kind, line, text, time,
detail), routine events yielded + counted = the parser's per-(kind, worker)
totals, every yielded routine event is one the parser also produced, and the
log's last event is the same.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bundler.analyze.api import (
    FIRST_KEPT,
    LATEST_KEPT,
    EvidenceSet,
    TimelineEvent,
    TimelineStream,
    routine_kept,
)
from bundler.analyze.sampling import sample
from bundler.archive._chunks import rechunk
from bundler.products.flux.logs import BlockScanner, LogParser, parse_logs
from bundler.products.flux.logs.blocks import blocks
from bundler.source import MemorySource, iter_lines

ROUTINE = {"claimed", "execution_scheduled", "execution_claimed", "execution_completed"}
SPAM = "flux.security.auth_service - WARNING - Auth disabled — request treated as admin (anonymous)"
RARE = [
    "flux.server - WARNING - Worker w{n} missed heartbeat, marked STALE (grace period: 30s)",
    "flux.server - WARNING - Worker w{n} evicted (stale for >30s)",
    "flux.worker - WARNING - Connection lost (HTTPStatusError: Client error '401 Unauthorized' "
    "for url 'http://127.0.0.1:8000/workers/register'\nFor more information check: "
    "https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/401). Reconnecting in 1.2s...",
    "flux.worker - WARNING - Connection lost (ConnectError: All connection attempts failed",
    'flux.worker - ERROR - Boom\nTraceback (most recent call last):\n  File "x.py", line 1',
    "flux.worker - INFO - Execution FAILED - etl v3 - {x}",
]


def _log(seed: int, lines: int, rare: float) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(lines):
        stamp = f"2026-11-29 10:{i // 600 % 60:02d}:{i // 10 % 60:02d}"
        n, x = rng.randint(1, 4), f"{rng.getrandbits(64):016x}"
        roll = rng.random()
        if roll < rare:
            body = rng.choice(RARE).format(n=n, x=x)
        elif roll < 0.5:
            body = SPAM
        elif roll < 0.6:
            body = f"flux.api.worker_routes - INFO - Execution {x} claimed by worker w{n}"
        else:
            phase = rng.choice(["Scheduled", "Claimed", "COMPLETED"])
            body = f"flux.worker - INFO - Execution {phase} - etl v3 - {x}"
        out.append(f"{stamp} - {body}")
    return out


def _compare(data: bytes, worker: str | None, block: int, chunk: int) -> BlockScanner:
    source = MemorySource({"x.log": data})
    expected = list(LogParser("x.log", worker=worker).parse(iter_lines(source, "x.log")))
    scanner = BlockScanner("x.log", worker=worker, block_bytes=block)
    got = list(scanner.scan(source.iter_chunks("x.log", chunk)))
    assert [e for e in got if e.kind not in ROUTINE] == [
        e for e in expected if e.kind not in ROUTINE
    ]
    totals = Counter((e.kind, e.worker) for e in got) + scanner.counted
    assert totals == Counter((e.kind, e.worker) for e in expected)
    known = {(e.line, e.kind, e.text) for e in expected}
    assert all((e.line, e.kind, e.text) in known for e in got)
    assert got[-1:] == expected[-1:]
    return scanner


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("block", "chunk"), [(512, 97), (4096, 1 << 20), (2048, 3000)])
def test_agrees_with_the_line_parser(seed: int, block: int, chunk: int) -> None:
    lines = _log(seed, 3000, rare=0.01)
    newline = "\r\n" if seed % 2 else "\n"
    text = newline.join(lines) + ("" if seed % 3 == 0 else newline)
    scanner = _compare(text.encode(), "w9" if seed % 2 else None, block, chunk)
    assert sum(scanner.counted.values()) > 500  # the fast path did run


def test_a_401_record_split_by_a_block_and_a_chunk_boundary_keeps_its_continuation() -> None:
    routine = [f"2026-11-29 10:00:00 - {SPAM}"] * 200
    record = (
        "2026-11-29 10:00:01 - flux.worker - WARNING - Connection lost (HTTPStatusError: Client "
        "error '401 Unauthorized' for url 'http://127.0.0.1:8000/workers/register'"
    )
    follow = (
        "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/"
        "Status/401). Reconnecting in 1.2s..."
    )
    lines = [*routine, record, follow, *routine, "  stray traceback line", *routine]
    data = ("\n".join(lines) + "\n").encode()
    cut = data.index(b"For more")  # the continuation starts a new block and a new chunk
    chunks = [data[:cut], data[cut:]]
    scanner = BlockScanner("x.log", worker="w1", block_bytes=1024)
    events = list(scanner.scan(chunks))
    (event,) = [e for e in events if e.kind == "auth_rejected"]
    assert event.line == 201
    assert event.detail["status_code"] == 401
    assert event.detail["delay_s"] == 1.2
    assert "stray" not in event.text  # the routine lines after it ended the record


def test_a_continuation_after_skipped_routine_lines_is_not_glued_to_an_earlier_record() -> None:
    head = [f"2026-11-29 10:00:00 - {SPAM}"] * 300
    lost = (
        "2026-11-29 10:00:01 - flux.worker - WARNING - Connection lost (ConnectError: All "
        "connection attempts failed"
    )
    lines = [*head, lost, *head, "  File 'late.py', line 9", *head]
    data = ("\n".join(lines) + "\n").encode()
    _compare(data, "w1", 1024, 1000)
    events = list(BlockScanner("x.log", worker="w1", block_bytes=1024).scan([data]))
    (event,) = [e for e in events if e.kind == "connection_lost"]
    assert "late.py" not in event.text


def test_blocks_number_lines_like_iter_lines_across_chunk_cuts() -> None:
    data = b"a\r\nbb\n\nccc\nlong line without end"
    for size in (1, 2, 5, 64):
        for chunk in (1, 3, 7, 100):
            parts = [data[i : i + chunk] for i in range(0, len(data), chunk)]
            got = [line for b in blocks(parts, size) for line in b.text_lines()]
            assert got == list(iter_lines(MemorySource({"x": data}), "x"))


def test_a_log_spooled_past_one_mib_scans_as_its_bytes_do() -> None:
    """Doctor's spool re-chunks a member of 1 MiB or more into memoryviews of its bytes.

    A server log grows past that quickly when its database is down (a traceback per
    request); the scanner once called ``rfind`` on the view and the whole normalizer failed.
    """
    data = ("\n".join(_log(7, 15000, rare=0.01)) + "\n").encode()
    assert len(data) > 1 << 20
    spooled = list(rechunk([data], 1 << 20))
    assert any(isinstance(chunk, memoryview) for chunk in spooled)
    expected = list(BlockScanner("x.log", worker="w1").scan([data]))
    assert list(BlockScanner("x.log", worker="w1").scan(spooled)) == expected


def test_parse_logs_hands_counted_events_to_the_sampler() -> None:
    lines = _log(1, 40_000, rare=0.0)
    source = MemorySource({"hosts/h01/logs/0.log": "\n".join(lines) + "\n"})
    stream = parse_logs(EvidenceSet(source))
    assert isinstance(stream, TimelineStream)
    sampled = sample(stream)
    expected = Counter(
        (e.kind, e.worker)
        for e in LogParser("hosts/h01/logs/0.log").parse(iter_lines(source, "hosts/h01/logs/0.log"))
    )
    assert sum(stream.counted.values()) > 0
    assert sampled.seen == sum(expected.values())
    for (kind, worker), n in expected.items():
        assert sampled.timeline.count(kind, worker) == n


def test_a_plain_event_list_still_samples() -> None:
    event = TimelineEvent(kind="stale", member="m", line=1, text="t")
    assert sample([event]).seen == 1


def _with_checkpoints(lines: list[str]) -> list[str]:
    """A worker's ``Checkpointing execution`` line after each progress line, as Flux writes."""
    out = []
    for line in lines:
        out.append(line)
        if " - flux.worker - INFO - Execution " in line:
            out.append(f"{line[:19]} - flux.worker - INFO - Checkpointing execution 'etl' (x)...")
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("block", [512, 4096, 128 * 1024])
def test_the_sampled_timeline_is_the_line_parsers(seed: int, block: int) -> None:
    lines = _with_checkpoints(_log(seed, 6000, rare=0.003))
    data = ("\n".join(lines) + "\n").encode()
    source = MemorySource({"x.log": data})
    worker = "w9" if seed % 2 else None
    expected = sample(LogParser("x.log", worker=worker).parse(iter_lines(source, "x.log")))
    scanner = BlockScanner("x.log", worker=worker, block_bytes=block)
    got = sample(TimelineStream(scanner.scan(source.iter_chunks("x.log")), scanner.counted))
    assert got.timeline.events == expected.timeline.events
    assert got.timeline.totals == expected.timeline.totals
    assert sum(scanner.counted.values()) > 1000  # most routine lines were only counted


def test_checkpoint_lines_are_neither_parsed_nor_counted() -> None:
    lines = _with_checkpoints(_log(3, 4000, rare=0.0))
    scanner = _compare(("\n".join(lines) + "\n").encode(), "w1", 4096, 1 << 20)
    assert all(kind in ROUTINE for kind, _ in scanner.counted)


def test_a_tail_whose_times_go_back_keeps_every_event_of_that_kind() -> None:
    lines = [
        f"2026-11-29 10:{59 - i // 60:02d}:{i % 60:02d} - flux.worker - INFO - "
        f"Execution COMPLETED - etl v3 - {i:016x}"
        for i in range(300)
    ]
    data = ("\n".join(lines) + "\n").encode()
    source = MemorySource({"x.log": data})
    expected = sample(LogParser("x.log", worker="w1").parse(iter_lines(source, "x.log")))
    scanner = BlockScanner("x.log", worker="w1")
    got = sample(TimelineStream(scanner.scan(source.iter_chunks("x.log")), scanner.counted))
    assert got.timeline.events == expected.timeline.events


class _CountingSource(MemorySource):
    def __init__(self) -> None:
        super().__init__()
        self.reads: Counter[str] = Counter()

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20):  # type: ignore[no-untyped-def]
        self.reads[name] += 1
        return super().iter_chunks(name, chunk_size)


def test_the_normalizers_scan_is_handed_to_the_timeline_once() -> None:
    from datetime import UTC

    from bundler.products.flux.logs import shared

    lines = _with_checkpoints(_log(2, 3000, rare=0.01))
    member = "hosts/h01/logs/0.log"
    source = _CountingSource()
    source.add(member, "\n".join(lines) + "\n")
    fresh = sample(parse_logs(EvidenceSet(source)))
    assert source.reads[member] == 1
    shared.scan(source, member, None, UTC, routine_kept(1))  # what the normalizers do
    assert source.reads[member] == 2
    handed = sample(parse_logs(EvidenceSet(source)))
    assert source.reads[member] == 2  # not read again
    assert handed.timeline.events == fresh.timeline.events
    assert handed.timeline.totals == fresh.timeline.totals
    again = sample(parse_logs(EvidenceSet(source)))  # taken once: scanned again
    assert source.reads[member] == 3
    assert again.timeline.events == fresh.timeline.events


def test_a_fleet_keeps_fewer_routine_events_of_each_worker_and_every_rare_one() -> None:
    assert routine_kept(1) == routine_kept(100) == (FIRST_KEPT, LATEST_KEPT)
    assert routine_kept(1000) == (1, 5) == routine_kept(100_000)  # the floor: first and latest
    sizes = [routine_kept(n) for n in range(1, 2000, 7)]
    assert sizes == sorted(sizes, reverse=True)  # never more for a bigger fleet
    lines = _with_checkpoints(_log(5, 6000, rare=0.003))
    source = MemorySource({"x.log": ("\n".join(lines) + "\n").encode()})
    every = list(LogParser("x.log", worker="w9").parse(iter_lines(source, "x.log")))
    first, latest = routine_kept(1000)
    scanner = BlockScanner("x.log", worker="w9", block_bytes=4096, kept=(first, latest))
    got = sample(TimelineStream(scanner.scan(source.iter_chunks("x.log")), scanner.counted))
    by_key: dict[tuple[str, str | None], list[TimelineEvent]] = {}
    for event in every:
        by_key.setdefault((event.kind, event.worker), []).append(event)
    for key, events in by_key.items():
        kept = [e for e in got.timeline.events if (e.kind, e.worker) == key]
        if key[0] in ROUTINE:  # the log is in time order: its first and its latest lines
            assert kept == events[:first] + events[-latest:], key
        else:
            assert kept == events, key  # rare ones: every one, as before
        assert got.timeline.count(*key) == len(events)  # counts stay exact
    assert sum(len(v) for k, v in by_key.items() if k[0] in ROUTINE) > 1000


def test_a_scan_of_another_sample_size_is_not_handed_over() -> None:
    from datetime import UTC

    from bundler.products.flux.logs import shared

    member = "hosts/h01/logs/0.log"
    source = _CountingSource()
    source.add(member, "\n".join(_log(2, 3000, rare=0.01)) + "\n")
    shared.scan(source, member, None, UTC, routine_kept(1000))  # normalizers saw a fleet
    parse = sample(parse_logs(EvidenceSet(source)))  # one log here: the full sample
    assert source.reads[member] == 2  # scanned again, not handed the fleet's sample
    assert parse.routine_kept == (FIRST_KEPT, LATEST_KEPT)
