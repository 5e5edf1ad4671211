"""What ``doctor --profile lyftdata`` collects: read-only GETs and read-only host commands.

Every HTTP path here is declared in ``openapi.yaml`` (a test proves it), and
none matches :data:`MUTATING_ROUTES`. Host commands only read: versions,
service state, a *listing* of the worker state directory (names, sizes, times;
never the contents of cached keys) and ``sqlite3 -readonly`` integrity checks.
The collection engine's read-only guard checks every command again at run
time; the product's own programs are admitted by ``read_only.py``.
"""

from __future__ import annotations

from schemas.manifest import HostRole

from ...collect.plan import CommandStep, FileStep, ForEach, HttpStep, LogStep, Plan

PROFILE_NAME = "lyftdata"

LOG_LIMIT = 200
"""LyftData's *Worker Recovery and Serviceability* guide captures the latest 200 log lines."""

MUTATING_ROUTES: tuple[str, ...] = (
    "/api/workers/auto-enrollment*",
    "/api/workers/remove*",
    "/api/workers/{id}/remove*",
    "/api/jobs/{name}/remove*",
    "/api/deployments/{id}/remove*",
    "/api/workers/{id}/trust-reset*",
    "/api/contexts/update-*",
    "/api/api-key/issue*",
    "/api/license/install*",
)
"""Writes bundler must never call, whatever the method (``x-bundler-never-call`` in the
contract). ``{x}`` matches one path segment, a trailing ``*`` anything after: every route
under a ``remove`` is refused, and auto-enrollment even for a GET (its POST is the write)."""

STATE_LISTING_FORMAT = r"%y\t%s\t%T@\t%m\t%P\n"
"""find -printf: type, size, mtime (epoch), mode, path relative to LYFTDATA_JOBS_DIR."""

STATE_DATABASES: tuple[str, ...] = ("worker.db", "auth-cache.db", "settings.db")
"""SQLite files of LYFTDATA_JOBS_DIR checked for integrity [I: names inferred from the
*Worker Recovery and Serviceability* guide's "auth-cache or settings databases"; correct
against a real worker]. The listing shows every file, so a database we do not know by
name is still visible (as not checked)."""

SQLITE_OK_EXIT_CODES = [0, 1, 11, 26]
"""sqlite3 exits 11 (SQLITE_CORRUPT) or 26 (SQLITE_NOTADB) on a damaged file and 1 when it
cannot open one: findings, not collector failures (the normalizer reads the exit code)."""


def sqlite_step_id(database: str) -> str:
    """``worker.db`` -> ``sqlite-worker``."""
    return "sqlite-" + database.removesuffix(".db").replace("_", "-").lower()


def _worker_fan_out(step_id: str, path: str, schema: str, **extra: object) -> HttpStep:
    return HttpStep(
        id=step_id,
        path=path,
        for_each=ForEach(step="workers", bind={"id": "/id"}),
        member=f"raw/http/{step_id}/{{index}}.json",
        schema_name=schema,
        **extra,  # type: ignore[arg-type]
    )


def _job_fan_out(step_id: str, path: str, schema: str) -> HttpStep:
    return HttpStep(
        id=step_id,
        path=path,
        for_each=ForEach(step="jobs", bind={"name": "/name"}),
        member=f"raw/http/{step_id}/{{index}}.json",
        schema_name=schema,
    )


