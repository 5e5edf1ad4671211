"""LyftData's lease clock check, from the skew the server itself measured.

The generic rule compares clocks bundler read over SSH; LyftData also reports
the skew it saw at the worker's last heartbeat, and names the refusal
``lease_clock_skew`` [I]. That works when no SSH access to the worker exists,
and it is the product's own judgement, so it is cited as such.
"""

from __future__ import annotations

from schemas import Layer
from schemas.evidence import AuthorizationEvidence

from ....analyze.api import RuleContext, RuleResult, rule
from ....analyze.codes import CLOCK_SKEW_EXCEEDS_LEASE_TOLERANCE
from ....analyze.facts import authorization_entry, citations, cite_source
from ..recovery import CLOCK_SYNC

NATIVE_CLOCK_SKEW = "lease_clock_skew"


@rule(Layer.AUTHORIZATION, products=["lyftdata"], needs=(AuthorizationEvidence,))
def lease_clock_skew(ctx: RuleContext) -> RuleResult | None:
    doc = ctx.evidence.need(AuthorizationEvidence)
    if ctx.target.worker is None:
        return None
    found = authorization_entry(ctx.evidence, ctx.target.worker)
    if found is None or not found[1].applicable:
        return None
    index, entry = found
    skew, tolerance = entry.clock_skew_s, doc.lease_clock_tolerance_s
    beyond = skew is not None and tolerance is not None and abs(skew) > tolerance
    if not beyond and entry.native_code != NATIVE_CLOCK_SKEW:
        return None
    amount = f"{abs(skew):.0f}s {'ahead of' if skew > 0 else 'behind'}" if skew else "off"
    limit = f"the {tolerance:.0f}s" if tolerance is not None else "what"
    evidence = [
        # through the evidence set: a reading of disputed records renumbers the index
        ctx.evidence.cite(AuthorizationEvidence, f"/workers/{index}/clock_skew_s", skew),
        ctx.evidence.cite(AuthorizationEvidence, "/lease_clock_tolerance_s", tolerance),
        *citations(cite_source(entry.source)),
    ]
    return RuleResult.fail(
        CLOCK_SKEW_EXCEEDS_LEASE_TOLERANCE,
        f"LyftData measured worker {entry.worker}'s clock {amount} the server's, beyond "
        f"{limit} a lease tolerates: the server refuses its lease.",
        evidence=evidence,
        recovery=CLOCK_SYNC.model_copy(deep=True),
        acceptance=["valid runtime authorization (external workers)"],
        native_code=entry.native_code,
        skew_s=skew,
        tolerance_s=tolerance,
    )
