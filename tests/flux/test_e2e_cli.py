"""The nine Flux scenarios end to end, through the real command line.

``bundler doctor --profile flux --server URL --inventory LAB --local --bundle X.zip
--password-env V`` against a live lab with the fault injected, then ``bundler
analyze X.zip --format json --password-env V``; the report's first failed
layer and finding code must be the scenario's, and the scenario's own checks
(``scenario_expectations.py``) must hold on the report.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bundler.analyze.api import EvidenceSet
from bundler.products.flux import PROFILE
from bundler.source import DirectorySource
from samples.flux_lab.scenarios import SCENARIOS, Scenario
from schemas import AnalysisReport, LayerStatus
from tests.support.flux import BUNDLE_PASSWORD_ENV, LabFactory, doctor_lab, extract, run_bundler

from .scenario_expectations import CHECKS, EXPECTED_KINDS

EXPECTED_DOCTOR_EXIT = {None: 0}
"""doctor exits 0 when healthy and 1 when a layer failed (it outranks 5, partial)."""


def params() -> list:
    marks = {True: [pytest.mark.flux, pytest.mark.slow], False: [pytest.mark.flux]}
    return [pytest.param(s, id=s.name, marks=marks[s.slow]) for s in SCENARIOS]


@pytest.mark.parametrize("scenario", params())
def test_scenario_through_the_cli(
    scenario: Scenario, flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    lab = flux_lab_factory(scenario.config)
    scenario.inject(lab)
    bundle = tmp_path / f"flux-{scenario.name}.zip"
    doctor = doctor_lab(lab, bundle)
    assert bundle.exists(), doctor.stderr[-2000:]
    assert doctor.returncode == EXPECTED_DOCTOR_EXIT.get(scenario.expect_layer, 1), doctor.stderr
    extracted = extract(bundle, tmp_path / "extracted")
    kinds = {e.kind for e in PROFILE.parse_logs(EvidenceSet(DirectorySource(extracted)))}
    assert kinds >= EXPECTED_KINDS[scenario.name], EXPECTED_KINDS[scenario.name] - kinds
    analyzed = run_bundler(
        "analyze", str(bundle), "--format", "json", "--password-env", BUNDLE_PASSWORD_ENV
    )
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
    CHECKS[scenario.name](report)
