"""The *Worker Recovery and Serviceability* guide's acceptance checklist, read off each ladder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.analyze.checklist import BOUNDED_CANARY
from bundler.analyze.engine import analyze
from bundler.cli import cli
from schemas import TargetReport
from schemas.evidence import ConnectionState, HealthState
from tests.support.evidence import Fleet, write_bundle_dir


def _checks(report_target: TargetReport) -> dict[str, str]:
    return {c.check: c.status for c in report_target.acceptance}


def test_recovered_worker_passes_all_seven(fleet: Fleet) -> None:
    [target, _] = analyze(fleet.evidence()).targets
    checks = _checks(target)
    assert len(checks) == 7
    assert set(checks.values()) == {"pass"}


def test_skipped_rungs_are_unknown_never_pass(fleet: Fleet) -> None:
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    [target] = analyze(fleet.evidence(), job="ingest").targets
    checks = _checks(target)
    assert checks["recent heartbeat and system information"] == "fail"
    assert checks[BOUNDED_CANARY] == "unknown"
    assert checks["no unresolved runtime-requirements blockers"] == "unknown"


def test_a_warning_fails_its_check_but_advice_does_not(fleet: Fleet) -> None:
    fleet.worker("w1").health = HealthState.UNHEALTHY
    target = analyze(fleet.evidence(), job="ingest").targets[0]
    assert _checks(target)["recent heartbeat and system information"] == "fail"
    fleet.worker("w1").health = HealthState.HEALTHY
    assert fleet.authorization is not None
    fleet.authorization.workers[0].enrollment_key_still_configured = True
    target = analyze(fleet.evidence(), job="ingest").targets[0]
    assert _checks(target)["valid runtime authorization (external workers)"] == "pass"


def test_heartbeat_check_needs_system_information(fleet: Fleet) -> None:
    fleet.hosts = None
    w1 = fleet.worker("w1")
    w1.resources, w1.runtime = None, None
    target = analyze(fleet.evidence(), job="ingest").targets[0]
    assert _checks(target)["recent heartbeat and system information"] == "unknown"


def test_host_facts_are_not_the_workers_system_information(fleet: Fleet) -> None:
    """The worker's sysinfo request failed: the host the bundler reached over SSH does not
    stand in for what the worker reports."""
    assert fleet.hosts is not None
    assert any(h.worker == "w1" for h in fleet.hosts.hosts)
    w1 = fleet.worker("w1")
    w1.resources, w1.runtime = None, None
    target = analyze(fleet.evidence(), job="ingest").targets[0]
    assert _checks(target)["recent heartbeat and system information"] == "unknown"


def test_receipt_check(fleet: Fleet) -> None:
    assert fleet.outcome is not None
    fleet.outcome.receipts[0].strength = "accepted"
    target = analyze(fleet.evidence(), job="ingest").targets[0]
    checks = _checks(target)
    assert checks[BOUNDED_CANARY] == "pass"
    assert checks["external receipt where the job has an external effect"] == "fail"
    fleet.outcome.canaries[0].receipt_required = False
    target = analyze(fleet.evidence(), job="ingest").targets[0]
    assert _checks(target)["external receipt where the job has an external effect"] == (
        "not_applicable"
    )


def test_missing_receipt_fails_receipt_not_canary(fleet: Fleet) -> None:
    assert fleet.outcome is not None
    fleet.outcome.receipts = []
    checks = _checks(analyze(fleet.evidence(), job="ingest").targets[0])
    assert checks[BOUNDED_CANARY] == "pass"
    assert checks["external receipt where the job has an external effect"] == "fail"


def test_uncollected_receipts_leave_the_receipt_check_unknown(fleet: Fleet) -> None:
    assert fleet.outcome is not None
    fleet.outcome.receipts = []
    fleet.outcome.complete = False
    fleet.outcome.gaps = ["http.canary-receipts.000"]
    checks = _checks(analyze(fleet.evidence(), job="ingest").targets[0])
    assert checks[BOUNDED_CANARY] == "pass"
    assert checks["external receipt where the job has an external effect"] == "unknown"


@pytest.mark.parametrize("reported_first", [False, True])
def test_system_information_one_of_two_records_lacks_is_unknown(
    tmp_path: Path, fleet: Fleet, reported_first: bool
) -> None:
    """w2 listed twice, alike but for its system information, which one record lacks: the
    heartbeat rung passes on what both say, but the check needs what only one reports."""
    assert fleet.workers is not None
    bare = fleet.worker("w2").model_copy(update={"runtime": None, "resources": None})
    fleet.workers.workers.insert(2 if reported_first else 1, bare)
    bundle = write_bundle_dir(fleet, tmp_path / "b")
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--worker", "w2", "--format", "json"])
    [target] = json.loads(result.stdout)["targets"]
    heartbeat = next(layer for layer in target["layers"] if layer["name"] == "heartbeat")
    assert heartbeat["status"] == "pass"
    checks = {c["check"]: c["status"] for c in target["acceptance"]}
    assert checks["recent heartbeat and system information"] == "unknown"
