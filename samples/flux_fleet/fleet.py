"""A real Flux server with hundreds of emulated workers (and, optionally, a few real ones).

::

    spec = FleetSpec(workers=200, evicted=3, unhealthy=2, saturated=2)
    with FluxFleet(spec, real_workers=2) as fleet:
        fleet.wait_for_faults()          # evicted ones evicted, unhealthy ones reported
        fleet.start_waiting_executions() # work nobody can run, and work the full slots hold
        ... bundler doctor --profile flux --server fleet.url ...

The server runs through the Flux lab (:class:`samples.flux_lab.FluxLab`), with
the settings a large fleet needs: PostgreSQL (:mod:`.postgres`; Flux on
SQLite is single-node only), Flux's ``event`` dispatch mode (its own
"scalable mode for large worker fleets"; the default ``poll`` mode runs ~5
queries per worker every 0.5 s) and no registration rate limit (Flux's
default of 30/minute per client address would take half an hour to register
a thousand workers coming from one address, which is what the emulator is).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from samples.flux_lab import FluxLab, LabConfig, Timings, WorkerSpec
from samples.flux_lab.process import ManagedProcess, StartStop, wait_until

from .postgres import Postgres, driver_path
from .spec import SATURATED_LABELS, FleetSpec, Role

REPO_ROOT = Path(__file__).resolve().parents[2]
CONNECT_TIMEOUT_S = 300.0
CONNECT_S_PER_WORKER = 0.9
"""Start-up allowance per worker on top of :data:`CONNECT_TIMEOUT_S`: registrations are
staggered (the emulator's gate) and each is a database write, so a fleet comes up in time
linear in its size (256 workers: ~90 s at load 11); a flat 300 s failed 1,000 workers."""
FLEET_TIMINGS = Timings(heartbeat_interval=10, heartbeat_timeout=30, eviction_grace_period=15)
"""Flux's own interval and timeout (10 s, 30 s; a shorter grace): a silent worker is evicted
~50 s after its last pong, and a pong may be 30 s late before a healthy worker is marked
STALE. Shorter timings evicted whole fleets here: with other work on the two cores, the
server answered hundreds of pongs more than 20 s late."""
PONGS_PER_S = 50
"""What the fleet's server is asked to absorb: past 500 workers the heartbeat interval
grows so that N workers pong at most this often. At 1,000 workers and Flux's 10 s
(100 pongs a second, each through the server's 32 database threads) on two shared cores,
registrations answered after the workers' 30 s timeout and 60 workers never connected;
a real control plane that size has its own cores (and its operators a longer interval)."""


def fleet_timings(workers: int) -> Timings:
    """:data:`FLEET_TIMINGS`, with the interval (and timeout, grace) scaled past 500 workers."""
    interval = max(FLEET_TIMINGS.heartbeat_interval, -(-workers // PONGS_PER_S))
    if interval == FLEET_TIMINGS.heartbeat_interval:
        return FLEET_TIMINGS
    return Timings(
        heartbeat_interval=interval,
        heartbeat_timeout=3 * interval,
        eviction_grace_period=-(-3 * interval // 2),
    )


def fleet_server_env(database_url: str | None) -> dict[str, str]:
    env = {"FLUX_DISPATCH__MODE": "event", "FLUX_WORKERS__REGISTER_RATE_LIMIT": ""}
    if database_url:
        env |= {"FLUX_DATABASE_URL": database_url, "PYTHONPATH": str(driver_path())}
    return env


def connect_timeout(workers: int) -> float:
    """How long the whole fleet may take to connect: a base plus a share per worker."""
    return CONNECT_TIMEOUT_S + CONNECT_S_PER_WORKER * workers


class FluxFleet(StartStop):
    def __init__(
        self,
        spec: FleetSpec,
        *,
        real_workers: int = 0,
        timings: Timings | None = None,
        root: Path | None = None,
        postgres: bool = True,
    ) -> None:
        self.spec = spec
        self.postgres = Postgres() if postgres else None
        self._root = root
        self._timings = timings if timings is not None else fleet_timings(spec.workers)
        self.real = tuple(
            WorkerSpec(f"real{i}", {"fleet": "real", "zone": spec.zones[i % len(spec.zones)]})
            for i in range(real_workers)
        )
        self._lab: FluxLab | None = None
        self.emulator: ManagedProcess | None = None
        self.executions: dict[str, list[str]] = {}

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def lab(self) -> FluxLab:
        if self._lab is None:
            raise RuntimeError("the fleet has not started")
        return self._lab

    def start(self) -> None:
        database_url = None
        if self.postgres is not None:
            self.postgres.start()
            database_url = self.postgres.url
        config = LabConfig(
            workers=self.real,
            timings=self._timings,
            server_env=fleet_server_env(database_url),
            observability=False,
        )
        self._lab = FluxLab(config, root=self._root)
        self.lab.start()
        spec_path = self.lab.root / "fleet.json"
        self.spec.write(spec_path)
        argv = [str(self.lab.flux.python), "-m", "samples.flux_fleet.emulator", str(spec_path)]
        argv += ["--server", self.lab.url, "--token-file", str(self.lab.bootstrap_token_path)]
        self.emulator = ManagedProcess(
            "emulator",
            argv,
            cwd=REPO_ROOT,
            env=self.lab._base_env() | {"PYTHONPATH": str(REPO_ROOT)},
            log_path=self.lab.logs_dir / "emulator.log",
        )
        self.emulator.start()
        self.lab.wait_for_log(
            "emulator",
            f"fleet: all {self.spec.workers} workers connected",
            timeout_s=connect_timeout(self.spec.workers),
        )

    def stop(self) -> None:
        if self.emulator is not None:
            self.emulator.stop()
        if self._lab is not None:
            self._lab.stop()
        if self.postgres is not None:
            self.postgres.stop()

    @property
    def url(self) -> str:
        return self.lab.url

    # -- faults ------------------------------------------------------------------------------

    def wait_for_faults(self, timeout_s: float = 120.0) -> None:
        """Until the server shows every evicted worker offline and every unhealthy one so."""
        wanted = dict.fromkeys(self.spec.names(Role.EVICTED), "offline")
        wanted |= dict.fromkeys(self.spec.names(Role.UNHEALTHY), "unhealthy")
        if wanted:
            self.lab.wait_for_status(wanted, timeout_s=timeout_s)

    def start_waiting_executions(
        self, *, unmatched: int = 2, queued_per_slot: int = 1, timeout_s: float = 180.0
    ) -> None:
        """Work that waits: executions no label group matches, and more than the full slots hold.

        ``affinity_nomatch`` asks for ``zone=mars`` (no worker has it);
        ``zone_c_sleeper`` asks for ``zone=c``, the saturated workers' group:
        each saturated worker claims one and holds it, the rest stay CREATED.
        Returns once every saturated worker holds its claim.
        """
        api = self.lab.api
        self.executions["unmatched"] = [
            api.run("affinity_nomatch", f"fleet-{i}")["execution_id"] for i in range(unmatched)
        ]
        saturated = self.spec.names(Role.SATURATED)
        held = len(saturated) * (1 + queued_per_slot)
        self.executions["saturated"] = [
            api.run("zone_c_sleeper", 3600)["execution_id"] for _ in range(held)
        ]
        if saturated:
            wait_until(
                lambda: self._claimed(self.executions["saturated"]) >= len(saturated),
                timeout_s=timeout_s,  # a lost dispatch frame is re-dispatched after 60 s
                what=f"the saturated zone={SATURATED_LABELS['zone']} workers to claim one run each",
            )

    def _claimed(self, execution_ids: list[str]) -> int:
        states = [self.lab.api.execution(i).get("state") for i in execution_ids]
        return sum(1 for state in states if state in ("CLAIMED", "RUNNING"))

    def workers(self) -> list[dict[str, Any]]:
        return self.lab.api.workers()

    def get_json(self, path: str) -> Any:
        """One read-only GET against the fleet's server (e.g. ``/workers/fw0001``)."""
        response = httpx.get(self.url + path, timeout=60)
        response.raise_for_status()
        return response.json()

    def wait_for_online(self, count: int, timeout_s: float = 60.0) -> None:
        def enough() -> bool:
            statuses = self.lab.api.worker_statuses()
            return sum(1 for s in statuses.values() if s != "offline") >= count

        deadline = time.monotonic() + timeout_s
        wait_until(enough, timeout_s=max(1.0, deadline - time.monotonic()), what="workers online")
