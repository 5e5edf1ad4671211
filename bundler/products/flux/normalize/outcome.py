"""Layer 7 facts: Flux has no canary, so each workflow's last finished run plays it.

SQLite knows the latest finished run of every workflow (``db-last-runs``);
without it, the finished executions fetched through the API are used, the
latest per workflow by its last event time, and every undated one beside it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from bundler.analyze.facts import dated, is_zero_time
from schemas.evidence import CanaryRun, OutcomeEvidence

from ..models import ExecutionEvent
from .records import FluxRecords
from .workers import as_utc

PHASES = {"COMPLETED": "successful", "FAILED": "failed", "CANCELLED": "inconclusive"}
NEVER = datetime.min.replace(tzinfo=UTC)


def _finished(canary: CanaryRun) -> datetime:
    return canary.finished_at or NEVER


def _from_db(flux: FluxRecords) -> list[CanaryRun]:
    return [
        CanaryRun(
            canary_id=row.value.execution_id,
            job=f"{row.value.workflow_namespace}/{row.value.workflow_name}",
            worker=row.value.worker_name,
            mode="last_run",
            phase=PHASES.get(row.value.state, "inconclusive"),  # type: ignore[arg-type]
            started_at=as_utc(row.value.started_at),
            finished_at=as_utc(row.value.finished_at),
            errors=1 if row.value.state == "FAILED" else 0,
            source=row.source,
        )
        for row in flux.db_last_runs
    ]


def _event_times(events: Iterable[ExecutionEvent]) -> list[datetime]:
    """The moments of a run's events: a zero time (Go's unset time, the epoch) is none.

    The run's start and end are the least and greatest of these; one event stamped
    ``0001-01-01`` became the start of a run that ended today, a run of two thousand years.
    """
    return [t for t in (as_utc(e.time) for e in events) if t is not None and not is_zero_time(t)]


def _from_api(flux: FluxRecords) -> list[CanaryRun]:
    """Each workflow's latest dated run (every one, when runs ended at the same instant), and
    beside it every run of it that is undated.

    A run whose every event reads a zero time, or that lists no event, ended "never": no
    moment says it is older than the dated one. Dropped here, the analyzer never saw that
    which run is the last is unknown (``RUN_ORDER_UNDATED``); kept, it judges that itself.
    Of runs that ended at one instant neither is the later: keeping the first listed made the
    API's order decide which (``RUN_ORDER_TIED`` when they ended otherwise). Ordered by
    workflow and run id, so the document does not follow the API's order.
    """
    latest: dict[str, list[CanaryRun]] = {}
    undated: list[CanaryRun] = []
    for located in (record for records in flux.execution_details.values() for record in records):
        run = located.value
        if run.state not in PHASES:
            continue
        times = _event_times(run.events)
        canary = CanaryRun(
            canary_id=run.execution_id,
            job=f"{run.workflow_namespace}/{run.workflow_name}",
            worker=run.current_worker or None,
            mode="last_run",
            phase=PHASES[run.state],  # type: ignore[arg-type]
            started_at=min(times, default=None),
            finished_at=max(times, default=None),
            errors=1 if run.state == "FAILED" else 0,
            source=located.source,
        )
        if canary.finished_at is None:
            undated.append(canary)
            continue
        known = latest.setdefault(canary.job, [canary])
        if _finished(canary) > _finished(known[0]):
            latest[canary.job] = [canary]
        elif canary is not known[0] and _finished(canary) == _finished(known[0]):
            known.append(canary)  # ended at the same instant: neither is the later
    kept = [*(c for runs in latest.values() for c in runs), *undated]
    return sorted(kept, key=lambda c: (c.job, c.canary_id or "", c.model_dump_json()))


def _last_good(successes: list[CanaryRun]) -> CanaryRun | None:
    """The latest dated success; an undated one only when it is the only success (of two
    undated ones, neither is known to be the later)."""
    ended = [c for c in successes if dated(c.finished_at) is not None]
    if ended:
        return max(ended, key=_finished)
    return successes[0] if len(successes) == 1 else None


def outcome_evidence(flux: FluxRecords) -> OutcomeEvidence:
    canaries = _from_db(flux) or _from_api(flux)
    gaps = flux.failed("db-last-runs", "executions.completed", "executions.failed")
    last_good = _last_good([c for c in canaries if c.phase == "successful"])
    return OutcomeEvidence(
        canaries=canaries,
        last_known_good=f"{last_good.job} run {last_good.canary_id}" if last_good else None,
        complete=not gaps,
        gaps=gaps,
    )
