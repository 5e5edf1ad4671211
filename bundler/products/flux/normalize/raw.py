"""Typed, cached access to one run's raw Flux members (what the normalizers read).

Every fact keeps where it came from (member and JSON pointer) so canonical
records can point back at Flux's own words. A member that fails validation
is skipped and its step listed in ``gaps``: the document it feeds is then
marked incomplete, so the analyzer says *unknown* rather than *pass*.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, tzinfo
from functools import cached_property
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from bundler.analyze.api import TimelineEvent
from bundler.products.base import NormalizeContext, StepResult
from bundler.source import MemberNotFound, read_json
from schemas.evidence import LogIndex, Source
from schemas.manifest import CollectorStatus, HostRole, HostSummary

from .. import models
from ..logs import shared, utc_offset
from ..models import (  # annotations: `models` is a method here
    DbExecution,
    DbLastRun,
    DbWorker,
    ExecutionDetail,
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
        "auth_rejected",
        "registered",
        "connected",
    }
)
"""The log events the normalizers read (:meth:`FluxRaw.events_of`): all rare ones. Only these
are kept, so a fleet's worker logs (thousands of routine events each) are not held in memory
while the bundle is normalized; the analysis engine reads the logs itself."""

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


@dataclass(frozen=True)
class Located(Generic[T]):
    """A parsed record and where it was read."""

    value: T
    source: Source


class FluxRaw:
    def __init__(self, ctx: NormalizeContext) -> None:
        self.ctx = ctx
        self.gaps: set[str] = set()

    # -- generic access ----------------------------------------------------------------------

    def ok(self, result: StepResult) -> bool:
        return result.status is CollectorStatus.OK and result.member is not None

    def text(self, result: StepResult) -> str | None:
        if not self.ok(result):
            return None
        try:
            return self.ctx.source.read_bytes(result.member or "").decode("utf-8", "replace")
        except MemberNotFound:
            return None

    def document(self, result: StepResult) -> Any | None:
        text = self.text(result)
        if text is None:
            return None
        try:
            return json.loads(text)
        except ValueError:
            self.gaps.add(result.step)
            return None

    def model(self, result: StepResult, cls: type[M]) -> M | None:
        data = self.document(result)
        if data is None:
            return None
        try:
            return cls.model_validate(data)
        except ValidationError:
            self.gaps.add(result.step)
            return None

    def models(self, result: StepResult, cls: type[M]) -> Iterator[tuple[int, M]]:
        """Items of a JSON list member, with their index (invalid items skipped)."""
        data = self.document(result)
        if not isinstance(data, list):
            if data is not None:
                self.gaps.add(result.step)
            return
        for index, item in enumerate(data):
            try:
                yield index, cls.model_validate(item)
            except ValidationError:
                self.gaps.add(result.step)

    def first(self, step: str) -> StepResult | None:
        results = self.ctx.results_for(step)
        return results[0] if results else None

    def failed(self, *steps: str) -> list[str]:
        """Steps (of those named) that ran without usable evidence: failed, or unparseable."""
        bad = {CollectorStatus.FAILED, CollectorStatus.TIMEOUT, CollectorStatus.REFUSED}
        bad.add(CollectorStatus.INTERRUPTED)
        failed = {r.step for s in steps for r in self.ctx.results_for(s) if r.status in bad}
        return sorted(failed | (self.gaps & set(steps)))

    @staticmethod
    def api_source(result: StepResult, ref: str, pointer: str | None = None) -> Source:
        return Source(
            method="api",
            collector=result.collector,
            ref=ref,
            member=result.member,
            pointer=pointer,
        )

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

    def worker_of(self, alias: str | None) -> str | None:
        host = self.hosts.get(alias or "")
        return host.worker if host is not None else None

    def alias_of(self, worker: str) -> str | None:
        for host in self.ctx.hosts:
            if host.worker == worker:
                return host.alias
        return None

    # -- logs --------------------------------------------------------------------------------

    @cached_property
    def log_offsets(self) -> dict[str, tzinfo]:
        """Each log's host UTC offset, when the engine has already indexed the logs."""
        try:
            index = LogIndex.model_validate(read_json(self.ctx.source, LogIndex.member_path))
        except (MemberNotFound, ValueError, ValidationError):
            return {}
        return {log.member: utc_offset(getattr(log, "utc_offset", None)) for log in index.logs}

    @cached_property
    def events(self) -> list[TimelineEvent]:
        """The events of :data:`NORMALIZED_KINDS` in every collected log, in time order.

        Each log is scanned as the timeline will scan it and the scan stashed for it
        (:mod:`..logs.shared`): an analysis reads every log once.
        """
        found: list[TimelineEvent] = []
        for result in self.ctx.results_for("logs"):
            if not self.ok(result):
                continue
            member = result.member or ""
            worker, tz = self.worker_of(result.host), self.log_offsets.get(member, UTC)
            events, _ = shared.scan(self.ctx.source, member, worker, tz)
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
        result = self.first("workers")
        if result is None:
            return []
        return [
            Located(worker, self.api_source(result, "GET /workers", f"/{index}"))
            for index, worker in self.models(result, models.WorkerResponse)
        ]

    @cached_property
    def worker_details(self) -> dict[str, Located[WorkerResponse]]:
        found = {}
        for result in self.ctx.results_for("worker"):
            worker = self.model(result, models.WorkerResponse)
            if worker is not None:
                ref = f"GET /workers/{worker.name}"
                found[worker.name] = Located(worker, self.api_source(result, ref, ""))
        return found

    @cached_property
    def workflows(self) -> dict[str, Located[Workflow]]:
        """``namespace/name`` -> workflow definition."""
        found = {}
        for result in self.ctx.results_for("workflow"):
            workflow = self.model(result, models.Workflow)
            if workflow is not None:
                key = f"{workflow.namespace}/{workflow.name}"
                found[key] = Located(workflow, self.api_source(result, f"GET /workflows/{key}", ""))
        return found

    @cached_property
    def execution_summaries(self) -> dict[str, Located[ExecutionSummary]]:
        found: dict[str, Located[ExecutionSummary]] = {}
        for result in self.ctx.results:
            if not result.step.startswith("executions."):
                continue
            listing = self.model(result, models.ExecutionList)
            for index, item in enumerate(listing.executions if listing else []):
                pointer = f"/executions/{index}"
                source = self.api_source(result, "GET /executions", pointer)
                found.setdefault(item.execution_id, Located(item, source))
        return found

    @cached_property
    def execution_details(self) -> dict[str, Located[ExecutionDetail]]:
        found = {}
        for result in self.ctx.results:
            if not result.step.startswith("execution."):
                continue
            detail = self.model(result, models.ExecutionDetail)
            if detail is not None:
                ref = f"GET /executions/{detail.execution_id}?detailed=true"
                found[detail.execution_id] = Located(detail, self.api_source(result, ref, ""))
        return found

    # -- database ----------------------------------------------------------------------------

    def _db_rows(self, step: str, cls: type[M]) -> list[Located[M]]:
        rows: list[Located[M]] = []
        for result in self.ctx.results_for(step):
            for index, row in self.models(result, cls):
                source = Source(
                    method="db",
                    collector=result.collector,
                    ref=step,
                    member=result.member,
                    pointer=f"/{index}",
                )
                rows.append(Located(row, source))
        return rows

    @cached_property
    def db_workers(self) -> dict[str, Located[DbWorker]]:
        return {row.value.name: row for row in self._db_rows("db-workers", models.DbWorker)}

    @cached_property
    def db_executions(self) -> dict[str, Located[DbExecution]]:
        rows = self._db_rows("db-executions", models.DbExecution)
        return {row.value.execution_id: row for row in rows}

    @cached_property
    def db_last_runs(self) -> list[Located[DbLastRun]]:
        return self._db_rows("db-last-runs", models.DbLastRun)
