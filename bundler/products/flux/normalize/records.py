"""One run's Flux records, indexed the way the normalizers look them up.

Reading is the generic :class:`~bundler.products.raw.RawReader`'s job (parsed
and validated once, gaps from the collectors' outcomes and validation
records); this module only indexes what it reads for Flux: workers by name,
executions by id, database rows, log events by kind and worker. Every record
keeps where it came from (member and JSON pointer) so canonical records can
point back at Flux's own words.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, tzinfo
from functools import cached_property
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from bundler.analyze.api import TimelineEvent, routine_kept
from bundler.products.base import NormalizeContext, StepResult
from bundler.products.raw import RawReader
from bundler.source import MemberNotFound, read_json
from schemas.evidence import LogIndex, Source
from schemas.manifest import HostRole, HostSummary

from ..logs import shared, utc_offset
from ..models import (
    RAW_MODELS,
    DbExecution,
    DbLastRun,
    DbWorker,
    ExecutionDetail,
    ExecutionList,
    ExecutionSummary,
    WorkerResponse,
    Workflow,
)

NORMALIZED_KINDS = frozenset(
    {
        "reaper_started",
        "stale",
        "evicted",
        "registering",
        "connection_established",
        "auth_rejected",
        "token_invalid",
        "registered",
        "connected",
        "cancel_orphaned",
        "cancel_orphans_resolved",
    }
)
"""The log events the normalizers read (:meth:`FluxRecords.events_of`): all rare ones. Only these
are kept, so a fleet's worker logs (thousands of routine events each) are not held in memory
while the bundle is normalized; the analysis engine reads the logs itself."""

TERMINAL_LISTINGS = frozenset({"executions.failed", "executions.completed"})
"""Listings of finished runs: what runs on a worker now is counted without them."""

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


@dataclass(frozen=True)
class Located(Generic[T]):
    """A parsed record and the citation Flux's evidence gives it."""

    value: T
    source: Source


def distinct(records: list[Located[M]]) -> list[Located[M]]:
    """``records`` of one thing, those that say the same (read in two places) once, with the
    first one's source, in the order of what they say, so the API's order decides nothing:
    records that agree count once, records that disagree are all kept (an entry dispute,
    :mod:`bundler.analyze.duplicates`)."""
    kept: dict[str, Located[M]] = {}
    for record in records:
        kept.setdefault(record.value.model_dump_json(), record)
    return [kept[said] for said in sorted(kept)]


