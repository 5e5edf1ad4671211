"""The *Worker Recovery and Serviceability* guide's acceptance checklist, read off each ladder."""

from __future__ import annotations

from bundler.analyze.engine import analyze
from schemas import TargetReport
from schemas.evidence import ConnectionState, HealthState
from tests.support.evidence import Fleet


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
    assert checks["successful bounded canary"] == "unknown"
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
    assert checks["successful bounded canary"] == "pass"
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
    assert checks["successful bounded canary"] == "pass"
    assert checks["external receipt where the job has an external effect"] == "fail"
