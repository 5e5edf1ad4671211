"""Rung 2, runtime authorization: can the worker obtain and keep the right to run work?

For LyftData this is the signed auth lease of an external worker; for Flux it
is registration (a 401 loop on register lives only in the worker log). A
license problem fails here rather than at the server rung, because the server
keeps working while its external workers lose their leases — and the *Worker
Recovery and Serviceability* guide is explicit that recovering the license needs no worker restart.
"""

from __future__ import annotations

from schemas import Layer
from schemas.evidence import AuthorizationEvidence, ServerEvidence, WorkerAuthorization

from .. import codes
from ..api import RuleContext, RuleResult, make_finding, rule
from ..facts import authorization_entry, citations, cite, cite_source, find_worker
from ._lease import check_lease, check_registration, unproven_lease
from ._outcome import Outcome

NATIVE_CODES = {
    "community_edition_no_external_workers": (
        codes.COMMUNITY_EDITION_NO_EXTERNAL_WORKERS,
        "the server runs Community Edition, which allows no external workers",
    ),
    "license_expired_or_invalid": (
        codes.LICENSE_EXPIRED_OR_INVALID,
        "the server's license is expired or invalid",
    ),
}
"""Product codes (verbatim, lower snake) that the guide names, and what they mean."""


@rule(Layer.AUTHORIZATION, needs=(AuthorizationEvidence,))
def runtime_authorization(ctx: RuleContext) -> RuleResult | None:
    doc = ctx.evidence.need(AuthorizationEvidence)
    if not doc.applicable:
        return RuleResult.not_applicable(
            codes.AUTHORIZATION_NOT_APPLICABLE,
            "This product's workers need no runtime authorization.",
        )
    if ctx.target.worker is None:
        return RuleResult.not_applicable(
            codes.NO_TARGET_WORKER, "No worker is selected; authorization is judged per worker."
        )
    found = authorization_entry(ctx.evidence, ctx.target.worker)
    worker = find_worker(ctx.evidence, ctx.target.worker)
    if found is None:
        if worker is not None and worker[1].kind == "builtin":
            return RuleResult.not_applicable(
                codes.BUILTIN_WORKER,
                f"{ctx.target.worker} is the built-in worker: no lease needed.",
            )
        derived = _from_server_license(ctx, worker[1].kind if worker else None)
        return (
            derived
            or _from_worker_log(ctx, ctx.target.worker)
            or RuleResult.unknown(
                codes.AUTHORIZATION_RECORD_MISSING,
                f"The bundle has no runtime-authorization record for worker {ctx.target.worker}.",
                [cite(ctx.evidence, AuthorizationEvidence, "workers")],
            )
        )
    index, entry = found
    if not entry.applicable:
        return RuleResult.not_applicable(
            codes.AUTHORIZATION_NOT_APPLICABLE,
            f"Worker {entry.worker} needs no runtime authorization.",
        )
    return _judge(ctx, doc, index, entry)


def _judge(
    ctx: RuleContext, doc: AuthorizationEvidence, index: int, entry: WorkerAuthorization
) -> RuleResult:
    ev = ctx.evidence
    here = [cite(ev, AuthorizationEvidence, "workers", index, "decision", value=entry.decision)]
    raw = cite_source(entry.source)
    out = Outcome()
    native = entry.native_code or ""
    if native in NATIVE_CODES:
        code, meaning = NATIVE_CODES[native]
        out.fail(
            code,
            f"Worker {entry.worker} is not authorized: {meaning} ({native}).",
            evidence=citations(
                cite(ev, AuthorizationEvidence, "workers", index, "native_code", value=native), raw
            ),
            native_code=native,
            worker=entry.worker,
        )
    elif entry.decision == "deny":
        detail = f": {entry.message}" if entry.message else ""
        out.fail(
            codes.AUTHORIZATION_DENIED,
            f"The server denies runtime authorization to worker {entry.worker}{detail}.",
            evidence=citations(*here, raw),
            native_code=entry.native_code or None,
        )
    check_lease(ctx, doc, index, entry, out)
    check_registration(ctx, index, entry, out)
    if entry.enrollment_key_still_configured:
        out.warn(
            codes.ENROLLMENT_KEY_STILL_CONFIGURED,
            f"Worker {entry.worker} still has its enrollment key configured after enrolling; "
            "remove it, the worker reuses its cached identity.",
            evidence=[
                cite(
                    ev,
                    AuthorizationEvidence,
                    "workers",
                    index,
                    "enrollment_key_still_configured",
                    value=True,
                )
            ],
        )
    unproven = unproven_lease(ctx, doc, index, entry) if entry.decision == "unknown" else None
    if not out and unproven is not None:
        listed = find_worker(ev, entry.worker)
        derived = _from_server_license(ctx, listed[1].kind if listed else None)
        if derived is not None:
            return derived
        logged = _from_worker_log(ctx, entry.worker)
        if logged is not None:
            return logged
        why, where = unproven
        out.unknown(
            codes.AUTHORIZATION_UNDECIDED,
            f"The bundle does not say whether worker {entry.worker} is authorized: the server "
            f"gave no decision, and {why}.",
            evidence=here + where,
        )
    return out.result(
        make_finding(
            codes.AUTHORIZED,
            "pass",
            f"Worker {entry.worker} holds valid authorization.",
            evidence=here,
        )
    )


def _from_worker_log(ctx: RuleContext, worker: str) -> RuleResult | None:
    """No decision from the server: the worker's own log may still name the refusal.

    The *Worker Recovery and Serviceability* guide: "If the UI or logs report
    community_edition_no_external_workers or license_expired_or_invalid", restore the
    license. So the latest refusal the worker logged with one of those codes fails the rung,
    citing the line, unless a lease renewal logged after it shows the worker recovered.
    """
    said = ctx.timeline.of_kind("auth_rejected", "lease_renewed", worker=worker)
    latest = said[-1] if said else None
    native = latest.detail.get("native_code", "") if latest else ""
    if latest is None or latest.kind != "auth_rejected" or native not in NATIVE_CODES:
        return None
    code, meaning = NATIVE_CODES[native]
    return RuleResult.fail(
        code,
        f"Worker {worker} is not authorized: its own log reports {meaning} ({native}); the "
        "bundle has no decision from the server to say otherwise.",
        evidence=[latest.citation()],
        native_code=native,
        worker=worker,
        source="worker log",
    )


def _from_server_license(ctx: RuleContext, kind: str | None) -> RuleResult | None:
    """No per-worker record: an external worker still fails on the server's license."""
    server = ctx.evidence.get(ServerEvidence)
    lic = server.license if server else None
    if lic is None or kind != "external":
        return None
    where = [cite(ctx.evidence, ServerEvidence, "license", value=lic.state)]
    if lic.external_workers_allowed is False:
        return RuleResult.fail(
            codes.COMMUNITY_EDITION_NO_EXTERNAL_WORKERS,
            f"The server's edition allows no external workers, and {ctx.target.worker} is one.",
            evidence=where,
        )
    if lic.state in ("expired", "invalid"):
        return RuleResult.fail(
            codes.LICENSE_EXPIRED_OR_INVALID,
            f"The server's license is {lic.state}, so external worker {ctx.target.worker} "
            "cannot be authorized.",
            evidence=where,
        )
    return None


RULES = (runtime_authorization,)
