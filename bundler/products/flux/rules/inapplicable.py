"""Layers 4 and 5 do not exist in Flux: no deployment step, no runtime-requirements report.

Flux runs a registered workflow directly on any eligible worker, and its
secrets and settings are not checked per (job, worker) before a run. The
normalizer writes both documents with ``applicable: false``; these rules
turn that into *not applicable* so the ladder neither fails nor waits on
evidence that can never exist.
"""

from __future__ import annotations

from bundler.analyze.api import RuleContext, RuleResult, rule
from schemas import Layer
from schemas.evidence import DeploymentEvidence, RequirementsEvidence

from .. import codes
from .facts import FLUX


@rule(Layer.DEPLOYMENT, products=FLUX, needs=(DeploymentEvidence,))
def flux_no_deployment_step(ctx: RuleContext) -> RuleResult | None:
    if ctx.evidence.need(DeploymentEvidence).applicable:
        return None
    return RuleResult.not_applicable(
        codes.FLUX_NO_DEPLOYMENT_STEP,
        "Flux has no deployment step: a registered workflow runs directly on an eligible worker.",
    )


@rule(Layer.REQUIREMENTS, products=FLUX, needs=(RequirementsEvidence,))
def flux_no_requirements_report(ctx: RuleContext) -> RuleResult | None:
    if ctx.evidence.need(RequirementsEvidence).applicable:
        return None
    return RuleResult.not_applicable(
        codes.FLUX_NO_REQUIREMENTS_REPORT,
        "Flux has no runtime-requirements report; its requirements (affinity, resources, pins) "
        "are judged at placement and capacity.",
    )
