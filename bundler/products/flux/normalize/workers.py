"""Layer 1 facts: Flux workers as canonical :class:`WorkerStatus` records.

``to_canonical`` / ``from_canonical`` map Flux's ``WorkerResponse`` onto the
canonical record and back *without loss* (a test round-trips real captures):
every Flux field has a canonical home, the status word is kept verbatim in
``native_status``, and fields a newer Flux adds ride along as extras.

``workers_evidence`` then adds what only other sources know: the persisted
heartbeat and slot limit (SQLite), the worker's own health and admin state
(its control socket, which learns of starvation before the server does) and
the host it runs on.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from schemas.evidence import (
    GPU,
    AdminState,
    ConnectionState,
    HealthState,
    Package,
    WorkerResources,
    WorkerRuntime,
    WorkersEvidence,
    WorkerStatus,
)

from ..models import WorkerResponse
from .records import FluxRecords
from .worker_host import control_status

STATUS_STATES: dict[str, tuple[ConnectionState, HealthState, AdminState]] = {
    # Paused wins over unhealthy in Flux's status word, so each word pins down only part.
    "online": (ConnectionState.ONLINE, HealthState.HEALTHY, AdminState.ACTIVE),
    "unhealthy": (ConnectionState.ONLINE, HealthState.UNHEALTHY, AdminState.ACTIVE),
    "paused": (ConnectionState.ONLINE, HealthState.UNKNOWN, AdminState.PAUSED),
    "offline": (ConnectionState.OFFLINE, HealthState.UNKNOWN, AdminState.UNKNOWN),
}
KNOWN_FIELDS = frozenset(WorkerResponse.model_fields)


def to_canonical(worker: WorkerResponse) -> WorkerStatus:
    """One Flux worker record as a canonical one (nothing dropped)."""
    connection, health, admin = STATUS_STATES.get(
        worker.status, (ConnectionState.UNKNOWN, HealthState.UNKNOWN, AdminState.UNKNOWN)
    )
    runtime = None
    if worker.runtime is not None:
        runtime = WorkerRuntime(
            os_name=worker.runtime.os_name,
            os_version=worker.runtime.os_version,
            runtime_name="python",
            runtime_version=worker.runtime.python_version,
        )
    resources = None
    if worker.resources is not None:
        r = worker.resources
        resources = WorkerResources(
            cpu_total=r.cpu_total,
            cpu_available=r.cpu_available,
            memory_total_bytes=r.memory_total,
            memory_available_bytes=r.memory_available,
            disk_total_bytes=r.disk_total,
            disk_free_bytes=r.disk_free,
            gpus=[
                GPU(name=g.name, memory_total=g.memory_total, memory_available=g.memory_available)
                for g in r.gpus
            ],
        )
    extras = {k: v for k, v in (worker.model_extra or {}).items() if k not in KNOWN_FIELDS}
    return WorkerStatus(
        name=worker.name,
        native_status=worker.status,
        connection=connection,
        health=health,
        admin=admin,
        kind="external",
        labels=dict(worker.labels),
        runtime=runtime,
        resources=resources,
        packages=[Package(name=p.name, version=p.version) for p in worker.packages],
        metrics=dict(worker.metrics) if worker.metrics is not None else None,
        metadata=dict(worker.metadata) if worker.metadata is not None else None,
        in_flight=worker.in_flight,
        version=_flux_version(worker),
        **extras,
    )


def from_canonical(status: WorkerStatus) -> dict[str, Any]:
    """The Flux ``WorkerResponse`` a canonical record came from (as JSON data)."""
    runtime = None
    if status.runtime is not None:
        runtime = {
            "os_name": status.runtime.os_name,
            "os_version": status.runtime.os_version,
            "python_version": status.runtime.runtime_version,
        }
    resources = None
    if status.resources is not None:
        r = status.resources
        resources = {
            "cpu_total": r.cpu_total,
            "cpu_available": r.cpu_available,
            "memory_total": r.memory_total_bytes,
            "memory_available": r.memory_available_bytes,
            "disk_total": r.disk_total_bytes,
            "disk_free": r.disk_free_bytes,
            "gpus": [g.model_dump(mode="json") for g in r.gpus or []],
        }
    data: dict[str, Any] = {
        "name": status.name,
        "status": status.native_status,
        "runtime": runtime,
        "resources": resources,
        "packages": [{"name": p.name, "version": p.version} for p in status.packages or []],
        "labels": dict(status.labels),
        "metrics": status.metrics,
        "metadata": status.metadata,
        "in_flight": status.in_flight,
    }
    data.update(status.model_extra or {})
    return data


def _flux_version(worker: WorkerResponse) -> str | None:
    for package in worker.packages:
        if package.name.lower() == "flux-core":
            return package.version
    return None


def _merge_detail(listed: WorkerResponse, detail: WorkerResponse | None) -> WorkerResponse:
    """Fill what ``GET /workers`` lost (after a server restart) from ``GET /workers/{name}``.

    The list's status is kept: it is the fleet-wide view; the detail endpoint's
    cache can lag behind it.
    """
    if detail is None:
        return listed
    merged = listed.model_copy()
    if not merged.labels and detail.labels:
        merged.labels = dict(detail.labels)
    if merged.runtime is None:
        merged.runtime = detail.runtime
    if merged.resources is None:
        merged.resources = detail.resources
    if not merged.packages and detail.packages:
        merged.packages = list(detail.packages)
    return merged


def as_utc(value: datetime | None) -> datetime | None:
    """Flux's SQLite stores naive UTC."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


