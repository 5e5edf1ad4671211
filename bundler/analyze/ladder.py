"""Walk one target's ladder: run each rung's rules, combine, stop at the first failure.

The engine owns three decisions so that rules stay small and honest:

* **silence is unknown** — a rung where no rule had anything to say is
  ``unknown`` (missing evidence), never ``pass``;
* **a broken rule is visible** — an exception inside a rule becomes a
  ``RULE_ERROR`` finding on an ``unknown`` rung, never a crash and never a pass;
* **stop at the first failed rung** — rungs above it are ``skipped`` with
  ``blocked_by``, because the *Worker Recovery and Serviceability* guide says to
  repair the lowest failure first;
* **no rung picks one of two disagreeing records** — a target whose worker is
  listed twice with records that disagree, or that reads an entry (its job's
  placement, a deployment, a requirements report, a local state file) listed
  twice so, has each rung judged on each record (:mod:`.readings`): the answer
  they agree on, else unknown.

Combining several rules on one rung: fail > unknown > warn > pass >
not_applicable. Unknown outranks warn because a rung we could not fully see
is not one we can call merely "degraded".
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from schemas import Finding, Layer, LayerResult, LayerStatus, Verdict
from schemas.evidence import EvidenceDoc

from . import codes
from .api import SEVERITY_ORDER, Rule, RuleContext, RuleResult, Supersedes, excerpt
from .checklist import LADDER_CHECKLIST
from .deciding import LAYER_DOCUMENTS, annotate, how_to_decide
from .readings import disputed, judge_alike
from .recovery import acceptance_for, recovery_for

PRECEDENCE = {
    LayerStatus.FAIL: 5,
    LayerStatus.UNKNOWN: 4,
    LayerStatus.WARN: 3,
    LayerStatus.PASS: 2,
    LayerStatus.NOT_APPLICABLE: 1,
}


def walk(ctx: RuleContext, rules: Sequence[Rule]) -> list[LayerResult]:
    """Every rung of the ladder for ``ctx.target``, lowest first."""
    layers: list[LayerResult] = []
    failed: Layer | None = None
    doubted = disputed(ctx)
    for layer in Layer.ordered():
        if failed is not None:
            layers.append(LayerResult(name=layer, status=LayerStatus.SKIPPED, blocked_by=failed))
            continue
        on_layer = [r for r in rules if r.layer is layer]
        if doubted:  # a worker or entry listed twice, its records disagreeing: no rung picks one
            result = judge_alike(layer, ctx, doubted, partial(evaluate, layer, on_layer))
        else:
            result = evaluate(layer, on_layer, ctx)
        layers.append(_proofs_on_rung(result, layers, ctx))
        if result.status is LayerStatus.FAIL:
            failed = layer
    return layers


def _proofs_on_rung(
    result: LayerResult, below: Sequence[LayerResult], ctx: RuleContext
) -> LayerResult:
    """``result`` with each finding's "proven by" read against the rungs below it: a check
    those rungs already pass is no proof of this rung's repair (``Checklist.on_rung``)."""
    passed = [lr.name for lr in below if lr.status is LayerStatus.PASS]
    findings, changed = list(result.findings), False
    for index, finding in enumerate(findings):
        if not finding.acceptance:
            continue
        proofs = ctx.checklist.on_rung(finding.acceptance, result.name, passed)
        if proofs != finding.acceptance:
            findings[index], changed = finding.model_copy(update={"acceptance": proofs}), True
    return result.model_copy(update={"findings": findings}) if changed else result


def evaluate(layer: Layer, rules: Sequence[Rule], ctx: RuleContext) -> LayerResult:
    """One rung: run its rules (each isolated), combine their answers."""
    read: list[type[EvidenceDoc]] = []
    answers = [answer for r in rules if (answer := run_rule(r, ctx, read)) is not None]
    if not answers:
        silent = Finding(
            code=codes.NO_EVIDENCE,
            severity="info",
            message=f"No evidence in the bundle answers: {layer.question}",
        )
        documents = list(dict.fromkeys([*read, *LAYER_DOCUMENTS.get(layer, ())]))
        annotate([silent], ctx.evidence, documents, ctx.collection_hints)
        if not silent.missing:  # present but silent: name what would have answered
            silent.missing = [cls.member_path for cls in documents]
            silent.to_decide = how_to_decide(
                silent.missing, ctx.collection_hints, ctx.evidence.refused
            )
        return LayerResult(name=layer, status=LayerStatus.UNKNOWN, findings=[silent])
    said = [f for a in answers for f in a.findings]
    replaced = replaced_findings(said, ctx.supersedes)
    findings = _dedupe([f for f in said if id(f) not in replaced])
    # an answer whose every finding the product's own replaced is that finding's to judge:
    # its status goes with it (a generic "no heartbeat time" must not outrank the pass of
    # the product's rule that dates the worker's last sign of life another way)
    standing = [
        a for a in answers if not a.findings or any(id(f) not in replaced for f in a.findings)
    ]
    status = max((a.status for a in standing or answers), key=PRECEDENCE.__getitem__)
    findings.sort(key=lambda f: SEVERITY_ORDER.get(f.severity, 9))
    return LayerResult(
        name=layer, status=status, findings=[advise(f, layer, ctx) for f in findings]
    )


