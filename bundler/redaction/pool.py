"""Stopping a redaction's process pool cleanly: signals held while workers are forked, and
the workers ended at once when the run is interrupted."""

from __future__ import annotations

import signal
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


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Cancel what is queued and end the workers now (they ignore SIGINT); the caller's
    clean-up then removes what they were writing."""
    pool.shutdown(wait=False, cancel_futures=True)
    processes: dict[int, Any] = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        process.terminate()
