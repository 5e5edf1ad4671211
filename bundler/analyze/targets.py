"""Which (worker, job) ladders to walk.

Without ``--worker``/``--job`` the analyzer looks where trouble is: every job
or execution that is not running well (waiting, failed and not superseded by
a later success, paused, claimed by a worker that is gone) and
every worker that is not serviceable (not online, unhealthy, paused, stale,
denied authorization, corrupt local state); then every other worker whose host warns
(``host_warned``: :mod:`.host_warnings`, by the rules that judge a worker from its host's
evidence alone), after the trouble, so a nearly full disk beside a failed job is walked
too, never ahead of the trouble in the ladders a report walks. When nothing is wrong it still
shows the healthy picture — the latest run of each job with its worker, and
every worker — so a healthy fleet reads "every layer passes", not "no output".
When which run of a job is the latest cannot be told (undated runs, or runs at the
same time), every run that may be it is walked and its reason says so: no list
order picks one.

A job that waits with no worker gets its *best candidate* as the target's
worker (the one the job is meant for and that could take it soonest), or none
when no worker is even intended; placement and capacity then explain why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from schemas.evidence import (
    AuthorizationEvidence,
    CapacityEvidence,
    DeploymentEvidence,
    Job,
    JobPlacement,
    JobsEvidence,
    PlacementEvidence,
    WorkersEvidence,
)

from ..errors import UsageError
from .api import EvidenceSet, Target
from .contradictions import spell
from .duplicates import (
    in_agreed_order,
    job_key,
    leaf_disagreement,
    placement_key,
    verdict_key,
)
from .facts import (
    by_job,
    departed_idle,
    find_worker,
    job_time,
    jobs,
    memoized,
    names,
    waiting,
    workers,
)
from .matching import is_available, rank_candidates
from .trouble import job_deployments, job_trouble, latest_success, worker_trouble

MAX_HEALTHY_JOBS = 10

EVERY_WORKER = "no job or worker shows trouble, so each worker is checked"
"""Why a worker of a fleet with no trouble is walked without a job. The report's "why chosen"
used to say "worker", which told a reader nothing."""
NOTHING_LISTED = "no worker or job is listed, so only the control plane is checked"
"""Why a bundle that lists neither workers nor jobs is walked as one ladder without either."""


def known_workers(ev: EvidenceSet) -> list[str]:
    """Every worker name the bundle mentions anywhere."""
    return list(_known_names(ev))


def _known_names(ev: EvidenceSet) -> dict[str, None]:
    """:func:`known_workers` as a dict, built once per evidence set: a target walked by name
    asks whether its worker is known, and ``bundler diff`` walks up to a hundred."""
    listed, ran, auth = ev.get(WorkersEvidence), ev.get(JobsEvidence), ev.get(AuthorizationEvidence)

    def build() -> dict[str, None]:
        seen: dict[str, None] = {w.name: None for w in workers(ev)}
        seen.update({j.assigned_worker: None for j in jobs(ev) if j.assigned_worker})
        seen.update({a.worker: None for a in (auth.workers if auth else [])})
        return seen

    of = (
        listed and listed.workers,
        ran and ran.jobs,
        auth and auth.workers,
    )
    return memoized(ev, "known-workers", of, build)


def known_jobs(ev: EvidenceSet) -> list[str]:
    return list(dict.fromkeys(job.name for job in jobs(ev)))


def select_targets(
    ev: EvidenceSet,
    *,
    worker: str | None = None,
    job: str | None = None,
    host_warned: Mapping[str, str] | None = None,
) -> list[Target]:
    """The targets to analyze, most specific request first. Unknown names are usage errors.

    ``host_warned`` (worker -> why, :func:`.host_warnings.reasons`) adds the workers whose
    host warns to the fleet's targets when neither ``worker`` nor ``job`` is asked for."""
    if worker is not None and worker not in _known_names(ev) and find_worker(ev, worker) is None:
        raise UsageError(
            f"no worker called {worker!r} in this bundle", hint=_known("workers", known_workers(ev))
        )
    matching = _matching_jobs(ev, job) if job is not None else None
    if matching is not None and not matching:
        raise UsageError(
            f"no job or execution called {job!r} in this bundle",
            hint=_known("jobs", known_jobs(ev)),
        )
    if matching is not None:
        chosen = _troubled(ev, matching) or _latest_runs(matching)
        return [_target(ev, j, why, worker) for j, why in _collapse(chosen, worker)]
    if worker is not None:
        related = list(_jobs_by_worker(ev).get(worker, ()))
        chosen = _troubled(ev, related)
        targets = [_target(ev, j, why, worker) for j, why in _collapse(chosen, worker)]
        reason = worker_trouble(ev, worker) or "requested worker"
        return targets or [Target(worker=worker, job=None, reason=reason)]
    return _everything(ev, host_warned or {})


