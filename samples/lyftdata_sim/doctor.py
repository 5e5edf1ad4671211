"""What the ``lyftdata doctor --json`` stand-in prints: the simulator's own ladder checks.

Shape: ``DoctorReport`` in ``openapi.yaml`` [B/I]. Served to the CLI stand-in
on ``/_sim/doctor`` (simulator-only, not part of the contract).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from . import derive
from .api import iso
from .scenario import Scenario

LADDER = [
    "server",
    "heartbeat",
    "authorization",
    "placement",
    "deployment",
    "requirements",
    "capacity",
    "outcome",
]


def _check(check_id: str, layer: str, status: str, **extra: Any) -> dict[str, Any]:
    return {"id": check_id, "layer": layer, "status": status, "severity": "required", **extra}


def doctor_report(sc: Scenario, now: datetime) -> dict[str, Any]:
    checks = [
        _check("server.health", "server", "pass" if sc.server.health == "ok" else "fail"),
        _check(
            "server.license",
            "server",
            "fail" if sc.license.state in ("expired", "invalid") else "pass",
            native_code="license_expired_or_invalid"
            if sc.license.state in ("expired", "invalid")
            else None,
        ),
    ]
    for worker in sc.workers:
        hb = derive.heartbeat(sc, worker, now)
        hb_status = {"online": "pass", "stale": "warn"}.get(hb.state, "fail")
        checks.append(
            _check(f"worker.{worker.id}.heartbeat", "heartbeat", hb_status, message=hb.state)
        )
        auth = derive.auth_decision(sc, worker, now)
        if auth.applicable:
            checks.append(
                _check(
                    f"worker.{worker.id}.auth.lease",
                    "authorization",
                    "pass" if auth.decision == "allow" else "fail",
                    native_code=auth.native_code,
                    message=auth.message,
                )
            )
    for job in sc.jobs:
        placed = derive.placement(sc, job)
        checks.append(
            _check(f"job.{job.name}.placement", "placement", "pass" if placed.placed else "fail")
        )
        for dep in derive.job_deployments(sc, job, now):
            failed = dep.state == "failed"
            checks.append(
                _check(
                    f"job.{job.name}.deployment.{dep.worker}",
                    "deployment",
                    "fail" if failed else "pass",
                    code=dep.reason,
                )
            )
            blockers = derive.blockers_for(job, dep.worker)
            checks.append(
                _check(
                    f"job.{job.name}.requirements.{dep.worker}",
                    "requirements",
                    "fail" if blockers else "pass",
                    code=blockers[0][0] if blockers else None,
                )
            )
    failing = [c["layer"] for c in checks if c["status"] == "fail"]
    first = min(failing, key=LADDER.index) if failing else None
    counts: dict[str, int] = {}
    for c in checks:
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    return {
        "schema": "lyftdata.doctor/v1",
        "tool": {"name": "lyftdata", "version": sc.server.version},
        "generated_at": iso(now),
        "summary": {
            "first_failing_layer": first,
            "verdict": "blocked" if first else "healthy",
            "counts": counts,
        },
        "checks": checks,
    }
