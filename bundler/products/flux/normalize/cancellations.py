"""Whose clock stamped a cancelled run's end: the worker's, or the server's sweep.

flux-core 0.87.5 (checked in its source): a cancellation is *requested* on the server,
which appends ``WORKFLOW_CANCELLING`` on its own clock (``api/workflow_routes.py``,
``ctx.start_cancel()``) although the event's ``source_id`` names the worker. The end,
``WORKFLOW_CANCELLED``, is appended where the cancellation lands:

* on the worker, which cancels the running workflow (``workflow.py``, ``ctx.cancel()`` as
  the ``CancelledError`` unwinds) or resolves a cancellation for a run no longer running
  there (``worker.py``), and checkpoints it: the worker's clock;
* on the server, when its scheduler sweep resolves a cancellation that had no live
  delivery target (its worker gone past ``cancellation_orphan_grace``;
  ``context_managers.py``), logging ``Execution ID cancellation had no live delivery target
  (...); resolved by the scheduler sweep`` and ``Resolved N orphaned cancellation(s):
  IDS``: the server's clock.

So a cancelled run of a worker whose clock is off ends on the worker's clock unless the
server log says the sweep resolved it. Without a server log nothing rules the sweep out:
whose clock stamped the end is unknown, and the run is read as undated rather than placed
on a guess (which run ended last is then said to be unknown).

The sweep logs its line right after it appends ``WORKFLOW_CANCELLED`` (the same call, on the
server's clock): where the event itself is not in the bundle (SQLite's "last run" row gives
only its run's first and last stamps, whoever wrote them), the line dates the end
(:attr:`Cancellations.swept_at`, to the log's second).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum

from schemas.manifest import HostRole

from .records import FluxRecords

CANCELLED = "WORKFLOW_CANCELLED"
SERVER_STAMPED = frozenset({"WORKFLOW_SCHEDULED", "WORKFLOW_CLAIMED", "WORKFLOW_CANCELLING"})
"""Events the server appends on its own clock, whatever their ``source_id`` says."""
SWEEP_KINDS = ("cancel_orphaned", "cancel_orphans_resolved")


class Stamper(Enum):
    WORKER = "worker"
    SERVER = "server"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Cancellations:
    """What the server log says of cancellations: which the sweep resolved, and whether it
    was read at all."""

    swept: frozenset[str]
    server_log_read: bool
    swept_at: dict[str, datetime] = field(default_factory=dict)
    """When the sweep resolved each run, on the server's clock: its earliest dated line that
    names the run (a run whose lines are undated is absent)."""

    def end_stamped_by(self, execution_id: str) -> Stamper:
        """Whose clock stamped ``WORKFLOW_CANCELLED`` of ``execution_id``."""
        if execution_id in self.swept:
            return Stamper.SERVER
        return Stamper.WORKER if self.server_log_read else Stamper.UNKNOWN


def cancellations(flux: FluxRecords) -> Cancellations:
    """The server log's sweeps of orphaned cancellations (each line, and each summary's ids)."""
    swept: set[str] = set()
    swept_at: dict[str, datetime] = {}
    for event in flux.events_of(*SWEEP_KINDS):
        named = {event.execution} if event.execution else set()
        ids = event.detail.get("ids")
        if isinstance(ids, str):
            named.update(part.strip() for part in ids.split(",") if part.strip())
        swept |= named
        if event.at is None:
            continue
        for execution in named:
            earlier = swept_at.get(execution)
            swept_at[execution] = event.at if earlier is None else min(earlier, event.at)
    read = any(flux.raw.ok(r) for r in flux.host_results("logs", HostRole.SERVER))
    return Cancellations(frozenset(swept), read, swept_at)
