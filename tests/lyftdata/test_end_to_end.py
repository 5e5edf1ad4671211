"""Every scenario end to end, through the real CLI: doctor → encrypted bundle → analyze.

The simulator is a real HTTP(S) server process; the worker host is a real
OpenSSH sshd on 127.0.0.1 serving the scenario's prepared state directory,
with the stand-in tools first on its PATH (sshd ``SetEnv``). ``bundler
doctor --profile lyftdata`` collects over both, ``bundler analyze --format
json`` replays the ladder, and the scenario's ``expect`` block must hold.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from samples.lyftdata_sim.loader import load_scenario, scenario_names
from schemas import AnalysisReport
from tests.support.lyftdata_fleet import lyftdata_fleet, run_bundler

from .expectations import UNTRUSTED, assert_matches_expectation

pytestmark = [pytest.mark.sshd, pytest.mark.slow]

PASSWORD = "lyftdata-e2e-bundle-password"
CACHED_KEY = "LDWK-SIM-CACHED-KEY"
DOCTOR_EXIT = {"healthy": 0, "degraded": 0, "blocked": 1, "inconclusive": 3}


def doctor_then_analyze(
    scenario: str, workdir: Path
) -> tuple[subprocess.CompletedProcess[str], AnalysisReport]:
    bundle = workdir / "support.zip"
    env = {"LYFTDATA_API_TOKEN": "sim-token", "BUNDLE_PW": PASSWORD}
    with lyftdata_fleet(scenario, workdir) as f:
        timeout = load_scenario(scenario).client.timeout_s
        args = [
            *f.doctor_args(trust_ca=scenario not in UNTRUSTED),
            *(["--timeout", str(timeout)] if timeout is not None else []),
            "--bundle",
            str(bundle),
            "--password-env",
            "BUNDLE_PW",
        ]
        doctor = run_bundler(*args, env=env)
        writes = [r for r in f.sim.requests() if r["method"] != "GET"]
    assert writes == [], writes
    assert bundle.exists(), doctor.stderr[-2000:]
    analyzed = run_bundler(
        "analyze", str(bundle), "--password-env", "BUNDLE_PW", "--format", "json", env=env
    )
    assert analyzed.returncode in (0, 1, 3), analyzed.stderr[-2000:]
    assert CACHED_KEY not in analyzed.stdout
    return doctor, AnalysisReport.model_validate(json.loads(analyzed.stdout))


def collector_status(bundle: Path) -> dict[str, str]:
    """Collector id -> status, from the sealed bundle's manifest."""
    shown = run_bundler(
        "inspect", str(bundle), "--password-env", "BUNDLE_PW", "--json", env={"BUNDLE_PW": PASSWORD}
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    manifest = json.loads(shown.stdout)["manifest"]
    return {c["id"]: _status(c) for c in manifest["collectors"]}


def _status(collector: dict[str, str]) -> str:
    """``ok``, or the status with the collector's error, so a failure says why (in CI too)."""
    if collector["status"] not in ("failed", "timeout", "refused"):
        return collector["status"]
    why = f"{collector.get('error_class')}: {collector.get('error_message')}"
    return f"{collector['status']} ({why})" if collector.get("error_class") else collector["status"]


@pytest.mark.parametrize("name", scenario_names())
def test_scenario_end_to_end(name: str, tmp_path: Path) -> None:
    doctor, report = doctor_then_analyze(name, tmp_path)
    statuses = collector_status(tmp_path / "support.zip")
    for number, host in enumerate(load_scenario(name).hosts, start=1):
        alias = f"h{number:02d}"
        assert statuses[f"ssh.{alias}.state-listing"] == "ok"
        assert statuses[f"ssh.{alias}.sqlite-worker"] == "ok"
        assert statuses[f"ssh.{alias}.cli-doctor"] == ("ok" if host.cli else "skipped")
    assert_matches_expectation(report, load_scenario(name).expect)
    assert "live analysis failed" not in doctor.stderr, doctor.stderr[-2000:]
    # doctor's live verdict decides its exit: 0 healthy or degraded, 1 a layer failed,
    # 3 inconclusive; a collector that failed (a route that timed out) makes it 5 unless
    # a layer failed (bundler/collect/summary.py: exit_code).
    failed = any(status.startswith(("failed", "timeout")) for status in statuses.values())
    expected = DOCTOR_EXIT[report.verdict.value]
    if failed and expected != 1:
        expected = 5
    assert doctor.returncode == expected, doctor.stderr[-2000:]
