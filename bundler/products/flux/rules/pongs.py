"""A worker's last heartbeat dated by the server's DEBUG log, where no persisted one is read.

Flux keeps ``workers.last_seen_at`` only in its database, and doctor reads it from a
SQLite file alone: on PostgreSQL the bundle holds no heartbeat time, and the rung read
unknown (``FLUX_HEARTBEAT_NOT_READ``), asking for the server log at
``FLUX_LOG_LEVEL=DEBUG``. That log has a ``Pong received from worker <name>`` line per
heartbeat the server heard, which is what the reaper itself measures from (STALE once
the last pong is older than heartbeat_timeout, flux-observed §3). So the latest such line
before collection dates the worker's last sign of life as the persisted heartbeat would:
within heartbeat_timeout it passes, older it is stale.
"""

from __future__ import annotations

from bundler.analyze.api import RuleContext, RuleResult, make_finding
from bundler.analyze.doubt import CLOCK_TOLERANCE_S
from bundler.analyze.facts import cite_events, cite_worker, reference_time
from schemas.evidence import WorkersEvidence, WorkerStatus

from .. import codes, recovery
from .facts import events, policy, server_side


def heard_in_log(ctx: RuleContext, index: int, worker: WorkerStatus) -> RuleResult | None:
    """Pass or stale on the server's latest ``Pong received`` line for ``worker``.

    None (the rung stays undecided) without such a line, a collection time or a timeout,
    and when the latest line before collection is too old but later ones exist: dated
    after the worker list was read, they say the clocks disagree or the worker came back,
    and neither decides the rung.
    """
    name = worker.name
    heard = [(e.at, e) for e in server_side(events(ctx, "pong", worker=name)) if e.at]
    reference = reference_time(ctx.evidence, ctx.evidence.get(WorkersEvidence))
    timeout = policy(ctx).timeout_s
    if not heard or reference is None or timeout is None:
        return None
    before = [(at, e) for at, e in heard if (at - reference).total_seconds() <= CLOCK_TOLERANCE_S]
    if not before:
        return None
    at, latest = max(before, key=lambda pair: pair[0])  # the latest in time, not in log order
    since = (reference - at).total_seconds()
    if since <= timeout:
        return RuleResult.pass_(
            make_finding(
                codes.FLUX_HEARTBEAT_LOGGED,
                "pass",
                f"Worker {name} is {worker.native_status}; the server logged its last heartbeat "
                f"(DEBUG 'Pong received') {max(since, 0.0):.0f}s before collection, within the "
                f"{timeout:.0f}s heartbeat timeout.",
                evidence=[
                    cite_worker(ctx.evidence, index, "native_status", value=worker.native_status),
                    *cite_events([latest]),
                ],
            )
        )
    if len(before) < len(heard):
        return None
    return RuleResult.fail(
        codes.FLUX_HEARTBEAT_STALE,
        f"Worker {name} is listed {worker.native_status}, but the server last logged a "
        f"heartbeat from it (DEBUG 'Pong received') {since:.0f}s before collection (STALE "
        f"after {timeout:.0f}s): it has stopped answering and will be evicted.",
        evidence=[
            cite_worker(ctx.evidence, index, "native_status", value=worker.native_status),
            *cite_events([latest]),
        ],
        recovery=recovery.evicted(name, already_evicted=False),
        heartbeat_age_s=since,
    )