def http_steps() -> list[HttpStep]:
    """The control-plane GETs, server first (the ladder's order)."""
    return [
        HttpStep(
            id="health",
            path="/api/health",
            member="raw/http/health.json",
            schema_name="lyftdata.health",
        ),
        HttpStep(
            id="version",
            path="/api/version",
            member="raw/http/version.json",
            schema_name="lyftdata.version",
        ),
        HttpStep(
            id="license",
            path="/api/license/show",
            member="raw/http/license.json",
            schema_name="lyftdata.license",
        ),
        HttpStep(
            id="settings",
            path="/api/settings/effective",
            member="raw/http/settings.json",
            schema_name="lyftdata.settings",
            optional=True,
            absent_note="effective settings route absent: product defaults assumed",
        ),
        HttpStep(
            id="workers",
            path="/api/workers",
            member="raw/http/workers.json",
            schema_name="lyftdata.worker[]",
        ),
        _worker_fan_out("worker-status", "/api/workers/{id}/status", "lyftdata.worker_status"),
        _worker_fan_out("worker-sysinfo", "/api/workers/{id}/sysinfo", "lyftdata.worker_sysinfo"),
        _worker_fan_out(
            "worker-logs",
            "/api/workers/{id}/logs",
            "lyftdata.worker_logs",
            params={"limit": str(LOG_LIMIT)},
        ),
        _worker_fan_out("worker-auth", "/api/workers/{id}/auth", "lyftdata.worker_auth"),
        _worker_fan_out(
            "worker-capacity",
            "/api/workers/{id}/capacity",
            "lyftdata.worker_capacity",
            optional=True,
            absent_note="capacity report absent for this worker",
        ),
        HttpStep(
            id="jobs", path="/api/jobs", member="raw/http/jobs.json", schema_name="lyftdata.job[]"
        ),
        _job_fan_out("job-placement", "/api/jobs/{name}/placement", "lyftdata.job_placement"),
        _job_fan_out(
            "job-requirements", "/api/jobs/{name}/runtime-requirements", "lyftdata.job_requirements"
        ),
        HttpStep(
            id="deployments",
            path="/api/deployments",
            member="raw/http/deployments.json",
            schema_name="lyftdata.deployment[]",
            optional=True,
            absent_note="GET /api/deployments answered 404: no deployment records",
        ),
        HttpStep(
            id="canaries",
            path="/api/canaries",
            member="raw/http/canaries.json",
            schema_name="lyftdata.canary[]",
            optional=True,
            absent_note="canary runs are not available on this server",
        ),
        HttpStep(
            id="canary-receipts",
            path="/api/canaries/{id}/receipts",
            for_each=ForEach(step="canaries", bind={"id": "/canary_id"}, limit=50),
            member="raw/http/canary-receipts/{index}.json",
            schema_name="lyftdata.canary_receipts",
        ),
    ]


WORKER = [HostRole.WORKER]
ANY_ROLE = [HostRole.SERVER, HostRole.WORKER, HostRole.OTHER]


def host_steps() -> list[CommandStep | FileStep | LogStep]:
    """Worker hosts over SSH: versions, service, state directory, logs, the product CLI."""
    return [
        CommandStep(
            id="worker-version",
            roles=WORKER,
            argv=["lyftdata-worker", "--version"],
            member="hosts/{alias}/lyftdata-worker-version.txt",
            missing_ok=True,
        ),
        CommandStep(
            id="worker-service",
            roles=WORKER,
            missing_ok=True,
            argv=[
                "systemctl",
                "show",
                "--no-pager",
                "--property=Id,LoadState,ActiveState,SubState,MainPID,NRestarts,"
                "ActiveEnterTimestamp",
                "lyftdata-worker.service",
            ],
            member="hosts/{alias}/lyftdata-worker-service.txt",
        ),
        CommandStep(
            id="state-listing",
            roles=WORKER,
            argv=["find", "{state_dir}", "-maxdepth", "3", "-printf", STATE_LISTING_FORMAT],
            member="hosts/{alias}/state-listing.txt",
        ),
        *(
            CommandStep(
                id=sqlite_step_id(database),
                roles=WORKER,
                argv=[
                    "sqlite3",
                    "-readonly",
                    "-batch",
                    f"{{state_dir}}/{database}",
                    "PRAGMA integrity_check",
                ],
                member=f"hosts/{{alias}}/{sqlite_step_id(database)}.txt",
                missing_ok=True,
                ok_exit_codes=SQLITE_OK_EXIT_CODES,
            )
            for database in STATE_DATABASES
        ),
        LogStep(id="logs", roles=ANY_ROLE),
        CommandStep(
            id="cli-doctor",
            roles=ANY_ROLE,
            argv=["lyftdata", "doctor", "--json"],
            member="hosts/{alias}/lyftdata-doctor.json",
            media_type="application/json",
            schema_name="lyftdata.doctor",
            missing_ok=True,
            ok_exit_codes=[0, 1],
        ),
        CommandStep(
            id="cli-worker-status",
            roles=WORKER,
            missing_ok=True,
            argv=["lyftdata", "workers", "status", "{worker}"],
            member="hosts/{alias}/lyftdata-workers-status.txt",
        ),
        CommandStep(
            id="cli-worker-sysinfo",
            roles=WORKER,
            missing_ok=True,
            argv=["lyftdata", "workers", "sysinfo", "{worker}"],
            member="hosts/{alias}/lyftdata-workers-sysinfo.txt",
        ),
        CommandStep(
            id="cli-worker-logs",
            roles=WORKER,
            missing_ok=True,
            argv=["lyftdata", "workers", "logs", "{worker}", "--limit", str(LOG_LIMIT)],
            member="hosts/{alias}/lyftdata-workers-logs.txt",
        ),
    ]


def build_plan() -> Plan:
    return Plan(profile=PROFILE_NAME, steps=[*http_steps(), *host_steps()])
