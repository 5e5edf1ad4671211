"""Layer 0 facts: could we reach the Flux server, and did it say it is healthy and ready?

A transport failure is evidence, not silence: the error class and message of
the failed requests are kept (``ConnectError: All connection attempts
failed``), so the server rule can say *why* it failed. A probe that answered
with something other than its document says the server is not healthy (or
ready); one whose answer is stored whole but was over a reader's limit says
nothing: its member was never read, so the state is unknown (a gap).
"""

from __future__ import annotations

from bundler.products.base import StepResult
from schemas.evidence import APIAuth, HTTPProbe, ServerEvidence

from ..models import Health, Ready
from ..settings import EffectiveSettings
from .records import FluxRecords

PROBED_STEPS = ("health", "ready", "openapi", "workers", "metrics")
ENDPOINTS = {
    "health": "/health",
    "ready": "/ready",
    "openapi": "/openapi.json",
    "workers": "/workers",
    "metrics": "/metrics",
}


def _probe(result: StepResult) -> HTTPProbe:
    return HTTPProbe(
        endpoint=ENDPOINTS.get(result.step, result.step),
        status_code=result.http_status,
        error_class=result.error_class,
        error_message=result.error_message,
        member=result.member,
    )


def _auth(results: list[StepResult], settings: EffectiveSettings) -> APIAuth:
    rejected = [r for r in results if r.http_status in (401, 403)]
    if rejected:
        return APIAuth(status="rejected", http_status=rejected[0].http_status)
    if not any(r.http_status for r in results):
        return APIAuth(status="unknown")
    if settings.get("security.auth.enabled") is False:
        return APIAuth(status="anonymous", detail="auth disabled: every request is the admin")
    return APIAuth(status="ok")


def server_evidence(flux: FluxRecords, settings: EffectiveSettings) -> ServerEvidence:
    results = [r for step in PROBED_STEPS for r in flux.raw.results(step)]
    http_results = [r for r in flux.ctx.results if r.http_status is not None]
    evidence = ServerEvidence(
        url=flux.ctx.server_url,
        probes=[_probe(r) for r in results],
        auth=_auth(results, settings),
    )
    if results:
        evidence.reachable = bool(http_results)
    if not http_results:
        failed = next((r for r in results if r.error_class), None)
        if failed is not None:
            evidence.error_class = failed.error_class
            evidence.error_message = failed.error_message
    health_result = flux.raw.result("health")
    if health_result is not None:
        read = flux.raw.first("health", Health) or flux.raw.answered("health", Health)
        if read is not None:
            health = read.value
            evidence.healthy = health_result.http_status in (None, 200) and (
                health.status == "healthy"
            )
            evidence.database_ok = health.database
            evidence.version = health.version
            evidence.native = health.model_dump(mode="json")
            evidence.source = read.source("", ref="GET /health")
        elif health_result.http_status is not None and flux.raw.refusal(health_result) is None:
            evidence.healthy = False  # it answered, but not health: a refused member is unread
    ready_result = flux.raw.result("ready")
    if ready_result is not None:
        ready = flux.raw.first("ready", Ready) or flux.raw.answered("ready", Ready)
        if ready is not None:
            evidence.ready = ready.value.status == "ready"
        elif ready_result.http_status is not None and flux.raw.refusal(ready_result) is None:
            evidence.ready = False
    gaps = flux.failed("health", "ready")
    if gaps and evidence.reachable:
        evidence.complete = False
        evidence.gaps = gaps
    return evidence
