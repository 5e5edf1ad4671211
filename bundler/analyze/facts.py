"""Shared look-ups over canonical evidence, so every rule finds and cites facts the same way.

Rules ask "where is worker w3, and how do I cite its heartbeat age?" many
times over; answering it once here keeps citations consistent (always
``evidence/workers.json#/workers/<i>/<field>``) and keeps rules to their one
question. Nothing here judges anything: judging is the rules' job.

Times are never read from the wall clock: a bundle is analyzed long after it
was collected, so "now" is the moment the evidence was observed
(:func:`reference_time`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, TypeVar

from schemas import Citation
from schemas.evidence import (
    AuthorizationEvidence,
    CanaryRun,
    CapacityEvidence,
    EvidenceDoc,
    HeartbeatPolicy,
    HostsEvidence,
    HostSysinfo,
    Job,
    JobsEvidence,
    OutcomeEvidence,
    PlacementEvidence,
    ProductInfo,
    Receipt,
    RequirementsEvidence,
    Source,
    WorkerAuthorization,
    WorkerCapacity,
    WorkersEvidence,
    WorkerStatus,
)

from ..timetext import is_zero_time, utc
from .api import EvidenceSet, TimelineEvent, cite_json, cite_lines
from .worker_clock import Span
from .worker_clock import described as described  # a log time as a reader needs it
from .worker_clock import may_end_last as may_end_last  # for products: one way to order spans
from .worker_clock import on_server_clock as on_server_clock

T = TypeVar("T")

MAX_CITED_LINES = 8
"""Log lines one finding cites at most (the first and the most recent ones)."""


def pointer(*parts: str | int) -> str:
    """An RFC 6901 JSON pointer from path parts (``~`` and ``/`` escaped)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def cite(ev: EvidenceSet, cls: type[EvidenceDoc], *parts: str | int, value: Any = None) -> Citation:
    """Cite a canonical document at the pointer built from ``parts``, the value as JSON text."""
    return ev.cite(cls, pointer(*parts), _as_text(value))


