"""Splitting one big file across the redaction pool, and joining it back.

The pool gives one task per file, so a bundle of one 2 GB log would keep
one core busy and the other idle. A plain-text file of at least
:data:`SEGMENT_MIN` bytes is cut at line starts into segments that workers
redact at the same time (:class:`redactors.Segment` says why that gives what
one stream would). Here: where to cut (:func:`plan_cuts`), the output edges a
worker keeps for the join checks (:class:`Edges`), and whether the segments
of one member fit together (:func:`misfit`). A member whose segments do not
fit is redacted again in one piece (rare). In pass two, a segment in which a
learned value occurs is finalized on its own; a value across a join (rarer:
cuts are line starts) has the whole member finalized in one piece.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from redactors.rules import line_ends

from .walk import open_regular

SEGMENT_MIN = 32 << 20
"""Files below this are one task: a segment costs a few reads and checks, worth it only here."""
SEGMENTS_PER_WORKER = 2
"""Segments per worker for a lone big file: the last to finish is then a small share."""
EDGE = 64 << 10
"""Output bytes kept at each end of a segment: pass two looks for literals across joins there."""
SEARCH = 256 << 10
"""How far past a nominal cut to look for a quiet line start."""

_RISKY_LINE = re.compile(
    rb"-----|[:=|>\\,\[{(]\s*$|^[ \t]*[A-Za-z0-9+/=_-]{40,}\s*$|^\s*$",
)
"""A line after which a cut is avoided: key material, a value that may continue below,
an open bracket, a line continuation, a blank line (a block may go on after it)."""


def parts_for(size: int, total: int, workers: int) -> int:
    """How many segments a file of ``size`` bytes gets, in a run of ``total`` bytes."""
    if workers <= 1 or size < SEGMENT_MIN:
        return 1
    share = max(SEGMENT_MIN, math.ceil(total / (workers * SEGMENTS_PER_WORKER)))
    return max(1, math.ceil(size / share))


def plan_cuts(path: Path, size: int, parts: int) -> list[int]:
    """Offsets of line starts near ``size * i / parts``, after a quiet line when there is one.

    A cut after an ordinary line is almost never refused; one inside key
    material or after ``password:`` may be. A nominal point with no line
    start within :data:`SEARCH` bytes (a giant line) gets no cut.
    """
    cuts: list[int] = []
    fd = open_regular(path)
    try:
        for index in range(1, parts):
            nominal = size * index // parts
            window = os.pread(fd, SEARCH, nominal)
            cut = _quiet_line_start(window)
            if cut is not None and (not cuts or nominal + cut > cuts[-1]):
                cuts.append(nominal + cut)
    finally:
        os.close(fd)
    return [cut for cut in cuts if 0 < cut < size]


def _quiet_line_start(window: bytes) -> int | None:
    """The first line start in ``window`` whose previous line is not risky, else the first one."""
    first = window.find(b"\n")
    if first < 0:
        return None
    newline = first
    previous_start = window.rfind(b"\n", 0, newline) + 1 if newline > 0 else 0
    for _ in range(200):
        line = window[previous_start:newline]
        following = window[newline + 1 : newline + 2]
        if previous_start > 0 and not _RISKY_LINE.search(line) and following not in (b" ", b"\t"):
            return newline + 1
        previous_start = newline + 1
        newline = window.find(b"\n", previous_start)
        if newline < 0:
            break
    return first + 1


class Edges:
    """Keeps the first and last :data:`EDGE` bytes of a stream that passes through, and
    counts its lines (pass two numbers a segment's lines from the member's start) as the
    redactor numbers them (:func:`redactors.rules.line_ends`: a lone ``\\r`` ends one too)."""

    def __init__(self, size: int = EDGE) -> None:
        self.size = size
        self.first = b""
        self.last = b""
        self.lines = 0

    def watch(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            if len(self.first) < self.size:
                self.first += chunk[: self.size - len(self.first)]
            if self.last.endswith(b"\r") and chunk.startswith(b"\n"):
                self.lines -= 1  # a \r\n cut between two chunks: one line end, not two
            self.last = (self.last + chunk[-self.size :])[-self.size :]  # never copy a chunk whole
            self.lines += line_ends(chunk, 0, len(chunk))
            yield chunk


def misfit(states: list[dict[str, Any]]) -> str | None:
    """Why the pass-one segments of one member cannot be joined, or None when they can."""
    for index, state in enumerate(states):
        if state["failed"] is not None:
            return f"segment {index + 1}: {state['failed']}"
        if index and states[index - 1]["end_context"] != state["context"]:
            return f"segment {index + 1} began with another context than segment {index} left"
    return None
