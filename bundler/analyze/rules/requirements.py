"""Rung 5, runtime requirements: credentials, bindings, worker settings, ACLs, sources.

Every blocker in the (job, worker) report becomes its own finding, coded by the
blocker's own code and carrying the one repair named for it (:mod:`._repairs`: the facts
are those of LyftData's *Worker Recovery and Serviceability* guide, the words
product-neutral unless the profile words the repair, ``RuleContext.requirement_repairs``),
so a report with three blockers reads as a three-item to-do list. The path around that repair
(inspect the report, rerun readiness) and the trust-root path are the product's own when
its profile words them (``RuleContext.recovery_paths``), else the generic ones.
Requirements the product could not probe (e.g. a database ACL behind an unreleased
credential) are *unknown*, not failed.
"""

from __future__ import annotations

import re
from typing import Any

from schemas import Citation, Finding, Layer, Recovery
from schemas.evidence import Blocker, RequirementsEvidence, RequirementsReport

from .. import codes
from ..api import RuleContext, RuleResult, make_finding, rule
from ..facts import citations, cite, cite_source
from ..recovery import PATHS
from ._outcome import Outcome
from ._repairs import repair_for

_TRUST = re.compile(r"TRUST", re.IGNORECASE)
_CODE = re.compile(r"[^A-Z0-9_]+")


def _reports(
    doc: RequirementsEvidence, job: str | None, worker: str | None
) -> list[tuple[int, RequirementsReport]]:
    return [
        (i, r)
        for i, r in enumerate(doc.reports)
        if (job is None or r.job == job) and (worker is None or r.worker == worker)
    ]


@rule(Layer.REQUIREMENTS, needs=(RequirementsEvidence,))
def runtime_requirements(ctx: RuleContext) -> RuleResult | None:
    doc = ctx.evidence.need(RequirementsEvidence)
    if not doc.applicable:
        return RuleResult.not_applicable(
            codes.REQUIREMENTS_NOT_APPLICABLE, "This product has no runtime-requirements report."
        )
    job = ctx.target.job.name if ctx.target.job else None
    found = _reports(doc, job, ctx.target.worker)
    if not found:
        if job is None:
            return RuleResult.not_applicable(codes.NO_TARGET_JOB, "No job selected.")
        on = f" on {ctx.target.worker}" if ctx.target.worker else ""
        return RuleResult.unknown(
            codes.REQUIREMENTS_REPORT_MISSING,
            f"No runtime-requirements report for {job}{on}.",
            [cite(ctx.evidence, RequirementsEvidence, "reports")],
        )
    out = Outcome()
    for index, report in found:
        _judge(ctx, index, report, out)
    first = found[0]
    return out.result(
        make_finding(
            codes.REQUIREMENTS_SATISFIED,
            "pass",
            f"No runtime-requirements blockers for {first[1].job} on {first[1].worker}.",
            evidence=[
                cite(ctx.evidence, RequirementsEvidence, "reports", first[0], "blockers", value=[])
            ],
        )
    )


def _judge(ctx: RuleContext, index: int, report: RequirementsReport, out: Outcome) -> None:
    ev = ctx.evidence
    raw = cite_source(report.source)
    blocked_ids = set()
    for b_index, blocker in enumerate(report.blockers):
        blocked_ids.add(blocker.requirement)
        out.failures.append(_blocker_finding(ctx, index, b_index, report, blocker, raw))
    for r_index, req in enumerate(report.requirements):
        if req.id in blocked_ids:
            continue
        where = [
            cite(
                ev,
                RequirementsEvidence,
                "reports",
                index,
                "requirements",
                r_index,
                value=req.status,
            )
        ]
        if req.status in ("missing", "denied"):
            repair = repair_for(req.code or "", req.kind, ctx.requirement_repairs)
            out.fail(
                codes.REQUIREMENT_NOT_SATISFIED,
                f"Requirement {req.id} ({req.kind}) is {req.status} for {report.job} on "
                f"{report.worker}" + (f": {req.message}" if req.message else "") + ".",
                evidence=where,
                native_code=req.code,
                repair=repair or None,
            )
        elif req.status == "unknown":
            out.unknown(
                codes.REQUIREMENT_UNKNOWN,
                f"Requirement {req.id} ({req.kind}) could not be checked for {report.job} on "
                f"{report.worker}" + (f": {req.message}" if req.message else "") + ".",
                evidence=where,
            )


def _blocker_finding(
    ctx: RuleContext,
    index: int,
    b_index: int,
    report: RequirementsReport,
    blocker: Blocker,
    raw: Citation | None,
) -> Finding:
    code = _CODE.sub("_", blocker.code.upper()).strip("_") or codes.RUNTIME_REQUIREMENTS_BLOCKED
    detail = f": {blocker.message}" if blocker.message else " (the report gives no detail)"
    where = citations(
        cite(
            ctx.evidence,
            RequirementsEvidence,
            "reports",
            index,
            "blockers",
            b_index,
            value=blocker.message or blocker.code,
        ),
        raw,
    )
    common: dict[str, Any] = {
        "native_code": blocker.code,
        "requirement": blocker.requirement,
        "job": report.job,
        "worker": report.worker,
    }
    trust = bool(_TRUST.search(code))
    said = _by(codes.TRUST_ROOT_PROBLEM if trust else code, blocker)
    message = f"{report.job} on {report.worker} is blocked{said}{detail}."
    if trust:
        return make_finding(
            codes.TRUST_ROOT_PROBLEM,
            "fail",
            message,
            evidence=where,
            recovery=_path(ctx, "trust-root"),
            **common,
        )
    kind = next((r.kind for r in report.requirements if r.id == blocker.requirement), "")
    repair = repair_for(code, kind, ctx.requirement_repairs)
    base = _path(ctx, "prerequisites")
    recovery = Recovery(  # the repair is the summary, followed by the path's last step
        summary=repair or base.summary,
        steps=base.steps[-1:] if repair else base.steps,
        cautions=list(base.cautions),
        reference=base.reference,
    )
    return make_finding(code, "fail", message, evidence=where, recovery=recovery, **common)


def _by(code: str, blocker: Blocker) -> str:
    """`` by NATIVE_CODE`` where the finding's code is not the blocker's own (a trust-root
    problem, a code that needed cleaning), else nothing: the report line starts with the
    code, and ``CODE: ... blocked by CODE`` said it twice."""
    return "" if code == blocker.code else f" by {blocker.code}"


def _path(ctx: RuleContext, path: str) -> Recovery:
    """The product's own text for a generic path, else the generic one (a copy)."""
    return (ctx.recovery_paths.get(path) or PATHS[path]).model_copy(deep=True)


RULES = (runtime_requirements,)