def _as_text(value: Any) -> str | None:
    """A cited value as the report shows it: a time as every report writes one (``utc``, not
    Python's ``2026-01-01 08:37:45.916420+00:00``), anything else as JSON."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime):
        return utc(value)
    return json.dumps(value, default=_json_default, sort_keys=True)


def _json_default(value: Any) -> str:
    return utc(value) if isinstance(value, datetime) else str(value)


def cite_source(source: Source | None) -> Citation | None:
    """Cite the raw member a canonical fact was normalized from (the product's own words)."""
    if source is None or not source.member:
        return None
    if source.pointer is not None:
        return cite_json(source.member, source.pointer)
    if source.line_start is not None:
        return cite_lines(source.member, source.line_start, source.line_end)
    return Citation(member=source.member)


def citations(*items: Citation | None) -> list[Citation]:
    """Drop the Nones, keep the order."""
    return [c for c in items if c is not None]


def cite_events(found: Iterable[TimelineEvent], limit: int = MAX_CITED_LINES) -> list[Citation]:
    """Citations of log lines, keeping the first and the most recent when there are many."""
    lines = list(found)
    if len(lines) > limit:
        lines = lines[: limit // 2] + lines[-(limit - limit // 2) :]
    return [e.citation() for e in lines]


# --- time -------------------------------------------------------------------------------------


def reference_time(ev: EvidenceSet, *docs: EvidenceDoc | None) -> datetime | None:
    """When the facts were true: the document's own ``observed_at``, else the bundle's.

    Falls back to the hosts' collector time and then the manifest's creation
    time; None when the bundle says nothing about time at all.
    """
    for doc in docs:
        if doc is not None and doc.observed_at is not None:
            return doc.observed_at
    for cls in (WorkersEvidence, JobsEvidence, HostsEvidence):
        doc = ev.get(cls)
        if doc is not None and doc.observed_at is not None:
            return doc.observed_at
    hosts = ev.get(HostsEvidence)
    if hosts is not None and hosts.collector_time is not None:
        return hosts.collector_time
    if ev.manifest is not None:
        return ev.manifest.created_at
    return None


def dated(stamp: datetime | None) -> datetime | None:
    """``stamp`` as a moment, or None when there is none: absent, or a zero time
    (:func:`is_zero_time`). A zero time judged as a moment made a worker that never sent a
    heartbeat 63 billion seconds silent, and a canary that never ran older than everything."""
    return None if stamp is None or is_zero_time(stamp) else stamp


def run_kind(run: CanaryRun) -> str:
    """What a report calls ``run``: a product without canaries (Flux) reports its latest
    finished run instead (``mode='last_run'``), and a Flux operator told about "the canary"
    or told to run one looks for something Flux does not have."""
    return "last run" if run.mode == "last_run" else "canary"


def run_time(run: CanaryRun) -> datetime | None:
    """When a canary or run ended, else when it started; None when neither is dated."""
    return dated(run.finished_at) or dated(run.started_at)


def run_span(ev: EvidenceSet, run: CanaryRun) -> Span | None:
    """When ``run`` ended (:func:`run_time`), on the control plane's clock: a worker's stamp
    read with its proven offset (:mod:`.worker_clock`), else the moment as stamped; None
    when the run is undated."""
    ended = run_time(run)
    if ended is None:
        return None
    found = find_worker(ev, run.clock_of) if run.clock_of else None
    return on_server_clock(ended, found[1].clock_offset if found else None)


def undated_rivals(
    latest: tuple[int, CanaryRun], runs: Iterable[tuple[int, CanaryRun]]
) -> list[tuple[int, CanaryRun]]:
    """Undated runs (no time, or only a zero time) that end otherwise than ``latest``.

    "The latest run" is chosen among dated runs. One without a time was read as the oldest
    of all, yet its product never said when it ran: it may be later still. When it ended
    the same way the verdict stands; when it did not, which run is the last is unknown, and
    so is the outcome. A run with no time at all is as undated as one stamped with a zero
    time: ranking it below every dated run was a guess, not a reading.
    """
    return [
        (index, run)
        for index, run in runs
        if index != latest[0] and run_time(run) is None and run.phase != latest[1].phase
    ]


def seconds_between(earlier: datetime | None, later: datetime | None) -> float | None:
    if earlier is None or later is None:
        return None
    return (later - earlier).total_seconds()


# --- workers ----------------------------------------------------------------------------------


def workers(ev: EvidenceSet) -> list[WorkerStatus]:
    doc = ev.get(WorkersEvidence)
    return list(doc.workers) if doc is not None else []


def find_worker(ev: EvidenceSet, name: str | None) -> tuple[int, WorkerStatus] | None:
    """The worker called ``name`` (or with that id) and its index in workers.json.

    The one worker lookup of every rule: a target may name a worker by its id
    (LyftData's CLI does), and both must find the same record. When the bundle
    lists the worker more than once this is the first record, for every caller
    alike; whether the records agree is judged by
    :func:`bundler.analyze.contradictions.worker_conflict`, never by their order.
    """
    found = worker_records(ev, name)
    return found[0] if found else None


def worker_records(ev: EvidenceSet, name: str | None) -> list[tuple[int, WorkerStatus]]:
    """Every record of worker ``name`` (by name or id) in workers.json, in list order.

    Normalizers are not trusted to have merged duplicates: a product's list can
    name one worker twice, and only all of its records show whether they agree.
    """
    if name is None:
        return []
    return list(by_worker(ev, WorkersEvidence, ev.get(WorkersEvidence)).get(name, ()))


def by_worker(
    ev: EvidenceSet, cls: type[EvidenceDoc], doc: EvidenceDoc | None
) -> dict[str, list[tuple[int, Any]]]:
    """The records of ``doc`` (``cls``, a per-worker document) by worker, in list order.

    Built once per evidence set: rules, trouble and the overview look workers up
    by name for every worker, and a scan of the list per lookup made a fleet of
    10,000 workers take minutes and one of 100,000 hours. workers.json is keyed by
    name and by id (a target may name a worker by either), the others by ``worker``.
    """
    if doc is None:
        return {}
    key = f"by-worker:{cls.__name__}"
    known = ev.memo.get(key)
    if known is not None and known[0] is doc:
        return known[1]  # type: ignore[no-any-return]
    index: dict[str, list[tuple[int, Any]]] = {}
    for position, record in enumerate(getattr(doc, "workers", None) or []):
        names = {record.name, record.id} if cls is WorkersEvidence else {record.worker}
        for name in names - {None}:
            index.setdefault(name, []).append((position, record))
    ev.memo[key] = (doc, index)
    return index


def memoized(ev: EvidenceSet, key: str, of: tuple[object, ...], build: Callable[[], T]) -> T:
    """``build()``, once per evidence set while the lists it reads (``of``) are the same objects.

    For indexes that target selection asks of every job or worker: built once, rather than
    a scan of a fleet-sized list per question.
    """
    known = ev.memo.get(key)
    if known is not None and all(a is b for a, b in zip(known[0], of, strict=True)):
        return known[1]  # type: ignore[no-any-return]
    value = build()
    ev.memo[key] = (of, value)
    return value


def by_job(ev: EvidenceSet, doc: EvidenceDoc | None, field: str) -> dict[str, list[Any]]:
    """The records of ``doc``'s list ``field`` by their ``job``, in list order.

    Built once per evidence set: target selection asks of every job whether its deployment,
    requirements report or canary is in trouble, and a scan of the list per job was
    quadratic in the fleet.
    """
    if doc is None:
        return {}
    records = getattr(doc, field)

    def build() -> dict[str, list[Any]]:
        index: dict[str, list[Any]] = {}
        for record in records:
            index.setdefault(record.job, []).append(record)
        return index

    return memoized(ev, f"by-job:{type(doc).__name__}.{field}", (doc, records), build)


def capacity_entry(ev: EvidenceSet, worker: str | None) -> tuple[int, WorkerCapacity] | None:
    """Worker ``worker``'s capacity report and its index in capacity.json.

    Per-worker documents are keyed by the worker's name, as every normalizer writes them.
    """
    doc = ev.get(CapacityEvidence)
    found = by_worker(ev, CapacityEvidence, doc).get(worker) if worker else None
    return found[0] if found else None


def authorization_entry(
    ev: EvidenceSet, worker: str | None
) -> tuple[int, WorkerAuthorization] | None:
    """Worker ``worker``'s runtime-authorization record and its index in authorization.json."""
    doc = ev.get(AuthorizationEvidence)
    found = by_worker(ev, AuthorizationEvidence, doc).get(worker) if worker else None
    return found[0] if found else None


def cite_worker(ev: EvidenceSet, index: int, *field: str | int, value: Any = None) -> Citation:
    return cite(ev, WorkersEvidence, "workers", index, *field, value=value)


def heartbeat_policy(ev: EvidenceSet) -> tuple[HeartbeatPolicy, Citation] | None:
    """The product's heartbeat timings, from workers.json or else product.json."""
    doc = ev.get(WorkersEvidence)
    if doc is not None and doc.heartbeat is not None:
        return doc.heartbeat, cite(ev, WorkersEvidence, "heartbeat")
    info = ev.get(ProductInfo)
    if info is not None and info.heartbeat is not None:
        return info.heartbeat, cite(ev, ProductInfo, "heartbeat")
    return None


def stale_after(policy: HeartbeatPolicy | None) -> float | None:
    """Silence after which a worker counts as stale: the timeout, else three intervals."""
    if policy is None:
        return None
    if policy.timeout_s is not None:
        return policy.timeout_s
    return 3 * policy.interval_s if policy.interval_s else None


def heartbeat_age(ev: EvidenceSet, worker: WorkerStatus) -> float | None:
    """Seconds of silence at collection time, as reported or computed from the last heartbeat.

    None when the heartbeat time is a zero time: the product's "never" (an age it reports
    beside it was measured from that "never" too).
    """
    reported = reported_age(worker)
    if reported is not None or is_zero_time(worker.last_heartbeat_at):
        return reported
    return seconds_between(worker.last_heartbeat_at, reference_time(ev, ev.get(WorkersEvidence)))


def reported_age(worker: WorkerStatus) -> float | None:
    """The heartbeat age the record gives; None beside a zero heartbeat time."""
    return None if is_zero_time(worker.last_heartbeat_at) else worker.heartbeat_age_s


# --- hosts ------------------------------------------------------------------------------------


def host_for_worker(ev: EvidenceSet, name: str | None) -> tuple[int, HostSysinfo] | None:
    """The collected host running worker ``name`` (by the host's worker or the worker's alias)."""
    if name is None:
        return None
    doc = ev.get(HostsEvidence)
    if doc is None:
        return None
    found = find_worker(ev, name)
    alias = found[1].host_alias if found else None
    by_name, by_alias = _hosts_index(ev, doc)
    at_alias = by_alias.get(alias) if alias is not None else None
    first = [i for i in (by_name.get(name), at_alias) if i is not None]
    if not first:
        return None
    index = min(first)  # the first host in the list that is either
    return index, doc.hosts[index]


def _hosts_index(ev: EvidenceSet, doc: HostsEvidence) -> tuple[dict[str, int], dict[str, int]]:
    """Each worker's and each alias' first host in the list, built once per evidence set:
    every ladder looks its worker's host up, and a scan per lookup was quadratic."""

    def build() -> tuple[dict[str, int], dict[str, int]]:
        by_name: dict[str, int] = {}
        by_alias: dict[str, int] = {}
        for index, host in enumerate(doc.hosts):
            if host.worker is not None:
                by_name.setdefault(host.worker, index)
            by_alias.setdefault(host.alias, index)
        return by_name, by_alias

    return memoized(ev, "hosts", (doc, doc.hosts), build)


# --- jobs -------------------------------------------------------------------------------------


def jobs(ev: EvidenceSet) -> list[Job]:
    doc = ev.get(JobsEvidence)
    return list(doc.jobs) if doc is not None else []


def job_index(ev: EvidenceSet, job: Job) -> int | None:
    """Index of ``job`` in jobs.json (matched by id when it has one, else by name)."""
    for index, candidate in enumerate(jobs(ev)):
        if candidate is job:
            return index
    for index, candidate in enumerate(jobs(ev)):
        same_id = job.id is not None and candidate.id == job.id
        if same_id or (job.id is None and candidate.name == job.name):
            return index
    return None


def cite_job(ev: EvidenceSet, job: Job, *field: str | int, value: Any = None) -> Citation | None:
    index = job_index(ev, job)
    if index is None:
        return None
    return cite(ev, JobsEvidence, "jobs", index, *field, value=value)


def job_moment(job: Job) -> datetime | None:
    """When the job last changed: its ``updated_at``; only a record without one by its
    ``created_at``. None when that time is absent or a zero time (:func:`dated`).

    A zero ``updated_at`` is no moment, and the creation time is not one either: the record
    says the job changed after it was created, at a time it does not give. Flux stamps a
    job with its last event's time; a failure whose event reads ``0001-01-01`` fell back
    to the job's first event, and a run that failed at an unknown time read as older than
    a success of its job.
    """
    if job.updated_at is not None:
        return dated(job.updated_at)
    return dated(job.created_at)


def job_time(job: Job) -> float:
    """:func:`job_moment` as a sortable number; unknown sorts first.

    A zero time is unknown (:func:`dated`): a job "updated in year 1" is not older than
    every other run of its name, it is a run whose time the product never set.
    """
    stamp = job_moment(job)
    return stamp.timestamp() if stamp else float("-inf")


SUCCEEDED_PHASES = ("completed", "running")
"""Phases of a run that supersede an earlier failure of the same job (it ran again)."""


def undated_job_rivals(ev: EvidenceSet, job: Job) -> list[tuple[int, Job]]:
    """Runs of failed ``job``'s name that completed or run, where which is later is unknown.

    A failure followed by a later success is history. A run without a time (none, or a
    zero time: :func:`job_time` reads both as unknown) sorted before every dated one, so a
    failure the product never dated was called history beside any dated success, and a
    dated failure beside an undated success was called current: either may be the later
    run. Empty when ``job`` did not fail or both times of every pair are dated.
    """
    if job.phase.value != "failed":
        return []
    own = job_index(ev, job)
    undated = job_time(job) == float("-inf")
    return [
        (index, other)
        for index, other in enumerate(jobs(ev))
        if index != own
        and other.name == job.name
        and (job.id is None or other.id != job.id)  # a record listed twice is no other run
        and other.phase.value in SUCCEEDED_PHASES
        and (undated or job_time(other) == float("-inf"))
    ]


def job_label(job: Job) -> str:
    """How messages name a job: ``execution <id> of <name>`` for one run, else ``name (id)``.

    Every rule (generic or product) names a job this way, so one execution reads
    the same in every finding about it.
    """
    if not job.id:
        return job.name
    return (
        f"execution {job.id} of {job.name}" if job.kind == "execution" else f"{job.name} ({job.id})"
    )


def waiting(job: Job) -> bool:
    """The job wants to run but no worker runs it yet."""
    return job.phase.value in ("unassigned", "scheduled")


DEPENDENCY_DOCUMENTS: tuple[type[EvidenceDoc], ...] = (
    JobsEvidence,
    PlacementEvidence,
    RequirementsEvidence,
)
"""Where a job's tie to a worker is read: its assignment, and the worker it is pinned or
placed on (:func:`~bundler.analyze.facts.dependents`)."""


def dependents_undecided(ev: EvidenceSet) -> list[str]:
    """The gaps that leave open whether an unfinished job depends on a worker, or none.

    "No job depends on it" is read from the jobs, their placements and their runtime
    requirements; when one of those documents is incomplete (a placement request timed out,
    a listing over the JSON cap) the job that relies on an offline worker may be the one
    missing, and the worker's silence reads as a leftover record (exit 0) instead of an
    outage. Then the heartbeat rung is unknown (``WORKER_DEPENDENTS_UNKNOWN``).
    """
    gaps: list[str] = []
    for kind in DEPENDENCY_DOCUMENTS:
        doc = ev.get(kind)
        if doc is not None and (doc.gaps or not doc.complete):
            gaps += doc.gaps or [f"{kind.member_path} (incomplete)"]
    return list(dict.fromkeys(gaps))


def departed_idle(ev: EvidenceSet, worker: WorkerStatus) -> bool:
    """A record of a worker that left (``departed``) on which no unfinished job depends, as
    far as complete job evidence shows (:func:`dependents_undecided`)."""
    return (
        bool(worker.departed) and not dependents(ev, worker.name) and not dependents_undecided(ev)
    )


def dependents(ev: EvidenceSet, worker: str) -> list[Job]:
    """Unfinished jobs that rely on ``worker``: assigned to it, pinned to it, or listed for it."""
    found: list[Job] = []
    for job in jobs(ev):
        if job.phase.terminal:
            continue
        req = job.requirements
        pinned = req is not None and (
            req.required_worker == worker or worker in (req.intended_workers or [])
        )
        if job.assigned_worker == worker or pinned:
            found.append(job)
    return found


def names(items: Iterable[str], limit: int = 8) -> str:
    """A short comma list for messages: ``a, b, c (+4 more)``."""
    listed = list(items)
    shown = ", ".join(listed[:limit])
    return shown + (f" (+{len(listed) - limit} more)" if len(listed) > limit else "")


# --- outcome ----------------------------------------------------------------------------------


def run_receipts(doc: OutcomeEvidence, run: CanaryRun) -> list[tuple[int, Receipt]]:
    """The receipts that answer ``run`` (``receipts[index]``): by its canary id, or, for a
    receipt that names no canary, by its job. The outcome rung and the clock check agree."""
    return [
        (index, receipt)
        for index, receipt in enumerate(doc.receipts)
        if (run.canary_id and receipt.canary_id == run.canary_id)
        or (not receipt.canary_id and receipt.job == run.job)
    ]
