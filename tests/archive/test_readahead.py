"""Read-ahead: the bytes and errors of inline reads, bounded, and no thread left behind."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from bundler.archive import MemberUnsound
from bundler.archive.readahead import SWITCH_INTERVAL, ReadAhead, depth_from_env
from bundler.errors import CorruptArchive, HostileArchive, UsageError
from tests.support.archive import build_bundle, data_offset, flip_byte, open_test_bundle
from tests.support.interrupts import ctrl_c_in

THREAD = "bundler-readahead"
LOG = b"".join(b"2024-05-01T00:00:%02dZ w%d claimed ok\n" % (i % 60, i) for i in range(200_000))


def _threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == THREAD]


def _drain(chunks: Iterable[bytes]) -> None:
    for _ in chunks:
        pass


@pytest.fixture(autouse=True)
def _no_thread_left() -> Iterator[None]:
    assert not _threads()
    yield
    assert not _threads(), "a read-ahead thread outlived its test"


class Source:
    """A generator that records how far it got and whether it was closed."""

    def __init__(self, count: int, *, fail_at: int | None = None, delay: float = 0.0) -> None:
        self.count, self.fail_at, self.delay = count, fail_at, delay
        self.made = 0
        self.closed = False

    def chunks(self) -> Iterator[bytes]:
        try:
            for index in range(self.count):
                if index == self.fail_at:
                    raise HostileArchive("member 'x' inflates past its declared size")
                time.sleep(self.delay)
                self.made += 1
                yield b"%d" % index
        finally:
            self.closed = True


def test_delivers_every_chunk_in_order() -> None:
    source = Source(50)
    assert list(ReadAhead(source.chunks(), 3)) == [b"%d" % i for i in range(50)]
    assert source.closed


def test_stays_a_bounded_number_of_chunks_ahead() -> None:
    source = Source(100)
    for taken, _ in enumerate(ReadAhead(source.chunks(), 4), start=1):
        time.sleep(0.002)  # let the producer run as far as it may
        # queued (4) + the one blocked in put + the one just handed out
        assert source.made <= taken + 5
        if taken == 10:
            break
    assert source.closed


def test_consumer_stopping_halfway_stops_the_producer() -> None:
    source = Source(1000)
    chunks = iter(ReadAhead(source.chunks(), 2))
    assert next(chunks) == b"0"
    chunks.close()  # type: ignore[attr-defined]
    assert not _threads()
    assert source.closed
    assert source.made < 1000


def test_consumer_raising_stops_the_producer() -> None:
    source = Source(1000)

    def consume() -> None:
        for chunk in ReadAhead(source.chunks(), 2):
            if chunk == b"3":
                raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        consume()
    assert not _threads()
    assert source.closed


def test_producer_error_reaches_the_consumer_after_the_chunks_before_it() -> None:
    source = Source(10, fail_at=6)
    seen: list[bytes] = []
    with pytest.raises(HostileArchive, match="inflates past"):
        seen.extend(ReadAhead(source.chunks(), 2))
    assert seen == [b"%d" % i for i in range(6)]


def test_ctrl_c_while_waiting_for_the_producer_interrupts_promptly() -> None:
    source = Source(1000, delay=0.05)  # 50 s in all: a slow disk
    started = time.monotonic()
    with ctrl_c_in(0.3), pytest.raises(KeyboardInterrupt):
        _drain(ReadAhead(source.chunks(), 2))
    assert time.monotonic() - started < 3
    assert source.closed


def test_depth_from_env() -> None:
    assert depth_from_env({}) == 4
    assert depth_from_env({"BUNDLER_READAHEAD": "off"}) == 0
    assert depth_from_env({"BUNDLER_READAHEAD": "8"}) == 8
    with pytest.raises(UsageError, match="BUNDLER_READAHEAD"):
        depth_from_env({"BUNDLER_READAHEAD": "lots"})


# -- through the real reader ------------------------------------------------------------------


def _bundle(tmp_path: Path) -> Path:
    members = {"logs/w1.log": LOG, "note.txt": b"hi"}
    return build_bundle(tmp_path / "b.zip", members).path


def test_reader_yields_the_same_bytes_with_and_without_read_ahead(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    for depth in (0, 1, 4):
        with open_test_bundle(path) as reader:
            reader._readahead = depth
            chunks = list(reader.iter_chunks("logs/w1.log", chunk_size=100_000))
        assert b"".join(chunks) == LOG
        assert max(len(c) for c in chunks) <= 100_000


def test_reader_uses_a_thread_and_joins_it_when_the_consumer_stops(tmp_path: Path) -> None:
    with open_test_bundle(_bundle(tmp_path)) as reader:
        reader._readahead = 2
        chunks = reader.iter_chunks("logs/w1.log", chunk_size=50_000)
        next(chunks)
        assert _threads(), "a member larger than one chunk is read ahead"
        chunks.close()  # type: ignore[attr-defined]
        assert not _threads()
        assert reader.read_bytes("logs/w1.log") == LOG  # the zip is still usable


def test_closing_the_reader_stops_an_abandoned_read_ahead(tmp_path: Path) -> None:
    reader = open_test_bundle(_bundle(tmp_path))
    reader._readahead = 2
    chunks = reader.iter_chunks("logs/w1.log", chunk_size=50_000)
    next(chunks)
    reader.close()
    assert not _threads()
    del chunks


@pytest.mark.parametrize("depth", [0, 4])
def test_tampered_member_raises_the_same_error_in_the_consumer(tmp_path: Path, depth: int) -> None:
    path = _bundle(tmp_path)
    flip_byte(path, data_offset(path, "logs/w1.log") + 5000)
    with open_test_bundle(path) as reader:
        reader._readahead = depth
        with pytest.raises(CorruptArchive, match="authentication") as raised:
            _drain(reader.iter_chunks("logs/w1.log", chunk_size=50_000))
        assert raised.value.exit_code == CorruptArchive.exit_code
    with open_test_bundle(path, lenient=True) as reader:
        reader._readahead = depth
        with pytest.raises(MemberUnsound):
            _drain(reader.iter_chunks("logs/w1.log", chunk_size=50_000))
        assert [p.kind for p in reader.integrity.problems] == ["auth_failed"]


def test_switch_interval_is_lowered_while_reading_ahead_and_restored_after() -> None:
    before = sys.getswitchinterval()
    chunks = iter(ReadAhead(Source(100).chunks(), 2))
    next(chunks)
    assert sys.getswitchinterval() <= SWITCH_INTERVAL
    second = iter(ReadAhead(Source(100).chunks(), 2))
    next(second)
    chunks.close()  # type: ignore[attr-defined]
    assert sys.getswitchinterval() <= SWITCH_INTERVAL  # the other one still runs
    second.close()  # type: ignore[attr-defined]
    assert sys.getswitchinterval() == before
