"""Product identity and effective settings (``evidence/product.json``).

The heartbeat policy is what every heartbeat rule compares against, so it is
rebuilt from the best source available: the server's own start-up line in its
log, then its process environment, then ``flux.toml``, then Flux's defaults
(10/30/30 s) — with the source recorded, so a reader knows which it was.
"""

from __future__ import annotations

from schemas.evidence import ProductInfo
from schemas.manifest import HostRole

from ..metrics import read_gauges
from ..models import Health, OpenApi
from ..settings import EffectiveSettings, effective_settings, parse_env_listing
from .raw import FluxRaw


def log_timings(raw: FluxRaw) -> dict[str, int]:
    """Timings the server itself logged (its latest start, latest STALE/evicted line)."""
    timings: dict[str, int] = {}
    started = raw.events_of("reaper_started")
    if started:
        detail = started[-1].detail
        timings["workers.heartbeat_interval"] = int(detail["interval_s"])
        timings["workers.heartbeat_timeout"] = int(detail["timeout_s"])
    graced = [e for e in raw.events_of("stale", "evicted") if "grace_s" in e.detail]
    if graced:
        timings["workers.eviction_grace_period"] = int(graced[-1].detail["grace_s"])
    return timings


def server_settings(raw: FluxRaw) -> EffectiveSettings:
    """The server's effective settings from its flux.toml, FLUX_* environment and log."""
    toml_text = None
    for result in raw.host_results("flux-toml", HostRole.SERVER):
        toml_text = raw.text(result) or toml_text
    env: dict[str, str] | None = None
    for step in ("flux-env", "flux-unit-env", "flux-env-secrets"):
        for result in raw.host_results(step, HostRole.SERVER):
            text = raw.text(result)
            if text is None:
                continue
            env = env if env is not None else {}
            if step == "flux-env-secrets":
                # Only the names were collected: a secret is set, its value stays on the host.
                env.update({name.strip(): "<set>" for name in text.splitlines() if name.strip()})
            else:
                env.update(parse_env_listing(text))
    return effective_settings(toml_text=toml_text, env=env, log_timings=log_timings(raw))


def worker_versions(raw: FluxRaw) -> dict[str, str]:
    """flux-core version each worker advertises in its package list."""
    versions = {}
    for located in raw.workers:
        for package in located.value.packages:
            if package.name.lower() == "flux-core" and package.version:
                versions[located.value.name] = package.version
    return versions


def product_info(raw: FluxRaw, settings: EffectiveSettings) -> ProductInfo:
    health = raw.first("health")
    version = None
    if health is not None:
        body = raw.model(health, Health)
        version = body.version if body else None
        openapi = raw.first("openapi")
        if version is None and openapi is not None:
            spec = raw.model(openapi, OpenApi)
            version = spec.version if spec else None
    metrics = raw.first("metrics")
    observability = None
    gauges: dict[str, float] = {}
    if metrics is not None:
        if raw.ok(metrics):
            observability = True
            gauges = read_gauges(raw.text(metrics) or "")
        elif metrics.http_status == 404 or metrics.status.value == "skipped":
            observability = False
    return ProductInfo(
        name="flux",
        server_version=version,
        worker_versions=worker_versions(raw),
        edition="open source",
        heartbeat=settings.heartbeat_policy(),
        settings=settings.as_dict(),
        observability_enabled=observability,
        settings_sources={key: settings.source(key) for key in settings.as_dict()},
        untrusted_gauges=gauges,
    )
