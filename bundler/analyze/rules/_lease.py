"""The lease and registration checks of the authorization rung.

A lease is judged at collection time (never the analyst's clock): expired,
issued in the future beyond the clock tolerance (the clocks disagree), a
signature that does not verify, renewals failing. Registration rejections
(HTTP 401/403 on register, e.g. Flux's anonymous-write policy) mean the worker
never gets a session at all.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from schemas import Citation
from schemas.evidence import AuthorizationEvidence, WorkerAuthorization

from ...plurals import counted
from ...timetext import utc
from .. import codes
from ..api import RuleContext
from ..facts import citations, cite, cite_source, dated, is_zero_time, reference_time
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
    expires = dated(lease.expires_at)  # a zero time is no expiry moment
    expired = bool(expires and now and expires <= now) or entry.decision == "expired"
    if lease.expires_at is not None and is_zero_time(lease.expires_at) and not expired:
        _zero_expiry(ctx, at, entry.worker, lease.expires_at, out)
    if expired:
        when = f" at {utc(expires)}" if expires else ""
        out.fail(
            codes.LEASE_EXPIRED,
            f"Worker {entry.worker}'s auth lease expired{when}, before collection.",
            evidence=[
                cite(
                    ctx.evidence,
                    AuthorizationEvidence,
                    *at,
                    "expires_at",
                    value=lease.expires_at,
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
                    value=lease.issued_at,
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
            f"{counted(lease.renew_attempts_failed, 'lease renewal')} failed for worker "
            f"{entry.worker}.",
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


def _zero_expiry(
    ctx: RuleContext, at: tuple[str | int, ...], worker: str, zero: datetime, out: Outcome
) -> None:
    """A lease that "expires" at the zero time: unknown, neither expired nor valid.

    Go writes its zero ``time.Time`` for an ``ExpiresAt`` never set, which usually means the
    lease has no expiry recorded, not that it ran out in year 1. Judged as a moment it failed
    LEASE_EXPIRED with a false cause; read as "no expiry" it would pass a lease nothing shows
    valid. The product's own ``expired`` decision still fails (the caller keeps it).
    """
    out.unknown(
        codes.LEASE_EXPIRY_ZERO_TIME,
        f"Worker {worker}'s auth lease expires at {utc(zero)}, the zero time: "
        "the product wrote an unset expiry, which usually means none was recorded, not a "
        "lease that ran out. Whether the lease is still valid is unknown; read the lease's "
        "expiry from the control plane again (or its renewal in the worker log).",
        evidence=[
            cite(
                ctx.evidence,
                AuthorizationEvidence,
                *at,
                "expires_at",
                value=zero.isoformat(),
            )
        ],
        acceptance=[
            f"{worker}'s lease shows a real expiry after collection, or the control "
            "plane confirms the lease never expires"
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
        f"Worker {entry.worker}'s registration was refused {counted(reg.rejected, 'time')} "
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


def unproven_lease(
    ctx: RuleContext, doc: AuthorizationEvidence, index: int, entry: WorkerAuthorization
) -> tuple[str, list[Citation]] | None:
    """Why ``entry``'s lease does not show, on its own, that the worker holds authorization.

    Asked when the server gave no decision: then only a lease whose signature verified and
    whose expiry lies after collection is positive evidence. A signature nobody checked (the
    product's ``unchecked``), one not reported, or a lease without a known expiry proves
    nothing, and passing on it called unknown evidence "holds valid authorization". None when
    the lease is such proof.
    """
    lease = entry.lease
    if lease is None:
        return "no lease is recorded", []
    at: tuple[str | int, ...] = ("workers", index, "lease")
    signature = lease.signature
    if signature is None or signature.verified is not True:
        said = "was not reported" if signature is None else "was not checked"
        where = cite(ctx.evidence, AuthorizationEvidence, *at, "signature", value=None)
        return f"its lease's signature {said}", [where]
    now = reference_time(ctx.evidence, doc)
    expires = dated(lease.expires_at)
    if expires is None or now is None or expires <= now:
        where = cite(ctx.evidence, AuthorizationEvidence, *at, "expires_at", value=None)
        return "its lease's expiry is not known", [where]
    return None
