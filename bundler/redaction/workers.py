"""The worker side of ``bundler redact``: what runs in each pool process (or in-process).

One task is one file, or one segment of a big one (:mod:`.segments`). Pass
one redacts it by rules and structure into an encrypted hand-off file
(deflated, for a bundle); pass two removes every learned literal, into the
output directory or, for a bundle, into the final deflated stream. A
segment's pass two finalizes it only if a learned value occurs in it
(:func:`check_segment`); the coordinator joins the segments, or has the
member finalized whole when a value crosses a join (:func:`refinalize`).
Each process rebuilds the redactor from the picklable
:class:`~bundler.redaction.config.RedactConfig` plus what the coordinator
learned, so every worker makes the same tokens.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from redactors import BundleRedactor, MemberRefused, Segment, SegmentMisaligned

from ..archive.deflate import DeflateStats, deflate_in_background, inflate_raw, prefetched
from ..archive.sealed import seal
from . import handoff
from .hashing import Hashed
from .segments import Edges
from .walk import open_regular

if TYPE_CHECKING:
    from .config import RedactConfig

READ_CHUNK = 1 << 20


@dataclass(frozen=True)
class Task:
    source: str
    stored: str
    handoff: str
    media_type: str
    size: int = 0
    deflate: bool = False
    """Pass one deflates its output (bundle output: the zip takes the stream as is)."""
    start: int = 0
    stop: int | None = None
    """A segment: source bytes ``start`` to ``stop`` (None: to the end of the file)."""
    part: int = 0
    parts: int = 1
    head: bytes = b""
    """A segment: the member's first bytes (its format is decided on them, not the segment's)."""
    end: int | None = None
    """The file's size at the walk: reading stops there (and at the end of that line)."""

    @property
    def last(self) -> bool:
        return self.part == self.parts - 1


_WORKER: dict[str, Any] = {}
PR_SET_PDEATHSIG = 1


def end_with(coordinator: int | None) -> None:
    """Have the kernel send this worker SIGTERM when the coordinator dies (Linux).

    A coordinator killed outright (SIGKILL, the OOM killer) cannot stop its workers, and a
    pool worker waits on its task queue for ever: each left a Python process asleep for
    good. Pools are started from the coordinator's main thread, which lives as long as it
    does (the signal follows the thread that forked). Elsewhere than Linux, nothing.
    """
    if coordinator is None:
        return
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != coordinator:  # it died before the line above
        os.kill(os.getpid(), signal.SIGTERM)


def init_worker(config: RedactConfig, learned: list[Any] | None = None) -> None:
    """Make this process's redactor. In a pool process, Ctrl-C is the coordinator's alone,
    and SIGTERM ends the worker quietly (its default: the coordinator's handler, inherited
    by the fork, would print a traceback). It was forked with both held:
    :func:`~.pool.stop_signals_held`."""
    coordinator = multiprocessing.parent_process()
    if coordinator is not None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        end_with(coordinator.pid)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    redactor = config.redactor()
    if learned:
        redactor.start_from(learned[0])
        if redactor.network is not None:
            redactor.network.import_names(learned[1])
    redactor.mark_exported()  # the coordinator has all that: exports carry what is new
    _WORKER["redactor"] = redactor
    _WORKER["config"] = config


class SourceUnreadable(OSError):
    """A source file could not be read (gone since the walk, no permission, no longer a
    regular file): it is left out and listed in the report as skipped. Any other
    :class:`OSError` (the scratch or the output cannot be written) ends the run."""


def read_source(
    path: Path, start: int = 0, stop: int | None = None, *, end: int | None = None
) -> Iterator[bytes]:
    """The file's bytes from ``start`` to ``stop`` (None: to its end), in 1 MiB chunks.

    ``end`` (the size the walk saw) bounds a read to the end: a log still being
    written is read as it was when the run began, to the end of the line then being
    written (at most :data:`GROWN_LINE` bytes more), instead of for as long as its
    writer keeps up.
    """
    try:
        with os.fdopen(open_regular(path), "rb") as handle:
            handle.seek(start)
            if stop is None and end is not None:
                yield from _to_line_end(handle, max(0, end - start))
                return
            left = None if stop is None else stop - start
            while (left is None or left > 0) and (
                chunk := handle.read(READ_CHUNK if left is None else min(READ_CHUNK, left))
            ):
                if left is not None:
                    left -= len(chunk)
                yield chunk
    except SourceUnreadable:
        raise
    except OSError as exc:
        raise SourceUnreadable(exc.errno, exc.strerror or str(exc)) from exc


GROWN_LINE = 1 << 20
"""How far past the walk's size a growing file is read, to finish its last line."""


def _to_line_end(handle: BinaryIO, size: int) -> Iterator[bytes]:
    """``size`` bytes, then on to the next newline if they end inside a line (bytes
    written since, at most :data:`GROWN_LINE`): a cut inside a line could cut a secret
    in two."""
    last = b"\n"
    while size > 0 and (chunk := handle.read(min(READ_CHUNK, size))):
        size -= len(chunk)
        last = chunk[-1:]
        yield chunk
    if size > 0 or last == b"\n":
        return  # shorter than at the walk (truncated meanwhile), or at a line's end
    rest = handle.read(GROWN_LINE)
    newline = rest.find(b"\n")
    yield rest if newline < 0 else rest[: newline + 1]