ADMIN = {"active": AdminState.ACTIVE, "paused": AdminState.PAUSED, "draining": AdminState.DRAINING}


def _with_control(flux: FluxRecords, read: WorkerStatus, alias: str | None) -> WorkerStatus:
    """``read`` (changed in place) with the host alias it was read under and the admin and
    health state the worker's control socket gave there (``flux worker status`` knows of
    starvation before the server does)."""
    read.host_alias = alias
    control = control_status(flux, read.name, alias) if alias is not None else None
    if control is not None and control.status is not None:
        read.admin = ADMIN.get(control.status, read.admin)
        if control.healthy is not None:
            read.health = HealthState.HEALTHY if control.healthy else HealthState.UNHEALTHY
    return read


def _per_alias(flux: FluxRecords, status: WorkerStatus) -> list[WorkerStatus]:
    """``status`` as the control socket read it under each host alias that runs the worker.

    An inventory that lists a host twice collects it under two aliases, and each asked
    ``flux worker status``. Reading the first alias only made the inventory's order decide
    (active under h02, paused under h04: healthy one way, paused the other). Readings
    that agree are one record (at the first alias); readings that disagree are one record
    each, a worker listed twice whose records disagree (``WORKER_RECORDS_CONFLICT``),
    in the order of what they say.
    """
    aliases = [h.alias for h in flux.ctx.hosts if h.worker == status.name]
    if len(aliases) < 2:  # the fleet's usual case: one record, no copies
        return [_with_control(flux, status, aliases[0] if aliases else None)]
    read: dict[str, WorkerStatus] = {}
    for alias in aliases:
        record = _with_control(flux, status.model_copy(deep=True), alias)
        read.setdefault(record.model_dump_json(exclude={"source", "host_alias"}), record)
    return [read[said] for said in sorted(read)]


def workers_evidence(flux: FluxRecords) -> WorkersEvidence:
    records: list[WorkerStatus] = []
    for located in flux.workers:
        detail = flux.worker_details.get(located.value.name)
        status = to_canonical(_merge_detail(located.value, detail.value if detail else None))
        status.source = located.source
        status.host_alias = flux.raw.alias_of(status.name)
        db_row = flux.db_workers.get(status.name)
        if db_row is not None:
            seen = as_utc(db_row.value.last_seen_at)
            status.last_heartbeat_at = seen
            if seen is not None:
                # Measured when the row was read, not at the end of the whole collection.
                read_at = as_utc(db_row.value.read_at) or flux.ctx.observed_at
                status.heartbeat_age_s = round((read_at - seen).total_seconds(), 3)
            status.slots_max = db_row.value.max_concurrent_executions
        # Flux keeps the rows of workers that left (Worker observability: phantom workers):
        # offline and run by no host we were asked to collect, it is such a record.
        if status.connection is ConnectionState.OFFLINE and status.host_alias is None:
            status.departed = True
        records += _per_alias(flux, status)
    gaps = flux.failed("workers", "worker", "db-workers")
    # Workers the inventory runs but the server never registered (e.g. refused with 401) are
    # not "disconnected": nothing here can speak for them, so the list is incomplete and their
    # heartbeat reads unknown; the authorization document says why they are missing.
    # (Only when the list itself was read: a failed GET /workers already marks the gap.)
    if "workers" not in gaps:
        listed = {r.name for r in records}
        unlisted = [h.worker for h in flux.ctx.hosts if h.worker and h.worker not in listed]
        gaps += [f"registration:{name}" for name in unlisted]
    return WorkersEvidence(workers=records, complete=not gaps, gaps=sorted(set(gaps)))
