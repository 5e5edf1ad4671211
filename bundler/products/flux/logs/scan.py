"""Parse a huge Flux log at about memory speed: routine lines are counted, never split.

A busy Flux log is nearly all routine lines: the server's ``Auth disabled``
warning (over 85 % of its lines with auth off) and one claim line per
execution, a worker's ``Execution Scheduled|Claimed|COMPLETED`` lines. Turning
each into a Python string, let alone an event, costs ~15x the decompression of
the bundle. So each 64 KiB block is first *counted* with ``bytes.count`` (a C
loop over the block, no copies): its lines, and the lines carrying each
routine marker. When the markers account for every line — most blocks — no
line of the block reaches Python: its claims and progress lines are added to
exact per-(kind, worker) counts. Otherwise the block is split, routine lines
are skipped by the same markers, and only the others go to :class:`LogParser`
(with a record boundary in place of a skipped run, so a multi-line record
never swallows the line after it).

Routine events are still kept where rules read them: the blocks holding the
first :data:`~bundler.analyze.api.FIRST_KEPT` of each (kind, worker),
and the last :data:`TAIL_BLOCKS` blocks of every log (so "the worker's last
line" is its real last line), are parsed line by line exactly as before.

A line counts as routine when it holds a routine marker (the spam logger and
text, `` claimed by worker ``, ``- flux.worker - INFO - Execution <Phase> - ``):
a record that merely *quotes* one of them is counted, not parsed.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Generator, Iterable, Iterator
from datetime import UTC, tzinfo
from itertools import compress
from operator import itemgetter, methodcaller, not_

from bundler.analyze.api import FIRST_KEPT, TimelineEvent

from .blocks import BLOCK_BYTES, Block, blocks
from .formats import NAME
from .parser import SPAM_LOGGER, LogParser

TAIL_BLOCKS = 1
"""Blocks' worth of bytes at the end of each log parsed line by line: the latest events."""
BOUNDARY = "0000-00-00 00:00:00 - ~"
"""A record start no format matches: stands for skipped routine lines, ending any open record."""

Key = tuple[str, str | None]

SPAM = b" - " + SPAM_LOGGER.encode()
CLAIM = b" claimed by worker "
PHASES = ("Scheduled", "Claimed", "COMPLETED")
PROGRESS = {
    f" - flux.worker - INFO - Execution {phase} - ".encode(): f"execution_{phase.lower()}"
    for phase in PHASES
}
"""Marker of a worker's progress line -> its event kind (what :class:`LogParser` would call it)."""
WORKER_NAME = re.compile(NAME)
STAMP_WIDTH = len("2026-11-29 17:05:27")
_AFTER_STAMP = methodcaller("startswith", (SPAM, *PROGRESS), STAMP_WIDTH)
MARKERS = (SPAM, CLAIM, *PROGRESS)
_first_line = methodcaller("partition", b"\n")
_head = itemgetter(0)


