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
        deadline_s: float | None = None,
        by_deadline: bool = False,
    ) -> None:
        self.ends_at = ends_at
        self.cancel = cancel or threading.Event()
        self.timeout_s = timeout_s
        self.deadline_s = deadline_s
        self.by_deadline = by_deadline
        """True when the run's deadline, not the collector's own timeout, ends this budget."""
        self._clock = clock

    @classmethod
    def start(
        cls,
        timeout_s: float,
        *,
        run_deadline: float | None = None,
        cancel: threading.Event | None = None,
        clock: Clock = time.monotonic,
        deadline_s: float | None = None,
    ) -> Budget:
        own = clock() + timeout_s
        by_deadline = run_deadline is not None and run_deadline < own
        ends_at = min(own, run_deadline) if run_deadline is not None else own
        return cls(
            ends_at,
            cancel,
            timeout_s=timeout_s,
            clock=clock,
            deadline_s=deadline_s,
            by_deadline=by_deadline,
        )

    def limit(self) -> str:
        """Which limit ends this budget, as the user set it: the run's or the collector's."""
        if self.by_deadline:
            shown = f" (--deadline {self.deadline_s:g}s)" if self.deadline_s is not None else ""
            return f"the run deadline{shown} was reached"
        if self.timeout_s is not None:
            return f"after {self.timeout_s:g}s (--timeout, per collector)"
        return "its time was up"

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
            raise CollectorTimeout(f"timed out{' while ' + doing if doing else ''}: {self.limit()}")

    def sleep(self, seconds: float) -> None:
        """Sleep (e.g. a retry backoff) but wake up when cancelled; never past the budget."""
        self.cancel.wait(max(0.0, min(seconds, self.ends_at - self._clock())))
        self.check("waiting to retry")
