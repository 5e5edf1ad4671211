"""Stopping a redaction's process pool cleanly: signals held while workers are forked, and
the workers ended at once when the run is interrupted."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


@contextmanager
def stop_signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while pool workers are forked, so each starts with them
    blocked and sets its own dispositions first (:func:`~.workers.init_worker`); one that
    arrives meanwhile reaches the coordinator after.

    A Ctrl-C goes to the whole process group: each worker printed a
    ``KeyboardInterrupt`` traceback and died, and the run often ended as "a
    worker process died" (exit 2) instead of "interrupted" (130). Now the
    coordinator alone is interrupted, and stops the workers (:func:`stop_workers`).
    A fork also inherits the coordinator's SIGTERM handler (:mod:`bundler.interrupts`),
    which would make a worker's SIGTERM a traceback too.
    """
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def stop_workers(pool: ProcessPoolExecutor, *, settle: float = 10.0) -> None:
    """Cancel what is queued, end the workers now (they ignore SIGINT), and wait for the
    pool's manager thread to notice; the caller's clean-up then removes what they were writing.

    ``shutdown(wait=False)`` forgets the manager thread, so no later ``shutdown`` joins it. Left
    running, it closed its wake-up pipe while the interpreter's exit hook was writing to it:
    "Exception ignored in: <module 'threading'> … Bad file descriptor" after "interrupted".
    """
    manager: threading.Thread | None = getattr(pool, "_executor_manager_thread", None)
    processes: dict[int, Any] = dict(getattr(pool, "_processes", None) or {})
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes.values():
        process.terminate()
    if manager is not None:
        manager.join(settle)  # ended workers wake it at once; bounded all the same
