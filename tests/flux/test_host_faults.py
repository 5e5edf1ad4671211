"""Faults of a worker's host, run for real in the lab, then read by doctor and analyze.

* A full disk: w2's working directory (Flux's home) is a 4 MiB tmpfs of its own, filled
  until ENOSPC; a run whose task Flux memoizes fails with ``OSError: [Errno 28] No space
  left on device`` while w2 stays online and advertises tens of GiB free (Flux measures
  ``/``). The analysis once said only "the run failed: read its error and fix its cause".
  It must name the full disk, cite the run's error and ``df`` of w2's state directory, and
  give the recovery (free space, delete the empty memoized result the failed write left,
  which Flux would read back; the advertised disk_free is not this volume).
* A nearly full disk, before any run fails: w2's 4 MiB volume filled to about 97 %, no run
  yet. The analysis once read w2 healthy; its capacity rung must warn
  (``FLUX_WORKER_DISK_NEARLY_FULL``) with ``df``'s line cited, and the next run that writes
  more than is left must indeed fail.
* Inodes exhausted: w2's volume holds 64 files and is filled with empty ones, its blocks
  nearly all free. The run fails with the same ENOSPC; the analysis must say the inodes ran
  out (``df -P -i`` cited), not that "space was freed since".
* A clock that is off: w2 runs 2 h ahead and w3 90 min behind (libfaketime). Flux judges
  heartbeats by the server's clock: both stay online and complete their runs, and the
  analysis once read w3 healthy and w2 "inconclusive" with no word of a clock. It must say
  which worker's clock is off, which way and by at least how much, from the times the
  server and the worker stamped on the same run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from samples.flux_lab import FluxLab, LabConfig, faults, host_faults
from samples.flux_lab.config import DEFAULT_WORKERS
from samples.flux_lab.disk import DiskUnavailable
from schemas import AnalysisReport, Finding, Layer, LayerStatus, TargetReport, Verdict
from tests.support.flux import LabFactory, analyze_json, doctor_lab, rung
from tests.support.requirements import need

pytestmark = pytest.mark.flux


def test_a_full_disk_under_a_workers_home_is_named_with_its_volume(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    workers = (DEFAULT_WORKERS[0], host_faults.small_disk("w2", {"zone": "b"}))
    try:
        lab = flux_lab_factory(LabConfig(workers=workers))
    except DiskUnavailable as exc:
        need(False, str(exc))
        raise
    (failed,) = host_faults.disk_full(lab, "w2").executions
    assert lab.api.worker_statuses()["w2"] == "online"  # Flux does not notice
    doctor_lab(lab, tmp_path / "disk.zip")
    report = analyze_json(tmp_path / "disk.zip", expect_rc=1)

    (target,) = [t for t in report.targets if t.worker == "w2" and t.job is not None]
    assert target.first_failed_layer is Layer.OUTCOME
    assert rung(target, Layer.HEARTBEAT)[0] is LayerStatus.PASS
    status, found = rung(target, Layer.OUTCOME)
    assert status is LayerStatus.FAIL
    # One cause, one finding: not also "the run failed, read its error".
    assert [f.code for f in found] == ["FLUX_WORKER_DISK_FULL"]
    (finding,) = found
    assert failed in finding.message
    assert "No space left on device" in finding.message
    assert f"mounted at {lab.worker_dir('w2')}, had 0 B of 4.0 MiB free" in finding.message
    assert finding.details["free_bytes"] == 0
    cited = {c.member: c for c in finding.evidence}
    assert cited["evidence/local_state.json"].pointer == "/volumes/2/free_bytes"
    assert any(m.endswith("/state-volume.txt") for m in cited)
    assert finding.recovery is not None
    assert "Free space on the volume" in finding.recovery.summary
    assert any("measures `/`" in caution for caution in finding.recovery.cautions)

    assert any("EOFError: Ran out of input" in step for step in finding.recovery.steps)
    # The capacity rung below it warned of the full volume already.
    status, found = rung(target, Layer.CAPACITY)
    assert status is LayerStatus.WARN
    (warned,) = [f for f in found if f.code == "FLUX_WORKER_DISK_NEARLY_FULL"]
    assert (warned.details["full"], warned.details["exhausted"]) == (True, "blocks")

    # The recovery, step by step: room alone is not enough, Flux reads back the empty
    # memoized result the full disk left; with it deleted the same run completes on w2.
    lab.disks["w2"].free()
    again = lab.api.run_to_end("cached_report", 64, require_worker="w2")
    assert again["state"] == "FAILED"
    assert again["output"]["type"] == "EOFError"
    cache = lab.worker_dir("w2") / ".flux" / ".cache"
    (empty,) = [entry for entry in cache.glob("*.pkl") if entry.stat().st_size == 0]
    empty.unlink()
    again = lab.api.run_to_end("cached_report", 64, require_worker="w2")
    assert again["state"] == "COMPLETED", again.get("output")


def _small_disk_lab(flux_lab_factory: LabFactory, inodes: int | None = None) -> FluxLab:
    workers = (DEFAULT_WORKERS[0], host_faults.small_disk("w2", {"zone": "b"}, inodes=inodes))
    try:
        return flux_lab_factory(LabConfig(workers=workers))
    except DiskUnavailable as exc:
        need(False, str(exc))
        raise


def _worker_rung(report: AnalysisReport, layer: Layer) -> tuple[LayerStatus, list[Finding]]:
    (target,) = [t for t in report.targets if t.worker == "w2" and t.job is None]
    return rung(target, layer)


def test_a_nearly_full_volume_warns_before_the_first_run_fails(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    lab = _small_disk_lab(flux_lab_factory)
    host_faults.disk_nearly_full(lab, "w2", leave_bytes=128 * 1024)
    doctor_lab(lab, tmp_path / "nearly.zip")
    report = analyze_json(tmp_path / "nearly.zip", expect_rc=0)
    assert report.verdict is Verdict.DEGRADED  # nothing failed yet

    status, found = _worker_rung(report, Layer.CAPACITY)
    assert status is LayerStatus.WARN
    (finding,) = [f for f in found if f.code == "FLUX_WORKER_DISK_NEARLY_FULL"]
    assert f"mounted at {lab.worker_dir('w2')}, is nearly full" in finding.message
    assert finding.details["exhausted"] == "blocks"
    assert finding.details["full"] is False
    assert 95 <= finding.details["used_percent"] < 100
    assert 128 * 1024 <= finding.details["free"] < 256 * 1024  # filled a 64 KiB chunk at a time
    cited = {c.member: c for c in finding.evidence}
    assert cited["evidence/local_state.json"].pointer.endswith("/free_bytes")
    (df_line,) = [c for m, c in cited.items() if m.endswith("/state-volume.txt")]
    assert df_line.lines is not None
    assert df_line.lines.start == 2  # the data line under df's header
    assert finding.recovery is not None
    assert "before its runs fail" in finding.recovery.summary

    # The warning is true: a run writing more than is left fails with ENOSPC.
    run = lab.api.run_to_end("cached_report", 512, require_worker="w2")
    assert run["state"] == "FAILED"
    assert "No space left on device" in json.dumps(run["output"])


def test_a_worker_down_on_a_full_volume_shows_the_volume_on_its_heartbeat_rung(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    """w2's volume is filled, then w2 dies (SIGKILL). Flux 0.87.5 itself survives a full home
    (tried: it starts and registers on a full tmpfs, only its control socket lost with no
    inode left), so the crash is a kill; the evidence is what doctor reads of a worker down on
    a full disk. Its ladder stops at the heartbeat, and the full volume, judged at capacity,
    used to be only in HOST_WARNINGS: it is now on the heartbeat rung, df's line cited, and
    the offline finding's recovery frees it before it restarts w2."""
    lab = _small_disk_lab(flux_lab_factory)
    lab.disks["w2"].fill()
    faults.kill_worker(lab, "w2")
    doctor_lab(lab, tmp_path / "down.zip")
    report = analyze_json(tmp_path / "down.zip", expect_rc=1)

    (target,) = [t for t in report.targets if t.worker == "w2" and t.job is None]
    assert target.first_failed_layer is Layer.HEARTBEAT
    status, found = rung(target, Layer.HEARTBEAT)
    assert status is LayerStatus.FAIL
    (volume,) = [f for f in found if f.code == "FLUX_WORKER_DISK_NEARLY_FULL"]
    assert volume.severity == "warn"
    assert volume.details["judged_on"] == "capacity"
    assert f"mounted at {lab.worker_dir('w2')}, is full" in volume.message
    assert "may be why" in volume.message
    (df_line,) = [c for c in volume.evidence if c.member.endswith("/state-volume.txt")]
    assert df_line.lines is not None
    assert df_line.lines.start == 2
    failed = [f for f in found if f.severity == "fail"]
    assert failed
    for finding in failed:
        assert finding.recovery is not None
        assert finding.recovery.summary.startswith("First: Free space on the volume under w2")
    assert "HOST_WARNINGS" not in {f.code for f in report.fleet_findings}