def pass_one(task: Task) -> dict[str, Any]:
    """Worker: rules + structure over one file, output to an encrypted hand-off file."""
    if task.parts > 1:
        return _pass_one_segment(task)
    redactor: BundleRedactor = _WORKER["redactor"]
    config: RedactConfig = _WORKER["config"]
    redactor.adopt_name(task.stored)
    refused = None
    deflated = None
    try:
        source = read_source(Path(task.source), end=task.end)
        stream = redactor.transform(task.stored, source, media_type=task.media_type)
        if task.deflate:
            stats = DeflateStats()
            stream = deflate_in_background(stream, stats)
        handoff.write(Path(task.handoff), config.handoff_key, stream)
        if task.deflate:
            deflated = (stats.size, stats.sha256)
    except MemberRefused as exc:
        refused = (exc.reason, exc.detail)
        Path(task.handoff).unlink(missing_ok=True)
    except SourceUnreadable as exc:
        refused = ("decode_error", f"unreadable: {exc.strerror}")
        Path(task.handoff).unlink(missing_ok=True)
        redactor.forget_member(task.stored)  # what was read before the error is not the file
        redactor.skip(task.stored, *refused)
    state = redactor.export_member(task.stored)
    state["refused"] = refused
    state["deflated"] = deflated
    return state


def _pass_one_segment(task: Task) -> dict[str, Any]:
    """Worker: pass one over one segment, plus what the coordinator needs to join it.

    Reads the ``overlap`` bytes before the segment as its context and up to
    ``overlap`` bytes after it as look-ahead. Returns, besides what pass one
    learned, the context it started with and the one it ended with (the
    next segment must have started with exactly that), its line count, and
    the first and last bytes of its output (pass two checks the joins there).
    """
    redactor: BundleRedactor = _WORKER["redactor"]
    config: RedactConfig = _WORKER["config"]
    redactor.adopt_name(task.stored)
    redactor.forget_member(task.stored)  # this process may have done another segment of it
    overlap = redactor.policy.overlap
    stop = None if task.stop is None else task.stop - task.start
    segment = Segment(stop=stop)
    edges = Edges()
    stats = DeflateStats()
    failed = None
    try:
        begin = max(0, task.start - overlap)
        segment.context = b"".join(read_source(Path(task.source), begin, task.start))
        chunks = read_source(
            Path(task.source),
            task.start,
            None if task.stop is None else task.stop + overlap,
            end=task.end,
        )
        stream = edges.watch(
            redactor.transform_segment(
                task.stored, chunks, segment, head=task.head, media_type=task.media_type
            )
        )
        if task.deflate:
            stream = deflate_in_background(stream, stats, finish=task.last)
        else:
            stream = stats_of(stream, stats)
        handoff.write(Path(task.handoff), config.handoff_key, stream)
    except SegmentMisaligned as exc:
        failed = str(exc)
    except SourceUnreadable as exc:
        failed = f"unreadable: {exc.strerror}"
    if failed is not None:
        Path(task.handoff).unlink(missing_ok=True)
    state = redactor.export_member(task.stored)
    state.update(
        segment=True,
        failed=failed,
        refused=None,
        deflated=(stats.size, stats.sha256),
        context=segment.context,
        end_context=segment.end_context,
        lines=segment.lines,
        edges=(edges.first, edges.last),
        out_lines=edges.lines,
    )
    return state


def stats_of(chunks: Iterable[bytes], stats: DeflateStats) -> Iterator[bytes]:
    """Pass ``chunks`` through, filling ``stats`` with their size and sha256 (no deflate)."""
    hashed = Hashed(chunks)
    yield from hashed
    stats.size, stats.sha256 = hashed.finish()
    stats.done = True


def pass_two(task: Task, target: str, state: str | None) -> dict[str, Any]:
    """Worker, directory output: literal propagation from the hand-off file into ``target``."""
    redactor: BundleRedactor = _WORKER["redactor"]
    config: RedactConfig = _WORKER["config"]
    redactor.adopt_name(task.stored, state)
    chunks = handoff.read(Path(task.handoff), config.handoff_key)
    final = redactor.finalize(task.stored, chunks, media_type=task.media_type)
    out = Path(target)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("xb") as handle:
        for chunk in final:
            handle.write(chunk)
    Path(task.handoff).unlink(missing_ok=True)
    return redactor.export_member(task.stored)


