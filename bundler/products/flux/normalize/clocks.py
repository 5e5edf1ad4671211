"""Each worker's clock against the server's, bounded by the times both stamp on one run.

Observed (flux-core 0.87.5, a worker run under libfaketime in samples/flux_lab): Flux
never compares clocks. Heartbeats, staleness and eviction are judged by the server's
clock alone, so a worker hours off registers, stays online and completes its runs; only
the times it stamps are off. An execution's events carry both clocks: the server
stamps ``WORKFLOW_SCHEDULED`` and ``WORKFLOW_CLAIMED`` (``source_id`` the worker), the
worker stamps ``WORKFLOW_STARTED`` and the run's end. So, for each worker-stamped event:

* it happened after the claim before it: offset <= its time - the claim's time;
* it happened before the collector read the execution: offset >= its time - that read.

Both bounds are certain (the second against the collector's clock); a run's start-up and
the time until it was read only widen them. Over every run read, the tightest of each is
kept, with the event that gives it, so a finding cites the exact time.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bundler.analyze.facts import is_zero_time
from bundler.products.base import StepResult
from schemas.evidence import ClockOffset, Source, WorkersEvidence

from ..models import ExecutionDetail
from .log_clocks import registration_clock, tightest
from .records import FluxRecords
from .workers import as_utc

SERVER_CLAIM = "WORKFLOW_CLAIMED"
WORKER_STAMPED = frozenset({"WORKFLOW_STARTED", "WORKFLOW_COMPLETED", "WORKFLOW_FAILED"})
"""Events the worker's runner stamps with its own clock (checked in flux-core's source and
against a worker run 2 h off: these moved, the claim did not)."""


def _moment(value: datetime | None) -> datetime | None:
    moment = as_utc(value)
    return None if moment is None or is_zero_time(moment) else moment


def _event_source(flux: FluxRecords, result: StepResult, index: int) -> Source:
    return flux.raw.source(result, f"/events/{index}/time")


def _bound_run(
    flux: FluxRecords, result: StepResult, run: ExecutionDetail, offsets: dict[str, ClockOffset]
) -> None:
    """Tighten the bounds of each worker that stamped events of ``run`` (read in ``result``)."""
    read_at = _moment(result.finished_at)
    claimant: str | None = None
    claimed_at: datetime | None = None
    claim_index = 0
    for index, event in enumerate(run.events):
        moment = _moment(event.time)
        if event.type == SERVER_CLAIM and event.source_id:
            claimant, claimed_at, claim_index = event.source_id, moment, index
            continue
        if event.type not in WORKER_STAMPED or claimant is None or moment is None:
            continue
        offset = offsets.setdefault(claimant, ClockOffset())
        if claimed_at is not None:
            most = round((moment - claimed_at).total_seconds(), 3)
            if offset.at_most_s is None or most < offset.at_most_s:
                offset.at_most_s, offset.at_most_source = most, _event_source(flux, result, index)
                offset.at_most_against = _event_source(flux, result, claim_index)
        if read_at is not None:
            least = round((moment - read_at).total_seconds(), 3)
            if offset.at_least_s is None or least > offset.at_least_s:
                source = _event_source(flux, result, index)
                offset.at_least_s, offset.at_least_source = least, source


def worker_clocks(flux: FluxRecords) -> dict[str, ClockOffset]:
    """Worker name -> its clock's bounds, for every worker that stamped a run read here."""
    offsets: dict[str, ClockOffset] = {}
    steps = dict.fromkeys(r.step for r in flux.ctx.results if r.step.startswith("execution."))
    for step in steps:
        for read in flux.raw.items(step, ExecutionDetail):
            _bound_run(flux, read.result, read.value, offsets)
    return offsets


def disagrees(offset: ClockOffset) -> bool:
    """Whether the bounds exclude zero: the runs prove the two clocks differ."""
    return (offset.at_most_s is not None and offset.at_most_s < 0) or (
        offset.at_least_s is not None and offset.at_least_s > 0
    )


def proven_clocks(flux: FluxRecords, names: Iterable[str]) -> dict[str, ClockOffset]:
    """Worker name -> its clock's bounds, where they prove it differs from the server's;
    bounds that hold zero say nothing a reader needs, and stay out.

    Of each of ``names`` (the workers listed), the tighter of what its runs and its latest
    registration (:mod:`.log_clocks`) bound."""
    runs = worker_clocks(flux)
    found = {name: tightest(runs.get(name), registration_clock(flux, name)) for name in names}
    found.update((name, offset) for name, offset in runs.items() if name not in found)
    return {name: offset for name, offset in found.items() if offset and disagrees(offset)}


def add_worker_clocks(workers: WorkersEvidence, clocks: dict[str, ClockOffset]) -> None:
    """Give each worker record its proven clock bounds (:func:`proven_clocks`)."""
    for status in workers.workers:
        status.clock_offset = clocks.get(status.name)
