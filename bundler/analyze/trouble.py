"""Quick triage: is this job or worker worth a ladder of its own, and why?

These are cheap screens over canonical evidence used to *choose* targets and
to say why each was chosen ("waiting, no worker assigned (CREATED)"). They
never decide a layer's status: the rules do that, with citations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from schemas.evidence import (
    AuthorizationEvidence,
    DeploymentEvidence,
    Job,
    JobDeployment,
    LocalStateEvidence,
    OutcomeEvidence,
    RequirementsEvidence,
    WorkersEvidence,
    WorkerStatus,
)

from .api import EvidenceSet
from .contradictions import conflicting_worker
from .duplicates import deployment_key, in_agreed_order, job_deployment_key
from .facts import (
    SUCCEEDED_PHASES,
    by_job,
    by_worker,
    departed_idle,
    find_worker,
    heartbeat_age,
    heartbeat_policy,
    is_zero_time,
    job_time,
    memoized,
    stale_after,
)
from .matching import availability, is_available


def latest_success(jobs: Sequence[Job]) -> dict[str, float]:
    """Per job name, when it last ran or completed: failures older than that are history."""
    latest: dict[str, float] = {}
    for job in jobs:
        if job.phase.value in SUCCEEDED_PHASES:
            latest[job.name] = max(latest.get(job.name, float("-inf")), job_time(job))
    return latest


def job_trouble(
    ev: EvidenceSet, job: Job, succeeded: Mapping[str, float] | None = None
) -> str | None:
    """Why ``job`` is not running well, or None when it is (or finished well).

    ``succeeded`` is :func:`latest_success` of the job's siblings: a failure
    followed by a later success of the same job is history, not trouble.

    Re-dispatch alone is not trouble: a job running again after its worker was
    evicted is the fencing mechanism working (Flux's *Worker observability* page)."""
    phase = job.phase.value
    native = ""
    if job.native_state and job.native_state.lower() != phase:
        native = f" ({job.native_state})"
    on = f" on {job.assigned_worker}" if job.assigned_worker else ""
    if phase == "unassigned":
        return f"waiting, no worker assigned{native}"
    if phase == "scheduled":
        return f"scheduled{on}, not yet claimed{native}"
    if phase in ("paused", "unknown"):
        return f"{phase}{native}"
    if phase == "failed":
        return _failure(job, succeeded or {}, native)
    if phase in ("claimed", "running") and job.assigned_worker:
        found = find_worker(ev, job.assigned_worker)
        if conflicting_worker(ev, job.assigned_worker) is not None:
            return f"{phase}{on}, whose records disagree"
        if found is not None and not is_available(found[1]):
            # Each reason it cannot take work, in words: "online/healthy" hid a paused worker
            # and "offline/unknown" read as doubt about a worker known to be offline.
            why = " and ".join(m.detail.removeprefix("worker ") for m in availability(found[1]))
            return f"{phase}{on}, which {why}"
    if job.phase.terminal:
        return None
    return _evidence_trouble(ev, job.name, None)


def _failure(job: Job, succeeded: Mapping[str, float], native: str) -> str | None:
    """A failure is trouble unless a success of the same job is dated later: history.

    A failure with no time (none, or a zero time) is not older than that success, whatever
    :func:`job_time` sorts it as: the product never said when it ran, so it may be the latest.
    """
    last_success = succeeded.get(job.name)
    if last_success is None:
        return f"last run failed{native}"
    ran = job_time(job)
    if ran == float("-inf"):
        return f"last run failed{native}, undated: it may be later than the job's last success"
    return None if last_success > ran else f"last run failed{native}"


def job_deployments(ev: EvidenceSet, doc: DeploymentEvidence) -> dict[str, list[JobDeployment]]:
    """Every job deployment of ``doc`` by job, in one order whatever the lists': the records
    in agreed order (:func:`~.duplicates.in_agreed_order`: a record listed twice), each
    one's job deployments in agreed order. Built once per evidence set, not once per job."""

    def build() -> dict[str, list[JobDeployment]]:
        index: dict[str, list[JobDeployment]] = {}
        for record in in_agreed_order(doc.deployments, deployment_key):
            for jd in in_agreed_order(record.job_deployments, job_deployment_key):
                index.setdefault(jd.job, []).append(jd)
        return index

    return memoized(ev, "job-deployments", (doc, doc.deployments), build)


def _evidence_trouble(ev: EvidenceSet, job: str, worker: str | None) -> str | None:
    deployments = ev.get(DeploymentEvidence)
    if deployments is not None and deployments.applicable:  # a record listed twice: one order
        for jd in job_deployments(ev, deployments).get(job, ()):
            if worker in (None, jd.worker) and jd.state == "failed":
                return f"deployment failed on {jd.worker}"
    requirements = ev.get(RequirementsEvidence)
    for report in by_job(ev, requirements, "reports").get(job, ()):
        if worker in (None, report.worker) and report.blockers:
            return f"runtime requirements blocked on {report.worker}"
    outcome = ev.get(OutcomeEvidence)
    for run in by_job(ev, outcome, "canaries").get(job, ()):
        if worker in (None, run.worker) and run.phase in ("failed", "error", "timed_out"):
            return "canary failed"
    return None


def worker_trouble(ev: EvidenceSet, name: str, *, job: Job | None = None) -> str | None:
    """Why worker ``name`` cannot be trusted with work, or None."""
    found = find_worker(ev, name)
    doc = ev.get(WorkersEvidence)
    if found is None:
        if doc is not None and doc.complete:
            return "unknown to the control plane"
    elif (conflict := conflicting_worker(ev, name)) is not None:
        # Judged by neither record: either could be the true one (its ladder says so).
        return f"listed {len(conflict[0])} times, records disagree"
    else:
        worker = found[1]
        if departed_idle(ev, worker):
            return None  # the product keeps records of workers that left: expected
        if worker.connection.value != "online":
            return f"worker {worker.connection.value}"
        if worker.health.value == "unhealthy":
            return "worker reports unhealthy"
        if worker.admin.value in ("paused", "draining"):
            return f"worker {worker.admin.value}"
        stale = _stale(ev, found[1])
        if stale:
            return stale
    auth = ev.get(AuthorizationEvidence)
    records = by_worker(ev, AuthorizationEvidence, auth).get(name, ())
    for _, entry in records if auth and auth.applicable else []:
        if entry.applicable and (
            entry.decision in ("deny", "expired")
            or entry.native_code
            or (entry.registration is not None and entry.registration.rejected)
        ):
            return "runtime authorization failing"
        # Unlisted, though its log shows it trying: it never got in (a wrong server URL).
        # Without this it was a target only when nothing else in the fleet was wrong.
        if found is None and entry.registration is not None and entry.registration.attempts:
            return "tried to register, never listed"
    state = ev.get(LocalStateEvidence)
    for check in state.files if state else []:
        if check.worker == name and check.integrity == "corrupt":
            return "corrupt local state"
    if job is not None:
        return _evidence_trouble(ev, job.name, name)
    return None


def _stale(ev: EvidenceSet, worker: WorkerStatus) -> str | None:
    if is_zero_time(worker.last_heartbeat_at):
        return "listed online, its heartbeat time the zero time ('never')"
    age = heartbeat_age(ev, worker)
    policy = heartbeat_policy(ev)
    timeout = stale_after(policy[0] if policy else None)
    if age is not None and timeout is not None and age > timeout:
        return f"listed online, last heartbeat {age:.0f}s old"
    return None
