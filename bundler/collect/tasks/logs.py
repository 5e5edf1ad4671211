"""Logs named by the inventory: files read by ranges, systemd units through journalctl.

A file log is never read whole when it is large: ``--since`` is found by
bisection over ranged reads, and a region larger than ``--log-bytes`` is read
as its head and its tail only (the gap is marked, see :mod:`.capping`).
``--log-lines`` caps lines the same way. Units use ``journalctl -u UNIT
--since @EPOCH -n N --no-pager -o short-iso`` and the same byte cap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timezone
from typing import Literal

from ..budget import Budget
from ..capping import HEAD_FRACTION, Capped, HeadTailCapper
from ..errors import (
    STDERR_EXCERPT,
    CollectError,
    CommandFailed,
    CommandNotFound,
    FileUnreadable,
    excerpt,
    last_line,
)
from ..transports.links import refuse_unsafe_links
from ..transports.runner import (
    STOPPED_NOTE,
    FileInfo,
    HostRunner,
    StoppedAtTimeout,
    failure_message,
)
from .since import BISECT_WINDOW, RecordGate, find_since_offset, has_timestamps
from .timestamps import leading_timestamp

READ_CHUNK = 1024 * 1024
STAMP_SCAN_LINES = 200


@dataclass(frozen=True)
class LogOptions:
    max_bytes: int
    max_lines: int | None
    since: datetime | None = None


@dataclass(frozen=True)
class CollectedLog:
    content: Capped
    origin: Literal["file", "journald"]
    first_at: datetime | None
    last_at: datetime | None
    note: str | None = None
    error: CollectError | None = None
    """Why the log is incomplete although it is kept (journalctl stopped at its timeout)."""


SHRANK_NOTE = (
    "the file shrank while it was read (rotated or truncated in place): "
    "what was kept ends where the file then ended, and may miss lines"
)


def collect_file_log(
    runner: HostRunner,
    path: str,
    options: LogOptions,
    budget: Budget,
    host_tz: timezone = UTC,
    now: datetime | None = None,
) -> CollectedLog:
    info = runner.stat(path, budget=budget)
    refuse_unsafe_links(info.links)
    if not info.is_regular:  # a FIFO would block the read, a device never end
        raise FileUnreadable(f"not a regular file: {info.kind}")
    followed = link_note(path, info)
    path = info.resolved or path  # the file the links were judged for, not the links again
    shrank = False

    def read_at(offset: int, length: int) -> bytes:
        # Every read lies within the size stat gave: a shorter answer means the file
        # shrank while it was read (logrotate's copytruncate, or a new file renamed in).
        nonlocal shrank
        data = runner.read_range(path, offset, length, budget=budget)
        shrank = shrank or len(data) < length
        return data

    size, start, gate, note = info.size, 0, None, None
    if options.since is not None and size:
        if has_timestamps(read_at(0, min(size, BISECT_WINDOW)), host_tz, now):
            start = find_since_offset(read_at, size, options.since, host_tz, now)
            gate = RecordGate(options.since, host_tz, now)
        else:
            note = "--since not applied: no recognizable timestamps in this log"
    capper = HeadTailCapper(options.max_bytes, options.max_lines)
    feeder = _GatedFeeder(capper, gate)
    if size - start <= options.max_bytes:
        for offset in range(start, size, READ_CHUNK):
            feeder.feed(read_at(offset, min(READ_CHUNK, size - offset)))
    else:
        head = read_at(start, int(options.max_bytes * HEAD_FRACTION))
        head = head[: head.rfind(b"\n") + 1]
        tail = read_at(size - (options.max_bytes - len(head)), options.max_bytes - len(head))
        tail = tail[tail.find(b"\n") + 1 :]
        feeder.feed(head)
        feeder.finish()
        capper.skip(size - start - len(head) - len(tail))
        feeder.gate = None  # the tail is newer than anything the head kept
        feeder.feed(tail)
    feeder.finish()
    content = capper.finish()
    first_at, last_at = stamp_range(content.content, host_tz, now)
    if shrank:
        note = "; ".join(filter(None, (note, SHRANK_NOTE)))
    note = "; ".join(filter(None, (followed, note))) or None
    return CollectedLog(content, "file", first_at, last_at, note)


def link_note(path: str, info: FileInfo) -> str | None:
    """``PATH is a link to TARGET`` when a link was followed to read ``path``."""
    if not info.links or info.resolved is None:
        return None
    return f"{path} is a link to {info.resolved}"


def journal_argv(unit: str, options: LogOptions) -> list[str]:
    argv = ["journalctl", "-u", unit, "--no-pager", "-o", "short-iso"]
    if options.since is not None:
        argv += ["--since", f"@{int(options.since.timestamp())}"]
    if options.max_lines:
        argv += ["-n", str(options.max_lines)]
    return argv


def collect_unit_log(
    runner: HostRunner,
    unit: str,
    options: LogOptions,
    budget: Budget,
    redact: Callable[[str], str],
) -> CollectedLog:
    """A unit's journal; ``redact`` is the recorder's, for journalctl's stderr when it fails
    (quoted redacted, then shortened, so a cut never leaves part of a secret)."""
    try:
        result = runner.run(journal_argv(unit, options), budget=budget, max_bytes=options.max_bytes)
    except StoppedAtTimeout as stopped:  # every journal line is evidence on its own: keep them
        content = stopped.partial.stdout
        first_at, last_at = stamp_range(content.content)
        return CollectedLog(content, "journald", first_at, last_at, STOPPED_NOTE, stopped)
    if result.exit_code == 127:
        raise CommandNotFound("journalctl is not installed on this host")
    if result.exit_code != 0:
        why = excerpt(last_line(result.stderr), redact, STDERR_EXCERPT)
        raise CommandFailed(failure_message(f"journalctl {result.ending}", why), redacted=True)
    content = result.stdout
    note = None
    if content.content.strip() in (b"", b"-- No entries --"):
        note = "journal has no entries for this unit" + (" in --since" if options.since else "")
    elif options.max_lines:
        note = f"newest {options.max_lines} entries at most (journalctl -n)"
    first_at, last_at = stamp_range(content.content)
    return CollectedLog(content, "journald", first_at, last_at, note)


def stamp_range(
    content: bytes, host_tz: timezone = UTC, now: datetime | None = None
) -> tuple[datetime | None, datetime | None]:
    """First and last leading timestamps of a (capped, so bounded) log.

    Only the first and last :data:`STAMP_SCAN_LINES` lines are cut out: splitting the whole
    log made a few thousand short-lived objects per host on the collector threads, and on
    a 1,000-host run the long-lived records allocated between them kept ~27 MB of those
    objects' memory pages from ever being returned.
    """
    first = next(
        (s for s in (leading_timestamp(x, host_tz, now) for x in _head(content)) if s), None
    )
    last = next(
        (s for s in (leading_timestamp(x, host_tz, now) for x in _tail(content)) if s), None
    )
    return first, last


def _head(content: bytes, count: int = STAMP_SCAN_LINES) -> Iterator[bytes]:
    """``content.split(b"\n")[:count]``, without splitting the rest."""
    start = 0
    for _ in range(count):
        end = content.find(b"\n", start)
        if end < 0:
            yield content[start:]
            return
        yield content[start:end]
        start = end + 1


def _tail(content: bytes, count: int = STAMP_SCAN_LINES) -> Iterator[bytes]:
    """``reversed(content.split(b"\n")[-count:])``, without splitting the rest."""
    end = len(content)
    for _ in range(count):
        start = content.rfind(b"\n", 0, end) + 1
        yield content[start:end]
        if start == 0:
            return
        end = start - 1


class _GatedFeeder:
    """Passes whole lines through a :class:`RecordGate` until it opens, then bytes straight on."""

    def __init__(self, capper: HeadTailCapper, gate: RecordGate | None) -> None:
        self.capper = capper
        self.gate = gate
        self._pending = b""

    def feed(self, data: bytes) -> None:
        if self.gate is None or self.gate.open:
            self.capper.feed(self._pending + data)
            self._pending = b""
            return
        *lines, self._pending = (self._pending + data).split(b"\n")
        for index, line in enumerate(lines):
            if self.gate.keep(line):
                rest = b"\n".join(lines[index:]) + b"\n" + self._pending
                self.capper.feed(rest)
                self._pending = b""
                return

    def finish(self) -> None:
        if self._pending and (self.gate is None or self.gate.keep(self._pending)):
            self.capper.feed(self._pending)
        self._pending = b""
