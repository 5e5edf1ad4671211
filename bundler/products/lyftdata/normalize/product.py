"""Product identity: versions (server, each worker), edition, heartbeat policy, settings."""

from __future__ import annotations

from schemas.evidence import ProductInfo

from ...raw import RawReader
from ..raw import EffectiveSettings, License, Version, WorkerSummary
from .host_files import host_text, parse_version
from .workers import heartbeat_policy


def normalize_product(reader: RawReader) -> ProductInfo:
    doc = ProductInfo(product="lyftdata", observed_at=reader.ctx.observed_at, name="lyftdata")
    version = reader.first("version", Version)
    if version is not None:
        doc.server_version = version.value.version
    lic = reader.first("license", License)
    if lic is not None:
        doc.edition = lic.value.mode
    for listed in reader.listed("workers", WorkerSummary):
        if listed.value.version:
            doc.worker_versions[listed.value.id] = listed.value.version
    for result in reader.results("worker-version"):
        worker_id = reader.worker_of(result.host)
        found = host_text(reader, "worker-version", result.host)
        if worker_id and found and (parsed := parse_version(found[1])):
            doc.worker_versions.setdefault(worker_id, parsed)
    doc.heartbeat = heartbeat_policy(reader)
    settings = reader.first("settings", EffectiveSettings)
    if settings is not None:
        doc.settings = settings.value.model_dump(exclude_none=True)
    return doc
