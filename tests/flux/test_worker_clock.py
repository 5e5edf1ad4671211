"""A worker's clock that is off: bounded (runs, registration) and read with its offset.

Hand-made raw members laid out like a bundle (as ``test_normalize``), normalized by the Flux
profile and judged by the Flux outcome and clock rules. The real lab runs the same faults in
``test_host_faults``.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from bundler.analyze.worker_clock import may_end_last, on_server_clock
from bundler.products.base import StepResult
from bundler.products.flux.rules.clock import flux_worker_clock
from bundler.products.flux.rules.outcome import flux_last_run
from schemas import LayerStatus
from schemas.evidence import (
    CanaryRun,
    ClockOffset,
    LogIndex,
    LogSource,
    OutcomeEvidence,
    WorkersEvidence,
)
from schemas.manifest import CollectorStatus
from tests.flux.test_normalize import Raw, healthy_raw
from tests.support.flux_evidence import FluxCase

OK_STATUS = CollectorStatus.OK
AHEAD = timedelta(hours=2)
DAY = "2026-11-29"


def at(clock: str) -> datetime:
    return datetime.fromisoformat(f"{DAY}T{clock}+00:00")


def stamp(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def run(
    raw: Raw,
    run_id: str,
    worker: str,
    state: str,
    claimed: str,
    ended: str,
    read: str,
    *,
    skew: timedelta = timedelta(0),
    workflow: str = "hello_world",
) -> None:
    """A run claimed and ended at these true times, its start and end stamped on a clock
    ``skew`` off, its detail read at ``read`` (the collector's clock)."""
    start, end = at(claimed) + timedelta(seconds=1), at(ended)
    events = [
        {"type": "WORKFLOW_SCHEDULED", "source_id": worker, "time": stamp(at(claimed))},
        {"type": "WORKFLOW_CLAIMED", "source_id": worker, "time": stamp(at(claimed))},
        {"type": "WORKFLOW_STARTED", "source_id": "wf", "time": stamp(start + skew)},
        {"type": f"WORKFLOW_{state}", "source_id": "wf", "time": stamp(end + skew)},
    ]
    raw.http(
        "execution.finished", f"raw/http/execution-finished/{run_id}.json",
        {"execution_id": run_id, "workflow_name": workflow, "state": state,
         "current_worker": worker, "events": events},
        finished_at=at(read),
    )  # fmt: skip


def judged(raw: Raw) -> tuple[LayerStatus, list[str], OutcomeEvidence]:
    docs = raw.normalize()
    outcome = docs[OutcomeEvidence]
    result = FluxCase(workers=list(docs[WorkersEvidence].workers), documents=[outcome]).run(
        flux_last_run
    )
    assert result is not None
    return result.status, [f.code for f in result.findings], outcome


# -- reading a stamp on the server's clock ------------------------------------------------------


def test_a_stamp_of_a_bounded_clock_is_a_span_and_an_unbounded_one_is_read_as_is():
    stamped = at("19:00:00")
    bounded = ClockOffset(at_least_s=7197, at_most_s=7201)
    assert on_server_clock(stamped, bounded) == (at("16:59:59"), at("17:00:03"))
    assert on_server_clock(stamped, None) == (stamped, stamped)
    assert on_server_clock(stamped, ClockOffset(at_least_s=7197)) == (stamped, stamped)


def test_every_span_that_reaches_the_latest_start_may_have_ended_last():
    spans = {"a": (at("17:00:00"), at("17:00:04")), "b": (at("17:00:03"), at("17:00:03")),
             "c": (at("16:00:00"), at("16:59:59")), "d": None}  # fmt: skip
    assert may_end_last(list(spans), spans.get) == ["a", "b"]
    points = {"a": (at("17:00:00"),) * 2, "b": (at("17:00:00"),) * 2, "c": (at("16:00:00"),) * 2}
    assert may_end_last(list(points), points.get) == ["a", "b"]  # one instant: both


# -- case 1: a worker ahead, judged with its offset ---------------------------------------------


def test_a_run_of_a_worker_ahead_judges_its_outcome_as_a_right_clock_would():
    """w2 runs 2 h ahead: its success, stamped 19:10, was read as after collection (17:10:05)
    and as later than w1's failure at 17:09. On the server's clock it ended 17:09:59-17:10:03:
    the last run, and it passed."""
    raw = healthy_raw()
    run(raw, "early", "w1", "FAILED", "17:08:58", "17:09:00", "17:10:04")
    run(raw, "late", "w2", "COMPLETED", "17:09:58", "17:10:00", "17:10:03", skew=AHEAD)
    status, found, outcome = judged(raw)
    assert (status, found) == (LayerStatus.PASS, ["FLUX_LAST_RUN_SUCCEEDED"])
    (late,) = outcome.canaries
    assert (late.canary_id, late.clock_of) == ("late", "w2")


def test_a_worker_ahead_no_longer_hides_the_run_that_really_ended_last():
    """Read as stamped, w2's success (19:09) was the last run and w1's later failure was
    dropped; on the server's clock w2's run ended by 17:09:03, and w1's failure at 17:10 is
    the last run: the outcome fails, as with a right clock."""
    raw = healthy_raw()
    run(raw, "skewed", "w2", "COMPLETED", "17:08:58", "17:09:00", "17:09:03", skew=AHEAD)
    run(raw, "last", "w1", "FAILED", "17:09:58", "17:10:00", "17:10:04")
    status, found, _ = judged(raw)
    assert (status, found) == (LayerStatus.FAIL, ["FLUX_LAST_RUN_FAILED"])


def test_sqlite_s_last_run_of_a_worker_ahead_stands_beside_the_api_s_later_run():
    """SQLite picks the run with the latest stamp: w2's, hours ahead. w1's failure, read
    through the API, ended after it on the server's clock and is judged the last run."""
    raw = healthy_raw()
    run(raw, "skewed", "w2", "COMPLETED", "17:08:58", "17:09:00", "17:09:03", skew=AHEAD)
    run(raw, "last", "w1", "FAILED", "17:09:58", "17:10:00", "17:10:04")
    raw.host("db-last-runs", "h01", json.dumps([
        {"workflow_namespace": "default", "workflow_name": "hello_world", "execution_id":
         "skewed", "state": "COMPLETED", "worker_name": "w2", "started_at":
         "2026-11-29 17:08:58.000", "finished_at": "2026-11-29 19:09:00.000"}]))  # fmt: skip
    status, found, outcome = judged(raw)
    assert [(c.canary_id, c.clock_of) for c in outcome.canaries] == [
        ("last", None), ("skewed", "w2"),
    ]  # fmt: skip
    assert (status, found) == (LayerStatus.FAIL, ["FLUX_LAST_RUN_FAILED"])


def test_bounds_too_wide_to_order_the_runs_leave_the_outcome_unknown_and_say_why():
    """w2's run was read 9 minutes after it ended: on the server's clock it ended between
    17:01:00 and 17:10:03, and w1's failure at 17:05 may be earlier or later. Never pass."""
    raw = healthy_raw()
    run(raw, "skewed", "w2", "COMPLETED", "17:00:58", "17:01:00", "17:10:03", skew=AHEAD)
    run(raw, "middle", "w1", "FAILED", "17:04:58", "17:05:00", "17:10:04")
    status, found, outcome = judged(raw)
    assert (status, found) == (LayerStatus.UNKNOWN, ["RUN_ORDER_CLOCK_SKEW"])
    result = FluxCase(documents=[outcome], workers=list(raw.normalize()[WorkersEvidence].workers))
    (finding,) = result.run(flux_last_run).findings
    assert "stamped 2026-11-29 19:01:00Z by w2, so ended between" in finding.message
    assert "2026-11-29 17:10:03Z" in finding.message


def test_the_last_known_good_run_is_the_success_that_ended_last_on_the_server_s_clock():
    """w2, 2 h ahead, stamped its success of one workflow 19:09; w1's success of another
    ended at 17:10. Picked by its raw stamp, w2's run was the last known good; on the
    server's clock it ended by 17:09:03, before w1's."""
    raw = healthy_raw()
    run(raw, "skewed", "w2", "COMPLETED", "17:08:58", "17:09:00", "17:09:03", skew=AHEAD,
        workflow="etl")  # fmt: skip
    run(raw, "last", "w1", "COMPLETED", "17:09:58", "17:10:00", "17:10:04")
    outcome = raw.normalize()[OutcomeEvidence]
    assert outcome.last_known_good == "default/hello_world run last"
    assert outcome.last_known_good_undecided == []


def test_successes_whose_ends_overlap_on_the_server_s_clock_leave_the_last_known_good_open():
    """w2's success was read 9 minutes after it ended: on the server's clock it ended between
    17:01:00 and 17:10:03, and w1's success at 17:05 may be earlier or later. Neither is
    named; both are listed as undecided."""
    raw = healthy_raw()
    run(raw, "skewed", "w2", "COMPLETED", "17:00:58", "17:01:00", "17:10:03", skew=AHEAD,
        workflow="etl")  # fmt: skip
    run(raw, "middle", "w1", "COMPLETED", "17:04:58", "17:05:00", "17:10:04")
    outcome = raw.normalize()[OutcomeEvidence]
    assert outcome.last_known_good is None
    assert outcome.last_known_good_undecided == [
        "default/etl run skewed",
        "default/hello_world run middle",
    ]


# -- case 3: a cancelled run: the server asks, whoever lands it stamps the end -----------------


def cancelled(raw: Raw, run_id: str, claimed: str, asked: str, ended: str, read: str, *,
              by_server: bool = False) -> None:  # fmt: skip
    """A run of w2 (2 h ahead) claimed, started a second later on w2's clock, asked to cancel
    by the server (WORKFLOW_CANCELLING, server-stamped though its source_id names w2), and
    ended: stamped by w2 or, swept, by the server."""
    end = at(ended) if by_server else at(ended) + AHEAD
    events = [
        {"type": "WORKFLOW_CLAIMED", "source_id": "w2", "time": stamp(at(claimed))},
        {"type": "WORKFLOW_STARTED", "source_id": "wf",
         "time": stamp(at(claimed) + timedelta(seconds=1) + AHEAD)},
        {"type": "WORKFLOW_CANCELLING", "source_id": "w2", "time": stamp(at(asked))},
        {"type": "WORKFLOW_CANCELLED", "source_id": "w2", "time": stamp(end)},
    ]  # fmt: skip
    raw.http(
        "execution.finished", f"raw/http/execution-finished/{run_id}.json",
        {"execution_id": run_id, "workflow_name": "hello_world", "state": "CANCELLED",
         "current_worker": "w2", "events": events},
        finished_at=at(read),
    )  # fmt: skip


def server_log(raw: Raw, lines: list[str]) -> None:
    raw.source.add(SERVER_LOG, "\n".join(lines) + "\n")
    raw.results.append(StepResult(step="logs", collector="local.h01.logs", status=OK_STATUS,
                                  member=SERVER_LOG, host="h01"))  # fmt: skip
    index = LogIndex(logs=[LogSource(member=SERVER_LOG, host_alias="h01", role="server",
                                     utc_offset="+0000")])  # fmt: skip
    raw.source.add(LogIndex.member_path, index.model_dump(mode="json"))


def skewed_cancellation(*, by_server: bool, log: list[str] | None) -> OutcomeEvidence:
    """w2's clock is bounded by a quick run ("tight"); its long run "c1" started at 17:00 and
    was cancelled at 17:09:01 (asked at 17:09:00); w1's run failed at 17:05."""
    raw = healthy_raw()
    run(raw, "tight", "w2", "COMPLETED", "17:08:58", "17:09:00", "17:09:03", skew=AHEAD,
        workflow="etl")  # fmt: skip
    cancelled(raw, "c1", "17:00:00", "17:09:00", "17:09:01", "17:09:03", by_server=by_server)
    run(raw, "middle", "w1", "FAILED", "17:04:58", "17:05:00", "17:10:04")
    if log is not None:
        server_log(raw, log)
    return raw.normalize()[OutcomeEvidence]


def _canary(outcome: OutcomeEvidence, run_id: str) -> CanaryRun:
    found = [c for c in outcome.canaries if c.canary_id == run_id]
    assert len(found) == 1, f"{run_id} is not kept as a run that may have ended last"
    return found[0]


QUIET_SERVER = ["2026-11-29 16:59:00 - flux.server - INFO - Flux server started successfully"]
SWEPT = [
    *QUIET_SERVER,
    "2026-11-29 17:09:01 - flux.context_managers - WARNING - Execution c1 cancellation had "
    "no live delivery target (w2); resolved by the scheduler sweep",
]


def test_a_cancelled_run_of_a_worker_ahead_ends_at_its_cancellation_on_the_worker_s_clock():
    """w2 stamps the end of a run it cancels (flux-core's workflow.py): read with its offset,
    c1 ended about 17:09:01 on the server's clock and is the last run. Read from w2's usual
    stamps alone it "ended" at its start (19:00:01 on w2's clock, 17:00 on the server's), and
    w1's failure at 17:05 passed for the last run."""
    outcome = skewed_cancellation(by_server=False, log=QUIET_SERVER)
    c1 = _canary(outcome, "c1")
    assert (c1.clock_of, c1.finished_at) == ("w2", at("17:09:01") + AHEAD)
    assert [c.canary_id for c in outcome.canaries if c.job == "default/hello_world"] == ["c1"]


def test_a_cancelled_run_the_server_s_sweep_resolved_is_read_on_the_server_s_clock():
    """The server log says its sweep resolved c1: the end is the server's stamp, and the run is
    read on the server's clock alone (claim to cancellation), not with w2's offset."""
    outcome = skewed_cancellation(by_server=True, log=SWEPT)
    c1 = _canary(outcome, "c1")
    assert (c1.clock_of, c1.started_at, c1.finished_at) == (None, at("17:00:00"), at("17:09:01"))


def test_without_a_server_log_a_skewed_worker_s_cancelled_run_is_undated():
    """No server log: nothing rules out the sweep, so whose clock ended c1 is unknown. It is
    undated, kept beside w1's failure, and which run is the last is said to be unknown."""
    outcome = skewed_cancellation(by_server=False, log=None)
    c1 = _canary(outcome, "c1")
    assert (c1.started_at, c1.finished_at) == (None, None)
    result = FluxCase(documents=[outcome], workers=[]).run(flux_last_run)
    assert result is not None
    assert result.status is LayerStatus.UNKNOWN


def swept_last_run(log: list[str] | None) -> tuple[LayerStatus, list[str], OutcomeEvidence]:
    """As flux-core leaves it: c1, w2's run (2 h ahead) that the server's sweep cancelled at
    17:09:01, is SQLite's "last run" of hello_world by its latest stamp, w2's start at
    19:00:01 on w2's clock; the API lists no cancelled run (doctor reads FAILED and COMPLETED
    details), only w1's failure at 17:05 and w2's quick run that bounds its clock."""
    raw = healthy_raw()
    run(raw, "tight", "w2", "COMPLETED", "17:08:58", "17:09:00", "17:09:03", skew=AHEAD,
        workflow="etl")  # fmt: skip
    run(raw, "middle", "w1", "FAILED", "17:04:58", "17:05:00", "17:10:04")
    raw.host("db-last-runs", "h01", json.dumps([
        {"workflow_namespace": "default", "workflow_name": "hello_world", "execution_id": "c1",
         "state": "CANCELLED", "worker_name": "w2", "started_at": "2026-11-29 17:00:00.000",
         "finished_at": "2026-11-29 19:00:01.000"}]))  # fmt: skip
    if log is not None:
        server_log(raw, log)
    return judged(raw)


def test_sqlite_s_last_run_the_sweep_cancelled_ends_at_the_sweep_on_the_server_s_clock():
    """Its latest stamp is w2's start: read with w2's offset it "ended" about 17:00:01, and
    w1's failure at 17:05 passed for the last run. The sweep's line dates its end on the
    server's clock, 17:09:01: c1 is the last run, cancelled, and the outcome says so."""
    status, found, outcome = swept_last_run(SWEPT)
    c1 = _canary(outcome, "c1")
    assert (c1.clock_of, c1.started_at, c1.finished_at) == (None, at("17:00:00"), at("17:09:01"))
    assert (status, found) == (LayerStatus.UNKNOWN, ["FLUX_LAST_RUN_INCONCLUSIVE"])


def test_without_a_server_log_sqlite_s_cancelled_last_run_of_a_worker_ahead_is_undated():
    """No server log: whose clock ended c1 is unknown. It is undated (not w2's start read as
    its end), w1's failure stands beside it, and which ran last is said to be unknown."""
    status, found, outcome = swept_last_run(None)
    c1 = _canary(outcome, "c1")
    assert (c1.started_at, c1.finished_at, c1.clock_of) == (None, None, None)
    assert "middle" in {c.canary_id for c in outcome.canaries}
    assert (status, found) == (LayerStatus.UNKNOWN, ["RUN_ORDER_UNDATED"])


# -- case 2: a worker with no runs, bounded by its registration ---------------------------------


SERVER_LOG = "hosts/h01/logs/00.log"
WORKER_LOG = "hosts/h03/logs/00.log"


def registration(raw: Raw, worker_lines: list[str], server_lines: list[str], offset: str | None):
    """Logs of the server (h01) and of w2 (h03), indexed with the hosts' UTC offset."""
    for member, lines, host in (
        (SERVER_LOG, server_lines, "h01"),
        (WORKER_LOG, worker_lines, "h03"),
    ):
        raw.source.add(member, "\n".join(lines) + "\n")
        done = StepResult(step="logs", collector=f"local.{host}.logs", status=CollectorStatus.OK,
                          member=member, host=host)  # fmt: skip
        raw.results.append(done)
    index = LogIndex(logs=[
        LogSource(member=SERVER_LOG, host_alias="h01", role="server", utc_offset=offset),
        LogSource(member=WORKER_LOG, host_alias="h03", role="worker", worker="w2",
                  utc_offset=offset),
    ])  # fmt: skip
    raw.source.add(LogIndex.member_path, index.model_dump(mode="json"))


BEHIND_WORKER = [
    "2026-11-29 15:35:02 - flux.worker - INFO - Registering worker 'w2' with server...",
    "2026-11-29 15:35:03 - flux.worker - INFO - OK",
    "2026-11-29 15:35:03 - flux.worker - INFO - Establishing connection with server...",
    "2026-11-29 15:35:03 - flux.worker - INFO - Connection established successfully",
]
SERVER = [
    "2026-11-29 17:05:03 - flux.api.worker_routes - INFO - Worker registered successfully: w2",
    "2026-11-29 17:05:03 - flux.api.worker_routes - INFO - Worker connected: w2",
]


def test_a_worker_that_ran_nothing_is_bounded_by_its_registration_lines():
    """w2 logged its registration at 15:35:02 and its connection at 15:35:03; the server
    logged registering it at 17:05:03: on one clock the first comes before, the last after,
    so w2 is 5399 to 5402 s behind (a second of log resolution either side)."""
    raw = healthy_raw()
    registration(raw, BEHIND_WORKER, SERVER, "+0000")
    workers = {w.name: w for w in raw.normalize()[WorkersEvidence].workers}
    offset = workers["w2"].clock_offset
    assert offset is not None
    assert (offset.at_least_s, offset.at_most_s) == (-5402, -5399)
    assert offset.at_most_source is not None
    assert offset.at_most_against is not None
    assert (offset.at_most_source.member, offset.at_most_source.line_start) == (WORKER_LOG, 4)
    assert (offset.at_most_against.member, offset.at_most_against.line_start) == (SERVER_LOG, 1)
    assert workers["w1"].clock_offset is None

    case = FluxCase(workers=list(workers.values()))
    result = case.run(flux_worker_clock, worker="w2")
    assert result is not None
    (finding,) = result.findings
    assert finding.code == "FLUX_WORKER_CLOCK_SKEW"
    assert "at least 5399 s (1.5 h) behind" in finding.message
    assert "its log says its connection was established" in finding.message
    assert [c.member for c in finding.evidence[1:]] == [WORKER_LOG, SERVER_LOG]


@pytest.mark.parametrize(
    ("worker_lines", "offset"),
    [
        (BEHIND_WORKER, None),  # a host's offset unrecorded: a time zone would pass for skew
        (BEHIND_WORKER[:1], "+0000"),  # registering, never connected: which line pairs is unsure
        (BEHIND_WORKER + BEHIND_WORKER[:1], "+0000"),  # a later registration under way
        ([line.replace("15:35", "17:05") for line in BEHIND_WORKER], "+0000"),  # on time
    ],
)
def test_registration_lines_bound_nothing_when_the_pairing_or_the_time_zone_is_unsure(
    worker_lines: list[str], offset: str | None
) -> None:
    raw = healthy_raw()
    registration(raw, worker_lines, SERVER, offset)
    workers = {w.name: w for w in raw.normalize()[WorkersEvidence].workers}
    assert workers["w2"].clock_offset is None
