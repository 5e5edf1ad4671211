"""``bundler redact SRC --out DST``: the two passes of a run over a file or a tree.

Two passes, as in ``doctor``: pass one redacts each file by rules and
structure and learns every redacted value; pass two removes every learned
value from every file. Between the passes the text waits in encrypted
hand-off files (:mod:`.handoff`). With several files, or one big one, both
passes run in a process pool, largest task first, so every core works: one
task per file, and a big plain-text file is cut at line starts into segments
redacted at the same time (:mod:`.segments`). All workers share the bundle's
HMAC key, so tokens agree.

For a bundle, pass one also deflates its output (on a helper thread beside
the redaction, :mod:`bundler.archive.deflate`), and pass two keeps that
compressed stream whenever no learned literal occurs in it, which is the
common case; the main process then only encrypts into the zip. So deflate
runs where the redaction runs, on every core, instead of serially after it.

Where the passes' output goes (a directory or a bundle, all or nothing) is
:mod:`.outputs`; what a run is given and returns, :mod:`.config`.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

from redactors.binary import SNIFF_BYTES
from schemas import RedactionReport

from ..archive.deflate import inflate_raw
from ..archive.integrity import written
from ..archive.names import member_name_problem
from ..archive.room import OWN_MEMBERS
from ..errors import InputError, OutputError
from ..interrupts import terminated
from ..plurals import counted
from ..sizes import human_size
from . import segments
from . import workers as worker
from .config import Progress, RedactConfig, media_type_for
from .hashing import Hashed
from .naming import not_utf8, numbered, shown_name
from .pool import stop_signals_held, stop_workers
from .walk import SourceFile, walk
from .workers import Task

POOL_MIN_BYTES = 4 << 20


@dataclass
class Member:
    """One file of the output: one task, or the segments of a big file in order."""

    stored: str
    media_type: str
    whole: Task
    parts: list[Task]

    @property
    def segmented(self) -> bool:
        return len(self.parts) > 1

    def rename(self, stored: str) -> None:
        """Store it under ``stored`` (its tasks too: workers name it by them)."""
        self.stored = stored
        self.whole = replace(self.whole, stored=stored)
        self.parts = [replace(task, stored=stored) for task in self.parts]


@dataclass
class Final:
    """Where a bundle member's final deflated stream is (one file, or segments in order)."""

    outputs: list[str]
    size: int
    sha256: str
    sealed: str | None = None
    """The stream encrypted already, as the zip stores it (a worker sealed it)."""


def fits_a_bundle(files: int, total: int) -> None:
    """Refuse, before any file is read, a tree whose bundle bundler's readers would not open
    (more members or more bytes than their default limits): the check made before the
    bundle is published refused it only after every file had been redacted."""
    limits = written.READER_LIMITS
    if files + OWN_MEMBERS > limits.max_members:
        raise InputError(
            f"{files:,} files would make a bundle of more members than bundler's readers open "
            f"({limits.max_members:,}, with the manifest and the redaction report): redact "
            "into a directory, or archive parts of the tree first (a .tar.gz is one member)"
        )
    if total > limits.max_total_bytes:
        raise InputError(
            f"{human_size(total)} of files would make a bundle larger than bundler's readers "
            f"open ({human_size(limits.max_total_bytes)}): redact part of the tree at a time"
        )


