"""What a worker's host warns of, shown on the rung where its ladder stopped.

A ladder stops at its first failed rung (:mod:`.ladder`) and skips the rungs above, so a
host rule of a higher rung was never asked: an offline worker whose state volume is full
(judged at capacity) read only "offline, restart it", the full volume named in the fleet's
``HOST_WARNINGS`` line alone. Yet a worker that cannot write its state may crash, or fail
every run it takes, so the volume may be why it is down, and a restart on it fails again.

So when a rung fails, the host rules (``@rule(..., host=True)``) of the rungs above it are
asked for the same target, with :attr:`~.api.RuleContext.stopped_at` set, and what they warn
of is shown on the failed rung as context:

* never a second failure: at most a warning, its rung named (``details.judged_on``); the
  rung's status and the target's verdict stay what the rung's own rules say;
* the failed rung's failing findings get its repair first in their recovery (before "restart
  the worker"), and its acceptance checks beside theirs;
* shown in a ladder, it is no longer in ``HOST_WARNINGS`` (:func:`.host_warnings.unshown`);
* said already by a finding on the failed rung (:func:`.ladder.speaks_for`: a waiting
  execution's placement warns that every eligible worker's volume is full, its candidate's
  among them), it is not shown a second time: that finding stands for it, its repair first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from schemas import Finding, LayerResult, LayerStatus, Recovery

from .api import Rule, RuleContext
from .host_warnings import WARNING_SEVERITIES
from .ladder import advise, replaced_findings, run_rule, speaks_for


def beside_stop(
    layers: Sequence[LayerResult], rules: Sequence[Rule], ctx: RuleContext
) -> list[LayerResult]:
    """``layers`` with the host warnings of the rungs above the failed one shown on it."""
    failed = next((lr for lr in layers if lr.status is LayerStatus.FAIL), None)
    if failed is None:
        return list(layers)
    context = _context(failed, rules, replace(ctx, stopped_at=failed.name))
    if not context:
        return list(layers)
    new = [c for c in context if not _said_on(failed, c, ctx)]
    standing_for = [
        f
        for f in failed.findings
        if f.severity != "fail" and any(speaks_for(f, c, ctx.supersedes) for c in context)
    ]
    repairs = new + standing_for
    findings = [_repair_first(f, repairs) if f.severity == "fail" else f for f in failed.findings]
    shown = failed.model_copy(update={"findings": findings + new})
    return [shown if lr is failed else lr for lr in layers]


def _said_on(failed: LayerResult, context: Finding, ctx: RuleContext) -> bool:
    """True when a finding on ``failed`` says what ``context`` says (the product's
    ``supersedes``, for the same worker): shown twice, one cause would read as two."""
    return any(speaks_for(f, context, ctx.supersedes) for f in failed.findings)


def _context(failed: LayerResult, rules: Sequence[Rule], ctx: RuleContext) -> list[Finding]:
    """The warnings of the host rules above ``failed``, as context on it (one cause, one
    finding: a product's replaces the generic one it supersedes, as on a rung)."""
    said: list[Finding] = []
    for rule in rules:
        if not rule.host or rule.layer.index <= failed.name.index:
            continue
        answer = run_rule(rule, ctx)
        for finding in answer.findings if answer is not None else []:
            if finding.severity in WARNING_SEVERITIES:
                said.append(_as_context(advise(finding, rule.layer, ctx), rule, failed))
    replaced = replaced_findings(said, ctx.supersedes)
    return [f for f in said if id(f) not in replaced]


def _as_context(finding: Finding, rule: Rule, failed: LayerResult) -> Finding:
    return finding.model_copy(
        update={
            "severity": "warn",
            "message": f"Judged for the {rule.layer.value} rung, which this ladder did not "
            f"reach (it stopped at {failed.name.value}): {finding.message}",
            "details": finding.details | {"judged_on": rule.layer.value},
        }
    )


def _repair_first(finding: Finding, context: Sequence[Finding]) -> Finding:
    """``finding`` whose recovery begins with the context's repairs, and whose acceptance
    checks include theirs: fixing the failure alone (a restart) would meet the same host."""
    repairs = [c for c in context if c.recovery is not None]
    if finding.recovery is None or not repairs:
        return finding
    first = " ".join(c.recovery.summary for c in repairs if c.recovery)
    steps = [f"First ({c.code}, on this rung): {c.recovery.summary}" for c in repairs if c.recovery]
    recovery = Recovery(
        summary=f"First: {first} Then: {finding.recovery.summary}",
        steps=steps + finding.recovery.steps,
        cautions=list(finding.recovery.cautions),
        reference=finding.recovery.reference,
    )
    checks = list(dict.fromkeys([*finding.acceptance, *(a for c in repairs for a in c.acceptance)]))
    return finding.model_copy(update={"recovery": recovery, "acceptance": checks})


__all__ = ["beside_stop"]
