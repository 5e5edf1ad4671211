"""Product identity: versions (server, each worker), edition, heartbeat policy, settings."""

from __future__ import annotations

from schemas.evidence import ProductInfo

from ...base import NormalizeContext
from ..raw import EffectiveSettings, License, Version
from ._util import first, model_list, worker_of_host
from .host_files import host_text, parse_version
from .workers import heartbeat_policy


def normalize_product(ctx: NormalizeContext) -> ProductInfo:
    doc = ProductInfo(product="lyftdata", observed_at=ctx.observed_at, name="lyftdata")
    version = first(ctx, "version")
    if version is not None and (v := version.model(Version)) is not None:
        doc.server_version = v.version
    lic = first(ctx, "license")
    if lic is not None and (m := lic.model(License)) is not None:
        doc.edition = m.mode
    for _, worker in model_list(first(ctx, "workers"), "lyftdata.worker[]"):
        if worker.version:
            doc.worker_versions[worker.id] = worker.version
    for result in ctx.results_for("worker-version"):
        worker_id = worker_of_host(ctx, result.host)
        found = host_text(ctx, "worker-version", result.host)
        if worker_id and found and (parsed := parse_version(found[1])):
            doc.worker_versions.setdefault(worker_id, parsed)
    doc.heartbeat = heartbeat_policy(ctx)
    settings = first(ctx, "settings")
    if settings is not None and (s := settings.model(EffectiveSettings)) is not None:
        doc.settings = s.model_dump(exclude_none=True)
    return doc
