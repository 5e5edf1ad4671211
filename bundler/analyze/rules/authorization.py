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
from ._logged_auth import NATIVE_CODES, from_worker_log, read
from ._outcome import Outcome


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
        return derived or from_worker_log(ctx, ctx.target.worker) or _record_missing(ctx)
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
        logged = from_worker_log(ctx, entry.worker)
        if logged is not None:
            return logged
        why, where = unproven
        disagree, lines = read(ctx, entry.worker).disagreement()
        out.unknown(
            codes.AUTHORIZATION_UNDECIDED,
            f"The bundle does not say whether worker {entry.worker} is authorized: the server "
            f"gave no decision, and {why}.{disagree}",
            evidence=here + where + lines,
        )
    return out.result(
        make_finding(
            codes.AUTHORIZED,
            "pass",
            f"Worker {entry.worker} holds valid authorization.",
            evidence=here,
        )
    )


def _record_missing(ctx: RuleContext) -> RuleResult:
    """Unknown: no record, and no log line that decides (the copies' disagreement named)."""
    worker = str(ctx.target.worker)
    disagree, lines = read(ctx, worker).disagreement()
    return RuleResult.unknown(
        codes.AUTHORIZATION_RECORD_MISSING,
        f"The bundle has no runtime-authorization record for worker {worker}.{disagree}",
        [cite(ctx.evidence, AuthorizationEvidence, "workers"), *lines],
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