class BlockScanner:
    """Events of one log member; routine ones only counted (in :attr:`counted`) where skipped."""

    def __init__(
        self,
        member: str,
        *,
        worker: str | None = None,
        tz: tzinfo = UTC,
        block_bytes: int = BLOCK_BYTES,
    ) -> None:
        self.parser = LogParser(member, worker=worker, tz=tz)
        self.worker = worker
        self.block_bytes = block_bytes
        self.counted: Counter[Key] = Counter()
        self._seen: dict[Key, int] = {}
        # Markers seen in this log are counted most frequent first, so a block is usually
        # settled after one or two scans; the others are only counted when lines are left.
        self._hits: dict[bytes, int] = dict.fromkeys(MARKERS, 0)
        self._live: list[bytes] = []
        self._boundary_due = False

    def scan(self, chunks: Iterable[bytes]) -> Iterator[TimelineEvent]:
        return self.parser.parse(self._lines(chunks))

    def _lines(self, chunks: Iterable[bytes]) -> Iterator[tuple[int, str]]:
        tail: deque[Block] = deque()
        held = 0  # bytes in ``tail``: the oldest block leaves once the rest make a full tail
        for block in blocks(chunks, self.block_bytes):
            tail.append(block)
            held += block.end - block.start
            while held - (tail[0].end - tail[0].start) >= self.block_bytes * TAIL_BLOCKS:
                oldest = tail.popleft()
                held -= oldest.end - oldest.start
                yield from self._block(oldest)
        for block in tail:
            yield from self._every_line(block)

    def _block(self, block: Block) -> Iterator[tuple[int, str]]:
        found = self._routine(block)
        if found is None:
            yield from self._every_line(block)
            return
        keys, routine = found
        seen = self._seen
        fresh = False
        for key, n in keys.items():
            before = seen.get(key, 0)
            fresh = fresh or before < FIRST_KEPT
            seen[key] = before + n
        if fresh:  # the first routine events of a kind and worker are kept as events
            yield from self._every_line(block)
            return
        if routine < block.lines:
            if not (yield from self._others(block, routine)):
                yield from self._every_line(block)
                return
        elif self._boundary_due:  # only routine lines: the first ends an open record
            self._boundary_due = False
            yield block.first, BOUNDARY
        counted = self.counted
        for key, n in keys.items():
            counted[key] += n

    def _routine(self, block: Block) -> tuple[dict[Key, int], int] | None:
        """Routine lines of ``block`` by (kind, worker), and how many lines are routine.

        None when the counts cannot be trusted (more markers than lines, an odd
        worker name): the block is then parsed line by line.
        """
        keys: dict[Key, int] = {}
        remaining = self._count(block, self._live, keys, block.lines)
        if remaining > 0:  # other lines, or a marker this log had not shown yet
            dead = [m for m in MARKERS if m not in self._live]
            remaining = self._count(block, dead, keys, remaining)
            self._live = sorted((m for m in MARKERS if self._hits[m]), key=self._hits.__getitem__)
            self._live.reverse()
        if remaining < 0:
            return None
        return keys, block.lines - remaining

    def _count(
        self, block: Block, markers: list[bytes], keys: dict[Key, int], remaining: int
    ) -> int:
        buf, start, end = block.buf, block.start, block.end
        for marker in markers:
            if remaining <= 0:
                break
            if marker is CLAIM:  # splitting counts them too: no separate scan
                n = self._claims(buf[start:end], keys)
                if n < 0:
                    return -1
            else:
                n = buf.count(marker, start, end)
            if not n:
                continue
            if marker is not SPAM and marker is not CLAIM:
                key = (PROGRESS[marker], self.worker)
                keys[key] = keys.get(key, 0) + n
            self._hits[marker] += n
            remaining -= n
        return remaining

    @staticmethod
    def _claims(text: bytes, keys: dict[Key, int]) -> int:
        """How many claim lines ``text`` holds, by worker into ``keys``; -1 for an odd name."""
        pieces = text.split(CLAIM)
        names = Counter(map(_head, map(_first_line, pieces[1:])))
        for raw, n in names.items():
            name = raw.rstrip(b"\r").decode("utf-8", "replace")
            if not WORKER_NAME.fullmatch(name):
                return -1
            keys[("claimed", name)] = keys.get(("claimed", name), 0) + n
        return len(pieces) - 1

    def _others(self, block: Block, routine: int) -> Generator[tuple[int, str], None, bool]:
        """Yield the block's non-routine lines; False (nothing yielded) if the counts disagree.

        Spam and progress markers sit right after the timestamp, so one C-level
        ``startswith`` per line settles almost every line; only the rest are
        searched for a claim.
        """
        raws = block.raw_lines()
        unsettled = compress(range(len(raws)), map(not_, map(_AFTER_STAMP, raws)))
        others = [i for i in unsettled if CLAIM not in raws[i]]
        if len(raws) - len(others) != routine:
            return False
        due, last = self._boundary_due, -1
        for i in others:
            if due and i > last + 1:  # routine lines in between: the first ends the open record
                yield block.first + last + 1, BOUNDARY
            yield block.first + i, raws[i].rstrip(b"\r").decode("utf-8", "replace")
            due, last = True, i
        if due and last + 1 < len(raws):
            yield block.first + last + 1, BOUNDARY
            due = False
        self._boundary_due = due
        return True

    def _every_line(self, block: Block) -> Iterator[tuple[int, str]]:
        yield from block.text_lines()
        self._boundary_due = True  # its last record may be open: the next routine line ends it
