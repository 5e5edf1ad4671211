"""A workflow whose task always raises, on a healthy fleet, read by doctor and analyze.

Every other lab scenario breaks the fleet; this one breaks only the work. Flux
records each run FAILED with the task's exception as its output; the workers stay
online with free slots. The outcome rung is the one that must fail, citing the
failed execution and its error, with every rung below it passing: the fleet is
not to blame. The rules were so far tested on such a run only in synthetic evidence.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from samples.flux_lab import faults
from schemas import AnalysisReport, Layer, LayerStatus
from tests.support.flux import BUNDLE_PASSWORD_ENV, LabFactory, doctor_lab, run_bundler

pytestmark = pytest.mark.flux


def test_a_workflow_that_always_fails_fails_the_outcome_rung_only(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    lab = flux_lab_factory()
    assert lab.api.run_to_end("hello_world", "before")["state"] == "COMPLETED"
    failed = faults.failing_runs(lab, runs=2, worker="w1")
    bundle = tmp_path / "flux.zip"
    doctor_lab(lab, bundle)
    analyzed = run_bundler(
        "analyze", str(bundle), "--format", "json", "--password-env", BUNDLE_PASSWORD_ENV
    )
    assert analyzed.returncode == 1, analyzed.stderr
    report = AnalysisReport.model_validate_json(analyzed.stdout)
    assert report.verdict.value == "blocked"
    assert report.first_failed_layer is Layer.OUTCOME
    (target,) = [t for t in report.targets if t.job == "default/always_fails"]
    assert (target.worker, target.first_failed_layer) == ("w1", Layer.OUTCOME)
    assert target.job_id in failed.executions
    below = [r.status for r in target.layers if r.name is not Layer.OUTCOME]
    assert set(below) <= {LayerStatus.PASS, LayerStatus.NOT_APPLICABLE}, below
    (outcome,) = [r for r in target.layers if r.name is Layer.OUTCOME]
    (finding,) = [f for f in outcome.findings if f.code == "FLUX_EXECUTION_FAILED"]
    assert target.job_id in finding.message
    assert "RuntimeError: lab task refused" in finding.message
    (cited,) = finding.evidence  # the job record holding Flux's own error for that run
    assert cited.member == "evidence/jobs.json"
    assert (cited.excerpt or "").startswith("RuntimeError: lab task refused: attempt ")
