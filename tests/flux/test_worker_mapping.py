"""Flux's WorkerResponse maps onto the canonical WorkerStatus and back without loss."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bundler.products.flux.models import WorkerResponse
from bundler.products.flux.normalize import from_canonical, to_canonical
from schemas.evidence import AdminState, ConnectionState, HealthState, WorkerStatus
from tests.support.shared import shared_path

DATA = Path(__file__).with_name("data")
CAPTURED = json.loads((DATA / "workers.json").read_text())
"""GET /workers from a lab (two workers, one running an execution; packages trimmed)."""

EDGE_CASES = [
    # After a server restart, GET /workers knows only the DB row (flux-observed §7f).
    {"name": "w1", "status": "online", "runtime": None, "resources": None, "packages": [],
     "labels": {}, "metrics": None, "metadata": None, "in_flight": None},
    # A GPU whose memory the driver cannot read, admin metadata, unhealthy, paused, offline.
    {"name": "gpu-1", "status": "unhealthy",
     "runtime": {"os_name": "Linux", "os_version": "6.6", "python_version": "3.12.1"},
     "resources": {"cpu_total": 16.0, "cpu_available": 14.0, "memory_total": 3.3e10,
                   "memory_available": 2.1e10, "disk_total": 5.1e11, "disk_free": 2e11,
                   "gpus": [{"name": "GH200", "memory_total": None, "memory_available": None}]},
     "packages": [{"name": "numpy", "version": "2.1.3"}], "labels": {"gpu": "true"},
     "metrics": {"flux.slots_free": 3.0}, "metadata": {"rack": "r7", "weight": 0.5},
     "in_flight": 13},
    {"name": "p", "status": "paused", "runtime": None, "resources": None, "packages": [],
     "labels": {"zone": "b"}, "metrics": None, "metadata": None, "in_flight": 0},
    {"name": "gone", "status": "offline", "runtime": None, "resources": None, "packages": [],
     "labels": {}, "metrics": None, "metadata": None, "in_flight": None},
    # A field a newer Flux might add rides along untouched.
    {"name": "future", "status": "online", "runtime": None, "resources": None, "packages": [],
     "labels": {}, "metrics": None, "metadata": None, "in_flight": None,
     "capacity": {"slots": 4}},
]  # fmt: skip


@pytest.mark.parametrize("record", CAPTURED + EDGE_CASES, ids=lambda r: r["name"])
def test_round_trip_is_lossless(record):
    canonical = to_canonical(WorkerResponse.model_validate(record))
    # Through JSON, as it is stored in evidence/workers.json and read back.
    stored = WorkerStatus.model_validate_json(canonical.model_dump_json())
    assert from_canonical(stored) == record


def test_status_words_map_to_connection_health_and_admin():
    states = {
        r["name"]: to_canonical(WorkerResponse.model_validate(r))
        for r in EDGE_CASES
        if r["name"] in ("gpu-1", "p", "gone")
    }
    assert (states["gpu-1"].connection, states["gpu-1"].health) == (
        ConnectionState.ONLINE,
        HealthState.UNHEALTHY,
    )
    assert (states["p"].connection, states["p"].admin) == (
        ConnectionState.ONLINE,
        AdminState.PAUSED,
    )
    assert states["gone"].connection is ConnectionState.OFFLINE
    assert {s.native_status for s in states.values()} == {"unhealthy", "paused", "offline"}


def test_canonical_fields_carry_flux_meaning():
    busy = to_canonical(WorkerResponse.model_validate(CAPTURED[0]))
    assert busy.version == "0.87.5"
    assert busy.in_flight == 1
    assert busy.metrics is not None
    assert busy.metrics["flux.slots_free"] == 15.0
    assert busy.runtime is not None
    assert (busy.runtime.runtime_name, busy.runtime.runtime_version) == ("python", "3.12.1")
    assert busy.resources is not None
    assert busy.resources.memory_total_bytes == CAPTURED[0]["resources"]["memory_total"]


def _reference_records() -> list[dict]:
    """Every WorkerResponse in the shared Flux captures (CI has them at ../shared)."""
    captures = shared_path("reference", "flux-captures")
    found = []
    for path in sorted(captures.glob("*/GET_workers*.json")) if captures else []:
        data = json.loads(path.read_text())
        for record in data if isinstance(data, list) else [data]:
            if isinstance(record.get("packages"), str):  # "<110 entries elided>" by hand
                record["packages"] = []
            found.append(pytest.param(record, id=f"{path.parent.name}/{record['name']}"))
    return found


@pytest.mark.parametrize(
    "record",
    _reference_records()
    or [pytest.param(None, marks=pytest.mark.skip(reason="no shared captures"))],
)
def test_round_trip_of_the_shared_captures(record):
    canonical = to_canonical(WorkerResponse.model_validate(record))
    assert from_canonical(WorkerStatus.model_validate_json(canonical.model_dump_json())) == record


def test_a_fleets_equal_packages_are_one_instance_and_read_back_unchanged() -> None:
    from bundler.products.flux.models import WorkerResponse
    from bundler.products.flux.normalize.workers import to_canonical

    packages = [{"name": "flux-core", "version": "0.87.0"}, {"name": "httpx", "version": "0.28"}]
    odd = [{"name": "flux-core", "version": "0.87.0", "origin": "wheel"}]  # an unknown field
    raw = [{"name": f"w{i}", "status": "online", "packages": packages} for i in range(3)]
    raw.append({"name": "w9", "status": "online", "packages": odd})
    workers = [WorkerResponse.model_validate(item) for item in raw]
    assert workers[0].packages[0] is workers[1].packages[0] is workers[2].packages[0]
    assert workers[3].packages[0] is not workers[0].packages[0]  # its own, extras kept
    assert [w.model_dump(exclude_defaults=True) for w in workers] == raw
    canonical = [to_canonical(w) for w in workers]
    assert canonical[0].packages is not None
    assert canonical[1].packages is not None
    assert canonical[0].packages[1] is canonical[1].packages[1]
    assert [p.model_dump() for p in canonical[0].packages] == packages
    assert canonical[0].version == "0.87.0"
