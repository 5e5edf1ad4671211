"""``bundler doctor --profile lyftdata --json`` through the real CLI, without a bundle.

The collection half of the end-to-end path: the real engine runs the LyftData
plan against the simulator (HTTPS, bearer token) and real sshd hosts serving
the prepared state directories; the simulator must have seen only GETs.
``--json`` prints the live verdict when the analyzer is installed (then the
scenario's expected rung must hold, with exit 1 for blocked) and the
collection summary otherwise (then what was collected, skipped and refused
must match the scenario).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from samples.lyftdata_sim.loader import load_scenario
from schemas import AnalysisReport
from tests.support.lyftdata_fleet import lyftdata_fleet, run_bundler

from .expectations import assert_matches_expectation

pytestmark = [pytest.mark.sshd]

TOKEN_ENV = {"LYFTDATA_API_TOKEN": "sim-token"}
SUMMARY_SCHEMA = "bundler.doctor-summary/1"
CLI_STEPS = ("cli-doctor", "cli-worker-status", "cli-worker-sysinfo", "cli-worker-logs")


def live(scenario: str, workdir: Path, *, trust_ca: bool = True) -> tuple[int, dict[str, Any]]:
    with lyftdata_fleet(scenario, workdir) as fleet:
        done = run_bundler(*fleet.doctor_args(trust_ca=trust_ca), "--json", env=TOKEN_ENV)
        methods = {r["method"] for r in fleet.sim.requests()}
    assert methods == {"GET"}
    assert done.stdout, done.stderr[-2000:]
    output: dict[str, Any] = json.loads(done.stdout)
    # always one schema: the analysis report, with the collection summary inside
    report = AnalysisReport.model_validate(output)
    assert output["collection"]["schema"] == SUMMARY_SCHEMA
    if not any(f.code == "NO_LADDER" for f in report.fleet_findings):
        assert_matches_expectation(report, load_scenario(scenario).expect)
        assert done.returncode == (0 if report.verdict.value == "healthy" else 1), done.stderr
    return done.returncode, output


def summary_of(output: dict[str, Any]) -> dict[str, Any] | None:
    """The collection summary inside the report."""
    summary: dict[str, Any] | None = output.get("collection")
    return summary


def _ids(entries: list[dict[str, Any]]) -> set[str]:
    return {e["id"] for e in entries}


def test_healthy_fleet_collects_everything(tmp_path: Path) -> None:
    exit_code, output = live("healthy", tmp_path)
    assert exit_code == 0
    if (summary := summary_of(output)) is not None:
        assert summary["problems"] == []
        assert summary["skipped"] == []
        assert summary["collected"] == summary["total"]
        assert [h["worker"] for h in summary["hosts"]] == ["edge-01"]
    else:
        assert output["bundle"]["collectors_failed"] == []


def test_host_without_the_cli_records_skips_not_failures(tmp_path: Path) -> None:
    exit_code, output = live("heartbeat_stale", tmp_path)
    summary = summary_of(output)
    assert summary is not None
    assert summary["problems"] == []
    assert _ids(summary["skipped"]) == {f"ssh.h01.{step}" for step in CLI_STEPS}
    assert all("not installed" in s["message"] for s in summary["skipped"])
    assert exit_code == summary["exit_code"] == 1  # the verdict: heartbeat fails
    assert output["bundle"]["collectors_failed"] == []


def test_untrusted_certificate_is_refused_and_hosts_still_collected(tmp_path: Path) -> None:
    _, output = live("tls_untrusted", tmp_path, trust_ca=False)
    if (summary := summary_of(output)) is not None:
        http = [p for p in summary["problems"] if p["id"].startswith("http.")]
        assert http
        assert {p["error_class"] for p in http} == {"TLSVerifyFailed"}
        assert not [p for p in summary["problems"] if p["id"].startswith("ssh.")]
    else:
        failed = output["bundle"]["collectors_failed"]
        assert failed
        assert all(entry.startswith("http.") for entry in failed)


def test_rejected_token_is_refused(tmp_path: Path) -> None:
    _, output = live("token_rejected", tmp_path)
    if (summary := summary_of(output)) is not None:
        http = [p for p in summary["problems"] if p["id"].startswith("http.")]
        assert http
        assert all(p["status"] == "refused" for p in http)
    else:
        http = [e for e in output["bundle"]["collectors_failed"] if e.startswith("http.")]
        assert http
        assert all("refused" in entry and "401" in entry for entry in http)


def test_two_worker_hosts_in_one_run(tmp_path: Path) -> None:
    _, output = live("fleet_mixed", tmp_path)
    if (summary := summary_of(output)) is not None:
        assert [h["alias"] for h in summary["hosts"]] == ["h01", "h02"]
        assert summary["problems"] == []
        skipped = _ids(summary["skipped"])
        assert {f"ssh.h02.{step}" for step in CLI_STEPS} <= skipped
        assert not any(s.startswith("ssh.h01.") for s in skipped)
    else:
        assert output["bundle"]["collectors_total"] > 40
