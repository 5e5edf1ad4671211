"""Derived facts: what a LyftData server would conclude from a scenario's causes.

Pure functions of (scenario, now). The HTTP layer (``api.py``) only shapes
these into responses, so the same conclusions feed every endpoint and the
CLI stand-in's ``doctor --json``: a clock-skewed worker's lease is denied in
``/auth`` *and* in the doctor's checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from .scenario import JobSpec, Scenario, WorkerSpec, resolve_time


@dataclass(frozen=True)
class Heartbeat:
    state: str
    """online | stale | offline | never_connected | removed"""
    last_at: datetime | None
    age_s: float | None
    missed: int | None


def heartbeat(scenario: Scenario, worker: WorkerSpec, now: datetime) -> Heartbeat:
    """Online within two poll intervals, stale until interval + grace, then offline."""
    interval = scenario.settings.worker_poll_interval_s
    grace = scenario.settings.worker_heartbeat_grace_s
    last = resolve_time(worker.last_heartbeat, now)
    if worker.removed:
        return Heartbeat("removed", last, None, None)
    if last is None:
        return Heartbeat("never_connected", None, None, None)
    age = max(0.0, (now - last).total_seconds())
    missed = int(age // interval)
    if age <= 2 * interval:
        state = "online"
    elif age <= interval + grace:
        state = "stale"
    else:
        state = "offline"
    return Heartbeat(state, last, round(age, 3), missed)


@dataclass(frozen=True)
class AuthDecision:
    applicable: bool
    decision: str
    native_code: str | None = None
    message: str | None = None


def auth_decision(scenario: Scenario, worker: WorkerSpec, now: datetime) -> AuthDecision:
    """The lease decision, in the order a server would check: edition, license, clock, lease."""
    if worker.kind == "builtin":
        return AuthDecision(False, "allow")
    spec = worker.auth
    if spec.decision is not None:
        return AuthDecision(True, spec.decision, spec.native_code, spec.message)
    lic = scenario.license
    if lic.mode == "community":
        return AuthDecision(
            True,
            "deny",
            "community_edition_no_external_workers",
            "Community Edition supports only the built-in worker",
        )
    if lic.state in ("expired", "invalid"):
        return AuthDecision(True, "deny", "license_expired_or_invalid", f"license is {lic.state}")
    tolerance = scenario.settings.lease_clock_tolerance_s
    if abs(worker.clock_offset_s) > tolerance:
        return AuthDecision(
            True,
            "deny",
            "lease_clock_skew",
            f"worker clock differs from server by {worker.clock_offset_s:+.0f}s "
            f"(tolerance {tolerance:.0f}s)",
        )
    if spec.lease.signature in ("invalid", "unknown_key"):
        return AuthDecision(
            True, "deny", "lease_signature_invalid", "lease signature did not verify"
        )
    expires = resolve_time(spec.lease.expires_at, now)
    if expires is not None and expires <= now:
        return AuthDecision(True, "expired", "lease_expired", "lease expired and was not renewed")
    return AuthDecision(True, "allow")


@dataclass
class Placement:
    job: str
    per_worker: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    """worker id -> (verdict, reasons)"""

    @property
    def placed(self) -> list[str]:
        return [w for w, (verdict, _) in self.per_worker.items() if verdict == "placed"]

    @property
    def eligible(self) -> list[str]:
        return [
            w
            for w, (verdict, _) in self.per_worker.items()
            if verdict in ("placed", "eligible_not_placed")
        ]


def _labels_match(wanted: list[str], have: list[str]) -> bool:
    return set(wanted) <= set(have)


def filter_reasons(job: JobSpec, worker: WorkerSpec) -> list[str]:
    """Why ``worker`` is not a candidate for ``job`` (empty: eligible).

    Placement answers *intent* (assignment, group, labels, OS); whether the
    worker has the capabilities and resources is the capacity layer's question.
    """
    reasons = []
    if job.workers is not None and worker.id not in job.workers:
        reasons.append("NOT_INTENDED_FOR_WORKER")
    if job.worker_group is not None and worker.group != job.worker_group:
        reasons.append("NOT_IN_WORKER_GROUP")
    if not _labels_match(job.labels, worker.labels):
        reasons.append("LABEL_MISMATCH")
    if job.os is not None and worker.sysinfo.os != job.os:
        reasons.append("OS_UNSUPPORTED")
    return reasons


def placement(scenario: Scenario, job: JobSpec) -> Placement:
    result = Placement(job.name)
    replicas_left = job.replicas
    for worker in sorted(scenario.workers, key=lambda w: w.id):
        if worker.removed:
            continue
        reasons = filter_reasons(job, worker)
        if reasons:
            result.per_worker[worker.id] = ("filtered", reasons)
        elif replicas_left > 0:
            result.per_worker[worker.id] = ("placed", [])
            replicas_left -= 1
        else:
            result.per_worker[worker.id] = ("eligible_not_placed", [])
    return result


@dataclass(frozen=True)
class JobDeploymentState:
    job: str
    worker: str
    state: str
    reason: str | None
    message: str | None
    context_keys_missing: list[str]
    signature_verified: bool | None
    revision: int | None = None
    """The revision the worker runs, when it reached one (drift: not the staged one)."""


def drifted(job: JobSpec) -> bool:
    """The worker runs another revision than the one staged for it."""
    return job.running_revision is not None and job.running_revision != job.staged_revision


def job_deployments(scenario: Scenario, job: JobSpec, now: datetime) -> list[JobDeploymentState]:
    """One per placed worker: active, unless unstaged, unauthorized, or overridden.

    A worker whose lease is refused stops running its jobs, so its deployments
    fail with ``WORKER_NOT_AUTHORIZED`` (the ladder still stops at authorization).
    A worker that runs another revision than the staged one (``running_revision``)
    is ``deployed`` but not active, with ``DRIFT_DETECTED``.
    """
    out = []
    for worker_id in placement(scenario, job).placed:
        override = next((o for o in job.deployment if o.worker in (None, worker_id)), None)
        worker = scenario.worker(worker_id)
        auth = auth_decision(scenario, worker, now) if worker else None
        if override is not None:
            out.append(
                JobDeploymentState(
                    job.name,
                    worker_id,
                    override.state,
                    override.reason,
                    override.message,
                    override.context_keys_missing,
                    override.signature_verified,
                )
            )
        elif not job.staged:
            out.append(
                JobDeploymentState(
                    job.name,
                    worker_id,
                    "failed",
                    "NOT_STAGED",
                    "only staged jobs can be deployed",
                    [],
                    None,
                )
            )
        elif auth is not None and auth.decision != "allow":
            out.append(
                JobDeploymentState(
                    job.name,
                    worker_id,
                    "failed",
                    "WORKER_NOT_AUTHORIZED",
                    f"worker lost its runtime lease ({auth.native_code or auth.decision})",
                    [],
                    True,
                )
            )
        elif drifted(job):
            out.append(
                JobDeploymentState(
                    job.name,
                    worker_id,
                    "deployed",
                    "DRIFT_DETECTED",
                    f"runs revision {job.running_revision}, revision {job.staged_revision} "
                    "intended",
                    [],
                    True,
                    job.running_revision,
                )
            )
        else:
            out.append(
                JobDeploymentState(
                    job.name, worker_id, "active", None, None, [], True, job.staged_revision
                )
            )
    return out


def blockers_for(job: JobSpec, worker: str) -> list[tuple[str, str, str | None]]:
    """(code, requirement id, message) of each unmet requirement for one worker."""
    return [
        (req.code or f"{req.kind.upper()}_{req.status.upper()}", req.id, req.message)
        for req in job.requirements
        if (req.workers is None or worker in req.workers) and req.status in ("missing", "denied")
    ]
