"""What the bundle could not bring back is unknown, never a fact: samples with one request failed.

From the committed ``lyftdata-healthy`` sample (edge-01's canary of ingest-events succeeded
with its receipt). Before, when the receipts request failed (HTTP 503) or its member was
lost from an extracted bundle, ``analyze`` said "BLOCKED at outcome: the external receipt it
requires never came" (exit 1): a verdict on evidence the bundle does not hold. Now the rung
is unknown with ``RECEIPTS_UNREAD`` and the verdict inconclusive (exit 3).

From ``lyftdata-fleet_mixed`` (edge-02 offline, archive-events placed on it): when the
placement request of archive-events timed out, edge-02 read as a leftover record nothing
depends on (``WORKER_OFFLINE_IDLE``, degraded, exit 0). Now it is inconclusive.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from bundler.analyze.checklist import BOUNDED_CANARY
from bundler.cli import cli
from tests.support.sample_bundles import write_sample_dir

RECEIPTS = "raw/http/canary-receipts/000.json"
COLLECTOR = "http.canary-receipts.000"


def _outcome(bundle: Path) -> tuple[int, dict[str, Any], dict[str, Any]]:
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json"])
    report = json.loads(result.stdout)
    [target] = report["targets"]
    [rung] = [layer for layer in target["layers"] if layer["name"] == "outcome"]
    checks = {c["check"]: c["status"] for c in target["acceptance"]}
    return result.exit_code, rung, checks


def _assert_unknown(bundle: Path) -> None:
    code, rung, checks = _outcome(bundle)
    assert code == 3
    assert rung["status"] == "unknown"
    assert [f["code"] for f in rung["findings"]] == ["RECEIPTS_UNREAD"]
    assert f"(gaps: {COLLECTOR})" in rung["findings"][0]["message"]
    assert checks[BOUNDED_CANARY] == "pass"
    assert checks["external receipt where the job has an external effect"] == "unknown"


def test_the_sample_as_collected_passes(tmp_path: Path) -> None:
    code, rung, _ = _outcome(write_sample_dir("lyftdata-healthy", tmp_path / "b", {}))
    assert (code, rung["status"]) == (0, "pass")


def _fail(bundle: Path, collector_id: str) -> None:
    """Make ``collector_id`` a request that failed (HTTP 503), its member never written."""
    manifest_path = bundle / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    [collector] = [c for c in manifest["collectors"] if c["id"] == collector_id]
    for member in collector["members"]:
        (bundle / member).unlink()
    manifest["members"] = [m for m in manifest["members"] if m["path"] not in collector["members"]]
    collector.update(
        status="failed",
        error_class="http",
        error_message="HTTP 503 Service Unavailable",
        members=[],
        bytes=0,
    )
    collector["http"]["status_code"] = 503
    manifest_path.write_text(json.dumps(manifest))


def test_a_failed_receipts_request_is_unknown(tmp_path: Path) -> None:
    bundle = write_sample_dir("lyftdata-healthy", tmp_path / "b", {})
    _fail(bundle, COLLECTOR)
    _assert_unknown(bundle)


def test_an_offline_worker_whose_dependents_were_not_all_collected_is_unknown(
    tmp_path: Path,
) -> None:
    sample = write_sample_dir("lyftdata-fleet_mixed", tmp_path / "whole", {})
    assert CliRunner().invoke(cli, ["analyze", str(sample)]).exit_code == 1  # edge-02 is down
    bundle = write_sample_dir("lyftdata-fleet_mixed", tmp_path / "b", {})
    _fail(bundle, "http.job-placement.001")  # archive-events', placed on edge-02
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json"])
    assert result.exit_code == 3
    report = json.loads(result.stdout)
    assert report["verdict"] == "inconclusive"
    [target] = report["targets"]
    [rung] = [layer for layer in target["layers"] if layer["name"] == "heartbeat"]
    assert rung["status"] == "unknown"
    assert [f["code"] for f in rung["findings"]] == ["WORKER_DEPENDENTS_UNKNOWN"]
    assert "(gaps: http.job-placement.001)" in rung["findings"][0]["message"]


def test_a_receipts_member_lost_from_the_folder_is_unknown(tmp_path: Path) -> None:
    bundle = write_sample_dir("lyftdata-healthy", tmp_path / "b", {})
    (bundle / RECEIPTS).unlink()
    (bundle / "evidence" / "outcome.json").unlink()  # the stored evidence went with it
    _assert_unknown(bundle)
