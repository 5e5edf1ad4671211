"""The scheduler: bounded concurrency, lanes, dependencies, watchdog, deadline, Ctrl-C."""

from __future__ import annotations

import threading
import time

import pytest

import bundler.collect.scheduler as scheduler_module
from bundler.collect.budget import Budget
from bundler.collect.scheduler import RunEnd, Scheduler, Task
from schemas import CollectorStatus
from tests.support.interrupts import ctrl_c_in


class Tracker:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: dict[str, int] = {}
        self.peak: dict[str, int] = {}
        self.done: list[str] = []
        self.settled: dict[str, tuple[CollectorStatus, str]] = {}

    def task(self, key: str, lane: str = "a", seconds: float = 0.05, **kwargs: object) -> Task:
        def run(budget: Budget) -> None:
            with self.lock:
                self.running[lane] = self.running.get(lane, 0) + 1
                self.running["*"] = self.running.get("*", 0) + 1
                for name in (lane, "*"):
                    self.peak[name] = max(self.peak.get(name, 0), self.running[name])
            try:
                budget.cancel.wait(seconds)
            finally:
                with self.lock:
                    self.running[lane] -= 1
                    self.running["*"] -= 1
                    self.done.append(key)

        def settle(status: CollectorStatus, note: str) -> None:
            self.settled[key] = (status, note)

        return Task(
            key=key,
            run=run,
            timeout_s=30,
            lane=lane,
            on_skip=lambda note, status: settle(status, note),
            on_abandon=settle,
            **kwargs,  # type: ignore[arg-type]
        )


def test_concurrency_and_lane_limits_hold() -> None:
    tracker = Tracker()
    scheduler = Scheduler(concurrency=4, lane_limit=lambda lane: 2 if lane != "free" else 99)
    for i in range(12):
        scheduler.add(tracker.task(f"a{i}", "a"))
        scheduler.add(tracker.task(f"b{i}", "b"))
    assert scheduler.run() is RunEnd.COMPLETED
    assert len(tracker.done) == 24
    assert tracker.peak["*"] <= 4
    assert tracker.peak["a"] <= 2
    assert tracker.peak["b"] <= 2


def test_tasks_wait_for_sealed_groups_and_can_add_more() -> None:
    order: list[str] = []
    scheduler = Scheduler(concurrency=3)

    def parent(budget: Budget) -> None:
        time.sleep(0.05)
        order.append("parent")

    def expander(budget: Budget) -> None:
        order.append("expand")
        for i in range(3):
            scheduler.add(
                Task(f"child{i}", lambda b, i=i: order.append(f"child{i}"), 5, groups=("kids",))
            )
        scheduler.seal("kids")

    scheduler.add(Task("parent", parent, 5, groups=("p",)))
    scheduler.seal("p")
    scheduler.add(Task("expand", expander, 5, groups=("kids",), after=("p",)))
    scheduler.add(Task("after-kids", lambda b: order.append("last"), 5, after=("kids",)))
    closed: list[str] = []
    scheduler.on_drained("kids", lambda: closed.append("kids"))
    assert scheduler.run() is RunEnd.COMPLETED
    assert order[:2] == ["parent", "expand"]
    assert sorted(order[2:5]) == ["child0", "child1", "child2"]
    assert order[5] == "last"
    assert closed == ["kids"]


def test_priority_prefers_earlier_hosts() -> None:
    order: list[str] = []
    scheduler = Scheduler(concurrency=1)
    for host in (2, 1):
        for step in (1, 0):
            scheduler.add(
                Task(
                    f"h{host}s{step}",
                    lambda b, k=f"h{host}s{step}": order.append(k),
                    5,
                    priority=(host, step),
                )
            )
    scheduler.run()
    assert order == ["h1s0", "h1s1", "h2s0", "h2s1"]


