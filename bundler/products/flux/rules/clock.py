"""A Flux worker whose clock is off: said from the times both sides stamp (runs, registration).

Flux never compares clocks (observed running a worker 2 h off under libfaketime): the
server judges heartbeats and evictions by its own clock, the worker registers, stays
online and completes its runs. What goes wrong is every time the worker stamps: its log
lines and its runs' ``WORKFLOW_STARTED`` / ``WORKFLOW_COMPLETED`` events. Read as stamped,
a run of a worker ahead looks finished after the bundle was collected, one of a worker
behind looks started before it was claimed, and lines of its log sort hours away from the
server's lines about the same moment.

The bounds come from :class:`~schemas.evidence.ClockOffset` (the Flux normalizer, from
the runs' events, or for a worker that ran nothing its registration's log lines against
the server's): certain, so the skew named is "at least" that much. With both bounds the
analysis reads the times the worker stamps on the server's clock (a run's end as a span:
:mod:`bundler.analyze.worker_clock`), so its runs judge its outcome as a right clock would.
A host whose own clock the collector read is judged by the generic ``CLOCK_SKEW`` as
well; this one also speaks where only the API was read, or only the worker process's clock
is off.
"""

from __future__ import annotations

from bundler.analyze.api import RuleContext, RuleResult, rule
from bundler.analyze.facts import citations, cite_source, find_worker
from schemas import Layer
from schemas.evidence import ClockOffset, Source, WorkersEvidence

from .. import codes
from ..recovery_host import clock_skew
from .facts import FLUX, subject_worker

SKEW_WARN_S = 5.0
"""As the generic clock rule: beyond it, log times and run order blur (Flux logs whole
seconds, and a run starts within a second or two of its claim)."""


def _amount(seconds: float) -> str:
    """``7199.4`` -> ``7199 s (2.0 h)``: exact enough to compare, readable at a glance."""
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds:.0f} s ({seconds / size:.1f} {unit})"
    return f"{seconds:.0f} s"


def certain_skew(offset: ClockOffset) -> tuple[float, Source | None] | None:
    """The skew the bounds prove beyond :data:`SKEW_WARN_S` (signed) and what proves it."""
    if offset.at_most_s is not None and offset.at_most_s < -SKEW_WARN_S:
        return offset.at_most_s, offset.at_most_source
    if offset.at_least_s is not None and offset.at_least_s > SKEW_WARN_S:
        return offset.at_least_s, offset.at_least_source
    return None


def _how(behind: bool, source: Source | None) -> str:
    """What the bound is made of: a run's stamps, or the worker's registration lines."""
    if source is not None and source.method == "log":
        return (
            "its log says its connection was established, after the server registered it, "
            "earlier than the server's log says it registered the worker"
            if behind
            else "its log says it began registering later than the server's log says it "
            "registered the worker"
        )
    return (
        "it stamped a run's start before the server stamped that run's claim"
        if behind
        else "it stamped a run's events later than the collector read that run"
    )


def _between(offset: ClockOffset) -> str:
    """The span the times it stamps are read with, when both bounds are known."""
    if offset.at_least_s is None or offset.at_most_s is None:
        return ""
    return (
        f" The bundle bounds its offset between {offset.at_least_s:+.0f} s and "
        f"{offset.at_most_s:+.0f} s: the times it stamps are read on the server's clock with it."
    )


@rule(Layer.HEARTBEAT, products=FLUX, needs=(WorkersEvidence,), host=True)
def flux_worker_clock(ctx: RuleContext) -> RuleResult | None:
    found = find_worker(ctx.evidence, subject_worker(ctx))
    if found is None or found[1].clock_offset is None:
        return None
    index, worker = found
    offset = worker.clock_offset
    assert offset is not None
    proven = certain_skew(offset)
    if proven is None:
        return None
    skew, source = proven
    behind = skew < 0
    field = "at_most_s" if behind else "at_least_s"
    against = offset.at_most_against if behind else offset.at_least_against
    return RuleResult.warn(
        codes.FLUX_WORKER_CLOCK_SKEW,
        f"The clock of worker {worker.name} is at least {_amount(abs(skew))} "
        f"{'behind' if behind else 'ahead of'} the server's: {_how(behind, source)}. Flux "
        f"judges heartbeats by the server's clock alone, so {worker.name} stays online and "
        "runs work, but every time it stamps (its log lines, its runs' start and end) is off "
        "by as much: runs and log lines sort out of order." + _between(offset),
        evidence=[
            ctx.evidence.cite(WorkersEvidence, f"/workers/{index}/clock_offset/{field}", skew),
            *citations(cite_source(source), cite_source(against)),
        ],
        recovery=clock_skew(worker.name),
        acceptance=[
            f"a new run on {worker.name}: WORKFLOW_STARTED within seconds after WORKFLOW_CLAIMED",
        ],
        skew_s=skew,
        worker=worker.name,
    )
