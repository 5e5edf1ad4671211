"""Parse a huge Flux log at about memory speed: routine lines are counted, never split.

A busy Flux log is nearly all routine lines: the server's ``Auth disabled``
warning (over 85 % of its lines with auth off) and one claim line per
execution, a worker's ``Execution Scheduled|Claimed|COMPLETED`` and
``Checkpointing execution`` lines. Turning each into a Python string, let
alone an event, costs ~15x the decompression of the bundle. So each 128 KiB
block is first *counted* with ``bytes.count`` (a C loop over the block, no
copies): its lines, and the lines carrying each routine marker. When the
markers account for every line — most blocks — no line of the block reaches
Python: its claims and progress lines are added to exact per-(kind, worker)
counts (quiet lines, which the parser would drop, are not counted). Otherwise
the block is split, routine lines are skipped by the same markers, and only
the others go to :class:`LogParser` (with a record boundary in place of a
skipped run, so a multi-line record never swallows the line after it).

Routine events are still kept where the timeline draws them: the first
:data:`~bundler.analyze.api.FIRST_KEPT` of each (kind, worker), and in the
last :data:`TAIL_BLOCKS` blocks of every log the
:data:`~bundler.analyze.api.LATEST_KEPT` latest (so "the worker's last line"
is its real last line); fewer of each in a fleet
(:func:`~bundler.analyze.api.routine_kept`). Those blocks are split and their routine lines found
by :func:`.routine.routine_lines`; only the lines kept are parsed, so the
sampled timeline is the one a line-by-line parse would give.

A line counts as routine when it holds a routine marker (the spam logger and
text, `` claimed by worker ``, ``- flux.worker - INFO - Execution <Phase> - ``):
a record that merely *quotes* one of them is counted, not parsed."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Generator, Iterable, Iterator
from datetime import UTC, tzinfo
from itertools import compress
from operator import itemgetter, methodcaller, not_

from bundler.analyze.api import FIRST_KEPT, LATEST_KEPT, TimelineEvent

from .blocks import BLOCK_BYTES, Block, blocks
from .parser import LogParser
from .routine import (
    CHECKPOINT,
    CLAIM,
    PROGRESS,
    QUIET,
    SPAM,
    STAMP_WIDTH,
    WORKER_NAME,
    Key,
    in_time_order,
    kept_lines,
    routine_lines,
)

TAIL_BLOCKS = 1
"""Blocks' worth of bytes at the end of each log looked into line by line: the latest events."""
TAIL_MAX_BYTES = 4 << 20
"""The tail grows past TAIL_BLOCKS until it holds the LATEST_KEPT latest routine events of
each kind it has (a server log's claims by one worker are sparse), but never past this."""
BOUNDARY = "0000-00-00 00:00:00 - ~"
"""A record start no format matches: stands for skipped routine lines, ending any open record."""

