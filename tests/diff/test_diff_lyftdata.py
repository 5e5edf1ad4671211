"""``bundler diff`` on LyftData simulator pairs: the incident's bundle, then one after the repair.

Each bundle is collected by the real doctor (in-process, HTTPS to a real
simulator process and this machine as the worker host). The repaired side is
the healthy scenario with its canary run *after* the incident's bundle, as an
engineer runs one once the repair is done. Both simulators listen on the same
port, one after the other: one server URL, as a real before/after pair has (a
pair from two servers is never recovered).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bundler.cli.options import SealOptions
from bundler.doctor.request import DoctorRequest
from bundler.doctor.run import run_doctor
from bundler.products.lyftdata import PROFILE
from samples.lyftdata_sim.loader import SCENARIO_DIR
from schemas import DiffReport
from tests.support.lyftdata_sim import RunningSim, running_simulator
from tests.support.sshd import free_port

PASSWORD_ENV = "DIFF_TEST_BUNDLE_PW"
PASSWORD = "diff tests: a long bundle password"
ENV = os.environ | {PASSWORD_ENV: PASSWORD}


def repaired_scenario(workdir: Path) -> Path:
    """Healthy, with a short canary that just ran (after BEFORE was sealed).

    It finished, and its receipt came, before the simulator answers: a canary
    or receipt dated after AFTER was read is no proof (the clocks disagree).
    """
    path = workdir / "repaired.yaml"
    (workdir / "healthy.yaml").write_text((SCENARIO_DIR / "healthy.yaml").read_text())
    canary = {"started_at": "-0.2s", "runs_s": 0.1, "receipt_after_s": 0.15}
    spec = {
        "description": "Repaired: every rung passes and a canary ran after the repair.",
        "extends": "healthy",  # resolved beside this file
        "jobs": [{"name": "ingest-events", "canary": canary}],
    }
    path.write_text(yaml.safe_dump(spec))
    return path


def collect(
    scenario: str, workdir: Path, monkeypatch: pytest.MonkeyPatch, *, port: int = 0
) -> Path:
    workdir.mkdir(parents=True)
    bundle = workdir / "support.zip"
    with running_simulator(scenario, workdir, port=port) as sim, monkeypatch.context() as patch:
        patch.setenv("PATH", sim.hosts[0]["bin_dir"] + os.pathsep + os.environ["PATH"])
        patch.setenv(PASSWORD_ENV, PASSWORD)
        patch.setenv(PROFILE.token_env, sim.token)
        run_doctor(
            DoctorRequest(
                profile=PROFILE.name,
                server=sim.url,
                ca_cert=sim.ca_file,
                bundle=bundle,
                seal=SealOptions(password_env=PASSWORD_ENV),
                inventory=_inventory(sim, workdir),
            ),
            environ=os.environ,
        )
    assert bundle.exists()
    return bundle


def _inventory(sim: RunningSim, workdir: Path) -> Path:
    (host,) = sim.hosts
    spec = {
        "address": "local",
        "role": "worker",
        "worker": host["worker"],
        "state_dir": host["state_dir"],
        "logs": [{"file": host["log_file"]}],
    }
    path = workdir / "inventory.yaml"
    path.write_text(yaml.safe_dump({"hosts": [spec]}))
    return path


def diff(before: Path, after: Path) -> tuple[int, DiffReport]:
    result = subprocess.run(
        [sys.executable, "-m", "bundler", "diff", str(before), str(after), "--format", "json",
         "--password-env", PASSWORD_ENV],
        capture_output=True, text=True, env=ENV, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode in (0, 1, 3), result.stderr
    return result.returncode, DiffReport.model_validate(json.loads(result.stdout))


def layer(report: DiffReport, name: str) -> tuple[str, str | None, str | None]:
    (target,) = [t for t in report.targets if t.worker == "edge-01"]
    (change,) = [c for c in target.layers if c.layer.value == name]
    return (
        change.change,
        getattr(change.before, "value", None),
        getattr(change.after, "value", None),
    )


@pytest.mark.parametrize(
    ("incident", "layer_name", "codes"),
    [
        ("license_expired", "authorization", {"LICENSE_EXPIRED_OR_INVALID"}),
        ("requirements_blocked", "requirements", {"CREDENTIAL_NOT_BOUND", "DB_ACL_DENIED"}),
    ],
)
def test_an_incident_then_its_repair_is_recovered(
    incident: str, layer_name: str, codes: set[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()  # one server URL for both: the same "fleet" before and after
    before = collect(incident, tmp_path / "before", monkeypatch, port=port)
    after = collect(str(repaired_scenario(tmp_path)), tmp_path / "after", monkeypatch, port=port)
    code, report = diff(before, after)
    assert (code, report.verdict) == (0, "recovered"), report.acceptance
    assert report.doubts == []
    assert layer(report, layer_name) == ("fixed", "fail", "pass")
    resolved = {f.code for f in report.findings if f.change == "resolved"}
    assert codes <= resolved
    assert not [f for f in report.findings if f.change == "new" and f.severity_after == "fail"]
    checks = {c.check: c.status for c in report.acceptance}
    assert set(checks.values()) <= {"pass", "not_applicable"}
    assert checks["successful canary newer than BEFORE"] == "pass"
    assert (
        checks["external receipt newer than BEFORE (where the job has an external effect)"]
        == "pass"
    )

    code, backwards = diff(after, before)  # the repair undone: a regression
    assert (code, backwards.verdict) == (1, "regressed")
    assert layer(backwards, layer_name)[0] == "newly_failing"
    assert any("newer than AFTER" in w for w in backwards.warnings)
