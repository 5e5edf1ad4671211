"""Benchmark: normalizing a large LyftData fleet's raw evidence, and the simulator serving it.

Builds a synthetic scenario (``--workers`` external workers, ``--jobs`` jobs
spread over worker groups), renders every response the plan would fetch with
the simulator's own handlers into a bundle-shaped MemorySource, then times
the LyftData normalizer (median of ``--repeat`` runs) and reports peak memory.
A second part starts the real simulator process and measures GET throughput
of ``/api/workers/{id}/auth`` over one keep-alive connection.

Run: ``.venv/bin/python bench/lyftdata_normalize.py [--workers 100 --jobs 200]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bundler.products.base import NormalizeContext, StepResult  # noqa: E402
from bundler.products.lyftdata import PROFILE  # noqa: E402
from bundler.source import MemorySource  # noqa: E402
from samples.lyftdata_sim.api_delivery import canary_record  # noqa: E402
from samples.lyftdata_sim.routes import respond  # noqa: E402
from samples.lyftdata_sim.scenario import JobSpec, Scenario, WorkerSpec  # noqa: E402
from schemas.manifest import CollectorStatus  # noqa: E402

GROUPS = 10


def fleet(workers: int, jobs: int) -> Scenario:
    return Scenario(
        description="benchmark fleet",
        workers=[WorkerSpec(id=f"w{i:04d}", group=f"g{i % GROUPS}") for i in range(workers)],
        jobs=[
            JobSpec(name=f"job-{j:04d}", worker_group=f"g{j % GROUPS}", replicas=2)
            for j in range(jobs)
        ],
    )


def render(scenario: Scenario, now: datetime) -> tuple[MemorySource, list[StepResult]]:
    """What collection would have stored: every plan GET, answered by the simulator."""
    source, results = MemorySource(), []
    for step in PROFILE.plan().http_steps():
        if step.for_each is None:
            bindings: list[dict[str, str]] = [{}]
        elif step.for_each.step == "workers":
            bindings = [{"id": w.id} for w in scenario.workers]
        elif step.for_each.step == "jobs":
            bindings = [{"name": j.name} for j in scenario.jobs]
        else:
            bindings = [
                {"id": c["canary_id"]}
                for j in scenario.jobs
                if (c := canary_record(scenario, j, now)) is not None
            ]
        for index, bound in enumerate(bindings):
            status, body = respond(scenario, now, step.path.format(**bound), dict(step.params))
            member = step.member.format(index=f"{index:03d}")
            source.add(member, json.dumps(body))
            results.append(
                StepResult(
                    step.id,
                    f"http.{step.id}.{index:03d}",
                    CollectorStatus.OK,
                    member,
                    bound=bound,
                    http_status=status,
                )
            )
    return source, results


def simulator_throughput(requests: int) -> float:
    import httpx

    from tests.support.lyftdata_sim import running_simulator

    with (
        tempfile.TemporaryDirectory() as tmp,
        running_simulator("healthy", Path(tmp)) as sim,
        httpx.Client(base_url=sim.url, headers=sim.headers(), verify=sim.verify) as client,
    ):
        client.get("/api/workers").raise_for_status()
        start = time.perf_counter()
        for _ in range(requests):
            client.get("/api/workers/edge-01/auth").raise_for_status()
        return requests / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()
    now = datetime.now(UTC)
    scenario = fleet(args.workers, args.jobs)
    start = time.perf_counter()
    source, results = render(scenario, now)
    rendered_s = time.perf_counter() - start
    raw_bytes = sum(len(source.read_bytes(n)) for n in source.names())
    timings, cpu = [], []
    for _ in range(args.repeat):
        ctx = NormalizeContext(source=source, results=results, hosts=[], observed_at=now)
        start, start_cpu = time.perf_counter(), time.process_time()
        docs = PROFILE.normalize(ctx)
        timings.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    counts = {d.schema_name: len(d.model_dump_json()) for d in docs}
    print(
        f"fleet: {args.workers} workers, {args.jobs} jobs, {len(results)} responses, "
        f"{raw_bytes / 1e6:.1f} MB raw (simulator rendered them in {rendered_s:.1f} s)"
    )
    print(
        f"normalize: median {statistics.median(timings) * 1000:.0f} ms "
        f"(min {min(timings) * 1000:.0f}, max {max(timings) * 1000:.0f}), CPU median "
        f"{statistics.median(cpu) * 1000:.0f} ms over {args.repeat} runs;"
        f" peak RSS {peak_mb:.0f} MiB; evidence {sum(counts.values()) / 1e6:.1f} MB"
    )
    rate = simulator_throughput(args.requests)
    print(
        f"simulator: {rate:.0f} GET/s over one HTTPS keep-alive connection "
        f"({args.requests} requests of /api/workers/{{id}}/auth)"
    )


if __name__ == "__main__":
    main()