def screened_workers(ev: EvidenceSet) -> list[str]:
    """The workers whose hosts are asked for warnings: every known worker but those that left
    (a departed worker's record is history the product keeps, as :func:`_healthy` says)."""
    return [w for w in known_workers(ev) if not _departed(ev, w)]


def _known(what: str, items: list[str]) -> str:
    return f"known {what}: {names(items, limit=20)}" if items else f"the bundle lists no {what}"


def _matching_jobs(ev: EvidenceSet, wanted: str) -> list[Job]:
    return [j for j in jobs(ev) if wanted in (j.name, j.id)]


def _latest_runs(runs: Sequence[Job]) -> list[tuple[Job, str]]:
    """The runs of one job that may be its latest, each with why it was chosen: the latest
    dated one alone, or, when that cannot be told, every run that may be it.

    A run with no time (none, or a zero time: :func:`~.facts.job_time`) is not older than a
    dated one, and of two runs at the same time neither is the later. Picking one of them
    by list order made the healthy view (the last listed) and ``--job``'s default (the
    first) walk different runs, on different workers: healthy one way, blocked the other.
    So every run that may be the latest is walked, in one order whatever the list's, and
    the reason says that which ran last cannot be told.
    """
    runs = [run for run, _ in _each_run_once(runs)]  # a run listed twice alike is one run
    top = max(job_time(run) for run in runs)
    undated = float("-inf")
    may_be = sorted((run for run in runs if job_time(run) in (top, undated)), key=_run_order)
    if len(may_be) == 1:
        return [(may_be[0], "latest run")]
    why = [run.id or run.name for run in may_be if job_time(run) == undated]
    said = f"{names(why)} undated" if why else "at the same time"
    reason = (
        f"may be the latest run: which of {len(may_be)} runs of {may_be[0].name} ran last "
        f"cannot be told ({said})"
    )
    return [(run, reason) for run in may_be]


def _run_order(run: Job) -> tuple[str, str]:
    """One order for runs, whatever the list's: by id, then by what the record says."""
    return run.id or "", run.model_dump_json(exclude={"source"})


def _troubled(ev: EvidenceSet, items: Iterable[Job]) -> list[tuple[Job, str]]:
    runs = _each_run_once(list(items))
    succeeded = latest_success([job for job, disputed in runs if disputed is None])
    found = []
    for job, disputed in runs:
        reason = disputed or job_trouble(ev, job, succeeded)
        if reason is not None:
            found.append((job, reason))
    return found


def _each_run_once(items: Sequence[Job]) -> list[tuple[Job, str | None]]:
    """Each run once (at its first record's place), and why it is trouble when its records
    disagree (the same execution listed running and again failed).

    Each record was judged on its own: the failed one was a target and failed the outcome
    whichever came first, and the running one could make another failure history. The run
    is now one target, its ladder judged on each record (:mod:`.readings`), and no record
    of it counts as a success. Records that agree are one run, listed twice.
    """
    records: dict[str, list[Job]] = {}
    for job in items:
        if (key := job_key(job)) is not None:
            records.setdefault(key, []).append(job)
    runs: list[tuple[Job, str | None]] = []
    for job in items:
        key = job_key(job)
        listed = records.get(key, [job]) if key is not None else [job]
        if len(listed) > 1 and job is not listed[0]:
            continue  # the run is where its first record is
        chosen = in_agreed_order(listed, job_key)[0]
        differ = leaf_disagreement(listed) if len(listed) > 1 else {}
        disputed = f"listed {len(listed)} times, its records disagree ({spell(differ)})"
        runs.append((chosen, disputed if differ else None))
    return runs


