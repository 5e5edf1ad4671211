"""The host's clock against ours, read around one round trip.

LyftData's *Worker Recovery and Serviceability* guide names clock synchronization as a
connectivity cause (leases and TLS fail on skewed hosts), and comparing log times across
hosts needs the skew. A tiny script prints a ready marker, waits for one line from us,
then runs ``date -u +%s.%N; date +%z``: the collector's UTC clock is read just before
the line is sent and just after the answer arrives, so process and login-shell start-up
(often a large part of an SSH command) stay out of the round trip. The skew is the
host's reading minus the midpoint, uncertain by half the round trip. The UTC offset it
prints lets naive log timestamps (Flux writes local ``asctime``) be read as UTC.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

from schemas import utc_now
from schemas.evidence import ClockReading

from ..budget import Budget
from ..errors import CommandFailed, whole_words
from ..transports.runner import HostRunner
from .timestamps import parse_offset

CLOCK_PROBE = "echo bundler-ready; read _; exec </dev/null; date -u +%s.%N; date +%z"
"""After its one line the probe reads from ``/dev/null``: over SSH its input is never ended
(:func:`~bundler.collect.transports.runner.without_input`), and ``then`` must not wait on it."""


@dataclass(frozen=True)
class ClockResult:
    reading: ClockReading
    utc_offset: str | None
    """The host's offset as ``+HHMM`` (None if it did not say)."""

    @property
    def tz(self) -> timezone:
        return (parse_offset(self.utc_offset) if self.utc_offset else None) or UTC


def read_clock(
    runner: HostRunner,
    budget: Budget,
    now: Callable[[], datetime] = utc_now,
    *,
    then: str = "",
    max_bytes: int = 1024,
) -> tuple[ClockResult | None, str, str | None]:
    """Read the clock, then run ``then`` in the same session (one SSH session, not two).

    Returns the reading (None if the host's ``date`` said nothing usable), the
    output of ``then``, and why the clock could not be read.
    """
    timed = runner.timed(CLOCK_PROBE + "\n" + then, budget=budget, now=now, max_bytes=max_bytes)
    text = timed.answer.decode("utf-8", "replace")
    lines = text.split("\n", 2)
    rest = lines[2] if len(lines) > 2 else ""
    try:
        return parse_clock([x.strip() for x in lines[:2]], timed.before, timed.after), rest, None
    except CommandFailed as exc:
        return None, rest, exc.message


def parse_clock(lines: list[str], before: datetime, after: datetime) -> ClockResult:
    seconds, _, fraction = (lines[0] if lines else "").partition(".")
    if not seconds.isdigit():
        # cut between words: the member this reason is stored in is redacted later, and a
        # value cut in part would be matched by no rule there
        raise CommandFailed(f"unexpected date output {whole_words(lines[0], 40)!r}")
    extra_uncertainty = 0.0
    if fraction.isdigit():
        host_seconds = float(f"{seconds}.{fraction}")
    else:  # no %N (busybox, BSD): whole seconds, truncated
        host_seconds, extra_uncertainty = int(seconds) + 0.5, 0.5
    host_time = datetime.fromtimestamp(host_seconds, UTC)
    midpoint = before + (after - before) / 2
    reading = ClockReading(
        host_time=host_time,
        collector_before=before,
        collector_after=after,
        skew_s=round((host_time - midpoint) / timedelta(seconds=1), 6),
        uncertainty_s=round((after - before) / timedelta(seconds=1) / 2 + extra_uncertainty, 6),
    )
    offset = lines[1] if len(lines) > 1 and parse_offset(lines[1]) else None
    return ClockResult(reading, offset)
