"""Fault injectors: put a running lab into a real failure state, and wait until it shows.

Each injector acts for real (signals, stopping processes, saturating slots,
CPU-bound code) and then *polls* for the state Flux itself reports (a server
log line, a worker status), so the caller knows the fault has landed when the
function returns. Nothing here sleeps for a fixed time.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from typing import Any, Protocol

from .config import WorkerSpec
from .lab import FluxLab
from .process import wait_until

UNREACHABLE_URL = "http://127.0.0.1:9"
"""A server URL nothing answers at (the discard port, closed here): connections are refused."""


@dataclass
class Injected:
    """What an injector did: executions it started and anything worth asserting on."""

    executions: list[str] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)


def _budget(lab: FluxLab, factor: float = 3.0) -> float:
    """A generous timeout for eviction-driven waits: several eviction windows."""
    return max(30.0, factor * lab.config.timings.eviction_after_s)


def start_work(lab: FluxLab, worker: str, seconds: float = 60.0) -> str:
    """Start a sleeper pinned to ``worker``; return its id once that worker has claimed it."""
    execution_id = str(lab.api.run("sleeper", seconds, require_worker=worker)["execution_id"])
    lab.wait_for_log("server", f"Execution {execution_id} claimed by worker {worker}", timeout_s=30)
    return execution_id


def hang_worker(lab: FluxLab, worker: str, *, with_work: bool = True) -> Injected:
    """SIGSTOP ``worker`` (a frozen host) until the server marks it STALE and evicts it.

    With ``with_work`` it first claims a pinned sleeper, so the eviction also
    unclaims ("reclaims") an execution. The worker stays stopped.
    """
    injected = Injected()
    if with_work:
        injected.executions.append(start_work(lab, worker))
    evictions = lab.log_count("server", f"Worker {worker} evicted (stale for")
    lab.workers[worker].signal(signal.SIGSTOP)
    lab.wait_for_log(
        "server", f"Worker {worker} evicted (stale for", count=evictions + 1, timeout_s=_budget(lab)
    )
    if with_work:
        lab.wait_for_log(
            "server", f"Unclaimed execution {injected.executions[0]}", timeout_s=_budget(lab)
        )
    return injected


def kill_worker(lab: FluxLab, worker: str, *, with_work: bool = False) -> Injected:
    """SIGKILL ``worker``: the server sees the TCP close and marks it offline at once."""
    injected = Injected()
    if with_work:
        injected.executions.append(start_work(lab, worker))
    lab.workers[worker].signal(signal.SIGKILL)
    lab.wait_for_status({worker: "offline"}, timeout_s=30)
    return injected


def stop_server(lab: FluxLab) -> Injected:
    """Stop the server; wait until every worker logged that it lost the connection."""
    before = {name: lab.log_count(name, "Connection lost (") for name in lab.workers}
    lab.stop_server()
    for name, count in before.items():
        lab.wait_for_log(name, "Connection lost (", count=count + 1, timeout_s=60)
    return Injected(notes={"url": lab.url})


def starve_event_loop(lab: FluxLab, worker: str, bursts: int = 30) -> Injected:
    """Run CPU-bound code on ``worker``'s in-process runner until it reports unhealthy.

    ``bursts`` x 2.5 s of busy-waiting: long enough to collect evidence while
    the worker is still starved.
    """
    run = lab.api.run("loop_starver", bursts, require_worker=worker)
    lab.wait_for_log(worker, "Event loop starved (lag", timeout_s=60)
    lab.wait_for_status({worker: "unhealthy"}, timeout_s=60)
    return Injected(executions=[str(run["execution_id"])])


def fill_slots(lab: FluxLab, worker: str, *, runs: int = 3, seconds: float = 120.0) -> Injected:
    """Queue ``runs`` zone=c sleepers for a one-slot ``worker``: one runs, the rest wait.

    The waiting executions stay CREATED with no log line anywhere, which is
    what makes saturation hard to see without ``in_flight`` and slot counts.
    """
    ids = [str(lab.api.run("zone_c_sleeper", seconds)["execution_id"]) for _ in range(runs)]
    lab.wait_for_log("server", f"claimed by worker {worker}", timeout_s=30)

    def one_running_rest_waiting() -> bool:
        states = [lab.api.execution(i)["state"] for i in ids]
        return states.count("CLAIMED") + states.count("RUNNING") == 1 and (
            states.count("CREATED") == runs - 1
        )

    wait_until(one_running_rest_waiting, timeout_s=30, what="one claimed, the rest CREATED")
    return Injected(executions=ids)


def unmatched_execution(lab: FluxLab, workflow: str = "affinity_nomatch") -> Injected:
    """Run a workflow whose affinity or requests no worker meets; it stays CREATED."""
    run = lab.api.run(workflow, "lab")
    execution_id = str(run["execution_id"])
    state = lab.api.execution(execution_id)["state"]
    if state != "CREATED":
        raise AssertionError(f"{workflow} should wait unassigned, but is {state}")
    return Injected(executions=[execution_id])


def registration_refused(lab: FluxLab, attempts: int = 2) -> Injected:
    """With ``allow_anonymous`` off and auth disabled: wait for repeated 401s on register."""
    refused = "Connection lost (HTTPStatusError: Client error '401 Unauthorized'"
    for name in lab.workers:
        lab.wait_for_log(name, refused, count=attempts, timeout_s=60)
    return Injected()


def eviction_loop(lab: FluxLab, worker: str, *, cycles: int = 3) -> Injected:
    """Freeze and thaw ``worker`` ``cycles`` times: STALE -> evicted -> connected again.

    The server sees what a load balancer closing idle SSE streams produces:
    the same worker evicted and back within seconds, over and over.
    """
    process = lab.workers[worker]
    for _ in range(cycles):
        evicted = lab.log_count("server", f"Worker {worker} evicted (stale for")
        connected = lab.log_count("server", f"Worker connected: {worker}")
        process.signal(signal.SIGSTOP)
        lab.wait_for_log(
            "server",
            f"Worker {worker} evicted (stale for",
            count=evicted + 1,
            timeout_s=_budget(lab),
        )
        process.signal(signal.SIGCONT)
        lab.wait_for_log(
            "server", f"Worker connected: {worker}", count=connected + 1, timeout_s=_budget(lab)
        )
    lab.wait_for_status({worker: "online"}, timeout_s=30)
    return Injected(notes={"cycles": cycles})


def failing_runs(lab: FluxLab, runs: int = 2, worker: str | None = None) -> Injected:
    """Run ``always_fails`` ``runs`` times to the end, on a healthy fleet: each run FAILED.

    Nothing is wrong with the workers; the work itself raises. Pinned to ``worker`` when
    given, so the failed runs' worker is known.
    """
    ids = []
    for attempt in range(runs):
        run = lab.api.run_to_end("always_fails", f"attempt {attempt}", require_worker=worker)
        if run.get("state") != "FAILED":
            raise AssertionError(f"always_fails should fail, got {run.get('state')}")
        ids.append(str(run["execution_id"]))
    return Injected(executions=ids)


class StoppableDatabase(Protocol):
    """The server's database, as the lab runs it (``samples.flux_fleet.postgres.Postgres``)."""

    def stop_server(self) -> None: ...


