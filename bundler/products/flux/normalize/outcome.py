"""Layer 7 facts: Flux has no canary, so each workflow's last finished run plays it.

SQLite knows the latest finished run of every workflow (``db-last-runs``);
without it, the finished executions fetched through the API are used, the
latest per workflow by its last event time, and every undated one beside it.

A worker whose clock the runs prove off (:mod:`.clocks`) stamps its runs' ends on its own
clock: such a run is marked ``clock_of`` and ordered by the span of server time it may have
ended in, so a worker hours ahead no longer hides the run that really ended last.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bundler.analyze.facts import Span, dated, is_zero_time, may_end_last, on_server_clock
from schemas.evidence import CanaryRun, ClockOffset, OutcomeEvidence

from ..models import DbLastRun, ExecutionDetail, ExecutionEvent
from .cancellations import CANCELLED, SERVER_STAMPED, Cancellations, Stamper, cancellations
from .clocks import WORKER_STAMPED
from .records import FluxRecords
from .workers import as_utc

Clocks = dict[str, ClockOffset]

PHASES = {"COMPLETED": "successful", "FAILED": "failed", "CANCELLED": "inconclusive"}


def _span(canary: CanaryRun, clocks: Clocks) -> Span | None:
    """When ``canary`` ended on the server's clock (a skewed worker's stamp as a span)."""
    ended = dated(canary.finished_at)
    if ended is None:
        return None
    return on_server_clock(ended, clocks.get(canary.clock_of) if canary.clock_of else None)


def _ahead(worker: str | None, clocks: Clocks) -> bool:
    """Whether ``worker``'s clock is proven ahead of the server's."""
    offset = clocks.get(worker) if worker else None
    return offset is not None and offset.at_least_s is not None and offset.at_least_s > 0


def _db_times(
    row: DbLastRun, clocks: Clocks, cancelled: Cancellations
) -> tuple[datetime | None, datetime | None, str | None]:
    """A SQLite "last run" row's start and end, and whose clock the end is on.

    The row's end is its latest event's time, whoever stamped it. Of a worker whose clock
    is proven ahead that is the worker's own stamp (every event it stamps lies later than
    the server's claim): marked ``clock_of``, so it is read with the worker's offset. Of one
    behind it is the server's claim, earlier than the end but on the server's clock.

    A cancelled run of a worker ahead is the exception (:mod:`.cancellations`): the server's
    sweep stamps its end on the server's clock, so the latest stamp is the worker's *start*,
    read with its offset as an end minutes or hours early. Its end is the sweep's line in
    the server log, on the server's clock. Without a server log whose clock ended it is
    unknown: undated, as the same run read through the API.
    """
    worker = row.worker_name
    started, finished = as_utc(row.started_at), as_utc(row.finished_at)
    if not _ahead(worker, clocks):
        return started, finished, None
    if row.state != "CANCELLED":
        return started, finished, worker
    stamper = cancelled.end_stamped_by(row.execution_id)
    if stamper is Stamper.WORKER:
        return started, finished, worker
    swept_at = cancelled.swept_at.get(row.execution_id)
    if stamper is Stamper.SERVER and swept_at is not None:
        return started, swept_at, None
    return None, None, None


def _from_db(flux: FluxRecords, clocks: Clocks, cancelled: Cancellations) -> list[CanaryRun]:
    """Each workflow's last run by its latest event, as SQLite picks it (:func:`_db_times`)."""
    canaries = []
    for row in flux.db_last_runs:
        started, finished, clock_of = _db_times(row.value, clocks, cancelled)
        canaries.append(
            CanaryRun(
                canary_id=row.value.execution_id,
                job=f"{row.value.workflow_namespace}/{row.value.workflow_name}",
                worker=row.value.worker_name,
                mode="last_run",
                phase=PHASES.get(row.value.state, "inconclusive"),  # type: ignore[arg-type]
                started_at=started,
                finished_at=finished,
                errors=1 if row.value.state == "FAILED" else 0,
                clock_of=clock_of,
                source=row.source,
            )
        )
    return canaries


def _event_times(events: Iterable[ExecutionEvent]) -> list[datetime]:
    """The moments of a run's events: a zero time (Go's unset time, the epoch) is none.

    The run's start and end are the least and greatest of these; one event stamped
    ``0001-01-01`` became the start of a run that ended today, a run of two thousand years.
    """
    return [t for t in (as_utc(e.time) for e in events) if t is not None and not is_zero_time(t)]


def _run_times(
    run: ExecutionDetail, clocks: Clocks, cancelled: Cancellations
) -> tuple[list[datetime], str | None]:
    """The times a run's start and end are read from, and whose clock they are on.

    Of a worker whose clock is proven off, only the events one clock stamped: the worker's
    (its run's start and end, ``clock_of``), or for a run the server's sweep cancelled the
    server's (its claim and the cancellation, :mod:`.cancellations`). The least and greatest
    of all events mixed two clocks, a worker behind "ended" at the server's claim, and a
    cancelled run, whose end is not among the worker's usual stamps, ended at its start.
    A cancelled run whose end nobody can attribute is undated. Otherwise every event.
    """
    worker = run.current_worker or None
    if worker not in clocks:
        return _event_times(run.events), None
    own_types = WORKER_STAMPED
    if run.state == "CANCELLED":
        stamper = cancelled.end_stamped_by(run.execution_id)
        if stamper is Stamper.UNKNOWN:
            return [], None
        if stamper is Stamper.SERVER:
            server = SERVER_STAMPED | {CANCELLED}
            return _event_times(e for e in run.events if e.type in server), None
        own_types = WORKER_STAMPED | {CANCELLED}
    own = _event_times(e for e in run.events if e.type in own_types)
    if own:
        return own, worker
    return _event_times(run.events), None


