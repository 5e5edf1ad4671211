"""What a job asks of a worker, compared with what each worker offers.

Two questions, kept apart because the *Worker Recovery and Serviceability* guide
puts them on different rungs:

* **placement** — is the job *intended* for this worker (pinning, explicit
  assignment, worker group, labels/affinity, operating system)?
* **capacity** — does the worker *have* what the job needs right now
  (component capabilities, CPU, memory, GPUs, disk, a free slot)?

Each comparison yields :class:`Mismatch` records naming the exact unmatched
label or resource, so a finding can say "w2 lacks zone=mars (has zone=b)"
instead of "no match". A fact the evidence does not carry is *unknown*
(``certain=False``), never a silent match. Target selection uses the same
comparison to pick the best candidate worker for a waiting job.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schemas.evidence import (
    AdminState,
    ConnectionState,
    HealthState,
    JobRequirements,
    WorkerCapacity,
    WorkerStatus,
)

from ..plurals import counted
from . import codes


@dataclass(frozen=True)
class Mismatch:
    """One reason a worker does not fit a job, or cannot take it right now.

    Generic and product rules share this one record, so a reason reads the same
    whoever found it: ``wanted`` is the requirement as the job states it
    (``zone=mars``), ``detail`` what the worker has instead (``has zone=b``),
    ``field`` which requirement it concerns (``labels/zone``, ``resources/gpu``,
    ``slots``, ``connection``). ``message`` is the one phrase a finding quotes.
    """

    code: str
    field: str
    wanted: str
    detail: str
    message: str = ""
    """Defaults to "<wanted> wanted, <detail>"."""
    certain: bool = True
    """False when the worker's side is not in the evidence: unknown, never a silent match."""

    def __post_init__(self) -> None:
        if not self.message:
            text = f"{self.wanted} wanted, {self.detail}" if self.detail else self.wanted
            object.__setattr__(self, "message", text)


def placement_mismatches(req: JobRequirements, worker: WorkerStatus) -> list[Mismatch]:
    """Why ``worker`` is not where this job is meant to run (empty: it is)."""
    found: list[Mismatch] = []
    if req.required_worker and req.required_worker not in (worker.name, worker.id):
        found.append(
            Mismatch(
                "NOT_PINNED_WORKER",
                "required_worker",
                f"worker={req.required_worker}",
                "pinned elsewhere",
                message=f"pinned to {req.required_worker}",
            )
        )
    if req.intended_workers is not None and not {worker.name, worker.id} & set(
        req.intended_workers
    ):
        found.append(
            Mismatch(
                codes.NOT_INTENDED_FOR_WORKER,
                "intended_workers",
                "one of " + ", ".join(req.intended_workers),
                "not in the job's assignment",
                message="not in the job's assignment",
            )
        )
    if req.worker_group and worker.group != req.worker_group:
        group = worker.group or "none"
        found.append(
            Mismatch(
                "NOT_IN_WORKER_GROUP",
                "worker_group",
                f"group {req.worker_group}",
                f"worker is in {group}",
                certain=worker.group is not None,
            )
        )
    for key, wanted in sorted(req.labels.items()):
        label = worker.labels.get(key)
        if label != wanted:
            has = f"has {key}={label}" if label is not None else f"has no {key} label"
            found.append(Mismatch("LABEL_MISMATCH", f"labels/{key}", f"{key}={wanted}", has))
    if req.os:
        os_name = worker.runtime.os_name if worker.runtime else None
        if os_name is None or os_name.lower() != req.os.lower():
            found.append(
                Mismatch(
                    "OS_UNSUPPORTED",
                    "os",
                    f"os {req.os}",
                    f"worker runs {os_name or 'an unknown os'}",
                    certain=os_name is not None,
                )
            )
    return found


ADMIN_STATE_CODES = {
    AdminState.PAUSED: codes.WORKER_PAUSED,
    AdminState.DRAINING: codes.WORKER_DRAINING,
}
"""An operator's admin state that stops new work -> the code of a worker in it."""


