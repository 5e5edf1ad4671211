"""Layer 2: each external worker's runtime authorization (bootstrap, signed lease, decision).

The built-in worker needs no runtime authorization (``applicable: false``).
Clock tolerance comes from effective settings, else from the auth response.
"""

from __future__ import annotations

from schemas.evidence import AuthorizationEvidence, Lease, LeaseSignature, WorkerAuthorization

from ...raw import RawReader
from ..raw import EffectiveSettings, License, WorkerAuth
from .reading import gaps, settle_gaps, utc

_DECISIONS = ("allow", "deny", "expired")
_METHODS = ("api_key", "auto_enrollment", "bootstrap_token", "join_token", "none")
_SIGNATURE_VERIFIED = {"valid": True, "invalid": False, "unknown_key": False}


def _lease(raw: WorkerAuth) -> Lease | None:
    if raw.lease is None:
        return None
    sig = raw.lease.signature
    return Lease(
        lease_id=raw.lease.lease_id,
        issued_at=utc(raw.lease.issued_at),
        expires_at=utc(raw.lease.expires_at),
        renewable=raw.lease.renewable,
        last_renewal_at=utc(raw.lease.last_renewal_at),
        renew_attempts_failed=raw.lease.renew_attempts_failed,
        signature=None
        if sig is None
        else LeaseSignature(
            alg=sig.alg, key_id=sig.key_id, verified=_SIGNATURE_VERIFIED.get(sig.verdict or "")
        ),
    )


def normalize_authorization(reader: RawReader) -> AuthorizationEvidence:
    settings = reader.first("settings", EffectiveSettings)
    tolerance = settings.value.lease_clock_tolerance_s if settings is not None else None
    lic = reader.first("license", License)
    doc = AuthorizationEvidence(
        product="lyftdata",
        observed_at=reader.ctx.observed_at,
        edition=lic.value.mode if lic else None,
        lease_clock_tolerance_s=tolerance,
        gaps=gaps(reader, "worker-auth"),
    )
    doc.complete = not doc.gaps
    for fetch in reader.items("worker-auth", WorkerAuth):
        raw = fetch.value
        if doc.lease_clock_tolerance_s is None and raw.clock_tolerance_s is not None:
            doc.lease_clock_tolerance_s = raw.clock_tolerance_s
        bootstrap = raw.bootstrap
        method = bootstrap.method if bootstrap and bootstrap.method in _METHODS else None
        doc.workers.append(
            WorkerAuthorization(
                worker=raw.worker_id,
                applicable=raw.applicable,
                bootstrap_method=method if bootstrap else None,  # type: ignore[arg-type]
                identity_cached=bootstrap.identity_cached if bootstrap else None,
                enrollment_key_still_configured=(
                    bootstrap.enrollment_key_still_configured if bootstrap else None
                ),
                decision=raw.decision if raw.decision in _DECISIONS else "unknown",  # type: ignore[arg-type]
                native_code=raw.native_code,
                message=raw.message,
                clock_skew_s=raw.clock_skew_s,
                lease=_lease(raw),
                source=fetch.source(),
            )
        )
    settle_gaps(doc, reader, "worker-auth")
    return doc
