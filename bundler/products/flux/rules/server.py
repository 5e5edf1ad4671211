"""Layer 0 for Flux: is the server up, healthy and ready?

When it is down, the workers' own logs are the best witness of *when* and
*how*: each one logs ``Connection lost (ConnectError: ...)`` and backs off,
so those lines are cited next to the collector's connection error.
"""

from __future__ import annotations

from datetime import UTC

from bundler.analyze.api import RuleContext, RuleResult, TimelineEvent, make_finding, rule
from bundler.analyze.codes import SERVER_HEALTH_UNKNOWN
from bundler.analyze.facts import cite_events
from bundler.analyze.wording import CITED, counted, listed_names
from schemas import Finding, Layer
from schemas.evidence import ProductInfo, ServerEvidence, WorkersEvidence

from .. import codes, recovery
from .facts import FLUX, events, server_side, worker_side


@rule(Layer.SERVER, products=FLUX, needs=(ServerEvidence,))
def flux_server_up(ctx: RuleContext) -> RuleResult | None:
    server = ctx.evidence.need(ServerEvidence)
    if server.reachable is False:
        lost = worker_side(events(ctx, "connection_lost", "sse_error"))
        latest: dict[str | None, TimelineEvent] = {}
        for event in lost:
            latest[event.worker] = event
        first: dict[str | None, TimelineEvent] = {}
        for event in lost:
            first.setdefault(event.worker, event)
        cited = [server.error_class, server.error_message]
        message = (
            f"The Flux server at {server.url} did not answer: "
            f"{': '.join(p for p in cited if p) or 'no response'}."
        )
        if latest:
            message += (
                f" {counted(len(latest), 'worker')} logged that they lost the connection "
                f"({listed_names(sorted(str(w) for w in latest))})."
            )
        stopping = events(ctx, "server_stopping")
        evidence = [ctx.evidence.cite(ServerEvidence, "/error_class", server.error_class)]
        evidence += cite_events(list(first.values())[:CITED] + list(latest.values())[:CITED])
        evidence += cite_events(stopping[-1:])
        return RuleResult.fail(
            codes.FLUX_SERVER_UNREACHABLE,
            message,
            evidence=evidence,
            recovery=recovery.server_down(server.url),
            acceptance=["GET /health answers 200", "every worker shows online in GET /workers"],
            error_class=server.error_class,
            workers_lost=sorted(str(w) for w in latest),
        )
    if server.database_ok is False:
        return _database_down(ctx, server)
    if server.healthy is False:
        return RuleResult.fail(
            codes.FLUX_SERVER_UNHEALTHY,
            f"GET /health says the server is not healthy (database {server.database_ok}).",
            evidence=[ctx.evidence.cite(ServerEvidence, "/native", server.native)],
            native_code=str(server.native.get("status")) if server.native else None,
        )
    if server.ready is False:
        return RuleResult.fail(
            codes.FLUX_SERVER_NOT_READY,
            "GET /ready says the server is not ready.",
            evidence=[ctx.evidence.cite(ServerEvidence, "/ready", server.ready)],
        )
    if server.healthy and server.ready:
        result = RuleResult.pass_(
            make_finding(
                codes.FLUX_SERVER_HEALTHY,
                "pass",
                f"Flux {server.version or ''} answers: healthy, database up, ready.",
                evidence=[ctx.evidence.cite(ServerEvidence, "/healthy", True)],
            )
        )
        note = _sqlite_fleet(ctx)
        if note is not None:
            result.findings.append(note)
        return result
    if server.gaps and server.healthy is not None and server.ready is None:
        # Flux answers both probes: /ready not read (failed, or over a reader's limit) leaves
        # the rung undecided; an unread /health is the generic rule's unknown
        return RuleResult.unknown(
            SERVER_HEALTH_UNKNOWN,
            f"The Flux server answered GET /health, but GET /ready was not read (gaps: "
            f"{', '.join(server.gaps)}): whether it is ready is unknown.",
            [ctx.evidence.cite(ServerEvidence, "/gaps", server.gaps)],
        )
    return None


def _database_down(ctx: RuleContext, server: ServerEvidence) -> RuleResult:
    """The server answers, but says its database is down (``/health``: ``"database": false``).

    Flux then fails every request that reads state (``GET /workers`` 500) and cannot
    persist pongs, so its reaper marks workers STALE and evicts them: heartbeat findings
    below are this fault's consequence, not the workers'. Its log has an
    ``(…OperationalError)`` line per request, scheduler cycle and worker stream: the first
    and latest say since when and how the connection fails.
    """
    failures = server_side(events(ctx, "database_error"))
    evidence = [ctx.evidence.cite(ServerEvidence, "/native", server.native)]
    evidence += cite_events(failures[:1] + failures[-1:])
    message = (
        'GET /health says the Flux server runs but its database is unavailable ("database": false)'
    )
    if failures:
        first = failures[0]
        when = f" since {first.at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC" if first.at else ""
        message += (
            "; the server log has "
            f"{counted(ctx.timeline.count('database_error'), 'database error')}"
            f"{when}, e.g. {first.detail.get('exc_class')}: {first.detail.get('message')}"
        )
    lost = [e for e in server_side(events(ctx, "stale", "evicted")) if _after(e, failures[:1])]
    if lost:
        names = sorted({str(e.worker) for e in lost})
        message += (
            f". Workers marked STALE or evicted since ({listed_names(names)}) could not have "
            "their heartbeats persisted: that follows from the database, not from them"
        )
    product = ctx.evidence.get(ProductInfo)
    database = str(product.settings.get("database_url") or "") if product else ""
    return RuleResult.fail(
        codes.FLUX_DATABASE_UNAVAILABLE,
        message + ".",
        evidence=evidence,
        recovery=recovery.database_down(database or None),
        acceptance=[
            "GET /health answers 200 with database true",
            "every worker shows online in GET /workers",
        ],
        native_code=str(server.native.get("status")) if server.native else None,
    )


def _after(event: TimelineEvent, since: list[TimelineEvent]) -> bool:
    """Whether ``event`` is no earlier than the first of ``since`` (dated ones only)."""
    if not since or since[0].at is None or event.at is None:
        return False
    return event.at >= since[0].at


def _sqlite_fleet(ctx: RuleContext) -> Finding | None:
    """Flux itself warns that SQLite is for single-node use; several workers contend on it.

    Only when the database URL is known: a SQLite URL that is merely Flux's default,
    assumed because the server's configuration was not collected (no server host), says
    nothing about the database (a PostgreSQL fleet read as SQLite otherwise).
    """
    product = ctx.evidence.get(ProductInfo)
    workers = ctx.evidence.get(WorkersEvidence)
    if product is None or not database_url_known(product):
        return None
    url = str(product.settings.get("database_url", ""))
    if not url.startswith("sqlite") or workers is None or len(workers.workers) < 2:
        return None
    return make_finding(
        codes.FLUX_SQLITE_MULTI_WORKER,
        "info",
        f"The server uses SQLite with {len(workers.workers)} workers; Flux supports SQLite for "
        "single-node use only and recommends PostgreSQL for a fleet.",
        evidence=[ctx.evidence.cite(ProductInfo, "/settings/database_url", url)],
    )


def database_url_known(product: ProductInfo) -> bool:
    """Whether ``database_url`` was read (or is Flux's default for a configuration read).

    Bundles from before ``settings_sources`` say whether the configuration was read
    through the heartbeat policy's source.
    """
    sources = product.settings_sources
    if sources is not None and "database_url" in sources:
        return sources["database_url"] != "unknown"
    return product.heartbeat is None or product.heartbeat.source != "unknown"
