"""Workflows the Flux lab registers on its server (uploaded as source, run by Flux workers).

This file is not imported by bundler: the lab uploads it with ``POST /workflows``
and Flux parses the decorators statically, then workers execute it. Each
workflow exists to put the fleet into one observable state:

* ``hello_world``: the canary; completes at once on any worker.
* ``sleeper``: holds a slot for ``seconds`` (used to have work in flight).
* ``affinity_nomatch``: asks for a label no lab worker carries (zone=mars).
* ``needs_gpu``: asks for a GPU no lab worker has.
* ``zone_c_sleeper``: a sleeper only zone=c workers may run (slot saturation).
* ``loop_starver``: CPU-bound code on the *in-process* runner: it blocks the
  worker's event loop in bursts, so the worker reports itself unhealthy.
* ``always_fails``: its one task raises, every time, on any healthy worker: the
  fleet is fine and the work is not.
* ``cached_report``: its task is memoized (``cache=True``), so Flux itself writes the
  result under the worker's ``.flux/.cache/``: on a full disk that write fails.
"""

import asyncio
import time

from flux import ExecutionContext, task, workflow
from flux.domain.resource_request import ResourceRequest


@task
async def say_hello(name: str) -> str:
    return f"Hello, {name}"


@task
async def nap(seconds: float) -> float:
    await asyncio.sleep(seconds)
    return seconds


@task
async def burn_cpu(bursts: int, burst_seconds: float) -> int:
    # Busy-wait without awaiting: on the in-process runner this starves the
    # worker's own event loop (heartbeats, lag probes) for burst_seconds.
    for _ in range(bursts):
        deadline = time.monotonic() + burst_seconds
        while time.monotonic() < deadline:
            pass
        await asyncio.sleep(0.05)
    return bursts


@task
async def refuse(reason: str) -> str:
    raise RuntimeError(f"lab task refused: {reason}")


@task.with_options(cache=True)
async def build_report(kib: int) -> str:
    return "r" * (1024 * kib)


@workflow
async def hello_world(ctx: ExecutionContext[str]):
    return await say_hello(ctx.input or "World")


@workflow
async def sleeper(ctx: ExecutionContext[float]):
    return await nap(float(ctx.input or 5))


@workflow.with_options(affinity={"zone": "mars"})
async def affinity_nomatch(ctx: ExecutionContext[str]):
    return await say_hello(ctx.input or "Mars")


@workflow.with_options(requests=ResourceRequest(gpu=1))
async def needs_gpu(ctx: ExecutionContext[str]):
    return await say_hello(ctx.input or "GPU")


@workflow.with_options(affinity={"zone": "c"})
async def zone_c_sleeper(ctx: ExecutionContext[float]):
    return await nap(float(ctx.input or 30))


@workflow.with_options(runner="inprocess")
async def loop_starver(ctx: ExecutionContext[int]):
    return await burn_cpu(int(ctx.input or 20), 2.5)


@workflow
async def always_fails(ctx: ExecutionContext[str]):
    return await refuse(ctx.input or "always")


@workflow
async def cached_report(ctx: ExecutionContext[int]):
    report = await build_report(int(ctx.input or 256))
    return len(report)
