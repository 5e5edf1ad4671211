"""The Flux lab itself: a real server and workers, an ephemeral port, nothing left running."""

from __future__ import annotations

import os
import signal
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from bundler.collect.inventory import load_inventory
from samples.flux_lab import (
    FluxInstall,
    FluxLab,
    FluxUnavailable,
    LabConfig,
    LabError,
    WorkerSpec,
    find_flux,
)
from samples.listening import listening_ports
from schemas.manifest import HostRole
from tests.support.flux import LabFactory

pytestmark = pytest.mark.flux


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_find_flux_honours_the_environment_variable(flux_install: FluxInstall, tmp_path: Path):
    found = find_flux(environ={"BUNDLER_FLUX_VENV": str(flux_install.venv)})
    assert found.venv == flux_install.venv
    assert found.usable()
    with pytest.raises(FluxUnavailable, match="no Flux venv"):
        find_flux(environ={"BUNDLER_FLUX_VENV": str(tmp_path / "missing")})


def test_a_lab_runs_real_flux_and_stops_every_process(flux_install: FluxInstall, tmp_path: Path):
    lab = FluxLab(LabConfig(), root=tmp_path / "lab", flux=flux_install)
    with lab:
        assert lab.port not in (None, 8000)
        assert lab.server is not None
        assert listening_ports(lab.server.pid) == [lab.port]
        assert lab.api.worker_statuses() == {"w1": "online", "w2": "online"}
        run = lab.api.run_to_end("hello_world", "lab")
        assert (run["state"], run["output"]) == ("COMPLETED", "Hello, lab")
        assert (lab.server_dir / ".flux" / "flux.db").exists()
        assert (lab.worker_dir("w1") / ".flux" / "worker-w1.sock").exists()
        pids = [lab.server.pid] + [p.pid for p in lab.workers.values()]
    assert not any(alive(pid) for pid in pids)
    assert "Worker registered successfully: w1" in (lab.logs_dir / "server.log").read_text()
    assert "Worker shutting down..." in lab.worker_log("w2").read_text()


def test_a_stopped_worker_is_woken_and_stopped_too(flux_lab: FluxLab):
    process = flux_lab.workers["w2"]
    process.signal(signal.SIGSTOP)
    flux_lab.stop()
    assert not alive(process.pid)


def test_the_inventory_describes_the_lab_for_doctor(flux_lab: FluxLab):
    inventory = load_inventory(flux_lab.write_inventory())
    server, *workers = inventory.hosts
    assert (server.address, server.role) == ("local", HostRole.SERVER)
    assert server.vars["db_path"] == str(flux_lab.db_path)
    assert (Path(server.vars["flux_bin_dir"]) / "flux").exists()
    assert server.vars["flux_pid"] == str(flux_lab.server.pid)
    assert server.logs[0].file == str(flux_lab.logs_dir / "server.log")
    assert [(w.worker, w.role) for w in workers] == [
        ("w1", HostRole.WORKER),
        ("w2", HostRole.WORKER),
    ]
    assert workers[0].state_dir == str(flux_lab.worker_dir("w1") / ".flux")
    assert workers[0].vars["flux_pid"] == str(flux_lab.workers["w1"].pid)


def test_worker_settings_reach_flux(flux_lab_factory: LabFactory):
    lab = flux_lab_factory(LabConfig(workers=(WorkerSpec("solo", {"zone": "c"}, 1),)))
    (worker,) = lab.api.workers()
    assert worker["labels"] == {"zone": "c"}
    with closing(sqlite3.connect(f"file:{lab.db_path}?mode=ro", uri=True)) as db:
        (slots,) = db.execute("SELECT max_concurrent_executions FROM workers").fetchone()
    assert slots == 1
    log = (lab.logs_dir / "server.log").read_text()
    assert "Heartbeat reaper started (interval=2s, timeout=6s)" in log


def test_a_server_that_cannot_start_is_reported_with_its_log(
    flux_install: FluxInstall, tmp_path: Path
):
    broken = LabConfig(server_env={"FLUX_DATABASE_URL": "sqlite:////nonexistent/dir/flux.db"})
    lab = FluxLab(broken, root=tmp_path / "lab", flux=flux_install)
    with pytest.raises(LabError, match="exited"), lab:
        pass
    assert lab.server is not None
    assert not lab.server.alive()