class FluxRecords:
    def __init__(self, ctx: NormalizeContext) -> None:
        self.ctx = ctx
        self.raw = RawReader(ctx, RAW_MODELS)

    def failed(self, *steps: str) -> list[str]:
        """Steps (of those named) that ran without usable evidence: failed, or unparseable.

        Flux's documents name gaps by step id; a step skipped on purpose is no gap.
        """
        return sorted({gap.step for gap in self.raw.gaps(*steps) if gap.reason != "skipped"})

    # -- hosts -------------------------------------------------------------------------------

    @cached_property
    def hosts(self) -> dict[str, HostSummary]:
        return {host.alias: host for host in self.ctx.hosts}

    def host_results(self, step: str, role: HostRole | None = None) -> list[StepResult]:
        return [
            r
            for r in self.ctx.results_for(step)
            if role is None or (r.host in self.hosts and self.hosts[r.host].role is role)
        ]

    # -- logs --------------------------------------------------------------------------------

    @cached_property
    def _log_index(self) -> LogIndex | None:
        try:
            return LogIndex.model_validate(read_json(self.ctx.source, LogIndex.member_path))
        except (MemberNotFound, ValueError, ValidationError):
            return None

    @cached_property
    def log_offsets(self) -> dict[str, tzinfo]:
        """Each log's host UTC offset, when the engine has already indexed the logs."""
        index = self._log_index
        if index is None:
            return {}
        return {log.member: utc_offset(getattr(log, "utc_offset", None)) for log in index.logs}

    @cached_property
    def logs_in_known_offset(self) -> frozenset[str]:
        """Logs whose host's UTC offset the collector recorded: only their times can be set
        against another host's (a log read as UTC for want of one may be hours off)."""
        index = self._log_index
        return (
            frozenset(log.member for log in index.logs if log.utc_offset) if index else frozenset()
        )

    @cached_property
    def events(self) -> list[TimelineEvent]:
        """The events of :data:`NORMALIZED_KINDS` in every collected log, in time order.

        Each log is scanned as the timeline will scan it and the scan stashed for it
        (:mod:`..logs.shared`): an analysis reads every log once.
        """
        found: list[TimelineEvent] = []
        logs = [result for result in self.ctx.results_for("logs") if self.raw.ok(result)]
        kept = routine_kept(len(logs))
        for result in logs:
            member = result.member or ""
            worker, tz = self.raw.worker_of(result.host), self.log_offsets.get(member, UTC)
            events, _ = shared.scan(self.ctx.source, member, worker, tz, kept)
            found.extend(e for e in events if e.kind in NORMALIZED_KINDS)
        found.sort(key=lambda e: (e.at is None, e.at.timestamp() if e.at else 0.0, e.line))
        return found

    @cached_property
    def _positions(self) -> dict[tuple[str, str | None], list[int]]:
        """Where each (kind, worker) and each kind (worker None) sits in :attr:`events`.

        Normalizers ask per worker; filtering every event for every worker was
        quadratic in the fleet (256 hosts with 2,600 log events each: minutes).
        """
        index: dict[tuple[str, str | None], list[int]] = {}
        for position, event in enumerate(self.events):
            index.setdefault((event.kind, None), []).append(position)
            if event.worker is not None:
                index.setdefault((event.kind, event.worker), []).append(position)
        return index

    def events_of(self, *kinds: str, worker: str | None = None) -> list[TimelineEvent]:
        """Events of ``kinds`` (of one worker if given), in timeline order."""
        unkept = set(kinds) - NORMALIZED_KINDS
        if unkept:  # a normalizer's bug: it would read "no such event" as a fact
            raise ValueError(f"log events not kept for normalizers: {sorted(unkept)}")
        positions = sorted(
            position for kind in set(kinds) for position in self._positions.get((kind, worker), ())
        )
        return [self.events[position] for position in positions]

    # -- API records -------------------------------------------------------------------------

    @cached_property
    def workers(self) -> list[Located[WorkerResponse]]:
        return [
            Located(read.value, read.source(ref="GET /workers"))
            for read in self.raw.listed("workers", WorkerResponse)
        ]

    @cached_property
    def worker_details(self) -> dict[str, Located[WorkerResponse]]:
        return {
            read.value.name: Located(
                read.value, read.source("", ref=f"GET /workers/{read.value.name}")
            )
            for read in self.raw.items("worker", WorkerResponse)
        }

    @cached_property
    def workflows(self) -> dict[str, Located[Workflow]]:
        """``namespace/name`` -> workflow definition."""
        found = {}
        for read in self.raw.items("workflow", Workflow):
            key = f"{read.value.namespace}/{read.value.name}"
            found[key] = Located(read.value, read.source("", ref=f"GET /workflows/{key}"))
        return found

    def _steps(self, prefix: str) -> list[str]:
        """Step ids starting with ``prefix``, in result order (one per execution state)."""
        return list(dict.fromkeys(r.step for r in self.ctx.results if r.step.startswith(prefix)))

    @cached_property
    def execution_summaries(self) -> dict[str, list[Located[ExecutionSummary]]]:
        """Each execution's records in ``GET /executions``, each distinct record once.

        One execution can be listed under two states (it moved while they were read): the
        first listing kept made the API's order decide its state. Every record that says
        something else is kept (:func:`distinct`); the normalizer lists them all.
        """
        found: dict[str, list[Located[ExecutionSummary]]] = {}
        for step in self._steps("executions."):
            for listing in self.raw.items(step, ExecutionList):
                for index, item in enumerate(listing.value.executions):
                    source = listing.source(f"/executions/{index}", ref="GET /executions")
                    found.setdefault(item.execution_id, []).append(Located(item, source))
        return {key: distinct(records) for key, records in found.items()}

    @cached_property
    def active_listed_whole(self) -> bool:
        """Every unfinished execution's listing was read whole: each state answered, none
        filtered by authorization, and none held more than it returned (``total``).

        What runs on a worker can be counted from the listing only then; a page that
        stopped at its limit may hide the very run the count would miss.
        """
        steps = [s for s in self._steps("executions.") if s not in TERMINAL_LISTINGS]
        if not steps or self.failed(*steps):
            return False
        for step in steps:
            pages = self.raw.items(step, ExecutionList)
            if not pages:
                return False
            for page in pages:
                listed = page.value
                if listed.auth_filtered or (listed.total or 0) > len(listed.executions):
                    return False
        return True

    @cached_property
    def execution_details(self) -> dict[str, list[Located[ExecutionDetail]]]:
        """Each execution's detailed records, each distinct record once (the last read kept
        made the API's order decide; see :attr:`execution_summaries`)."""
        found: dict[str, list[Located[ExecutionDetail]]] = {}
        for step in self._steps("execution."):
            for read in self.raw.items(step, ExecutionDetail):
                ref = f"GET /executions/{read.value.execution_id}?detailed=true"
                found.setdefault(read.value.execution_id, []).append(
                    Located(read.value, read.source("", ref=ref))
                )
        return {key: distinct(records) for key, records in found.items()}

    # -- database ----------------------------------------------------------------------------

    def _db_rows(self, step: str, cls: type[M]) -> list[Located[M]]:
        return [
            Located(read.value, read.source(ref=step, method="db"))
            for read in self.raw.listed(step, cls)
        ]

    @cached_property
    def db_workers(self) -> dict[str, Located[DbWorker]]:
        return {row.value.name: row for row in self._db_rows("db-workers", DbWorker)}

    @cached_property
    def db_executions(self) -> dict[str, Located[DbExecution]]:
        rows = self._db_rows("db-executions", DbExecution)
        return {row.value.execution_id: row for row in rows}

    @cached_property
    def db_last_runs(self) -> list[Located[DbLastRun]]:
        return self._db_rows("db-last-runs", DbLastRun)
