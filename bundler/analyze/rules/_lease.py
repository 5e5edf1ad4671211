"""The lease and registration checks of the authorization rung.

A lease is judged at collection time (never the analyst's clock): expired,
issued in the future beyond the clock tolerance (the clocks disagree), a
signature that does not verify, renewals failing. Registration rejections
(HTTP 401/403 on register, e.g. Flux's anonymous-write policy) mean the worker
never gets a session at all.
"""

from __future__ import annotations

from datetime import timedelta

from schemas.evidence import AuthorizationEvidence, WorkerAuthorization

from ...timetext import utc
from .. import codes
from ..api import RuleContext
from ..facts import citations, cite, cite_source, reference_time
from ._outcome import Outcome

REJECTED_STATUS = (401, 403)


def check_lease(
    ctx: RuleContext,
    doc: AuthorizationEvidence,
    index: int,
    entry: WorkerAuthorization,
    out: Outcome,
) -> None:
    lease = entry.lease
    if lease is None:
        if entry.decision == "expired":
            out.fail(
                codes.LEASE_EXPIRED,
                f"Worker {entry.worker}'s authorization has expired.",
                evidence=[cite(ctx.evidence, AuthorizationEvidence, "workers", index)],
            )
        return
    at: tuple[str | int, ...] = ("workers", index, "lease")
    now = reference_time(ctx.evidence, doc)
    tolerance = timedelta(seconds=doc.lease_clock_tolerance_s or 0.0)
    if (lease.expires_at and now and lease.expires_at <= now) or entry.decision == "expired":
        when = f" at {utc(lease.expires_at)}" if lease.expires_at else ""
        out.fail(
            codes.LEASE_EXPIRED,
            f"Worker {entry.worker}'s auth lease expired{when}, before collection.",
            evidence=[
                cite(
                    ctx.evidence,
                    AuthorizationEvidence,
                    *at,
                    "expires_at",
                    value=str(lease.expires_at),
                )
            ],
        )
    elif lease.issued_at and now and lease.issued_at > now + tolerance:
        out.fail(
            codes.LEASE_NOT_YET_VALID,
            f"Worker {entry.worker}'s auth lease is issued in the future "
            f"({(lease.issued_at - now).total_seconds():.0f}s after collection): the clocks of "
            "server and worker disagree.",
            evidence=[
                cite(
                    ctx.evidence,
                    AuthorizationEvidence,
                    *at,
                    "issued_at",
                    value=str(lease.issued_at),
                )
            ],
        )
    if lease.signature is not None and lease.signature.verified is False:
        out.fail(
            codes.LEASE_SIGNATURE_INVALID,
            f"Worker {entry.worker}'s auth lease signature does not verify"
            + (f" (key {lease.signature.key_id})" if lease.signature.key_id else "")
            + ".",
            evidence=[cite(ctx.evidence, AuthorizationEvidence, *at, "signature", value=False)],
        )
    if lease.renew_attempts_failed:
        out.warn(
            codes.LEASE_RENEWAL_FAILING,
            f"{lease.renew_attempts_failed} lease renewal(s) failed for worker {entry.worker}.",
            evidence=[
                cite(
                    ctx.evidence,
                    AuthorizationEvidence,
                    *at,
                    "renew_attempts_failed",
                    value=lease.renew_attempts_failed,
                )
            ],
        )


def check_registration(
    ctx: RuleContext, index: int, entry: WorkerAuthorization, out: Outcome
) -> None:
    reg = entry.registration
    if reg is None or not reg.rejected or entry.decision == "allow":
        return
    if reg.last_status_code is not None and reg.last_status_code not in REJECTED_STATUS:
        return
    status = f"HTTP {reg.last_status_code}" if reg.last_status_code else "rejected"
    out.fail(
        codes.REGISTRATION_REJECTED,
        f"Worker {entry.worker}'s registration was refused {reg.rejected} time(s) "
        f"({status}); it keeps retrying and never gets a session.",
        evidence=citations(
            cite(
                ctx.evidence,
                AuthorizationEvidence,
                "workers",
                index,
                "registration",
                value=reg.last_error or status,
            ),
            cite_source(reg.source),
        ),
        attempts=reg.attempts,
        rejected=reg.rejected,
        last_error=reg.last_error,
    )
