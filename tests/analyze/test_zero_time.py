"""Year 1 in a bundle: printed with four digits, and Go's zero time read as "never", not a moment.

``0001-01-01T00:00:00Z`` is Go's zero ``time.Time``: what a Go server writes for a heartbeat
it never received or a run that never ended. glibc's ``strftime`` printed its year as ``1``
(``1-01-01``), and judged as a moment it made a worker 63 billion seconds silent (blocked,
WORKER_HEARTBEAT_LOST) and a canary older than any deployment. It is no heartbeat time at
all: unknown (WORKER_HEARTBEAT_UNDATED), as for a heartbeat the bundle has no time for. Each
case is a bundle written to disk and read by the real CLI.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from schemas.evidence import CanaryRun, ConnectionState, JobPhase, LicenseInfo
from tests.support.archive import PASSWORD, craft_bundle, manifest_for
from tests.support.evidence import T0, Fleet, healthy_fleet, write_bundle_dir
from tests.support.sample_bundles import load_sample, write_sample_dir

ZERO = datetime(1, 1, 1, tzinfo=UTC)
ZERO_TEXT = "0001-01-01T00:00:00Z"
UNPADDED = re.compile(r"(?<![\d-])1-01-01")
"""A year-1 date as glibc's %Y wrote it."""


def _analyze(bundle: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["analyze", str(bundle), *args])
    assert result.exit_code in (0, 1, 3), result.stderr
    return result.exit_code, result.stdout


def _rung(report: dict[str, Any], worker: str, name: str) -> dict[str, Any]:
    target = next(t for t in report["targets"] if t["worker"] == worker)
    return next(layer for layer in target["layers"] if layer["name"] == name)


def test_a_year_one_date_reads_with_four_digits_in_every_format(tmp_path: Path) -> None:
    """A lease and a license that expire at the zero time, in a bundle created at it."""
    fleet = healthy_fleet()
    assert fleet.authorization is not None
    assert fleet.server is not None
    lease = fleet.authorization.workers[0].lease
    assert lease is not None
    lease.expires_at = ZERO
    fleet.server.license = LicenseInfo(state="expired", expires_at=ZERO)
    bundle = write_bundle_dir(fleet, tmp_path / "b", created_at=ZERO)
    for fmt in ("text", "markdown", "json", "html"):
        _, out = _analyze(bundle, "--format", fmt)
        assert "0001-01-01" in out, fmt
        assert not UNPADDED.search(out), (fmt, UNPADDED.search(out))
    report = json.loads(_analyze(bundle, "--format", "json")[1])
    said = [f["message"] for f in _rung(report, "w1", "authorization")["findings"]]
    assert any("expires at 0001-01-01 00:00:00Z, the zero time" in m for m in said), said


def test_a_diff_of_a_bundle_created_in_year_one_reads_four_digits(tmp_path: Path) -> None:
    before = write_bundle_dir(healthy_fleet(), tmp_path / "before", created_at=ZERO)
    after = write_bundle_dir(healthy_fleet(), tmp_path / "after")
    for fmt in ("text", "markdown", "html"):
        result = CliRunner().invoke(cli, ["diff", str(before), str(after), "--format", fmt])
        assert result.exit_code in (0, 1, 3), result.stderr
        assert "0001-01-01" in result.stdout, fmt
        assert not UNPADDED.search(result.stdout), fmt


@pytest.mark.parametrize("reported_age", [None, 63_871_286_400.0])
def test_a_heartbeat_at_the_zero_time_is_undated_not_lost(
    tmp_path: Path, reported_age: float | None
) -> None:
    """Listed online, heartbeat "never" (and an age a product measured from that "never")."""
    fleet: Fleet = healthy_fleet()
    worker = fleet.worker("w2")
    worker.last_heartbeat_at = ZERO
    worker.heartbeat_age_s = reported_age
    code, out = _analyze(write_bundle_dir(fleet, tmp_path / "b"), "--format", "json")
    report = json.loads(out)
    assert (code, report["verdict"]) == (3, "inconclusive")
    heartbeat = _rung(report, "w2", "heartbeat")
    assert heartbeat["status"] == "unknown"
    [finding] = heartbeat["findings"]
    assert finding["code"] == "WORKER_HEARTBEAT_UNDATED"
    assert "0001-01-01 00:00:00Z, the zero time a product writes for 'never'" in finding["message"]
    assert finding["evidence"][0]["pointer"] == "/workers/1/last_heartbeat_at"
    row = next(r for r in report["fleet"]["workers"] if r["name"] == "w2")
    assert (row["last_heartbeat_at"], row["heartbeat_age_s"]) == (None, None)


