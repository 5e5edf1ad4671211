"""Product identity and effective settings (``evidence/product.json``).

The heartbeat policy is what every heartbeat rule compares against, so it is
rebuilt from the best source available: the server's own start-up line in its
log, then its process environment, then ``flux.toml``, then Flux's defaults
(10/30/30 s) — with the source recorded, so a reader knows which it was.
"""

from __future__ import annotations

from bundler.products.base import StepResult
from schemas.evidence import ProductInfo
from schemas.manifest import HostRole

from ..metrics import read_gauges
from ..models import Health, OpenApi
from ..settings import EffectiveSettings, effective_settings, parse_env_listing
from .records import FluxRecords


def log_timings(flux: FluxRecords) -> dict[str, int]:
    """Timings the server itself logged (its latest start, latest STALE/evicted line)."""
    timings: dict[str, int] = {}
    started = flux.events_of("reaper_started")
    if started:
        detail = started[-1].detail
        timings["workers.heartbeat_interval"] = int(detail["interval_s"])
        timings["workers.heartbeat_timeout"] = int(detail["timeout_s"])
    graced = [e for e in flux.events_of("stale", "evicted") if "grace_s" in e.detail]
    if graced:
        timings["workers.eviction_grace_period"] = int(graced[-1].detail["grace_s"])
    return timings


def server_settings(flux: FluxRecords) -> EffectiveSettings:
    """The server's effective settings from its flux.toml, FLUX_* environment and log."""
    return host_settings(flux, HostRole.SERVER, log_timings=log_timings(flux))


def host_settings(
    flux: FluxRecords,
    role: HostRole,
    *,
    alias: str | None = None,
    log_timings: dict[str, int] | None = None,
) -> EffectiveSettings:
    """Effective settings from the flux.toml and FLUX_* environment collected on the hosts of
    ``role`` (only host ``alias``, when given): a worker's own ``server_url`` lives there."""

    def results(step: str) -> list[StepResult]:
        found = flux.host_results(step, role)
        return [r for r in found if alias is None or r.host == alias]

    toml_text = None
    for result in results("flux-toml"):
        toml_text = flux.raw.text(result) or toml_text
    env: dict[str, str] | None = None
    for step in ("flux-env", "flux-unit-env", "flux-env-secrets"):
        for result in results(step):
            text = flux.raw.text(result)
            if text is None:
                continue
            env = env if env is not None else {}
            if step == "flux-env-secrets":
                # Only the names were collected: a secret is set, its value stays on the host.
                env.update({name.strip(): "<set>" for name in text.splitlines() if name.strip()})
            else:
                env.update(parse_env_listing(text))
    return effective_settings(toml_text=toml_text, env=env, log_timings=log_timings or {})


def worker_versions(flux: FluxRecords) -> dict[str, str]:
    """flux-core version each worker advertises in its package list."""
    versions = {}
    for located in flux.workers:
        for package in located.value.packages:
            if package.name.lower() == "flux-core" and package.version:
                versions[located.value.name] = package.version
    return versions


def product_info(flux: FluxRecords, settings: EffectiveSettings) -> ProductInfo:
    version = None
    if flux.raw.result("health") is not None:
        body = flux.raw.first("health", Health)
        version = body.value.version if body else None
        if version is None:
            spec = flux.raw.first("openapi", OpenApi)
            version = spec.value.version if spec else None
    metrics = flux.raw.result("metrics")
    observability = None
    gauges: dict[str, float] = {}
    if metrics is not None:
        if flux.raw.ok(metrics):
            observability = True
            gauges = read_gauges(flux.raw.text(metrics) or "")
        elif metrics.http_status == 404 or metrics.status.value == "skipped":
            observability = False
    return ProductInfo(
        name="flux",
        server_version=version,
        worker_versions=worker_versions(flux),
        edition="open source",
        heartbeat=settings.heartbeat_policy(),
        settings=settings.as_dict(),
        observability_enabled=observability,
        settings_sources={key: settings.source(key) for key in settings.as_dict()},
        untrusted_gauges=gauges,
    )
