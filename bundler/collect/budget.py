"""Time budgets: how long one collector may still run, and whether the run was cancelled.

Threads cannot be killed, so every blocking call a collector makes is bounded
by its budget instead: socket timeouts are set to :meth:`Budget.remaining`,
and read loops poll :meth:`Budget.check`. A budget ends at the earlier of the
collector's own timeout and the run's deadline, and is cancelled early when
the run is interrupted (Ctrl-C) or the deadline passes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .errors import CollectorTimeout

Clock = Callable[[], float]

MIN_SOCKET_TIMEOUT = 0.05
"""A socket timeout of 0 means non-blocking; never hand one out."""


class Cancelled(CollectorTimeout):
    """The run was cancelled (deadline or Ctrl-C) while this collector ran."""


class Budget:
    """A deadline on the monotonic clock plus a shared cancellation flag.

    Usage::

        budget = Budget.start(timeout_s=30, run_deadline=deadline, cancel=event)
        sock.settimeout(budget.remaining())
        while reading:
            budget.check()
    """

    def __init__(
        self,
        ends_at: float,
        cancel: threading.Event | None = None,
        *,
        timeout_s: float | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        self.ends_at = ends_at
        self.cancel = cancel or threading.Event()
        self.timeout_s = timeout_s
        self._clock = clock

    @classmethod
    def start(
        cls,
        timeout_s: float,
        *,
        run_deadline: float | None = None,
        cancel: threading.Event | None = None,
        clock: Clock = time.monotonic,
    ) -> Budget:
        ends_at = clock() + timeout_s
        if run_deadline is not None:
            ends_at = min(ends_at, run_deadline)
        return cls(ends_at, cancel, timeout_s=timeout_s, clock=clock)

    def left(self) -> float:
        """Seconds left, possibly negative."""
        return self.ends_at - self._clock()

    def remaining(self) -> float:
        """Seconds left, never below :data:`MIN_SOCKET_TIMEOUT` (use :meth:`check` to stop)."""
        return max(MIN_SOCKET_TIMEOUT, self.ends_at - self._clock())

    def expired(self) -> bool:
        return self.cancel.is_set() or self._clock() >= self.ends_at

    def check(self, doing: str = "") -> None:
        """Raise :class:`CollectorTimeout` (or :class:`Cancelled`) once the budget is spent."""
        if self.cancel.is_set():
            raise Cancelled(f"run cancelled{' while ' + doing if doing else ''}")
        if self._clock() >= self.ends_at:
            limit = f" after {self.timeout_s:g}s" if self.timeout_s is not None else ""
            raise CollectorTimeout(f"timed out{limit}{' while ' + doing if doing else ''}")

    def sleep(self, seconds: float) -> None:
        """Sleep (e.g. a retry backoff) but wake up when cancelled; never past the budget."""
        self.cancel.wait(max(0.0, min(seconds, self.ends_at - self._clock())))
        self.check("waiting to retry")