def pass_two_deflated(
    task: Task, target: str, state: str | None, first: tuple[int, str]
) -> dict[str, Any]:
    """Worker, bundle output: keep pass one's deflated stream unless a literal is in it.

    Inflating and scanning costs a fraction of deflating again, and in a
    typical bundle no learned literal occurs where no rule already caught it:
    the stream is then kept as it is (after checking it still inflates to the
    size and sha256 pass one hashed). Otherwise the member goes through
    ``finalize`` and is deflated again into ``target``.

    With the bundle's password in the config, the final stream is then
    also encrypted here, as the zip stores it (:func:`seal`), into
    ``target.sealed`` (``sealed`` in the result): encryption then runs on
    every core beside pass two, and the coordinator's writer only copies it.
    """
    redactor: BundleRedactor = _WORKER["redactor"]
    config: RedactConfig = _WORKER["config"]
    redactor.adopt_name(task.stored, state)
    stats = _finalize_if_changed(redactor, task, first, target)
    if stats is None:
        output, (size, sha256) = task.handoff, first
    else:
        Path(task.handoff).unlink(missing_ok=True)
        output, size, sha256 = target, stats.size, stats.sha256
    sealed = None
    if config.seal_password:
        sealed = f"{target}.sealed"
        chunks = handoff.read(Path(output), config.handoff_key)
        write_new(Path(sealed), seal(config.seal_password, chunks))
    result = redactor.export_member(task.stored)
    result.update(output=output, size=size, sha256=sha256, sealed=sealed)
    return result


def write_new(path: Path, chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` to a new file only its owner can read (ciphertext, in the scratch)."""
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
        for chunk in chunks:
            out.write(chunk)


def check_segment(task: Task, first: tuple[int, str], target: str) -> dict[str, Any]:
    """Worker, pass two of one segment: finalize it into ``target`` if a learned value is in it.

    Unchanged, the segment is stored as pass one wrote it (``{"changes":
    False}``). Otherwise it is finalized on its own right away (its report
    lines count from its start; the coordinator shifts them). Pass one's
    hand-off stays: if a learned value also crosses a join, the coordinator
    finalizes the whole member from the pass-one outputs instead.
    """
    redactor: BundleRedactor = _WORKER["redactor"]
    redactor.adopt_name(task.stored, "text")
    redactor.forget_member(task.stored)
    if _finalize_if_changed(redactor, task, first, target) is None:
        return {"changes": False}
    state = redactor.export_member(task.stored)
    state.update(changes=True, segment=True, output=target)
    return state


def _finalize_if_changed(
    redactor: BundleRedactor, task: Task, first: tuple[int, str], target: str
) -> DeflateStats | None:
    """Pass two over pass one's output: None if no learned value is in it, else finalize it.

    The scan stops at the first learned value. Without one, the output must
    still read back (decrypt, inflate, hash) as what pass one hashed, since it
    is then stored as it is. With one, the finalized text is written to
    ``target`` (deflated, for a bundle, ending as pass one's stream did: a
    sync flush for a segment but the last) and its stats are returned.
    """
    key = _WORKER["config"].handoff_key
    hashed = Hashed(_pass_one_text(task, key))
    with closing(prefetched(hashed)) as plain:  # decrypt, inflate, hash beside the scan
        changes = redactor.finalize_changes(task.stored, plain)
    if not changes:
        if hashed.finish() != first:
            raise handoff.HandoffError(
                "pass one's output does not inflate (or read back) to what was hashed"
            )
        return None
    final = redactor.finalize(task.stored, _pass_one_text(task, key), media_type=task.media_type)
    stats = DeflateStats()
    if task.deflate:
        final = deflate_in_background(final, stats, finish=task.last)
    else:
        final = stats_of(final, stats)
    handoff.write(Path(target), key, final)
    return stats


def _pass_one_text(task: Task, key: bytes) -> Iterator[bytes]:
    """Pass one's output as text (a segment's stream ends at a sync flush, but the last)."""
    chunks = handoff.read(Path(task.handoff), key)
    return inflate_raw(chunks, complete=task.last) if task.deflate else iter(chunks)


def joined(paths: Iterable[str], key: bytes) -> Iterator[bytes]:
    """Hand-off files read in order: a member's one stream, or its segments' joined."""
    return chain.from_iterable(handoff.read(Path(path), key) for path in paths)


def refinalize(parts: list[Task], target: str, state: str | None) -> dict[str, Any]:
    """Worker: pass two of a segmented member as one stream (a literal was found in it).

    The segments' pass-one outputs, in order, are the member's pass-one
    output; :meth:`~redactors.BundleRedactor.finalize` over all of it numbers
    lines from the member's start and hashes the whole content.
    """
    redactor: BundleRedactor = _WORKER["redactor"]
    key = _WORKER["config"].handoff_key
    first = parts[0]
    redactor.adopt_name(first.stored, state)
    chunks: Iterable[bytes] = joined([part.handoff for part in parts], key)
    if first.deflate:
        chunks = inflate_raw(chunks)
    final = redactor.finalize(first.stored, chunks, media_type=first.media_type)
    result: dict[str, Any] = {}
    if first.deflate:
        stats = DeflateStats()
        handoff.write(Path(target), key, deflate_in_background(final, stats))
        result.update(output=target, size=stats.size, sha256=stats.sha256)
    else:
        out = Path(target)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("xb") as handle:
            for chunk in final:
                handle.write(chunk)
    for part in parts:
        Path(part.handoff).unlink(missing_ok=True)
    state_out = redactor.export_member(first.stored)
    state_out.update(result)
    return state_out
