"""A waiting Flux execution whose every eligible worker has a full state volume.

Each worker's own ladder warns of its full volume (:mod:`.volume`, capacity), but a waiting
execution's ladder has no worker: its capacity rung judged slots alone ("unassigned although
w1 and w2 could take it and have free slots"), and placement, when those workers are down,
said only that they cannot take work now. When every worker that may take it cannot write
its state, that is why it cannot run there, and each worker's ``df`` line says so:

* **capacity** (eligible workers online): fail, the job waits for a worker that can write;
  it replaces "dispatch pending", whose free slots cannot run it;
* **placement** (the eligible workers cannot take work now: paused, draining, starved): a
  warning beside that failure, for a worker that cannot write its state may crash or fail to
  start. (Offline candidates stop the execution's ladder at the heartbeat of the best of
  them, where :mod:`bundler.analyze.host_context` shows that worker's full volume.)

One eligible worker with room (or whose volume was not read, or whose records disagree on
it) means no such finding: the execution may run there.
"""

from __future__ import annotations

from collections.abc import Iterable

from bundler.analyze.api import RuleContext, RuleResult, rule
from bundler.analyze.facts import citations, cite_job, job_label
from bundler.analyze.wording import CITED
from schemas import Citation, Layer
from schemas.evidence import Job, JobPhase, LocalStateEvidence, StateVolume, WorkersEvidence

from .. import codes
from ..matching import mismatches, ready_for
from ..recovery_host import FullVolume, volumes_full
from .facts import FLUX
from .placement import WAITING
from .volume import Pressure, cite_pressure, pressure

Full = list[tuple[str, int, StateVolume, Pressure]]


def all_full(local: LocalStateEvidence, workers: Iterable[str]) -> Full | None:
    """Each worker's full volume, or None when one of them has room, was not read, or is
    read twice with only one record full (that one decides nothing)."""
    by_worker: dict[str, list[tuple[int, StateVolume]]] = {}
    for index, volume in enumerate(local.volumes or []):
        if volume.worker is not None:
            by_worker.setdefault(volume.worker, []).append((index, volume))
    found: Full = []
    for worker in workers:
        judged = [(i, v, pressure(v)) for i, v in by_worker.get(worker, [])]
        full = [(i, v, p) for i, v, p in judged if p is not None and p.full]
        if not judged or len(full) < len(judged):
            return None
        index, volume, said = full[0]
        found.append((worker, index, volume, said))
    return found or None


def _eligible(job: Job, ctx: RuleContext, *, available: bool) -> list[str] | None:
    """The workers that meet ``job``'s requirements (and can take work now, ``available``),
    once each; None when a worker's records disagree on it."""
    workers = ctx.evidence.get(WorkersEvidence)
    if workers is None:
        return None
    ready = ready_for(job, workers.workers)
    if ready.disputed:
        return None
    if available:
        return list(dict.fromkeys(w.name for _, w in ready.yes))
    if ready.yes:
        return []
    return list(
        dict.fromkeys(w.name for w in workers.workers if not mismatches(job.requirements, w))
    )


def _words(full: Full) -> str:
    """``w1 at /srv/w1: 0 B of 4.0 MiB free (100 % used); w2 …`` (the first CITED, the rest
    counted)."""
    said = "; ".join(f"{w} at {v.mount}: {p.words()}" for w, _, v, p in full[:CITED])
    rest = len(full) - CITED
    return said + (f"; and {rest} more, all full" if rest > 0 else "")


def _evidence(ctx: RuleContext, job: Job, full: Full) -> list[Citation]:
    cited = citations(cite_job(ctx.evidence, job, "native_state", value=job.native_state))
    for _, index, volume, said in full[:CITED]:
        cited += cite_pressure(ctx, index, volume, said)
    return cited


def _judged(ctx: RuleContext, *, available: bool) -> tuple[Job, Full] | None:
    job = ctx.target.job
    local = ctx.evidence.get(LocalStateEvidence)
    if job is None or job.phase not in WAITING or job.assigned_worker or local is None:
        return None
    names = _eligible(job, ctx, available=available)
    full = all_full(local, names) if names else None
    return (job, full) if full else None


def _recovery_of(full: Full) -> list[FullVolume]:
    return [FullVolume(w, v.mount, p.of) for w, _, v, p in full]


@rule(Layer.CAPACITY, products=FLUX)
def flux_eligible_volumes_full(ctx: RuleContext) -> RuleResult | None:
    """FAIL ``FLUX_ELIGIBLE_VOLUMES_FULL``: every worker that may take the waiting execution
    now has a full state volume."""
    judged = _judged(ctx, available=True)
    if judged is None or judged[0].phase is not JobPhase.UNASSIGNED:
        return None
    job, full = judged
    names = [w for w, *_ in full]
    return RuleResult.fail(
        codes.FLUX_ELIGIBLE_VOLUMES_FULL,
        f"{job_label(job)} waits, and every worker that may take it cannot write its state: "
        f"the volume under each one's Flux home is full ({_words(full)}). Dispatched there, a "
        "run that writes (a memoized result, local output) fails with ENOSPC, and a worker "
        "that cannot write its state may crash; their free slots and advertised disk_free "
        "(which measures `/`) do not show it.",
        evidence=_evidence(ctx, job, full),
        recovery=volumes_full(_recovery_of(full), down=False),
        acceptance=[
            "`df -P -k` and `df -P -i` of an eligible worker's .flux/ show room",
            f"{job_label(job)} is CLAIMED and COMPLETED",
        ],
        workers=names,
    )


@rule(Layer.PLACEMENT, products=FLUX)
def flux_unavailable_volumes_full(ctx: RuleContext) -> RuleResult | None:
    """WARN ``FLUX_ELIGIBLE_VOLUMES_FULL`` beside placement's failure: the workers that meet
    the execution's requirements cannot take work now, and each one's volume is full."""
    judged = _judged(ctx, available=False)
    if judged is None:
        return None
    job, full = judged
    names = [w for w, *_ in full]
    return RuleResult.warn(
        codes.FLUX_ELIGIBLE_VOLUMES_FULL,
        f"{job_label(job)} waits for workers that cannot take work now, and every one of "
        f"them has a full state volume ({_words(full)}): a worker that cannot write its state "
        "can crash or fail to start (this may be why one is down), and back at work on it "
        "each fails its runs with ENOSPC.",
        evidence=_evidence(ctx, job, full),
        recovery=volumes_full(_recovery_of(full), down=True),
        acceptance=["`df -P -k` and `df -P -i` of an eligible worker's .flux/ show room"],
        workers=names,
    )
