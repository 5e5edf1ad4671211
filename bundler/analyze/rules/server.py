"""Rung 0, server: is the control plane reachable, trusted, authorized and healthy?

Everything above this rung is read through the control plane, so a failure
here blocks every target: the report then says "fix the server first" instead
of blaming workers for what the collector could not see.
"""

from __future__ import annotations

from schemas import Citation, Layer
from schemas.evidence import ServerEvidence

from ...plurals import counted
from ...timetext import day
from .. import codes
from ..api import RuleContext, RuleResult, make_finding, rule
from ..facts import citations, cite, cite_source, is_zero_time

STORAGE_WARN_PCT = 80.0
"""LyftData prunes logs above 80 % disk use by default; warn from there."""


def _server(ctx: RuleContext) -> ServerEvidence:
    return ctx.evidence.need(ServerEvidence)


@rule(Layer.SERVER, needs=(ServerEvidence,))
def server_reachable(ctx: RuleContext) -> RuleResult | None:
    """Did any request get an HTTP answer, over TLS we trust?"""
    server = _server(ctx)
    ev = ctx.evidence
    tls = server.tls
    if tls is not None and tls.verified is False and not tls.insecure_override:
        why = tls.error or "verification failed"
        return RuleResult.fail(
            codes.TLS_NOT_TRUSTED,
            f"Doctor's connection to the server did not trust its TLS certificate ({why}"
            + (f": {tls.error_message}" if tls.error_message else "")
            + ").",
            evidence=citations(
                cite(ev, ServerEvidence, "tls", value=tls.error or "verified=false"),
                cite_source(server.source),
            ),
            tls_error=tls.error,
        )
    if server.reachable is False:
        error = ": ".join(x for x in (server.error_class, server.error_message) if x)
        return RuleResult.fail(
            codes.SERVER_UNREACHABLE,
            f"The control plane at {server.url or 'the configured URL'} did not answer"
            + (f" ({error})." if error else "."),
            evidence=citations(
                cite(ev, ServerEvidence, "error_message", value=error or None),
                cite_source(server.source),
            ),
            url=server.url,
            error_class=server.error_class,
        )
    if server.reachable is None:
        return RuleResult.unknown(
            codes.SERVER_REACHABILITY_UNKNOWN,
            "The bundle does not say whether the control plane answered.",
            [cite(ev, ServerEvidence, "reachable")],
        )
    if tls is not None and tls.insecure_override:
        return RuleResult.warn(
            codes.TLS_INSECURE_IN_USE,
            "TLS verification was disabled for collection: fine for a short evaluation with a "
            "self-signed certificate, not for production.",
            evidence=[cite(ev, ServerEvidence, "tls", "insecure_override", value=True)],
        )
    return RuleResult.pass_(
        make_finding(
            codes.SERVER_REACHABLE,
            "pass",
            "The control plane answered.",
            evidence=[cite(ev, ServerEvidence, "reachable", value=True)],
        )
    )


@rule(Layer.SERVER, needs=(ServerEvidence,))
def api_token_accepted(ctx: RuleContext) -> RuleResult | None:
    """A rejected API token means most evidence above this rung is missing, not negative."""
    server = _server(ctx)
    if server.auth.status in ("ok", "anonymous", "unknown"):
        return None
    code = codes.API_TOKEN_REJECTED if server.auth.status == "rejected" else codes.API_TOKEN_MISSING
    status = f" (HTTP {server.auth.http_status})" if server.auth.http_status else ""
    text = "rejected the API token" if code == codes.API_TOKEN_REJECTED else "required an API token"
    return RuleResult.fail(
        code,
        f"The control plane {text}{status}; the collector could not read protected evidence.",
        evidence=[cite(ctx.evidence, ServerEvidence, "auth", value=server.auth.detail or None)],
        http_status=server.auth.http_status,
    )


