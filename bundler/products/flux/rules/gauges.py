"""Flux server gauges that must not be believed, said out loud when they are wrong.

Counts come from the executions and workers themselves; this rule only adds
an informational note when ``/metrics`` disagrees with them, so nobody acts
on a dashboard showing -2 active workers.
"""

from __future__ import annotations

from bundler.analyze.api import RuleContext, RuleResult, make_finding, rule
from bundler.analyze.wording import counted, plural
from schemas import Layer, LayerStatus
from schemas.evidence import ConnectionState, JobPhase, JobsEvidence, ProductInfo, WorkersEvidence

from .. import codes
from .facts import FLUX


@rule(Layer.CAPACITY, products=FLUX)
def flux_untrusted_gauges(ctx: RuleContext) -> RuleResult | None:
    if ctx.target.worker is not None or ctx.target.job is not None:
        return None  # a fleet-level note, said once
    product = ctx.evidence.get(ProductInfo)
    gauges = (product.untrusted_gauges if product is not None else None) or {}
    workers = ctx.evidence.get(WorkersEvidence)
    jobs = ctx.evidence.get(JobsEvidence)
    notes = []
    active = gauges.get("flux_workers_active")
    if active is not None and workers is not None:
        online = sum(w.connection is ConnectionState.ONLINE for w in workers.workers)
        if active < 0 or active != online:
            notes.append(
                f"flux_workers_active reads {active:g} while {counted(online, 'worker')} "
                f"{plural(online, 'is', 'are')} online"
            )
    depth = gauges.get("flux_execution_queue_depth")
    if depth is not None and jobs is not None:
        waiting = sum(j.phase is JobPhase.UNASSIGNED for j in jobs.jobs)
        if depth != waiting:
            notes.append(f"flux_execution_queue_depth reads {depth:g} while {waiting} wait")
    if not notes:
        return None
    finding = make_finding(
        codes.FLUX_GAUGE_UNTRUSTED,
        "info",
        "Flux's server gauges disagree with the counted state and are ignored: "
        + "; ".join(notes)
        + ".",
        evidence=[ctx.evidence.cite(ProductInfo, "/untrusted_gauges", gauges)],
    )
    return RuleResult(LayerStatus.NOT_APPLICABLE, [finding])
