"""The server's PostgreSQL stopped under a running Flux server, read by doctor and analyze.

Flux keeps answering: ``GET /health`` and ``GET /ready`` say 503 with ``"database":
false``, every route that reads state answers 500, and the log fills with
``(psycopg.OperationalError)`` lines. The server rung must blame the database (never
read healthy, never a bare "not healthy"), cite Flux's own answer and a log line, and
the doctor's live verdict must say the same (its normalizer once failed on a server log
grown past 1 MiB). Once PostgreSQL is back the server recovers by itself, without a
restart: the recovery text says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from samples.flux_fleet.postgres import Postgres, PostgresUnavailable, driver_path
from samples.flux_lab import LabConfig, faults
from schemas import AnalysisReport, Layer, LayerResult, LayerStatus
from tests.support.flux import LabFactory, analyze_json, collect_bundle
from tests.support.requirements import need, need_executable

pytestmark = pytest.mark.flux


@pytest.fixture
def postgres() -> Iterator[Postgres]:
    need_executable("initdb", "/usr/lib/postgresql/15/bin")
    try:
        driver_path()
    except PostgresUnavailable as exc:
        need(False, str(exc))
    with Postgres() as database:
        yield database


def _server_env(postgres: Postgres, **extra: str) -> dict[str, str]:
    """The Flux server's environment for a lab on ``postgres`` (plus ``extra`` settings)."""
    return {"FLUX_DATABASE_URL": postgres.url, "PYTHONPATH": str(driver_path()), **extra}


def _heartbeat_rungs(report: AnalysisReport) -> list[LayerResult]:
    return [
        layer
        for target in report.targets
        if target.worker in ("w1", "w2")
        for layer in target.layers
        if layer.name is Layer.HEARTBEAT
    ]


def _server_rung(report: AnalysisReport) -> list[tuple[LayerStatus, list[str]]]:
    return [
        (layer.status, [f.code for f in layer.findings])
        for target in report.targets
        for layer in target.layers
        if layer.name is Layer.SERVER
    ]


def test_a_database_down_under_the_server_is_blamed_at_the_server_rung(
    flux_lab_factory: LabFactory, postgres: Postgres, tmp_path: Path
) -> None:
    lab = flux_lab_factory(LabConfig(server_env=_server_env(postgres)))
    assert lab.api.run_to_end("hello_world", "before")["state"] == "COMPLETED"
    faults.database_down(lab, postgres)
    folder = collect_bundle(lab, tmp_path)

    report = analyze_json(tmp_path / "flux.zip", expect_rc=1)
    assert report.verdict.value == "blocked"
    assert report.first_failed_layer is Layer.SERVER
    rungs = _server_rung(report)
    assert rungs
    assert {status for status, _ in rungs} == {LayerStatus.FAIL}
    assert all("FLUX_DATABASE_UNAVAILABLE" in codes for _, codes in rungs), rungs
    (finding, *_) = [
        f
        for t in report.targets
        for layer in t.layers
        for f in layer.findings
        if f.code == "FLUX_DATABASE_UNAVAILABLE"
    ]
    assert '"database": false' in finding.message
    assert "psycopg.OperationalError" in finding.message
    cited = " ".join(f"{c.pointer} {c.excerpt}" for c in finding.evidence)
    assert "/native" in cited
    assert "OperationalError" in cited
    assert finding.recovery is not None
    assert "database" in finding.recovery.summary
    assert "GET /health answers 200 with database true" in finding.acceptance

    # The doctor's own live verdict says the same: its normalizer read the logs.
    manifest = json.loads((folder / "manifest.json").read_text())
    failed = {c["id"] for c in manifest["collectors"] if c["status"] == "failed"}
    assert "normalize.flux" not in failed
    live = AnalysisReport.model_validate_json((folder / "analysis.json").read_text())
    assert live.first_failed_layer is Layer.SERVER

    # Back up, the server recovers by itself: no restart of server or workers.
    postgres.start_server()
    lab.wait_for_status({"w1": "online", "w2": "online"}, timeout_s=60)
    assert lab.api.database_up() is True
    assert lab.api.run_to_end("hello_world", "after")["state"] == "COMPLETED"


def test_on_postgresql_an_undated_heartbeat_says_why_and_what_to_collect(
    flux_lab_factory: LabFactory, postgres: Postgres, tmp_path: Path
) -> None:
    """A healthy fleet on PostgreSQL (as after the database came back): Flux keeps a worker's
    last heartbeat (``workers.last_seen_at``) only in its database, which doctor reads from a
    SQLite file (``db_path``) alone, and its INFO log has no per-heartbeat line. The rung is
    unknown, never a pass; it said only "the bundle has no heartbeat time". It now names the
    PostgreSQL database as why, and what to collect to decide it (also for workers that
    connected moments ago: the generic rule read them unknown anyway)."""
    lab = flux_lab_factory(LabConfig(server_env=_server_env(postgres)))
    assert lab.api.run_to_end("hello_world", "after")["state"] == "COMPLETED"
    collect_bundle(lab, tmp_path)
    report = analyze_json(tmp_path / "flux.zip")
    assert report.verdict.value != "healthy"
    heartbeats = _heartbeat_rungs(report)
    assert heartbeats
    for layer in heartbeats:
        assert layer.status is LayerStatus.UNKNOWN
        (finding,) = layer.findings  # the generic "no heartbeat time" is replaced
        assert finding.code == "FLUX_HEARTBEAT_NOT_READ"
        assert "PostgreSQL" in finding.message
        assert "FLUX_LOG_LEVEL=DEBUG" in finding.message
        assert "select name, last_seen_at from workers" in finding.message
        assert "postgresql://" not in finding.message  # the URL's scheme only, never its value


def test_on_postgresql_at_debug_the_servers_pong_lines_date_each_heartbeat(
    flux_lab_factory: LabFactory, postgres: Postgres, tmp_path: Path
) -> None:
    """The same fleet with the server at ``FLUX_LOG_LEVEL=DEBUG``, as FLUX_HEARTBEAT_NOT_READ
    asks: the server logs ``Pong received from worker <name>`` per heartbeat (every 2 s in
    the lab), and the latest one, within heartbeat_timeout before collection, passes each
    worker's heartbeat rung, citing the line. The parser used to drop those lines, so the
    rung stayed unknown and kept asking for the log it had."""
    env = _server_env(postgres, FLUX_LOG_LEVEL="DEBUG")
    lab = flux_lab_factory(LabConfig(server_env=env))
    assert lab.api.run_to_end("hello_world", "debug")["state"] == "COMPLETED"
    for worker in ("w1", "w2"):  # the first pong comes a heartbeat_interval after connecting
        lab.wait_for_log("server", f"Pong received from worker {worker}", timeout_s=20)
    collect_bundle(lab, tmp_path)
    report = analyze_json(tmp_path / "flux.zip")
    heartbeats = _heartbeat_rungs(report)
    assert heartbeats
    for layer in heartbeats:
        assert layer.status is LayerStatus.PASS, [(f.code, f.message) for f in layer.findings]
        (finding,) = layer.findings
        assert finding.code == "FLUX_HEARTBEAT_LOGGED"
        assert "Pong received" in finding.message
        excerpts = " ".join(c.excerpt or "" for c in finding.evidence)
        assert "DEBUG - Pong received from worker" in excerpts
