"""Layer 1: workers and their heartbeat, plus the heartbeat policy they are judged by.

The policy comes from the server's effective settings when it publishes them,
else from the per-worker status, else LyftData's documented default poll
interval (15 s [S]) with our inferred grace (45 s [I]).
"""

from __future__ import annotations

from datetime import datetime

from schemas.evidence import (
    ConnectionState,
    HeartbeatPolicy,
    WorkerResources,
    WorkerRuntime,
    WorkersEvidence,
    WorkerStatus,
)

from ...base import StepResult
from ...raw import RawReader
from ..raw import EffectiveSettings, WorkerStatusRaw, WorkerSummary, WorkerSysinfo
from .host_files import service_metadata
from .reading import gaps, labels_dict, settle_gaps, utc

DEFAULT_POLL_INTERVAL_S = 15.0
"""LYFTDATA_WORKER_POLL_INTERVAL default [S]."""
DEFAULT_GRACE_S = 45.0
"""Our inferred grace before a silent worker is offline [I]."""

_CONNECTION = {
    "online": ConnectionState.ONLINE,
    "stale": ConnectionState.STALE,
    "offline": ConnectionState.OFFLINE,
    "lost": ConnectionState.LOST,
    "never_connected": ConnectionState.NEVER_CONNECTED,
    "never connected": ConnectionState.NEVER_CONNECTED,
    "removed": ConnectionState.REMOVED,
}


def connection_state(native: str | None) -> ConnectionState:
    """LyftData's word (the UI says 'Online' [S]) as the canonical connection state."""
    return _CONNECTION.get((native or "").strip().lower(), ConnectionState.UNKNOWN)


def heartbeat_policy(reader: RawReader) -> HeartbeatPolicy:
    """Stale after two silent poll intervals, offline after interval + grace."""
    settings = reader.first("settings", EffectiveSettings)
    model = settings.value if settings else None
    interval = model.worker_poll_interval_s if model else None
    grace = model.worker_heartbeat_grace_s if model else None
    source = "settings" if interval is not None else "default"
    if interval is None:
        first_status = reader.first("worker-status", WorkerStatusRaw)
        status = first_status.value if first_status else None
        interval = status.heartbeat_interval_s if status else None
        grace = status.heartbeat_grace_s if status and grace is None else grace
        source = "settings" if interval is not None else "default"
    interval = interval or DEFAULT_POLL_INTERVAL_S
    grace = grace if grace is not None else DEFAULT_GRACE_S
    return HeartbeatPolicy(
        interval_s=interval,
        timeout_s=2 * interval,
        grace_s=max(0.0, interval + grace - 2 * interval),
        source=source,  # type: ignore[arg-type]
    )


def _by_worker(reader: RawReader, step: str) -> dict[str, StepResult]:
    """Each worker's answer to a fan-out step (by its bound id), if it holds a document."""
    return {
        r.bound.get("id", ""): r for r in reader.results(step) if reader.document(r) is not None
    }


def _age(last: datetime | None, observed_at: datetime, reported: float | None) -> float | None:
    if last is None:
        return reported
    return round((observed_at - last).total_seconds(), 3)  # negative: clocks disagree


def _contested(summaries: list[WorkerSummary]) -> set[str]:
    """Ids the worker list names more than once with entries that disagree.

    The per-worker status answers once per id, so letting it overwrite every
    entry would make two contradicting entries (one ``online``, one ``offline``)
    read as one agreeing worker, and hide the contradiction from the analyzer,
    which judges duplicate records (``WORKER_RECORDS_CONFLICT``). Such entries
    keep their own state, heartbeat time, version and citation.
    """
    seen: dict[str, set[str]] = {}
    for summary in summaries:
        seen.setdefault(summary.id, set()).add(summary.model_dump_json())
    return {worker_id for worker_id, forms in seen.items() if len(forms) > 1}


def normalize_workers(reader: RawReader) -> WorkersEvidence:
    ctx = reader.ctx
    listing = next(iter(_by_worker(reader, "workers").values()), None)
    statuses = _by_worker(reader, "worker-status")
    sysinfos = _by_worker(reader, "worker-sysinfo")
    doc = WorkersEvidence(
        product="lyftdata",
        observed_at=ctx.observed_at,
        heartbeat=heartbeat_policy(reader),
        gaps=gaps(reader, "workers", "worker-status", "worker-sysinfo"),
    )
    doc.complete = listing is not None and not doc.gaps
    entries = list(reader.listed("workers", WorkerSummary))
    contested = _contested([e.value for e in entries])
    for listed in entries:
        summary = listed.value
        record = WorkerStatus(
            name=summary.name or summary.id,
            id=summary.id,
            native_status=summary.state,
            connection=connection_state(summary.state),
            kind=summary.kind if summary.kind in ("builtin", "external") else None,  # type: ignore[arg-type]
            group=summary.group,
            labels=labels_dict(summary.labels),
            limited_capabilities=summary.limit_job_capabilities,
            version=summary.version,
            last_heartbeat_at=utc(summary.last_heartbeat_at),
            host_alias=reader.alias_of(summary.id),
            source=listed.source(),
        )
        status_fetch = statuses.get(summary.id)
        status = reader.model(status_fetch, WorkerStatusRaw) if status_fetch else None
        if status_fetch is not None and status is not None:
            if summary.id not in contested:
                record.native_status = status.state
                record.connection = connection_state(status.state)
                record.last_heartbeat_at = utc(status.last_heartbeat_at) or record.last_heartbeat_at
                record.version = status.version or record.version
                record.source = reader.source(status_fetch)
            record.first_seen_at = utc(status.first_seen_at)
            record.capabilities = list(status.capabilities)
            record.in_flight = status.jobs_running
        answered_by = status_fetch or listing
        answered = answered_by.finished_at if answered_by else None
        record.heartbeat_age_s = _age(
            record.last_heartbeat_at,
            answered or ctx.observed_at,
            status.heartbeat_age_s if status else None,
        )
        sysinfo_fetch = sysinfos.get(summary.id)
        sysinfo = reader.model(sysinfo_fetch, WorkerSysinfo) if sysinfo_fetch else None
        if sysinfo is not None:
            record.runtime = WorkerRuntime(
                os_name=sysinfo.os, os_version=sysinfo.os_version, arch=sysinfo.arch
            )
            record.resources = WorkerResources(
                cpu_total=sysinfo.cpu_cores,
                memory_total_bytes=sysinfo.memory_total_bytes,
                memory_available_bytes=sysinfo.memory_available_bytes,
                disk_free_bytes=sysinfo.jobs_dir_disk_free_bytes,
            )
        metadata = service_metadata(reader, record.host_alias)
        if metadata:
            record.metadata = metadata
        doc.workers.append(record)
    settle_gaps(doc, reader, "workers", "worker-status", "worker-sysinfo")
    return doc
