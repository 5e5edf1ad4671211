"""What the Flux profile collects: read-only GETs, logs, settings, state listings, SQLite.

Where each fact lives decides the step (flux-observed §9): current status,
``in_flight``, worker metrics, event histories and workflow affinity come from
the API; STALE/evicted history, 401 loops and starvation only from logs; the
persisted heartbeat, slot limits, claim generations and pins only from the
SQLite database; control-socket health and the volume under Flux's home only from
the worker host.

Secrets are kept out at the source, not only redacted: the SQL selects named
columns (never ``session_token`` or ``exec_token``, never the pickled ones),
the state listing prints names and sizes (never contents), and the process
environment is read with a pattern that skips secret-named variables (their
names are read separately, never their values). Every command is a plain
read-only program (no shell: the engine's read-only guard refuses one); the
only product CLI call, ``flux worker status``, is declared in
``FluxProfile.read_only_commands``.
"""

from __future__ import annotations

from bundler.collect.plan import CommandStep, FileStep, ForEach, HttpStep, LogStep, Plan, Step
from schemas.manifest import HostRole

from . import sql
from .routes import ACTIVE_STATES

SERVER = [HostRole.SERVER]
WORKER = [HostRole.WORKER]
FLUX_HOSTS = [HostRole.SERVER, HostRole.WORKER]

EXECUTION_LIST_LIMIT = 200
"""Executions asked per state (summaries are small; Flux orders them by id)."""
DETAIL_LIMIT = 50
"""Detailed executions fetched per state (each carries its whole event history)."""
TERMINAL_DETAIL_LIMIT = 20
"""Failed and completed runs fetched in detail (Flux cannot list them by recency)."""

SENSITIVE_WORDS = "(?:TOKEN|SECRET|KEY|PASSWORD|CREDENTIAL)"
ENV_SETTINGS = rf"(?:^|(?<=\x00))FLUX_(?![A-Z0-9_]*{SENSITIVE_WORDS})[A-Z0-9_]+=[^\x00]*"
"""``FLUX_*`` variables of a process environment (NUL-separated), one per output line,
except those whose *name* says secret: their values never leave the host."""
ENV_SENSITIVE_WORDSS = rf"(?:^|(?<=\x00))FLUX_[A-Z0-9_]*{SENSITIVE_WORDS}[A-Z0-9_]*(?==)"
"""Names (only) of the secret ``FLUX_*`` variables that are set."""


def _http_steps() -> list[Step]:
    steps: list[Step] = [
        HttpStep(
            id="health", path="/health", member="raw/http/health.json", schema_name="flux.health"
        ),
        HttpStep(id="ready", path="/ready", member="raw/http/ready.json", schema_name="flux.ready"),
        HttpStep(
            id="openapi",
            path="/openapi.json",
            member="raw/http/openapi.json",
            schema_name="flux.openapi",
        ),
        HttpStep(
            id="metrics",
            path="/metrics",
            member="raw/http/metrics.txt",
            media_type="text/plain",
            optional=True,
            absent_note="observability off (/metrics is served only with "
            "observability.enabled=true)",
        ),
        HttpStep(
            id="workers",
            path="/workers",
            member="raw/http/workers.json",
            schema_name="flux.worker[]",
        ),
        HttpStep(
            id="worker",
            path="/workers/{name}",
            member="raw/http/worker/{index}.json",
            schema_name="flux.worker",
            for_each=ForEach(step="workers", bind={"name": "/name"}, limit=500),
        ),
        HttpStep(
            id="workflows",
            path="/workflows",
            member="raw/http/workflows.json",
            schema_name="flux.workflow_summary[]",
        ),
        HttpStep(
            id="workflow",
            path="/workflows/{namespace}/{name}",
            member="raw/http/workflow/{index}.json",
            schema_name="flux.workflow",
            for_each=ForEach(
                step="workflows", bind={"namespace": "/namespace", "name": "/name"}, limit=200
            ),
        ),
    ]
    listed = [(state, EXECUTION_LIST_LIMIT, DETAIL_LIMIT) for state in ACTIVE_STATES]
    listed += [
        (state, TERMINAL_DETAIL_LIMIT, TERMINAL_DETAIL_LIMIT) for state in ("FAILED", "COMPLETED")
    ]
    for state, list_limit, detail_limit in listed:
        slug = state.lower().replace("_", "-")
        steps.append(
            HttpStep(
                id=f"executions.{slug}",
                path="/executions",
                params={"state": state, "limit": str(list_limit)},
                member=f"raw/http/executions-{slug}.json",
                schema_name="flux.execution_list",
            )
        )
        steps.append(
            HttpStep(
                id=f"execution.{slug}",
                path="/executions/{execution_id}",
                params={"detailed": "true"},
                member=f"raw/http/execution-{slug}/{{index}}.json",
                schema_name="flux.execution",
                for_each=ForEach(
                    step=f"executions.{slug}",
                    items="/executions",
                    bind={"execution_id": "/execution_id"},
                    limit=detail_limit,
                ),
            )
        )
    return steps