def test_inodes_exhausted_are_named_although_blocks_are_free(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    lab = _small_disk_lab(flux_lab_factory, inodes=64)
    (failed,) = host_faults.inodes_full(lab, "w2").executions
    doctor_lab(lab, tmp_path / "inodes.zip")
    report = analyze_json(tmp_path / "inodes.zip", expect_rc=1)

    (target,) = [t for t in report.targets if t.worker == "w2" and t.job is not None]
    assert target.first_failed_layer is Layer.OUTCOME
    status, found = rung(target, Layer.OUTCOME)
    assert [f.code for f in found] == ["FLUX_WORKER_DISK_FULL"]
    (finding,) = found
    assert failed in finding.message
    assert "0 of 64 inodes free" in finding.message
    assert "space was freed since" not in finding.message
    assert finding.details["exhausted"] == "inodes"
    assert finding.details["inodes_free"] == 0
    assert finding.details["free_bytes"] > 3 * 1024 * 1024  # the blocks are nearly all free
    cited = {c.member: c for c in finding.evidence}
    assert cited["evidence/local_state.json"].pointer.endswith("/inodes_free")
    assert any(m.endswith("/state-inodes.txt") for m in cited)
    assert finding.recovery is not None
    assert "Free inodes (delete files)" in finding.recovery.summary

    status, found = rung(target, Layer.CAPACITY)
    assert status is LayerStatus.WARN
    (warned,) = [f for f in found if f.code == "FLUX_WORKER_DISK_NEARLY_FULL"]
    assert (warned.details["full"], warned.details["exhausted"]) == (True, "inodes")
    assert "with no inode left" in warned.message
    # w2 started before its inodes ran out: its socket is there, nothing to tie to them
    said = {f.code for t in report.targets for layer in t.layers for f in layer.findings}
    assert "FLUX_CONTROL_SOCKET_NO_INODES" not in said


def test_a_worker_started_with_no_inode_left_runs_without_its_control_socket(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    """w2 stopped, its volume's inodes used up, w2 started again: Flux carries on without the
    control socket it could not create (``Worker control socket unavailable ([Errno 28] ...)``),
    online and taking work. The analysis said nothing of it; its heartbeat rung now warns,
    citing the log line and ``df -P -i``'s, with the repair: free inodes, then restart."""
    lab = _small_disk_lab(flux_lab_factory, inodes=64)
    lab.workers["w2"].stop()  # SIGTERM: it removes its socket, whose inode the fill then takes
    lab.wait_for_status({"w2": "offline"}, timeout_s=30)
    lab.disks["w2"].fill_inodes()
    lab.start_worker("w2")
    lab.wait_for_log("w2", "Worker control socket unavailable", timeout_s=30)
    assert not (lab.worker_dir("w2") / ".flux" / "worker-w2.sock").exists()
    assert lab.api.worker_statuses()["w2"] == "online"  # Flux carries on
    doctor_lab(lab, tmp_path / "socket.zip")
    report = analyze_json(tmp_path / "socket.zip")

    status, found = _worker_rung(report, Layer.HEARTBEAT)
    assert status is LayerStatus.WARN, found
    (finding,) = [f for f in found if f.code == "FLUX_CONTROL_SOCKET_NO_INODES"]
    assert "w2 runs without its control socket" in finding.message
    assert "0 of 64 inodes free" in finding.message
    assert "No space left on device" in finding.details["error"]
    cited = {c.member: c for c in finding.evidence}
    (line,) = [c for m, c in cited.items() if m.startswith("hosts/") and "/logs/" in m]
    assert line.excerpt is not None
    assert "Worker control socket unavailable" in line.excerpt
    assert cited["evidence/local_state.json"].pointer.endswith("/inodes_free")
    assert any(m.endswith("/state-inodes.txt") for m in cited)
    assert finding.recovery is not None
    assert finding.recovery.summary.startswith("Free inodes (delete files)")


def test_a_worker_clock_ahead_or_behind_is_said_and_its_runs_read_with_its_offset(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    """w2's run, stamped 2 h after collection, once left its outcome unknown
    (CANARY_AFTER_COLLECTION) and the bundle inconclusive. Read on the server's clock with
    w2's proven offset it ended before collection: the outcome passes, as with a right clock,
    and the skew is warned."""
    try:
        ahead = host_faults.skewed_clock("w2", "+2h", {"zone": "b"})
        behind = host_faults.skewed_clock("w3", "-90m", {"zone": "c"})
    except host_faults.ClockUnavailable as exc:
        need(False, str(exc))
        raise
    lab = flux_lab_factory(LabConfig(workers=(DEFAULT_WORKERS[0], ahead, behind)))
    host_faults.runs_on(lab, "w1", "w2", "w3")
    doctor_lab(lab, tmp_path / "clock.zip")
    report = analyze_json(tmp_path / "clock.zip", expect_rc=0)  # degraded: the skew warns

    def worker_ladder(worker: str) -> TargetReport:
        (target,) = [t for t in report.targets if t.worker == worker and t.job is None]
        return target

    def skew(worker: str) -> Finding:
        status, found = rung(worker_ladder(worker), Layer.HEARTBEAT)
        assert status is LayerStatus.WARN
        (finding,) = [f for f in found if f.code == "FLUX_WORKER_CLOCK_SKEW"]
        assert finding.recovery is not None
        # bounded by a run's stamps or by its registration's log lines, whichever is tighter
        assert any(c.member.startswith(("raw/http/execution-", "hosts/")) for c in finding.evidence)
        return finding

    two_hours_ahead = skew("w2")
    assert 7200 - 120 < two_hours_ahead.details["skew_s"] <= 7200
    assert "is at least" in two_hours_ahead.message
    assert "ahead of the server's" in two_hours_ahead.message
    ninety_minutes_behind = skew("w3")
    assert -5400 <= ninety_minutes_behind.details["skew_s"] < -5400 + 60
    assert "behind the server's" in ninety_minutes_behind.message
    for worker in ("w2", "w3"):
        outcome, found = rung(worker_ladder(worker), Layer.OUTCOME)
        assert outcome is LayerStatus.PASS, found
        assert worker_ladder(worker).verdict is Verdict.DEGRADED

    on_time = [
        f.code
        for t in report.targets
        if t.worker == "w1"
        for rung in t.layers
        for f in rung.findings
    ]
    assert "FLUX_WORKER_CLOCK_SKEW" not in on_time


def test_a_worker_clock_off_is_said_from_its_registration_when_it_ran_nothing(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    """w2 runs 90 min behind and has run nothing: no run bounds its clock, and the analysis
    read it healthy. Its log's registration lines, against the server's line registering it,
    bound the offset: the skew is warned, citing both logs."""
    try:
        behind = host_faults.skewed_clock("w2", "-90m", {"zone": "b"})
    except host_faults.ClockUnavailable as exc:
        need(False, str(exc))
        raise
    lab = flux_lab_factory(LabConfig(workers=(DEFAULT_WORKERS[0], behind)))
    doctor_lab(lab, tmp_path / "idle.zip")
    report = analyze_json(tmp_path / "idle.zip", expect_rc=0)

    (target,) = [t for t in report.targets if t.worker == "w2" and t.job is None]
    status, found = rung(target, Layer.HEARTBEAT)
    assert status is LayerStatus.WARN
    (finding,) = [f for f in found if f.code == "FLUX_WORKER_CLOCK_SKEW"]
    # What is proven is "at least so far behind": never more than the 90 minutes (give or take
    # Flux's whole-second stamps), less by however long the registration took on a busy machine
    assert -5402 <= finding.details["skew_s"] <= -5340
    assert "its log says its connection was established" in finding.message
    cited = [c for c in finding.evidence if c.member.startswith("hosts/")]
    assert len({c.member for c in cited}) == 2  # the worker's line and the server's
    assert all(c.lines is not None for c in cited)
    (on_time,) = [t for t in report.targets if t.worker == "w1" and t.job is None]
    assert on_time.verdict is Verdict.HEALTHY