def _from_api(flux: FluxRecords, clocks: Clocks, cancelled: Cancellations) -> list[CanaryRun]:
    """Each workflow's runs that may have ended last, and beside them every run of it that
    is undated.

    A run whose every event reads a zero time, or that lists no event, ended "never": no
    moment says it is older than the dated one. Dropped here, the analyzer never saw that
    which run is the last is unknown (``RUN_ORDER_UNDATED``); kept, it judges that itself.
    Of runs that ended at one instant neither is the later: keeping the first listed made the
    API's order decide which (``RUN_ORDER_TIED`` when they ended otherwise). A run of a worker
    whose clock is off ended within a span of the server's clock (:func:`_span`): every run
    that may have ended after it stays too. Ordered by workflow and run id, so the document
    does not follow the API's order.
    """
    runs: dict[str, list[CanaryRun]] = {}
    undated: list[CanaryRun] = []
    for located in (record for records in flux.execution_details.values() for record in records):
        run = located.value
        if run.state not in PHASES:
            continue
        times, clock_of = _run_times(run, clocks, cancelled)
        canary = CanaryRun(
            canary_id=run.execution_id,
            job=f"{run.workflow_namespace}/{run.workflow_name}",
            worker=run.current_worker or None,
            mode="last_run",
            phase=PHASES[run.state],  # type: ignore[arg-type]
            started_at=min(times, default=None),
            finished_at=max(times, default=None),
            errors=1 if run.state == "FAILED" else 0,
            clock_of=clock_of,
            source=located.source,
        )
        (undated if canary.finished_at is None else runs.setdefault(canary.job, [])).append(canary)
    kept = [*(c for job in runs.values() for c in _latest(job, clocks)), *undated]
    return sorted(kept, key=lambda c: (c.job, c.canary_id or "", c.model_dump_json()))


def _latest(runs: list[CanaryRun], clocks: Clocks) -> list[CanaryRun]:
    """The runs that may have ended last."""
    return may_end_last(runs, lambda canary: _span(canary, clocks))


def _with_skewed_rivals(
    db: list[CanaryRun], api: list[CanaryRun], clocks: Clocks
) -> list[CanaryRun]:
    """SQLite's last run of each workflow, and beside one of a worker whose clock is ahead
    every run read through the API that may have ended after it on the server's clock (after
    an undated one: every run that may have ended last).

    SQLite orders runs by their latest stamp, whoever's clock wrote it: a run of a worker
    hours ahead is its "last run" while a later run on a right clock is not even listed.
    """
    kept = list(db)
    for canary in db:
        if not _ahead(canary.worker, clocks):
            continue
        others = [c for c in api if c.job == canary.job and c.canary_id != canary.canary_id]
        rivals = _latest([canary, *others], clocks)
        kept.extend(c for c in rivals if c is not canary)
    return sorted(kept, key=lambda c: (c.job, c.canary_id or "", c.model_dump_json()))


def _last_good(successes: list[CanaryRun], clocks: Clocks) -> list[CanaryRun]:
    """Every success that may be the last known good: one when it is known to have ended last.

    Ordered as the runs are (:func:`_latest`): a success stamped by a worker whose clock is
    off ended within a span of the server's clock, and the latest raw stamp named a worker
    hours ahead while a later success on a right clock was passed over. Successes whose
    spans overlap, or that ended at one instant, are all returned: which ran last is
    unknown, and the document says so instead of naming one. An undated success counts only
    when it is the only success (of two undated ones, neither is known to be the later).
    """
    ended = [c for c in successes if _span(c, clocks) is not None]
    if ended:
        return _latest(ended, clocks)
    return successes


def _identity(canary: CanaryRun) -> str:
    return f"{canary.job} run {canary.canary_id}"


def outcome_evidence(flux: FluxRecords, clocks: Clocks) -> OutcomeEvidence:
    """``clocks``: the workers whose clocks the runs prove off (:mod:`.clocks`)."""
    cancelled = cancellations(flux)
    api = _from_api(flux, clocks, cancelled)
    db = _from_db(flux, clocks, cancelled)
    canaries = _with_skewed_rivals(db, api, clocks) if db else api
    gaps = flux.failed("db-last-runs", "executions.completed", "executions.failed")
    last_good = _last_good([c for c in canaries if c.phase == "successful"], clocks)
    return OutcomeEvidence(
        canaries=canaries,
        last_known_good=_identity(last_good[0]) if len(last_good) == 1 else None,
        last_known_good_undecided=[_identity(c) for c in last_good] if len(last_good) > 1 else [],
        complete=not gaps,
        gaps=gaps,
    )
