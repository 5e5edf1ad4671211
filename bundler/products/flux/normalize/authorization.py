"""Layer 2 facts: could each worker register (bootstrap token -> session)?

A registration refused by the anonymous-writes policy leaves no trace on the
server at INFO: only the worker's log shows ``Connection lost (HTTPStatusError:
Client error '401 Unauthorized' for url '.../workers/register' ...)`` in a loop.
A token the server does not accept gets a 403 and the server's own WARNING
``Invalid registration token for worker: NAME``, read as the refusal's cause. So workers are
taken from the API *and* the inventory (a worker that never registered is
not in ``GET /workers``), and each one's registration history is read from
both logs. The server's settings predict the outcome: with auth disabled and
``allow_anonymous`` off, every registration is refused.
"""

from __future__ import annotations

from bundler.analyze.wording import counted
from schemas.evidence import (
    AuthorizationEvidence,
    RegistrationAttempts,
    Source,
    WorkerAuthorization,
)
from schemas.manifest import HostRole

from ..settings import EffectiveSettings
from .product import host_settings
from .records import FluxRecords

ANONYMOUS_REFUSED = (
    "anonymous state-changing requests are refused (auth disabled and allow_anonymous off), "
    "so POST /workers/register answers 401"
)

INVALID_TOKEN = "invalid_registration_token"  # noqa: S105 (a native code, not a secret)
"""The native code of a registration the server refused for its token (its log says so)."""
UNKNOWN_CREDENTIAL = (
    "the server logged 'Invalid registration token' for it: the bootstrap or join token the "
    "worker presents matches none the server accepts"
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
    # The server's own reason for a 403: the token the worker presented matched nothing.
    invalid = flux.events_of("token_invalid", worker=worker)
    last_invalid = max((e.at for e in invalid if e.at), default=None)
    token_refused = bool(invalid) and (
        last_accepted is None or last_invalid is None or last_accepted < last_invalid
    )
    # a refusal whose time is unknown cannot be shown to predate an acceptance: it stands
    refusal_stands = last_accepted is None or last_rejected is None or last_accepted < last_rejected
    native: str | None = None
    if history and history.rejected and refusal_stands:
        decision, message = (
            "deny",
            (
                f"{counted(history.rejected, 'registration attempt')} refused with "
                f"{history.last_status_code}"
            ),
        )
        if refused_by_policy:
            message += f"; {ANONYMOUS_REFUSED}"
    elif token_refused:
        decision, message = "deny", f"{counted(len(invalid), 'registration attempt')} refused"
    elif accepted or listed:
        decision, message = "allow", "registered with the server"
    elif refused_by_policy:
        decision, message = "deny", ANONYMOUS_REFUSED
    else:
        decision, message = "unknown", None
    if decision == "deny" and token_refused:
        native, message = INVALID_TOKEN, f"{message}; {UNKNOWN_CREDENTIAL}"
    elif decision == "deny" and refused_by_policy:
        native = "anonymous_writes_refused"
    method = "bootstrap_token" if settings.get("workers.bootstrap_token_enabled") else "unknown"
    # Only for a worker whose attempts never reached the server (nor taken in, nor refused):
    # there the URL it tries is the question, and a fleet of registered workers does not
    # carry one URL per worker nobody reads.
    refused = bool(history and history.rejected) or token_refused
    never_in = not (accepted or listed or refused)
    server_url, server_url_source = (
        configured_server_url(flux, worker) if never_in else (None, None)
    )
    return WorkerAuthorization(
        worker=worker,
        bootstrap_method=method,  # type: ignore[arg-type]
        decision=decision,  # type: ignore[arg-type]
        message=message,
        registration=history,
        native_code=native,
        server_url=server_url,
        server_url_source=server_url_source,
        source=history.source if history else None,
    )


def configured_server_url(flux: FluxRecords, worker: str) -> tuple[str | None, str | None]:
    """The server URL ``worker``'s host settings send it to, and where it was set.

    Only a value its flux.toml or FLUX_* environment sets: Flux's default URL is not
    evidence of what the worker uses when neither was collected.
    """
    alias = flux.raw.alias_of(worker)
    if alias is None:
        return None, None
    settings = host_settings(flux, HostRole.WORKER, alias=alias)
    if settings.source("workers.server_url") not in ("env", "flux.toml"):
        return None, None
    return str(settings.get("workers.server_url")), settings.source("workers.server_url")


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
