"""``bundler analyze`` on real sealed bundles (the archive's writer and hostile-proof reader)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from bundler.cli import cli
from schemas.evidence import ConnectionState
from tests.support import archive
from tests.support.evidence import Fleet

LOG = b"".join(b"2026-11-29 17:00:00 - flux.server - INFO - line %d\n" % i for i in range(2000))


def _sealed(tmp_path: Path, fleet: Fleet) -> Path:
    source = fleet.source()
    members = {name: source.read_bytes(name) for name in source.names()}
    members["hosts/h01/logs/1.log"] = LOG
    return archive.build_bundle(tmp_path / "support.zip", members, profile="test").path


def _analyze(path: Path, *args: str, password: str | None = None) -> tuple[int, str, str]:
    env = {"BUNDLE_PW": password or archive.PASSWORD}
    result = CliRunner().invoke(
        cli, ["analyze", str(path), "--password-env", "BUNDLE_PW", *args], env=env
    )
    return result.exit_code, result.stdout, result.stderr


def test_sealed_bundle_is_analyzed_and_verified(tmp_path: Path, fleet: Fleet) -> None:
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    code, out, err = _analyze(_sealed(tmp_path, fleet), "--format", "json")
    assert code == 1, err
    data = json.loads(out)
    assert data["first_failed_layer"] == "heartbeat"
    assert data["bundle"]["integrity"] == {"status": "verified", "problems": []}
    assert data["bundle"]["bundle_id"]


def test_wrong_password_is_a_one_line_error(tmp_path: Path, fleet: Fleet) -> None:
    code, out, err = _analyze(_sealed(tmp_path, fleet), password="not the password at all")
    assert code == 2
    assert out == ""
    assert err.splitlines()[0] == "bundler: error: wrong password for this bundle"


def test_tampered_member_is_analyzed_and_flagged(tmp_path: Path, fleet: Fleet) -> None:
    path = _sealed(tmp_path, fleet)
    archive.flip_byte(path, archive.data_offset(path, "evidence/outcome.json") + 5)
    code, out, _ = _analyze(path, "--format", "json", "--job", "ingest")
    data = json.loads(out)
    assert data["bundle"]["integrity"]["status"] == "tampered"
    assert any("evidence/outcome.json" in p for p in data["bundle"]["integrity"]["problems"])
    outcome = data["targets"][0]["layers"][-1]
    assert outcome["status"] == "unknown"  # the damaged evidence is not believed
    assert code == 3


def test_tampered_log_is_flagged_after_a_full_read(tmp_path: Path, fleet: Fleet) -> None:
    path = _sealed(tmp_path, fleet)
    archive.flip_byte(path, archive.data_offset(path, "hosts/h01/logs/1.log") + 100)
    code, out, _ = _analyze(path, "--format", "json")
    data = json.loads(out)
    # Every rung passes on evidence that verified, but the bundle as a whole did not:
    # no verdict of health (it was HEALTHY, exit 0, before).
    assert code == 3
    assert data["verdict"] == "inconclusive"
    assert "BUNDLE_NOT_VERIFIED" in [f["code"] for f in data["fleet_findings"]]
    assert data["bundle"]["integrity"]["status"] == "tampered"


def test_an_invalid_manifest_gives_no_verdict_of_health(tmp_path: Path, fleet: Fleet) -> None:
    """No valid manifest, no checksums: the stored evidence would be believed unchecked."""
    source = fleet.source()
    members = {name: source.read_bytes(name) for name in source.names()}
    manifest = json.loads(archive.manifest_for(members))
    manifest["collectors"] = [
        {"id": "http.workers", "kind": "http", "target": "cp", "status": "error"}
    ]
    path = archive.craft_bundle(tmp_path / "b.zip", members, manifest=json.dumps(manifest).encode())
    code, out, _ = _analyze(path, "--format", "json")
    data = json.loads(out)
    assert code == 3
    assert data["bundle"]["integrity"]["status"] != "verified"
    assert "BUNDLE_NOT_VERIFIED" in [f["code"] for f in data["fleet_findings"]]