def test_a_canary_at_the_zero_time_proves_nothing_about_the_deployment(tmp_path: Path) -> None:
    """It is not a canary from before the deployment (a warning dated 1-01-01), nor one after
    it: whether it ran on the current revision is unknown."""
    fleet = healthy_fleet()
    assert fleet.outcome is not None
    assert fleet.deployments is not None
    fleet.deployments.deployments[0].job_deployments[0].state_since = T0 - timedelta(minutes=10)
    run = fleet.outcome.canaries[0]
    run.started_at = run.finished_at = ZERO
    code, out = _analyze(
        write_bundle_dir(fleet, tmp_path / "b"), "--format", "json", "--job", "ingest"
    )
    report = json.loads(out)
    assert (code, report["verdict"]) == (3, "inconclusive")
    outcome = _rung(report, "w1", "outcome")
    assert outcome["status"] == "unknown"
    codes = [f["code"] for f in outcome["findings"]]
    assert "CANARY_AGE_UNJUDGED" in codes
    assert "CANARY_PREDATES_DEPLOYMENT" not in codes
    unjudged = next(f for f in outcome["findings"] if f["code"] == "CANARY_AGE_UNJUDGED")
    assert "is dated 0001-01-01 00:00:00Z, the zero time" in unjudged["message"]


def test_a_lyftdata_worker_whose_heartbeat_is_go_zero_time_is_undated(tmp_path: Path) -> None:
    """The committed lyftdata-healthy sample, its worker list and status answering Go's zero
    time for the last heartbeat (and the age a server measures from it)."""
    sample = "lyftdata-healthy"
    source, _ = load_sample(sample)
    listed = json.loads(source.read_bytes("raw/http/workers.json"))
    status = json.loads(source.read_bytes("raw/http/worker-status/000.json"))
    for row in [*listed, status]:
        row["last_heartbeat_at"] = ZERO_TEXT
    status["heartbeat_age_s"] = 63_871_286_400.0
    changed = {
        "raw/http/workers.json": json.dumps(listed).encode(),
        "raw/http/worker-status/000.json": json.dumps(status).encode(),
    }
    bundle = write_sample_dir(sample, tmp_path / "b", changed)
    code, out = _analyze(bundle, "--format", "json")
    report = json.loads(out)
    assert report["bundle"]["integrity"]["status"] == "verified"
    assert (code, report["verdict"]) == (3, "inconclusive")
    heartbeat = _rung(report, "edge-01", "heartbeat")
    assert heartbeat["status"] == "unknown"
    assert [f["code"] for f in heartbeat["findings"]] == ["WORKER_HEARTBEAT_UNDATED"]


def test_a_worker_online_at_the_zero_time_is_chosen_as_a_target(tmp_path: Path) -> None:
    """Its ladder is walked even where other trouble fills the report (as a stale one's was)."""
    fleet = healthy_fleet()
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    fleet.worker("w2").last_heartbeat_at = ZERO
    fleet.worker("w2").heartbeat_age_s = None
    _, out = _analyze(write_bundle_dir(fleet, tmp_path / "b"), "--format", "json")
    reasons = {t["worker"]: t["reason"] for t in json.loads(out)["targets"]}
    assert "zero time" in reasons["w2"]


def test_inspect_shows_a_bundle_created_in_year_one_with_four_digits(tmp_path: Path) -> None:
    members = {"a.log": b"x\n"}
    manifest = manifest_for(members, created_at=ZERO.isoformat())
    path = craft_bundle(tmp_path / "b.zip", members, manifest=manifest)
    result = CliRunner().invoke(
        cli, ["inspect", str(path), "--password-env", "BUNDLE_PW"], env={"BUNDLE_PW": PASSWORD}
    )
    assert result.exit_code == 0, result.stderr
    assert "0001-01-01 00:00:00 UTC" in result.stdout
    assert not UNPADDED.search(result.stdout)


# --- leases ----------------------------------------------------------------------------------


@pytest.mark.parametrize("zero", [ZERO, datetime(1970, 1, 1, tzinfo=UTC)])
def test_a_lease_expiring_at_the_zero_time_is_unknown_not_expired(
    tmp_path: Path, zero: datetime
) -> None:
    """Go's unset ExpiresAt: usually "no expiry recorded". Not LEASE_EXPIRED (a false cause),
    not a pass (nothing shows the lease valid): unknown, saying what to check."""
    fleet = healthy_fleet()
    assert fleet.authorization is not None
    lease = fleet.authorization.workers[0].lease
    assert lease is not None
    lease.expires_at = zero
    code, out = _analyze(
        write_bundle_dir(fleet, tmp_path / "b"), "--format", "json", "--job", "ingest"
    )
    report = json.loads(out)
    assert (code, report["verdict"]) == (3, "inconclusive")
    rung = _rung(report, "w1", "authorization")
    assert rung["status"] == "unknown"
    [finding] = rung["findings"]
    assert finding["code"] == "LEASE_EXPIRY_ZERO_TIME"
    assert "the zero time" in finding["message"]
    assert (
        "no expiry" not in finding["message"]
        or "usually means none was recorded" in (finding["message"])
    )
    assert finding["evidence"][0]["pointer"] == "/workers/0/lease/expires_at"
    assert "real expiry after collection" in finding["acceptance"][0]


