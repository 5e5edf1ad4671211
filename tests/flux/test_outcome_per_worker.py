"""A run proves the outcome of the worker it ran on, on the committed healthy Flux sample.

In ``flux-healthy`` the one workflow run completed on one of the two workers
(whichever claimed it: the lab does not pin it); the other ran nothing and
holds no job. The idle worker's outcome is not a pass borrowed from the other:
it is *not applicable* (outcome is per job, as for a LyftData worker without a
canary), and its completed-run check says so rather than passing.
"""

from __future__ import annotations

from bundler.analyze.api import EvidenceSet
from bundler.analyze.checklist import Proof
from bundler.analyze.engine import analyze
from bundler.products.flux import PROFILE
from schemas import Layer, LayerStatus, TargetReport, Verdict
from schemas.evidence import OutcomeEvidence
from tests.support.sample_bundles import load_sample


def _outcome(target: TargetReport) -> tuple[LayerStatus, list[str], str]:
    rung = next(r for r in target.layers if r.name is Layer.OUTCOME)
    (run_check,) = PROFILE.acceptance_checklist.texts([Proof.CANARY])
    canary = next(c.status for c in target.acceptance if c.check == run_check)
    return rung.status, [f.code for f in rung.findings], canary


def test_an_idle_worker_does_not_pass_on_another_workers_run() -> None:
    evidence = EvidenceSet(*load_sample("flux-healthy"))
    outcome = evidence.get(OutcomeEvidence)
    assert outcome is not None
    (ran,) = {run.worker for run in outcome.canaries}
    (idle,) = {"w1", "w2"} - {ran}
    report = analyze(evidence, profile=PROFILE)
    by_worker = {t.worker: t for t in report.targets}
    assert by_worker.keys() == {"w1", "w2"}
    assert _outcome(by_worker[idle]) == (
        LayerStatus.NOT_APPLICABLE,
        ["NO_TARGET_JOB"],
        "not_applicable",
    )
    status, found, canary = _outcome(by_worker[ran])
    assert (status, canary) == (LayerStatus.PASS, "pass")
    assert "FLUX_LAST_RUN_SUCCEEDED" in found
    # Nothing is missing or wrong: an idle worker with a fresh heartbeat is healthy.
    assert report.verdict is Verdict.HEALTHY