def run_rule(
    rule: Rule, ctx: RuleContext, seen: list[type[EvidenceDoc]] | None = None
) -> RuleResult | None:
    """``rule``'s answer for ``ctx``, isolated: an exception, a wrong type or ``skipped`` is an
    unknown with ``RULE_ERROR``; ``seen`` collects the documents it read."""
    seen = [] if seen is None else seen
    read = ctx.evidence.tracking()
    try:
        answer = rule(ctx)
    except Exception as exc:  # a rule bug must never crash the report, nor pass a rung
        return RuleResult(LayerStatus.UNKNOWN, [_rule_error(rule, f"{type(exc).__name__}: {exc}")])
    if answer is not None and not isinstance(answer, RuleResult):
        return RuleResult(
            LayerStatus.UNKNOWN, [_rule_error(rule, f"returned {type(answer).__name__}")]
        )
    if answer is not None and answer.status is LayerStatus.SKIPPED:
        return RuleResult(LayerStatus.UNKNOWN, [_rule_error(rule, "answered 'skipped'")])
    seen += [cls for cls in read if cls not in seen]
    if answer is not None and answer.status is LayerStatus.UNKNOWN:
        annotate(answer.findings, ctx.evidence, read, ctx.collection_hints)
    return answer


def _rule_error(rule: Rule, what: str) -> Finding:
    return Finding(
        code=codes.RULE_ERROR,
        severity="warn",
        message=f"Rule {rule.name} could not judge this rung ({excerpt(what, 160)}); "
        "treated as unknown. This is a bug in bundler: please report it.",
        details={"rule": rule.name},
    )


def speaks_for(replacing: Finding, finding: Finding, supersedes: Supersedes) -> bool:
    """True when ``replacing`` says what ``finding`` says (``Profile.supersedes``): its code
    replaces ``finding``'s, and, when it names the workers it speaks of (``details.workers``),
    ``finding``'s worker is one of them. Every eligible worker's full volume, named in one
    finding about a waiting execution, is its candidate's full volume said again; another
    worker's volume is not."""
    generics = supersedes.get(replacing.code, ())
    if finding.code not in ((generics,) if isinstance(generics, str) else generics):
        return False
    named = replacing.details.get("workers")
    worker = finding.details.get("worker")
    return not isinstance(named, list) or worker is None or worker in named


def replaced_findings(findings: Sequence[Finding], supersedes: Supersedes) -> set[int]:
    """The ``id`` of each finding another one among ``findings`` says already
    (:func:`speaks_for`): one cause reads as one finding, in the product's words."""
    return {
        id(finding)
        for finding in findings
        if any(
            other is not finding and speaks_for(other, finding, supersedes) for other in findings
        )
    }


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """Generic and product rules may report the very same thing; keep it once."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for finding in findings:
        key = (finding.code, finding.message)
        if key not in seen:
            seen.add(key)
            kept.append(finding)
    return kept


def advise(finding: Finding, layer: Layer, ctx: RuleContext | None = None) -> Finding:
    """Attach the recovery path and acceptance checks for a failing or warning finding.

    The product's own text for the path (``RuleContext.recovery_paths``) wins over
    the generic one, so a product's finding never cites another product's pages; the
    checks are the product's checklist's (``RuleContext.checklist``), so it never names
    a check the product does not have.
    """
    if finding.severity not in ("fail", "warn"):
        return finding
    if finding.recovery is None:
        finding.recovery = recovery_for(finding.code, ctx.recovery_paths if ctx else None)
    if not finding.acceptance:
        checklist = ctx.checklist if ctx else LADDER_CHECKLIST
        finding.acceptance = acceptance_for(finding.code, checklist) or checklist.for_layer(layer)
    return finding


def target_verdict(layers: Sequence[LayerResult]) -> tuple[Verdict, Layer | None]:
    """(verdict, first failed layer) of one ladder."""
    statuses = {layer.status for layer in layers}
    first_failed = next((lr.name for lr in layers if lr.status is LayerStatus.FAIL), None)
    if first_failed is not None:
        return Verdict.BLOCKED, first_failed
    if LayerStatus.UNKNOWN in statuses:
        return Verdict.INCONCLUSIVE, None
    if LayerStatus.WARN in statuses:
        return Verdict.DEGRADED, None
    return Verdict.HEALTHY, None


VERDICT_ORDER = {
    Verdict.BLOCKED: 0,
    Verdict.INCONCLUSIVE: 1,
    Verdict.DEGRADED: 2,
    Verdict.HEALTHY: 3,
}


def overall(verdicts: Sequence[Verdict]) -> Verdict:
    """The worst verdict wins; an empty report is inconclusive, never healthy."""
    if not verdicts:
        return Verdict.INCONCLUSIVE
    return min(verdicts, key=VERDICT_ORDER.__getitem__)
