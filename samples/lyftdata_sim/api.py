"""Responses of the LyftData API contract (``openapi.yaml``), shaped from derived facts.

Each handler is ``(scenario, now, params, query) -> (status, body)``; the
route table maps contract paths to handlers. Nothing here does I/O, so tests
can call it directly and the HTTP layer stays a thin shell.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from .scenario import Scenario, resolve_time

Body = Any
Handler = Callable[[Scenario, datetime, dict[str, str], dict[str, str]], tuple[int, Body]]


def iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def not_found(what: str) -> tuple[int, Body]:
    return 404, {"error": "not_found", "message": f"no such {what}"}


def health(sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]) -> tuple[int, Body]:
    body = {
        "status": sc.server.health,
        "database": sc.server.database,
        "uptime_s": 86400.0,
        "storage": {
            "used_pct": sc.server.storage_used_pct,
            "prune_threshold_pct": sc.settings.disk_usage_max_percentage,
        },
    }
    return (503 if sc.server.health == "error" else 200), body


def version(sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]) -> tuple[int, Body]:
    return 200, {"version": sc.server.version, "build": sc.server.build, "api": "v1"}


def license_show(
    sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]
) -> tuple[int, Body]:
    lic = sc.license
    native = None
    if lic.mode == "community":
        native = "community_edition_no_external_workers"
    elif lic.state in ("expired", "invalid"):
        native = "license_expired_or_invalid"
    return 200, {
        "mode": lic.mode,
        "state": lic.state,
        "licensee": lic.licensee,
        "expires_at": iso(resolve_time(lic.expires_at, now)),
        "external_workers_allowed": lic.mode != "community",
        "limits": {
            "max_workers": 1 if lic.mode == "community" else lic.max_workers,
            "max_jobs": 15 if lic.mode == "community" else lic.max_jobs,
            "volume_bytes_per_day": 250_000_000_000 if lic.mode == "community" else None,
        },
        "native_code": native,
    }


def settings(sc: Scenario, now: datetime, p: dict[str, str], q: dict[str, str]) -> tuple[int, Body]:
    body = sc.settings.model_dump()
    body["tls"] = {"enabled": sc.server.tls, "insecure": False}
    return 200, body
