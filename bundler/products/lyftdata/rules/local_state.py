"""A LyftData worker cannot start on corrupt SQLite state: it crash-loops and goes silent.

The generic analyzer reads a corrupt state file as a deployment problem (the
worker heartbeats but its jobs cannot run). When the worker has *also*
stopped heartbeating, LyftData's behaviour makes the corrupt file the cause,
not a second problem: the heartbeat rung fails with ``LOCAL_STATE_CORRUPT``
and the ``--reset-state repair`` path, instead of a generic "restart the
worker" that would only restart the loop.
"""

from __future__ import annotations

from schemas import Layer
from schemas.evidence import ConnectionState, LocalStateEvidence, WorkersEvidence

from ....analyze.api import RuleContext, RuleResult, rule
from ....analyze.codes import LOCAL_STATE_CORRUPT
from ....analyze.facts import citations, cite_source, find_worker
from ..recovery import RESET_STATE_AUTH, RESET_STATE_REPAIR

_SILENT = {ConnectionState.STALE, ConnectionState.OFFLINE, ConnectionState.LOST}


@rule(Layer.HEARTBEAT, products=["lyftdata"])
def corrupt_state_keeps_worker_down(ctx: RuleContext) -> RuleResult | None:
    target = ctx.target.worker
    workers = ctx.evidence.get(WorkersEvidence)
    state = ctx.evidence.get(LocalStateEvidence)
    if target is None or workers is None or state is None:
        return None
    found = find_worker(ctx.evidence, target)
    worker = found[1] if found else None
    if worker is None or worker.connection not in _SILENT:
        return None
    corrupt = [
        (i, f)
        for i, f in enumerate(state.files)
        if f.kind == "sqlite"
        and f.integrity == "corrupt"
        and (f.worker == target or (f.worker is None and f.host_alias == worker.host_alias))
    ]
    if not corrupt:
        return None
    restarts = (worker.metadata or {}).get("service.NRestarts")
    looping = f" (service restarted {restarts} times)" if restarts else ""
    names = ", ".join(f.path for _, f in corrupt)
    evidence = [  # through the evidence set: a reading of disputed records renumbers them
        ctx.evidence.cite(LocalStateEvidence, f"/files/{i}/integrity", f.detail or "corrupt")
        for i, f in corrupt
    ]
    for _, f in corrupt:
        evidence += citations(cite_source(f.source))
    auth_only = all("auth" in f.path.lower() for _, f in corrupt)
    recovery = (RESET_STATE_AUTH if auth_only else RESET_STATE_REPAIR).model_copy(deep=True)
    return RuleResult.fail(
        LOCAL_STATE_CORRUPT,
        f"Worker {target} stopped heartbeating and its local state {names} is corrupt"
        f"{looping}: LyftData workers do not start on corrupt SQLite state, so a restart "
        "alone will not bring it back.",
        evidence=evidence,
        recovery=recovery,
        acceptance=["recent heartbeat and system information"],
        files=[f.path for _, f in corrupt],
    )