def _host_steps() -> list[Step]:
    environ = "/proc/{flux_pid}/environ"
    return [
        LogStep(id="logs", roles=FLUX_HOSTS),
        FileStep(id="flux-toml", roles=FLUX_HOSTS, path="{flux_home}/flux.toml",
                 member="hosts/{alias}/flux.toml"),
        CommandStep(id="processes", roles=FLUX_HOSTS,
                    argv=["ps", "-C", "flux", "-ww", "-o", "pid=,etimes=,args="],
                    member="hosts/{alias}/processes.txt", ok_exit_codes=[0, 1], timeout_s=15),
        CommandStep(id="flux-env", roles=FLUX_HOSTS,
                    argv=["grep", "-a", "-o", "-P", ENV_SETTINGS, environ],
                    member="hosts/{alias}/flux-env.txt", ok_exit_codes=[0, 1], timeout_s=15),
        CommandStep(id="flux-env-secrets", roles=FLUX_HOSTS,
                    argv=["grep", "-a", "-o", "-P", ENV_SENSITIVE_WORDSS, environ],
                    member="hosts/{alias}/flux-env-secret-names.txt", ok_exit_codes=[0, 1],
                    timeout_s=15),
        CommandStep(id="flux-unit-env", roles=FLUX_HOSTS,
                    argv=["systemctl", "show", "--property=Environment", "--value", "{flux_unit}"],
                    member="hosts/{alias}/flux-unit-env.txt", missing_ok=True, timeout_s=15),
        CommandStep(id="state-dir", roles=FLUX_HOSTS,
                    argv=["find", "{state_dir}", "-maxdepth", "1", "-printf",
                          "%y %m %s %T@ %f\\n"],
                    member="hosts/{alias}/state-dir.txt", timeout_s=15),
        # The volume Flux writes under its home (.flux/.cache, .flux/.data): a worker's own
        # `resources.disk_free` is the root filesystem's, whatever volume its home is on.
        CommandStep(id="state-volume", roles=FLUX_HOSTS,
                    argv=["df", "-P", "-k", "{state_dir}"],
                    member="hosts/{alias}/state-volume.txt", timeout_s=15),
        # Its inodes: with none left, creating a file is ENOSPC however many blocks are free.
        CommandStep(id="state-inodes", roles=FLUX_HOSTS,
                    argv=["df", "-P", "-i", "{state_dir}"],
                    member="hosts/{alias}/state-inodes.txt", timeout_s=15),
        CommandStep(id="db-workers", roles=SERVER,
                    argv=["sqlite3", "-readonly", "-batch", "{db_path}", sql.WORKERS],
                    member="hosts/{alias}/db-workers.json", media_type="application/json",
                    schema_name="flux.db.worker[]", missing_ok=True, timeout_s=30),
        CommandStep(id="db-executions", roles=SERVER,
                    argv=["sqlite3", "-readonly", "-batch", "{db_path}", sql.ACTIVE_EXECUTIONS],
                    member="hosts/{alias}/db-executions.json", media_type="application/json",
                    schema_name="flux.db.execution[]", missing_ok=True, timeout_s=30),
        CommandStep(id="db-last-runs", roles=SERVER,
                    argv=["sqlite3", "-readonly", "-batch", "{db_path}", sql.LAST_RUNS],
                    member="hosts/{alias}/db-last-runs.json", media_type="application/json",
                    schema_name="flux.db.last_run[]", missing_ok=True, timeout_s=30),
        # Exit 1 with "Connection refused" on stderr is the stale-socket evidence: it is
        # recorded as this collector's error message.
        CommandStep(id="worker-status", roles=WORKER, cwd="{flux_home}",
                    argv=["{flux_bin_dir}/flux", "worker", "status", "{worker}"],
                    member="hosts/{alias}/worker-status.json", media_type="application/json",
                    schema_name="flux.worker_control", timeout_s=10),
    ]  # fmt: skip


def build_plan() -> Plan:
    """The whole Flux plan (data; the engine decides how to run it)."""
    return Plan(profile="flux", steps=_http_steps() + _host_steps())
