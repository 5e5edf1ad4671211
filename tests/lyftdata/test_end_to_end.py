"""Every scenario end to end, through the real CLI: doctor → encrypted bundle → analyze.

The simulator is a real HTTP(S) server process; the worker host is a real
OpenSSH sshd on 127.0.0.1 serving the scenario's prepared state directory,
with the stand-in tools first on its PATH (sshd ``SetEnv``). ``bundler
doctor --profile lyftdata`` collects over both, ``bundler analyze --format
json`` replays the ladder, and the scenario's ``expect`` block must hold.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from samples.lyftdata_sim.loader import load_scenario, scenario_names
from schemas import AnalysisReport
from tests.support.lyftdata_sim import ROOT, RunningSim, running_simulator
from tests.support.requirements import need

from .expectations import UNTRUSTED, assert_matches_expectation

sshd = pytest.importorskip("tests.support.sshd", reason="sshd lab not on main yet")
pytest.importorskip("bundler.cli.doctor", reason="doctor not on main yet")
pytest.importorskip("bundler.cli.analyze", reason="analyze not on main yet")
pytest.importorskip("bundler.archive.builder", reason="bundle writer not on main yet")
pytest.importorskip("redactors", reason="redaction not on main yet (doctor refuses to write)")

pytestmark = [pytest.mark.sshd, pytest.mark.slow]

PASSWORD = "lyftdata-e2e-bundle-password"
BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CACHED_KEY = "LDWK-SIM-CACHED-KEY"


@dataclass
class Fleet:
    sim: RunningSim
    inventory: Path
    ssh_config: Path
    known_hosts: Path


@contextmanager
def fleet(scenario: str, workdir: Path) -> Iterator[Fleet]:
    """The simulator plus one real sshd per prepared worker host, and an inventory."""
    need(sshd.sshd_available(), "OpenSSH sshd (as root) is needed for end-to-end tests")
    with running_simulator(scenario, workdir) as sim, sshd.SshLab() as lab:
        hosts = []
        for number, host in enumerate(sim.hosts, start=1):
            name = f"worker{number}"
            instance = lab.start(name, extra_config=f"SetEnv PATH={host['bin_dir']}:{BASE_PATH}")
            lab.add_host(name, instance)
            lab.trust(instance)
            hosts.append(
                {
                    "address": name,
                    "role": "worker",
                    "worker": host["worker"],
                    "state_dir": host["state_dir"],
                    "logs": [{"file": host["log_file"]}],
                }
            )
        inventory = workdir / "inventory.yaml"
        inventory.write_text(yaml.safe_dump({"hosts": hosts}))
        yield Fleet(sim, inventory, lab.ssh_config, lab.known_hosts)


def _bundler(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bundler", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def doctor_then_analyze(
    scenario: str, workdir: Path
) -> tuple[subprocess.CompletedProcess[str], AnalysisReport]:
    bundle = workdir / "support.zip"
    env = {"LYFTDATA_API_TOKEN": "sim-token", "BUNDLE_PW": PASSWORD}
    with fleet(scenario, workdir) as f:
        args = [
            "doctor",
            "--profile",
            "lyftdata",
            "--server",
            f.sim.url,
            "--inventory",
            str(f.inventory),
            "--ssh-config",
            str(f.ssh_config),
            "--known-hosts",
            str(f.known_hosts),
            "--bundle",
            str(bundle),
            "--password-env",
            "BUNDLE_PW",
        ]
        if f.sim.ca_file and scenario not in UNTRUSTED:
            args += ["--ca-cert", str(f.sim.ca_file)]
        doctor = _bundler(*args, env=env)
        writes = [r for r in f.sim.requests() if r["method"] != "GET"]
    assert writes == [], writes
    assert bundle.exists(), doctor.stderr[-2000:]
    analyzed = _bundler(
        "analyze", str(bundle), "--password-env", "BUNDLE_PW", "--format", "json", env=env
    )
    assert analyzed.returncode in (0, 1, 3), analyzed.stderr[-2000:]
    assert CACHED_KEY not in analyzed.stdout
    return doctor, AnalysisReport.model_validate(json.loads(analyzed.stdout))


def collector_status(bundle: Path) -> dict[str, str]:
    """Collector id -> status, from the sealed bundle's manifest."""
    shown = _bundler(
        "inspect", str(bundle), "--password-env", "BUNDLE_PW", "--json", env={"BUNDLE_PW": PASSWORD}
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    manifest = json.loads(shown.stdout)["manifest"]
    return {c["id"]: c["status"] for c in manifest["collectors"]}


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
    if name == "healthy":
        assert doctor.returncode == 0, doctor.stderr[-2000:]
    elif "live analysis failed" not in doctor.stderr:
        # INTEGRATION POINT: doctor's live verdict (collect + analyze) decides exit 1.
        assert doctor.returncode == 1, doctor.stderr[-2000:]
