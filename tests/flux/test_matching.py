"""Flux's dispatch eligibility, as the placement evidence and rules apply it."""

from __future__ import annotations

import pytest

from bundler.products.flux.matching import availability, memory_bytes, mismatches
from schemas.evidence import (
    GPU,
    AdminState,
    ConnectionState,
    HealthState,
    JobRequirements,
    Package,
    ResourceRequest,
    WorkerResources,
    WorkerStatus,
)


def worker(**overrides) -> WorkerStatus:
    fields = {
        "name": "w1",
        "native_status": "online",
        "connection": ConnectionState.ONLINE,
        "health": HealthState.HEALTHY,
        "admin": AdminState.ACTIVE,
        "labels": {"zone": "a", "tier": "gold"},
        "resources": WorkerResources(
            cpu_total=4, cpu_available=2, memory_available_bytes=8 * 1024**3,
            disk_free_bytes=10**11, gpus=[],
        ),
        "packages": [Package(name="numpy", version="2.1.3")],
    } | overrides  # fmt: skip
    return WorkerStatus(**fields)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("4Gi", 4 * 1024**3), ("512M", 512 * 1024**2), (1024, 1024), ("2048", 2048), (None, None)],
)
def test_memory_notation(value, expected):
    assert memory_bytes(value) == expected


def test_labels_must_all_match_and_say_what_the_worker_has():
    (miss,) = mismatches(JobRequirements(labels={"zone": "mars", "tier": "gold"}), worker())
    assert (miss.code, miss.wanted, miss.detail) == (
        "LABEL_MISMATCH",
        "zone=mars",
        "worker has zone=a",
    )
    (absent,) = mismatches(JobRequirements(labels={"gpu": "true"}), worker())
    assert absent.detail == "worker has no gpu label"
    assert mismatches(JobRequirements(labels={"zone": "a"}), worker()) == []


def test_resources_are_compared_with_what_is_available():
    wanted = JobRequirements(
        resources=ResourceRequest(cpu=3, memory_bytes=16 * 1024**3, gpu=1, disk_bytes=10**12)
    )
    codes = sorted(m.code for m in mismatches(wanted, worker()))
    assert codes == [
        "CPU_INSUFFICIENT",
        "DISK_INSUFFICIENT",
        "GPU_INSUFFICIENT",
        "MEMORY_INSUFFICIENT",
    ]
    small = JobRequirements(resources=ResourceRequest(cpu=2, memory_bytes=1024))
    assert mismatches(small, worker()) == []


def test_a_gpu_with_unreadable_memory_counts_but_an_exhausted_one_does_not():
    wanted = JobRequirements(resources=ResourceRequest(gpu=1))
    unified = worker(resources=WorkerResources(gpus=[GPU(name="GH200", memory_available=None)]))
    full = worker(resources=WorkerResources(gpus=[GPU(name="A100", memory_available=0)]))
    assert mismatches(wanted, unified) == []
    assert [m.code for m in mismatches(wanted, full)] == ["GPU_INSUFFICIENT"]


@pytest.mark.parametrize(
    ("spec", "ok"),
    [("numpy", True), ("NumPy>=2.0", True), ("numpy>=2.2", False), ("numpy==2.1.3", True),
     ("numpy==2.1", False), ("pandas", False)],
)  # fmt: skip
def test_package_requirements(spec, ok):
    wanted = JobRequirements(resources=ResourceRequest(other={"packages": [spec]}))
    assert (mismatches(wanted, worker()) == []) is ok


def test_a_pin_to_another_worker_excludes_this_one():
    (miss,) = mismatches(JobRequirements(required_worker="w2"), worker())
    assert miss.code == "NOT_PINNED_WORKER"
    assert mismatches(JobRequirements(required_worker="w1"), worker()) == []


def test_availability_is_the_shared_one_in_fluxs_words():
    assert availability(worker()) == []
    offline = availability(worker(connection=ConnectionState.OFFLINE, native_status="offline"))
    assert [(m.code, m.detail) for m in offline] == [("WORKER_NOT_ONLINE", "worker is offline")]
    sick = availability(worker(health=HealthState.UNHEALTHY, admin=AdminState.PAUSED))
    assert [m.code for m in sick] == ["WORKER_UNHEALTHY", "WORKER_PAUSED"]
    assert sick[0].detail == "worker reports event-loop starvation"
