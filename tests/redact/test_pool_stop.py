"""Stopping a redaction pool leaves no thread of it running into the interpreter's exit."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ProcessPoolExecutor

from bundler.redaction.pool import stop_workers


def _pool_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if type(t).__name__ == "_ExecutorManagerThread"]


def test_stopped_workers_leave_no_manager_thread_behind() -> None:
    """An interrupted run stopped its pool with ``shutdown(wait=False)``, which also drops the
    pool's reference to its manager thread, so the ``shutdown(wait=True)`` after it joined
    nothing. The thread was still closing its wake-up pipe when the interpreter's exit hook
    wrote to that pipe: "Exception ignored in: <module 'threading'> … OSError: [Errno 9]
    Bad file descriptor" after "bundler: error: interrupted" (a fresh-clone CI run).

    The same ``shutdown`` empties the pool's process table, which ``stop_workers`` read after
    it: no worker was ever terminated, each finished its 30-second job first."""
    pool = ProcessPoolExecutor(2)
    futures = [pool.submit(time.sleep, 30) for _ in range(4)]
    workers = list(pool._processes.values())  # type: ignore[union-attr]
    assert _pool_threads()
    assert workers
    stop_workers(pool)
    assert not _pool_threads()
    assert not any(worker.is_alive() for worker in workers)
    pool.shutdown(wait=True, cancel_futures=True)  # what the caller's finally does: harmless
    assert all(f.done() for f in futures)