def test_watchdog_abandons_a_stuck_task_and_the_rest_continue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scheduler_module, "WATCHDOG_GRACE_S", 0.1)
    release = threading.Event()
    try:
        settled: dict[str, tuple[CollectorStatus, str]] = {}
        scheduler = Scheduler(concurrency=1)
        scheduler.add(
            Task(
                "stuck",
                lambda budget: release.wait(10),  # ignores its budget, like a blocking DNS call
                0.3,
                on_abandon=lambda status, note: settled.setdefault("stuck", (status, note)),
            )
        )
        finished: list[str] = []
        scheduler.add(Task("next", lambda b: finished.append("next"), 5))
        started = time.monotonic()
        assert scheduler.run() is RunEnd.COMPLETED
        assert time.monotonic() - started < 3
        assert settled["stuck"][0] is CollectorStatus.TIMEOUT
        assert finished == ["next"]
    finally:
        release.set()


def test_deadline_settles_running_as_timeout_and_waiting_as_skipped() -> None:
    tracker = Tracker()
    scheduler = Scheduler(concurrency=1, deadline_s=0.5)
    scheduler.add(tracker.task("slow", seconds=30))
    scheduler.add(tracker.task("waiting"))
    started = time.monotonic()
    assert scheduler.run() is RunEnd.DEADLINE
    assert time.monotonic() - started < 1.5
    assert tracker.settled["slow"][0] is CollectorStatus.TIMEOUT
    assert tracker.settled["waiting"][0] is CollectorStatus.SKIPPED
    assert "deadline" in tracker.settled["waiting"][1]


def test_ctrl_c_settles_everything_as_interrupted() -> None:
    tracker = Tracker()
    scheduler = Scheduler(concurrency=1)
    scheduler.add(tracker.task("slow", seconds=30))
    scheduler.add(tracker.task("waiting"))
    with ctrl_c_in(0.3):
        assert scheduler.run() is RunEnd.INTERRUPTED
    assert tracker.settled["slow"][0] is CollectorStatus.INTERRUPTED
    assert tracker.settled["waiting"][0] is CollectorStatus.INTERRUPTED
    assert scheduler.cancel.is_set()


def test_a_group_that_can_never_drain_does_not_hang_the_run() -> None:
    settled: list[str] = []
    scheduler = Scheduler(concurrency=2)
    scheduler.add(
        Task(
            "orphan",
            lambda b: None,
            5,
            after=("never-sealed",),
            on_skip=lambda n, s: settled.append(n),
        )
    )
    assert scheduler.run() is RunEnd.COMPLETED
    assert len(settled) == 1
    assert "never completed" in settled[0]


def test_a_crashing_task_is_recorded_and_the_pool_survives() -> None:
    from bundler.archive.contracts import MemorySink
    from bundler.collect.recorder import Recorder
    from schemas import CollectorKind

    recorder = Recorder(MemorySink())
    record = recorder.register("local.h01.bug", CollectorKind.LOCAL, "h01")

    def crash(budget: Budget) -> None:
        recorder.started(record)
        raise ZeroDivisionError

    done: list[str] = []
    scheduler = Scheduler(concurrency=1)
    scheduler.add(Task("bug", crash, 5, on_abandon=lambda s, n: recorder.abandon(record, s, n)))
    scheduler.add(Task("next", lambda b: done.append("next"), 5))
    assert scheduler.run() is RunEnd.COMPLETED
    assert done == ["next"]
    (outcome,) = recorder.outcomes()
    assert (outcome.status, outcome.error_class) == (CollectorStatus.FAILED, "InternalError")
    assert "ZeroDivisionError" in (outcome.error_message or "")


def test_a_completed_run_lets_its_workers_go() -> None:
    """Idle workers used to wait forever, holding the scheduler (and through its lane limit
    the whole engine: every collector's record) for the rest of the process."""
    workers: set[threading.Thread] = set()
    scheduler = Scheduler(concurrency=3)
    for key in ("a", "b", "c", "d"):
        scheduler.add(Task(key, lambda budget: workers.add(threading.current_thread()), 5))
    assert scheduler.run() is RunEnd.COMPLETED
    assert workers
    for worker in workers:
        worker.join(timeout=5)
    assert not any(worker.is_alive() for worker in workers)