def test_a_lease_that_expired_at_a_real_moment_still_fails(tmp_path: Path) -> None:
    fleet = healthy_fleet()
    assert fleet.authorization is not None
    lease = fleet.authorization.workers[0].lease
    assert lease is not None
    lease.expires_at = T0 - timedelta(minutes=1)
    code, out = _analyze(
        write_bundle_dir(fleet, tmp_path / "b"), "--format", "json", "--job", "ingest"
    )
    rung = _rung(json.loads(out), "w1", "authorization")
    assert (code, rung["status"]) == (1, "fail")
    assert [f["code"] for f in rung["findings"]] == ["LEASE_EXPIRED"]


def test_a_lease_the_product_calls_expired_fails_without_a_year_one_date(tmp_path: Path) -> None:
    """The product's own decision stands; the message does not date it in year 1."""
    fleet = healthy_fleet()
    assert fleet.authorization is not None
    entry = fleet.authorization.workers[0]
    assert entry.lease is not None
    entry.lease.expires_at = ZERO
    entry.decision = "expired"
    _, out = _analyze(
        write_bundle_dir(fleet, tmp_path / "b"), "--format", "json", "--job", "ingest"
    )
    rung = _rung(json.loads(out), "w1", "authorization")
    assert rung["status"] == "fail"
    [finding] = [f for f in rung["findings"] if f["code"] == "LEASE_EXPIRED"]
    assert "0001" not in finding["message"]


# --- job and run times -----------------------------------------------------------------------


def test_a_deployment_pending_since_the_zero_time_is_not_pending_since_year_one(
    tmp_path: Path,
) -> None:
    fleet = healthy_fleet()
    assert fleet.deployments is not None
    jd = fleet.deployments.deployments[0].job_deployments[0]
    jd.state, jd.state_since = "delivering", ZERO
    _, out = _analyze(
        write_bundle_dir(fleet, tmp_path / "b"), "--format", "json", "--job", "ingest"
    )
    rung = _rung(json.loads(out), "w1", "deployment")
    [finding] = [f for f in rung["findings"] if f["code"] == "DEPLOYMENT_IN_PROGRESS"]
    assert "since 0001" not in finding["message"]
    assert "the zero time: undated" in finding["message"]


def test_a_failed_canary_at_the_zero_time_leaves_the_latest_run_unknown(tmp_path: Path) -> None:
    """Read as a moment the zero time made the failed run the oldest, and the successful one
    passed: which of the two ran last is unknown."""
    fleet = healthy_fleet()
    assert fleet.outcome is not None
    fleet.outcome.canaries.append(
        CanaryRun(
            canary_id="c0",
            job="ingest",
            worker="w1",
            phase="failed",
            started_at=ZERO,
            finished_at=ZERO,
            errors=1,
        )
    )
    code, out = _analyze(
        write_bundle_dir(fleet, tmp_path / "b"), "--format", "json", "--job", "ingest"
    )
    report = json.loads(out)
    assert (code, report["verdict"]) == (3, "inconclusive")
    outcome = _rung(report, "w1", "outcome")
    assert outcome["status"] == "unknown"
    [finding] = outcome["findings"]
    assert finding["code"] == "RUN_ORDER_UNDATED"
    assert "c0 failed, ended at 0001-01-01 00:00:00Z, the zero time" in finding["message"]
    assert [e["pointer"] for e in finding["evidence"]] == [
        "/canaries/0/finished_at",
        "/canaries/1/finished_at",
    ]


def test_a_zero_dated_run_that_ended_the_same_way_changes_nothing(tmp_path: Path) -> None:
    fleet = healthy_fleet()
    assert fleet.outcome is not None
    first = fleet.outcome.canaries[0]
    fleet.outcome.canaries.append(
        first.model_copy(update={"canary_id": "c0", "started_at": ZERO, "finished_at": ZERO})
    )
    code, out = _analyze(
        write_bundle_dir(fleet, tmp_path / "b"), "--format", "json", "--job", "ingest"
    )
    assert (code, _rung(json.loads(out), "w1", "outcome")["status"]) == (0, "pass")


