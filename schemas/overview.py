"""The fleet overview inside the analysis report: every worker on one line, then the groups.

A support engineer's first question is "what does the whole fleet look like",
not only "what is wrong with the one target": so the report lists every
worker the bundle knows (status, heartbeat age, labels, slots, jobs, the
verdict of its targets). At hundreds of workers the human formats read the
:class:`WorkerGroup` list instead ("312 workers offline since ..."); the JSON
keeps one :class:`WorkerOverview` per worker so tools never lose a worker.
"""

from __future__ import annotations

from pydantic import Field

from ._base import ManyRecord, RecordModel, UTCDateTime
from .citation import Citation
from .evidence.workers import AdminState, ConnectionState, HealthState
from .ladder import Layer, Verdict


class WorkerOverview(ManyRecord):
    """One worker as the fleet overview shows it."""

    name: str
    id: str | None = None
    status: ConnectionState = Field(description="Connection as the control plane knows it.")
    native_status: str | None = Field(default=None, description="The product's own word.")
    health: HealthState = HealthState.UNKNOWN
    admin: AdminState = AdminState.UNKNOWN
    group: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    last_heartbeat_at: UTCDateTime | None = None
    heartbeat_age_s: float | None = Field(
        default=None, description="Seconds of silence at collection time."
    )
    in_flight: int | None = Field(default=None, description="Work items running on it.")
    slots_max: int | None = Field(default=None, description="Concurrency limit (0 = unlimited).")
    jobs_placed: int = Field(
        default=0, description="Unfinished jobs or executions assigned to this worker."
    )
    verdict: Verdict | None = Field(
        default=None,
        description=(
            "Worst verdict of the report's targets on this worker; None when no ladder was "
            "walked for it (see ``trouble``: nothing wrong found, or past the target limit)."
        ),
    )
    first_failed_layer: Layer | None = None
    finding: str | None = Field(
        default=None,
        description="Main finding code of its worst target (last failing code of the first "
        "failed layer, else the first warning, else for an inconclusive target the first "
        "finding of its first unknown layer).",
    )
    codes: list[str] = Field(
        default_factory=list, description="Every failing or warning code of its targets."
    )
    trouble: str | None = Field(
        default=None,
        description="Why triage flagged it (e.g. 'worker offline'); None when nothing was found.",
    )
    evidence: Citation | None = Field(
        default=None, description="Where the worker's record is (evidence/workers.json)."
    )


class WorkerGroup(RecordModel):
    """Workers that share status, verdict and main finding, said once."""

    summary: str = Field(description="One line, e.g. '312 workers offline since 21:40:03Z'.")
    count: int = Field(ge=1)
    status: ConnectionState
    health: HealthState = HealthState.UNKNOWN
    admin: AdminState = AdminState.UNKNOWN
    verdict: Verdict | None = None
    first_failed_layer: Layer | None = None
    finding: str | None = Field(default=None, description="The shared main finding code.")
    trouble: str | None = Field(default=None, description="The shared triage reason, if any.")
    labels: dict[str, str] = Field(
        default_factory=dict, description="Labels every worker of the group has."
    )
    since: UTCDateTime | None = Field(default=None, description="Earliest last heartbeat.")
    until: UTCDateTime | None = Field(default=None, description="Latest last heartbeat.")
    in_flight: int = Field(default=0, description="Sum over the group.")
    jobs_placed: int = Field(default=0, description="Sum over the group.")
    workers: list[str] = Field(description="Every worker of the group, in overview order.")


class FleetOverview(RecordModel):
    """Every worker the bundle knows, failing first, and the same grouped by finding."""

    workers_total: int = 0
    by_status: dict[str, int] = Field(
        default_factory=dict, description="Workers per connection status."
    )
    workers: list[WorkerOverview] = Field(default_factory=list)
    groups: list[WorkerGroup] = Field(default_factory=list)
