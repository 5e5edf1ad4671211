"""A healthy Flux run is said once, in Flux's words: no generic "canary passed" beside it.

The generic outcome rule judged a Flux worker's last run too, and a healthy report listed
``CANARY_PASSED`` ("The last run of ... succeeded") beside ``FLUX_LAST_RUN_SUCCEEDED``
("... completed"): the same run twice, under a canary's code. Flux's finding now stands for
it (the profile's ``supersedes``). A pass replaced by a pass: the rung and the acceptance
checklist read exactly as before, which the comparison with a profile lacking the entry
proves on the committed healthy sample; a real lab's healthy run reads the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from bundler.analyze.api import EvidenceSet
from bundler.analyze.checklist import Proof
from bundler.analyze.codes import CANARY_PASSED
from bundler.analyze.engine import analyze
from bundler.products.flux import PROFILE
from bundler.products.flux.codes import FLUX_LAST_RUN_SUCCEEDED
from bundler.products.flux.profile import FluxProfile
from schemas import AnalysisReport, Layer, LayerStatus, TargetReport, Verdict
from tests.support.flux import LabFactory, analyze_json, doctor_lab, rung
from tests.support.sample_bundles import load_sample

(RUN_CHECK,) = PROFILE.acceptance_checklist.texts([Proof.CANARY])


class _BothSaid(FluxProfile):
    """Flux as it was: the generic CANARY_PASSED shown beside FLUX_LAST_RUN_SUCCEEDED."""

    supersedes: Mapping[str, str | tuple[str, ...]] = {
        code: generic
        for code, generic in FluxProfile.supersedes.items()
        if code != FLUX_LAST_RUN_SUCCEEDED
    }


def _read(report: AnalysisReport) -> list[tuple[object, ...]]:
    """What a reader of each target judges by: every rung's status and every check's."""
    return [
        (
            t.worker,
            t.job,
            t.verdict,
            [(r.name, r.status) for r in t.layers],
            [(c.check, c.status) for c in t.acceptance],
        )
        for t in report.targets
    ]


def _ran(report: AnalysisReport) -> TargetReport:
    """The one target whose outcome rung passed: the worker that ran the workflow."""
    (ran,) = [t for t in report.targets if rung(t, Layer.OUTCOME)[0] is LayerStatus.PASS]
    return ran


def _says_it_once(target: TargetReport) -> None:
    status, findings = rung(target, Layer.OUTCOME)
    assert status is LayerStatus.PASS
    assert [f.code for f in findings] == [FLUX_LAST_RUN_SUCCEEDED]
    # the rung's headline now: the worker named once (it read "worker w1: ... on w1.")
    assert findings[0].message.startswith(f"worker {target.worker}: the last run of ")
    assert findings[0].message.endswith(") completed.")
    checks = {c.check: c.status for c in target.acceptance}
    assert checks[RUN_CHECK] == "pass"


def test_the_healthy_sample_says_its_last_run_once_and_reads_as_before() -> None:
    evidence = EvidenceSet(*load_sample("flux-healthy"))
    report = analyze(evidence, profile=PROFILE)
    before = analyze(evidence, profile=_BothSaid())
    assert CANARY_PASSED in [f.code for f in rung(_ran(before), Layer.OUTCOME)[1]]
    _says_it_once(_ran(report))
    assert _read(report) == _read(before)  # no rung, verdict or check turned
    assert report.verdict is Verdict.HEALTHY


@pytest.mark.flux
def test_a_real_labs_healthy_run_is_one_finding_in_fluxs_words(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    lab = flux_lab_factory()
    assert lab.api.run_to_end("hello_world", "fine")["state"] == "COMPLETED"
    bundle = tmp_path / "flux.zip"
    doctor_lab(lab, bundle)
    report = analyze_json(bundle, expect_rc=0)
    assert report.verdict is Verdict.HEALTHY
    _says_it_once(_ran(report))