def test_a_diff_against_a_before_collected_at_the_zero_time_is_not_recovered(
    tmp_path: Path,
) -> None:
    """BEFORE "collected in year 1" is no lower bound: every canary is newer than it."""
    before = write_bundle_dir(healthy_fleet(), tmp_path / "before", created_at=ZERO)
    after = write_bundle_dir(healthy_fleet(), tmp_path / "after")
    result = CliRunner().invoke(cli, ["diff", str(before), str(after), "--format", "json"])
    assert result.exit_code in (0, 1, 3), result.stderr
    report = json.loads(result.stdout)
    assert report["verdict"] != "recovered"
    assert any("the zero time" in doubt for doubt in report["doubts"]), report["doubts"]
    newer = [c for c in report["acceptance"] if "newer than BEFORE" in c["check"]]
    assert newer
    assert all(c["status"] != "pass" for c in newer), newer


def _undated_failure_beside_a_success(fleet: Fleet, stamp: datetime | None) -> None:
    """ingest-0 failed at ``stamp``; ingest-1, the fixture's run, runs since a dated time."""
    assert fleet.jobs is not None
    failed = fleet.job("ingest").model_copy(
        update={
            "id": "ingest-0",
            "phase": JobPhase.FAILED,
            "native_state": "FAILED",
            "error": "ValueError: bad input",
            "created_at": stamp,
            "updated_at": stamp,
        }
    )
    fleet.jobs.jobs.insert(0, failed)


@pytest.mark.parametrize("stamp", [ZERO, datetime(1970, 1, 1, tzinfo=UTC), None])
def test_a_failed_run_at_the_zero_time_beside_a_later_success_is_possibly_current(
    tmp_path: Path, stamp: datetime | None
) -> None:
    """Sorted as the oldest, the undated failure was 'history' beside any dated success: no
    target, verdict healthy. It may be the latest run: a target, whose outcome is unknown."""
    fleet = healthy_fleet()
    _undated_failure_beside_a_success(fleet, stamp)
    code, out = _analyze(write_bundle_dir(fleet, tmp_path / "b"), "--format", "json")
    report = json.loads(out)
    assert (code, report["verdict"]) == (3, "inconclusive")
    [target] = [t for t in report["targets"] if t["job_id"] == "ingest-0"]
    assert target["reason"].startswith("last run failed, undated: it may be later")
    outcome = next(layer for layer in target["layers"] if layer["name"] == "outcome")
    assert outcome["status"] == "unknown"
    [finding] = outcome["findings"]
    assert finding["code"] == "JOB_RUN_ORDER_UNDATED"
    assert "execution ingest-0 of ingest" in finding["message"]
    assert "execution ingest-1 of ingest running at" in finding["message"]
    # an undated record is cited whole: the document has no updated_at to point at
    assert [e["pointer"] for e in finding["evidence"]] == [
        "/jobs/0/updated_at" if stamp is not None else "/jobs/0",
        "/jobs/1/updated_at",
    ]


def test_a_dated_failure_beside_an_undated_success_is_not_blamed(tmp_path: Path) -> None:
    """The other way round: the success may be the later run, so the failure is no cause."""
    fleet = healthy_fleet()
    _undated_failure_beside_a_success(fleet, T0 - timedelta(minutes=3))
    assert fleet.jobs is not None
    running = next(j for j in fleet.jobs.jobs if j.id == "ingest-1")
    running.created_at = running.updated_at = ZERO
    _, out = _analyze(write_bundle_dir(fleet, tmp_path / "b"), "--format", "json")
    [target] = [t for t in json.loads(out)["targets"] if t["job_id"] == "ingest-0"]
    outcome = next(layer for layer in target["layers"] if layer["name"] == "outcome")
    assert outcome["status"] == "unknown"
    assert [f["code"] for f in outcome["findings"]] == ["JOB_RUN_ORDER_UNDATED"]
    assert "execution ingest-0 of ingest (at " in outcome["findings"][0]["message"]


def test_a_dated_failure_after_a_dated_success_still_fails(tmp_path: Path) -> None:
    fleet = healthy_fleet()
    _undated_failure_beside_a_success(fleet, T0)
    code, out = _analyze(write_bundle_dir(fleet, tmp_path / "b"), "--format", "json")
    [target] = [t for t in json.loads(out)["targets"] if t["job_id"] == "ingest-0"]
    outcome = next(layer for layer in target["layers"] if layer["name"] == "outcome")
    assert (code, target["reason"], outcome["status"]) == (
        1,
        "last run failed; assigned to w1",
        "fail",
    )
    assert [f["code"] for f in outcome["findings"]] == ["JOB_RUN_FAILED"]
