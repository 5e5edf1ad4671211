"""A worker whose clock is off writes its log on that clock: its lines read on the server's.

w2 runs two hours ahead (as under libfaketime in ``test_host_faults``): every line it logs is
stamped 2 h after the moment it happened, while the server's lines about it are not. With
its offset bounded both ways (here 7198 to 7202 s: a line stands for a 4 s span of server
time) the timeline orders, draws and compares its lines on the server's clock; with one bound
only, it keeps the stamps and says the clock is off.
"""

from __future__ import annotations

from datetime import datetime

from bundler.analyze.api import EvidenceSet
from bundler.analyze.engine import run_analysis
from bundler.analyze.render.timeline import TimelineView, build
from bundler.analyze.rules.heartbeat import heartbeat_flapping
from bundler.analyze.worker_clock import described
from bundler.products.flux import PROFILE
from bundler.products.flux.rules.claims import flux_stale_claims
from bundler.products.flux.rules.heartbeat import flux_worker_heartbeat
from schemas import AnalysisReport, BundleInfo, FleetOverview, Integrity, Verdict, WorkerOverview
from schemas.evidence import ClockOffset, HealthState, LogIndex, LogSource
from tests.support.flux_evidence import FluxCase, line, online

SERVER = "flux.api.worker_routes"
WORKER = "flux.worker"
TIGHT = ClockOffset(at_least_s=7198, at_most_s=7202)
"""w2 is 7198 to 7202 s ahead: each of its stamps is a 4 s span of server time."""
ONE_WAY = ClockOffset(at_least_s=7000)
"""w2 is at least 7000 s ahead, by no more than the bundle can say."""
LOST = "Connection lost (ReadError: ). Reconnecting in 1.0s..."


def at(clock: str) -> datetime:
    return datetime.fromisoformat(f"2026-11-29T{clock}+00:00")


def ahead(clock: str) -> str:
    """``clock`` (server time) as w2, two hours ahead, stamps it."""
    hours, rest = clock.split(":", 1)
    return f"{int(hours) + 2:02d}:{rest}"


def skewed(offset: ClockOffset | None = TIGHT, **overrides: object) -> FluxCase:
    return FluxCase(workers=[online("w1"), online("w2", clock_offset=offset, **overrides)])


# -- the timeline: order and moments -----------------------------------------------------------


def test_a_skewed_worker_s_lines_are_ordered_and_bounded_on_the_server_s_clock() -> None:
    """The server evicted w2 at 17:00:06; w2 logged losing the connection at 19:00:07 on its
    clock (17:00:05 to 17:00:09 on the server's): it sorts beside the eviction, not 2 h
    later, and its moment is that span."""
    case = skewed()
    case.server_log = [
        line("17:00:06", SERVER, "Worker w2 evicted (stale for >6s)"),
        line("17:05:00", SERVER, "Worker connected: w1"),
    ]
    case.worker_logs = {"w2": [line(ahead("17:00:07"), WORKER, LOST)]}
    timeline = case.timeline()
    assert [e.kind for e in timeline] == ["evicted", "connection_lost", "connected"]
    (lost,) = timeline.of_kind("connection_lost")
    assert timeline.bounds(lost) == (at("17:00:05"), at("17:00:09"))
    assert timeline.placed(lost) == at("17:00:07")


def test_one_bound_keeps_the_stamp_and_leaves_the_other_end_open() -> None:
    case = skewed(ONE_WAY)
    case.worker_logs = {"w2": [line(ahead("17:00:07"), WORKER, LOST)]}
    timeline = case.timeline()
    (lost,) = timeline.of_kind("connection_lost")
    assert timeline.placed(lost) == at("19:00:07")
    assert timeline.bounds(lost) == (None, at("17:03:27"))
    said = described(at("19:00:07"), ONE_WAY, "w2")
    assert said == (
        "2026-11-29 19:00:07Z on w2's clock, which is off (at least 7000 s ahead): not the "
        "server's time"
    )


# -- rules comparing a worker's log times with the server's ------------------------------------


