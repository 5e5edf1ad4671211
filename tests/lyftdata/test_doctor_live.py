"""``bundler doctor --profile lyftdata --json`` through the real CLI, without a bundle.

The collection half of the end-to-end path: the real engine runs the LyftData
plan against the simulator (HTTPS, bearer token) and real sshd hosts serving
the prepared state directories. What it collected, skipped and could not
reach must match the scenario; the simulator must have seen only GETs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.lyftdata_fleet import lyftdata_fleet, run_bundler

pytestmark = [pytest.mark.sshd]

TOKEN_ENV = {"LYFTDATA_API_TOKEN": "sim-token"}
CLI_STEPS = ("cli-doctor", "cli-worker-status", "cli-worker-sysinfo", "cli-worker-logs")


def live(scenario: str, workdir: Path, *, trust_ca: bool = True) -> tuple[int, dict[str, Any]]:
    with lyftdata_fleet(scenario, workdir) as fleet:
        done = run_bundler(*fleet.doctor_args(trust_ca=trust_ca), "--json", env=TOKEN_ENV)
        methods = {r["method"] for r in fleet.sim.requests()}
    assert methods == {"GET"}
    assert done.stdout, done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout)


def _ids(entries: list[dict[str, Any]]) -> set[str]:
    return {e["id"] for e in entries}


def test_healthy_fleet_collects_everything(tmp_path: Path) -> None:
    exit_code, summary = live("healthy", tmp_path)
    assert exit_code == summary["exit_code"] == 0
    assert summary["problems"] == []
    assert summary["skipped"] == []
    assert summary["collected"] == summary["total"]
    assert [h["worker"] for h in summary["hosts"]] == ["edge-01"]


def test_host_without_the_cli_records_skips_not_failures(tmp_path: Path) -> None:
    exit_code, summary = live("heartbeat_stale", tmp_path)
    assert summary["problems"] == []
    assert _ids(summary["skipped"]) == {f"ssh.h01.{step}" for step in CLI_STEPS}
    assert all("not installed" in s["message"] for s in summary["skipped"])
    assert exit_code == summary["exit_code"]
    assert exit_code in (0, 1)  # 1 once the live verdict (analyzer) is on main


def test_untrusted_certificate_is_refused_and_hosts_still_collected(tmp_path: Path) -> None:
    exit_code, summary = live("tls_untrusted", tmp_path, trust_ca=False)
    http = [p for p in summary["problems"] if p["id"].startswith("http.")]
    assert http
    assert {p["error_class"] for p in http} == {"TLSVerifyFailed"}
    assert not [p for p in summary["problems"] if p["id"].startswith("ssh.")]
    assert exit_code == summary["exit_code"]
    assert exit_code in (1, 5)


def test_rejected_token_is_refused(tmp_path: Path) -> None:
    _, summary = live("token_rejected", tmp_path)
    http = [p for p in summary["problems"] if p["id"].startswith("http.")]
    assert http
    assert all(p["status"] == "refused" for p in http)


def test_two_worker_hosts_in_one_run(tmp_path: Path) -> None:
    _, summary = live("fleet_mixed", tmp_path)
    assert [h["alias"] for h in summary["hosts"]] == ["h01", "h02"]
    assert summary["problems"] == []
    skipped = _ids(summary["skipped"])
    assert {f"ssh.h02.{step}" for step in CLI_STEPS} <= skipped
    assert not any(s.startswith("ssh.h01.") for s in skipped)
