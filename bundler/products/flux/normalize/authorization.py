"""Layer 2 facts: could each worker register (bootstrap token -> session)?

A refused registration leaves no trace on the server at INFO: only the
worker's log shows ``Connection lost (HTTPStatusError: Client error '401
Unauthorized' for url '.../workers/register' ...)`` in a loop. So workers are
taken from the API *and* the inventory (a worker that never registered is
not in ``GET /workers``), and each one's registration history is read from
both logs. The server's settings predict the outcome: with auth disabled and
``allow_anonymous`` off, every registration is refused.
"""

from __future__ import annotations

from schemas.evidence import (
    AuthorizationEvidence,
    RegistrationAttempts,
    Source,
    WorkerAuthorization,
)

from ..settings import EffectiveSettings
from .records import FluxRecords

ANONYMOUS_REFUSED = (
    "anonymous state-changing requests are refused (auth disabled and allow_anonymous off), "
    "so POST /workers/register answers 401"
)


def anonymous_refused(settings: EffectiveSettings) -> bool:
    return settings.get("security.auth.enabled") is False and (
        settings.get("security.auth.allow_anonymous") is False
    )


def registration_history(flux: FluxRecords, worker: str) -> RegistrationAttempts | None:
    attempts = flux.events_of("registering", worker=worker)
    rejected = flux.events_of("auth_rejected", worker=worker)
    if not attempts and not rejected:
        return None
    dated = [e.at for e in attempts + rejected if e.at is not None]
    last = rejected[-1] if rejected else None
    cited = last or attempts[-1]
    return RegistrationAttempts(
        attempts=max(len(attempts), len(rejected)),
        rejected=len(rejected),
        last_status_code=last.detail.get("status_code") if last else None,
        last_error=(last.detail.get("exc_class") if last else None),
        first_at=min(dated, default=None),
        last_at=max(dated, default=None),
        source=Source(method="log", member=cited.member, line_start=cited.line),
    )


def worker_authorization(
    flux: FluxRecords, worker: str, settings: EffectiveSettings, listed: bool
) -> WorkerAuthorization:
    history = registration_history(flux, worker)
    accepted = flux.events_of("registered", "connected", worker=worker)
    last_rejected = history.last_at if history and history.rejected else None
    last_accepted = max((e.at for e in accepted if e.at), default=None)
    refused_by_policy = anonymous_refused(settings)
    # a refusal whose time is unknown cannot be shown to predate an acceptance: it stands
    refusal_stands = last_accepted is None or last_rejected is None or last_accepted < last_rejected
    if history and history.rejected and refusal_stands:
        decision, message = (
            "deny",
            (f"{history.rejected} registration attempt(s) refused with {history.last_status_code}"),
        )
        if refused_by_policy:
            message += f"; {ANONYMOUS_REFUSED}"
    elif accepted or listed:
        decision, message = "allow", "registered with the server"
    elif refused_by_policy:
        decision, message = "deny", ANONYMOUS_REFUSED
    else:
        decision, message = "unknown", None
    method = "bootstrap_token" if settings.get("workers.bootstrap_token_enabled") else "unknown"
    return WorkerAuthorization(
        worker=worker,
        bootstrap_method=method,  # type: ignore[arg-type]
        decision=decision,  # type: ignore[arg-type]
        message=message,
        registration=history,
        native_code="anonymous_writes_refused"
        if decision == "deny" and refused_by_policy
        else None,
        source=history.source if history else None,
    )


def authorization_evidence(flux: FluxRecords, settings: EffectiveSettings) -> AuthorizationEvidence:
    listed = {w.value.name for w in flux.workers}
    inventory = {h.worker for h in flux.ctx.hosts if h.worker}
    names = sorted(listed | inventory)
    return AuthorizationEvidence(
        applicable=True,
        edition="open source",
        workers=[worker_authorization(flux, n, settings, n in listed) for n in names],
        complete=bool(flux.raw.results("logs")) or bool(listed),
        gaps=flux.failed("logs"),
    )
