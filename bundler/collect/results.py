"""What one expansion of a plan step produced: the engine writes it, normalizers read it.

It lives with the engine that produces it (not with the product contract) so
``collect`` never needs ``products``; :mod:`bundler.products.base` hands it
to product normalizers as part of their :class:`~bundler.products.base.NormalizeContext`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from schemas.manifest import CollectorStatus


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one expansion of a plan step produced (held in memory during a run).

    Slotted: a run holds one per collector until it ends (10,535 at 1,000 hosts)."""

    step: str
    collector: str
    status: CollectorStatus
    member: str | None = None
    host: str | None = None
    """Host alias for host steps."""
    bound: Mapping[str, str] = field(default_factory=dict)
    """Fan-out variables of this expansion, e.g. {'name': 'w1'}."""
    http_status: int | None = None
    exit_code: int | None = None
    error_class: str | None = None
    error_message: str | None = None
    finished_at: datetime | None = None
    """When the response or output was complete (UTC). Ages read from a response (a
    heartbeat's, a lease's) are measured from here: measured from the start of the run
    they would read low by however long collection took to reach this step."""
