"""A 200-worker Flux fleet: a real Flux server, the worker emulator, two real workers, faults.

One fleet for the module (starting it is the expensive part): the emulated
workers are first compared with the real ones field by field, as the server
reports them, then doctor and analyze run over the whole fleet and must name
the faults the fleet carries, grouped, not one line per healthy worker.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from samples.flux_fleet.fleet import FluxFleet
from samples.flux_fleet.postgres import PostgresUnavailable, driver_path
from samples.flux_fleet.spec import FleetSpec, Role
from schemas import AnalysisReport, LayerStatus
from tests.support.flux import BUNDLE_PASSWORD_ENV, extract, run_bundler
from tests.support.requirements import need, need_executable

pytestmark = [pytest.mark.flux, pytest.mark.timeout(900)]
"""The fleet takes ~1 minute to come up on a quiet two-core machine, minutes on a busy one."""

SPEC = FleetSpec(workers=200, evicted=2, unhealthy=2, saturated=2, silent_after_pongs=0)
REAL_WORKERS = 2


@pytest.fixture(scope="module")
def fleet(flux_install: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FluxFleet]:
    need_executable("initdb", "/usr/lib/postgresql/15/bin")
    try:
        driver_path()
    except PostgresUnavailable as exc:
        need(False, str(exc))
    with FluxFleet(
        SPEC, real_workers=REAL_WORKERS, root=tmp_path_factory.mktemp("fleet")
    ) as running:
        running.start_waiting_executions()
        running.wait_for_faults()
        yield running


def _shape(value: Any) -> Any:
    """Field names and JSON types, recursively (list items by their first element)."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    return type(value).__name__


def test_emulated_workers_answer_like_real_ones(fleet: FluxFleet) -> None:
    workers = {w["name"]: w for w in fleet.workers()}
    real = [workers[f"real{i}"] for i in range(REAL_WORKERS)]
    healthy = [workers[name] for name in SPEC.names(Role.HEALTHY)[:20]]
    assert {w["status"] for w in real + healthy} == {"online"}
    reference = _shape(real[0]) | {"packages": None}
    for worker in healthy:
        assert _shape(worker) | {"packages": None} == reference, worker["name"]
        assert _shape(worker["packages"]) == _shape(real[0]["packages"])
    idle = [w for w in healthy if not w["in_flight"]]
    assert idle
    assert all(set(w["metrics"]) == set(real[0]["metrics"]) for w in idle)
    one_real = fleet.get_json("/workers/real0")
    one_emulated = fleet.get_json(f"/workers/{healthy[0]['name']}")
    assert _shape(one_emulated) | {"packages": None} == _shape(one_real) | {"packages": None}


def test_faults_show_in_the_server_as_a_real_fleet_would(fleet: FluxFleet) -> None:
    workers = {w["name"]: w for w in fleet.workers()}
    assert len(workers) == SPEC.workers + REAL_WORKERS
    assert {workers[n]["status"] for n in SPEC.names(Role.EVICTED)} == {"offline"}
    assert {workers[n]["status"] for n in SPEC.names(Role.UNHEALTHY)} == {"unhealthy"}
    for name in SPEC.names(Role.SATURATED):
        assert workers[name]["in_flight"] == 1, workers[name]
        assert workers[name]["labels"]["zone"] == "c"


def test_doctor_and_analyze_name_the_faults_of_200_workers(
    fleet: FluxFleet, tmp_path: Path
) -> None:
    bundle = tmp_path / "fleet.zip"
    doctor = run_bundler(
        "doctor", "--profile", "flux", "--server", fleet.url, "--api-concurrency", "4",
        "--bundle", str(bundle), "--password-env", BUNDLE_PASSWORD_ENV,
    )  # fmt: skip
    assert doctor.returncode == 1, doctor.stderr[-3000:]
    analyzed = run_bundler(
        "analyze", str(bundle), "--format", "json", "--password-env", BUNDLE_PASSWORD_ENV
    )
    assert analyzed.returncode == 1, analyzed.stderr[-2000:]
    report = AnalysisReport.model_validate(json.loads(analyzed.stdout))
    assert report.first_failed_layer is not None
    assert report.first_failed_layer.value == "heartbeat"
    failed = {
        (lr.name.value, f.code)
        for t in report.targets
        for lr in t.layers
        if lr.status is LayerStatus.FAIL
        for f in lr.findings
    }
    assert ("heartbeat", "FLUX_WORKER_UNHEALTHY") in failed
    assert ("placement", "FLUX_NO_ELIGIBLE_WORKER") in failed  # zone=mars: nobody has it
    assert ("capacity", "FLUX_SLOTS_SATURATED") in failed  # zone=c: every slot held
    overview = json.loads(analyzed.stdout)["fleet"]
    assert overview["workers_total"] == SPEC.workers + REAL_WORKERS
    assert overview["by_status"]["offline"] == len(SPEC.names(Role.EVICTED))
    blocked = {w["name"] for w in overview["workers"] if w["verdict"] == "blocked"}
    assert set(SPEC.names(Role.UNHEALTHY)) <= blocked

    text = run_bundler("analyze", str(bundle), "--password-env", BUNDLE_PASSWORD_ENV).stdout
    overview_lines = text.split("Fleet overview", 1)[1].split("Targets", 1)[0].splitlines()
    assert f"{SPEC.workers + REAL_WORKERS} workers" in overview_lines[0]
    assert len(overview_lines) < 20, "the overview groups workers, it does not list them"
    for name in SPEC.names(Role.UNHEALTHY):
        assert name in "\n".join(overview_lines)

    manifest = json.loads((extract(bundle, tmp_path / "x") / "manifest.json").read_text())
    api = manifest["options"]["api"]
    assert api["max_concurrent_requests"] == 4
    assert 1 <= api["peak_concurrent_requests"] <= 4
    fanout = api["fanouts"]["worker"]
    assert fanout["items"] == fanout["fetched"] == SPEC.workers + REAL_WORKERS
    assert api["requests"] >= fanout["fetched"]