@rule(Layer.SERVER, needs=(ServerEvidence,))
def server_healthy(ctx: RuleContext) -> RuleResult | None:
    """Health, readiness, the database behind the server, and server-side errors."""
    server = _server(ctx)
    if server.reachable is False:
        return None
    ev = ctx.evidence
    checks = (
        ("healthy", server.healthy, codes.SERVER_UNHEALTHY, "reports itself unhealthy"),
        ("ready", server.ready, codes.SERVER_NOT_READY, "reports itself not ready"),
        (
            "database_ok",
            server.database_ok,
            codes.SERVER_DATABASE_DOWN,
            "cannot reach its database",
        ),
    )
    for field, value, code, text in checks:
        if value is False:
            return RuleResult.fail(
                code,
                f"The control plane {text}.",
                evidence=citations(
                    cite(ev, ServerEvidence, field, value=False), _native_body(ctx, server)
                ),
            )
    errors = [p for p in server.probes if p.status_code is not None and p.status_code >= 500]
    if errors:
        first = errors[0]
        index = server.probes.index(first)
        return RuleResult.warn(
            codes.SERVER_ERRORS,
            f"{counted(len(errors), 'request')} got a server error, e.g. {first.endpoint} -> "
            f"HTTP {first.status_code}.",
            evidence=[cite(ev, ServerEvidence, "probes", index, value=first.status_code)],
            endpoints=[p.endpoint for p in errors],
        )
    if server.healthy is None and (server.ready is None or server.gaps):
        # ready alone is no health verdict when the health answer is a gap (a failed
        # request, or one stored whole but over a reader's limit)
        return RuleResult.unknown(
            codes.SERVER_HEALTH_UNKNOWN,
            "The control plane answered, but its health was not collected"
            + (f" or not read (gaps: {', '.join(server.gaps)})." if server.gaps else "."),
            [cite(ev, ServerEvidence, "healthy")],
        )
    return RuleResult.pass_(
        make_finding(
            codes.SERVER_HEALTHY,
            "pass",
            "The control plane reports healthy.",
            evidence=[cite(ev, ServerEvidence, "healthy", value=server.healthy)],
        )
    )


def _native_body(ctx: RuleContext, server: ServerEvidence) -> Citation | None:
    """The product's own health body, when it kept one."""
    if not server.native:
        return None
    return cite(ctx.evidence, ServerEvidence, "native", value=server.native)


@rule(Layer.SERVER, needs=(ServerEvidence,))
def server_license(ctx: RuleContext) -> RuleResult | None:
    """License problems warn here; the authorization rung decides what they block."""
    lic = _server(ctx).license
    if lic is None:
        return None
    where = [cite(ctx.evidence, ServerEvidence, "license", value=lic.state)]
    if lic.state in ("expired", "invalid"):
        return RuleResult.warn(
            codes.LICENSE_EXPIRED_OR_INVALID,
            f"The server's license is {lic.state}; external workers lose runtime authorization.",
            evidence=where,
            native_code=lic.native_code,
            license_mode=lic.mode,
        )
    if lic.state == "expiring":
        when = f" on {day(lic.expires_at)}" if lic.expires_at else ""
        if is_zero_time(lic.expires_at):  # Go's unset time: no date, not year 1
            when = " (its expiry date reads the zero time: none recorded)"
        return RuleResult.warn(
            codes.LICENSE_EXPIRING,
            f"The server's license expires{when}.",
            evidence=where,
            native_code=lic.native_code,
        )
    return None


@rule(Layer.SERVER, needs=(ServerEvidence,))
def server_storage(ctx: RuleContext) -> RuleResult | None:
    used = _server(ctx).storage_used_pct
    if used is None or used < STORAGE_WARN_PCT:
        return None
    return RuleResult.warn(
        codes.STORAGE_PRESSURE,
        f"The server's storage is {used:.0f}% used (logs and metrics are pruned above "
        f"{STORAGE_WARN_PCT:.0f}%).",
        evidence=[cite(ctx.evidence, ServerEvidence, "storage_used_pct", value=used)],
    )


RULES = (server_reachable, api_token_accepted, server_healthy, server_license, server_storage)
