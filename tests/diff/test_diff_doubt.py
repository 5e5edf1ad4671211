"""``bundler diff`` never reads doubt as a repair: a pair that cannot prove one is not RECOVERED.

Each pair is two bundle directories laid out by ``write_bundle_dir`` from the
hand-made healthy fleet: BEFORE, collected ten minutes earlier, has a failed
canary; AFTER is healthy, its canary and receipt a minute old. That pair is
recovered (the control); each test then breaks one thing a real pair can get
wrong and runs the real CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from schemas import DiffReport
from schemas.evidence import ConnectionState
from schemas.manifest import TargetSummary
from tests.support.evidence import T0, Fleet, healthy_fleet, write_bundle_dir

SERVER = "https://cp.example:8443"
CANARY_NEWER = "successful canary newer than BEFORE"
RECEIPT_NEWER = "external receipt newer than BEFORE (where the job has an external effect)"


def incident() -> Fleet:
    fleet = healthy_fleet()
    assert fleet.outcome is not None
    fleet.outcome.canaries[0].phase = "failed"
    return fleet


def repaired() -> Fleet:
    """Healthy, with a receipt dated like its canary (a minute before collection)."""
    fleet = healthy_fleet()
    assert fleet.outcome is not None
    fleet.outcome.receipts[0].observed_at = T0 - timedelta(seconds=50)
    return fleet


def write_pair(
    root: Path,
    after: Fleet,
    *,
    before_fields: dict[str, Any] | None = None,
    after_fields: dict[str, Any] | None = None,
) -> tuple[Path, Path]:
    """BEFORE (the incident, collected at T0 - 10 min) and AFTER (``after``, at T0)."""
    before_fields = {
        "created_at": T0 - timedelta(minutes=10),
        "target": TargetSummary(server_url=SERVER),
    } | (before_fields or {})
    after_fields = {"target": TargetSummary(server_url=SERVER)} | (after_fields or {})
    return (
        write_bundle_dir(incident(), root / "before", **before_fields),
        write_bundle_dir(after, root / "after", **after_fields),
    )


def diff(
    before: Path, after: Path, fmt: str = "json", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bundler", "diff", str(before), str(after), "--format", fmt],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=os.environ | (env or {}),
    )


def report_of(result: subprocess.CompletedProcess[str]) -> DiffReport:
    assert result.returncode in (0, 1, 3), result.stderr
    return DiffReport.model_validate(json.loads(result.stdout))


def checks(report: DiffReport) -> dict[str, tuple[str, str | None]]:
    return {c.check: (c.status, c.detail) for c in report.acceptance}


def test_the_control_pair_is_recovered(tmp_path: Path) -> None:
    result = diff(*write_pair(tmp_path, repaired()))
    report = report_of(result)
    assert (result.returncode, report.verdict) == (0, "recovered"), report.acceptance
    assert report.warnings == []


def test_a_canary_and_receipt_dated_after_after_was_collected_prove_no_repair(
    tmp_path: Path,
) -> None:
    """They are "newer than BEFORE" only because a clock is wrong: the checks are unknown."""
    after = repaired()
    assert after.outcome is not None
    run = after.outcome.canaries[0]
    run.started_at = T0 + timedelta(days=180)
    run.finished_at = T0 + timedelta(days=180, seconds=9)
    after.outcome.receipts[0].observed_at = T0 + timedelta(days=180, seconds=14)
    result = diff(*write_pair(tmp_path, after))
    report = report_of(result)
    assert (result.returncode, report.verdict) == (3, "inconclusive")
    got = checks(report)
    assert got[CANARY_NEWER][0] == "unknown"
    assert "dated after AFTER was collected" in (got[CANARY_NEWER][1] or "")
    assert got[RECEIPT_NEWER][0] == "unknown"
    assert "dated after AFTER was collected" in (got[RECEIPT_NEWER][1] or "")
    assert report.after.verdict.value == "inconclusive"  # analyze on AFTER alone agrees


def test_a_canary_a_moment_after_collection_is_within_the_tolerance(tmp_path: Path) -> None:
    after = repaired()
    assert after.outcome is not None
    after.outcome.canaries[0].finished_at = T0 + timedelta(seconds=3)
    result = diff(*write_pair(tmp_path, after))
    assert (result.returncode, report_of(result).verdict) == (0, "recovered")


def test_a_pair_from_two_servers_is_inconclusive_and_says_why(tmp_path: Path) -> None:
    """Another fleet's health proves nothing about BEFORE's: warned, and never recovered."""
    other = {"target": TargetSummary(server_url="https://other.example:8443")}
    before, after = write_pair(tmp_path, repaired(), after_fields=other)
    result = diff(before, after)
    report = report_of(result)
    assert (result.returncode, report.verdict) == (3, "inconclusive")
    assert any("server differs" in w for w in report.warnings)
    assert "bundler: warning: the server differs" in result.stderr
    (doubt,) = report.doubts
    assert "another server (https://other.example:8443)" in doubt
    assert {status for status, _ in checks(report).values()} <= {"pass", "not_applicable"}
    text = diff(before, after, "text").stdout
    assert text.startswith("INCONCLUSIVE: nothing fails, but this pair cannot prove the recovery")
    assert f"cannot prove a repair: {doubt}" in text
    assert f"- **cannot prove a repair:** {doubt}" in diff(before, after, "markdown").stdout
    assert "another server (https://other.example:8443)" in diff(before, after, "html").stdout


def test_the_same_server_written_differently_is_one_server(tmp_path: Path) -> None:
    same = {"target": TargetSummary(server_url="HTTPS://CP.example:8443/")}
    result = diff(*write_pair(tmp_path, repaired(), after_fields=same))
    report = report_of(result)
    assert (result.returncode, report.verdict, report.doubts) == (0, "recovered", [])


def test_an_after_collected_before_before_is_inconclusive(tmp_path: Path) -> None:
    """AFTER's manifest dated before BEFORE's (swapped, or a clock behind): no repair shown.

    AFTER's own evidence is consistent (its canary is newer than BEFORE and older
    than its outcome was read), so only the pair's times are in doubt.
    """
    early = {"created_at": T0 - timedelta(minutes=20)}
    result = diff(*write_pair(tmp_path, repaired(), after_fields=early))
    report = report_of(result)
    assert (result.returncode, report.verdict) == (3, "inconclusive")
    assert any("were the two swapped?" in w for w in report.warnings)
    (doubt,) = report.doubts
    assert "was collected before BEFORE" in doubt
    assert checks(report)[CANARY_NEWER][0] == "pass"


def test_a_pair_in_doubt_that_still_fails_keeps_its_verdict(tmp_path: Path) -> None:
    """Doubts only keep a pair from recovered; a failure on AFTER is still a failure."""
    other = {"target": TargetSummary(server_url="https://other.example:8443")}
    result = diff(*write_pair(tmp_path, incident(), after_fields=other))
    report = report_of(result)
    assert (result.returncode, report.verdict) == (1, "still_failing")
    assert len(report.doubts) == 1


def test_an_after_without_a_heartbeat_time_or_with_an_incomplete_job_list_is_inconclusive(
    tmp_path: Path,
) -> None:
    """What ``analyze`` cannot decide on AFTER (its verdict inconclusive) is no recovery either."""
    undated = repaired()
    w1 = undated.worker("w1")
    w1.heartbeat_age_s = None
    w1.last_heartbeat_at = None
    result = diff(*write_pair(tmp_path / "undated", undated))
    report = report_of(result)
    assert (result.returncode, report.verdict) == (3, "inconclusive")
    assert checks(report)["recent heartbeat and system information"][0] == "unknown"

    cut = repaired()
    assert cut.jobs is not None
    cut.jobs.complete = False
    cut.jobs.gaps = ["http.jobs: timed out after 10s"]
    result = diff(*write_pair(tmp_path / "cut", cut))
    report = report_of(result)
    assert (result.returncode, report.verdict) == (3, "inconclusive")
    assert report.after.verdict.value == "inconclusive"


def test_an_after_whose_worker_list_is_over_the_json_cap_loses_no_worker(tmp_path: Path) -> None:
    """AFTER's worker list and capacity reports are stored whole but over the cap a reader
    parses: not read, so no repair is proven, the report names them, and its workers are of
    unknown presence, not gone (an unread list is no empty fleet)."""
    after = repaired()
    source = after.source()
    padded = {
        name: source.read_bytes(name) + b" " * (70_000 - len(source.read_bytes(name)))
        for name in ("evidence/workers.json", "evidence/capacity.json")
    }
    before, after_dir = write_pair(tmp_path, after, after_fields={"members": padded})
    result = diff(before, after_dir, env={"BUNDLER_MAX_JSON_BYTES": "64KiB"})
    report = report_of(result)
    assert (result.returncode, report.verdict) == (3, "inconclusive")
    presence = {c.subject: (c.before, c.after) for c in report.workers if c.field == "present"}
    assert presence == {
        "w1": (True, "unknown (incomplete worker list)"),
        "w2": (True, "unknown (incomplete worker list)"),
    }
    [over] = [f for f in report.findings if f.code == "EVIDENCE_OVER_LIMIT"]
    assert over.change == "new"
    assert "evidence/workers.json is 68.4 KiB, over the 64.0 KiB" in over.message
    text = diff(before, after_dir, "text", env={"BUNDLER_MAX_JSON_BYTES": "64KiB"}).stdout
    assert "w1: present True -> unknown (incomplete worker list)" in text


@pytest.mark.parametrize("online_first", [False, True])
def test_a_worker_after_lists_twice_differently_is_no_recovery_and_no_pick_by_order(
    tmp_path: Path, online_first: bool
) -> None:
    """AFTER names w1 (the incident's worker) twice, online and offline. Nothing says the repair
    worked, and the worker facts diff shows are each record's, whatever their order."""
    after = repaired()
    assert after.workers is not None
    down = after.worker("w1").model_copy(
        update={"connection": ConnectionState.OFFLINE, "native_status": "offline", "labels": {}}
    )
    after.workers.workers.insert(1 if online_first else 0, down)
    result = diff(*write_pair(tmp_path, after))
    report = report_of(result)
    assert (result.returncode, report.verdict) == (3, "inconclusive")
    w1 = {c.field: (c.before, c.after) for c in report.workers if c.subject == "w1"}
    assert w1["connection"] == ("online", "offline / online")
    assert "status" not in w1, "the product's status words are the connection's: said once"
    assert w1["labels"] == ({"zone": "a"}, '{"zone": "a"} / {}')


def test_a_canary_after_dates_at_the_zero_time_is_no_proof_either_way(tmp_path: Path) -> None:
    """Go's zero time for when the run finished is "never", not a run older than BEFORE:
    the check is unknown (the run carries no time), and its date is never printed 1-01-01."""
    after = repaired()
    assert after.outcome is not None
    run = after.outcome.canaries[0]
    run.started_at = run.finished_at = datetime(1, 1, 1, tzinfo=UTC)
    result = diff(*write_pair(tmp_path, after))
    report = report_of(result)
    assert (result.returncode, report.verdict) == (3, "inconclusive")
    assert checks(report)[CANARY_NEWER] == (
        "unknown",
        "w1 / ingest: the successful run carries no time",
    )
    assert "1-01-01" not in result.stdout


@pytest.mark.parametrize("failed_first", [False, True])
def test_a_deployment_after_lists_twice_differently_shows_each_record_whatever_the_order(
    tmp_path: Path, failed_first: bool
) -> None:
    """AFTER lists deployment dep-1 twice, its job deployment once active and once failed:
    the repair is not proven, and the deployment facts diff shows are each record's."""
    after = repaired()
    assert after.deployments is not None
    records = after.deployments.deployments
    failed = records[0].model_copy(deep=True)
    failed.job_deployments[0].state = "failed"
    failed.job_deployments[0].reason = "JOB_START_FAILED"
    records.insert(0 if failed_first else 1, failed)
    result = diff(*write_pair(tmp_path, after))
    report = report_of(result)
    assert (result.returncode, report.verdict) == (3, "inconclusive")
    job = {c.field: (c.before, c.after) for c in report.deployments if c.subject == "ingest on w1"}
    assert job == {
        "state": ("active", "active / failed"),
        "reason": (None, "JOB_START_FAILED / null"),
    }
