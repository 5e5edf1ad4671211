"""The nine Flux scenarios end to end, through the real command line.

``bundler doctor --profile flux --server URL --inventory LAB --local --bundle X.zip
--password-env V`` against a live lab with the fault injected, then ``bundler
analyze X.zip --format json --password-env V``; the report's first failed
layer and finding code must be the scenario's.

INTEGRATION POINT: ``doctor`` (branch collect), the archive and ``analyze``
(branch analyze) land on main separately; until both commands exist this
module skips, and ``test_scenarios.py`` proves the same scenarios at the
component level.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bundler.analyze.api import EvidenceSet
from bundler.products.flux import PROFILE
from bundler.source import DirectorySource
from samples.flux_lab.scenarios import SCENARIOS, Scenario
from schemas import AnalysisReport, Finding, LayerStatus
from tests.support.flux import LabFactory

from .test_scenarios import CHECKS, EXPECTED_KINDS

COMMANDS = ("bundler.cli.doctor", "bundler.cli.analyze")
MISSING = [name for name in COMMANDS if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"not on this branch yet: {', '.join(MISSING)}"
)

PASSWORD_ENV = "FLUX_E2E_BUNDLE_PASSWORD"
EXPECTED_DOCTOR_EXIT = {None: 0}
"""doctor exits 0 when healthy and 1 when a layer failed (it outranks 5, partial)."""


class ReportView:
    """``findings(code)`` over a real AnalysisReport, like the component-level report."""

    def __init__(self, report: AnalysisReport) -> None:
        self.report = report

    def findings(self, code: str) -> list[Finding]:
        found = [f for t in self.report.targets for lr in t.layers for f in lr.findings]
        return [f for f in found + self.report.fleet_findings if f.code == code]


def bundler(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bundler", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )


def params() -> list:
    marks = {True: [pytest.mark.flux, pytest.mark.slow], False: [pytest.mark.flux]}
    return [pytest.param(s, id=s.name, marks=marks[s.slow]) for s in SCENARIOS]


@pytest.mark.parametrize("scenario", params())
def test_scenario_through_the_cli(
    scenario: Scenario, flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    lab = flux_lab_factory(scenario.config)
    scenario.inject(lab)
    inventory = lab.write_inventory()
    bundle = tmp_path / f"flux-{scenario.name}.zip"
    env = os.environ | {PASSWORD_ENV: "e2e: correct horse battery staple"}
    doctor = bundler(
        "doctor", "--profile", "flux", "--server", lab.url, "--inventory", str(inventory),
        "--local", "--bundle", str(bundle), "--password-env", PASSWORD_ENV, env=env,
    )  # fmt: skip
    assert bundle.exists(), doctor.stderr[-2000:]
    assert doctor.returncode == EXPECTED_DOCTOR_EXIT.get(scenario.expect_layer, 1), doctor.stderr
    extracted = tmp_path / "extracted"
    unpacked = bundler("extract", str(bundle), "--to", str(extracted), "--password-env",
                       PASSWORD_ENV, env=env)  # fmt: skip
    assert unpacked.returncode == 0, unpacked.stderr
    kinds = {e.kind for e in PROFILE.parse_logs(EvidenceSet(DirectorySource(extracted)))}
    assert kinds >= EXPECTED_KINDS[scenario.name], EXPECTED_KINDS[scenario.name] - kinds
    analyzed = bundler("analyze", str(bundle), "--format", "json", "--password-env", PASSWORD_ENV,
                       env=env)  # fmt: skip
    report = AnalysisReport.model_validate(json.loads(analyzed.stdout))
    if scenario.expect_layer is None:
        assert analyzed.returncode == 0, analyzed.stdout[-3000:]
        assert report.verdict.value == "healthy"
        for target in report.targets:
            assert {lr.status for lr in target.layers} <= {
                LayerStatus.PASS,
                LayerStatus.NOT_APPLICABLE,
            }
        return
    assert analyzed.returncode == 1, analyzed.stderr
    assert report.first_failed_layer is not None
    assert report.first_failed_layer.value == scenario.expect_layer
    failed = [lr for t in report.targets for lr in t.layers if lr.status is LayerStatus.FAIL]
    codes = {f.code for lr in failed if lr.name.value == scenario.expect_layer for f in lr.findings}
    assert scenario.expect_code in codes
    CHECKS[scenario.name](ReportView(report))  # type: ignore[arg-type]