def _collapse(chosen: list[tuple[Job, str]], worker: str | None) -> list[tuple[Job, str]]:
    """One target per (job, phase, worker): many identical stuck executions read as one;
    and one per failed job: its latest failed run.

    Executions of one job with the same phase, assignment and requirements get
    the same candidate worker, so they are grouped before any worker is picked. Failed
    runs of one job are grouped whatever their worker: the job's last outcome is its
    latest failed run, and an earlier failure (on that worker or another) is history it
    counts, not a target of its own (:func:`_representatives`).
    """
    groups: dict[tuple[str, ...], list[tuple[Job, str]]] = {}
    for job, why in chosen:
        groups.setdefault(_group_key(job, worker), []).append((job, why))
    collapsed = []
    for members in groups.values():
        collapsed += _representatives(members)
    return collapsed


def _group_key(job: Job, worker: str | None) -> tuple[str, ...]:
    if job.phase.value == "failed":
        return (job.name, job.phase.value, worker or "")
    req = job.requirements.model_dump_json() if job.requirements else ""
    return (job.name, job.phase.value, worker or job.assigned_worker or "", req)


def _representatives(members: list[tuple[Job, str]]) -> list[tuple[Job, str]]:
    """The run(s) a group of runs is walked as, with the others counted in the reason.

    The latest by the runs' own times (:func:`~.facts.job_time`), never the first listed:
    Flux lists executions by id, which is random, so the first listed of three failed runs
    was the latest one time in three, and its error and worker were another run's. Of
    waiting runs any one stands for the rest (all are current): the latest, else one order
    whatever the list's. Of failed runs only the latest is the job's last outcome, so when
    which failed last cannot be told (runs at one instant, or undated) every run that may
    be it is walked and the reason says so, as for the healthy view (:func:`_latest_runs`).
    """
    ordered = sorted(members, key=lambda m: (-job_time(m[0]), _run_order(m[0])))
    job, why = ordered[0]
    if len(ordered) == 1:
        return [(job, why)]
    if job.phase.value != "failed":
        return [(job, f"{why} (+{len(ordered) - 1} similar)")]
    top, undated = job_time(job), float("-inf")
    may_be = [(j, w) for j, w in ordered if job_time(j) in (top, undated)]
    if len(may_be) == 1:
        earlier = len(ordered) - 1
        runs = "run" if earlier == 1 else "runs"
        return [(job, f"{why} (latest of {len(ordered)} failed runs, +{earlier} earlier {runs})")]
    unknown = [j.id or j.name for j, _ in may_be if job_time(j) == undated]
    said = f"{names(unknown)} undated" if unknown else "at the same time"
    doubt = (
        f"may be the latest failed run: which of {len(may_be)} failed runs of {job.name} "
        f"failed last cannot be told ({said})"
    )
    return [(j, f"{w}; {doubt}") for j, w in may_be]


def _target(ev: EvidenceSet, job: Job, why: str, worker: str | None) -> Target:
    if worker is not None:
        return Target(worker=worker, job=job, reason=why)
    chosen, role = _pick_worker(ev, job)
    return Target(worker=chosen, job=job, reason=f"{why}; {role}" if role else why)


def _jobs_by_worker(ev: EvidenceSet) -> dict[str, list[Job]]:
    """The jobs each worker runs or is meant for (:func:`_workers_for`), in list order.

    Built once per evidence set: a target named by its worker relates to these jobs, and
    asking every job of the fleet again for each named worker was quadratic in the fleet.
    """
    ran = ev.get(JobsEvidence)
    placements = ev.get(PlacementEvidence)
    deployments = ev.get(DeploymentEvidence)

    def build() -> dict[str, list[Job]]:
        index: dict[str, list[Job]] = {}
        for job in jobs(ev):
            for name in dict.fromkeys(_workers_for(ev, job)):
                index.setdefault(name, []).append(job)
        return index

    of = (
        ran and ran.jobs,
        placements and placements.placements,
        deployments and deployments.deployments,
    )
    return memoized(ev, "jobs-by-worker", of, build)


def _workers_for(ev: EvidenceSet, job: Job) -> list[str]:
    """Workers the job runs on or is meant for, by the strongest evidence available."""
    if job.assigned_worker:
        return [job.assigned_worker]
    placed = _verdicts(ev, job, "placed")
    if placed:
        return placed
    deployments = ev.get(DeploymentEvidence)
    if deployments is not None and deployments.applicable:
        deployed = [jd.worker for jd in job_deployments(ev, deployments).get(job.name, ())]
        if deployed:
            return list(dict.fromkeys(deployed))
    req = job.requirements
    if req is not None and req.required_worker:
        return [req.required_worker]
    if req is not None and req.intended_workers:
        return list(req.intended_workers)
    return []


