"""A hand-made fleet of hundreds of workers with a few kinds of trouble, for overview tests.

Built from :mod:`tests.support.evidence` (canonical evidence only), so the
overview and its grouping are tested at scale without a control plane:
``big_fleet(500)`` has most workers offline (evicted over a few minutes),
some unhealthy, some paused, some listed online with a stale heartbeat, a
label group nothing runs on, and the rest healthy; jobs wait on the
offline and the paused ones.
"""

from __future__ import annotations

from datetime import timedelta

from schemas.evidence import ConnectionState, JobPhase, JobRequirements, WorkerAuthorization

from .evidence import T0, Fleet, healthy_fleet, job, lease, worker

SHARES = (
    ("offline", 0.624),
    ("unhealthy", 0.08),
    ("paused", 0.056),
    ("stale", 0.04),
)
"""Share of the fleet in each kind of trouble (at 500: 312, 40, 28, 20); the rest is healthy."""


def big_fleet(size: int, *, everything_failing: bool = False) -> Fleet:
    """``size`` workers ``w0001``... in the proportions of :data:`SHARES`.

    ``everything_failing`` leaves no healthy worker: the remainder is offline too.
    """
    fleet = healthy_fleet()
    assert fleet.workers is not None
    assert fleet.jobs is not None
    assert fleet.authorization is not None
    counts = {kind: round(size * share) for kind, share in SHARES}
    kinds = [kind for kind, n in counts.items() for _ in range(n)]
    kinds += ["offline" if everything_failing else "healthy"] * (size - len(kinds))
    workers = []
    for number, kind in enumerate(kinds, start=1):
        name = f"w{number:04d}"
        zone = "a" if number % 2 else "b"
        workers.append(_worker(name, kind, zone, number))
    fleet.workers.workers = workers
    fleet.authorization.workers = [
        WorkerAuthorization(
            worker=w.name, bootstrap_method="api_key", decision="allow", lease=lease()
        )
        for w in workers
    ]
    fleet.jobs.jobs = [_job(w.name, i) for i, w in enumerate(workers) if i % 10 == 0]
    fleet.deployments = None
    fleet.requirements = None
    fleet.capacity = None
    fleet.outcome = None
    return fleet


def _worker(name: str, kind: str, zone: str, number: int):  # type: ignore[no-untyped-def]
    seen = T0 - timedelta(seconds=5)
    if kind == "offline":
        seen = T0 - timedelta(minutes=12, seconds=number % 180)
        return worker(
            name,
            connection=ConnectionState.OFFLINE,
            native_status="offline",
            labels={"zone": zone},
            last_heartbeat_at=seen,
            heartbeat_age_s=(T0 - seen).total_seconds(),
        )
    if kind == "unhealthy":
        return worker(name, health="unhealthy", labels={"zone": zone, "pool": "cpu"}, in_flight=2)
    if kind == "paused":
        return worker(name, admin="paused", native_status="paused", labels={"zone": zone})
    if kind == "stale":
        seen = T0 - timedelta(seconds=90)
        return worker(name, labels={"zone": zone}, last_heartbeat_at=seen, heartbeat_age_s=90.0)
    return worker(name, labels={"zone": zone}, in_flight=1)


def _job(name: str, index: int):  # type: ignore[no-untyped-def]
    return job(
        f"ingest-{index:04d}",
        id=f"e{index:04d}",
        phase=JobPhase.RUNNING,
        native_state="RUNNING",
        assigned_worker=name,
        requirements=JobRequirements(labels={}),
        updated_at=T0 - timedelta(minutes=1),
    )
