"""The nine Flux scenarios: a lab shape, a real fault, and the verdict bundler must reach.

Each scenario is data plus one injector, shared by the end-to-end tests, the
demo and the sample regeneration, so all three exercise exactly the same
fault. ``expect_layer`` is the first failed ladder layer (``None``: every
layer passes) and ``expect_code`` the finding that must explain it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from . import faults
from .config import LabConfig, Timings, WorkerSpec
from .faults import Injected
from .lab import FluxLab


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    inject: Callable[[FluxLab], Injected]
    config: LabConfig = field(default_factory=LabConfig)
    expect_layer: str | None = None
    expect_code: str | None = None
    slow: bool = False
    """Takes more than a few seconds of fault injection (eviction windows)."""


def _healthy(lab: FluxLab) -> Injected:
    run = lab.api.run_to_end("hello_world", "lab")
    if run.get("state") != "COMPLETED":
        raise AssertionError(f"hello_world should complete, got {run.get('state')}")
    return Injected(executions=[str(run["execution_id"])])


def _unmatched(lab: FluxLab) -> Injected:
    labels = faults.unmatched_execution(lab, "affinity_nomatch")
    gpu = faults.unmatched_execution(lab, "needs_gpu")
    return Injected(executions=labels.executions + gpu.executions)


SATURATION_WORKERS = (
    WorkerSpec("w1", {"zone": "a"}),
    WorkerSpec("w3", {"zone": "c"}, max_concurrent_executions=1),
)

PATIENT = Timings(heartbeat_interval=2, heartbeat_timeout=15, eviction_grace_period=15)
"""Slow enough that a starving worker's late pongs do not get it evicted."""
HASTY = Timings(heartbeat_interval=1, heartbeat_timeout=3, eviction_grace_period=3)
"""Fast evictions, so three eviction cycles take seconds."""

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "healthy",
        "Healthy fleet: a workflow completes, every layer passes",
        _healthy,
    ),
    Scenario(
        "unmatched",
        "Executions whose affinity (zone=mars) or request (gpu=1) no worker meets",
        _unmatched,
        expect_layer="placement",
        expect_code="FLUX_NO_ELIGIBLE_WORKER",
    ),
    Scenario(
        "saturated",
        "Every eligible slot busy: a one-slot zone=c worker and three zone=c runs",
        lambda lab: faults.fill_slots(lab, "w3", runs=3),
        config=LabConfig(workers=SATURATION_WORKERS),
        expect_layer="capacity",
        expect_code="FLUX_SLOTS_SATURATED",
    ),
    Scenario(
        "hung",
        "A worker hung (SIGSTOP) until marked STALE and evicted; its execution is unclaimed",
        lambda lab: faults.hang_worker(lab, "w2"),
        expect_layer="heartbeat",
        expect_code="FLUX_WORKER_EVICTED",
        slow=True,
    ),
    Scenario(
        "killed",
        "A worker killed (SIGKILL): offline at once, its control socket left behind",
        lambda lab: faults.kill_worker(lab, "w2"),
        expect_layer="heartbeat",
        expect_code="FLUX_WORKER_OFFLINE",
    ),
    Scenario(
        "starved",
        "CPU-bound code on the in-process runner starves a worker's event loop",
        lambda lab: faults.starve_event_loop(lab, "w1", bursts=40),
        config=LabConfig(
            timings=Timings(heartbeat_interval=2, heartbeat_timeout=15, eviction_grace_period=15)
        ),
        expect_layer="heartbeat",
        expect_code="FLUX_WORKER_UNHEALTHY",
        slow=True,
    ),
    Scenario(
        "server-down",
        "The server stopped before collection; workers log 'Connection lost'",
        faults.stop_server,
        expect_layer="server",
        expect_code="FLUX_SERVER_UNREACHABLE",
    ),
    Scenario(
        "no-anonymous",
        "allow_anonymous off with auth disabled: every registration gets 401",
        faults.registration_refused,
        config=LabConfig(allow_anonymous=False, wait_for_workers=False),
        expect_layer="authorization",
        expect_code="FLUX_REGISTRATION_REJECTED",
    ),
    Scenario(
        "eviction-loop",
        "The same worker STALE -> evicted -> back, again and again",
        lambda lab: faults.eviction_loop(lab, "w2", cycles=3),
        config=LabConfig(
            timings=Timings(heartbeat_interval=1, heartbeat_timeout=3, eviction_grace_period=3)
        ),
        expect_layer="heartbeat",
        expect_code="FLUX_EVICTION_LOOP",
        slow=True,
    ),
)

BY_NAME: dict[str, Scenario] = {s.name: s for s in SCENARIOS}


def scenario(name: str) -> Scenario:
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown scenario {name!r}; choose one of {', '.join(BY_NAME)}") from None
