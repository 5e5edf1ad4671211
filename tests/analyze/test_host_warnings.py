"""A worker whose only problem is a warning from its host reaches the report, whatever else
is wrong in the fleet.

Target selection walked a ladder for each job and worker in trouble, and for every worker
only when nothing was: a worker online and taking work, its state volume nearly full or its
clock off, got no ladder beside a waiting job, and its warning was in no report. In a fleet
past the ladders a report walks (``MAX_EVALUATED``), a healthy-looking fleet with one
warned worker near the end read ``healthy``. The rules that judge a worker from its host
alone (``@rule(host=True)``) are now asked of every worker: a warned worker is a target
after the trouble, and a warning no reported ladder shows is the fleet finding
``HOST_WARNINGS``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from bundler.analyze.api import EvidenceSet
from bundler.analyze.engine import MAX_EVALUATED, MAX_TARGETS, analyze
from bundler.analyze.wording import NAMES_PER_GROUP
from bundler.cli import cli
from bundler.products.flux import PROFILE as FLUX
from schemas import AnalysisReport, Layer
from schemas.evidence import (
    ClockOffset,
    ConnectionState,
    HostSysinfo,
    JobPhase,
    LocalStateEvidence,
    TimeSync,
)
from tests.support.big_fleet import big_fleet
from tests.support.evidence import Fleet, healthy_fleet, with_more_workers
from tests.support.flux_evidence import FluxCase, online, state_volume, waiting
from tests.support.sample_bundles import write_sample_dir

NEARLY_FULL = (
    b"Filesystem     1024-blocks     Used Available Capacity Mounted on\n"
    b"/dev/vda         264212084 260000000   4212084      99% /\n"
)
"""``df -P -k`` of a state directory with 4 GiB of 252 GiB left: nearly full."""
UNSYNCED = "TIME_NOT_SYNCHRONIZED"


def _warnings(report: AnalysisReport, worker: str) -> list[str]:
    return [
        f.code
        for t in report.targets
        if t.worker == worker
        for layer in t.layers
        for f in layer.findings
        if f.severity == "warn"
    ]


def _unsynced(fleet: Fleet, names: list[str]) -> Fleet:
    """``fleet`` with a worker host for each of ``names`` that does not synchronize its clock."""
    assert fleet.hosts is not None
    fleet.hosts.hosts = [h for h in fleet.hosts.hosts if h.worker not in names] + [
        HostSysinfo(
            alias=f"u{i:04d}",
            role="worker",
            worker=name,
            time_sync=TimeSync(synchronized=False, service="chrony"),
        )
        for i, name in enumerate(names)
    ]
    return fleet


def test_a_nearly_full_volume_beside_a_waiting_job_gets_its_ladder(tmp_path: Path) -> None:
    """flux-saturated: executions wait for w3's one slot (blocked at capacity). w1 is online
    and idle, but ``df`` of its state directory reads 99 % used: its own ladder warns."""
    bundle = write_sample_dir(
        "flux-saturated", tmp_path, {"hosts/h02/state-volume.txt": NEARLY_FULL}
    )
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json"])
    assert result.exit_code == 1, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    assert (report["verdict"], report["first_failed_layer"]) == ("blocked", "capacity")
    [w1] = [t for t in report["targets"] if t["worker"] == "w1"]
    assert w1["reason"] == "host warning: FLUX_WORKER_DISK_NEARLY_FULL"
    capacity = next(layer for layer in w1["layers"] if layer["name"] == "capacity")
    assert capacity["status"] == "warn"
    assert "FLUX_WORKER_DISK_NEARLY_FULL" in {f["code"] for f in capacity["findings"]}
    row = next(w for w in report["fleet"]["workers"] if w["name"] == "w1")
    assert (row["verdict"], row["finding"]) == ("degraded", "FLUX_WORKER_DISK_NEARLY_FULL")
    # shown in a ladder: no fleet note repeats it
    assert "HOST_WARNINGS" not in {f["code"] for f in report["fleet_findings"]}


def test_a_skewed_flux_worker_beside_a_waiting_job_gets_its_ladder() -> None:
    """An execution waits for a zone nobody has; w2 is fine but for a clock two hours ahead
    (Flux's own finding, from the times it stamps, replacing the generic one)."""
    skewed = online("w2", labels={"zone": "a"}, clock_offset=ClockOffset(at_least_s=7200.0))
    case = FluxCase(
        workers=[online("w1", labels={"zone": "a"}), skewed],
        jobs=[waiting(labels={"zone": "mars"})],
    )
    report = analyze(EvidenceSet(case.source()), profile=FLUX)
    assert report.verdict.value == "blocked"
    [target] = [t for t in report.targets if t.worker == "w2" and t.job is None]
    assert target.reason == "host warning: FLUX_WORKER_CLOCK_SKEW"
    assert "FLUX_WORKER_CLOCK_SKEW" in _warnings(report, "w2")
    assert not [t for t in report.targets if t.worker == "w1" and t.job is None]  # nothing to say


def test_an_unsynchronized_clock_beside_a_failed_job_gets_its_ladder() -> None:
    """The generic host rule speaks for any product: w2's host keeps no time."""
    fleet = _unsynced(healthy_fleet(), ["w2"])
    assert fleet.jobs is not None
    fleet.jobs.jobs[0].phase = JobPhase.FAILED
    report = analyze(fleet.evidence())
    assert report.verdict.value == "blocked"
    assert UNSYNCED in _warnings(report, "w2")


def test_a_warned_worker_past_the_ladders_walked_keeps_a_large_fleet_from_healthy() -> None:
    """A healthy fleet walks every worker, but only MAX_EVALUATED ladders: the last of 300
    more, its host unsynchronized, was not among them and the fleet read healthy."""
    names = [f"x{i:03d}" for i in range(MAX_EVALUATED + 100)]
    fleet = _unsynced(with_more_workers(healthy_fleet(), names), [names[-1]])
    report = analyze(fleet.evidence())
    assert report.verdict.value == "degraded"
    assert UNSYNCED in _warnings(report, names[-1])


def test_warned_workers_past_the_trouble_are_one_fleet_line() -> None:
    """500 workers, 400 in trouble: the ladders go to the trouble, and the three healthy
    workers whose hosts keep no time are named in one fleet finding, grouped by code; the
    overview says why each is flagged instead of "no trouble found"."""
    fleet = big_fleet(500)
    assert fleet.workers is not None
    healthy = [w.name for w in fleet.workers.workers[-100:]]
    warned = healthy[-NAMES_PER_GROUP - 2 :]
    report = analyze(_unsynced(fleet, warned).evidence())
    assert len(report.targets) <= MAX_TARGETS
    [note] = [f for f in report.fleet_findings if f.code == "HOST_WARNINGS"]
    assert note.severity == "warn"
    assert note.message.startswith(
        f"{len(warned)} workers with host warnings that no ladder below shows: "
        f"{', '.join(warned[:NAMES_PER_GROUP])} and 2 more: {UNSYNCED}."
    )
    assert note.details["workers"] == {name: [UNSYNCED] for name in warned}
    assert len(note.evidence) == min(len(warned), 8)
    assert report.fleet is not None
    rows = {row.name: row for row in report.fleet.workers}
    assert {rows[name].trouble for name in warned} == {f"host warning: {UNSYNCED}"}
    assert rows[healthy[0]].trouble is None


def test_a_narrowed_report_asks_no_other_worker() -> None:
    """``--job`` is about that job: another worker's host is not its business."""
    fleet = _unsynced(healthy_fleet(), ["w2"])
    report = analyze(fleet.evidence(), job="ingest")
    assert {t.worker for t in report.targets} == {"w1"}
    assert "HOST_WARNINGS" not in {f.code for f in report.fleet_findings}


MIB = 1024**2


def _offline_w2(free: int) -> FluxCase:
    """w1 online; w2 offline (its process ended), the volume under its Flux home ``free``."""
    down = online("w2", native_status="offline", connection=ConnectionState.OFFLINE)
    return FluxCase(
        workers=[online("w1"), down],
        documents=[
            LocalStateEvidence(volumes=[state_volume("w1", 2 * MIB), state_volume("w2", free)])
        ],
    )


def test_an_offline_worker_on_a_full_volume_shows_the_volume_where_its_ladder_stopped() -> None:
    """w2 is offline and its state volume full. Its ladder stops at the heartbeat, so the
    capacity rung that judges the volume was never walked: the full disk, quite possibly why
    w2 went down, was only in the fleet's HOST_WARNINGS line, and the recovery said "restart
    w2", which meets the same full volume. It is now on the heartbeat rung, as context."""
    report = analyze(EvidenceSet(_offline_w2(free=0).source()), profile=FLUX)
    [target] = [t for t in report.targets if t.worker == "w2" and t.job is None]
    assert (target.verdict.value, target.first_failed_layer) == ("blocked", Layer.HEARTBEAT)
    heartbeat = next(layer for layer in target.layers if layer.name is Layer.HEARTBEAT)
    assert heartbeat.status.value == "fail"
    [volume] = [f for f in heartbeat.findings if f.code == "FLUX_WORKER_DISK_NEARLY_FULL"]
    assert volume.severity == "warn"  # context, not a second failure
    assert volume.details["judged_on"] == "capacity"
    assert volume.details["full"] is True
    assert "is full: 0 B of 4.0 MiB free" in volume.message
    assert "the full volume may be why" in volume.message
    assert "stays online" not in volume.message
    [df_line] = [c for c in volume.evidence if c.member == "hosts/h-w2/state-volume.txt"]
    assert df_line.lines is not None
    assert df_line.lines.start == 2
    # The failure's own recovery frees the volume before it restarts the worker.
    [offline] = [f for f in heartbeat.findings if f.code == "FLUX_WORKER_OFFLINE"]
    assert offline.severity == "fail"
    assert offline.recovery is not None
    steps = offline.recovery.steps
    [room] = [i for i, step in enumerate(steps) if "Free space on the volume under w2" in step]
    [restart] = [i for i, step in enumerate(steps) if "Start it again" in step]
    assert room < restart
    assert offline.recovery.summary.startswith("First: Free space on the volume under w2")
    assert any("df -P -k" in check for check in offline.acceptance)
    # shown in the ladder: no fleet line repeats it; w1, with room, says nothing of a disk
    assert "HOST_WARNINGS" not in {f.code for f in report.fleet_findings}
    assert "FLUX_WORKER_DISK_NEARLY_FULL" not in _warnings(report, "w1")


def test_a_nearly_full_volume_beside_a_stop_is_context_and_room_is_silence() -> None:
    """Nearly full (96 %), the volume is named as possibly why, in those words; with room,
    the heartbeat rung reads as it did. Either way the verdict is the heartbeat's."""
    nearly = analyze(EvidenceSet(_offline_w2(free=160 * 1024).source()), profile=FLUX)
    roomy = analyze(EvidenceSet(_offline_w2(free=2 * MIB).source()), profile=FLUX)
    for report in (nearly, roomy):
        [target] = [t for t in report.targets if t.worker == "w2" and t.job is None]
        assert (target.verdict.value, target.first_failed_layer) == ("blocked", Layer.HEARTBEAT)
    [context] = [
        f
        for t in nearly.targets
        for layer in t.layers
        for f in layer.findings
        if f.code == "FLUX_WORKER_DISK_NEARLY_FULL"
    ]
    assert "is nearly full" in context.message
    assert "a volume this full may be why" in context.message
    assert "FLUX_WORKER_DISK_NEARLY_FULL" not in _warnings(roomy, "w2")
    [offline] = [
        f
        for t in roomy.targets
        for layer in t.layers
        for f in layer.findings
        if f.code == "FLUX_WORKER_OFFLINE"
    ]
    assert offline.recovery is not None
    assert offline.recovery.summary.startswith("Restart w2")