def database_down(lab: FluxLab, database: StoppableDatabase) -> Injected:
    """Stop the server's database under the running server; wait until ``/health`` says so.

    The server keeps answering (``GET /health`` 503 ``"database": false``, ``GET /workers``
    500) and cannot persist pongs, so its workers turn STALE after heartbeat_timeout.
    """
    database.stop_server()
    wait_until(lambda: lab.api.database_up() is False, timeout_s=60, what="/health database false")
    return Injected()


def partition_worker(lab: FluxLab, worker: str, *, until: str = "evicted") -> Injected:
    """Cut ``worker``'s network path to the server; its process keeps running.

    Needs a lab with ``worker`` in ``LabConfig.partitionable``. Waits until the server
    logs the worker ``until`` = ``"stale"`` (missed heartbeat, still listed online) or
    ``"evicted"``. A pinned sleeper is claimed first, so the eviction unclaims it.
    """
    if lab.network is None:
        raise AssertionError(f"{worker} is not partitionable in this lab")
    injected = Injected(executions=[start_work(lab, worker)])
    marks = {"stale": "missed heartbeat, marked STALE", "evicted": "evicted (stale for"}
    line = f"Worker {worker} {marks[until]}"
    seen = lab.log_count("server", line)
    lab.network.cut(worker)
    lab.wait_for_log("server", line, count=seen + 1, timeout_s=_budget(lab))
    return injected


def wrong_server_url(name: str, labels: dict[str, str] | None = None) -> WorkerSpec:
    """A worker whose environment points it at a URL no server answers (a typo, a stale DNS
    name): FLUX_WORKERS__SERVER_URL wins over the lab's flux.toml, as it would in a unit file."""
    return WorkerSpec(name, labels or {}, extra_env={"FLUX_WORKERS__SERVER_URL": UNREACHABLE_URL})


def wrong_bootstrap_token(name: str, labels: dict[str, str] | None = None) -> WorkerSpec:
    """A worker holding a bootstrap token the server does not (one from before the server's
    .flux/ was recreated): the server answers its registration with 403."""
    stale = "lab-stale-bootstrap-token-" + name
    return WorkerSpec(name, labels or {}, extra_env={"FLUX_WORKERS__BOOTSTRAP_TOKEN": stale})


def registration_failing(lab: FluxLab, worker: str, *, attempts: int = 2) -> Injected:
    """Wait until ``worker`` (started misconfigured) has failed to register ``attempts`` times.

    Flux's worker retries forever with backoff; each failure ends in a ``Connection lost (``
    line of its own log, whatever the cause (refused connection, 401, 403).
    """
    lab.wait_for_log(worker, "Connection lost (", count=attempts, timeout_s=60)
    return Injected(notes={"worker": worker})


def restart_server(lab: FluxLab) -> Injected:
    """Stop the server and start it again on the same port; wait until every worker is back.

    Observed (flux-core 0.87.5): workers log ``Connection lost`` while it is down, then
    reconnect "with existing session" (no new registration); an execution a worker was
    running carries on and completes after the restart.
    """
    before = {name: lab.log_count(name, "Connection lost (") for name in lab.workers}
    lab.stop_server()
    for name, count in before.items():
        lab.wait_for_log(name, "Connection lost (", count=count + 1, timeout_s=60)
    connected = {name: lab.log_count("server", f"Worker connected: {name}") for name in lab.workers}
    lab.start_server()
    for name, count in connected.items():
        lab.wait_for_log("server", f"Worker connected: {name}", count=count + 1, timeout_s=90)
    return Injected(notes={"url": lab.url})
