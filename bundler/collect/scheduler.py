"""Bounded concurrency with lanes, dependencies, a watchdog and a run deadline.

httpx (sync) and paramiko block, so collectors run on a fixed pool of
threads. Tasks wait for *groups* (e.g. all expansions of a step, a host's
connection) to drain; lanes cap how many run at once per target (the API
server, each host). Earlier hosts' tasks are preferred to later hosts'
connects, so open connections stay bounded by the pool size.

Threads cannot be killed: a task that outlives its timeout (plus grace) is
*abandoned* — settled as ``timeout`` — and a fresh worker replaces it. At the
run deadline or on Ctrl-C, running tasks are settled (``timeout`` /
``interrupted``), waiting tasks are ``skipped`` / ``interrupted``, and
:meth:`Scheduler.run` returns at once so the bundle can be finalized.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from schemas import CollectorStatus

from .budget import Budget

WATCHDOG_GRACE_S = 2.0
TICK_S = 0.1


class RunEnd(Enum):
    COMPLETED = "completed"
    DEADLINE = "deadline"
    INTERRUPTED = "interrupted"


@dataclass(eq=False, slots=True)
class Task:
    key: str
    run: Callable[[Budget], None]
    timeout_s: float
    lane: str = "default"
    priority: tuple[int, ...] = (0,)
    groups: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    on_skip: Callable[[str, CollectorStatus], None] | None = None
    """Settles a task that never ran (status SKIPPED or INTERRUPTED, with a note)."""
    on_abandon: Callable[[CollectorStatus, str], None] | None = None
    """Settles a running task from outside (TIMEOUT or INTERRUPTED, with a note)."""
    state: str = field(default="pending", init=False)
    started: float | None = field(default=None, init=False)


def _priority(task: Task) -> tuple[int, ...]:
    return task.priority


class Scheduler:
    def __init__(
        self,
        *,
        concurrency: int,
        lane_limit: Callable[[str], int] = lambda lane: 1 << 30,
        deadline_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.concurrency = max(1, concurrency)
        self.lane_limit = lane_limit
        self.clock = clock
        self.cancel = threading.Event()
        self.deadline = clock() + deadline_s if deadline_s is not None else None
        self.deadline_s = deadline_s
        self._cond = threading.Condition()
        self._pending: list[Task] = []
        self._running: dict[Task, threading.Thread] = {}
        self._lane_running: dict[str, int] = {}
        self._group_live: dict[str, int] = {}
        self._sealed: set[str] = set()
        self._drained_callbacks: dict[str, list[Callable[[], None]]] = {}
        self._retired: set[threading.Thread] = set()
        self._stopping = False
        self._finished = False
        self._seq = 0

    # -- building the graph (thread-safe, also from inside tasks) ------------------------------
    def add(self, task: Task) -> None:
        with self._cond:
            if self._stopping:
                if task.on_skip:
                    task.on_skip("run stopped before it started", CollectorStatus.SKIPPED)
                return
            self._seq += 1
            task.priority = (*task.priority, self._seq)
            for group in task.groups:
                self._group_live[group] = self._group_live.get(group, 0) + 1
            # priorities are unique (the sequence number): an ordered insert, not a re-sort
            bisect.insort(self._pending, task, key=_priority)
            self._cond.notify_all()

    def seal(self, group: str) -> None:
        """No more tasks will join ``group``; it drains once its tasks are done."""
        callbacks: list[Callable[[], None]] = []
        with self._cond:
            self._sealed.add(group)
            if self._group_live.get(group, 0) == 0:
                callbacks = self._drained_callbacks.pop(group, [])
            self._cond.notify_all()
        for callback in callbacks:
            callback()

    def on_drained(self, group: str, callback: Callable[[], None]) -> None:
        with self._cond:
            self._drained_callbacks.setdefault(group, []).append(callback)

    @property
    def stopped(self) -> bool:
        """The deadline or Ctrl-C stopped the run: nothing more starts."""
        return self._stopping

    def drained(self, group: str) -> bool:
        return group in self._sealed and self._group_live.get(group, 0) == 0

    # -- running ------------------------------------------------------------------------------
    def run(self) -> RunEnd:
        for _ in range(self.concurrency):
            self._spawn_worker()
        try:
            while True:
                with self._cond:
                    if not self._pending and not self._running:
                        self._finished = True  # idle workers exit: nothing holds the run
                        self._cond.notify_all()
                        return RunEnd.COMPLETED
                    self._unblock_orphans()
                    self._cond.wait(TICK_S)
                now = self.clock()
                if self.deadline is not None and now >= self.deadline:
                    note = f"run deadline (--deadline {self.deadline_s:g}s) reached"
                    self._stop(CollectorStatus.TIMEOUT, CollectorStatus.SKIPPED, note)
                    return RunEnd.DEADLINE
                self._watchdog(now)
        except KeyboardInterrupt:
            self._stop(
                CollectorStatus.INTERRUPTED, CollectorStatus.INTERRUPTED, "interrupted (Ctrl-C)"
            )
            return RunEnd.INTERRUPTED

    def _spawn_worker(self) -> None:
        thread = threading.Thread(target=self._work, name="bundler-collector", daemon=True)
        thread.start()

    def _work(self) -> None:
        me = threading.current_thread()
        while True:
            with self._cond:
                task = self._pick()
                while task is None and not self._stopping and not self._finished:
                    self._cond.wait()
                    task = self._pick()
                if task is None or me in self._retired:
                    return
                task.state, task.started = "running", self.clock()
                self._running[task] = me
                self._lane_running[task.lane] = self._lane_running.get(task.lane, 0) + 1
            budget = Budget.start(
                task.timeout_s,
                run_deadline=self.deadline,
                cancel=self.cancel,
                clock=self.clock,
                deadline_s=self.deadline_s,
            )
            try:
                task.run(budget)
            except BaseException as exc:  # a task settles its own outcome; never kill the pool
                if task.on_abandon:
                    note = f"internal error in the collector ({type(exc).__name__})"
                    task.on_abandon(CollectorStatus.FAILED, note)
            self._finish(task)
            if me in self._retired:
                return

    def _pick(self) -> Task | None:
        for task in self._pending:
            if self._lane_running.get(task.lane, 0) >= self.lane_limit(task.lane):
                continue
            if all(self.drained(g) for g in task.after):
                self._pending.remove(task)
                return task
        return None

    def _finish(self, task: Task) -> None:
        with self._cond:
            callbacks = self._release(task) if task.state == "running" else []
        for callback in callbacks:
            callback()

    def _release(self, task: Task) -> list[Callable[[], None]]:
        """Bookkeeping once a task is done or abandoned (lock held); returns drained callbacks."""
        task.state = "done" if task.state == "running" else task.state
        callbacks: list[Callable[[], None]] = []
        self._running.pop(task, None)
        self._lane_running[task.lane] -= 1
        for group in task.groups:
            self._group_live[group] -= 1
            if self.drained(group):
                callbacks.extend(self._drained_callbacks.pop(group, []))
        self._cond.notify_all()
        return callbacks

    def _watchdog(self, now: float) -> None:
        callbacks: list[Callable[[], None]] = []
        with self._cond:
            overdue = [
                (task, thread)
                for task, thread in self._running.items()
                if task.started is not None
                and now > task.started + task.timeout_s + WATCHDOG_GRACE_S
            ]
            for task, thread in overdue:
                task.state = "abandoned"
                self._retired.add(thread)
                callbacks.extend(self._release(task))
        for task, _ in overdue:
            if task.on_abandon:
                task.on_abandon(CollectorStatus.TIMEOUT, f"did not stop within {task.timeout_s:g}s")
            self._spawn_worker()
        for callback in callbacks:
            callback()

    def _unblock_orphans(self) -> None:
        """Pending tasks whose groups can never drain (a bug) must not hang the run."""
        if self._running or not self._pending or self._pick_peek():
            return
        for task in self._pending:
            if task.on_skip:
                task.on_skip(
                    "not run: a step it depends on never completed", CollectorStatus.SKIPPED
                )
            for group in task.groups:
                self._group_live[group] -= 1
        self._pending.clear()

    def _pick_peek(self) -> bool:
        return any(all(self.drained(g) for g in t.after) for t in self._pending)

    def _stop(
        self, running_status: CollectorStatus, waiting_status: CollectorStatus, note: str
    ) -> None:
        self.cancel.set()
        with self._cond:
            self._stopping = True
            waiting, self._pending = self._pending, []
            running = list(self._running)
            for task in running:
                task.state = "abandoned"
            self._cond.notify_all()
        for task in waiting:
            if task.on_skip:
                task.on_skip(f"not run: {note}", waiting_status)
        for task in running:
            if task.on_abandon:
                task.on_abandon(running_status, note)
