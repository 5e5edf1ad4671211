"""A large bundle shaped like what ``bundler doctor --profile flux`` writes, for benchmarks.

One Flux server and ``workers`` worker hosts, each with its canonical evidence
(the documents the Flux normalizer writes, ``evidence/logs.json`` indexing the
logs) and one big log per host. The logs follow what a busy Flux 0.87 fleet
with auth disabled prints (flux-observed §5):

* server: the ``Auth disabled — request treated as admin`` warning on most
  lines (1321 of 1488 in the observed run), a claim line per execution, and
  rarely a STALE / evicted / unclaimed / reconnect cycle or a stale claim;
* workers: ``Execution Scheduled|Claimed|COMPLETED`` per execution, and rarely
  a lost connection (the two-line httpx 401 record included), SSE errors, a
  reconnect, a traceback (continuation lines without a timestamp).

Rare records come at about one per ``RARE_EVERY`` lines, so nearly every
64 KiB of log holds routine lines only and one in a few holds something to read.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime

from schemas.evidence import (
    AuthorizationEvidence,
    CapacityEvidence,
    DeploymentEvidence,
    EvidenceDoc,
    HeartbeatPolicy,
    HostsEvidence,
    Job,
    JobPhase,
    JobsEvidence,
    LocalStateEvidence,
    LogIndex,
    OutcomeEvidence,
    ProductInfo,
    RequirementsEvidence,
    ServerEvidence,
    WorkersEvidence,
    WorkerStatus,
)
from schemas.evidence.capacity import WorkerCapacity
from schemas.evidence.hosts import HostSysinfo
from schemas.evidence.logs import LogSource
from schemas.evidence.workers import ConnectionState, HealthState

OBSERVED = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
RARE_EVERY = 10_000
SPAM = "flux.security.auth_service - WARNING - Auth disabled — request treated as admin (anonymous)"
CLAIM = "flux.api.worker_routes - INFO - Execution {x} claimed by worker {w}"
PHASES = ("Scheduled", "Claimed", "COMPLETED")
SERVER_RARE = (
    "flux.server - WARNING - Worker {w} missed heartbeat, marked STALE (grace period: 30s)",
    "flux.server - WARNING - Worker {w} evicted (stale for >30s)",
    "flux.server - INFO - Unclaimed execution {x} from evicted worker {w}",
    "flux.api.worker_routes - INFO - Worker {w} disconnected (remaining: 6)",
    "flux.api.worker_routes - INFO - Worker connected: {w}",
    "flux.api.worker_routes - INFO - Worker registered successfully: {w}",
    "flux.api.worker_routes - WARNING - Stale claim for execution {x}: request carries "
    "generation 1 but the row is at 2; the execution was reassigned",
    "flux.server - INFO - Scheduler started (poll_interval=30.0s)",
)
WORKER_RARE = (
    "flux.worker - WARNING - Connection lost (HTTPStatusError: Client error '401 Unauthorized' "
    "for url 'http://10.0.0.1:8000/workers/register'\nFor more information check: "
    "https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/401). Reconnecting in {d:.1f}s...",
    "flux.worker - WARNING - Connection lost (ConnectError: All connection attempts failed). "
    "Reconnecting in {d:.1f}s...",
    "flux.worker - ERROR - Error in SSE connection: SSE stream silent for 30s; treating the "
    "connection as dead",
    "flux.worker - INFO - SSE connection closed, reconnecting...",
    "flux.worker - INFO - Establishing connection with server...",
    "flux.worker - INFO - Connection established successfully",
    "flux.worker - ERROR - Unhandled error in runner\nTraceback (most recent call last):\n"
    '  File "site-packages/flux/worker.py", line 1021, in _execute\n'
    "    await runner.run(request)\nRuntimeError: runner exited",
)


def log_lines(seed: int, size: int, worker: str | None, workers: int) -> Iterator[bytes]:
    """About ``size`` bytes of one Flux log (the server's when ``worker`` is None), in batches."""
    rng = random.Random(seed)
    produced, tick, cycle, batch = 0, 0, 0, []
    execution = ""
    while produced < size:
        tick += rng.random() < 0.02  # ~50 lines a second
        stamp = f"2026-11-29 {10 + tick // 3600 % 8:02d}:{tick // 60 % 60:02d}:{tick % 60:02d}"
        roll = rng.random()
        name, x = f"w{rng.randint(1, workers)}", f"{rng.getrandbits(128):032x}"
        if roll < 1 / RARE_EVERY:
            pool = SERVER_RARE if worker is None else WORKER_RARE
            body = rng.choice(pool).format(w=name, x=x, d=rng.random() * 30)
        elif worker is None:
            body = SPAM if roll < 0.95 else CLAIM.format(x=x, w=name)
        else:
            phase = PHASES[cycle % 3]
            execution = x if cycle % 3 == 0 else execution
            cycle += 1
            body = f"flux.worker - INFO - Execution {phase} - etl v3 - {execution}"
        line = f"{stamp} - {body}"
        batch.append(line)
        produced += len(line) + 1
        if len(batch) >= 4096:
            yield ("\n".join(batch) + "\n").encode()
            batch = []
    if batch:
        yield ("\n".join(batch) + "\n").encode()


def evidence(workers: int) -> list[EvidenceDoc]:
    """The canonical documents a Flux doctor run writes for this fleet (all healthy)."""
    names = [f"w{i}" for i in range(1, workers + 1)]
    policy = HeartbeatPolicy(interval_s=10, timeout_s=30, grace_s=30, source="settings")
    logs = [LogSource(member=SERVER_LOG, host_alias="h01", role="server", origin="file")]
    logs += [
        LogSource(member=worker_log(i), host_alias=f"h{i + 1:02d}", role="worker", worker=n)
        for i, n in enumerate(names, 1)
    ]
    hosts = [HostSysinfo(alias="h01", role="server", hostname="flux-server", cpu_count=8)]
    hosts += [
        HostSysinfo(alias=f"h{i + 1:02d}", role="worker", worker=n, cpu_count=8)
        for i, n in enumerate(names, 1)
    ]
    documents: list[EvidenceDoc] = [
        ProductInfo(name="flux", server_version="0.87.5", heartbeat=policy),
        ServerEvidence(url="http://flux-server:8000", reachable=True, healthy=True, ready=True),
        WorkersEvidence(
            heartbeat=policy,
            workers=[
                WorkerStatus(
                    name=n,
                    native_status="online",
                    connection=ConnectionState.ONLINE,
                    health=HealthState.HEALTHY,
                    host_alias=f"h{i + 1:02d}",
                    heartbeat_age_s=2.0,
                    slots_max=16,
                    in_flight=1,
                )
                for i, n in enumerate(names, 1)
            ],
        ),
        AuthorizationEvidence(applicable=False),
        JobsEvidence(jobs=[Job(name="etl", id="e1", kind="execution", phase=JobPhase.COMPLETED)]),
        DeploymentEvidence(applicable=False),
        RequirementsEvidence(applicable=False),
        CapacityEvidence(
            workers=[WorkerCapacity(worker=n, slots_max=16, slots_in_use=1) for n in names]
        ),
        OutcomeEvidence(),
        LocalStateEvidence(),
        HostsEvidence(hosts=hosts),
        LogIndex(logs=logs),
    ]
    for document in documents:
        document.observed_at = OBSERVED
        document.product = "flux"
    return documents


SERVER_LOG = "hosts/h01/logs/0.log"


def worker_log(index: int) -> str:
    return f"hosts/h{index + 1:02d}/logs/0.log"
