"""Layer 1, heartbeat: is the worker connected and reporting recent status?

:class:`WorkerStatus` is the canonical worker record. It is a superset of
Flux's ``WorkerResponse`` (name, status, runtime, resources, packages, labels,
metrics, metadata, in_flight) so that a Flux record maps onto it and back
without loss, and of the LyftData worker record (id, labels, capabilities,
group, version, last heartbeat).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, Field

from .._base import ManyRecord, RecordModel, UTCDateTime, shared_records
from ._common import EvidenceDoc, Source


class ConnectionState(StrEnum):
    """Connection as far as the control plane knows.

    ``stale`` is inside the grace window (still listed online by some
    products); ``lost`` was online and went silent past grace; ``offline``
    disconnected or evicted.
    """

    ONLINE = "online"
    STALE = "stale"
    OFFLINE = "offline"
    LOST = "lost"
    NEVER_CONNECTED = "never_connected"
    REMOVED = "removed"
    UNKNOWN = "unknown"


class HealthState(StrEnum):
    """Self-reported health, orthogonal to connection (e.g. event-loop starvation)."""

    HEALTHY = "healthy"
    UNHEALTHY = "unhealthy"
    UNKNOWN = "unknown"


class AdminState(StrEnum):
    """Whether an operator let the worker take work."""

    ACTIVE = "active"
    PAUSED = "paused"
    DRAINING = "draining"
    UNKNOWN = "unknown"


class WorkerRuntime(ManyRecord):
    os_name: str | None = None
    os_version: str | None = None
    arch: str | None = None
    runtime_name: str | None = Field(
        default=None, description="Language runtime of the worker, e.g. 'python'."
    )
    runtime_version: str | None = None


class GPU(ManyRecord):
    name: str
    memory_total: float | None = None
    memory_available: float | None = None


class WorkerResources(ManyRecord):
    cpu_total: float | None = None
    cpu_available: float | None = None
    memory_total_bytes: float | None = None
    memory_available_bytes: float | None = None
    disk_total_bytes: float | None = None
    disk_free_bytes: float | None = None
    gpus: list[GPU] | None = None


class Package(ManyRecord):
    name: str
    version: str | None = None


class ClockOffset(ManyRecord):
    """The worker's clock minus the control plane's, bounded by the times each stamped.

    Some products stamp a run's events on both sides: the server its claim, the worker its
    start and end (Flux). A start stamped before the claim, or an end stamped after the
    collector read the run, cannot happen on one clock; each bound is certain, the true
    offset lies between them (the run's start-up and the time until it was read widen it).
    A worker that ran nothing can be bounded by its registration: its log's lines before
    and after the server's line about the same request (Flux).
    """

    at_least_s: float | None = Field(
        default=None, description="Lower bound: a worker-stamped time minus when it was read."
    )
    at_most_s: float | None = Field(
        default=None, description="Upper bound: a worker-stamped time minus the claim before it."
    )
    at_least_source: Source | None = Field(
        default=None, description="The worker-stamped time or log line the lower bound is from."
    )
    at_most_source: Source | None = Field(
        default=None, description="The worker-stamped time or log line the upper bound is from."
    )
    at_least_against: Source | None = Field(
        default=None,
        description="The server-stamped record the lower bound compares it with (none: the "
        "collector's read of the run).",
    )
    at_most_against: Source | None = Field(
        default=None,
        description="The server-stamped record the upper bound compares it with: the run's "
        "claim, or the server's log line of the worker's registration.",
    )


class WorkerStatus(ManyRecord):
    """One worker as the control plane (and, where collected, its host) sees it."""

    name: str = Field(description="Worker name as the product shows it.")
    id: str | None = Field(default=None, description="Product worker id, when distinct from name.")
    native_status: str | None = Field(
        default=None, description="The product's own status word, verbatim."
    )
    connection: ConnectionState = ConnectionState.UNKNOWN
    health: HealthState = HealthState.UNKNOWN
    admin: AdminState = AdminState.UNKNOWN
    kind: Literal["builtin", "external"] | None = None
    group: str | None = Field(default=None, description="Worker group or pool.")
    labels: dict[str, str] = Field(default_factory=dict)
    capabilities: list[str] | None = Field(
        default=None,
        description="Component capabilities the worker offers (LyftData's per-worker status); "
        "null when the bundle holds no report of them, so a missing one is unknown, not absent.",
    )
    limited_capabilities: bool | None = Field(
        default=None, description="Worker restricted to basic connectors (LyftData)."
    )
    runtime: WorkerRuntime | None = None
    resources: WorkerResources | None = None
    packages: Annotated[list[Package], AfterValidator(shared_records)] | None = None
    metrics: dict[str, float] | None = Field(
        default=None, description="Worker-advertised scalar metrics (e.g. flux.slots_free)."
    )
    metadata: dict[str, str | float | int] | None = None
    in_flight: int | None = Field(default=None, description="Work items currently running.")
    slots_max: int | None = Field(
        default=None, description="Concurrency limit (0 = unlimited), if known."
    )
    version: str | None = Field(default=None, description="Worker software version.")
    last_heartbeat_at: UTCDateTime | None = None
    heartbeat_age_s: float | None = Field(
        default=None,
        description="Seconds since the last heartbeat, at observed_at.",
    )
    first_seen_at: UTCDateTime | None = None
    host_alias: str | None = Field(default=None, description="Host alias, if we collected it.")
    clock_offset: ClockOffset | None = Field(
        default=None,
        description="Its clock against the control plane's, where its runs prove they differ.",
    )
    departed: bool | None = Field(
        default=None,
        description=(
            "True when the product lists this worker only as the record of one that left: "
            "Flux keeps the rows of workers that exited so they can re-register under the same "
            "name (Worker observability: phantom workers). Offline is then expected, not an "
            "incident, unless work still depends on it."
        ),
    )
    source: Source | None = None


class HeartbeatPolicy(RecordModel):
    """The product's heartbeat timings, from its effective settings."""

    interval_s: float | None = Field(default=None, description="Expected heartbeat period.")
    timeout_s: float | None = Field(
        default=None, description="Silence after which a worker is considered stale."
    )
    grace_s: float | None = Field(
        default=None, description="Further silence after which it is evicted/offline."
    )
    source: Literal["settings", "default", "unknown"] = "unknown"


class WorkersEvidence(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.workers"
    member_path: ClassVar[str] = "evidence/workers.json"

    workers: list[WorkerStatus] = Field(default_factory=list)
    heartbeat: HeartbeatPolicy | None = None
