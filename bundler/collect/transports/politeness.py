"""Staying polite to a control plane at any fleet size: a request cap, ``Retry-After``, a tally.

A support tool runs against a production control plane that is often the
very thing in trouble, so doctor never adds load it did not announce:

* at most ``max_in_flight`` API requests at once (``--api-concurrency``),
  whatever the collector concurrency or the fleet size;
* a ``429 Too Many Requests`` or ``503 Service Unavailable`` with a
  ``Retry-After`` makes *every* request wait until that time (a shared
  gate, not just the one that was told), then the request is retried; a
  delay over ``max_retry_after_s`` or past the collector's budget is not
  waited for: the response is kept as the evidence, with a note;
* what happened is counted (:class:`ApiUsage`) and recorded in the
  manifest, so a reader can tell a throttled run from a healthy one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from ..budget import Budget

THROTTLE_STATUSES = frozenset({429, 503})
DEFAULT_MAX_RETRY_AFTER_S = 30.0
"""Longest ``Retry-After`` doctor waits for; a server asking for more is answered later, by
the next run, not by holding the collection."""


def retry_after_seconds(
    value: str | None, now: Callable[[], datetime] | None = None
) -> float | None:
    """Seconds a ``Retry-After`` header asks for (RFC 9110: delay-seconds or an HTTP-date)."""
    if value is None:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():  # str.isdigit() also takes '²' (a latin-1 0xB2)
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now() if now is not None else datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


@dataclass
class ApiUsage:
    """What doctor asked of the control plane (thread-safe counters)."""

    max_in_flight: int
    max_retry_after_s: float
    requests: int = 0
    throttled: int = 0
    """429/503 responses that carried a Retry-After."""
    waited_s: float = 0.0
    """Wall-clock seconds requests were held back by a Retry-After: eight requests waiting
    the same two seconds are two seconds, not sixteen (the run's time, not a sum)."""
    not_waited: int = 0
    """Retry-After delays not waited for: over the bound, past the budget, or asked of a
    request with no attempt left (its answer is kept as it is)."""
    peak_in_flight: int = 0
    fanouts: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per fan-out step: items the parent listed, fetched, and the step's limit."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record_fanout(self, step: str, items: int, fetched: int, limit: int) -> None:
        with self._lock:
            self.fanouts[step] = {"items": items, "fetched": fetched, "limit": limit}

    def manifest_record(self) -> dict[str, object]:
        with self._lock:
            return {
                "max_concurrent_requests": self.max_in_flight,
                "max_retry_after_s": self.max_retry_after_s,
                "requests": self.requests,
                "peak_concurrent_requests": self.peak_in_flight,
                "throttled": self.throttled,
                "throttle_waited_s": round(self.waited_s, 3),
                "throttle_not_waited": self.not_waited,
                "fanouts": {step: dict(counts) for step, counts in sorted(self.fanouts.items())},
            }


class Throttle:
    """The request cap and the shared "not before" time a server asked for."""

    def __init__(self, usage: ApiUsage, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.usage = usage
        self._clock = clock
        self._slots = threading.BoundedSemaphore(usage.max_in_flight)
        self._lock = threading.Lock()
        self._not_before = 0.0
        self._held_until = 0.0
        """End of the last wait already counted in ``waited_s`` (waits overlap)."""
        self._in_flight = 0

    def acquire(self, budget: Budget) -> float:
        """Wait for a free request slot and for any pending Retry-After; within the budget.

        Returns the seconds this request was held back by a Retry-After.
        """
        while not self._slots.acquire(timeout=min(0.2, budget.remaining())):
            budget.check("waiting for a free API request slot")
        held = 0.0
        try:
            with self._lock:
                delay = self._not_before - self._clock()
            if delay > 0:
                started = self._clock()
                budget.sleep(delay)
                ended = self._clock()
                held = ended - started
                with self._lock:  # only the part no other request's wait has counted
                    self.usage.waited_s += max(0.0, ended - max(started, self._held_until))
                    self._held_until = max(self._held_until, ended)
        except BaseException:
            self._slots.release()
            raise
        with self._lock:
            self._in_flight += 1
            self.usage.requests += 1
            self.usage.peak_in_flight = max(self.usage.peak_in_flight, self._in_flight)
        return held

    def release(self) -> None:
        with self._lock:
            self._in_flight -= 1
        self._slots.release()

    def asked_to_wait(self, seconds: float, budget: Budget, *, can_retry: bool = True) -> bool:
        """A server said Retry-After ``seconds``: True if doctor will wait and retry.

        ``can_retry`` is False for a request's last attempt: its answer is counted as
        throttled and not waited for, like one asking too long.
        """
        with self._lock:
            self.usage.throttled += 1
            too_long = seconds > self.usage.max_retry_after_s or seconds >= budget.left()
            if too_long or not can_retry:
                self.usage.not_waited += 1
                return False
            self._not_before = max(self._not_before, self._clock() + seconds)
            return True