def _cycles(*starts: str) -> list[str]:
    """w2 marked STALE, evicted 6 s later and back 1 s after that, at each start (17:MM)."""
    lines = []
    for start in starts:
        lines += [
            line(f"17:{start}:00", SERVER, "Worker w2 missed heartbeat, marked STALE "
                 "(grace period: 6s)"),
            line(f"17:{start}:06", SERVER, "Worker w2 evicted (stale for >6s)"),
            line(f"17:{start}:07", SERVER, "Worker connected: w2"),
        ]  # fmt: skip
    return lines


def test_a_skewed_worker_s_lost_connection_is_one_outage_with_the_eviction() -> None:
    """Two evictions, each with w2's own 'Connection lost' line a second later: two outages.
    Read at its stamps, each lost connection lay 2 h after its eviction: four outages, and
    w2 was 'flapping'."""
    case = skewed()
    case.server_log = _cycles("00", "05")
    case.worker_logs = {"w2": [line(ahead(f"17:{m}:07"), WORKER, LOST) for m in ("00", "05")]}
    assert case.run(heartbeat_flapping, worker="w2") is None


def test_a_starvation_logged_on_a_skewed_clock_is_measured_after_the_freeze() -> None:
    """The server marked w2 STALE at 17:00:00; w2 logged its starved loop at 19:00:08 on its
    clock, 17:00:06 to 17:00:10 on the server's: the lag measured the freeze. Read at its stamp
    it lay 2 h after, and the starvation was blamed on code."""
    starved = "Event loop starved (lag 6.02s >= 1.0s for 3 probes); marking worker unhealthy"
    case = skewed(health=HealthState.UNHEALTHY)
    case.server_log = _cycles("00")[:1]
    case.worker_logs = {"w2": [line(ahead("17:00:08"), WORKER, starved)]}
    finding = case.run(flux_worker_heartbeat, worker="w2").findings[0]  # type: ignore[union-attr]
    assert finding.details["after_freeze"] is True
    assert "-7" not in finding.message  # no negative duration from the stamp


def test_a_starvation_on_a_loosely_bounded_clock_says_it_cannot_tell_the_freeze() -> None:
    """With w2's offset known only within 6000 to 7300 s, its starvation may lie before or
    after the STALE line's window: not blamed on a freeze, nor silently on code."""
    starved = "Event loop starved (lag 6.02s >= 1.0s for 3 probes); marking worker unhealthy"
    case = skewed(ClockOffset(at_least_s=6000, at_most_s=7300), health=HealthState.UNHEALTHY)
    case.server_log = _cycles("00")[:1]
    case.worker_logs = {"w2": [line(ahead("17:00:08"), WORKER, starved)]}
    finding = case.run(flux_worker_heartbeat, worker="w2").findings[0]  # type: ignore[union-attr]
    assert finding.details["after_freeze"] is None
    assert "cannot be told" in finding.message
    assert "on w2's clock, 2026-11-29 16:58:28Z to 2026-11-29 17:20:08Z on the server's" in (
        finding.message
    )


def test_how_long_a_skewed_worker_has_starved_is_read_on_the_server_s_clock() -> None:
    """Collected at 17:10:00; w2 logged its starvation at 19:09:30 on its clock: 28 to 32 s
    before collection, not -7170 s."""
    starved = "Event loop starved (lag 1.55s >= 1.0s for 3 probes); marking worker unhealthy"
    case = skewed(health=HealthState.UNHEALTHY)
    case.worker_logs = {"w2": [line(ahead("17:09:30"), WORKER, starved)]}
    finding = case.run(flux_worker_heartbeat, worker="w2").findings[0]  # type: ignore[union-attr]
    assert "for 28-32s" in finding.message


def test_a_stale_claim_on_a_skewed_clock_is_explained_by_the_eviction_before_it() -> None:
    """The server evicted w2 at 17:04:06; w2 hit a stale claim at 19:05:00 on its clock
    (17:04:58 to 17:05:02): the eviction explains it. At its stamp nothing lay within the ten
    minutes before it, and the fencing was reported as unexplained."""
    case = skewed()
    case.server_log = _cycles("04")
    stale = "Error during checkpoint: Stale claim for execution e1: request carries generation 1"
    case.worker_logs = {"w2": [line(ahead("17:05:00"), WORKER, stale)]}
    assert case.run(flux_stale_claims, worker="w2") is None


