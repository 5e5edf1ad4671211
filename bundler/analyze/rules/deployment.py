"""Rung 4, deployment: did the exact rendered job reach a runnable state on the worker?

Products without a deployment step (Flux) write ``applicable: false`` and the
rung reads not_applicable. Otherwise the job's deployment on the target
worker is found and judged on its state, its machine reason, missing context
keys at render time, and the worker's verdict on the bundle signature.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from schemas import Citation, Layer
from schemas.evidence import DeploymentEvidence, JobDeployment

from ...plurals import plural
from ...timetext import utc
from .. import codes
from ..api import RuleContext, RuleResult, make_finding, rule
from ..facts import citations, cite, cite_source, is_zero_time, names
from ._outcome import Outcome

RUNNABLE = ("deployed", "active")
IN_PROGRESS = ("pending", "staged", "rendering", "delivering")
GONE = ("removing", "removed")


def _deployments(doc: DeploymentEvidence) -> list[tuple[tuple[int, int], JobDeployment]]:
    return [
        ((d_index, j_index), jd)
        for d_index, record in enumerate(doc.deployments)
        for j_index, jd in enumerate(record.job_deployments)
    ]


@rule(Layer.DEPLOYMENT, needs=(DeploymentEvidence,))
def job_deployment(ctx: RuleContext) -> RuleResult | None:
    doc = ctx.evidence.need(DeploymentEvidence)
    if not doc.applicable:
        return RuleResult.not_applicable(
            codes.DEPLOYMENT_NOT_APPLICABLE, "This product has no deployment step."
        )
    job, worker = ctx.target.job, ctx.target.worker
    every = _deployments(doc)
    if job is None:
        mine = [(at, jd) for at, jd in every if jd.worker == worker]
        if not mine:
            return RuleResult.not_applicable(codes.NO_TARGET_JOB, "No job selected.")
        return _judge_all(ctx, mine)
    of_job = [(at, jd) for at, jd in every if jd.job == job.name]
    chosen = [(at, jd) for at, jd in of_job if worker is None or jd.worker == worker]
    if chosen:
        return _judge_all(ctx, chosen)
    if of_job:
        elsewhere = names(jd.worker for _, jd in of_job)
        return RuleResult.fail(
            codes.JOB_NOT_DEPLOYED,
            f"{job.name} is deployed to {elsewhere}, not to {worker}.",
            evidence=[_cite(ctx, of_job[0][0])],
            deployed_to=[jd.worker for _, jd in of_job],
        )
    if doc.complete:
        return RuleResult.fail(
            codes.JOB_NOT_DEPLOYED,
            f"{job.name} has no deployment" + (f" on {worker}" if worker else "") + ".",
            evidence=[cite(ctx.evidence, DeploymentEvidence, "deployments")],
        )
    if not doc.deployments:
        return RuleResult.unknown(
            codes.DEPLOYMENT_EVIDENCE_UNAVAILABLE,
            f"The deployment records could not be read ({', '.join(doc.gaps) or 'no records'}): "
            f"whether {job.name} reached a runnable state"
            + (f" on {worker}" if worker else "")
            + " is unknown.",
            [cite(ctx.evidence, DeploymentEvidence, "gaps", value=doc.gaps)],
        )
    return RuleResult.unknown(
        codes.DEPLOYMENT_RECORD_MISSING,
        f"No deployment record for {job.name} in the (incomplete) deployment evidence.",
        [cite(ctx.evidence, DeploymentEvidence, "gaps", value=doc.gaps)],
    )


def _cite(ctx: RuleContext, at: tuple[int, int], *field: str, value: Any = None) -> Citation:
    return cite(
        ctx.evidence,
        DeploymentEvidence,
        "deployments",
        at[0],
        "job_deployments",
        at[1],
        *field,
        value=value,
    )


def _judge_all(ctx: RuleContext, items: list[tuple[tuple[int, int], JobDeployment]]) -> RuleResult:
    out = Outcome()
    passed = []
    for at, jd in items:
        before = len(out.failures) + len(out.warnings) + len(out.unknowns)
        _judge(ctx, at, jd, out)
        if len(out.failures) + len(out.warnings) + len(out.unknowns) == before:
            passed.append(f"{jd.job} on {jd.worker}")
    return out.result(
        make_finding(
            codes.DEPLOYMENT_RUNNABLE,
            "pass",
            f"Deployed and runnable: {names(dict.fromkeys(passed))}.",
            evidence=[_cite(ctx, items[0][0], "state", value=items[0][1].state)],
        )
    )


def _judge(ctx: RuleContext, at: tuple[int, int], jd: JobDeployment, out: Outcome) -> None:
    where = citations(_cite(ctx, at, "state", value=jd.state), cite_source(jd.source))
    what = f"{jd.job} on {jd.worker}"
    reason = f" ({jd.reason})" if jd.reason else ""
    message = f": {jd.message}" if jd.message else ""
    missing = jd.rendered.context_keys_missing if jd.rendered else []
    if missing:
        out.fail(
            codes.RENDER_CONTEXT_MISSING,
            f"{what} could not render: context {plural(len(missing), 'key')} {', '.join(missing)} "
            f"{plural(len(missing), 'resolves', 'resolve')} at no scope "
            "(job, worker, global, definition).",
            evidence=[_cite(ctx, at, "rendered", "context_keys_missing", value=missing)],
            missing_keys=missing,
            native_code=jd.reason,
        )
    if jd.bundle_signature_verified is False:
        out.fail(
            codes.BUNDLE_SIGNATURE_INVALID,
            f"The worker refused {what}: its job bundle signature does not verify.",
            evidence=[_cite(ctx, at, "bundle_signature_verified", value=False)],
            native_code=jd.reason,
        )
    if jd.state == "failed" and not missing and jd.bundle_signature_verified is not False:
        out.fail(
            codes.DEPLOYMENT_FAILED,
            f"Deployment of {what} failed{reason}{message}.",
            evidence=where,
            native_code=jd.reason,
        )
    elif jd.state in GONE:
        out.fail(
            codes.JOB_NOT_DEPLOYED,
            f"{what} is {jd.state}{reason}.",
            evidence=where,
            native_code=jd.reason,
        )
    elif jd.state in IN_PROGRESS:
        since = _since(jd.state_since)
        out.warn(
            codes.DEPLOYMENT_IN_PROGRESS,
            f"{what} is still {jd.state}{since}: not yet runnable{reason}.",
            evidence=where,
        )
    elif jd.state not in RUNNABLE and jd.state != "failed":
        out.unknown(
            codes.DEPLOYMENT_STATE_UNKNOWN, f"The state of {what} is {jd.state}.", evidence=where
        )
    _drift(ctx, at, jd, out)
    if jd.staged is False:
        out.fail(
            codes.JOB_NOT_DEPLOYED,
            f"{jd.job} is not staged: only staged jobs can be deployed.",
            evidence=[_cite(ctx, at, "staged", value=False)],
            native_code="NOT_STAGED",
        )


def _since(state_since: datetime | None) -> str:
    """ " since <time>" for a state's start; a zero time says so rather than "since year 1"."""
    if state_since is None:
        return ""
    if is_zero_time(state_since):
        return f" (its start reads {utc(state_since)}, the zero time: undated)"
    return f" since {utc(state_since)}"