def _native_placements(ev: EvidenceSet, job: Job) -> list[JobPlacement]:
    """Every placement report of ``job`` the product wrote, its duplicates in one order
    whatever the list's (which the target is must not depend on it; its ladder judges them)."""
    listed = by_job(ev, ev.get(PlacementEvidence), "placements").get(job.name, [])
    return in_agreed_order(listed, placement_key)


def _verdicts(ev: EvidenceSet, job: Job, verdict: str) -> list[str]:
    """The workers some placement report of ``job`` gives ``verdict``, each once."""
    return list(
        dict.fromkeys(
            v.worker
            for p in _native_placements(ev, job)
            for v in in_agreed_order(p.per_worker, verdict_key)
            if v.verdict == verdict
        )
    )


def _pick_worker(ev: EvidenceSet, job: Job) -> tuple[str | None, str]:
    """(worker, why it is the one) for a job; the troubled one first among several."""
    listed = _workers_for(ev, job)
    if listed:
        troubled = [w for w in listed if worker_trouble(ev, w, job=job)]
        chosen = (troubled or listed)[0]
        return chosen, f"assigned to {chosen}" if job.assigned_worker else f"meant for {chosen}"
    natives = _native_placements(ev, job)
    if natives:
        eligible = _verdicts(ev, job, "eligible_not_placed")
        if eligible:
            return eligible[0], f"eligible worker {eligible[0]} (product's placement)"
        if any(native.per_worker or native.eligible == 0 for native in natives):
            return None, "no eligible worker (product's placement)"
    if not waiting(job) and not job.requirements:
        return None, ""
    caps = {c.worker: c for c in (ev.get(CapacityEvidence) or CapacityEvidence()).workers}
    ranked = rank_candidates(job.requirements, workers(ev), caps)
    intended = [c for c in ranked if c.intended]
    if not intended:
        return None, "no worker matches its placement"
    best = intended[0]
    state = "" if is_available(best.worker) else f" ({best.worker.connection.value})"
    return best.worker.name, f"best candidate {best.worker.name}{state}"


def _everything(ev: EvidenceSet, host_warned: Mapping[str, str]) -> list[Target]:
    troubled_jobs = _collapse(_troubled(ev, jobs(ev)), None)
    targets = [_target(ev, j, why, None) for j, why in troubled_jobs]
    covered = {t.worker for t in targets}
    for w in known_workers(ev):
        reason = worker_trouble(ev, w)
        if reason is not None and w not in covered:
            targets.append(Target(worker=w, job=None, reason=reason))
    if targets:  # the trouble first: the ladders walked are the first MAX_EVALUATED
        covered = {t.worker for t in targets}
        warned = [(w, why) for w, why in host_warned.items() if w not in covered]
        return targets + [Target(worker=w, job=None, reason=why) for w, why in warned]
    return _healthy(ev, host_warned)


def _departed(ev: EvidenceSet, name: str) -> bool:
    found = find_worker(ev, name)
    return found is not None and departed_idle(ev, found[1])


def _healthy(ev: EvidenceSet, host_warned: Mapping[str, str]) -> list[Target]:
    """The latest runs of the most recent jobs, then every worker: those whose host warns
    first, so a large fleet's ladders walked include them."""
    runs: dict[str, list[Job]] = {}
    for job in jobs(ev):
        runs.setdefault(job.name, []).append(job)
    recent = sorted(runs, key=lambda name: (-max(map(job_time, runs[name])), name))
    chosen = [pick for name in recent[:MAX_HEALTHY_JOBS] for pick in _latest_runs(runs[name])]
    targets = [_target(ev, j, why, None) for j, why in _collapse(chosen, None)]
    covered = {t.worker for t in targets}
    rest = [w for w in known_workers(ev) if w not in covered and not _departed(ev, w)]
    targets += [Target(worker=w, job=None, reason=host_warned[w]) for w in rest if w in host_warned]
    targets += [
        Target(worker=w, job=None, reason=EVERY_WORKER) for w in rest if w not in host_warned
    ]
    return targets or [Target(worker=None, job=None, reason=NOTHING_LISTED)]
