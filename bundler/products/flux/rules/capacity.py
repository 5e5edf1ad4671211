"""Layer 6 for Flux: is there a free slot on a worker that may take the execution?

A saturated worker looks exactly like an unplaceable execution from the
outside (CREATED, no event, no log line). The only signs are ``in_flight``
at the worker's ``max_concurrent_executions`` (a SQLite-only setting) and
its advertised ``flux.slots_free`` of 0.
"""

from __future__ import annotations

from bundler.analyze.api import RuleContext, RuleResult, make_finding, rule
from bundler.analyze.contradictions import conflicts_unknown, entries
from bundler.analyze.facts import capacity_entry, citations, cite_job, cite_source, job_label
from bundler.analyze.wording import CITED, counted, grouped, listed_names, plural, some_names
from schemas import Citation, Layer
from schemas.evidence import CapacityEvidence, JobPhase, WorkerCapacity, WorkersEvidence

from .. import codes, recovery
from ..matching import ready_for
from .facts import FLUX, subject_worker

DESCRIBED = 5
"""Groups of full workers described in FLUX_SLOTS_SATURATED; the workers of the rest are
counted."""


def saturated(item: WorkerCapacity) -> bool:
    if item.slots_free is not None:
        return item.slots_free <= 0
    return bool(item.slots_max) and (item.slots_in_use or 0) >= (item.slots_max or 0)


def _load(item: WorkerCapacity) -> str:
    """What a worker runs against its limit: ``1 of 1 slot, flux.slots_free 0``."""
    free = "" if item.slots_free is None else f", flux.slots_free {item.slots_free:g}"
    used = "?" if item.slots_in_use is None else str(item.slots_in_use)
    if item.slots_max is None:  # only the database row says it (none collected or read)
        runs = counted(item.slots_in_use, "execution") if item.slots_in_use is not None else ""
        return f"{runs or '? executions'}, its slot limit not reported{free}"
    limit = "unlimited slots" if item.slots_max == 0 else counted(item.slots_max, "slot")
    return f"{used} of {limit}{free}"


def _describe(item: WorkerCapacity) -> str:
    return f"{item.worker} runs {_load(item)}{_agreed(item)}"


def _agreed(item: WorkerCapacity) -> str:
    """`` (2 sources agree: …)`` when more than one source counted what the worker runs."""
    sources = item.counted_by or []
    if len(sources) < 2:
        return ""
    said = "; ".join(str(source.ref) for source in sources)
    return f" ({len(sources)} sources agree: {said})"


def _cite_counts(item: WorkerCapacity) -> list[Citation]:
    """The raw answer of each source that counted what the worker runs (``counted_by``)."""
    return citations(*(cite_source(source) for source in item.counted_by or []))


def _full_workers(full: list[WorkerCapacity]) -> str:
    """``w1 runs 1 of 1 slot; w2, w3 and 4 more each run 2 of 2 slots``: workers at the
    same load described together, the biggest group first.

    Each load says which sources agree on it, as a worker's own slot finding does: the
    finding cites them, and a reader must not have to open the citations to learn that the
    count was borne out by more than the worker's last pong. Workers whose counts the same
    sources bear out stay one group."""
    groups = grouped((item.worker, _load(item) + _agreed(item)) for item in full)
    text = "; ".join(
        f"{names[0]} runs {load}" if len(names) == 1 else f"{some_names(names)} each run {load}"
        for load, names in groups[:DESCRIBED]
    )
    rest = sum(len(names) for _, names in groups[DESCRIBED:])
    return text + (f"; and {rest} more, all full" if rest else "")


@rule(Layer.CAPACITY, products=FLUX)
def flux_slots(ctx: RuleContext) -> RuleResult | None:
    job = ctx.target.job
    if job is not None and job.phase is JobPhase.UNASSIGNED:
        return _waiting_job(ctx)
    name = subject_worker(ctx)
    found = capacity_entry(ctx.evidence, name) if name else None
    if found is None:
        return None
    index, item = found
    if saturated(item) and item.queue_pending:
        return RuleResult.warn(
            codes.FLUX_WORKER_SATURATED,
            f"{_describe(item)}; {counted(item.queue_pending, 'execution')} it could run "
            f"{plural(item.queue_pending, 'is', 'are')} waiting.",
            evidence=[_cite_slots(ctx, index, item), *_cite_counts(item)],
            recovery=recovery.saturated([item.worker]),
        )
    return RuleResult.pass_(
        make_finding(
            codes.FLUX_SLOTS_AVAILABLE,
            "pass",
            f"{_describe(item)}.",
            evidence=[
                ctx.evidence.cite(CapacityEvidence, f"/workers/{index}"),
                *_cite_counts(item),
            ],
        )
    )


def _cite_slots(ctx: RuleContext, index: int, item: WorkerCapacity) -> Citation:
    """The slot figure that made the worker full: ``flux.slots_free`` where it advertises
    one, else the slots in use (what a worker that advertises none is judged by)."""
    if item.slots_free is not None:
        return ctx.evidence.cite(CapacityEvidence, f"/workers/{index}/slots_free", item.slots_free)
    return ctx.evidence.cite(CapacityEvidence, f"/workers/{index}/slots_in_use", item.slots_in_use)


def _waiting_job(ctx: RuleContext) -> RuleResult | None:
    job = ctx.target.job
    assert job is not None
    workers = ctx.evidence.get(WorkersEvidence)
    if workers is None:
        return None
    ready = ready_for(job, workers.workers)
    if not ready.yes:
        return None  # placement already says why nobody can take it (or that it is unknown)
    # A worker whose records disagree on whether it may take the execution, or on whether it
    # is full, counts neither as a free slot nor as a full one.
    doubted = ready.disputed + [w.name for _, w in ready.yes if _full_disputed(ctx, w.name)]
    eligible = [w for _, w in ready.yes if w.name not in doubted]
    if not eligible:
        return conflicts_unknown(ctx.evidence, doubted, Layer.CAPACITY)
    slots = [f for f in (capacity_entry(ctx.evidence, w.name) for w in eligible) if f is not None]
    full = [(i, c) for i, c in slots if saturated(c)]
    evidence = citations(cite_job(ctx.evidence, job, "native_state", value=job.native_state))
    evidence += [
        cited for i, c in full[:CITED] for cited in (_cite_slots(ctx, i, c), *_cite_counts(c))
    ]
    if slots and len(full) == len(eligible):
        if doubted:  # every worker known to take it is full; one whose records disagree may not be
            return conflicts_unknown(ctx.evidence, doubted, Layer.CAPACITY)
        names = [c.worker for _, c in full]
        return RuleResult.fail(
            codes.FLUX_SLOTS_SATURATED,
            f"{job_label(job)} waits for a slot: every worker that may run it is full "
            f"({_full_workers([c for _, c in full])}).",
            evidence=evidence,
            recovery=recovery.saturated(names),
            acceptance=[
                f"{job_label(job)} is CLAIMED",
                "flux.slots_free > 0 on an eligible worker",
            ],
            saturated=names,
        )
    if not full:
        return RuleResult.warn(
            codes.FLUX_DISPATCH_PENDING,
            f"{job_label(job)} is unassigned although {listed_names([w.name for w in eligible])} "
            "could take it and has free slots; if it stays so, set FLUX_LOG_LEVEL=DEBUG on the "
            "server to see the dispatch decision for each candidate.",
            evidence=evidence,
        )
    return None


def _full_disputed(ctx: RuleContext, name: str) -> bool:
    """True when the worker's capacity records disagree on whether it is full."""
    return len({saturated(c) for _, c in entries(ctx.evidence, CapacityEvidence, name)}) > 1
