"""Hundreds of Flux workers in one asyncio process, speaking Flux's own worker protocol.

Run by the Flux venv's Python (it uses Flux's own SSE client library and
Flux's ``ExecutionContext`` to build checkpoints), against a real Flux
server::

    <flux-venv>/bin/python -m samples.flux_fleet.emulator SPEC.json --server URL --token-file F

Per worker, exactly what ``flux start worker`` does on the wire (read from
``flux/worker.py`` of flux-core 0.87.5):

* ``POST /workers/register`` with the bootstrap token and the same payload
  (runtime, resources, installed packages, labels, slot limit, runners);
  the answer carries the worker's session token.
* ``GET /workers/{name}/connect``: the SSE stream, held open.
* on ``ping``: ``POST /workers/{name}/pong`` with ``healthy``, ``status``,
  ``in_flight`` and the built-in ``flux.*`` metrics.
* on ``execution_scheduled``: ``POST /workers/{name}/claim/{id}`` (echoing
  ``X-Flux-Claim-Generation``), then ``POST /workers/{name}/checkpoint/{id}``
  with the context (RUNNING, and COMPLETED once done) under the claim's fence.

What is not a worker here: no workflow code runs (a claimed execution
"runs" for a moment, or forever on a saturated worker), and the runtime and
resources are drawn per worker instead of read from this machine, so a
fleet looks like many machines. Faults come from the spec (:mod:`.spec`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.metadata
import logging
import platform
import random
import signal
import ssl
import sys
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import aconnect_sse

from .spec import FleetSpec, Role, WorkerPlan

log = logging.getLogger("flux_fleet")

REGISTRATIONS_AT_ONCE = 8
"""A fleet coming up is staggered; the server writes each registration to its database."""
REGISTER_TIMEOUT_S = 90.0
"""Longer than a real worker's 30 s (``http_timeout``): on two shared cores a 1,000-worker
server answered some registrations after 30 s, and a worker that gave up registered
again, adding to the load that made it late (60 workers never connected)."""
RUN_SECONDS = 0.2
"""How long a healthy emulated worker "runs" a claimed execution before it completes."""
RECONNECT_DELAY_S = 1.0
STREAM_STALL_S = 60.0
"""A real worker treats an SSE stream silent for max(30 s, 3 heartbeats) as dead; pings
come every heartbeat interval (5 s in the fleet), so 60 s is generous."""
METRICS_INTERVAL_S = 10.0
"""Flux's ``workers.metrics_interval``: a worker refreshes its snapshot this often, and the
server persists metrics only when they changed, so pongs in between cost it no write."""
GIB = 1024**3


def installed_packages() -> list[dict[str, str]]:
    """What a real worker in this venv registers: every distribution installed in it.

    Only the venv's own (``sys.prefix``): the emulator runs with the checkout on
    ``PYTHONPATH``, which a real worker does not have.
    """
    packages = []
    for dist in importlib.metadata.distributions():
        name = dist.name
        where = str(dist.locate_file(""))
        if name and where.startswith(sys.prefix):
            packages.append({"name": name, "version": dist.version})
    return packages


class Fleet:
    """What the emulated workers share: the spec, the registration gate, progress counters.

    Each worker has its own HTTP clients, as a real worker does (``self.client`` for its
    POSTs, a fresh one per SSE connection): one pool shared by hundreds of workers queues
    their pongs, and httpcore assigns queued requests to connections in time that grows
    with the queue, so the emulator itself made its pongs late (and healthy workers STALE).
    Only the TLS context is shared: building one per client costs a CA bundle load each.
    """

    def __init__(self, spec: FleetSpec, server_url: str, bootstrap_token: str) -> None:
        self.spec = spec
        self.base = server_url.rstrip("/") + "/workers"
        self.bootstrap_token = bootstrap_token
        packages = installed_packages()
        self.packages = packages if spec.packages is None else packages[: spec.packages]
        self.tls = ssl.create_default_context()
        self.gate = asyncio.Semaphore(REGISTRATIONS_AT_ONCE)
        self.connected: set[str] = set()
        self.announced = False

    def client(self, *, streaming: bool = False) -> httpx.AsyncClient:
        timeout = httpx.Timeout(None, connect=30.0) if streaming else httpx.Timeout(30.0)
        return httpx.AsyncClient(timeout=timeout, verify=self.tls)

    def mark_connected(self, name: str) -> None:
        self.connected.add(name)
        if not self.announced and len(self.connected) == self.spec.workers:
            self.announced = True
            print(f"fleet: all {self.spec.workers} workers connected", flush=True)


class EmulatedWorker:
    def __init__(self, plan: WorkerPlan, fleet: Fleet, index: int) -> None:
        self.plan = plan
        self.fleet = fleet
        self.url = f"{fleet.base}/{plan.name}"
        self.http = fleet.client()
        self.session_token: str | None = None
        self.running: dict[str, asyncio.Task[None]] = {}
        self.pongs = 0
        self.silent = False
        self.completed = 0
        self.snapshot: dict[str, float] | None = None
        self.snapshot_at = -METRICS_INTERVAL_S
        rng = random.Random(plan.name)
        self.cpu_total = rng.choice((2, 4, 8, 16))
        self.memory_total = self.cpu_total * 4 * GIB
        self.disk_total = rng.choice((128, 256, 512)) * GIB
        self.rng = rng

    # -- the protocol ---------------------------------------------------------------------------

    async def run(self) -> None:
        while True:
            try:
                if self.session_token is None:
                    async with self.fleet.gate:
                        await self.register()
                await self.connect()
                if self.silent:
                    return  # a hung worker never comes back on its own
            except asyncio.CancelledError:
                raise
            except httpx.HTTPStatusError as exc:
                if exc.response.status_code in (401, 403):
                    self.session_token = None
                log.warning("%s: connection lost (%s)", self.plan.name, exc)
            except (httpx.HTTPError, TimeoutError, ConnectionError) as exc:
                log.warning("%s: connection lost (%s: %s)", self.plan.name, type(exc).__name__, exc)
            except Exception as exc:  # a bad answer must not silently end this worker
                log.warning("%s: unexpected %s: %s", self.plan.name, type(exc).__name__, exc)
            await asyncio.sleep(RECONNECT_DELAY_S * (0.5 + self.rng.random()))

    async def register(self) -> None:
        registration = {
            "name": self.plan.name,
            "runtime": {
                "os_name": platform.system(),
                "os_version": platform.release(),
                "python_version": platform.python_version(),
            },
            "resources": self.resources(),
            "packages": self.fleet.packages,
            "labels": self.plan.labels,
            "max_concurrent_executions": self.plan.max_concurrent_executions,
            "runners": ["inprocess", "subprocess"],
        }
        response = await self.http.post(
            f"{self.fleet.base}/register",
            json=registration,
            headers={"Authorization": f"Bearer {self.fleet.bootstrap_token}"},
            timeout=REGISTER_TIMEOUT_S,
        )
        response.raise_for_status()
        self.session_token = response.json()["session_token"]

    async def connect(self) -> None:
        async with contextlib.AsyncExitStack() as stack:
            streams = await stack.enter_async_context(self.fleet.client(streaming=True))
            async with asyncio.timeout(STREAM_STALL_S):  # a server that never answers
                events = await stack.enter_async_context(
                    aconnect_sse(streams, "GET", f"{self.url}/connect", headers=self.auth())
                )
            events.response.raise_for_status()
            self.fleet.mark_connected(self.plan.name)
            stream = aiter(events.aiter_sse())
            while True:
                try:
                    # as flux/worker.py: a stream silent past the bound is dead; reconnect
                    async with asyncio.timeout(STREAM_STALL_S):
                        event = await anext(stream)
                except StopAsyncIteration:
                    return
                if event.event == "ping":
                    self.spawn(self.pong())
                elif event.event == "execution_scheduled":
                    self.spawn(self.on_scheduled(event.json()))
                elif event.event == "execution_cancelled":
                    self.on_cancelled(event.json())

    async def pong(self) -> None:
        if self.plan.role is Role.EVICTED and self.pongs >= self.fleet.spec.silent_after_pongs:
            self.silent = True
            return
        payload = {
            "healthy": self.plan.role is not Role.UNHEALTHY,
            "status": "active",
            "in_flight": len(self.running),
            "metrics": self.current_metrics(),
        }
        with contextlib.suppress(httpx.HTTPError):
            await self.http.post(f"{self.url}/pong", json=payload, headers=self.auth())
            self.pongs += 1

    async def on_scheduled(self, data: dict[str, Any]) -> None:
        execution_id = data["context"]["execution_id"]
        headers = self.auth()
        if data.get("claim_generation") is not None:
            headers["X-Flux-Claim-Generation"] = str(data["claim_generation"])
        response = await self.http.post(f"{self.url}/claim/{execution_id}", headers=headers)
        if response.status_code == 409:
            return  # already claimed or superseded: a real worker drops the frame too
        response.raise_for_status()
        fence = response.headers.get("X-Flux-Claim-Generation")
        task = asyncio.current_task()
        assert task is not None
        self.running[execution_id] = task
        try:
            await self.execute(response.json(), fence)
        finally:
            self.running.pop(execution_id, None)

    async def execute(self, claimed: dict[str, Any], fence: str | None) -> None:
        from flux.domain.execution_context import ExecutionContext

        ctx: Any = ExecutionContext.from_json(claimed)
        source = f"{ctx.workflow_name}_{ctx.execution_id}"
        ctx.start(source)
        await self.checkpoint(ctx, fence)
        if self.plan.role is Role.SATURATED:
            await asyncio.Event().wait()  # holds its only slot until the fleet stops
        await asyncio.sleep(RUN_SECONDS)
        ctx.complete(source, f"done by {self.plan.name}")
        await self.checkpoint(ctx, fence)
        self.completed += 1

    async def checkpoint(self, ctx: Any, fence: str | None) -> None:
        headers = self.auth()
        if fence is not None:
            headers["X-Flux-Claim-Generation"] = fence
        response = await self.http.post(
            f"{self.url}/checkpoint/{ctx.execution_id}", json=ctx.to_dict(), headers=headers
        )
        response.raise_for_status()

    def on_cancelled(self, data: dict[str, Any]) -> None:
        task = self.running.get(data.get("context", {}).get("execution_id", ""))
        if task is not None:
            task.cancel()

    # -- what a worker reports ------------------------------------------------------------------

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.session_token}"}

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        task.add_done_callback(_report_failure)

    def resources(self) -> dict[str, Any]:
        busy = self.rng.uniform(0.05, 0.6)
        return {
            "cpu_total": self.cpu_total,
            "cpu_available": round(self.cpu_total * (1 - busy), 3),
            "memory_total": self.memory_total,
            "memory_available": int(self.memory_total * self.rng.uniform(0.3, 0.9)),
            "disk_total": self.disk_total,
            "disk_free": int(self.disk_total * self.rng.uniform(0.2, 0.8)),
            "gpus": [],
        }

    def current_metrics(self) -> dict[str, float]:
        now = asyncio.get_running_loop().time()
        if self.snapshot is None or now - self.snapshot_at >= METRICS_INTERVAL_S:
            self.snapshot, self.snapshot_at = self.metrics(), now
        return self.snapshot

    def metrics(self) -> dict[str, float]:
        """The built-in ``flux.*`` metrics, with the keys a worker in this state sends."""
        running = len(self.running)
        starved = self.plan.role is Role.UNHEALTHY
        lag = self.rng.uniform(2.5, 4.0) if starved else self.rng.uniform(0.0005, 0.003)
        slots = self.plan.max_concurrent_executions or 16
        metrics = {
            "flux.running_executions": float(running),
            "flux.slots_free": float(max(0, slots - running)),
            "flux.loop_lag_seconds": round(lag, 4),
            "flux.loop_lag_p95_seconds": round(lag * 1.2, 4),
        }
        if self.completed:
            metrics |= {
                "flux.failure_rate": 0.0,
                "flux.crash_rate": 0.0,
                "flux.executions_per_minute": float(self.completed),
                "flux.execution_duration_p95_seconds": RUN_SECONDS,
            }
        metrics["flux.warm_modules"] = 0.0
        metrics |= {
            "flux.cpu_percent": round(self.rng.uniform(95, 100) if starved else 20.0, 1),
            "flux.memory_available_bytes": float(self.memory_total // 2),
            "flux.load_avg_1m": round(self.cpu_total * (1.5 if starved else 0.3), 2),
        }
        return metrics


def _report_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("worker task failed: %r", task.exception())


async def run_fleet(spec: FleetSpec, server_url: str, token: str) -> None:
    fleet = Fleet(spec, server_url, token)
    # Evicted workers register first: their eviction clock runs while the rest register.
    plans = sorted(spec.plans(), key=lambda plan: plan.role is not Role.EVICTED)
    workers = [EmulatedWorker(plan, fleet, i) for i, plan in enumerate(plans)]
    tasks = [asyncio.create_task(worker.run()) for worker in workers]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"fleet: starting {spec.workers} emulated workers against {server_url}", flush=True)
    await stop.wait()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.gather(*(worker.http.aclose() for worker in workers), return_exceptions=True)
    print("fleet: stopped", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Emulate a Flux fleet against a real server.")
    parser.add_argument("spec", type=Path)
    parser.add_argument("--server", required=True)
    parser.add_argument("--token-file", type=Path, required=True)
    options = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s - %(name)s - %(levelname)s - %(message)s"
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise
    spec = FleetSpec.read(options.spec)
    token = options.token_file.read_text().strip()
    asyncio.run(run_fleet(spec, options.server, token))
    return 0


if __name__ == "__main__":
    sys.exit(main())