def availability(worker: WorkerStatus) -> list[Mismatch]:
    """Why an otherwise matching worker cannot take new work now (empty: it can).

    A worker that is not connected is only that: its health and admin state are
    the last values it reported, not what it is now.
    """
    if worker.connection is not ConnectionState.ONLINE:
        state = worker.native_status or worker.connection.value
        return [
            Mismatch("WORKER_NOT_ONLINE", "connection", "connected worker", f"worker is {state}")
        ]
    found = []
    if worker.health is HealthState.UNHEALTHY:
        found.append(
            Mismatch(codes.WORKER_UNHEALTHY, "health", "healthy worker", "worker reports unhealthy")
        )
    if worker.admin in (AdminState.PAUSED, AdminState.DRAINING):
        state = worker.admin.value
        found.append(
            Mismatch(
                ADMIN_STATE_CODES[worker.admin], "admin", "active worker", f"worker is {state}"
            )
        )
    return found


def is_available(worker: WorkerStatus) -> bool:
    """Online, not self-reporting unhealthy, not paused or draining: can take new work."""
    return not availability(worker)


def capacity_shortfalls(
    req: JobRequirements | None, worker: WorkerStatus, capacity: WorkerCapacity | None
) -> list[Mismatch]:
    """What ``worker`` lacks right now for this job: capabilities, resources, a free slot."""
    found: list[Mismatch] = []
    if req is not None:
        found += _capabilities(req, worker)
        found += _resources(req, _offer(worker, capacity))
    slots = slot_usage(worker, capacity)
    if slots is not None and slots[1] > 0 and slots[0] >= slots[1]:
        full = f"{slots[1]} of {counted(slots[1], 'slot')} in use ({slots[0]} running)"
        found.append(Mismatch(codes.SLOTS_SATURATED, "slots", "a free slot", full, message=full))
    elif capacity is not None and capacity.slots_free is not None and capacity.slots_free <= 0:
        found.append(
            Mismatch(codes.SLOTS_SATURATED, "slots", "a free slot", "no free slot", "no free slot")
        )
    return found


def slot_usage(worker: WorkerStatus, capacity: WorkerCapacity | None) -> tuple[int, int] | None:
    """(in use, max) when both are known; max 0 means unlimited."""
    limit = capacity.slots_max if capacity and capacity.slots_max is not None else worker.slots_max
    used = capacity.slots_in_use if capacity and capacity.slots_in_use is not None else None
    if used is None:
        used = worker.in_flight
    if limit is None or used is None:
        return None
    return used, limit


def total_shortfalls(
    req: JobRequirements, worker: WorkerStatus, capacity: WorkerCapacity | None
) -> list[Mismatch]:
    """Resources the job requests beyond all the worker has (its total, not what is free).

    For a job already running on ``worker``: what is free excludes the job's own use, so
    only a request above the worker's total shows the worker cannot hold the job at all.
    """
    return _resources(req, _total(worker, capacity), "in total")


def capability_shortfalls(req: JobRequirements, worker: WorkerStatus) -> list[Mismatch]:
    """Component capabilities the job requires that ``worker`` does not offer."""
    return _capabilities(req, worker)


def _capabilities(req: JobRequirements, worker: WorkerStatus) -> list[Mismatch]:
    offered = worker.capabilities
    missing = [c for c in req.capabilities if c not in (offered or [])]
    if not missing:
        return []
    # None: no report of them (its request failed), so nothing is known to be missing. An
    # empty list is believed only beside the limited-capabilities flag (older bundles wrote []
    # for "not reported").
    known = offered is not None and (bool(offered) or worker.limited_capabilities is not None)
    why = " (worker runs with limited capabilities)" if worker.limited_capabilities else ""
    if offered is None:
        return [
            Mismatch(
                codes.CAPABILITY_MISSING,
                f"capabilities/{name}",
                f"capability {name}",
                "capabilities not reported",
                message=f"whether it offers capability {name} is unknown: the bundle has no "
                "report of its capabilities",
                certain=False,
            )
            for name in missing
        ]
    return [
        Mismatch(
            codes.CAPABILITY_MISSING,
            f"capabilities/{name}",
            f"capability {name}",
            f"not offered{why}",
            message=f"capability {name} not offered{why}",
            certain=known,
        )
        for name in missing
    ]


@dataclass(frozen=True)
class _Offer:
    cpu: float | None = None
    memory: float | None = None
    disk: float | None = None
    gpus: int | None = None
    source: dict[str, str] = field(default_factory=dict)