class TreeRedaction:
    """One ``bundler redact`` run; see the module docstring."""

    def __init__(
        self, config: RedactConfig, *, workers: int | None = None, progress: Progress = None
    ) -> None:
        self.config = config
        self.workers = workers or os.cpu_count() or 1
        self.progress = progress
        self.coordinator = config.redactor()
        self.deflated: dict[str, tuple[int, str]] = {}
        """Hand-off file -> (size, sha256) of what pass one wrote (its plaintext)."""
        self.kept: set[str] = set()
        """Hand-off files of members pass one did not refuse."""
        self.edges: dict[str, tuple[bytes, bytes]] = {}
        """A segment's hand-off file -> the first and last bytes of its pass-one output."""
        self.out_lines_before: dict[str, int] = {}
        """A segment's hand-off file -> lines of pass-one output before it (pass two's lines)."""
        self.resegmented = 0
        """Members whose segments did not fit and were redacted again in one piece."""
        self.report: RedactionReport | None = None
        """The redaction report, once the output is written."""
        self.taken: set[str] = set()
        """Stored names given so far: no two members share one."""

    # -- pass one ------------------------------------------------------------------------------
    def pass_one(
        self, src: Path, scratch: Path, *, deflate: bool = False, as_members: bool = False
    ) -> list[Member]:
        """Pass one over ``src``; ``as_members``: the output is a bundle, whose member names
        must be safe (:meth:`_storable`)."""
        found = walk(src)
        for rel, reason, detail in found.skipped:
            self.coordinator.skip(shown_name(self.coordinator.member_name(rel)), reason, detail)
        files = self._storable(found.files, as_members=as_members)
        total = sum(f.size for f in files)
        if as_members:
            fits_a_bundle(len(files), total)
        self.bytes_in = total
        self.scratch, self.deflate = scratch, deflate
        members = [self._member(f, i, total) for i, f in enumerate(files)]
        tasks = [task for member in members for task in member.parts]
        self.use_pool = self.workers > 1 and len(tasks) > 1 and total >= POOL_MIN_BYTES
        cut = sum(len(m.parts) for m in members if m.segmented)
        self.phase(
            f"pass one: redacting {counted(len(members), 'file')}, {human_size(total)}"
            + (f" ({cut} segments of big files)" if cut else "")
            + (f" on {self.workers} worker processes" if self.use_pool else "")
        )
        results = self._run([(worker.pass_one, (task,), task.size) for task in tasks])
        states = dict(zip([t.handoff for t in tasks], results, strict=True))
        retry = []
        for member in members:
            mine = [states[task.handoff] for task in member.parts]
            if member.segmented and segments.misfit(mine) is not None:
                for task, state in zip(member.parts, mine, strict=True):
                    Path(task.handoff).unlink(missing_ok=True)
                    self.coordinator.import_learning(state)  # exported once, not again
                member.parts = [member.whole]
                retry.append(member)
                continue
            self._import_pass_one(member, mine)
        if retry:
            self.resegmented += len(retry)
            again = self._run([(worker.pass_one, (m.parts[0],), m.parts[0].size) for m in retry])
            for member, state in zip(retry, again, strict=True):
                self._import_pass_one(member, [state])
        kept = [m for m in members if not self._refused(m)]
        self._final_names(kept)
        return kept

    def _final_names(self, members: list[Member]) -> None:
        """Pass two of the names, before anything is written: a value learned from any
        file's content is replaced in every member's and skipped file's name, as it is in
        every content (names are made before the first file is read)."""
        for member in members:
            final = self.coordinator.final_name(member.stored)
            if final != member.stored:
                self.taken.discard(member.stored)
                final = self._unique(final)
                self.coordinator.rename_member(member.stored, final)
                member.rename(final)
        self.coordinator.finalize_skipped_names()

    def _unique(self, stored: str) -> str:
        """``stored``, or ``stored`` with ``~2``, ``~3``... before its extensions when another
        file has that name already: redacted names can meet (``Worker-07.log`` and
        ``worker-07.log`` both become one host pseudonym), and the second file then
        overwrote or failed to write the first."""
        name, number = stored, 1
        while name in self.taken:
            number += 1
            name = numbered(stored, number)
        self.taken.add(name)
        return name

    def _storable(self, files: list[SourceFile], *, as_members: bool) -> list[SourceFile]:
        """The files whose (redacted) name the output can hold; the others are left out.

        A file name with a control character, newline, ESC or backslash (or a
        byte that is not UTF-8) is fine in a directory but not as a member name
        (``archive.names``: readers refuse them, extractors would misuse them).
        The builder refused such a name only when sealing, after the password
        was shown and minutes of redaction, and the run ended as an internal
        error. It is decided here, before anything is written, and the file is
        listed in the report as skipped (reason ``policy``), as a symlink or a
        device is, under its name escaped for printing.

        A directory output keeps such names, but not one that is not UTF-8: the
        report, JSON text, cannot name it (writing it ended the run as an
        internal error, after the whole tree was redacted), nor could ``review``
        match it with the file.
        """
        kept = []
        for file in files:
            stored = self.coordinator.member_name(file.rel)
            problem = (member_name_problem(stored) if as_members else None) or not_utf8(stored)
            if problem is None:
                kept.append(file)
                continue
            why = (
                "a bundle member cannot be named so"
                if as_members
                else "the report (JSON text) cannot name it"
            )
            self.coordinator.skip(shown_name(stored), "policy", f"{problem}: {why} (left out)")
        return kept

    def _member(self, file: SourceFile, index: int, total: int) -> Member:
        stored = self._unique(self.coordinator.member_name(file.rel))
        if stored != self.coordinator.member_name(file.rel):
            self.coordinator.store_as(file.rel, stored)
        media_type = media_type_for(file.rel)
        whole = Task(
            str(file.path),
            stored,
            self._handoff(index),
            media_type,
            file.size,
            self.deflate,
            end=file.size,
        )
        parts = segments.parts_for(file.size, total, self.workers)
        if parts > 1:
            try:
                head = b"".join(worker.read_source(file.path, 0, SNIFF_BYTES))
                cuts = segments.plan_cuts(file.path, file.size, parts)
            except OSError:
                cuts = []  # pass one reports the file as unreadable
            if cuts and self.coordinator.can_segment(stored, head, media_type, file.size):
                starts, stops = [0, *cuts], [*cuts, None]
                return Member(
                    stored,
                    media_type,
                    whole,
                    [
                        replace(
                            whole,
                            handoff=self._handoff(index, part),
                            size=(file.size if stop is None else stop) - start,
                            start=start,
                            stop=stop,
                            part=part,
                            parts=len(starts),
                            head=head,
                        )
                        for part, (start, stop) in enumerate(zip(starts, stops, strict=True))
                    ],
                )
        return Member(stored, media_type, whole, [whole])

    def _handoff(self, index: int, part: int | None = None) -> str:
        name = f"{index:06d}" + ("" if part is None else f".{part:04d}")
        return str(self.scratch / f"{name}.handoff")

    def _import_pass_one(self, member: Member, states: list[dict[str, Any]]) -> None:
        lines = out_lines = 0
        for task, state in zip(member.parts, states, strict=True):
            self.coordinator.import_member(state, line_offset=lines)
            if state.get("segment"):
                lines += state["lines"]
                self.edges[task.handoff] = state["edges"]
                self.out_lines_before[task.handoff] = out_lines
                out_lines += state["out_lines"]
            if state["refused"] is None:
                self.kept.add(task.handoff)
                if state["deflated"] is not None:
                    self.deflated[task.handoff] = state["deflated"]

    def _refused(self, member: Member) -> bool:
        return not all(task.handoff in self.kept for task in member.parts)

    # -- the pool ------------------------------------------------------------------------------
    def _run(self, jobs: list[tuple[Any, tuple[Any, ...], int]], learned: Any = None) -> list[Any]:
        """Run ``(function, arguments, size)`` jobs, in the pool when it is on; results in order."""
        if not self.use_pool:
            worker.init_worker(self.config, learned)
            return [func(*args) for func, args, _ in jobs]
        # Largest jobs first, so the last one to finish is a small one (both cores busy).
        order = sorted(range(len(jobs)), key=lambda i: -jobs[i][2])
        pool = ProcessPoolExecutor(
            self.workers, initializer=worker.init_worker, initargs=(self.config, learned)
        )
        try:
            with stop_signals_held():  # the workers are forked here: they ignore Ctrl-C
                futures = {i: pool.submit(jobs[i][0], *jobs[i][1]) for i in order}
            return [futures[i].result() for i in range(len(jobs))]
        except BrokenProcessPool as exc:
            if terminated():  # the SIGTERM that stops this run ended the workers first
                raise KeyboardInterrupt from exc
            raise OutputError(
                "a redaction worker process died (out of memory or killed); nothing was written"
            ) from exc
        except BaseException:
            stop_workers(pool)  # Ctrl-C: not after the queued files are done
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def phase(self, text: str) -> None:
        """Tell the caller (the CLI's status line) which phase the run is in."""
        if self.progress is not None:
            self.progress(text)

    def learned(self) -> list[Any]:
        network = self.coordinator.network
        return [self.coordinator.export_learned(), network.export_names() if network else []]

    # -- pass two ------------------------------------------------------------------------------
    def _pass_two(
        self, members: list[Member], whole_job: Any, target_of: Any
    ) -> tuple[list[Any], list[Member], dict[str, list[tuple[Task, dict[str, Any]]]]]:
        """Pass two of every member, and what is left to do for the segmented ones.

        Returns the whole members' results; the segmented members to finalize
        in one piece (a learned value across a join); and, per segmented
        member, the segments in which a learned value occurs, with what pass
        two made of them (:func:`~.workers.check_segment` finalizes those).
        """
        jobs: list[tuple[Any, tuple[Any, ...], int]] = []
        for member in members:
            state = self.coordinator.member_state(member.stored)
            if member.segmented:
                jobs += [
                    (
                        worker.check_segment,
                        (task, self.deflated[task.handoff], f"{task.handoff}.final.handoff"),
                        task.size,
                    )
                    for task in member.parts
                ]
            else:
                jobs.append(whole_job(member.parts[0], target_of(member), state))
        self.phase(
            "pass two: removing "
            f"{counted(len(self.coordinator.literals), 'learned value')} everywhere"
        )
        results = iter(self._run(jobs, self.learned()))
        wholes, whole_again, changed = [], [], {}
        for member in members:
            if member.segmented:
                checks = [next(results) for _ in member.parts]
                if self._straddles(member):
                    whole_again.append(member)  # what the segments changed is not used
                    for check in checks:
                        if check["changes"]:
                            self.coordinator.import_learning(check)  # but what they learned is
                elif any(check["changes"] for check in checks):
                    changed[member.stored] = [
                        (task, check)
                        for task, check in zip(member.parts, checks, strict=True)
                        if check["changes"]
                    ]
            else:
                wholes.append(next(results))
        return wholes, whole_again, changed

    def _straddles(self, member: Member) -> bool:
        return any(
            self.coordinator.literal_straddles(
                self.edges[before.handoff][1], self.edges[after.handoff][0]
            )
            for before, after in pairwise(member.parts)
        )

    def _refinalize(self, members: list[Member], target_of: Any) -> list[dict[str, Any]]:
        jobs = [
            (
                worker.refinalize,
                (m.parts, target_of(m), self.coordinator.member_state(m.stored)),
                sum(t.size for t in m.parts),
            )
            for m in members
        ]
        results = self._run(jobs, self.learned())
        for state in results:
            self.coordinator.import_member(state)
        return results

    def _finish_segments(
        self, members: list[Member], changed: dict[str, list[tuple[Task, dict[str, Any]]]]
    ) -> dict[str, list[str]]:
        """Each joinable segmented member's pass-two outputs in order: a changed segment's
        new hand-off file (its report lines shifted into the member's), else pass one's."""
        done = {}
        for member in members:
            for task, state in changed.get(member.stored, ()):
                self.coordinator.import_member(
                    state, line_offset=self.out_lines_before[task.handoff]
                )
                done[task.handoff] = state["output"]
        return {m.stored: [done.get(t.handoff, t.handoff) for t in m.parts] for m in members}

    def to_directory(self, members: list[Member], staging: Path) -> None:
        targets = {m.stored: str(staging / Path(*m.stored.split("/"))) for m in members}
        for target in targets.values():
            if not Path(target).resolve().is_relative_to(staging.resolve()):
                raise InputError("a redacted member name escapes the output directory")

        def whole_job(task: Task, target: str, state: str | None) -> Any:
            return (worker.pass_two, (task, target, state), task.size)

        def target_of(member: Member) -> str:
            return targets[member.stored]

        wholes, whole_again, changed = self._pass_two(members, whole_job, target_of)
        for state in wholes:
            self.coordinator.import_member(state)
        self._refinalize(whole_again, target_of)
        joinable = [m for m in members if m.segmented and m not in whole_again]
        outputs = self._finish_segments(joinable, changed)
        for member in joinable:
            self._assemble(member, Path(targets[member.stored]), outputs[member.stored])

    def _assemble(self, member: Member, target: Path, outputs: list[str]) -> None:
        """Join a segmented member's pass-two outputs (hand-off files) into ``target``."""
        target.parent.mkdir(parents=True, exist_ok=True)
        hashed = Hashed(worker.joined(outputs, self.config.handoff_key))
        with target.open("xb") as handle:
            for chunk in hashed:
                handle.write(chunk)
        size, sha256 = hashed.finish()
        self.coordinator.set_content(member.stored, sha256, size)

    def pass_two_deflated(self, members: list[Member]) -> list[Final]:
        """Pass two for a bundle: where each final deflated stream is, its size and sha256."""

        def whole_job(task: Task, target: str, state: str | None) -> Any:
            args = (task, target, state, self.deflated[task.handoff])
            return (worker.pass_two_deflated, args, task.size)

        def target_of(member: Member) -> str:
            return f"{member.parts[0].handoff}.final.handoff"

        segmented = [m for m in members if m.segmented]
        finals: dict[str, Final] = {}
        with ThreadPoolExecutor(1, thread_name_prefix="bundler-hash") as hasher:
            # While the workers check the segments: hash each segmented member whole, in order
            # (sha256 cannot be combined from parts), on a thread that mostly waits on C code.
            hashes = {
                m.stored: hasher.submit(self._whole_hash, [t.handoff for t in m.parts])
                for m in segmented
            }
            wholes, whole_again, changed = self._pass_two(members, whole_job, target_of)
            for member, state in zip([m for m in members if not m.segmented], wholes, strict=True):
                self.coordinator.import_member(state)
                finals[member.stored] = Final(
                    [state["output"]], state["size"], state["sha256"], state["sealed"]
                )
            for member, state in zip(
                whole_again, self._refinalize(whole_again, target_of), strict=True
            ):
                hashes.pop(member.stored).cancel()
                finals[member.stored] = Final([state["output"]], state["size"], state["sha256"])
            joinable = [m for m in segmented if m not in whole_again]
            outputs = self._finish_segments(joinable, changed)
            for member in joinable:
                paths = outputs[member.stored]
                if member.stored in changed:  # the hash of pass one's output no longer holds
                    hashes[member.stored].cancel()
                    hashes[member.stored] = hasher.submit(self._whole_hash, paths)
                size, sha256 = hashes[member.stored].result()
                self.coordinator.set_content(member.stored, sha256, size)
                finals[member.stored] = Final(paths, size, sha256)
        return [finals[m.stored] for m in members]

    def _whole_hash(self, paths: list[str]) -> tuple[int, str]:
        return Hashed(inflate_raw(worker.joined(paths, self.config.handoff_key))).finish()
