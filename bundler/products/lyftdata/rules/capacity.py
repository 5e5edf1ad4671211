"""Capacity cannot be judged on a worker whose metrics LyftData does not collect.

Metrics collection is disabled by default for new workers [S], so "no
measurements" is the normal state of a fresh worker, not a zero.
"""

from __future__ import annotations

from schemas import Layer
from schemas.evidence import CapacityEvidence

from ....analyze.api import RuleContext, RuleResult, rule
from ....analyze.facts import capacity_entry
from .. import codes
from ..recovery import ENABLE_METRICS


@rule(Layer.CAPACITY, products=["lyftdata"])
def metrics_not_enabled(ctx: RuleContext) -> RuleResult | None:
    found = capacity_entry(ctx.evidence, ctx.target.worker)
    if found is None or found[1].limits.get("metrics_enabled") is not False:
        return None
    index, _ = found
    result = RuleResult.unknown(
        codes.METRICS_NOT_ENABLED,
        f"LyftData collects no metrics for worker {ctx.target.worker} (off by default for new "
        "workers): its capacity cannot be measured.",
        [
            ctx.evidence.cite(  # a reading of disputed records renumbers the index
                CapacityEvidence, f"/workers/{index}/limits/metrics_enabled", False
            )
        ],
    )
    result.findings[0].recovery = ENABLE_METRICS.model_copy(deep=True)
    return result