def _offer(worker: WorkerStatus, capacity: WorkerCapacity | None) -> _Offer:
    res = worker.resources
    cpu = capacity.cpu_available if capacity and capacity.cpu_available is not None else None
    mem = capacity.memory_available_bytes if capacity else None
    disk = capacity.disk_free_bytes if capacity else None
    gpus = capacity.gpus if capacity else None
    if res is not None:
        cpu = cpu if cpu is not None else _first(res.cpu_available, res.cpu_total)
        mem = mem if mem is not None else _first(res.memory_available_bytes, res.memory_total_bytes)
        disk = disk if disk is not None else res.disk_free_bytes
        gpus = gpus if gpus is not None else (len(res.gpus) if res.gpus is not None else None)
    return _Offer(cpu=cpu, memory=mem, disk=disk, gpus=gpus)


def _total(worker: WorkerStatus, capacity: WorkerCapacity | None) -> _Offer:
    res = worker.resources
    cpu = capacity.cpu_cores if capacity else None
    mem = capacity.memory_total_bytes if capacity else None
    gpus = capacity.gpus if capacity else None
    disk = None
    if res is not None:
        cpu = cpu if cpu is not None else res.cpu_total
        mem = mem if mem is not None else res.memory_total_bytes
        disk = res.disk_total_bytes
        gpus = gpus if gpus is not None else (len(res.gpus) if res.gpus is not None else None)
    return _Offer(cpu=cpu, memory=mem, disk=disk, gpus=gpus)


def _first(*values: float | None) -> float | None:
    return next((v for v in values if v is not None), None)


def _resources(req: JobRequirements, offer: _Offer, measure: str = "available") -> list[Mismatch]:
    wanted = req.resources
    if wanted is None:
        return []
    checks = (
        (codes.CPU_INSUFFICIENT, "cpu", wanted.cpu, offer.cpu, _plain),
        (codes.MEMORY_INSUFFICIENT, "memory", wanted.memory_bytes, offer.memory, human_bytes),
        (codes.GPU_INSUFFICIENT, "gpu", wanted.gpu, offer.gpus, _plain),
        (codes.DISK_INSUFFICIENT, "disk", wanted.disk_bytes, offer.disk, human_bytes),
    )
    found = []
    for code, name, need, have, fmt in checks:
        if need is None or need <= 0:
            continue
        if have is None:
            found.append(
                Mismatch(
                    code,
                    f"resources/{name}",
                    f"{name} {fmt(need)} requested",
                    f"worker's {name} unknown",
                    message=f"{name} {fmt(need)} requested, worker's {name} unknown",
                    certain=False,
                )
            )
        elif have < need:
            found.append(
                Mismatch(
                    code,
                    f"resources/{name}",
                    f"{name} {fmt(need)} requested",
                    f"{fmt(have)} {measure}",
                    message=f"{name} {fmt(need)} requested, {fmt(have)} {measure}",
                )
            )
    return found


def _plain(value: float) -> str:
    return f"{value:g}"


def human_bytes(value: float) -> str:
    """1536 -> '1.5 KiB'."""
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(size) < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TiB"  # pragma: no cover


@dataclass(frozen=True)
class Candidate:
    worker: WorkerStatus
    placement: list[Mismatch]
    capacity: list[Mismatch]

    @property
    def intended(self) -> bool:
        return not any(m.certain for m in self.placement)

    def rank(self) -> tuple[int, int, int, int]:
        """Lower is better: intended, available, fits, fewest unknowns."""
        return (
            0 if self.intended else 1,
            0 if is_available(self.worker) else 1,
            len([m for m in self.capacity if m.certain]),
            len(self.placement) + len(self.capacity),
        )


def rank_candidates(
    req: JobRequirements | None,
    fleet: list[WorkerStatus],
    capacities: dict[str, WorkerCapacity],
) -> list[Candidate]:
    """Every worker compared with the job, best first (stable for equal ranks)."""
    empty = JobRequirements()
    ranked = [
        Candidate(
            worker=w,
            placement=placement_mismatches(req or empty, w),
            capacity=capacity_shortfalls(req, w, capacities.get(w.name)),
        )
        for w in fleet
    ]
    return sorted(ranked, key=Candidate.rank)
