"""The route table: contract paths (``openapi.yaml``) to handlers, and the GET dispatcher."""

from __future__ import annotations

import re
import time
from datetime import datetime

from .api import Body, Handler, health, license_show, settings, version
from .api_delivery import canaries, canary_receipts, deployments
from .api_jobs import job_placement, job_requirements, jobs, with_job
from .api_workers import (
    with_worker,
    worker_auth,
    worker_capacity,
    worker_logs,
    worker_status,
    worker_sysinfo,
    workers,
)
from .scenario import Scenario

WORKER_LOGS = with_worker(worker_logs)
"""A log's lines were written before anyone asked for them: their times are resolved against
the simulator's start, the instant the prepared hosts' log files are written at, so a line
both copies hold (host file, API) carries one time, as a real worker's line does."""

ROUTES: list[tuple[re.Pattern[str], Handler]] = [
    (re.compile(pattern), handler)
    for pattern, handler in [
        (r"^/api/health$", health),
        (r"^/api/version$", version),
        (r"^/api/license/show$", license_show),
        (r"^/api/settings/effective$", settings),
        (r"^/api/workers$", workers),
        (r"^/api/workers/(?P<id>[A-Za-z0-9.-]+)/status$", with_worker(worker_status)),
        (r"^/api/workers/(?P<id>[A-Za-z0-9.-]+)/sysinfo$", with_worker(worker_sysinfo)),
        (r"^/api/workers/(?P<id>[A-Za-z0-9.-]+)/logs$", WORKER_LOGS),
        (r"^/api/workers/(?P<id>[A-Za-z0-9.-]+)/auth$", with_worker(worker_auth)),
        (r"^/api/workers/(?P<id>[A-Za-z0-9.-]+)/capacity$", with_worker(worker_capacity)),
        (r"^/api/jobs$", jobs),
        (r"^/api/jobs/(?P<name>[A-Za-z0-9._-]+)/placement$", with_job(job_placement)),
        (r"^/api/jobs/(?P<name>[A-Za-z0-9._-]+)/runtime-requirements$", with_job(job_requirements)),
        (r"^/api/deployments$", deployments),
        (r"^/api/canaries$", canaries),
        (r"^/api/canaries/(?P<id>[A-Za-z0-9._-]+)/receipts$", canary_receipts),
    ]
]


def respond(
    sc: Scenario,
    now: datetime,
    path: str,
    query: dict[str, str],
    *,
    started: datetime | None = None,
) -> tuple[int, Body]:
    """Answer a GET of the contract; 404 for anything else (worker logs as of ``started``).

    A route the scenario declares broken answers as declared: 404, 500, or (``hang``)
    only after ``hang_s``, which a client with a shorter timeout never sees.
    """
    fault = next((f for f in sc.server.faults if f.matches(path)), None)
    if fault is not None and fault.answer == "not_found":
        return 404, {"error": "not_found", "message": "no such route"}
    if fault is not None and fault.answer == "error":
        return 500, {"error": "internal", "message": "the server failed to answer"}
    if fault is not None:
        time.sleep(fault.hang_s)
    for pattern, handler in ROUTES:
        match = pattern.match(path)
        if match:
            at = started if handler is WORKER_LOGS and started is not None else now
            return handler(sc, at, match.groupdict(), query)
    return 404, {"error": "not_found", "message": "no such route"}
