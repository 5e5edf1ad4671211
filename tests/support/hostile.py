"""A bundle whose every name and line tries to be markup: the HTML report must show it as text.

Worker names, labels, a job name and log lines carry ``<script>``,
``"><img onerror=...>`` and ``javascript:`` payloads; each payload, if it ever
ran, would set ``document.title`` to :data:`PWNED`, which the browser test
looks for. Laid out as an extracted Flux bundle (evidence, a log index, a
server and a worker log) so the real CLI and the real Flux log parser read it.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from schemas.evidence import (
    ConnectionState,
    JobPhase,
    JobRequirements,
    LogIndex,
    LogSource,
    WorkerAuthorization,
)

from .evidence import T0, healthy_fleet, job, lease, worker, write_bundle_dir

PWNED = "PWNED-by-bundle"
SCRIPT = f"<script>document.title='{PWNED}'</script>"
IMG = f'"><img src=x onerror="document.title=\'{PWNED}\'">'
JS_URL = f"javascript:document.title='{PWNED}'"
PAYLOADS = (SCRIPT, IMG, JS_URL)

EVIL_WORKER = f"w-{SCRIPT}"
EVIL_WORKER_2 = f"w2{IMG}"
EVIL_JOB = f"job-{IMG}"


def _stamp(seconds: int) -> str:
    return f"{T0 + timedelta(seconds=seconds):%Y-%m-%d %H:%M:%S}"


def write_hostile_bundle(root: Path) -> Path:
    """Write the hostile bundle under ``root`` and return it (a directory bundle)."""
    fleet = healthy_fleet()
    assert fleet.workers is not None
    assert fleet.jobs is not None
    assert fleet.authorization is not None
    fleet.workers.workers = [
        worker(
            EVIL_WORKER,
            connection=ConnectionState.OFFLINE,
            native_status=f"offline {SCRIPT}",
            labels={"zone": SCRIPT, "link": JS_URL, IMG: "x"},
            last_heartbeat_at=T0 - timedelta(minutes=3),
            heartbeat_age_s=180.0,
        ),
        worker(EVIL_WORKER_2, labels={"href": JS_URL}),
    ]
    fleet.authorization.workers = [
        WorkerAuthorization(
            worker=w.name, bootstrap_method="api_key", decision="allow", lease=lease()
        )
        for w in fleet.workers.workers
    ]
    fleet.jobs.jobs = [
        job(
            EVIL_JOB,
            id="e1",
            phase=JobPhase.RUNNING,
            assigned_worker=EVIL_WORKER,
            requirements=JobRequirements(labels={"zone": SCRIPT}),
        )
    ]
    server_log = "\n".join(
        [
            f"{_stamp(-300)} - flux.server - INFO - Flux server started successfully",
            f"{_stamp(-290)} - flux.api.worker_routes - INFO - Worker registered successfully: w1",
            f"{_stamp(-200)} - flux.server - WARNING - Worker w1 missed heartbeat, marked STALE "
            "(grace period: 6s)",
            f"{_stamp(-120)} - flux.server - ERROR - Execution e1 failed at dispatch: "
            f"{SCRIPT} {IMG}",
            f"{_stamp(-100)} - flux.server - ERROR - Execution e2 failed at dispatch: {JS_URL}",
        ]
    )
    worker_log = "\n".join(
        [
            f"{_stamp(-250)} - flux.worker - INFO - Worker starting up",
            f"{_stamp(-180)} - flux.worker - WARNING - Connection lost (httpx.ConnectError: "
            f"{IMG} {SCRIPT}). Reconnecting in 5s",
        ]
    )
    fleet.extra.append(
        LogIndex(
            observed_at=T0,
            product="flux",
            logs=[
                LogSource(member="hosts/h01/logs/00.log", host_alias="h01", role="server"),
                LogSource(
                    member="hosts/h02/logs/00.log",
                    host_alias="h02",
                    role="worker",
                    worker=EVIL_WORKER,
                ),
            ],
        )
    )
    members = {
        "hosts/h01/logs/00.log": server_log.encode() + b"\n",
        "hosts/h02/logs/00.log": worker_log.encode() + b"\n",
        "redaction-report.json": json.dumps(
            {
                "schema": "bundler.redaction/1",
                "ruleset_id": "builtin",
                "ruleset_sha256": "0" * 64,
                "total": 2,
                "by_kind": {SCRIPT: 1, "password": 1},
            }
        ).encode(),
    }
    return write_bundle_dir(fleet, root, members=members, profile="flux")