# -- the HTML timeline -------------------------------------------------------------------------


def test_the_timeline_draws_a_skewed_worker_s_lines_on_the_server_s_clock_and_says_so() -> None:
    case = skewed()
    case.server_log = _cycles("00")
    case.worker_logs = {"w2": [line(ahead("17:00:07"), WORKER, LOST)]}
    view = build_view(case)
    (lane,) = [lane for lane in view.lanes if lane.label == "w2"]
    (lost,) = [m for m in lane.marks if "connection lost" in m.title]
    assert lost.title.startswith(
        "17:00:07Z (stamped 2026-11-29 19:00:07Z on w2's clock, 2026-11-29 17:00:05Z to "
        "2026-11-29 17:00:09Z on the server's) w2: connection lost"
    )
    assert view.end < at("17:11:00")  # not stretched to 19:00
    assert "drawn on the server's clock" in lane.note
    assert view.clocks == [
        "w2's clock is 7198 to 7202 s ahead of the server's: its log lines are drawn where "
        "they happened on the server's clock (within ±2 s); hover one for its stamp as written."
    ]


def test_a_one_way_bound_keeps_the_stamp_on_the_timeline_and_says_the_clock_is_off() -> None:
    case = skewed(ONE_WAY)
    case.worker_logs = {"w2": [line(ahead("17:00:07"), WORKER, LOST)]}
    view = build_view(case)
    (lane,) = [lane for lane in view.lanes if lane.label == "w2"]
    (lost,) = [m for m in lane.marks if "connection lost" in m.title]
    assert lost.title.startswith("19:00:07Z (stamped 2026-11-29 19:00:07Z on w2's clock, which")
    assert "unbounded amount" in lane.note
    assert "at least 7000 s ahead" in view.clocks[0]


def build_view(case: FluxCase) -> TimelineView:
    """The HTML timeline of ``case``'s logs beside an overview of its workers."""
    report = AnalysisReport(
        tool_version="test",
        verdict=Verdict.DEGRADED,
        bundle=BundleInfo(created_at=at("17:10:00"), integrity=Integrity(status="verified")),
        fleet=FleetOverview(
            workers=[WorkerOverview(name=w.name, status=w.connection) for w in case.workers]
        ),
    )
    view = build(report, case.timeline())
    assert view is not None
    return view


def test_the_engine_reads_each_worker_log_on_the_clock_its_record_proves() -> None:
    """The analysis's timeline takes each worker log's offset from the workers' records and
    the log index: w2's log on its clock, w1's and the server's as stamped."""
    case = skewed()
    case.server_log = _cycles("00")
    case.worker_logs = {
        "w1": [line("17:00:07", WORKER, LOST)],
        "w2": [line(ahead("17:00:07"), WORKER, LOST)],
    }
    source = case.source()
    logs = [LogSource(member="hosts/h01/logs/0.log", role="server")]
    for number, worker in enumerate(("w1", "w2"), 2):
        member = f"hosts/h{number:02d}/logs/0.log"
        source.add(member, "\n".join(case.worker_logs[worker]) + "\n")
        logs.append(LogSource(member=member, role="worker", worker=worker))
    source.add("hosts/h01/logs/0.log", "\n".join(case.server_log) + "\n")
    source.add(LogIndex.member_path, LogIndex(logs=logs).model_dump(mode="json"))
    timeline = run_analysis(EvidenceSet(source), profile=PROFILE).timeline
    assert set(timeline.clocks) == {"hosts/h03/logs/0.log"}
    lost = {e.worker: e for e in timeline.of_kind("connection_lost")}
    assert timeline.bounds(lost["w2"]) == (at("17:00:05"), at("17:00:09"))
    assert timeline.bounds(lost["w1"]) == (at("17:00:07"), at("17:00:07"))
