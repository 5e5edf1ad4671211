"""Layer 6: measured worker capacity against the job's needs, with LyftData's scale thresholds.

Metrics collection is off by default for new workers [S]; such a worker's
capacity is recorded as unmeasured (``limits.metrics_enabled = false``), never as zero.
"""

from __future__ import annotations

from schemas.evidence import CapacityEvidence, WorkerCapacity

from ...raw import RawReader
from ..raw import WorkerCapacityRaw, WorkerStatusRaw
from .reading import absent, gaps, settle_gaps

DEFAULT_THRESHOLDS = {
    "cpu_pct": 80.0,
    "mem_pct": 85.0,
    "queue_pending": 100.0,
    "error_retry_pct": 5.0,
}
"""LyftData's documented scale signals [S]."""


def normalize_capacity(reader: RawReader) -> CapacityEvidence:
    doc = CapacityEvidence(
        product="lyftdata",
        observed_at=reader.ctx.observed_at,
        thresholds=dict(DEFAULT_THRESHOLDS),
        gaps=gaps(reader, "worker-capacity") + absent(reader, "worker-capacity"),
    )
    doc.complete = not doc.gaps
    for fetch in reader.items("worker-capacity", WorkerCapacityRaw):
        raw = fetch.value
        if raw.thresholds:
            doc.thresholds.update(raw.thresholds)
        limits: dict[str, object] = dict(raw.limits)
        if raw.metrics_enabled is False:
            # before the record is built: pydantic copies the dict it is given
            limits["metrics_enabled"] = False
        record = WorkerCapacity(worker=raw.worker_id, limits=limits, source=fetch.source())
        res = raw.resources
        if res is not None and raw.metrics_enabled is not False:
            record.cpu_cores = res.cpu_cores
            record.cpu_util_pct = res.cpu_util_pct
            if res.cpu_cores is not None and res.cpu_util_pct is not None:
                record.cpu_available = round(res.cpu_cores * (1 - res.cpu_util_pct / 100), 3)
            record.memory_total_bytes = res.memory_total_bytes
            record.memory_available_bytes = res.memory_available_bytes
            record.disk_free_bytes = res.jobs_dir_disk_free_bytes
        if raw.load is not None:
            record.jobs_assigned = raw.load.jobs_assigned
            record.jobs_running = raw.load.jobs_running
            record.queue_pending = raw.load.queue_pending
            record.backpressure = raw.load.backpressure
        doc.workers.append(record)
    _capabilities_into_limits(reader, doc)
    settle_gaps(doc, reader, "worker-capacity")
    return doc


def _capabilities_into_limits(reader: RawReader, doc: CapacityEvidence) -> None:
    """Advertised component capabilities (the capacity question's second half) per worker."""
    by_worker = {w.worker: w for w in doc.workers}
    for fetch in reader.items("worker-status", WorkerStatusRaw):
        status = fetch.value
        if status.id in by_worker:
            by_worker[status.id].limits["capabilities"] = list(status.capabilities)