Routine = tuple[dict[Key, int], int]
"""A block's routine lines by (kind, worker), and how many of its lines are routine."""
_AFTER_STAMP = methodcaller("startswith", (*QUIET, *PROGRESS), STAMP_WIDTH)
MARKERS = (SPAM, CHECKPOINT, CLAIM, *PROGRESS)
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
        kept: tuple[int, int] = (FIRST_KEPT, LATEST_KEPT),
    ) -> None:
        self.parser = LogParser(member, worker=worker, tz=tz)
        self.worker = worker
        self.block_bytes = block_bytes
        self.first_kept, self.latest_kept = kept
        """Routine events kept of each (kind, worker): :func:`~bundler.analyze.api.routine_kept`
        of the bundle's log count (a fleet keeps fewer of each)."""
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
        tail: deque[tuple[Block, Routine | None]] = deque()
        held = 0  # bytes in ``tail``: the oldest block leaves once the rest make a full tail
        held_keys: Counter[Key] = Counter()  # ... and hold the latest events of its kinds
        for block in blocks(chunks, self.block_bytes):
            found = self._routine(block)
            tail.append((block, found))
            held += block.end - block.start
            held_keys.update(found[0] if found else ())
            while self._may_leave(tail[0], held, held_keys):
                oldest, counts = tail.popleft()
                held -= oldest.end - oldest.start
                held_keys.subtract(counts[0] if counts else ())
                yield from self._block(oldest, counts)
        if tail:
            raws = [raw for block, _ in tail for raw in block.raw_lines()]
            founds = [found for _, found in tail]
            yield from self._selected(tail[0][0].first, raws, founds, latest=True)

    def _may_leave(
        self, oldest: tuple[Block, Routine | None], held: int, keys: Counter[Key]
    ) -> bool:
        """Whether the tail is complete without its oldest block: a full tail's bytes after
        it, holding LATEST_KEPT of each of its routine kinds (up to TAIL_MAX_BYTES)."""
        block, found = oldest
        rest = held - (block.end - block.start)
        if rest < self.block_bytes * TAIL_BLOCKS:
            return False
        if rest >= TAIL_MAX_BYTES or found is None:
            return True
        return all(keys[key] - n >= self.latest_kept for key, n in found[0].items())

    def _block(self, block: Block, found: Routine | None) -> Iterator[tuple[int, str]]:
        if found is None:
            yield from self._every_line(block)
            return
        keys, routine = found
        seen = self._seen
        if any(seen.get(key, 0) < self.first_kept for key in keys):
            # the first routine events of a kind and worker are kept as events
            yield from self._selected(block.first, block.raw_lines(), [found], latest=False)
            return
        for key, n in keys.items():
            seen[key] = seen.get(key, 0) + n
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

    def _routine(self, block: Block) -> Routine | None:
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
            if marker in PROGRESS:
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

    def _selected(
        self, first: int, raws: list[bytes], founds: list[Routine | None], *, latest: bool
    ) -> Iterator[tuple[int, str]]:
        """The lines of ``raws`` worth parsing: all but quiet and routine ones, except that
        the first FIRST_KEPT routine events of each (kind, worker) in the log are kept, and
        with ``latest`` (the tail) the LATEST_KEPT last ones too: all of a kind whose
        timestamps go back, since the sampler keeps the latest *in time*."""
        plan = None
        if all(found is not None for found in founds):
            counts: Counter[Key] = Counter()
            for found in founds:
                counts.update(found[0] if found else ())
            routine = sum(found[1] for found in founds if found)
            plan = kept_lines(
                raws,
                self.worker,
                counts,
                routine,
                self._seen,
                latest=latest,
                first_kept=self.first_kept,
                latest_kept=self.latest_kept,
            )
        kept, left_out = plan if plan is not None else self._exact(raws, latest=latest)
        if plan is not None:
            for key, n in counts.items():
                self._seen[key] = self._seen.get(key, 0) + n
        for key, n in left_out.items():
            if n:
                self.counted[key] += n
        due, last = self._boundary_due, -1
        for i in kept:
            if due and i > last + 1:  # skipped lines in between: the first ends the open record
                yield first + last + 1, BOUNDARY
            yield first + i, raws[i].rstrip(b"\r").decode("utf-8", "replace")
            due, last = True, i
        if due and last + 1 < len(raws):
            yield first + last + 1, BOUNDARY
            due = False
        self._boundary_due = due

    def _exact(self, raws: list[bytes], *, latest: bool) -> tuple[list[int], dict[Key, int]]:
        """:meth:`_selected`'s choice line by line: when the counts cannot be trusted, or
        the routine lines' timestamps go back."""
        found, skip = routine_lines(raws, self.worker)
        seen = self._seen
        left_out: dict[Key, int] = {}
        for key, at in found.items():
            before = seen.get(key, 0)
            seen[key] = before + len(at)
            wanted = set(at[: max(0, self.first_kept - before)])
            if latest and self.latest_kept:
                wanted.update(at[-self.latest_kept :] if in_time_order(raws, at) else at)
            if len(wanted) < len(at):
                left_out[key] = len(at) - len(wanted)
                skip.update(at)
                skip.difference_update(wanted)
        return sorted(set(range(len(raws))) - skip), left_out

    def _every_line(self, block: Block) -> Iterator[tuple[int, str]]:
        yield from block.text_lines()
        self._boundary_due = True  # its last record may be open: the next routine line ends it