def _drift(ctx: RuleContext, at: tuple[int, int], jd: JobDeployment, out: Outcome) -> None:
    """Deployed, but not the revision intended: the exact rendered job is not what runs."""
    intended, running = jd.intended_revision, jd.running_revision
    differs = intended is not None and running is not None and intended != running
    if jd.reason != codes.DRIFT_DETECTED and not differs:
        return
    if differs:
        what = f"runs revision {running} while revision {intended} is intended"
        evidence = [
            _cite(ctx, at, "running_revision", value=running),
            _cite(ctx, at, "intended_revision", value=intended),
        ]
    else:
        what = jd.message or "does not run the intended revision"
        evidence = [_cite(ctx, at, "reason", value=jd.reason)]
    out.fail(
        codes.DEPLOYMENT_DRIFTED,
        f"{jd.job} on {jd.worker} reads {jd.state}, but it {what}: the exact rendered job did "
        "not reach a runnable state.",
        evidence=citations(*evidence, cite_source(jd.source)),
        native_code=jd.reason,
        intended_revision=intended,
        running_revision=running,
    )


@rule(Layer.DEPLOYMENT, needs=(DeploymentEvidence,))
def deployment_drift(ctx: RuleContext) -> RuleResult | None:
    """Reconciliation drift on the job's deployment records (warn: it may self-heal).

    Every drifted record of the job is named, not the first one listed: which one
    comes first says nothing about which deployment is current."""
    doc = ctx.evidence.need(DeploymentEvidence)
    job = ctx.target.job
    if not doc.applicable or job is None:
        return None
    drifted = [
        (index, record)
        for index, record in enumerate(doc.deployments)
        if record.drift and any(jd.job == job.name for jd in record.job_deployments)
    ]
    if not drifted:
        return None
    if len(drifted) == 1:
        index, record = drifted[0]
        message = (
            f"Deployment {record.deployment_id or index} of {job.name} has drifted: "
            f"{', '.join(record.drift)}."
        )
    else:
        said = "; ".join(f"{r.deployment_id or i}: {', '.join(r.drift)}" for i, r in drifted)
        message = f"{len(drifted)} deployments of {job.name} have drifted: {said}."
    return RuleResult.warn(
        codes.DRIFT_DETECTED,
        message,
        evidence=[
            cite(ctx.evidence, DeploymentEvidence, "deployments", index, "drift", value=r.drift)
            for index, r in drifted
        ],
        drift=list(dict.fromkeys(item for _, record in drifted for item in record.drift)),
    )


RULES = (job_deployment, deployment_drift)
