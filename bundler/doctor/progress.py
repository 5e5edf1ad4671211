"""What the person running doctor sees while it works (always on stderr).

On a terminal: one rich progress bar per target (the control plane, each
host) with the collector running on it. Elsewhere (CI, pipes, tests): one
plain line per finished collector, so logs stay readable and greppable.
stdout stays free for ``--json``.
"""

from __future__ import annotations

import threading
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from schemas import CollectorStatus

from ..collect.recorder import CollectorRecord
from ..plurals import counted
from ..sizes import human_size

STATUS_STYLE = {
    CollectorStatus.OK: "green",
    CollectorStatus.SKIPPED: "dim",
    CollectorStatus.FAILED: "red",
    CollectorStatus.TIMEOUT: "yellow",
    CollectorStatus.REFUSED: "red",
    CollectorStatus.INTERRUPTED: "yellow",
}


def lane_of(record: CollectorRecord) -> str:
    """'control plane' for HTTP collectors, the host alias otherwise."""
    return "control plane" if record.kind.value == "http" else record.id.split(".")[1]


class PlainProgress:
    """One line per finished collector: ``bundler: [ 3/12] ok       ssh.h01.sysinfo ...``."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._lock = threading.Lock()
        self._registered = 0
        self._finished = 0
        self._failures: dict[tuple[str, str], list[str]] = {}
        """(status, reason) -> collectors: a reason already shown is counted, not repeated."""
        self._consequences = 0

    def collector_registered(self, record: CollectorRecord) -> None:
        with self._lock:
            self._registered += 1

    def collector_started(self, record: CollectorRecord) -> None:
        """Plain output reports finishes only."""

    def collector_finished(self, record: CollectorRecord) -> None:
        outcome = record.outcome
        assert outcome is not None
        with self._lock:
            self._finished += 1
            width = len(str(self._registered))
            detail = outcome.error_message or outcome.note or ""
            if self._repeats(outcome.status, detail, outcome.id):
                return
            size = f", {human_size(outcome.bytes)}" if outcome.bytes else ""
            line = (
                f"bundler: [{self._finished:>{width}}/{self._registered}] "
                f"{outcome.status.value:<11} {outcome.id} ({outcome.duration_s:.2f}s{size})"
                + (f": {detail}" if detail else "")
            )
            print(line, file=self.stream, flush=True)

    def _repeats(self, status: CollectorStatus, detail: str, collector: str) -> bool:
        """True when this line would repeat a failure already shown (one unreachable server
        makes every HTTP collector fail alike, and every fan-out after them skip)."""
        if status is CollectorStatus.SKIPPED:
            consequence = "produced nothing to expand" in detail and detail.endswith("(failed)")
            if consequence and self._failures:
                self._consequences += 1
                return True
            return False
        if status is CollectorStatus.OK:
            return False
        seen = self._failures.setdefault((status.value, detail), [])
        seen.append(collector)
        return len(seen) > 1

    def close(self) -> None:
        """Say how many lines were folded into the failures shown."""
        with self._lock:
            for (status, detail), collectors in self._failures.items():
                if len(collectors) > 1:
                    print(
                        f"bundler: {counted(len(collectors) - 1, 'more collector')} {status} "
                        "the same way "
                        f"({detail}): {', '.join(collectors[1:6])}"
                        + (" …" if len(collectors) > 6 else ""),
                        file=self.stream,
                        flush=True,
                    )
            if self._consequences:
                print(
                    f"bundler: {counted(self._consequences, 'fan-out collector')} not run: "
                    "what they expand failed",
                    file=self.stream,
                    flush=True,
                )


class RichProgress:
    """A live bar per target; shown from the first collector on, stopped by :meth:`close`."""

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("{task.description}", justify="left"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TextColumn("{task.fields[current]}", style="dim"),
            console=console,
            transient=False,
        )
        self._lanes: dict[str, TaskID] = {}
        self._problems: dict[TaskID, list[str]] = {}
        self._lock = threading.Lock()
        self._started = False

    def _lane(self, record: CollectorRecord) -> TaskID:
        name = lane_of(record)
        with self._lock:
            if not self._started:  # only once collection starts: a password prompt comes first
                self._progress.start()
                self._started = True
            if name not in self._lanes:
                self._lanes[name] = self._progress.add_task(name, total=0, current="")
            return self._lanes[name]

    def collector_registered(self, record: CollectorRecord) -> None:
        lane = self._lane(record)
        task = self._progress.tasks[self._index(lane)]
        self._progress.update(lane, total=(task.total or 0) + 1)

    def collector_started(self, record: CollectorRecord) -> None:
        self._progress.update(self._lane(record), current=record.id.split(".", 2)[-1])

    def collector_finished(self, record: CollectorRecord) -> None:
        outcome = record.outcome
        assert outcome is not None
        lane = self._lane(record)
        with self._lock:
            if outcome.status not in (CollectorStatus.OK, CollectorStatus.SKIPPED):
                what = outcome.id.split(".", 2)[-1]
                self._problems.setdefault(lane, []).append(f"{what} {outcome.status.value}")
            problems = self._problems.get(lane, [])
        shown = f"[red]{', '.join(problems[:2])}{' …' if len(problems) > 2 else ''}[/]"
        self._progress.update(lane, advance=1, current=shown if problems else "")

    def _index(self, task_id: TaskID) -> int:
        return next(i for i, t in enumerate(self._progress.tasks) if t.id == task_id)

    def close(self) -> None:
        if self._started:
            self._progress.stop()
