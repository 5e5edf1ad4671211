"""A receipt the bundle could not bring back is unknown, not a receipt that never came.

From the committed ``lyftdata-healthy`` sample (edge-01's canary of ingest-events succeeded
with its receipt). Before, when the receipts request failed (HTTP 503) or its member was
lost from an extracted bundle, ``analyze`` said "BLOCKED at outcome: the external receipt it
requires never came" (exit 1): a verdict on evidence the bundle does not hold. Now the rung
is unknown with ``RECEIPTS_UNREAD`` and the verdict inconclusive (exit 3).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

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
    assert checks["successful bounded canary"] == "pass"
    assert checks["external receipt where the job has an external effect"] == "unknown"


def test_the_sample_as_collected_passes(tmp_path: Path) -> None:
    code, rung, _ = _outcome(write_sample_dir("lyftdata-healthy", tmp_path / "b", {}))
    assert (code, rung["status"]) == (0, "pass")


def test_a_failed_receipts_request_is_unknown(tmp_path: Path) -> None:
    bundle = write_sample_dir("lyftdata-healthy", tmp_path / "b", {})
    (bundle / RECEIPTS).unlink()
    manifest_path = bundle / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["members"] = [m for m in manifest["members"] if m["path"] != RECEIPTS]
    [collector] = [c for c in manifest["collectors"] if c["id"] == COLLECTOR]
    collector.update(
        status="failed",
        error_class="http",
        error_message="HTTP 503 Service Unavailable",
        members=[],
        bytes=0,
    )
    collector["http"]["status_code"] = 503
    manifest_path.write_text(json.dumps(manifest))
    _assert_unknown(bundle)


def test_a_receipts_member_lost_from_the_folder_is_unknown(tmp_path: Path) -> None:
    bundle = write_sample_dir("lyftdata-healthy", tmp_path / "b", {})
    (bundle / RECEIPTS).unlink()
    (bundle / "evidence" / "outcome.json").unlink()  # the stored evidence went with it
    _assert_unknown(bundle)
